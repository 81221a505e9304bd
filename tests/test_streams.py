"""The per-game random streams: pure functions of their coordinates, right distributions."""

import numpy as np
import pytest

from barbaron import rules as R
from barbaron import streams


def test_streams_are_pure_functions_of_their_coordinates():
    assert streams.roll(5, 77, 3) == streams.roll(5, 77, 3)
    assert streams.word(1, 2, 3, 4) != streams.word(1, 2, 3, 5)
    assert streams.word(1, 2, 3, 4) != streams.word(1, 3, 3, 4)
    assert streams.word(1, 2, 3, 4) != streams.word(2, 2, 3, 4)
    a, b = streams.SeededChance(9, 4), streams.SeededChance(9, 4)
    assert [a.roll() for _ in range(50)] == [b.roll() for _ in range(50)]
    assert a.deck_order(3) == b.deck_order(3) and a.deck_order(0) != a.deck_order(1)


def chi_square(counts, probabilities):
    expected = counts.sum() * np.asarray(probabilities)
    return float(((counts - expected) ** 2 / expected).sum())


def test_dice_sums_follow_the_exact_two_dice_distribution():
    sums = np.zeros(13)
    for game in range(40_000):
        for n in range(3):
            d1, d2 = streams.roll(11, game, n)
            assert 1 <= d1 <= 6 and 1 <= d2 <= 6
            sums[d1 + d2] += 1
    exact = [(6 - abs(7 - s)) / 36 for s in range(2, 13)]  # 1/36, 2/36, ... 6/36, ... 1/36
    # 10 degrees of freedom: P(chi2 > 35) < 0.0002 for a fair generator
    assert chi_square(sums[2:], exact) < 35


def test_every_shuffle_is_a_permutation_and_cards_land_everywhere_evenly():
    positions = np.zeros((R.N_CARDS, R.N_CARDS))
    order = np.empty(R.N_CARDS, dtype=np.int8)
    for game in range(20_000):
        streams.shuffle_into(3, game, game % 4, order)
        assert sorted(order.tolist()) == list(range(R.N_CARDS))
        positions[order, np.arange(R.N_CARDS)] += 1
    # each card is drawn first (and in any place) with probability 1/14
    for card in range(R.N_CARDS):
        assert chi_square(positions[card], [1 / R.N_CARDS] * R.N_CARDS) < 45  # 13 dof


def test_uniform_draws_are_in_range_and_unbiased():
    u = np.array([streams.uniform(1, g, streams.BOTS, 0) for g in range(50_000)])
    assert u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.01


@pytest.mark.parametrize("draw", [1.5, True, -1, 16, "1"])
def test_a_draw_number_is_a_whole_number_from_0_to_15(draw):
    """view.uniform(games, 1.5) and game.uniform(True) played as draw 1 (QA)."""
    with pytest.raises(ValueError, match="draw must be a whole number 0..15"):
        streams.bot_draw(3, 0, draw)
    assert streams.bot_draw(3, 0, np.int64(15)) == streams.bot_draw(3, 0, 15)

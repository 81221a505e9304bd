"""The batch engine: golden scenarios, differential against the reference engine, determinism."""

from collections import Counter

import numpy as np
import pytest
from barbaron.bots.threshold import ThresholdBot
from conftest import CONFORMANCE_FILES, RandomBatchBot

from barbaron import rules as R
from barbaron.batch import BatchOutcome, play_batch
from barbaron.replay import replay_game
from barbaron.rules import Rules
from barbaron.scenario import load_scenario, play_scenarios_batch
from barbaron.strategy import Mixed, ScalarStrategy, Strategy


def test_batch_engine_passes_the_conformance_suite():
    scenarios = [load_scenario(p) for p in CONFORMANCE_FILES]
    assert len(scenarios) >= 300
    for scenario, got in zip(scenarios, play_scenarios_batch(scenarios), strict=True):
        for key, expected in scenario.expect.items():
            assert got[key] == expected, f"{scenario.name}: {key} differs"


def bots(*params):
    return [ThresholdBot(*p) for p in params]


class CardCounter(Strategy):
    """Decides by the public cards (view.cards_drawn, view.cards_seen): buys when the cards
    drawn so far are even, or Taxi was seen in this shuffle; takes over once 7 are seen."""

    def buy(self, view, games, bars):
        taxi = (view.cards_seen(games) == R.CARDS.index("taxi")).any(axis=1)
        return (view.cards_drawn(games) % 2 == 0) | taxi

    def takeover(self, view, games, bars):
        return (view.cards_seen(games) >= 0).sum(axis=1) >= 7


class ScalarCardCounter(ScalarStrategy):
    """CardCounter's questions, one game at a time (GameView.cards_drawn, .cards_seen)."""

    def buy_one(self, game, bar):
        return game.cards_drawn % 2 == 0 or R.CARDS.index("taxi") in game.cards_seen

    def takeover_one(self, game, bar):
        return len(game.cards_seen) >= 7


# (rules, lineup): 2, 3 and 4 players; 15 rounds; low start coins so liquidation and broke happen
LINEUPS = [
    (Rules(), bots((0, None, 0), (0, None, 0), (0, None, 0), (0, None, 0))),
    (Rules(start_coins=60), bots((0, 0, 0), (50, 100, None), (None, 0, 0), (0, 200, 100))),
    (Rules(players=2, rounds=15), bots((0, 0, 0), (100, 50, 150))),
    (Rules(players=3, start_coins=60, seat_bonus=0), bots((0, 0, 0), (0, 0, 0), (0, 0, 0))),
    (
        Rules(players=4, rounds=15, start_coins=200, seat_bonus=50),
        bots((0, 0, 0), (0, 100, 0), (200, 0, None), (0, 0, 300)),
    ),
    (
        Rules(players=3, rounds=3, start_coins=30, seat_bonus=200),
        bots((0, 0, 0), (0, 0, 0), (0, 0, 0)),
    ),
    (
        Rules(start_coins=200),
        [RandomBatchBot(0.3), RandomBatchBot(0.7), *bots((0, 0, 0))] + [RandomBatchBot(0.9)],
    ),
    (Rules(rounds=15), [CardCounter(), ScalarCardCounter(), *bots((0, 0, 0), (0, 0, 0))]),
]


@pytest.mark.parametrize("rules, lineup", LINEUPS, ids=lambda x: repr(x)[:60])
def test_batch_engine_matches_the_reference_engine_game_for_game(rules, lineup):
    seed, n = 20261129, 2000
    out = play_batch(rules, lineup, seed, np.arange(n))
    st = out.state
    seen = Counter()
    for g in range(n):
        ref, events = replay_game(rules, lineup, seed, g)
        seen.update(e.kind for e in events)
        assert (
            list(ref.coins),
            list(ref.position),
            list(ref.owner),
            list(ref.level),
            list(ref.worth),
        ) == (
            st.coins[g].tolist(),
            st.position[g].tolist(),
            st.owner[g].tolist(),
            st.level[g].tolist(),
            out.worth[g].tolist(),
        ), f"game {g} differs"
    assert seen["card"] > 0 and seen["skip"] > 0 and seen["upgrade"] > 0
    if rules.start_coins <= 200:  # the lineups meant to reach the rare rules do
        assert seen["sale"] > 0 and seen["broke"] > 0 and seen["takeover"] > 0


def same(a: BatchOutcome, b: BatchOutcome, rows_a=slice(None), rows_b=slice(None)) -> bool:
    fields = ("coins", "position", "owner", "level", "skip", "drawn", "rolls")
    return all(
        np.array_equal(getattr(a.state, f)[rows_a], getattr(b.state, f)[rows_b]) for f in fields
    )


def test_a_game_does_not_depend_on_its_batch():
    rules, lineup = LINEUPS[1]
    games = np.arange(1000, 1000 + 65536)
    big = play_batch(rules, lineup, 5, games)
    mid = play_batch(rules, lineup, 5, games[:1000])
    assert same(big, mid, slice(0, 1000))
    for g in (0, 17, 999, 65535):
        one = play_batch(rules, lineup, 5, games[g : g + 1])
        assert same(big, one, slice(g, g + 1))
    shuffled = np.random.default_rng(0).permutation(65536)[:5000]
    mixed = play_batch(rules, lineup, 5, games[shuffled])
    assert same(big, mixed, shuffled)


def test_lineups_mixed_within_a_batch_and_the_order_bots_are_asked_do_not_matter():
    rules = Rules(start_coins=200)
    a, b = RandomBatchBot(0.4), ThresholdBot(0, 0, 0)
    lineups = [[a, b, b, a], [b, a, a, b], [a, a, b, b]]
    n = 3000
    which = np.random.default_rng(1).integers(0, 3, n)  # a lineup per game, shuffled
    alone = [play_batch(rules, lineup, 9, np.arange(n)) for lineup in lineups]
    for order in ([0, 1, 2], [2, 0, 1]):  # the order in which the lineups' bots are asked
        rank = np.argsort(order)
        seats = [Mixed([lineups[k][seat] for k in order], rank[which]) for seat in range(4)]
        mixed = play_batch(rules, seats, 9, np.arange(n))
        for k in range(3):
            rows = np.flatnonzero(which == k)
            assert same(mixed, alone[k], rows, rows)


def test_different_seeds_and_games_give_different_games():
    rules, lineup = LINEUPS[0]
    a = play_batch(rules, lineup, 1, np.arange(200))
    b = play_batch(rules, lineup, 2, np.arange(200))
    assert not np.array_equal(a.state.coins, b.state.coins)
    assert len({tuple(r) for r in a.state.coins.tolist()}) > 190


def test_the_engine_refuses_specs_and_numbers_the_streams_cannot_take():
    """A spec for a strategy, a seed of 2**64 or -1, a fractional game: each one clear error
    (an AttributeError, an OverflowError, or a game played silently before: library QA)."""
    from barbaron.registry import make_bot

    hard = [make_bot("hard")] * 4
    with pytest.raises(TypeError, match="strategies are Strategy objects"):
        play_batch(Rules(), ["hard"] * 4, 3, np.arange(2))
    for seed in (2**64, -1, 1.5):
        with pytest.raises(ValueError, match="seed must be a whole number"):
            play_batch(Rules(), hard, seed, np.arange(2))
    for games in (np.array([0.5]), np.array([-1]), np.array([2**63], dtype=np.uint64)):
        with pytest.raises(ValueError, match="games must be whole numbers"):
            play_batch(Rules(), hard, 3, games)
    assert play_batch(Rules(), hard, np.int64(3), np.arange(2)).worth.shape == (2, 4)

"""The rules page's worked examples and the money formulas of R9-R12, as unit tests."""

import pytest

from barbaron import rules as R
from barbaron.reference import BANK, Game, worths
from barbaron.rules import Rules

JUG, NEON_LIGHT, NIGHT_MOTH, GOLDEN_MILE, LECTURE_HALL = 3, 9, 10, 11, 0


def test_board_matches_r1_r2():
    assert R.N_SPACES == 16 and len(R.BAR_SPACES) == 12
    assert R.BAR_NAMES[0] == "Lecture Hall 3" and R.BAR_NAMES[11] == "Golden Mile"
    assert [R.SPACE_TO_BAR[s] for s in (0, 4, 8, 12)] == [-1, -1, -1, -1]
    assert R.SPACE_NAMES[R.NEON_LIGHT] == "Neon Light"
    assert [R.district_of(b) for b in range(12)] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert R.SPACE_NAMES[R.JUKEBOX + R.PUB_CRAWL_STEPS] == "Town Cellar"
    assert R.SPACE_NAMES[R.REGULARS_TABLE + R.PUB_CRAWL_STEPS] == "Golden Mile"


def test_neon_light_with_happy_hour_and_night_moth_charges_225():
    assert R.tab(NEON_LIGHT, level=1, owner_bars_in_district=2) == 225


def test_full_strip_with_draught_tap_on_golden_mile_charges_720():
    assert R.tab(GOLDEN_MILE, level=2, owner_bars_in_district=3) == 720


def test_the_jug_tabs_value_and_takeover():
    assert R.tab(JUG, 1, 1) == 90 and R.tab(JUG, 2, 1) == 180
    assert R.upgrade_cost(JUG) == 60
    assert R.bar_value(JUG, 2) == 240
    assert R.bar_value(JUG, 1) == 180 and R.takeover_cost(R.bar_value(JUG, 1)) == 270


def test_rounding_is_half_up_to_5_and_10():  # R9
    assert R.tab(0, 0, 2) == 30  # 20 x 1.5 = 30 exactly
    assert R.tab(2, 0, 2) == 40  # 25 x 1.5 = 37.5 -> 40
    assert R.tab(8, 0, 2) == 70  # 45 x 1.5 = 67.5 -> 70
    assert R.takeover_cost(150) == 230  # 225 -> 230
    assert R.takeover_cost(210) == 320  # 315 -> 320
    assert R.takeover_cost(100) == 150
    assert [R.tax_audit_amount(c) for c in (0, 20, 25, 220, 225, 1000)] == [0, 0, 5, 20, 25, 100]


def test_every_tab_value_and_sale_is_a_multiple_of_5():
    for bar in range(R.N_BARS):
        for level in range(3):
            value = R.bar_value(bar, level)
            assert value % 5 == 0 and R.sale_price(value) % 5 == 0
            assert R.takeover_cost(value) % 10 == 0
            for held in (1, 2, 3):
                assert R.tab(bar, level, held) % 5 == 0


def test_liquidation_order_is_lowest_value_then_index():  # R12
    level = [0] * 12
    level[0] = 2  # Lecture Hall 3 with Draught Tap: value 160
    assert R.liquidation_order([0, 1, 3, 6], level) == [1, 3, 0, 6]  # 80, 120, 160(b0), 160(b6)


def test_the_1020_worth_example():
    owner, level = [-1] * 12, [0] * 12
    owner[JUG], level[JUG], owner[NEON_LIGHT] = 0, 1, 0
    assert worths([640, 0], owner, level) == [1020, 0]


def _game(coins, owner, level):
    game = Game(Rules(players=2), [None, None], chance=None)
    game.coins, game.owner, game.level = list(coins), list(owner), list(level)
    return game


def test_the_300_coin_liquidation_example():
    owner, level = [-1] * 12, [0] * 12
    owner[LECTURE_HALL] = owner[JUG] = 0
    game = _game([260, 0], owner, level)
    game._pay(0, 300, 1, "a tab of 300")
    assert game.coins == [0, 300]
    assert game.owner[LECTURE_HALL] == -1 and game.owner[JUG] == 0  # only the cheapest was sold
    assert [e.kind for e in game.events] == ["owe", "sale", "pay"]
    assert game.events[1].amount == 40


def test_going_broke_pays_everything_and_sells_upgraded_bars_at_half_value():
    owner, level = [-1] * 12, [0] * 12
    owner[JUG], level[JUG] = 0, 2  # value 240, sells for 120
    game = _game([15, 0], owner, level)
    game._pay(0, 300, 1, "a tab of 300")
    assert game.coins == [0, 135]
    assert game.owner[JUG] == -1 and game.level[JUG] == 0
    assert game.events[-1].kind == "broke"


def test_paying_the_bank_credits_nobody():
    game = _game([100, 50], [-1] * 12, [0] * 12)
    game._pay(0, 60, BANK, "60 for the glasses")
    assert game.coins == [40, 50]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"players": 1}, "players must be 2, 3 or 4"),
        ({"players": 5}, "players must be 2, 3 or 4"),
        ({"rounds": 0}, "rounds must be between 1 and 1000"),
        ({"start_coins": -5}, "start_coins must be a non-negative multiple of 5"),
        ({"start_coins": 1001}, "start_coins must be a non-negative multiple of 5"),
        ({"seat_bonus": 7}, "seat_bonus must be a non-negative multiple of 5"),
        ({"players": 2.0}, "players must be a whole number"),
        ({"rounds": True}, "rounds must be a whole number"),
    ],
)
def test_rules_reject_bad_values_with_a_clear_message(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Rules(**kwargs)


def test_rules_defaults_and_seat_coins():
    rules = Rules()
    assert (rules.players, rules.rounds, rules.start_coins, rules.seat_bonus) == (4, 10, 1000, 100)
    assert [rules.seat_start_coins(s) for s in range(4)] == [1000, 1100, 1200, 1300]
    assert rules.turn_slots == 40


def test_rules_from_dict_names_an_unknown_key():
    with pytest.raises(ValueError, match="unknown key 'player'"):
        Rules.from_dict({"player": 3})


def test_rules_cap_the_start_coins_so_coins_fit_32_bits():
    with pytest.raises(ValueError, match="at most 1,000,000"):
        Rules(start_coins=2_000_000)
    with pytest.raises(ValueError, match="at most 1,000,000"):
        Rules(seat_bonus=1_000_005)


def test_every_table_of_the_rules_and_the_bots_is_read_only():
    """A plugin that wrote into a shared table (``t = R.BAR_OF_SPACE; t[t < 0] = 0``, meaning
    a copy) changed the rules for every bot, and only for kernels compiled after it: the games
    depended on numba's cache (QA). Every module-level array is read-only."""
    import importlib
    import pkgutil

    import numpy as np

    from barbaron import bots

    modules = ["barbaron.rules", "barbaron.odds", "barbaron.batch", "barbaron.view_kernels"]
    modules += [f"barbaron.bots.{m.name}" for m in pkgutil.iter_modules(bots.__path__)]
    writable = [
        f"{name}.{key}"
        for name in modules
        for key, value in vars(importlib.import_module(name)).items()
        if isinstance(value, np.ndarray) and value.flags.writeable
    ]
    assert not writable

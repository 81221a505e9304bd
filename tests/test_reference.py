"""Single rules of the reference engine, each on a tiny scripted game."""

import json

import numpy as np
import pytest
from barbaron.bots.threshold import ThresholdBot

from barbaron import rules as R
from barbaron.reference import Game, IllegalDecision
from barbaron.rules import Rules
from barbaron.scenario import ScriptedChance, load_scenario, play_scenario, play_scenarios_batch
from barbaron.strategy import ScalarStrategy


def threshold(buy, takeover, upgrade):
    return ThresholdBot(buy, takeover, upgrade)


NEVER = threshold(None, None, None)
EAGER = threshold(0, 0, 0)


def deck_starting_with(*cards):
    rest = [c for c in R.CARDS if c not in cards]
    return [R.CARD_INDEX[c] for c in (*cards, *rest)]


def play(dice, cards=(), bots=(EAGER, NEVER), rounds=1, **rules):
    chance = ScriptedChance(dice, deck_starting_with(*cards))
    game = Game(Rules(players=len(bots), rounds=rounds, **rules), list(bots), chance)
    outcome = game.play()
    return game, outcome, chance


def kinds(game, seat=0):
    return [e.kind for e in game.events if e.seat == seat]


def test_police_check_sends_to_curfew_without_wages_and_the_skip_uses_no_dice():
    # seat 0: 2+2 -> Jukebox, police check; round 2 is skipped; seat 1 rolls 1+1 both rounds
    game, outcome, chance = play([(2, 2), (1, 1), (1, 2)], ["police_check"], rounds=2)
    assert outcome.position[0] == R.CURFEW
    assert "wages" not in kinds(game) and "skip" in kinds(game)
    assert chance.rolls == 3  # seat 0 rolled once, seat 1 twice


def test_bouncer_moves_to_payday_and_pays_wages_once():
    game, outcome, _ = play([(1, 3), (1, 1)], ["bouncer"], bots=(NEVER, NEVER))
    assert outcome.position[0] == R.PAYDAY and outcome.coins[0] == 1000 + 150


def test_pub_crawl_from_the_jukebox_resolves_town_cellar():
    game, outcome, _ = play([(1, 3), (1, 1)], ["pub_crawl"])
    assert outcome.position[0] == 7 and outcome.owner[5] == 0  # Town Cellar is bar 5
    assert outcome.coins[0] == 1000 - 140


def test_taxi_moves_to_neon_light_without_wages_and_the_tab_is_paid():
    buyer = threshold(0, None, None)
    # s0: 6+5 -> The Galley (buys); s1: 2+2 -> Jukebox, Bouncer; s0: 1+1 -> Neon Light (buys);
    # s1: 6+6 -> Regulars' Table, Taxi -> Neon Light, owned by s0: tab 50
    game, outcome, _ = play(
        [(6, 5), (2, 2), (1, 1), (6, 6)], ["bouncer", "taxi"], bots=(buyer, NEVER), rounds=2
    )
    assert outcome.position == (R.NEON_LIGHT, R.NEON_LIGHT)
    assert outcome.owner[8] == 0 and outcome.owner[9] == 0
    assert kinds(game, 1).count("wages") == 1  # the Bouncer's, not the taxi ride's
    assert outcome.coins[1] == 1100 + 150 - 50


def test_free_keg_upgrades_the_cheapest_plain_bar_and_otherwise_pays_50():
    game = Game(Rules(players=2), [NEVER, NEVER], chance=None)
    game.owner[4] = game.owner[1] = game.owner[0] = 0
    game.level[0] = 1
    game._card_free_keg(0)
    assert game.level[:5] == [1, 1, 0, 0, 0]  # bar 1 (80, plain) beats bar 4 (120)
    game._card_free_keg(1)
    assert game.coins[1] == 1100 + 50


def test_round_on_the_house_pays_clockwise_from_the_left_each_payment_on_its_own():
    game = Game(Rules(players=4), [NEVER] * 4, chance=None)
    game.coins = [40, 0, 0, 0]
    game.owner[0] = 2  # seat 2 owns a bar worth 80 -> sells for 40
    game.coins[2] = 40
    game._card_round_on_the_house(2)  # seat 2 pays seats 3, 0, 1 in that order
    pays = [(e.kind, e.to, e.amount) for e in game.events if e.kind in ("pay", "broke", "sale")]
    assert pays == [("pay", 3, 30), ("sale", -1, 40), ("pay", 0, 30), ("broke", 1, 20)]
    assert game.coins == [70, 20, 0, 30]


def test_birthday_collects_from_every_other_seat_even_the_broke_ones():
    game = Game(Rules(players=3), [NEVER] * 3, chance=None)
    game.coins = [100, 10, 50]
    game._card_birthday(0)
    assert game.coins == [100 + 10 + 25, 0, 25]


def test_a_story_of_nothing_to_pay_says_so_not_zero_coins():
    """'pays the bank 0 for 0 upgrade levels', 'pays seat 0 all 0 coins' and 'pays the bank 0
    tax' were told (QA, review); the amounts logged stay 0."""
    game = Game(Rules(players=2), [NEVER, NEVER], chance=None)
    game.coins = [500, 0]
    game._card_health_inspection(0)  # no upgrades
    game._card_birthday(0)  # seat 1 has nothing
    game.coins[0] = 20
    game._card_tax_audit(0)  # 10% of 20 is 2: rounds to 0
    texts = [e.text for e in game.events]
    assert any("pays the bank nothing: no upgrades" in t for t in texts), texts
    assert any("is broke: has no coins to pay seat 0 25 for the birthday" in t for t in texts)
    assert any("pays the bank no tax: 10% of 20 rounds to 0 (20 left)" in t for t in texts)
    game.level[0], game.owner[0] = 2, 0
    game._card_health_inspection(0)
    assert "pays the bank 50 for 2 upgrade levels" in game.events[-1].text


def test_card_amounts_are_fixed_when_drawn():  # R18
    game = Game(Rules(players=2), [NEVER, NEVER], chance=None)
    game.coins = [20, 0]
    game.owner[0] = game.owner[1] = 0  # burst pipe asks 40; selling a bar must not change that
    game._card_burst_pipe(0)
    assert game.coins[0] == 20 + 40 - 40 and game.owner[0] == -1 and game.owner[1] == 0


def test_upgrades_need_cash_and_stop_at_draught_tap():
    game = Game(Rules(players=2), [EAGER, NEVER], chance=None)
    game.owner[11] = 0
    game.coins[0] = 119
    assert game._upgradable(0) == []  # Golden Mile's level costs 120
    game.coins[0] = 120
    assert game._upgradable(0) == [11]
    game.level[11] = 2
    assert game._upgradable(0) == []


class Cheater(ScalarStrategy):
    def __init__(self, upgrade=None, answer=True):
        self.choice, self.answer = upgrade, answer

    def upgrade_one(self, view):
        return self.choice

    def buy_one(self, view, bar):
        return self.answer

    def takeover_one(self, view, bar):
        return self.answer


def test_an_illegal_upgrade_is_reported_as_a_bug_in_the_strategy():
    game = Game(Rules(players=2), [Cheater(upgrade=5), NEVER], chance=ScriptedChance([(1, 1)], []))
    game.owner[0] = 0
    with pytest.raises(
        IllegalDecision,
        match=r"Cheater:upgrade=5,answer=true in seat 0 chose to upgrade bar 5 in round 0; "
        r"allowed: -1 \(none\) or one of \[0\]$",
    ):
        game._turn(0)


def test_a_non_boolean_answer_is_reported():
    game = Game(
        Rules(players=2), [Cheater(answer="yes"), NEVER], chance=ScriptedChance([(1, 2)], [])
    )
    with pytest.raises(IllegalDecision, match="must answer True or False"):
        game._turn(0)


def test_strategies_are_not_asked_about_what_they_cannot_afford():
    game, outcome, _ = play(
        [(1, 2), (1, 1)], bots=(Cheater(answer="never asked"), NEVER), start_coins=95
    )
    assert outcome.owner[2] == -1  # The Mortarboard costs 100
    assert "pass" in kinds(game)


def test_shared_crown():
    game, outcome, _ = play([(2, 3), (2, 3)], bots=(NEVER, NEVER), seat_bonus=0)
    assert outcome.winners == (0, 1)


def test_the_fifteenth_card_comes_from_the_second_shuffle_on_both_engines(tmp_path):
    """R17: after 14 draws the deck is shuffled again; a scripted deck's second block of 14
    is that shuffle. The conformance files never draw past 14 (found by a rules audit)."""
    rng = np.random.default_rng(17)
    deck = [R.CARDS[c] for _ in range(4) for c in rng.permutation(R.N_CARDS)]
    dice = [tuple(int(d) for d in pair) for pair in rng.integers(1, 7, size=(200, 2))]
    path = tmp_path / "reshuffle.json"
    never = {"buy": None, "takeover": None, "upgrade": None}
    path.write_text(
        json.dumps({"rules": {"rounds": 40}, "policies": [never] * 4, "dice": dice, "deck": deck})
    )
    scenario = load_scenario(path)
    outcome, events = play_scenario(scenario)
    drawn = [e.text.split(": ", 1)[1] for e in events if e.kind == "card"]
    assert len(drawn) > R.N_CARDS, len(drawn)
    assert drawn == [R.CARD_TITLES[R.CARD_INDEX[c]] for c in deck[: len(drawn)]]
    assert play_scenarios_batch([scenario])[0] == outcome.to_dict()

"""The difficulty dial homie:skill=X: exactly Easy at 0 and exactly Hard at 1 (as registered,
defaults taken from the classes), a coin per game and decision of its own, one-line errors,
determinism, a rising strength, and its study on a tiny scale."""

import json
import subprocess
import sys

import numpy as np
import pytest
from barbaron.bots.easy import Easy
from barbaron.bots.hard import Hard
from barbaron.bots.homie import COIN_DRAW, Homie

from barbaron import api
from barbaron.batch import play_batch
from barbaron.errors import UsageError
from barbaron.registry import BotSpecError, make_bot
from barbaron.replay import replay_game
from barbaron.rules import Rules
from barbaron.strategy import BatchView, Decision
from experiments import homie_dial

FIELDS = ("coins", "position", "owner", "level", "skip")
# the usual money, and tight money (forced sales, broke seats, takeovers); 2 to 4 players
TABLES = [
    (Rules(), ("X", "normal", "greedy", "X")),
    (Rules(start_coins=200, seat_bonus=0), ("X", "X", "easy", "hard")),
    (Rules(players=2, rounds=15, start_coins=300), ("X", "normal")),
]


def play(rules, lineup, dial, seed=11, games=None):
    bots = [make_bot(dial if spec == "X" else spec) for spec in lineup]
    return play_batch(rules, bots, seed, np.arange(3000) if games is None else games)


def same_games(a, b) -> bool:
    return all(np.array_equal(getattr(a.state, f), getattr(b.state, f)) for f in FIELDS) and (
        np.array_equal(a.worth, b.worth)
    )


@pytest.mark.parametrize("rules, lineup", TABLES, ids=["4p", "4p-tight", "2p"])
@pytest.mark.parametrize("skill, twin", [(0, "easy"), (1, "hard")])
def test_the_ends_of_the_dial_play_exactly_easy_and_hard(rules, lineup, skill, twin):
    dial = play(rules, lineup, f"homie:skill={skill}")
    assert same_games(dial, play(rules, lineup, twin))
    # the test can fail: a dial a little off its end plays other games
    near = f"homie:skill={0.02 if skill == 0 else 0.98}"
    assert not same_games(play(rules, lineup, near), dial)


def test_the_ends_are_the_registered_bots_with_their_current_defaults(monkeypatch):
    dial = Homie(skill=0.3)
    assert type(dial.expert) is Hard and dial.expert.params == make_bot("hard").params
    assert type(dial.beginner) is Easy and dial.beginner.params == make_bot("easy").params
    # a later change of Hard's or Easy's defaults carries over to the dial
    with_default(monkeypatch, Hard, "margin", -42.0)
    with_default(monkeypatch, Easy, "buy", 0.9)
    again = Homie(skill=0.3)
    assert again.expert.params["margin"] == -42.0 and again.expert.margin == -42.0
    assert again.beginner.params["buy"] == 0.9 and again.beginner.p_buy == 0.9


def with_default(monkeypatch, cls: type, name: str, value: object) -> None:
    """Give ``cls``'s constructor another default for its parameter ``name`` (for one test)."""
    init = cls.__init__
    names = init.__code__.co_varnames[: init.__code__.co_argcount]
    defaults = list(init.__defaults__)
    defaults[names.index(name) - (len(names) - len(defaults))] = value
    monkeypatch.setattr(init, "__defaults__", tuple(defaults))


def test_repr_and_listing():
    assert repr(make_bot("homie")) == "homie:skill=0.5"
    assert repr(make_bot("homie:skill=0.25")) == "homie:skill=0.25"
    assert repr(make_bot(repr(make_bot("homie:skill=1")))) == "homie:skill=1"


@pytest.mark.parametrize("value", ["1.5", "-0.1", "nan", "inf", "abc", "none", "true"])
def test_a_skill_outside_0_to_1_is_a_one_line_error(value):
    with pytest.raises(BotSpecError) as error:
        make_bot(f"homie:skill={value}")
    text = str(error.value)
    assert "skill must be a probability from 0 to 1" in text and "\n" not in text
    with pytest.raises(BotSpecError, match="unknown parameter 'level' \\(valid: skill\\)"):
        make_bot("homie:level=3")


def test_the_command_line_refuses_a_bad_skill_with_exit_2(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "barbaron.cli", "play", "--bots", "homie:skill=2", "normal"]
        + ["--games", "4", "--quiet", "--out", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert run.returncode == 2
    assert run.stderr.strip() == (
        "error: bot 'homie:skill=2': skill must be a probability from 0 to 1, got 2"
    )
    assert list(tmp_path.iterdir()) == []  # nothing left behind


def view_at(decision: Decision, slot: int, n: int = 20000, seed: int = 3) -> BatchView:
    rules = Rules()
    z = np.zeros((n, rules.players), dtype=np.int8)
    return BatchView(
        rules=rules,
        seat=slot % rules.players,
        round=slot // rules.players + 1,
        slot=slot,
        decision=decision,
        seed=seed,
        game=np.arange(n, dtype=np.int64),
        coins=np.full((n, rules.players), 1000, dtype=np.int32),
        position=z,
        skip=z.astype(bool),
        owner=np.full((n, 12), -1, dtype=np.int8),
        level=np.zeros((n, 12), dtype=np.int8),
    )


def test_the_coin_is_per_game_and_decision_and_independent_of_easys_coins():
    dial, games = Homie(skill=0.3), np.arange(20000)
    view = view_at(Decision.BUY, slot=5)
    hard = dial.experts_turn(view, games)
    assert abs(hard.mean() - 0.3) < 0.015  # sd 0.0032
    assert np.array_equal(hard, view.uniform(games, COIN_DRAW) < 0.3)
    # Easy, where it answers, still buys with its own probability (0.6): the coins are apart
    easy_buys = Easy().buy(view, games, np.zeros(games.size, dtype=np.int8))
    assert abs(easy_buys[~hard].mean() - 0.6) < 0.02
    assert abs(easy_buys[hard].mean() - 0.6) < 0.02
    # another decision of the same games (another slot, another kind) tosses a new coin
    for other in (view_at(Decision.BUY, slot=9), view_at(Decision.TAKEOVER, slot=5)):
        again = dial.experts_turn(other, games)
        assert abs((again == hard).mean() - (0.3**2 + 0.7**2)) < 0.02  # independent coins
    # another seed, other coins; the same seed, the same coins
    assert not np.array_equal(dial.experts_turn(view_at(Decision.BUY, 5, seed=4), games), hard)
    assert np.array_equal(Homie(skill=0.3).experts_turn(view_at(Decision.BUY, 5), games), hard)


def test_it_is_deterministic_and_a_game_does_not_depend_on_its_batch():
    rules, lineup = TABLES[0]
    a = play(rules, lineup, "homie:skill=0.5")
    assert same_games(a, play(rules, lineup, "homie:skill=0.5"))
    assert not same_games(a, play(rules, lineup, "homie:skill=0.5", seed=12))
    part = play(rules, lineup, "homie:skill=0.5", games=np.arange(1500, 3000))
    assert np.array_equal(a.state.coins[1500:], part.state.coins)
    assert np.array_equal(a.worth[1500:], part.worth)


def test_the_reference_engine_plays_the_same_games():
    rules = Rules(start_coins=300)
    lineup = [make_bot(s) for s in ("homie:skill=0.5", "normal", "homie:skill=0.2", "greedy")]
    out = play_batch(rules, lineup, 5, np.arange(40))
    for g in range(40):
        ref, _ = replay_game(rules, lineup, 5, g)
        assert list(ref.coins) == out.state.coins[g].tolist(), f"game {g}"
        assert list(ref.owner) == out.state.owner[g].tolist(), f"game {g}"
        assert list(ref.worth) == out.worth[g].tolist(), f"game {g}"


def test_strength_rises_with_skill():
    # against three Normal: about 2%, 11%, 17%, 28% and 38% (steps of 6 points and more);
    # the same deals for every setting, so each paired step is measured to about 0.6 points
    result = api.sweep(
        "homie", "skill", [0, 0.25, 0.5, 0.75, 1], field="normal", games=8000, seed=21
    )
    shares = result.points["win_share"].to_numpy()
    assert np.all(np.diff(shares) > 0.03), shares


def test_the_study_writes_its_curve(tmp_path):
    out = tmp_path / "dial"
    assert homie_dial.main(["--games", "2000", "--workers", "1", "--out", str(out)]) == 0
    curve = (out / "curve.csv").read_text().splitlines()
    assert len(curve) == 12 and curve[0].startswith("skill,bot,games,win_share,")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["command"] == (
        f"python -m experiments.homie_dial --games 2000 --seed 1313 --workers 1 --out {out}"
    )
    points = summary["points"]
    assert [p["skill"] for p in points] == [round(0.1 * i, 1) for i in range(11)]
    assert points[0]["bot"] == "homie:skill=0" and points[-1]["bot"] == "homie:skill=1"
    # the rating is the Luce model's against three of the field: 400 log10(3 w / (1 - w))
    for p in points:
        w = p["win_share"]
        assert p["rating"] == pytest.approx(400 * np.log10(3 * w / (1 - w)), abs=1e-3)
        assert p["rating_ci_low"] < p["rating"] < p["rating_ci_high"]
    assert summary["steps_up"] + len(summary["steps_flat"]) + len(summary["steps_down"]) == 10
    assert (out / "curve.png").stat().st_size > 0


def test_the_dial_study_takes_the_long_night(tmp_path):
    """--rounds plays the sweep under that many rounds and says so in its command and summary
    (the dial could only be measured at 10 rounds, QA)."""
    out = tmp_path / "dial"
    assert homie_dial.main(["--games", "400", "--rounds", "3", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["rounds"] == 3 and " --rounds 3 --out " in summary["command"]
    sweep = json.loads((out / "runs" / "sweep" / "summary.json").read_text())
    assert {p["arm"]["rules"]["rounds"] for p in sweep["points"]} == {3}


def test_the_dial_refuses_a_game_count_its_rotations_cannot_split(tmp_path):
    """--games 3 was rounded down to 0 and refused as "got 0" (QA): it names what was given."""
    with pytest.raises(UsageError, match=r"--games 3 is not a multiple of the sweep's 4 rot"):
        homie_dial.main(["--games", "3", "--out", str(tmp_path / "dial")])
    assert not (tmp_path / "dial").exists()

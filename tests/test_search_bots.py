"""The search and learning bots: mc and value keep the strategy contract, refuse bad input in
one line, and value's training is reproducible."""

import json
import subprocess
import sys

import numpy as np
import pytest
from barbaron.bots import sage, value
from barbaron.bots.hard import Hard
from barbaron.bots.mc import MC
from barbaron.bots.value import Value

from barbaron.batch import play_batch
from barbaron.registry import BotSpecError, bot_entries, make_bot
from barbaron.rules import Rules
from barbaron.strategy import IllegalDecision, Strategy
from barbaron.testing import TABLES, check_strategy


def test_both_bots_are_registered():
    entries = bot_entries()
    assert entries["mc"].cls is MC and entries["value"].cls is Value
    assert repr(make_bot("mc:rollouts=8,own=hard:margin=-100;risk=0")).startswith(
        "mc:rollouts=8,playout=greedy,own=hard:margin=-100;risk=0,"
    )


@pytest.mark.parametrize(
    "spec, message",
    [
        ("mc:rollouts=0", "rollouts must be a whole number from 1 to 4,096, got 0"),
        ("mc:rollouts=2.5", "rollouts must be a whole number"),
        ("mc:playout=nobody", "playout 'nobody': unknown bot 'nobody'"),
        ("mc:own=hard:risk=-1", "risk must be a finite number >= 0"),
        ("mc:worth=1e308", "worth must be a finite number from 0 to 1e+06, got 1e+308"),
        ("mc:playout=mc", "playout 'mc' is recursive"),
        ("mc:own=mc:rollouts=2", "own 'mc:rollouts=2' is recursive"),
        ("value:weights=/nonexistent/w.json", "weights file /nonexistent/w.json not found"),
        ("sage:weights=/nonexistent/w.json", "weights file /nonexistent/w.json not found"),
        ("sage:weights=3", "weights must be the path of a weights file, got 3"),
    ],
)
def test_bad_specs_are_one_line_errors(spec, message):
    with pytest.raises(BotSpecError) as error:
        make_bot(spec)
    assert message in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize(
    "bot, names", [("value", list(value.FEATURES)), ("sage", sage.weight_names())]
)
def test_a_corrupt_weights_file_is_one_line(bot, names, tmp_path):
    for text, message in [
        ("{not json", "is not readable JSON"),
        (json.dumps({"features": ["x"], "weights": [1.0]}), f"does not hold the {len(names)} "),
        (
            json.dumps({"features": names, "weights": [1.0, "x"]}),
            f"must be {len(names)} finite numbers",
        ),
        (  # (QA: every score overflowed to nan, read as "no")
            json.dumps({"features": names, "weights": [1e308] * len(names)}),
            "finite numbers of at most 1e\\+12 in size",
        ),
    ]:
        path = tmp_path / "w.json"
        path.write_text(text)
        with pytest.raises(BotSpecError, match=message) as error:
            make_bot(f"{bot}:weights={path}")
        assert "\n" not in str(error.value) and len(str(error.value)) < 600  # (QA: 5,000)


def test_the_command_line_refuses_bad_search_specs_with_exit_2(tmp_path):
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "barbaron.cli",
            "play",
            "--bots",
            "mc:rollouts=0",
            "greedy",
            "--games",
            "2",
            "--quiet",
            "--out",
            str(tmp_path / "run"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert run.returncode == 2
    assert "rollouts must be a whole number" in run.stderr and len(run.stderr.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []  # nothing left behind


@pytest.mark.parametrize("spec", ["mc:rollouts=2,upgrades=2", "mc:rollouts=2,extra=1", "value"])
def test_the_bots_pass_the_contract_check(spec):
    report = check_strategy(spec, games=TABLES * 3, fresh_process=False)
    assert report.passed, str(report)


def test_value_plays_the_same_games_in_any_batch():
    rules = Rules(start_coins=300)
    lineup = [make_bot(s) for s in ("value", "greedy", "hard", "value")]
    a = play_batch(rules, lineup, 4, np.arange(300))
    b = play_batch(rules, lineup, 4, np.arange(150, 300))
    assert np.array_equal(a.worth[150:], b.worth)


def test_training_is_reproducible(tmp_path, monkeypatch):
    from experiments import train_value

    monkeypatch.setattr(train_value, "BATCH", 40)
    one = train_value.train(200, seed=3)
    two = train_value.train(200, seed=3)
    assert one == two and len(one["weights"]) == len(value.FEATURES)
    path = tmp_path / "w.json"
    path.write_text(json.dumps(one))
    assert np.array_equal(value.load_weights(path), one["weights"])
    shipped = json.loads(value.WEIGHTS.read_text())
    assert shipped["features"] == list(value.FEATURES)
    assert shipped["trained"]["log_loss_held_out"] < shipped["trained"]["log_loss_fair_share"]


def test_mc_measures_closeness_between_its_best_two_options():
    """extra rollouts go where the best two options by score are within ``close`` in win share,
    wherever the own playout's answer (option 0) ranks; an option not allowed never counts."""
    nan = np.nan
    score = np.array(
        [
            [[0.9, 0.7], [0.1, 0.3], [0.5, nan]],  # option 0 best, far ahead: a gap of 0.6
            [[0.2, 0.2], [0.5, 0.4], [0.4, 0.5]],  # options 1 and 2 tie for the best: 0
            [[0.6, 0.6], [0.1, 0.1], [0.9, 0.9]],  # option 2 scores best but is not allowed
        ]
    )
    ok = np.array([[True, True, False], [True, True, True], [True, True, False]])
    gap = MC._gap(score, score, ok)
    assert gap.tolist() == pytest.approx([0.6, 0.0, 0.5])


class UpgradesInGames(Strategy):
    """Buys every bar; upgrades bar 0 in the given games (stream indices) only, where it is
    asked (once it owns a bar): illegal unless bar 0 is its own."""

    def __init__(self, games: tuple = ()) -> None:
        self.games = np.array(games, dtype=np.int64)

    def buy(self, view, games, bars):
        return np.ones(games.size, dtype=bool)

    def upgrade(self, view, games):
        return np.where(np.isin(view.game[games], self.games), 0, -1).astype(np.int8)


def test_mc_with_one_rollout_keeps_its_playouts_answer_unless_z_is_zero():
    """One rollout has no spread: its variance read as 0, so one future overruled the playout
    whatever z (QA: z=1e300 played as z=0). Now only z=0 departs on one future."""
    rules, games = Rules(players=4), np.arange(40)

    def worth(spec: str) -> np.ndarray:
        bots = [make_bot(spec)] + [make_bot("greedy")] * 3
        return play_batch(rules, bots, seed=4, games=games).worth

    cautious = worth("mc:rollouts=1,z=1")
    assert np.array_equal(cautious, worth("hard"))  # (its own playout, Hard by default)
    assert not np.array_equal(worth("mc:rollouts=1,z=0"), cautious)


def test_an_illegal_answer_in_a_rollout_names_the_real_game():
    """The engine knows a rollout's copy by its stream key: the error says it was in a
    rollout, and of which real game (game 5 of 0..7, not the first of the batch)."""
    from barbaron import rollouts as ro
    from barbaron import streams
    from barbaron.batch import BatchState
    from barbaron.strategy import Decision

    rules, seed = Rules(players=2), 3
    state = BatchState.start(rules, np.arange(8))
    point = ro.DecisionPoint(slot=0, seat=0, decision=Decision.UPGRADE)
    copies_of_five = streams.rollout_keys(seed, np.array([5, 5]), 0, 0, np.arange(2))
    bot = UpgradesInGames(tuple(copies_of_five))
    options, valid = np.full((8, 1), -1), np.ones((8, 1), dtype=bool)
    with pytest.raises(IllegalDecision, match=r"^in a rollout from seat 0's .*\(game 5\)$"):
        ro.evaluate(rules, [bot, bot], seed, state, point, options, valid, 2)


# --- sage: Hard with a learned takeover rule -------------------------------------------------
class FeatureRecorder(Hard):
    """Hard that keeps what sage's rule would see at each takeover it is offered."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple] = []

    def takeover(self, view, games, bars):
        features = sage.features(view, games, bars)
        for i, (g, b) in enumerate(zip(games, bars, strict=True)):
            position = (view.coins[g].copy(), view.owner[g].copy(), view.level[g].copy())
            self.seen.append((view.seat, *position, int(b), features[i]))
        return super().takeover(view, games, bars)


def test_the_takeover_features_are_what_they_say():
    """Checked game by game against their definitions, in plain Python."""
    from barbaron import rules as R

    names = list(sage.FEATURES)
    for players in (2, 4):
        recorder = FeatureRecorder()
        lineup = [recorder] + [make_bot("greedy")] * (players - 1)
        play_batch(Rules(players=players), lineup, 7, np.arange(60))
        assert len(recorder.seen) > 20
        for seat, coins, owner, level, bar, f in recorder.seen:
            x = dict(zip(names, f, strict=True))
            worth = [
                coins[s] + sum(R.VALUE_TABLE[b, level[b]] for b in range(12) if owner[b] == s)
                for s in range(players)
            ]
            victim = owner[bar]
            cost = R.TAKEOVER_TABLE[bar, level[bar]]
            first = bar // 3 * 3
            mine = sum(owner[first + j] == seat for j in range(3))
            theirs = sum(owner[first + j] == victim for j in range(3))
            best_rival = max(w for s, w in enumerate(worth) if s != seat)
            assert x["bias"] == 1 and x["two_players"] == (players == 2)
            assert x["coins_left"] == pytest.approx((coins[seat] - cost) / 1000)
            assert x["lead"] == pytest.approx((worth[seat] - best_rival) / 1000)
            assert x["worth_share"] == pytest.approx(worth[seat] / sum(worth))
            assert x["victim_leads"] == (worth[victim] == best_rival)
            assert (x["own_in_district"], x["victim_in_district"]) == (mine, theirs)
            assert x["completes"] == (mine == 2) and x["breaks"] == (theirs == 3)
            assert x["rank"] == sum(w > worth[seat] for w in worth)
            assert x["own_bars"] == sum(owner == seat)
            assert x["victim_coins"] == pytest.approx((coins[victim] + cost) / 1000)
            district = [x["campus"], x["old_town"], x["harbour"]]
            assert district == [bar // 3 == d for d in range(3)]


def test_sage_passes_the_contract_check_and_differs_from_hard_in_takeovers_only(tmp_path):
    report = check_strategy("sage", games=TABLES * 3, fresh_process=False)
    assert report.passed, str(report)
    rules = Rules()
    field = [make_bot("greedy")] * 3
    learned = play_batch(rules, [make_bot("sage"), *field], 3, np.arange(400))
    formula = play_batch(rules, [make_bot("hard"), *field], 3, np.arange(400))
    assert not np.array_equal(learned.worth, formula.worth)  # the rule decides some takeovers
    zero = tmp_path / "zero.json"
    names = sage.weight_names()
    zero.write_text(json.dumps({"features": names, "weights": [0.0] * len(names)}))
    never = make_bot(f"sage:weights={zero}")  # an advantage of 0 everywhere: never
    no_takeovers = play_batch(rules, [never, *field], 3, np.arange(400))
    hard_never = play_batch(rules, [make_bot("hard:margin=1e9"), *field], 3, np.arange(400))
    assert np.array_equal(no_takeovers.worth, hard_never.worth)  # buys and upgrades: Hard's


def test_sage_training_is_reproducible(tmp_path):
    from experiments import train_sage

    one = train_sage.train(120, rollouts_k=2, seed=3)
    two = train_sage.train(120, rollouts_k=2, seed=3)
    assert one == two and len(one["weights"]) == len(sage.weight_names())
    path = tmp_path / "w.json"
    path.write_text(json.dumps(one))
    assert np.array_equal(sage.load_weights(path).ravel(), one["weights"])
    shipped = json.loads(sage.WEIGHTS.read_text())
    assert shipped["features"] == sage.weight_names()
    gains = [t["win_share_gain_held_out"] for t in shipped["trained"]["tables"]]
    assert all(g > 0 for g in gains)  # the shipped rule improves on the formula at every table

"""`barbaron replay`: outputs, --check, --log, and one-line errors for bad input."""

import json
import subprocess
import sys

import pytest
from conftest import CONFORMANCE_FILES

from barbaron import rules as R
from barbaron.cli import main

CASE = CONFORMANCE_FILES[0]


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def scenario(**changes):
    data = json.loads(CASE.read_text())
    data.update(changes)
    return data


def write(tmp_path, data, name="bad.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_replay_prints_one_outcome_per_file_in_order(capsys):
    status, out, _ = run(capsys, "replay", *map(str, CONFORMANCE_FILES[:3]))
    lines = out.splitlines()
    assert status == 0 and len(lines) == 3
    for line, path in zip(lines, CONFORMANCE_FILES[:3], strict=True):
        expect = json.loads(path.read_text())["expect"]
        assert json.loads(line) == expect


def test_replay_without_expect_prints_every_key(capsys, tmp_path):
    data = scenario()
    del data["expect"]
    status, out, _ = run(capsys, "replay", write(tmp_path, data))
    assert status == 0 and list(json.loads(out)) == list(json.loads(CASE.read_text())["expect"])


def test_check_passes_the_whole_suite(capsys):
    status, out, _ = run(capsys, "replay", "--check", *map(str, CONFORMANCE_FILES))
    n = len(CONFORMANCE_FILES)
    assert status == 0 and out.strip() == f"{n} cases checked: {n} equal, 0 differ"


def test_check_reports_the_first_diverging_slot(capsys, tmp_path):
    data = scenario()
    data["expect"]["trace"][5][1] += 5
    data["expect"]["coins"][0] += 5
    status, out, _ = run(capsys, "replay", "--check", str(CASE), write(tmp_path, data))
    assert status == 1
    assert (
        "DIFFERS: keys coins, trace; coins first diverge after turn slot 5 (round 3, seat 1)" in out
    )
    assert out.splitlines()[-1] == "2 cases checked: 1 equal, 1 differ"


def test_log_tells_the_story(capsys):
    status, out, _ = run(capsys, "replay", "--log", str(CASE))
    assert status == 0
    assert "Round 1" in out and "rolls" in out and "Closing time" in out and "Bar Baron" in out


def first_card_block_with(card):
    block = list(R.CARDS)
    block[block.index("taxi")] = card
    return block


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must hold one JSON object"),
        (
            scenario(deck=first_card_block_with("taxii") + list(R.CARDS)),
            "deck[10] = 'taxii' is not a card id",
        ),
        (scenario(dice=[[3, 7]] * 60), "dice[0] = [3, 7]: a die shows 1 to 6, not 7"),
        (scenario(dice=[[0, 1]] * 60), "a die shows 1 to 6, not 0"),
        (scenario(dice=[[3]] * 60), "each roll is a pair of two dice"),
        (
            scenario(deck=first_card_block_with("regulars")),
            "deck entries 1..14 are not a permutation of "
            "the 14 cards (repeats regulars; lacks taxi)",
        ),
        (scenario(deck=list(R.CARDS) + list(R.CARDS)[:5]), "entries 15..19 are not a permutation"),
        (scenario(dice=[[1, 2]] * 3), "too few dice: the game needs more than the 3 rolls given"),
        (scenario(deck=[]), "too few cards: the game draws more than the 0 cards given"),
        (scenario(rules={"players": 5}), "rules: players must be 2, 3 or 4, got 5"),
        (scenario(rules={"start_coins": 1003}), "start_coins must be a non-negative multiple of 5"),
        (scenario(rules={"seats": 2}), "rules: unknown key 'seats'"),
        (
            scenario(policies=[{"buy": 0, "takeover": None, "upgrade": -1}] * 2),
            "policies[0].upgrade = -1: a cushion is a whole number >= 0",
        ),
        (
            scenario(policies=[{"buy": 0, "takeover": None, "upgrade": 0}]),
            "policies must be a list of 2 objects",
        ),
    ],
)
def test_bad_input_gets_one_line_naming_the_file_and_exit_2(capsys, tmp_path, content, message):
    path = write(tmp_path, content)
    status, out, err = run(capsys, "replay", str(CASE), path)
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1, err
    assert path in err and message in err


def test_check_needs_an_expect_object(capsys, tmp_path):
    data = scenario()
    del data["expect"]
    status, _, err = run(capsys, "replay", "--check", write(tmp_path, data))
    assert status == 2 and "has no 'expect' object" in err


def test_missing_file_and_usage_errors(capsys, tmp_path):
    status, _, err = run(capsys, "replay", str(tmp_path / "nope.json"))
    assert status == 2 and "nope.json: cannot read it: No such file or directory" in err
    status, _, err = run(capsys, "replay")
    assert status == 2 and len(err.splitlines()) == 1 and "give scenario FILEs" in err
    status, _, err = run(capsys, "replay", "--log", "--check", str(CASE))
    assert status == 2 and "not allowed with argument" in err
    for extra, message in (
        (["--check", "--rollouts", "-7"], "--rollouts goes with --html"),  # it was ignored
        (["--arm", "new"], "--arm goes with --run"),
        (["--force"], "--force goes with --html"),
    ):
        status, _, err = run(capsys, "replay", str(CASE), *extra)
        assert status == 2 and message in err and len(err.splitlines()) == 1, err


def test_console_script_help_and_errors_without_traceback(tmp_path):
    exe = [sys.executable, "-m", "barbaron.cli"]
    for argv in (["--help"], ["replay", "--help"]):
        done = subprocess.run(exe + argv, capture_output=True, text=True)
        assert done.returncode == 0 and "usage:" in done.stdout
    done = subprocess.run(
        exe + ["replay", str(tmp_path / "x.json")], capture_output=True, text=True
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    "extra",
    [
        ["--seat-coins", "1000,1100"],
        ["--start-coins", "500"],
        ["--rounds", "12"],
        ["--rounds", "10"],  # the default, given: it was ignored silently (QA)
    ],
)
def test_rules_options_are_refused_where_the_rules_come_from_elsewhere(extra, capsys, tmp_path):
    status, _, err = run(capsys, "replay", str(CASE), *extra)
    assert status == 2 and "scenario files carry their own rules" in err
    status, _, err = run(capsys, "replay", "--run", str(tmp_path), "--game", "0", *extra)
    assert status == 2 and "the run's own rules" in err


def test_replay_run_refuses_games_the_run_did_not_keep(capsys, tmp_path):
    """An SPRT that stopped after its first look kept one unit: game 100,000 was never played,
    yet it was replayed (found by QA); a tuning keeps no games at all."""
    stopped, tuned = str(tmp_path / "c"), str(tmp_path / "t")
    compare = ["compare", "hard", "easy", "--elo0", "0", "--elo1", "20", "--max-games", "200000"]
    assert run(capsys, *compare, "--out", stopped, "--quiet")[0] == 0
    assert run(capsys, "replay", "--run", stopped, "--arm", "new", "--game", "100")[0] == 0
    status, _, err = run(capsys, "replay", "--run", stopped, "--game", "100")  # no --arm
    assert status == 2 and "this run has 2 lineups: give --arm, one of new, base" in err, err
    status, _, err = run(capsys, "replay", "--run", stopped, "--arm", "new", "--game", "100000")
    assert status == 2 and "did not keep that game: it is in unit 24" in err, err
    tune = ["tune", "--bot", "easy", "--param", "buy=0:1", "--trials", "1"]
    assert run(capsys, *tune, "--games-per-trial", "40", "--out", tuned, "--quiet")[0] == 0
    status, _, err = run(capsys, "replay", "--run", tuned, "--game", "1")
    assert status == 2 and "keeps no games" in err, err


def test_a_recorded_decision_the_game_does_not_allow_names_its_file(capsys, tmp_path, monkeypatch):
    """replay --check of a saved game edited to upgrade a bar its seat does not own said
    'illegal decision: recorded(seat 0) ...' and not which file (QA): now bad input, exit 2."""
    import io

    saved = tmp_path / "duel.json"
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    argv = ["duel", "--homies", "easy", "--seed", "3", "--seat", "0", "--save", str(saved)]
    assert run(capsys, *argv)[0] == 0
    data = json.loads(saved.read_text())
    first = next(i for i, (_, kind, _) in enumerate(data["decisions"]) if kind == "upgrade")
    data["decisions"][first][2] = 11  # Golden Mile, owned by nobody at the first question
    saved.write_text(json.dumps(data))
    for mode in (["--check"], ["--log"], ["--html", str(tmp_path / "g.html")]):
        status, _, err = run(capsys, "replay", *mode, str(saved))
        assert status == 2 and str(saved) in err and "bar 11" in err, err
        assert len(err.strip().splitlines()) == 1
        # which entry, in the file's words (it named the class RecordedDecisions, QA)
        assert f"decisions[{first}]: seat 0 upgrades bar 11 in turn slot" in err, err
        assert "Recorded" not in err and "it is free" in err
    assert not (tmp_path / "g.html").exists()


def test_a_runs_game_told_as_a_story_is_headed_by_its_own_number(capsys, tmp_path):
    """--log of ``--run R --game 7`` was headed 'game 3 of seed 0', the deal (QA)."""
    out = tmp_path / "r"
    argv = ["play", "--bots", "easy", "greedy", "--games", "20", "--seed", "4", "--quiet"]
    assert run(capsys, *argv, "--workers", "1", "--out", str(out))[0] == 0
    status, story, _ = run(capsys, "replay", "--run", str(out), "--game", "7", "--log")
    assert status == 0, story
    assert story.startswith(f"== game 7 of {out} (deal 3, seed 4): seat 0 greedy, seat 1 easy")

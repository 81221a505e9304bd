"""`barbaron duel`: a scripted game to the end whose saved file replays equal; the timer's
autopilot; recorded decisions in scenario files; one-line errors for bad input."""

import io
import json
import os

import pytest

from barbaron.cli import main
from barbaron.duel import play_duel
from barbaron.rules import Rules
from barbaron.scenario import ScenarioError, load_scenario, play_scenario, play_scenarios_batch

# a refusal, an Enter, an answer that is not a choice (asked again), help, then the defaults
ANSWERS = "n\n\nmaybe\n?\ny\n7\n1\nfoo\n0\ny\n"


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_a_scripted_duel_plays_to_the_end_and_its_file_replays_equal(tmp_path, capsys, monkeypatch):
    saved = tmp_path / "duel.json"
    monkeypatch.setattr("sys.stdin", io.StringIO(ANSWERS))
    status, out, err = run(
        capsys, "duel", "--homies", "normal", "hard", "--seed", "5", "--seat", "1",
        "--save", str(saved),
    )  # fmt: skip
    assert status == 0, err
    assert "please answer again (? for help)" in out  # a bad answer is asked again, not a crash
    assert "answer with a choice the question shows" in out  # '?' (QA: "'?' is not y or n")
    assert "=== Round 10/10" in out and "Payday" in out and "worth" in out
    assert "(end of input: the default)" in out
    assert any(f"{verb} with a worth of" in out for verb in ("you win", "wins", "share the win"))
    data = json.loads(saved.read_text())
    assert data["bots"] == ["normal", "human", "hard"]
    assert {kind for _, kind, _ in data["decisions"]} <= {"upgrade", "buy", "takeover"}
    final = data["expect"]["worth"]
    for s, w in enumerate(final):  # the final table shows the engine's worths
        assert f"S{s}" in out and str(w) in out
    # replay --check confirms it, --log retells it, and both engines agree with it
    status, checked, _ = run(capsys, "replay", "--check", str(saved))
    assert status == 0 and "1 cases checked: 1 equal, 0 differ" in checked
    status, log, _ = run(capsys, "replay", "--log", str(saved))
    assert status == 0 and "the Bar Baron with" in log
    scenario = load_scenario(saved)
    outcome, _ = play_scenario(scenario)
    assert outcome.to_dict() == data["expect"]
    assert play_scenarios_batch([scenario])[0] == data["expect"]


def test_the_same_answers_give_the_same_game(tmp_path):
    games = []
    for _ in range(2):
        out = io.StringIO()
        result = play_duel(["easy", "normal", "hard"], seat=None, seed=11, stdin=io.StringIO(
            ANSWERS), stdout=out)  # fmt: skip
        games.append(result.scenario())
    assert games[0] == games[1]
    assert 0 <= play_duel(["easy"], seat=None, seed=11, stdin=io.StringIO(""),
                          stdout=io.StringIO()).human < 2  # fmt: skip


def test_the_timer_lets_the_autopilot_play(tmp_path):
    read, write = os.pipe()  # input that never comes (and never ends)
    try:
        with os.fdopen(read, "r", closefd=False) as stdin:
            out = io.StringIO()
            result = play_duel(
                ["normal"], seat=0, seed=2, timer=0.05, stdin=stdin, stdout=out,
                rules=Rules(players=2, rounds=3),
            )  # fmt: skip
    finally:
        os.close(read)
        os.close(write)
    text = out.getvalue()
    assert "time is up (0.05 s): the autopilot plays this decision" in text
    assert len(result.outcome.trace) == 6
    assert "0.05 seconds per decision" in text
    out = io.StringIO()  # (QA: "1 seconds per decision")
    play_duel(["normal"], seat=0, seed=2, timer=1, stdin=io.StringIO(""), stdout=out,
              rules=Rules(players=2, rounds=1))  # fmt: skip
    assert "1 second per decision;" in out.getvalue()


def test_recorded_decisions_must_match_the_game(tmp_path):
    out = io.StringIO()
    result = play_duel(["hard"], seat=0, seed=4, stdin=io.StringIO(""), stdout=out)
    data = result.scenario()
    assert data["decisions"], "a game without decisions tests nothing"
    path = tmp_path / "cut.json"
    path.write_text(json.dumps({**data, "decisions": data["decisions"][:-1]}))
    with pytest.raises(ScenarioError, match="holds no answer"):
        play_scenario(load_scenario(path))
    path.write_text(json.dumps({**data, "decisions": [[0, "sell", True]]}))
    with pytest.raises(ScenarioError, match="kind 'sell'"):
        load_scenario(path)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--homies", "nosuchbot"], "nosuchbot"),
        (["--homies", "hard", "hard", "hard", "hard"], "1 to 3"),
        (["--seat", "4"], "--seat must be 0..3"),
        (["--homies", "easy", "--seat", "-1"], "--seat must be 0..1"),
        (["--timer", "0"], "--timer must be a positive"),
        (["--timer", "-5"], "--timer must be a positive"),
        (["--timer", "inf"], "at most 3,600"),  # it failed at the first question
        (["--save", "/nonexistent-folder/x.json"], "does not exist"),
        (["--save", "/"], "is a folder"),
        (["--save", ""], "--save needs a file name"),
        (["--save", __file__], "exists; add --force to replace it"),
        (["--force"], "give it with --save"),
        (["--seed", "-1"], "--seed"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, monkeypatch, argv, message):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    status, out, err = run(capsys, "duel", *argv)
    assert status == 2
    assert message in err and len(err.strip().splitlines()) == 1
    assert "Round" not in out


def test_the_final_table_gives_equal_worths_equal_places_and_speaks_to_the_human():
    from types import SimpleNamespace

    from barbaron.duel import DuelResult, final_table

    outcome = SimpleNamespace(coins=[500, 600, 700], worth=[2000, 2125, 2125], winners=[1, 2])
    result = DuelResult(
        Rules(players=3), ["normal", "human", "hard"], 1, 0, outcome, [], [], [], []
    )
    lines = final_table(result).splitlines()
    assert [line.split()[:3] for line in lines[1:4]] == [
        ["1", "S1", "you"],
        ["1", "S2", "hard"],
        ["3", "S0", "normal"],
    ]
    assert lines[-1] == "you and seat 2 (hard) share the win with a worth of 2125"
    alone = DuelResult(
        Rules(players=3), ["normal", "human", "hard"], 1, 0,
        SimpleNamespace(coins=[0, 0, 0], worth=[1, 3, 2], winners=[1]), [], [], [], [],
    )  # fmt: skip
    assert final_table(alone).splitlines()[-1] == "you win with a worth of 3"
    long = "threshold:buy=100,takeover=none,upgrade=300"  # longer than the column was (QA)
    wide = DuelResult(
        Rules(players=2), [long, "human"], 1, 0,
        SimpleNamespace(coins=[5, 1430], worth=[725, 1430], winners=[1]), [], [], [], [],
    )  # fmt: skip
    header, *rows = final_table(wide).splitlines()[:3]
    ends = {line.rindex(str(w)) + len(str(w)) for line, w in zip(rows, (1430, 725), strict=True)}
    assert ends == {len(header)} and f"{long} " in rows[1]  # the worths line up under "worth"


def test_tables_keep_millions_of_coins_apart(capsys, monkeypatch):
    """The rules allow a million coins a seat; 999620 and 1000000 ran into one number (QA)."""
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    argv = ["duel", "--homies", "value", "policy", "--seed", "2", "--rounds", "2"]
    status, out, err = run(capsys, *argv, "--seat-coins", "0,5,1000000")
    assert status == 0, err
    numbers = [w for line in out.splitlines() if "policy" in line for w in line.split()]
    assert "1000000" in numbers and "999620" in numbers  # each a word of its own
    assert max(len(w) for w in numbers if w.isdigit()) == 7


def test_a_closed_standard_input_plays_the_defaults(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", None)  # as `barbaron duel <&-` starts
    status, out, err = run(capsys, "duel", "--homies", "easy", "--rounds", "2", "--seed", "2")
    assert status == 0 and "(end of input: the default)" in out, err


class _ClosingPipe(io.StringIO):
    """Standard output piped into ``head``: it breaks after ``lines`` writes."""

    def __init__(self, lines: int) -> None:
        super().__init__()
        self.left = lines

    def write(self, text: str) -> int:
        self.left -= 1
        if self.left < 0:
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)


def test_a_closed_output_ends_the_duel_as_a_broken_pipe_not_a_failed_seat():
    from barbaron.duel import play_duel

    for lines in (5, 40, 120):  # during a bot's turn or the player's question
        with pytest.raises(BrokenPipeError):
            play_duel(["easy"], seat=0, seed=2, stdin=io.StringIO(""), stdout=_ClosingPipe(lines))


def test_an_illegal_recorded_decision_names_the_file(tmp_path, capsys):
    result = play_duel(["easy"], seat=0, seed=3, stdin=io.StringIO(""), stdout=io.StringIO())
    scenario = result.scenario()
    upgrade = next(d for d in scenario["decisions"] if d[1] == "upgrade")
    upgrade[2] = 11  # a bar the seat does not own
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(scenario))
    for extra in ([], ["--check"]):
        status, _, err = run(capsys, "replay", str(path), *extra)
        assert status == 2 and err.startswith(f"error: {path}: ") and "bar 11" in err, err


def test_a_file_that_cannot_be_written_is_named(tmp_path, monkeypatch):
    """On a full disk duel --save and replay --html said only "No space left on device" (QA)."""
    import errno

    from barbaron import duel

    def full(path, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(duel, "open", full, raising=False)
    target = tmp_path / "game.json"
    with pytest.raises(OSError) as error:
        duel.write_text(str(target), "{}")
    assert error.value.filename == str(target) and not list(tmp_path.iterdir())


def test_piped_answers_that_are_never_choices_end_the_duel_in_one_line(capsys, monkeypatch):
    """`yes | barbaron duel` asked again forever, at millions of lines a second (QA): piped
    input that gives no choice five times in a row ends the duel as a usage error."""
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n" * 1000))
    status, out, err = run(capsys, "duel", "--homies", "easy", "--seed", "3", "--seat", "0")
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert "5 piped answers in a row are not choices here" in err
    assert out.count("please answer again") == 4
    monkeypatch.setattr("sys.stdin", io.StringIO("?\n" * 1000))  # (it looped for ever: review)
    status, out, err = run(capsys, "duel", "--homies", "easy", "--seed", "3", "--seat", "0")
    assert status == 2 and "(the last: '?' asks for help)" in err, err


def test_a_file_that_appears_during_the_game_is_kept_without_force(tmp_path, capsys, monkeypatch):
    """--save checked its file at the start only, and wrote over one made while the game was
    played (a designer saving two duels under one name, QA). It is kept, and the game saved
    beside it; with --force it is replaced, as asked."""
    import barbaron.duel

    saved = tmp_path / "duel.json"
    real = barbaron.duel.play_duel

    def someone_saves_meanwhile(*args, **kwargs):
        saved.write_text('{"mine": 1}')
        return real(*args, **kwargs)

    monkeypatch.setattr(barbaron.duel, "play_duel", someone_saves_meanwhile)
    argv = ["duel", "--homies", "easy", "--seed", "3", "--save", str(saved)]
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    status, out, err = run(capsys, *argv)
    assert status == 0, err
    other = tmp_path / "duel-2.json"
    assert json.loads(saved.read_text()) == {"mine": 1}
    assert f"saved to {other}" in out and "appeared during the game and is kept" in out
    assert "easy" in json.loads(other.read_text())["bots"]
    saved.unlink()
    status, out, err = run(capsys, *argv, "--force")
    assert status == 0 and "mine" not in saved.read_text() and f"saved to {saved}" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["duel-2.json", "duel.json"]


def test_a_game_is_saved_where_the_file_system_has_no_hard_links(tmp_path, capsys, monkeypatch):
    """Saving without replacing linked the finished file into place; on FAT or many network
    mounts that fails with EPERM, and the only copy of the game was deleted (review)."""
    import errno

    def no_links(src, dst, *args, **kwargs):
        raise PermissionError(errno.EPERM, "Operation not permitted", dst)

    monkeypatch.setattr(os, "link", no_links)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    saved = tmp_path / "duel.json"
    argv = ["duel", "--homies", "easy", "--seed", "3", "--save", str(saved)]
    status, out, err = run(capsys, *argv)
    assert status == 0 and f"saved to {saved}" in out, err
    assert "easy" in json.loads(saved.read_text())["bots"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["duel.json"]  # no temporary left


def test_the_printed_replay_command_pastes_with_a_space_in_the_path(tmp_path, capsys, monkeypatch):
    """It was printed unquoted: pasted, 'dir ü/g.json' was two arguments (QA)."""
    import shlex

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    saved = tmp_path / "dir ü" / "g.json"
    saved.parent.mkdir()
    argv = ["duel", "--homies", "easy", "--seed", "3", "--rounds", "1", "--save", str(saved)]
    status, out, err = run(capsys, *argv)
    assert status == 0, err
    command = shlex.split(out.rsplit("retell it with: ", 1)[1].splitlines()[0])
    assert command[:3] == ["barbaron", "replay", "--log"]
    status, log, err = run(capsys, *command[1:])
    assert status == 0 and "the Bar Baron with" in log, err


ILLEGAL = """
import numpy as np
from barbaron.strategy import Strategy

class UpgradesBarZero(Strategy):
    def upgrade(self, view, games):
        return np.zeros(len(games), dtype=np.int64)

    def buy(self, view, games, bars):
        return np.ones(len(games), dtype=bool)

    def takeover(self, view, games, bars):
        return np.zeros(len(games), dtype=bool)
"""


def test_an_illegal_homie_is_named_by_its_spec(tmp_path, capsys, monkeypatch):
    """It was named 'Recorder', the wrapper that logs the answers (QA); play names the spec."""
    (tmp_path / "illegal.py").write_text(ILLEGAL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", None)
    status, _, err = run(capsys, "duel", "--homies", "illegal.py:UpgradesBarZero", "--seed", "5")
    assert status == 1 and "illegal decision: illegal.py:UpgradesBarZero in seat " in err, err

"""How a study reuses, refuses, replays and continues its sub-runs (experiments.common.run)."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import ctrl_c_after_unit

from barbaron import api
from barbaron.errors import RunInterrupted, UsageError
from barbaron.registry import make_bot
from barbaron.results import ResultsError, written
from experiments import common

BOTS = ["easy", "hard"]


def play(out, capsys, **changes):
    """A small api.play through common.run, and what it printed."""
    arguments = {"bots": BOTS, "games": 400, "seed": 3} | changes
    summary = common.run(api.play, out, workers=1, **arguments)
    return summary, capsys.readouterr().out


def forced_replay_cut_short(out, capsys, monkeypatch, seed: int) -> None:
    """A --force replay into ``out`` under ``seed``, stopped by Ctrl-C after its unit 1."""
    ctrl_c_after_unit(monkeypatch, 1)
    with pytest.raises(RunInterrupted):
        common.run(api.play, out, workers=1, force=True, bots=BOTS, games=400, seed=seed,
                   batch_size=50)  # fmt: skip
    monkeypatch.undo()
    capsys.readouterr()


def test_a_finished_run_with_the_same_arguments_is_reused_as_it_is(tmp_path, capsys):
    out = tmp_path / "run"
    first, said = play(out, capsys)
    assert ">>> api.play(" in said
    record = json.loads((out / common.RECORD).read_text())
    assert record == {
        "function": "play",
        "bots": BOTS,
        "games": 400,
        "seed": 3,
        "resolved": {"bots": [repr(make_bot(b)) for b in BOTS]},  # the bots as played
    }
    started = json.loads((out / "manifest.json").read_text())["started"]
    again, said = play(out, capsys)
    assert again == first and "reusing" in said
    assert json.loads((out / "manifest.json").read_text())["started"] == started
    # a Homie whose defaults changed since: its name alone would reuse the old games (QA)
    record["resolved"]["bots"][0] = "easy:buy=0.5,upgrade=0.1,takeover=0.05"
    (out / common.RECORD).write_text(json.dumps(record))
    changed = r"a bot then 'easy:buy=0.5,.*' \(now 'easy:buy=0.6,.*: its defaults have changed\)"
    with pytest.raises(UsageError, match=f"played with {changed}"):
        play(out, capsys)
    del record["resolved"]  # a sub-run of an earlier version: what its games were is unknown
    (out / common.RECORD).write_text(json.dumps(record))
    with pytest.raises(UsageError, match="played with no record of its bots' parameters"):
        play(out, capsys)


def test_a_finished_run_is_not_reused_once_the_weights_or_a_bot_inside_a_bot_changed(
    tmp_path, capsys
):
    """The record named a bot inside a bot (mc's own=hard) and a weights file without what
    they were: retrained weights, or Hard's new defaults inside mc, reused the old games."""
    import shutil

    weights = tmp_path / "w.json"
    shutil.copy(Path(__file__).resolve().parents[1] / "bots" / "value_weights.json", weights)
    out = tmp_path / "run"
    play(out, capsys, bots=[f"value:weights={weights}", "easy"], games=40)
    assert "reusing" in play(out, capsys, bots=[f"value:weights={weights}", "easy"], games=40)[1]
    data = json.loads(weights.read_text())
    data["weights"] = [2 * w for w in data["weights"]]  # retrained, say
    weights.write_text(json.dumps(data))
    with pytest.raises(UsageError, match="a bot or weights it holds have changed"):
        play(out, capsys, bots=[f"value:weights={weights}", "easy"], games=40)
    record = common.resolved("mc:rollouts=2")
    assert f"[own: {make_bot('hard')!r}]" in record and "[playout: greedy" in record
    # a record of before: said so, not "changed" (review)
    old = json.loads((out / common.RECORD).read_text())
    old["resolved"]["bots"][0] = old["resolved"]["bots"][0].partition(" [")[0]
    (out / common.RECORD).write_text(json.dumps(old))
    with pytest.raises(UsageError, match="recorded before the bots and weights a bot holds were"):
        play(out, capsys, bots=[f"value:weights={weights}", "easy"], games=40)


class Slotted:
    """A bot of __slots__ holding weights (review: resolved() read only __dict__)."""

    __slots__ = ("weights",)

    def __init__(self, weights):
        import numpy as np

        self.weights = np.asarray(weights, dtype=float)

    def __repr__(self) -> str:
        return "Slotted"


class OneSlot(Slotted):
    """Slots given as one name, a string (review: read as its characters)."""

    __slots__ = "layer"


def test_resolved_digests_the_weights_a_bot_of_slots_holds():
    one = OneSlot([1.0])
    one.layer = np.array([5.0])
    other = OneSlot([1.0])
    other.layer = np.array([6.0])
    assert common._resolved_bot(one, ()) != common._resolved_bot(other, ())
    first, second = Slotted([1.0, 2.0]), Slotted([1.0, 3.0])
    assert "[weights: sha256 " in common._resolved_bot(first, ())
    assert common._resolved_bot(first, ()) != common._resolved_bot(second, ())
    assert common._resolved_bot(first, ()) == common._resolved_bot(Slotted([1.0, 2.0]), ())


def test_a_run_played_with_other_arguments_is_refused_unless_forced(tmp_path, capsys):
    """A study that found a folder of other arguments reused it silently: its tables then
    mixed seeds (homie_dial) or failed on the number of games (QA). It now names what
    differs; --force plays it again."""
    out = tmp_path / "run"
    play(out, capsys)
    with pytest.raises(UsageError, match=r"played with seed=3 \(now 4\): remove that folder"):
        play(out, capsys, seed=4)
    (out / common.RECORD).unlink()  # a folder from before the record, or not a study's
    with pytest.raises(UsageError, match="no readable arguments.json"):
        play(out, capsys)
    summary = common.run(api.play, out, workers=1, force=True, bots=BOTS, games=400, seed=4)
    assert json.loads((out / "manifest.json").read_text())["job"]["seed"] == 4 and summary
    assert json.loads((out / common.RECORD).read_text())["seed"] == 4


def test_an_interrupted_run_is_continued_by_running_the_study_again(tmp_path, capsys, monkeypatch):
    """An interrupted sub-run said 'run the same command with --resume', which a study does
    not take, and the study played it again from the start (QA): it now says to run the
    study again, and that continues the kept units to the uninterrupted result."""
    out = tmp_path / "run"
    ctrl_c_after_unit(monkeypatch, 1)
    with pytest.raises(RunInterrupted) as stopped:
        play(out, capsys, batch_size=50)
    assert "run the same study command again (without --force)" in str(stopped.value)
    assert "--resume" not in str(stopped.value)
    capsys.readouterr()
    monkeypatch.undo()
    from barbaron.results import FolderLock

    held = FolderLock(out)  # another run of the study on it: said so (QA: "interrupted with
    try:  # other arguments")
        with pytest.raises(UsageError, match="being written by another barbaron run"):
            play(out, capsys, batch_size=50)
    finally:
        held.release()
    summary, said = play(out, capsys, batch_size=50)
    assert said.startswith(">>> continuing api.play(")
    whole, _ = play(tmp_path / "whole", capsys, batch_size=50)
    assert summary == whole
    kept, alone = (
        pd.read_parquet(folder / "games.parquet").sort_values(["game", "seat"], ignore_index=True)
        for folder in (out, tmp_path / "whole")
    )
    assert kept["game"].nunique() == 400 and kept.equals(alone)


def test_study_tables_are_written_whole(tmp_path, monkeypatch):
    """A study's CSV is written through a temporary file: a failure leaves the old one."""
    path = tmp_path / "table.csv"
    common.write_csv(pd.DataFrame({"a": [1]}), path)

    def broken(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", broken)
    with pytest.raises(Exception, match="cannot write .*table.csv: No space left"):
        common.write_csv(pd.DataFrame({"a": [2]}), path)
    monkeypatch.undo()
    assert pd.read_csv(path)["a"].tolist() == [1] and list(tmp_path.iterdir()) == [path]


def test_a_studys_final_tables_are_replaced_together_or_not_at_all(tmp_path, monkeypatch):
    """A full disk at the third of a study's final tables had already replaced the first two:
    the folder mixed two runs' tables. They are now renamed into place together at the end."""
    first, second, third = (tmp_path / f"{name}.csv" for name in ("first", "second", "third"))
    with common.finishing(tmp_path):
        for path in (first, second, third):
            common.write_csv(pd.DataFrame({"run": [1]}), path)
        assert not first.exists()  # (staged until the block ends)
    to_csv = pd.DataFrame.to_csv

    def full_at_the_third(self, path, *args, **kwargs):
        if Path(path).name.startswith("third"):
            raise OSError(28, "No space left on device")
        return to_csv(self, path, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", full_at_the_third)
    with pytest.raises(ResultsError, match="cannot write .*third.csv: No space left"):
        with common.finishing(tmp_path):
            for path in (first, second, third):
                common.write_csv(pd.DataFrame({"run": [2]}), path)
    monkeypatch.undo()
    assert [pd.read_csv(path)["run"].tolist() for path in (first, second, third)] == [[1]] * 3
    assert sorted(tmp_path.iterdir()) == [first, second, third]  # no temporary file left


def test_a_rename_refused_at_the_end_of_staging_is_one_error_and_leaves_no_temporary_file(
    tmp_path,
):
    """A folder in the way of the second table: a bare IsADirectoryError, and the temporary
    files of the second and third left behind (review)."""
    first, second, third = (tmp_path / f"{name}.csv" for name in ("first", "second", "third"))
    second.mkdir()
    with pytest.raises(ResultsError, match="cannot write .*second.csv"):
        with common.finishing(tmp_path):
            for path in (first, second, third):
                common.write_csv(pd.DataFrame({"run": [1]}), path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["first.csv", "second.csv"]


def test_a_symlinked_file_is_written_beside_its_target(tmp_path):
    """Its temporary file was made beside the link, and the rename failed across disks."""
    target, link = tmp_path / "store" / "plot.png", tmp_path / "plot.png"
    target.parent.mkdir()
    target.write_text("old")
    link.symlink_to(target)
    with written(link, link.with_name(".plot.png.tmp.png")) as tmp:
        assert tmp.parent == target.parent
        tmp.write_text("new")
    assert link.is_symlink() and target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plot.png", "store"]


def test_a_forced_run_that_was_interrupted_is_continued_and_then_replaces_the_old(
    tmp_path, capsys, monkeypatch
):
    """A --force replay that was interrupted could be neither continued (the old folder had
    lost its record) nor kept (--force started it over) (review). Run again without --force,
    it continues, replaces the old results once complete, and records its own arguments."""
    out = tmp_path / "run"
    play(out, capsys, batch_size=50)
    forced_replay_cut_short(out, capsys, monkeypatch, seed=4)
    assert json.loads((out / common.RECORD).read_text())["seed"] == 3  # the old results' own
    summary, said = play(out, capsys, batch_size=50)  # the old run's arguments: reused
    assert "reusing" in said and "run.partial (other arguments, interrupted) is left" in said
    with pytest.raises(UsageError, match="interrupted with other arguments: .*--force to start"):
        play(out, capsys, seed=5, batch_size=50)  # neither the old run's nor the cut one's
    summary, said = play(out, capsys, seed=4, batch_size=50)
    assert said.startswith(">>> continuing api.play(")
    assert json.loads((out / common.RECORD).read_text())["seed"] == 4
    assert json.loads((out / "manifest.json").read_text())["job"]["seed"] == 4
    assert summary == play(tmp_path / "whole", capsys, seed=4, batch_size=50)[0]


def test_results_in_place_when_ctrl_c_came_keep_their_record(
    tmp_path, capsys, monkeypatch, ctrl_c_as_it_tidies_up
):
    """A Ctrl-C as the finished run tidied up left complete results without arguments.json,
    which the study then refused (review): the record is written all the same."""
    out = tmp_path / "run"
    with pytest.raises(RunInterrupted, match="after the run was complete") as stopped:
        play(out, capsys)
    assert str(stopped.value).endswith(
        "the study's tables are not written yet: run the same study command again (without "
        "--force) to continue"
    )
    monkeypatch.undo()
    assert json.loads((out / common.RECORD).read_text())["seed"] == 3
    assert "reusing" in play(out, capsys)[1]


def test_a_run_killed_before_its_record_was_put_in_is_reused(tmp_path, capsys, monkeypatch):
    """kill -9 between the run's move into place and the record's left complete results the
    study refused as played with arguments it does not record (QA): the record waits beside
    the folder and is put in by the next run."""

    class Killed(BaseException):
        pass

    def killed_at_the_record(path, data):
        if path.name == common.RECORD:
            raise Killed
        return written_json(path, data)

    out, written_json = tmp_path / "run", common.write_json
    monkeypatch.setattr(common, "write_json", killed_at_the_record)
    with pytest.raises(Killed):
        play(out, capsys)
    monkeypatch.undo()
    assert (out / "summary.json").exists() and not (out / common.RECORD).exists()
    assert "reusing" in play(out, capsys)[1]
    assert json.loads((out / common.RECORD).read_text())["seed"] == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # (nothing pending is left)


def test_a_second_run_of_a_study_leaves_the_first_ones_record_alone(tmp_path, capsys):
    """A second run on a sub-run the first was playing removed the first's pending record,
    and the first then failed at its end (review)."""
    out = tmp_path / "run"
    with common._record_lock(out):  # the first run, playing
        pending = tmp_path / f".run.{common.RECORD}"
        pending.write_text("{}")
        with pytest.raises(UsageError, match="is being written by another barbaron run"):
            play(out, capsys)
        assert pending.read_text() == "{}"
    pending.unlink()
    assert ">>> api.play(" in play(out, capsys)[1]  # and then it plays


def test_a_study_writes_its_tables_whole_even_when_ctrl_c_comes_between_them(tmp_path):
    """A study's tables were written one after another, and a Ctrl-C between two left them
    from two different runs (QA): in ``finishing`` it waits for the last one."""
    import os
    import signal

    with pytest.raises(RunInterrupted, match=f"they are complete in {tmp_path}"):
        with common.finishing(tmp_path):
            common.write_csv(pd.DataFrame({"a": [1]}), tmp_path / "one.csv")
            os.kill(os.getpid(), signal.SIGINT)
            common.write_csv(pd.DataFrame({"a": [2]}), tmp_path / "two.csv")
    assert pd.read_csv(tmp_path / "two.csv")["a"].tolist() == [2]


def test_a_study_output_that_cannot_be_a_folder_or_file_is_one_line(tmp_path):
    """An --out that is a file failed with 'File exists' (exit 1), and a table the disk could
    not take with a 22-line traceback (QA): one line each, exit 2 and exit 1."""
    import subprocess
    import sys

    a_file = tmp_path / "afile"
    a_file.write_text("x")
    root = Path(__file__).resolve().parents[1]
    for script in ("homie_dial", "mc_budget", "game_rewards", "seat_compensation"):
        done = subprocess.run(
            [sys.executable, "-m", f"experiments.{script}", "--out", str(a_file)],
            capture_output=True, text=True, cwd=root, timeout=120,
        )  # fmt: skip
        assert done.returncode == 2 and "a file stands in the way" in done.stderr, done.stderr
        assert done.stderr.count("\n") == 1
    from barbaron.cli import with_one_line_failures

    def full_disk() -> int:
        raise ResultsError("cannot write x/curve.png: No space left on device")

    assert with_one_line_failures(full_disk) == 1


def test_a_forced_replay_of_the_same_arguments_cut_short_is_continued(
    tmp_path, capsys, monkeypatch
):
    """--force replays a sub-run with the same arguments (the bots' code changed, say); cut
    short, the study's advice is to run it again without --force. That reused the old results
    beside the kept units of the new ones (review): it continues the replay."""
    out = tmp_path / "run"
    play(out, capsys, batch_size=50)
    old_folder = out.stat().st_ino
    forced_replay_cut_short(out, capsys, monkeypatch, seed=3)
    summary, said = play(out, capsys, batch_size=50)
    assert said.startswith(">>> continuing api.play(")
    assert out.stat().st_ino != old_folder  # the replay's folder, moved in once complete
    assert not (tmp_path / "run.partial").exists()


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_a_study_interrupted_while_it_imports_says_one_line(signal_name):
    """A Ctrl-C in a study's first half second, while ``python -m`` imported it, printed a
    KeyboardInterrupt traceback (QA). While the package imports (argv[0] is then "-m") it ends
    the process with one line and exit 130; imported as a library, nothing changes."""
    import subprocess
    import sys

    signal_code = f"""
import os, signal, sys, time
sys.argv[0] = "-m"
import experiments
os.kill(os.getpid(), signal.{signal_name})
time.sleep(30)
"""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", signal_code], capture_output=True, text=True, cwd=root, timeout=60
    )
    assert (done.returncode, done.stderr) == (130, "error: interrupted\n")
    library = "import signal, experiments; print(signal.getsignal(signal.SIGINT).__name__)"
    done = subprocess.run(
        [sys.executable, "-c", library], capture_output=True, text=True, cwd=root, timeout=60
    )
    assert done.stdout == "default_int_handler\n", done.stderr


def test_a_study_takes_ctrl_c_back_once_it_runs():
    """Once the study's main starts, a Ctrl-C is Python's KeyboardInterrupt again, so that
    the run keeps what it finished and says so."""
    import signal

    from barbaron import interrupts, quiet_while_starting

    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        quiet_while_starting()
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        interrupts.started()
        handler = signal.getsignal(signal.SIGINT)  # Python's own, noted (raise_interrupt)
        assert handler is interrupts.raise_interrupt and not interrupts.landed()
        with pytest.raises(KeyboardInterrupt):
            handler(signal.SIGINT, None)
        assert interrupts.landed()
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def test_ctrl_c_after_a_studys_tables_are_in_place_says_they_are_complete(tmp_path, capsys):
    """A Ctrl-C as a study printed its tables, all of them written, said only 'interrupted'
    (QA): it says where the complete results are."""

    def study() -> int:
        with common.finishing(tmp_path):
            common.write_csv(pd.DataFrame({"a": [1]}), tmp_path / "one.csv")
        raise KeyboardInterrupt  # (as it prints)

    with pytest.raises(SystemExit) as ended:
        common.script(study)
    assert ended.value.code == 130
    said = capsys.readouterr().err
    assert (
        said == f"error: interrupted after the study was complete: its results are in {tmp_path}\n"
    )

    def cut_before_its_tables() -> int:
        raise KeyboardInterrupt

    with pytest.raises(SystemExit):
        common.script(cut_before_its_tables)
    said = capsys.readouterr().err
    assert (
        said == "error: interrupted before the study wrote its tables; nothing was written: "
        "run it again\n"
    )

    def cut_between_sub_runs() -> int:
        play(tmp_path / "runs" / "a", capsys)
        raise KeyboardInterrupt

    with pytest.raises(SystemExit):
        common.script(cut_between_sub_runs)
    said = capsys.readouterr().err
    assert said.endswith("tables; its finished sub-runs are kept: run the same study command "
                         "again (without --force) to continue\n")  # fmt: skip

    def cut_before_any_game() -> int:
        common.out_folder(tmp_path / "new", study="homie_dial")
        raise KeyboardInterrupt

    with pytest.raises(SystemExit) as ended:  # the folder it made, holding only its mark, goes
        common.script(cut_before_any_game)
    assert ended.value.code == 130 and not (tmp_path / "new").exists()


def test_a_study_writes_only_into_its_own_folder_without_force(tmp_path):
    """A study wrote its tables over a user's files of the same names, and two studies wrote
    into one folder (QA). A folder is claimed by the study that first writes there."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "curve.csv").write_text("my data\n")
    with pytest.raises(UsageError, match="holds files no study wrote: .*or --force"):
        common.out_folder(mine, study="homie_dial")
    assert (mine / "curve.csv").read_text() == "my data\n" and len(list(mine.iterdir())) == 1
    assert common.out_folder(mine, study="homie_dial", force=True) == mine  # asked for
    assert common.out_folder(mine, study="homie_dial") == mine  # now its own
    with pytest.raises(UsageError, match=r"results of another study \(homie_dial\)"):
        common.out_folder(mine, study="game_rewards")
    fresh = common.out_folder(tmp_path / "new" / "folder", study="mc_budget", arguments={"k": 1})
    assert json.loads((fresh / common.STUDY_MARK).read_text()) == {
        "study": "mc_budget",
        "arguments": {"k": 1},
    }
    # written before folders were marked: taken as the study's, its sub-runs kept (QA)
    old = tmp_path / "old"
    (old / "runs" / "sweep").mkdir(parents=True)
    (old / "runs" / "sweep" / common.RECORD).write_text("{}")
    assert common.out_folder(old, study="homie_dial") == old
    dial = tmp_path / "dial"
    dial.mkdir()
    (dial / "summary.json").write_text('{"command": "python -m experiments.homie_dial --games 9"}')
    with pytest.raises(UsageError, match="holds files no study wrote"):
        common.out_folder(dial, study="homie_ladder")
    assert common.out_folder(dial, study="homie_dial") == dial
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / ".gitkeep").write_text("")
    assert common.out_folder(hidden, study="game_rewards") == hidden
    root = Path(__file__).resolve().parents[1]
    for folder in (root / "results").iterdir():  # the committed results are their studies'
        if folder.is_dir():
            assert (folder / common.STUDY_MARK).exists(), folder


def test_a_study_replaces_its_own_results_of_other_arguments_only_with_force(tmp_path):
    """A quick look (--games 400) into the default folder replaced the committed results
    (QA). A folder records the arguments its results were played with; other ones are
    refused where it holds results, and a --force run records its own at once, so the same
    command continues it."""
    out = tmp_path / "dial"
    first, quick = {"games": 800, "seed": 1}, {"games": 400, "seed": 1}

    def mark() -> dict:
        return json.loads((out / common.STUDY_MARK).read_text())

    common.out_folder(out, study="homie_dial", arguments=first)
    (out / "runs").mkdir()  # (an empty folder a Ctrl-C left: QA)
    common.out_folder(out, study="homie_dial", arguments=quick)  # a mark alone: no results
    assert mark() == {"study": "homie_dial", "arguments": quick}  # (QA: it was refused)
    (out / "curve.csv").write_text("skill\n")
    with pytest.raises(UsageError, match=r"played with games=400 \(now 800\): give another"):
        common.out_folder(out, study="homie_dial", arguments=first)
    common.out_folder(out, study="homie_dial", arguments=quick)  # the same
    assert common.FORCED.get() is None
    common.out_folder(out, study="homie_dial", arguments=first, force=True)
    since = mark()["forced"]
    assert mark() == {"study": "homie_dial", "arguments": first, "forced": since}
    common.FORCED.set(None)
    with pytest.raises(
        UsageError,
        match=r"is being replaced by a --force run of this study, "
        r"interrupted, with games=800 \(now 400\): run that command again",
    ):
        common.out_folder(out, study="homie_dial", arguments=quick)  # fmt: skip
    with pytest.raises(UsageError, match="no complete results of these arguments to add to"):
        common.out_folder(out, study="homie_dial", arguments=first, adding=True, force=True)
    common.out_folder(out, study="homie_dial", arguments=first)  # continues the forced run
    assert common.FORCED.get() == since
    common.out_folder(out, study="homie_dial", arguments=first, force=True)  # forced again
    assert mark()["forced"] > since
    with pytest.raises(KeyboardInterrupt), common.finishing(out):  # a Ctrl-C as the tables
        raise KeyboardInterrupt  # are written waits for them: the forced run is complete
    assert mark() == {"study": "homie_dial", "arguments": first}
    with pytest.raises(UsageError, match="no complete results of these arguments to add to"):
        common.out_folder(out, study="homie_dial", arguments=quick, adding=True, force=True)
    common.out_folder(out, study="homie_dial", arguments=first, adding=True)  # (--tune)
    assert mark() == {"study": "homie_dial", "arguments": first}
    with pytest.raises(
        UsageError,
        match=r"played with rounds='not given' \(now 15\)|"
        r"played with rounds=not given \(now 15\)",
    ):
        common.out_folder(out, study="homie_dial", arguments={**first, "rounds": 15})  # fmt: skip
    (out / common.STUDY_MARK).write_text(json.dumps(
        {"study": "homie_dial", "arguments": {**first, "rounds": None}}))  # fmt: skip
    with pytest.raises(UsageError, match=r"played with rounds=None \(now not given\)"):
        common.out_folder(out, study="homie_dial", arguments=first)  # (QA: StopIteration)
    for damaged in ('{"study": "homie_dial"}', '{"study": "homie_dial", "arguments": [800]}'):
        (out / common.STUDY_MARK).write_text(damaged)  # from before the records, or damaged
        with pytest.raises(UsageError, match="results of arguments it does not record"):
            common.out_folder(out, study="homie_dial", arguments=first)
    for damaged in ("{", "[]", '{"study": 5}'):
        (out / common.STUDY_MARK).write_text(damaged)
        with pytest.raises(UsageError, match="has a damaged .barbaron-study mark"):
            common.out_folder(out, study="homie_dial", arguments=first)
    assert (out / "curve.csv").read_text() == "skill\n"


def test_a_study_continuing_a_forced_run_plays_its_sub_runs_of_other_arguments_again(
    tmp_path, capsys, monkeypatch
):
    """A --force run of new arguments, interrupted, could not be continued without --force:
    the sub-runs it had not reached yet were of the old arguments and stopped the study (QA)."""
    study = tmp_path / "study"
    common.out_folder(study, study="homie_dial", arguments={"seed": 3})
    play(study / "runs" / "a", capsys)
    play(study / "runs" / "b", capsys)
    forced_replay_cut_short(study / "runs" / "c", capsys, monkeypatch, seed=3)  # (a partial)
    play(study / "runs" / "d", capsys, seed=4)  # (the new arguments, played before the --force)
    common.out_folder(study, study="homie_dial", arguments={"seed": 4}, force=True)
    play(study / "runs" / "a", capsys, seed=4)  # played by the --force run, then a Ctrl-C
    common.FORCED.set(None)
    common.out_folder(study, study="homie_dial", arguments={"seed": 4})  # the same command
    _, said = play(study / "runs" / "a", capsys, seed=4)
    assert "reusing" in said
    _, said = play(study / "runs" / "b", capsys, seed=4)
    assert "was played with seed=3 (now 4): the --force run plays it again" in said
    _, said = play(study / "runs" / "c", capsys, seed=4)
    assert "not continued: " in said  # (after ">>> continuing": it read as if it went on)
    assert "interrupted with other arguments; the --force run plays it again" in said
    _, said = play(study / "runs" / "d", capsys, seed=4)  # (QA: --force replays every one)
    assert "was played before the --force run: it plays it again" in said
    for name in "abcd":
        assert common.recorded(study / "runs" / name)["seed"] == 4
    _, said = play(study / "runs" / "d", capsys, seed=4)
    assert "reusing" in said
    common.FORCED.set(None)  # a study not continuing a forced run stops at such a sub-run
    with pytest.raises(UsageError, match=r"played with seed=4 \(now 5\): remove that folder"):
        play(study / "runs" / "a", capsys, seed=5)


COMMITTED = {  # results/FOLDER: the study and the arguments that wrote it (README, summary.json)
    "homie_dial": ("homie_dial", "--games 200000 --seed 1313 --workers 2"),
    "homie_dial-15-rounds": ("homie_dial", "--games 200000 --seed 1313 --workers 2 --rounds 15"),
    "homie_ladder": ("homie_ladder", ""),
    "homie_ladder-15-rounds": ("homie_ladder", "--rounds 15"),
    "seat_compensation": ("seat_compensation", ""),
    "seat_compensation-15-rounds": (
        "seat_compensation",
        "--rounds 15 --games 400000 --search-games 400000 --solves hard-4p --tables "
        "hard-4p,hard-3p,hard-2p,skill50-4p,skills-4p,skills-3p,skills-2p",
    ),
    "game_rewards": ("game_rewards", ""),
    "mc_budget": ("mc_budget", ""),
    "policy": ("train_policy", ""),
    "policy/from_zero": ("train_policy", "--start zero --sigma 0.5"),
}


@pytest.mark.parametrize("folder", COMMITTED)
def test_the_committed_results_take_their_own_command_and_refuse_a_quick_look(
    folder, tmp_path, monkeypatch
):
    """Each committed results folder's mark holds the arguments of the command that wrote it:
    that command is let in (to replay or continue it), one of fewer games is refused before
    any game is played."""
    import importlib

    study, argv = COMMITTED[folder]
    module = importlib.import_module(f"experiments.{study}")
    out = tmp_path / "copy"
    out.mkdir()
    mark = Path(__file__).resolve().parents[1] / "results" / folder / common.STUDY_MARK
    (out / common.STUDY_MARK).write_bytes(mark.read_bytes())
    (out / "results.csv").write_text("")  # (a folder holding results: refused, not taken)
    option = ["--results", str(out), "--out", str(tmp_path / "w.json")]
    if study != "train_policy":
        option = ["--out", str(out)]
    claim = common.claim

    class Claimed(Exception):
        pass

    def claim_then_stop(*args: object, **kwargs: object) -> None:
        claim(*args, **kwargs)
        raise Claimed

    monkeypatch.setattr(common, "claim", claim_then_stop)
    with pytest.raises(Claimed):
        module.main([*argv.split(), *option])
    with pytest.raises(UsageError, match=r"this study's results played with games=\d+ \(now 400\)"):
        module.main([*argv.split(), "--games", "400", *option])
    assert (out / common.STUDY_MARK).read_bytes() == mark.read_bytes()


def test_seat_compensation_records_its_tables_in_its_own_order(tmp_path, monkeypatch):
    """--tables in another order (or a table twice) was refused against a folder of the same
    tables, though its results would be the same (QA): they are played and recorded in the
    study's own order."""
    from experiments import seat_compensation

    class Claimed(Exception):
        pass

    claimed = []

    def record_then_stop(path, study, option, force, arguments, adding) -> None:
        claimed.append(arguments)
        raise Claimed

    monkeypatch.setattr(common, "claim", record_then_stop)
    orders = ("hard-4p,skills-4p,hard-3p", "hard-3p,skills-4p,hard-4p", "hard-4p,hard-3p,"
              "skills-4p,hard-3p")  # fmt: skip
    for tables in orders:
        with pytest.raises(Claimed):
            seat_compensation.main(["--tables", tables, "--solves", "skills-4p,hard-4p",
                                    "--out", str(tmp_path / "s")])  # fmt: skip
    assert claimed[0] == claimed[1] == claimed[2]
    assert claimed[0]["tables"] == ["hard-4p", "hard-3p", "skills-4p"]
    assert claimed[0]["solves"] == ["hard-4p", "skills-4p"]  # (the default's order)


def test_a_training_script_replaces_only_its_own_weights_file_without_force(tmp_path, monkeypatch):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    with pytest.raises(UsageError, match="is not a weights file of train_value: .*--force"):
        common.output_file(notes, writer="train_value")
    assert common.output_file(notes, writer="train_value", force=True) == notes
    weights = tmp_path / "w.json"
    weights.write_text(json.dumps({"weights": [1.0], "trained": {"command": "python -m "
                                   "experiments.train_value --games 9"}}))  # fmt: skip
    assert common.output_file(weights, writer="train_value") == weights
    with pytest.raises(UsageError, match="not a weights file of train_sage"):
        common.output_file(weights, writer="train_sage")
    with pytest.raises(UsageError, match="not a weights file of train_val"):
        common.output_file(weights, writer="train_val")  # (a prefix of its name, QA)
    root = Path(__file__).resolve().parents[1]
    for name, writer in [("value", "train_value"), ("policy", "train_policy")]:
        shipped = root / "bots" / f"{name}_weights.json"  # retraining replaces them as it is
        assert common.output_file(shipped, writer=writer) == shipped
        with pytest.raises(UsageError, match="holds a shipped bot's weights, .*another --out"):
            common.output_file(shipped, writer=writer, defaults=False)  # (a quick look, QA)
        assert common.output_file(shipped, writer=writer, defaults=False, force=True) == shipped
    from barbaron.bots import value

    monkeypatch.setattr(common, "ROOT", tmp_path)  # another checkout, sharing this install (QA)
    with pytest.raises(UsageError, match="holds a shipped bot's weights"):
        common.output_file(value.WEIGHTS, writer="train_value", defaults=False)
    monkeypatch.undo()
    with pytest.raises(UsageError, match="holds a shipped bot's weights"):
        from experiments import train_value

        train_value.main(["--games", "2000"])  # refused before any game is played


def test_a_study_refused_for_bad_input_leaves_no_folder_behind(tmp_path):
    """It left the --out folder it had made, empty (QA), and would now leave its mark there."""
    import subprocess
    import sys

    out = tmp_path / "new" / "study"
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "experiments.homie_dial", "--games", "10000000000000", "--out",
         str(out)],
        capture_output=True, text=True, cwd=root, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "--games must be from 1 to" in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "bad, said",
    [
        (["--games", "3"], "--games 3 is not a multiple of the table's 4 rotations (e.g. 4)"),
        (["--rollouts", "4,4"], "must name each number once, got '4,4'"),
    ],
)
def test_mc_budget_refuses_what_it_cannot_play_before_playing(bad, said, tmp_path):
    """--games 3 was refused by the first sub-run, suggesting a --no-rotate the study lacks,
    and --rollouts 4,4 wrote the same row twice (QA)."""
    import re

    from experiments import mc_budget

    with pytest.raises(UsageError, match=re.escape(said)):
        mc_budget.main([*bad, "--out", str(tmp_path / "budget")])
    assert not (tmp_path / "budget").exists()


WORKERS_300 = (["--workers", "300"], "--workers: must be a whole number from 1 to 256, got '300'")
ROUNDS_1001 = (["--rounds", "1001"], "--rounds: must be a whole number from 1 to 1,000, got '1001'")


@pytest.mark.parametrize(
    "script, bad, said",
    [
        *[
            (s, *WORKERS_300)
            for s in ("homie_dial", "homie_ladder", "mc_budget", "seat_compensation")
        ],
        *[(s, *ROUNDS_1001) for s in ("homie_dial", "homie_ladder", "seat_compensation")],
    ],
)
def test_a_study_refuses_workers_and_rounds_barbaron_cannot_take_before_playing(
    script, bad, said, tmp_path
):
    """--workers 300 and --rounds 1001 were refused only by the first sub-run (QA)."""
    import importlib
    import re

    module = importlib.import_module(f"experiments.{script}")
    with pytest.raises(UsageError, match=re.escape(said)):
        module.main([*bad, "--out", str(tmp_path / "study")])
    assert not (tmp_path / "study").exists()

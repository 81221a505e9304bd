"""Hostile but fair use: nothing a user owns is deleted, two runs never mix in one folder, a
changed plugin is never resumed, damaged partial runs are repaired, faults (a dead worker,
SIGTERM, a full disk, a failing plugin) end in one line and a resumable folder, and bad input is
refused before anything is built."""

import contextlib
import errno
import functools
import json
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import after_unit, ctrl_c_after_unit

from barbaron import api, results
from barbaron.cli import main
from barbaron.errors import RunFailed, RunInterrupted, UsageError
from barbaron.harness import UnitResult
from barbaron.reference import Game
from barbaron.registry import make_bot
from barbaron.results import FolderLock
from barbaron.rules import Rules
from barbaron.strategy import StrategyError, describe, rules_change
from barbaron.streams import SeededChance
from barbaron.tuning import parse_params

PLAY = ["play", "--bots", "easy", "normal", "--games", "2000", "--batch-size", "250", "--quiet"]


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def one_line(err: str) -> bool:
    return len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run that the repaired and resumed runs must equal."""
    out = tmp_path_factory.mktemp("ref") / "ref"
    assert main([*PLAY, "--workers", "1", "--out", str(out)]) == 0
    return pd.read_parquet(out / "games.parquet")


# --- nothing a user owns is deleted --------------------------------------------------------------
def test_force_never_replaces_a_folder_that_only_looks_like_results(tmp_path, capsys):
    web = tmp_path / "web"
    (web / "src").mkdir(parents=True)
    (web / "manifest.json").write_text('{"name": "my app", "icons": []}')
    (web / "index.html").write_text("<html></html>")
    (web / "src" / "app.js").write_text("console.log(1)")
    status, _, err = run(capsys, *PLAY, "--out", web, "--force")
    assert status == 2 and one_line(err) and "not a barbaron results folder" in err
    assert (web / "index.html").exists() and (web / "src" / "app.js").exists()


@pytest.mark.parametrize("below", ["sub", "sub/deeper"])
def test_an_out_below_a_file_names_the_file(tmp_path, capsys, below):
    """``--out afile/sub`` said 'cannot create afile: File exists' (QA): it says afile is a
    file, not a folder, and makes nothing."""
    (tmp_path / "afile").write_text("mine")
    out = tmp_path / "afile" / below
    status, _, err = run(capsys, "play", "--bots", "greedy", "normal", "--games", "8",
                         "--out", out)  # fmt: skip
    assert status == 2 and one_line(err), err
    assert f"{tmp_path / 'afile'} is a file, not a folder; choose another --out" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_force_refuses_a_results_folder_holding_a_users_file(tmp_path, capsys):
    out = tmp_path / "r"
    assert run(capsys, *PLAY, "--out", out)[0] == 0
    (out / "notes.txt").write_text("mine")
    status, _, err = run(capsys, *PLAY, "--out", out, "--force")
    assert status == 2 and "'notes.txt', which barbaron did not write" in err
    assert (out / "notes.txt").read_text() == "mine"
    (out / "notes.txt").unlink()
    assert run(capsys, *PLAY, "--out", out, "--force")[0] == 0  # its own folder: replaced


def test_force_never_deletes_a_users_partial_folder(tmp_path, capsys):
    data = tmp_path / "data.partial"
    data.mkdir()
    (data / "precious.csv").write_text("1,2,3")
    status, _, err = run(capsys, *PLAY, "--out", tmp_path / "data", "--force")
    assert status == 2 and one_line(err) and "not an interrupted barbaron run" in err
    assert (data / "precious.csv").exists() and not (tmp_path / "data").exists()


def test_a_run_killed_before_its_first_manifest_leaves_a_folder_the_next_run_takes(
    tmp_path, capsys
):
    """kill -9 as a run began left OUT.partial with barbaron's empty folders (made before the
    manifest) or a half-written manifest: every option refused it as not barbaron's (QA). The
    manifest now comes first; such a folder holds nothing to keep, and the next run takes it."""
    out = tmp_path / "k"
    partial = Path(f"{out}.partial")
    for folders, files in ((["games.parquet", "tallies"], []), ([], ["manifest.json.tmp"])):
        partial.mkdir()
        for name in folders:
            (partial / name).mkdir()
        for name in files:
            (partial / name).write_text('{"status": "par')  # (a manifest half written)
        status, _, err = run(capsys, *PLAY, "--out", out, "--resume")
        assert status == 2 and one_line(err) and "holds no unit (a run killed as it" in err
        assert run(capsys, *PLAY, "--out", out)[0] == 0 and not partial.exists()
        shutil.rmtree(out)
    (partial / "games.parquet").mkdir(parents=True)
    (partial / "games.parquet" / "unit-0000000.parquet").write_bytes(b"a shard")
    status, _, err = run(capsys, *PLAY, "--out", out, "--force")  # (no manifest, a shard: not
    assert status == 2 and "not an interrupted barbaron run" in err  # an empty start: refused)
    shutil.rmtree(partial)
    (partial / "manifest.json.tmp").mkdir(parents=True)  # a folder of that name: the user's
    (partial / "manifest.json.tmp" / "data.csv").write_text("1,2,3")
    status, _, err = run(capsys, *PLAY, "--out", out)
    assert status == 2 and "not an interrupted barbaron run" in err
    assert (partial / "manifest.json.tmp" / "data.csv").exists()


def test_force_killed_as_it_removes_an_interrupted_run_leaves_one_to_resume(
    tmp_path, capsys, monkeypatch
):
    """--force removed the interrupted run's folder with its manifest among the first files: a
    kill half-way left shards without a manifest, refused from then on (QA). The manifest
    now goes last: what a kill leaves is still an interrupted run."""
    from barbaron import results

    out = tmp_path / "f"
    argv = [*PLAY, "--out", out, "--workers", "1"]
    interrupted(tmp_path, capsys, argv, monkeypatch)
    partial = Path(f"{out}.partial")
    real = shutil.rmtree

    def killed_after_the_first(path, *args, **kwargs):
        real(path, *args, **kwargs)
        raise KeyboardInterrupt  # (as a kill would stop it there)

    monkeypatch.setattr(results.shutil, "rmtree", killed_after_the_first)
    status, _, err = run(capsys, *argv, "--force")
    monkeypatch.setattr(results.shutil, "rmtree", real)
    assert status == 130 and (partial / "manifest.json").is_file()
    assert run(capsys, *argv, "--resume")[0] == 0  # whatever it lost is played again
    reference = tmp_path / "reference"
    assert run(capsys, *PLAY, "--out", reference, "--workers", "1")[0] == 0
    read = pd.read_parquet
    assert read(out / "games.parquet").equals(read(reference / "games.parquet"))


def test_results_that_cannot_be_moved_into_place_say_so_and_resume(tmp_path, capsys, monkeypatch):
    """Its folder made read-only as the run ended: neither the move into place nor the lock
    file's removal can be done, and the lock's error hid the move's ("x.lock: Operation not
    permitted") while the line said the manifest was partial (QA). One line, what happened,
    where the complete results are; --resume puts them in place."""
    from barbaron import results

    out = tmp_path / "x"
    real_replace, real_unlink = os.replace, Path.unlink

    def read_only(source, target):
        if str(source).endswith(".partial"):
            raise PermissionError(errno.EPERM, "Operation not permitted")
        return real_replace(source, target)

    def lock_stays(path, *args, **kwargs):
        if path.name.endswith(".lock"):
            raise PermissionError(errno.EPERM, "Operation not permitted", str(path))
        return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(results.os, "replace", read_only)
    monkeypatch.setattr(Path, "unlink", lock_stays)
    status, _, err = run(capsys, *PLAY, "--out", out)
    monkeypatch.undo()
    assert status == 1 and one_line(err) and ".lock" not in err
    assert f"cannot move {out}.partial to {out}: Operation not permitted" in err
    assert "the results are complete in" in err and "--resume" in err
    assert json.loads(Path(f"{out}.partial/manifest.json").read_text())["status"] == "complete"
    assert run(capsys, *PLAY, "--out", out, "--resume")[0] == 0 and (out / "summary.json").exists()


def test_a_ctrl_c_that_an_import_turned_into_another_error_is_still_an_interrupt(capsys):
    """Ctrl-C inside numpy's import (the command imports it lazily) came out as numpy's
    ImportError, a 61-line traceback and exit 1 (QA). The handler notes what it raised, and
    the command line says "interrupted", exit 130; an error with no Ctrl-C behind it is still
    a bug, raised."""
    from barbaron import interrupts
    from barbaron.cli import with_one_line_failures

    def import_interrupted() -> int:
        try:
            interrupts.raise_interrupt(signal.SIGINT, None)  # (as the signal handler runs)
        except KeyboardInterrupt:
            raise ImportError("PyCapsule_Import could not import module 'datetime'") from None
        return 0

    assert with_one_line_failures(import_interrupted) == 130
    assert capsys.readouterr().err == "error: interrupted (it came out as ImportError)\n"

    def second_ctrl_c_in_a_class() -> int:  # (QA: exit 1 and a traceback through alembic)
        with interrupts.deferred():
            interrupts._note(signal.SIGINT, None)  # the first: noted
            try:
                interrupts._note(signal.SIGINT, None)  # the second: raised where it lands
            except KeyboardInterrupt as e:
                raise RuntimeError("Error calling __set_name__ on 'Field' instance") from e
        return 0

    assert with_one_line_failures(second_ctrl_c_in_a_class) == 130
    assert capsys.readouterr().err == "error: interrupted (it came out as RuntimeError)\n"

    def a_bug() -> int:
        raise ImportError("no Ctrl-C behind this one")

    with pytest.raises(ImportError):
        with_one_line_failures(a_bug)


def test_a_second_ctrl_c_that_cut_a_runs_account_short_still_names_what_it_kept(
    tmp_path, capsys, monkeypatch
):
    """A double Ctrl-C in tune's start left a resumable OUT.partial and said only
    "interrupted" (QA): the line names the folder and the resume."""
    from barbaron.commands import play

    out = tmp_path / "run"

    def cut_short(args):
        (tmp_path / "run.partial").mkdir()
        (tmp_path / "run.partial" / "manifest.json").write_text("{}")
        raise KeyboardInterrupt

    monkeypatch.setattr(play, "run", cut_short)
    status, _, err = run(capsys, *PLAY, "--out", out)
    assert status == 130 and err == (
        f"error: interrupted: {out}.partial is kept; run the same command with --resume (in the "
        "library: resume=True) to continue\n"
    )
    monkeypatch.setattr(play, "run", lambda args: (_ for _ in ()).throw(KeyboardInterrupt))
    status, _, err = run(capsys, *PLAY, "--out", tmp_path / "other")
    assert status == 130 and err == "error: interrupted\n"  # (nothing kept: nothing said)


def test_a_ctrl_c_a_callback_could_not_raise_prints_nothing_while_a_run_plays():
    """Raised inside numba's callback as a kernel loaded, Python printed it as 7 lines of
    "Exception ignored" before the run's own line (QA). Other such errors still print."""
    import gc

    from barbaron import interrupts

    class Raises:
        def __init__(self, error):
            self.error = error

        def __del__(self):
            raise self.error

    seen = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "unraisablehook", lambda unraisable: seen.append(unraisable.exc_value))
        with interrupts.deferred():
            Raises(KeyboardInterrupt())
            gc.collect()
            assert seen == []
            Raises(ValueError("shown"))
            gc.collect()
            assert [type(e) for e in seen] == [ValueError]  # passed on to the hook before
        Raises(KeyboardInterrupt())  # outside a run: that hook again
        gc.collect()
        assert [type(e) for e in seen] == [ValueError, KeyboardInterrupt]


# --- one run per folder -------------------------------------------------------------------------
@pytest.mark.parametrize("force", [[], ["--force"]])
def test_a_second_run_on_a_locked_folder_is_refused(tmp_path, capsys, force):
    out = tmp_path / "busy"
    lock = FolderLock(out.resolve())  # as a live run holds it
    try:
        status, _, err = run(capsys, *PLAY, "--out", out, *force)
    finally:
        lock.release()
    assert status == 2 and one_line(err) and "being written by another barbaron run" in err
    assert not out.exists() and not Path(f"{out}.partial").exists()
    assert run(capsys, *PLAY, "--out", out)[0] == 0  # free again once the other run ends


def test_two_concurrent_forced_runs_never_mix(tmp_path):
    out = tmp_path / "race"
    argv = [sys.executable, "-m", "barbaron.cli", *PLAY[:-1], "--games", "40000", "--quiet"]
    runs = [
        subprocess.Popen(
            [*argv, "--seed", str(seed), "--out", str(out), "--force", "--workers", "1"],
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in (0, 1)
    ]
    codes = [p.wait(timeout=120) for p in runs]
    errors = [p.stderr.read() for p in runs]
    assert 0 in codes, errors
    winner = json.loads((out / "manifest.json").read_text())["job"]["seed"]  # the last to end
    assert codes[winner] == 0, errors  # (both end well when one starts after the other ended)
    alone = tmp_path / "alone"
    subprocess.run([*argv, "--seed", str(winner), "--out", str(alone)], check=True)
    assert pd.read_parquet(out / "games.parquet").equals(pd.read_parquet(alone / "games.parquet"))
    if codes.count(0) == 1:
        assert "being written by another barbaron run" in errors[1 - winner]


# --- resume: never a changed plugin, damaged units replayed -------------------------------------
PLUGIN = """
import numpy as np
from barbaron.strategy import Strategy

class Mine(Strategy):
    def buy(self, view, games, bars):
        return view.coins[games, view.seat] >= {cushion}
"""


def interrupted(tmp_path, capsys, argv, monkeypatch):
    """Run ``argv`` until its third unit finishes, then Ctrl-C: the partial folder."""
    from barbaron import run as run_module

    real = run_module.execute
    ctrl_c_after_unit(monkeypatch, 2)
    status, _, err = run(capsys, *argv)
    monkeypatch.setattr(run_module, "execute", real)
    assert status == 130 and one_line(err) and "--resume" in err
    return err


def test_resume_of_a_complete_run_says_there_is_nothing_to_resume(tmp_path, capsys):
    out = tmp_path / "done"
    assert run(capsys, *PLAY, "--out", out)[0] == 0
    status, _, err = run(capsys, *PLAY, "--out", out, "--resume")
    assert status == 2 and one_line(err) and "is complete: nothing to resume" in err, err


def test_resume_refuses_other_sprt_bounds(tmp_path, capsys, monkeypatch):
    out = tmp_path / "c"
    argv = ["compare", "hard", "hard", "--players", "2", "--max-games", "20000", "--quiet"]
    bounds = ["--elo0", "-5", "--elo1", "5"]  # never decided: hard against itself
    interrupted(tmp_path, capsys, [*argv, *bounds, "--out", out], monkeypatch)
    for other, said in (
        (["--elo0", "-5", "--elo1", "10"], "--elo1 5.0 (now 10.0)"),
        ([], "--elo0 -5.0 (now none)"),  # (it said "now null")
    ):
        status, _, err = run(capsys, *argv, *other, "--out", out, "--resume")
        assert status == 2 and one_line(err) and "it was started with " in err, err
        assert said in err, err  # the option and both values, as play's refusals say (QA)
        assert "or use --force instead of --resume to start over" in err, err
    # with --force given already, the way to start over is to drop --resume (QA: "use --force")
    status, _, err = run(capsys, *argv, "--out", out, "--resume", "--force")
    assert status == 2 and "or drop --resume to start over" in err, err
    status, _, err = run(capsys, "report", out)  # (QA: "... No such file or directory")
    assert status == 2 and f"{out} does not exist yet: {out}.partial holds its interrupted" in err
    assert run(capsys, *argv, *bounds, "--out", out, "--resume")[0] == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["settings"] == {"elo0": -5.0, "elo1": 5.0}


def test_resume_names_what_differs_from_the_interrupted_run(tmp_path, capsys, monkeypatch):
    argv = [*PLAY, "--out", tmp_path / "p", "--workers", "1"]
    interrupted(tmp_path, capsys, argv, monkeypatch)
    bots = argv.index("normal")
    for change, words in [
        (["--seed", "3"], "--seed 0 (now 3)"),
        (["--rounds", "12"], "--rounds 10 (now 12)"),
        (["--seat-coins", "1000,1000"], "--seat-coins none (now 1000,1000)"),
        (["--no-rotate"], "every rotation (no --no-rotate)"),
        (["--games", "2200"], "2000 games per lineup (now 2200)"),
    ]:
        status, _, err = run(capsys, *argv, *change, "--resume")
        assert status == 2 and one_line(err) and f"started with {words};" in err, err
    manifest = tmp_path / "p.partial" / "manifest.json"
    recorded = json.loads(manifest.read_text())
    for damage in ([1], [{"label": "play", "bots": ["easy", "normal"], "rules": [10]}]):
        manifest.write_text(json.dumps(recorded | {"job": recorded["job"] | {"arms": damage}}))
        status, _, err = run(capsys, *argv, "--resume")
        assert status == 2 and one_line(err) and "started with another job" in err, err
    manifest.write_text(json.dumps(recorded))
    other = [*argv[:bots], "hard", *argv[bots + 1 :]]
    status, _, err = run(capsys, *other, "--resume")
    assert status == 2 and "started with the bots easy normal (now easy hard)" in err, err
    assert run(capsys, *argv, "--resume")[0] == 0


def test_only_files_a_spec_loads_are_fingerprinted(tmp_path, monkeypatch):
    """A number that happens to name a file is no file parameter, and a text parameter with a
    colon is no plugin (its lookup raised ModuleNotFoundError on every run with --out)."""
    from barbaron.plugins import plugin_hashes

    monkeypatch.chdir(tmp_path)
    (tmp_path / "100").write_text("not a bot's file")
    (tmp_path / "mine.py").write_text(PLUGIN.format(cushion=100))
    assert plugin_hashes(["mc:rollouts=100", "normal:cushion=100"]) == {}
    texts = plugin_hashes(["mine.py:Mine:mode=x.y:z", "mine.py:Mine:mode=.a:b"])
    assert list(texts) == ["mine.py"]
    (tmp_path / "low.py").write_text(PLUGIN.format(cushion=100).replace("Mine", "lowbot"))
    nested = plugin_hashes(["mc:playout=low.py:lowbot", "mc:own=gone:Bot"])  # (review)
    assert set(nested) == {"low.py", "gone"} and nested["gone"] == "unreadable"


def test_a_plugin_gone_from_an_absolute_path_is_not_a_question_of_the_folder(tmp_path):
    """Its replay said "cannot be read from <cwd> (run this from the folder where it was
    played)", advice that cannot help for an absolute path (QA)."""
    from barbaron.plugins import UNREADABLE, plugin_change

    gone, relative = str(tmp_path / "gone.py"), "gone.py"  # (as plugin_hashes keys them)
    said = plugin_change({gone: "0" * 64}, {gone: UNREADABLE}, "it was played")
    assert said == f"the file {gone}, read when it was played, cannot be read now"
    said = plugin_change({relative: "0" * 64}, {relative: UNREADABLE}, "it was played")
    assert "(run this from the folder where it was played)" in said


def test_a_changed_module_is_called_a_module_and_a_changed_file_a_file(tmp_path, monkeypatch):
    """A module plugin that changed was called "the file pk.m" (QA)."""
    from barbaron.plugins import plugin_change

    (tmp_path / "w.json").write_text("{}")
    (tmp_path / "w.py").write_text("raise SystemExit('imported')")  # never imported to tell
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    module, file = "barbaron.bots.greedy", str(tmp_path / "mine.py")
    for name, called in ((module, "the module"), (file, "the file"), ("w.json", "the file")):
        said = plugin_change({name: "0" * 64}, {name: "1" * 64}, "it was played")
        assert said == f"{called} {name} has changed since it was played"
        said = plugin_change({}, {name: "1" * 64}, "it was played")
        assert said == f"{called} {name} was not there when it was played"


def weights_file(path: Path, sign: int) -> None:
    """A copy of the value bot's shipped weights file, its weights times ``sign``."""
    from barbaron.bots import value

    data = json.loads(value.WEIGHTS.read_text())
    data["weights"] = [sign * w for w in data["weights"]]
    path.write_text(json.dumps(data))


FILE_SPECS = ["plugin", "plugin inside mc", "weights of value", "default of a plugin"]  # how a
# spec names its file (the last: a plugin's constructor default, which was not seen: QA)
VALUE_PLUGIN = """from barbaron.bots.value import Value


class MineValue(Value):
    def __init__(self, weights={weights!r}):
        super().__init__(weights)
"""


def file_spec(tmp_path: Path, named: str) -> tuple[Path, str, Callable[[int], object]]:
    """A file a spec loads, named as ``named`` says: (the file, the spec, a writer of its
    versions 1 and -1)."""
    if named == "weights of value":
        file, spec = tmp_path / "w.json", f"value:weights={tmp_path / 'w.json'}"
        return file, spec, functools.partial(weights_file, file)
    if named == "default of a plugin":
        file, plugin = tmp_path / "w.json", tmp_path / "mine_value.py"
        plugin.write_text(VALUE_PLUGIN.format(weights=str(file)))
        return file, f"{plugin}:MineValue", functools.partial(weights_file, file)
    file = tmp_path / "mine.py"
    spec = f"{file}:Mine" if named == "plugin" else f"mc:rollouts=1,own={file}:Mine"
    return file, spec, lambda version: file.write_text(PLUGIN.format(cushion=100 * version))


@pytest.mark.parametrize("named", FILE_SPECS)
def test_resume_refuses_a_file_that_changed(tmp_path, capsys, monkeypatch, named):
    """However a spec names the file it loads: a changed one would mix two strategies."""
    file, spec, write = file_spec(tmp_path, named)
    write(1)
    argv = [*PLAY, "--out", tmp_path / "p", "--workers", "1"]
    argv[2] = spec
    interrupted(tmp_path, capsys, argv, monkeypatch)
    write(-1)
    status, _, err = run(capsys, *argv, "--resume")
    assert status == 2 and one_line(err) and f"the file {file} has changed" in err, err
    write(1)
    assert run(capsys, *argv, "--resume")[0] == 0
    recorded = json.loads((tmp_path / "p" / "manifest.json").read_text())["plugins"]
    plugin = [str(tmp_path / "mine_value.py")] if named == "default of a plugin" else []
    assert sorted(recorded) == sorted([str(file), *plugin])


@pytest.mark.parametrize("named", FILE_SPECS)
def test_a_file_changed_while_the_games_play_fails_the_run(tmp_path, capsys, monkeypatch, named):
    """A plugin or weights file edited while a run played: units played after it (in a helper,
    or a bot built again) played the other version, and the run said complete (QA)."""
    file, spec, write = file_spec(tmp_path, named)
    write(1)
    argv = [*PLAY, "--out", tmp_path / "p", "--workers", "1"]
    argv[2] = spec
    after_unit(monkeypatch, 2, lambda: write(-1))
    status, _, err = run(capsys, *argv)
    assert status == 1 and one_line(err), err
    assert f"the file {file} has changed since the run started: units played after" in err, err
    assert not (tmp_path / "p").exists()
    manifest = json.loads((tmp_path / "p.partial" / "manifest.json").read_text())
    assert manifest["status"] == "partial"


@pytest.mark.parametrize("damage", ["shard", "tally", "temporary"])
def test_resume_replays_damaged_units(tmp_path, capsys, monkeypatch, reference, damage):
    out = tmp_path / "d"
    argv = [*PLAY, "--out", out, "--workers", "1"]
    interrupted(tmp_path, capsys, argv, monkeypatch)
    partial = Path(f"{out}.partial")
    if damage == "shard":
        path = partial / "games.parquet" / "unit-0000001.parquet"
        path.write_bytes(path.read_bytes()[:100])
    elif damage == "tally":
        path = partial / "tallies" / "unit-0000000.npz"
        path.write_bytes(path.read_bytes()[:50])
    else:
        (partial / "games.parquet" / "unit-0000002.tmp").write_bytes(b"half a shard")
    status, stdout, err = run(capsys, *argv, "--resume")
    assert status == 0, err
    assert pd.read_parquet(out / "games.parquet").equals(reference)


def test_a_manifest_that_is_not_barbarons_is_refused(tmp_path, capsys, monkeypatch):
    out = tmp_path / "m"
    argv = [*PLAY, "--out", out, "--workers", "1"]
    interrupted(tmp_path, capsys, argv, monkeypatch)
    (Path(f"{out}.partial") / "manifest.json").write_text("[1, 2, 3]")
    status, _, err = run(capsys, *argv, "--resume")
    assert status == 2 and one_line(err) and "is not an interrupted barbaron run" in err


# --- faults -----------------------------------------------------------------------------------
KILLER = """
import os, signal, time
import numpy as np
from barbaron.strategy import Strategy

class Killer(Strategy):
    # kills one worker process that plays it (not the run's own, whose parent is TEST_PID),
    # once the run has kept unit 0: TEST_KEPT names unit 0's tally file, the mark of a kept
    # unit, and TEST_CLAIM a file the first worker here claims

    def buy(self, view, games, bars):
        late = view.game[games].min() >= 250  # past unit 0
        worker = os.getppid() != int(os.environ.get("TEST_PID", -1))
        if "TEST_KEPT" in os.environ and worker and late:
            deadline = time.monotonic() + 30
            while not os.path.exists(os.environ["TEST_KEPT"]) and time.monotonic() < deadline:
                time.sleep(0.01)  # the other worker may still be playing unit 0
            try:  # only the first worker here dies: the run reports one exit code
                os.close(os.open(os.environ["TEST_CLAIM"], os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                pass
            else:
                os.kill(os.getpid(), signal.SIGKILL)
        return np.ones(games.size, dtype=bool)
"""


def cli(*argv, env=None, **kwargs):
    return subprocess.Popen(
        [sys.executable, "-m", "barbaron.cli", *map(str, argv)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
        **kwargs,
    )


def test_a_killed_worker_ends_the_run_in_one_line_and_resume_completes_it(tmp_path):
    plugin = tmp_path / "killer.py"
    plugin.write_text(KILLER)
    argv = ["play", "--bots", f"{plugin}:Killer", "easy", "--games", "40000", "--batch-size", "500"]
    argv += ["--workers", "2", "--quiet"]
    ref = cli(*argv, "--out", tmp_path / "ref")
    assert ref.wait(timeout=120) == 0, ref.stderr.read()
    started = time.monotonic()
    kept = tmp_path / "k.partial" / "tallies" / "unit-0000000.npz"
    env = {"TEST_PID": str(os.getpid()), "TEST_KEPT": str(kept), "TEST_CLAIM": str(tmp_path / "c")}
    dying = cli(*argv, "--out", tmp_path / "k", env=env)
    status = dying.wait(timeout=60)
    err = dying.stderr.read()
    assert status == 1 and one_line(err), err
    assert "a worker process died (exit codes -9)" in err and "--resume" in err and "unit" in err
    assert time.monotonic() - started < 60
    resumed = cli(*argv, "--out", tmp_path / "k", "--resume")
    assert resumed.wait(timeout=120) == 0, resumed.stderr.read()
    assert pd.read_parquet(tmp_path / "k" / "games.parquet").equals(
        pd.read_parquet(tmp_path / "ref" / "games.parquet")
    )


HELPER_KILLER = """
import os, signal
import numpy as np
from barbaron.strategy import Strategy

class Killer(Strategy):
    # kills a helper process that plays it (not the run's own, RUN_PID), late in its games

    def buy(self, view, games, bars):
        late = view.game[games].min() >= 250
        if os.getpid() != int(os.environ.get("RUN_PID", -1)) and late:
            os.kill(os.getpid(), signal.SIGKILL)
        return np.ones(games.size, dtype=bool)
"""


def test_a_helper_killed_as_it_sends_a_result_ends_the_run_too(tmp_path, monkeypatch):
    """A helper killed halfway through sending a result leaves the pool's manager thread
    waiting for the rest of the message for ever: no future failed, and the run waited for
    ever too (QA, about one kill in five at that moment). The manager thread is held here as
    it is then."""
    from concurrent.futures import process

    release = threading.Event()
    real = process._ExecutorManagerThread.wait_result_broken_or_wakeup

    def stuck(self):  # holds back the first unit's result, as a half message is for ever
        item, broken, cause = real(self)
        if isinstance(getattr(item, "result", None), UnitResult):
            release.wait(60)
        return item, broken, cause

    monkeypatch.setattr(process._ExecutorManagerThread, "wait_result_broken_or_wakeup", stuck)
    plugin = tmp_path / "killer.py"
    plugin.write_text(HELPER_KILLER)
    monkeypatch.setenv("RUN_PID", str(os.getpid()))
    started = time.monotonic()
    try:
        with pytest.raises(RunFailed, match="a worker process died"):
            api.play([f"{plugin}:Killer", "easy"], games=3000, batch_size=500, workers=2)
    finally:
        release.set()
    assert time.monotonic() - started < 30


def test_a_helper_killed_in_the_search_for_seat_coins_says_what_to_do(tmp_path, monkeypatch):
    """It said which unit, and nothing of what was kept or what to do (QA)."""
    plugin = tmp_path / "killer.py"
    plugin.write_text(HELPER_KILLER)
    monkeypatch.setenv("RUN_PID", str(os.getpid()))
    said = r"\(in the search for the seat coins, before anything was written\): run the command"
    with pytest.raises(RunFailed, match=f"^a worker process died .*{said} again to start over$"):
        api.solve_seats([f"{plugin}:Killer", "easy"], search_games=3000, games=3000,
                        batch_size=500, workers=2, progress=False)  # fmt: skip


def test_helpers_never_write_the_callers_buffered_output_again():
    """Helper processes are forks: a line the caller printed but had not flushed yet must not
    come out once more from each of them."""
    script = (
        "from barbaron import api\n"
        "print('before', end=' ')\n"
        "api.play(['greedy', 'easy'], games=4000, batch_size=500, workers=2)\n"
        "print('after')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "before after\n", done.stdout + done.stderr


CLUSTER = """
import sys, time, distributed
if __name__ == "__main__":
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    print(cluster.scheduler_address, flush=True)
    while True:
        time.sleep(1)
"""


def test_a_dask_scheduler_lost_mid_run_is_one_line(tmp_path):
    pytest.importorskip("distributed")  # the [dev] and [dask] extras install it
    (tmp_path / "cluster.py").write_text(CLUSTER)
    cluster = subprocess.Popen(
        [sys.executable, str(tmp_path / "cluster.py")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,  # its own group: the scheduler and its worker die together
    )
    try:
        assert select.select([cluster.stdout], [], [], 120)[0], "the cluster did not start"
        address = cluster.stdout.readline().strip()
        assert address.startswith("tcp://"), address
        out = tmp_path / "d"
        argv = ["play", "--bots", "mc:rollouts=8", "greedy", "greedy", "greedy", "--games", "12000"]
        run = cli(*argv, "--batch-size", "64", "--quiet", "--backend", "dask",
                  "--scheduler", address, "--out", out)  # fmt: skip
        deadline = time.monotonic() + 120  # (it connects in 0.6 s idle, 6 s on a busy machine)
        tallies = tmp_path / "d.partial" / "tallies"
        while not any(tallies.glob("*.npz")) and time.monotonic() < deadline:
            assert run.poll() is None, run.stderr.read()  # playing, a unit kept: then the loss
            time.sleep(0.05)
        assert any(tallies.glob("*.npz")), "no unit finished within 120 s"
    finally:
        os.killpg(cluster.pid, signal.SIGTERM)
        cluster.wait()
    status = run.wait(timeout=60)  # (the run takes a minute or more on one dask worker)
    err = run.stderr.read()
    assert status == 1 and one_line(err), err
    assert f"lost the dask scheduler at {address}" in err
    assert "--resume" in err and (tmp_path / "d.partial").exists()


def test_sigterm_is_handled_like_ctrl_c_and_leaves_no_worker(tmp_path):
    out = tmp_path / "t"
    proc = cli(
        "play",
        "--bots",
        "normal",
        "normal",
        "--games",
        "4000000",
        "--workers",
        "2",
        "--quiet",
        "--out",
        out,
    )
    partial = Path(f"{out}.partial") / "tallies"
    deadline = time.monotonic() + 60
    while not any(partial.glob("*.npz")) and time.monotonic() < deadline:
        time.sleep(0.2)
    found = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True)
    helpers = [int(pid) for pid in found.stdout.split()]  # (once it has exited, none are its)
    assert helpers, "the run has no helper process to leave behind"
    proc.send_signal(signal.SIGTERM)
    status = proc.wait(timeout=30)
    err = proc.stderr.read()
    assert status == 130 and one_line(err) and "--resume" in err, err
    deadline = time.monotonic() + 10
    while (alive := [p for p in helpers if Path(f"/proc/{p}").exists()]) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.05)  # (the run reaps its helpers as it ends; a moment, at most)
    assert not alive, f"helpers {alive} outlived the run"
    assert json.loads((Path(f"{out}.partial") / "manifest.json").read_text())["status"] == "partial"


def test_a_disk_too_full_for_the_first_manifest_leaves_nothing(tmp_path, capsys, monkeypatch):
    """It left a half OUT.partial, which every later run then refused as not barbaron's, and
    said so as a usage error (QA)."""
    real = results.write_json

    def full(path, data):
        if Path(path).name == "manifest.json":
            raise results.ResultsError(f"cannot write {path}: No space left on device")
        real(path, data)

    monkeypatch.setattr(results, "write_json", full)
    out = tmp_path / "full"
    status, _, err = run(capsys, *PLAY, "--out", out, "--workers", "1")
    assert status == 1 and one_line(err), err
    assert "manifest.json: No space left on device; nothing was written" in err, err
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    assert run(capsys, *PLAY, "--out", out, "--workers", "1")[0] == 0


def test_a_full_disk_is_one_line_and_leaves_no_temporary_file(tmp_path, capsys, monkeypatch):
    def full(table, where, **kwargs):
        Path(where).write_bytes(b"partial")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(where))

    monkeypatch.setattr(results.pq, "write_table", full)
    out = tmp_path / "full"
    status, _, err = run(capsys, *PLAY, "--out", out, "--workers", "1")
    assert status == 1 and one_line(err) and "No space left on device" in err
    assert not list(tmp_path.rglob("*.tmp"))


def test_a_disk_that_fills_up_mid_run_says_to_free_space_before_resuming(
    tmp_path, capsys, monkeypatch
):
    """It said to resume, which then failed the same way on the still-full disk (QA)."""
    real, calls = results.pq.write_table, []

    def fills_up(table, where, **kwargs):
        calls.append(where)
        if len(calls) > 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(where))
        real(table, where, **kwargs)

    monkeypatch.setattr(results.pq, "write_table", fills_up)
    status, _, err = run(capsys, *PLAY, "--out", tmp_path / "full", "--workers", "1")
    assert status == 1 and one_line(err), err
    assert "; free space on that disk, then run the same command with --resume" in err


def test_a_name_too_long_is_refused(tmp_path, capsys):
    status, _, err = run(capsys, *PLAY, "--out", tmp_path / ("x" * 250))
    assert status == 2 and one_line(err) and "too long" in err


FAILING = """
import sys
import numpy as np
from barbaron.strategy import Strategy

class Raises(Strategy):
    def buy(self, view, games, bars):
        raise ZeroDivisionError("my bug")

class Exits(Strategy):
    def buy(self, view, games, bars):
        sys.exit(3)

class MisusesTheView(Strategy):
    def buy(self, view, games, bars):
        return view.bar_value(games, bars + 12) > 0
"""


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize(
    "bot, kind, what, line",
    [
        ("Raises", "ZeroDivisionError", "my bug", 8),
        ("Exits", "SystemExit", "3", 12),
        # raised within the view it called: still the plugin's line, not barbaron's (QA)
        ("MisusesTheView", "IndexError", "bars holds 15, not a bar (bars are 0..11, R2)", 16),
    ],
)
def test_a_plugins_own_exception_is_one_line_naming_it(
    tmp_path, capsys, workers, bot, kind, what, line
):
    """With the round, the seat and the line of the plugin that raised (QA: check named them,
    play did not)."""
    plugin = tmp_path / "failing.py"
    plugin.write_text(FAILING)
    spec = f"{plugin}:{bot}"
    status, _, err = run(
        capsys,
        "play",
        "--bots",
        spec,
        "easy",
        "--games",
        "400",
        "--workers",
        workers,
        "--quiet",
        "--out",
        tmp_path / "f",
    )
    assert status == 1 and one_line(err), err
    assert f"{bot}.buy raised {kind} as seat " in err and " in round 1, asked about " in err, err
    assert f": {what} (at {plugin}:{line} in {bot}.buy)" in err, err


LATE = """
from barbaron.strategy import ScalarStrategy

class Late(ScalarStrategy):
    def buy_one(self, game, bar):
        if game.game >= 500:  # the deal: 1,000 of them
            raise RuntimeError("late bug")
        return True
"""


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_plugin_failing_after_units_finished_says_where_they_are_kept(tmp_path, capsys, workers):
    plugin = tmp_path / "late.py"
    plugin.write_text(LATE)
    out = tmp_path / "late"
    argv = ["play", "--bots", f"{plugin}:Late", "easy", "--games", "2000", "--batch-size", "100"]
    status, _, err = run(capsys, *argv, "--workers", workers, "--quiet", "--out", out)
    assert status == 1 and one_line(err), err
    assert "Late.buy_one raised RuntimeError as seat " in err  # the method it wrote (QA)
    assert ": late bug (at " in err and "in Late.buy_one)" in err, err
    assert f"finished units are kept in {out}.partial" in err and "--resume" in err
    assert (out.parent / "late.partial").is_dir() and not out.exists()


def test_a_scalar_bots_bad_answer_names_its_method_once_in_play_and_in_check(tmp_path, capsys):
    """check said 'Nones.buy raised IllegalDecision: ...Nones.buy_one answered None' (QA)."""
    plugin = tmp_path / "nones.py"
    plugin.write_text(
        "from barbaron.strategy import ScalarStrategy\n"
        "class Nones(ScalarStrategy):\n"
        "    def buy_one(self, game, bar):\n"
        "        return None\n"
    )
    argv = ["play", "--bots", f"{plugin}:Nones", "easy", "--games", "40", "--workers", "1"]
    status, _, err = run(capsys, *argv, "--quiet", "--out", tmp_path / "n")
    assert status == 1 and one_line(err) and "Nones.buy_one answered None" in err, err
    status, out, _ = run(capsys, "check", f"{plugin}:Nones", "--games", "40")
    failure = next(line for line in out.splitlines() if line.startswith("FAIL"))
    assert "Nones.buy_one answered None" in failure and "raised" not in failure, failure
    assert re.search(r"game \d+ \(seed 0", failure), failure


def test_debug_shows_the_plugins_traceback_after_units_finished(tmp_path, capsys):
    plugin = tmp_path / "late.py"
    plugin.write_text(LATE)
    argv = ["play", "--bots", f"{plugin}:Late", "easy", "--games", "2000", "--batch-size", "100"]
    status, _, err = run(
        capsys, "--debug", *argv, "--workers", "1", "--quiet", "--out", tmp_path / "l"
    )
    assert status == 1 and "Traceback" in err and 'raise RuntimeError("late bug")' in err


def test_a_plugin_value_of_the_wrong_kind_is_refused_in_one_line(tmp_path, capsys):
    plugin = tmp_path / "kinds.py"
    plugin.write_text(
        "from barbaron.strategy import ScalarStrategy\n"
        "class Kinds(ScalarStrategy):\n"
        "    def __init__(self, cushion=150, eager=False, label='x', weights=(1.0, 2.0)):\n"
        "        self.cushion, self.eager, self.label = cushion, eager, label\n"
    )
    for params, message in [
        ("cushion=abc", "cushion must be a finite number (its default is 150), got 'abc'"),
        ("cushion=inf", "cushion must be a finite number (its default is 150), got inf"),
        ("eager=1", "eager must be true or false, got 1"),
        ("weights=3", "weights takes a tuple (its default is (1.0, 2.0)), which a spec cannot"),
    ]:
        status, _, err = run(
            capsys, "play", "--bots", f"{plugin}:Kinds:{params}", "easy", "--out", tmp_path / "k"
        )
        assert status == 2 and one_line(err) and message in err, err
    assert not (tmp_path / "k").exists()
    status, _, err = run(
        capsys,
        "check",
        f"{plugin}:Kinds:cushion=2.5,eager=true,label=7,cushion=none",
        "--games",
        "11",
    )
    assert status == 2 and "given twice" in err  # text and none pass; a key once


def test_a_value_of_the_wrong_kind_is_named_though_the_constructor_fails_on_it(tmp_path, capsys):
    """The constructor's own words named no parameter (QA: "'<' not supported between
    instances of 'str' and 'int'"); a check of the bot's own that names it is kept."""
    plugin = tmp_path / "ctor.py"
    plugin.write_text(
        "from barbaron.bots.greedy import Greedy\n"
        "class Compares(Greedy):\n"
        "    def __init__(self, cushion: int = 100):\n"
        "        assert not cushion < 0\n"
        "        super().__init__()\n"
        "class Converts(Greedy):\n"
        "    def __init__(self, scale=1.0):\n"
        "        self.scale = float(scale)\n"
        "        super().__init__()\n"
        "class Says(Greedy):\n"
        "    def __init__(self, cushion=100):\n"
        "        if not isinstance(cushion, int):\n"
        "            raise ValueError(f'cushion must be whole, got {cushion!r}')\n"
        "        super().__init__()\n"
    )
    for bot, message in [
        ("Compares:cushion=abc", "cushion must be a finite number (its default is 100), got 'abc'"),
        ("Converts:scale=abc", "scale must be a finite number (its default is 1.0), got 'abc'"),
        ("Says:cushion=abc", "cushion must be whole, got 'abc'"),
    ]:
        status, _, err = run(capsys, "check", f"{plugin}:{bot}")
        assert status == 2 and one_line(err) and message in err, err


PARAMETERS = """
import numpy as np
from barbaron.strategy import Strategy

class Echo(Strategy):
    def __init__(self, mode="buy", spec=100, cushion=np.int64(300)):
        self.mode, self.spec, self.cushion = mode, spec, cushion

    def buy(self, view, games, bars):
        assert isinstance(self.mode, str) and self.spec + 0 >= 0, (self.mode, self.spec)
        return np.full(games.size, self.mode == "buy")

class WritesItsGames(Strategy):
    def buy(self, view, games, bars):
        games[:] = 0
        return np.ones(games.size, dtype=bool)
"""


def test_a_plugins_parameters_arrive_as_their_defaults_kinds(tmp_path, capsys):
    """QA: a text parameter got None for 'never' and a number for '123'; the bot's own
    'spec' attribute was replaced by the harness's; a numpy number default took 'abc'; and a
    text parameter was tuned as a number."""
    plugin = tmp_path / "echo.py"
    plugin.write_text(PARAMETERS)
    for mode in ("never", "123", "true"):
        bot = make_bot(f"{plugin}:Echo:mode={mode},spec=5")
        assert (bot.mode, bot.spec) == (mode, 5)
        assert describe(bot) == f"{plugin}:Echo:mode={mode},spec=5"  # errors name the spec
    assert make_bot(f"{plugin}:Echo:mode=none").mode is None  # none is None, as everywhere
    assert repr(make_bot("mc:own=none").own) == "greedy"  # (none: its playout's, greedy)
    assert repr(make_bot(repr(make_bot("mc:own=none")))) == repr(make_bot("mc:own=none"))
    with pytest.raises(UsageError, match="lists none twice"):
        api.sweep(f"{plugin}:Echo", "mode", [None, "none"], games=2, players=2)
    argv = ["play", "--bots", f"{plugin}:Echo:spec=7", "greedy", "--games", "40", "--quiet"]
    assert run(capsys, *argv, "--workers", "1", "--out", tmp_path / "p")[0] == 0
    status, _, err = run(capsys, "play", "--bots", f"{plugin}:Echo:cushion=abc", "easy",
                         "--out", tmp_path / "k")  # fmt: skip
    assert status == 2 and "cushion must be a finite number (its default is 300)" in err, err
    out = tmp_path / "s"
    argv = ["sweep", "--bot", f"{plugin}:Echo", "--param", "mode=buy,never", "--players", "2"]
    assert run(capsys, *argv, "--games", "20", "--quiet", "--out", out)[0] == 0
    points = json.loads((out / "summary.json").read_text())["points"]
    assert [p["value"] for p in points] == ["buy", "never"]
    assert [p["bot"] for p in points] == [f"{plugin}:Echo:mode={m}" for m in ("buy", "never")]
    assert points[0]["win_share"] != points[1]["win_share"]  # "never" never buys
    for bounds in ("0:1", "never:always"):
        argv = ["tune", "--bot", f"{plugin}:Echo", "--param", f"mode={bounds}", "--trials", "2"]
        status, _, err = run(capsys, *argv, "--out", tmp_path / "t")
        assert status == 2 and "mode is text (default 'buy'), not a number to tune" in err, err
    (cushion,) = parse_params(f"{plugin}:Echo", ["cushion=100:500"])
    assert cushion.integer and (cushion.low, cushion.high) == (100, 500)  # np.int64's kind


def test_a_strategy_cannot_write_into_its_games_argument(tmp_path, capsys):
    """It could, and its games then depended on the batch size (QA)."""
    plugin = tmp_path / "echo.py"
    plugin.write_text(PARAMETERS)
    argv = ["play", "--bots", f"{plugin}:WritesItsGames", "greedy", "--games", "40"]
    status, _, err = run(capsys, *argv, "--quiet", "--workers", "1", "--out", tmp_path / "w")
    assert status == 1 and one_line(err) and "read-only" in err, err


def test_a_strategy_that_writes_the_rules_it_is_shown_fails_the_run(tmp_path, capsys):
    """Rules are frozen, but object.__setattr__ gets past that: the run recorded 3 rounds where
    it played 10 (QA). Now it ends in one line naming the bot, and keeps nothing."""
    bot = f"{Path(__file__).parent / 'fixtures' / 'bad_bots.py'}:ShortensTheNight"
    argv = ["play", "--bots", bot, "greedy", "--games", "40", "--quiet", "--workers", "1"]
    status, _, err = run(capsys, *argv, "--out", tmp_path / "r")
    assert status == 1 and one_line(err), err
    assert "ShortensTheNight changed the rules it was shown (rounds)" in err
    assert not (tmp_path / "r").exists()
    game = Game(Rules(players=2), [make_bot(bot), make_bot("greedy")], SeededChance(0, 0))
    with pytest.raises(StrategyError, match="changed the rules it was shown"):
        game.play()  # the reference engine too
    shown, written = Rules(players=2), Rules(players=2)
    object.__setattr__(written, "seat_coins", np.array([900, 1000]))  # no bool from its ==
    assert rules_change(written, shown).startswith("changed the rules it was shown (seat_coins)")
    assert rules_change(Rules(players=2), shown) is None


def test_a_plugin_imports_a_module_of_yours_from_pythonpath_in_every_worker(
    tmp_path, capsys, monkeypatch
):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "my_helper_module.py").write_text("CUSHION = 200\n")
    (folder / "sib.py").write_text(
        "from my_helper_module import CUSHION\n"
        "from barbaron.strategy import ScalarStrategy\n"
        "class Sib(ScalarStrategy):\n"
        "    def buy_one(self, game, bar):\n"
        "        return game.coins[game.seat] >= CUSHION\n"
    )
    monkeypatch.chdir(tmp_path)  # not the plugin's folder
    monkeypatch.setenv("PYTHONPATH", str(folder))  # as README says: the helpers inherit it
    monkeypatch.setattr(sys, "path", [str(folder), *sys.path])  # what it does at start-up
    status, _, err = run(
        capsys, "play", "--bots", "mine/sib.py:Sib", "easy", "--games", "200", "--batch-size",
        "50", "--workers", "2", "--quiet", "--out", tmp_path / "s",
    )  # fmt: skip
    assert status == 0, err


def test_debug_shows_the_traceback(tmp_path, capsys):
    plugin = tmp_path / "failing.py"
    plugin.write_text(FAILING)
    argv = [
        "play",
        "--bots",
        f"{plugin}:Raises",
        "easy",
        "--games",
        "40",
        "--workers",
        "1",
        "--quiet",
        "--out",
        tmp_path / "f",
    ]
    status, _, err = run(capsys, "--debug", *argv)
    assert status == 1 and "Traceback" in err and "my bug" in err


# --- bad input, refused before anything is built ------------------------------------------------
@pytest.mark.parametrize(
    "argv, message",
    [
        (["seats", "--bots", "easy", "--bonus", "0:inf:5"], "--bonus must look like"),
        (["seats", "--bots", "easy", "--bonus", "0:1e9:1"], "at most 1,000"),
        (["sweep", "--bot", "hard", "--param", "risk=0:1e9:1"], "at most 1,000"),
        (
            ["sweep", "--bot", "hard", "--param", "risk=nan,1"],
            "--param risk value nan is not a finite",
        ),
        (["play", "--bots", "easy", "easy", "--games", str(10**18)], "--games must be from 1 to"),
        (["play", "--bots", "easy", "easy", "--workers", "1000"], "--workers must be from 1"),
        (["play", "--bots", "easy", "easy", "--batch-size", str(10**12)], "--batch-size must be"),
        (["play", "--bots", "hard:risk=nan", "easy"], "risk must be a finite number"),
        (["play", "--bots", "hard:risk=inf", "easy"], "risk must be a finite number"),
        (["play", "--bots", "hard:risk=1,risk=2", "easy"], "given twice"),
        (["compare", "hard", "easy", "--elo1", "inf"], "must be finite"),
        (["compare", "hard", "easy", "--elo0", "5", "--elo1", "5"], "--elo1 must be above"),
        (
            ["compare", "hard", "easy", "--elo1", "5", "--batch-size", "512"],
            "--batch-size cannot be given",
        ),
        (["seats", "--bots", "easy", "--seat-bonus", "50"], "give it as --bonus 50"),
        (["play", "--bots", "hard:risk=true", "easy"], "risk must be a finite number"),
    ],
)
def test_bad_input_is_refused_at_once(tmp_path, capsys, argv, message):
    started = time.monotonic()
    status, _, err = run(capsys, *argv, "--out", tmp_path / "x", "--quiet")
    assert status == 2 and one_line(err) and message in err, err
    assert time.monotonic() - started < 5 and not list(tmp_path.iterdir())


def test_more_workers_than_units_start_no_more_processes(tmp_path, capsys):
    status, _, err = run(capsys, *PLAY, "--workers", "64", "--out", tmp_path / "w")
    assert status == 0, err


SLOPPY = """
from barbaron.strategy import ScalarStrategy

class Nan(ScalarStrategy):
    def buy_one(self, game, bar):
        return float("nan")

class No(ScalarStrategy):
    def buy_one(self, game, bar):
        return "no"
"""


@pytest.mark.parametrize("bot, answer", [("Nan", "nan"), ("No", "'no'")])
def test_a_scalar_answer_must_be_a_real_bool(tmp_path, capsys, bot, answer):
    plugin = tmp_path / "sloppy.py"
    plugin.write_text(SLOPPY)
    status, _, err = run(
        capsys,
        "play",
        "--bots",
        f"{plugin}:{bot}",
        "easy",
        "--games",
        "40",
        "--workers",
        "1",
        "--quiet",
        "--out",
        tmp_path / "s",
    )
    assert status == 1 and one_line(err)
    assert f"{bot}.buy_one answered {answer}; it must answer True or False" in err


def test_report_interrupted_as_it_draws_leaves_no_temporary_file(tmp_path, capsys, monkeypatch):
    """A Ctrl-C while report drew a plot left .NAME.tmp.png in the results folder (QA)."""
    from matplotlib.figure import Figure

    out = tmp_path / "r"
    assert run(capsys, *PLAY, "--out", out, "--workers", "1")[0] == 0
    before = sorted(p.name for p in out.iterdir())

    def interrupted(self, where, **kwargs):
        Path(where).write_bytes(b"half a png")
        raise KeyboardInterrupt

    monkeypatch.setattr(Figure, "savefig", interrupted)
    status, _, err = run(capsys, "report", out)
    assert status == 130 and one_line(err), err
    assert sorted(p.name for p in out.iterdir()) == before


def test_report_of_a_summary_it_did_not_write_is_one_line(tmp_path, capsys):
    out = tmp_path / "r"
    assert run(capsys, *PLAY, "--out", out, "--workers", "1")[0] == 0
    summary = json.loads((out / "summary.json").read_text())
    shard = sorted((out / "games.parquet").iterdir())[0]
    shard.write_bytes(shard.read_bytes()[:100])  # a damaged shard is named, not the summary
    status, _, err = run(capsys, "report", out)
    assert status == 2 and one_line(err) and f"{shard} is not a readable part" in err, err
    for part in (out / "games.parquet").iterdir():
        part.unlink()
    status, _, err = run(capsys, "report", out)
    assert status == 2 and one_line(err) and "holds no games" in err, err
    shutil.rmtree(out / "games.parquet")
    for damaged in ({"games": 3, "bots": 7}, summary | {"seats": []}):  # the second: 1 / 0
        (out / "summary.json").write_text(json.dumps(damaged))
        status, _, err = run(capsys, "report", out)
        assert status == 2 and one_line(err) and "is not what barbaron play writes" in err, err


def test_replay_of_a_deeply_nested_file_is_one_line(tmp_path, capsys):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000 + "]" * 100000)
    status, _, err = run(capsys, "replay", deep)
    assert status == 2 and one_line(err) and str(deep) in err


def test_a_plugin_that_exits_on_import_is_one_line(tmp_path, capsys):
    plugin = tmp_path / "exits.py"
    plugin.write_text("import sys\nsys.exit(3)\n")
    status, _, err = run(capsys, "play", "--bots", f"{plugin}:Bot", "easy", "--out", tmp_path / "e")
    assert status == 2 and one_line(err) and "SystemExit" in err


def test_bench_refuses_sizes_that_cannot_finish(capsys):
    status, _, err = run(capsys, "bench", "--games", str(10**12))
    assert status == 2 and one_line(err) and "--games must be from 1 to" in err


def test_a_plugin_whose_constructor_fails_is_one_line(tmp_path, capsys):
    plugin = tmp_path / "broken.py"
    plugin.write_text(
        "from barbaron.strategy import Strategy\n"
        "class Broken(Strategy):\n"
        "    def __init__(self):\n"
        "        raise RuntimeError('no config file')\n"
    )
    status, _, err = run(
        capsys, "play", "--bots", f"{plugin}:Broken", "easy", "--out", tmp_path / "b"
    )
    assert status == 2 and one_line(err) and "Broken() raised RuntimeError: no config file" in err


@pytest.mark.parametrize(
    "body, status, words",
    [
        ("return np.ones(games.size + 1, dtype=bool)", 1, "illegal decision: "),  # one too many
        ("raise KeyError('oops')", 1, "a strategy failed: "),
    ],
)
def test_a_plugin_failing_while_it_plays_is_one_line(tmp_path, capsys, body, status, words):
    """An answer the contract does not allow, or an exception, while it plays is a failed run
    (1): units may have been kept (a bad spec, refused before anything is built, is 2)."""
    plugin = tmp_path / "fails.py"
    plugin.write_text(
        "import numpy as np\nfrom barbaron.strategy import Strategy\n"
        f"class Fails(Strategy):\n    def buy(self, view, games, bars):\n        {body}\n"
    )
    argv = ["play", "--bots", f"{plugin}:Fails", "easy", "--quiet", "--out", tmp_path / "f"]
    got, _, err = run(capsys, *argv)
    assert got == status and one_line(err) and words in err, err


# --- second round of probes ------------------------------------------------------------------
def test_an_out_named_like_a_partial_or_a_lock_is_refused(tmp_path, capsys):
    for name in ("C.partial", ".C.lock"):
        status, _, err = run(capsys, *PLAY, "--out", tmp_path / name)
        assert status == 2 and one_line(err) and "barbaron's own" in err


@pytest.mark.parametrize("damage", ["another unit's shard", "another unit's tally", "mid-file"])
def test_resume_replays_units_whose_files_are_not_their_own(
    tmp_path, capsys, monkeypatch, reference, damage
):
    out = tmp_path / "d"
    argv = [*PLAY, "--out", out, "--workers", "1"]
    interrupted(tmp_path, capsys, argv, monkeypatch)
    partial = Path(f"{out}.partial")
    games, tallies = partial / "games.parquet", partial / "tallies"
    if damage == "another unit's shard":
        (games / "unit-0000001.parquet").write_bytes((games / "unit-0000002.parquet").read_bytes())
    elif damage == "another unit's tally":
        (tallies / "unit-0000001.npz").write_bytes((tallies / "unit-0000002.npz").read_bytes())
    else:
        path = games / "unit-0000001.parquet"
        data = bytearray(path.read_bytes())
        third = len(data) // 3
        data[third : 2 * third] = bytes(255 - b for b in data[third : 2 * third])
        path.write_bytes(bytes(data))
    status, _, err = run(capsys, *argv, "--resume")
    assert status == 0, err
    assert pd.read_parquet(out / "games.parquet").equals(reference)


def test_force_keeps_a_users_tmp_file_and_lock_file(tmp_path, capsys):
    out = tmp_path / "r"
    assert run(capsys, *PLAY, "--out", out, "--workers", "1")[0] == 0
    (out / "important.tmp").write_text("notes")
    status, _, err = run(capsys, *PLAY, "--out", out, "--force")
    assert status == 2 and "'important.tmp', which barbaron did not write" in err
    lock = tmp_path / ".mine.lock"
    lock.write_text("my data")
    status, _, err = run(capsys, *PLAY, "--out", tmp_path / "mine")
    assert status == 2 and "not barbaron's lock file" in err and lock.read_text() == "my data"


def test_more_than_127_lineups_in_one_run(tmp_path, capsys):
    argv = ["seats", "--bots", "miser", "--players", "2", "--games", "2", "--bonus", "0:640:5"]
    status, _, err = run(capsys, *argv, "--workers", "1", "--quiet", "--out", tmp_path / "s")
    assert status == 0, err
    assert pd.read_parquet(tmp_path / "s" / "games.parquet")["arm"].nunique() == 129


ROGUE = """
import numpy as np
from barbaron.strategy import ScalarStrategy, Strategy

class Cheat(Strategy):
    def buy(self, view, games, bars):
        view.coins.setflags(write=True)
        return np.ones(games.size, dtype=bool)

class Huge(ScalarStrategy):
    def buy_one(self, game, bar):
        return True

    def upgrade_one(self, game):
        return 10**30

class BadRepr(Strategy):
    def __repr__(self):
        raise RuntimeError("no repr")

    def buy(self, view, games, bars):
        raise RuntimeError("first line\\nsecond line")
"""


@pytest.mark.parametrize(
    "bot, status, words",
    [
        ("Cheat", 1, "ValueError"),
        ("Huge", 1, "answered 1000000000000000000000000000000; it must answer None or a bar"),
        ("BadRepr", 1, "at once: first line second line"),
    ],
)
def test_rogue_plugins_cannot_change_a_game_and_fail_in_one_line(
    tmp_path, capsys, bot, status, words
):
    plugin = tmp_path / "rogue.py"
    plugin.write_text(ROGUE)
    argv = ["play", "--bots", f"{plugin}:{bot}", "greedy", "--games", "200", "--workers", "1"]
    got, _, err = run(capsys, *argv, "--start-coins", "5000", "--quiet", "--out", tmp_path / "g")
    assert got == status and one_line(err) and words in err, err


def test_resume_refuses_a_class_of_main_whose_code_changed(tmp_path, monkeypatch):
    """A class of __main__ was recorded as 'unreadable' on both sides, and a resume after its
    code changed mixed two bots in one result (QA). A script's class is known by the script's
    text (helpers and defaults included); one typed into a session, whose source Python cannot
    find, cannot be resumed."""
    import types

    script = tmp_path / "study.py"

    def run_script(cushion: int, *, file: bool = True) -> None:  # a fresh process running it
        script.write_text(
            "import numpy as np\nfrom barbaron.strategy import Strategy\n\n"
            f"CUSHION = {cushion}\n\n"
            "class Buyer(Strategy):\n"
            "    def buy(self, view, games, bars):\n"
            "        return view.coins[games, view.seat] >= CUSHION\n"
        )
        main = types.ModuleType("__main__")
        if file:
            main.__file__ = str(script)
        exec(compile(script.read_text(), "<session>", "exec"), main.__dict__)
        main.Buyer.__module__ = "__main__"
        monkeypatch.setitem(sys.modules, "__main__", main)

    out, args = tmp_path / "n", {"games": 2000, "seed": 1, "batch_size": 250}
    bots = ["__main__:Buyer", "normal"]
    run_script(200)
    with monkeypatch.context() as stop:
        ctrl_c_after_unit(stop, 2)
        with pytest.raises(RunInterrupted):
            api.play(bots, out=out, **args)
    run_script(500)  # only a module-level constant changed
    with pytest.raises(UsageError, match="the code of the class __main__:Buyer has changed"):
        api.play(bots, out=out, resume=True, **args)
    run_script(200, file=False)
    with pytest.raises(UsageError, match="__main__:Buyer cannot be read to tell whether"):
        api.play(bots, out=out, resume=True, **args)
    run_script(200)  # the script as it was, run again
    resumed = api.play(bots, out=out, resume=True, **args)
    assert resumed.summary == api.play(bots, **args).summary


def test_replay_of_a_run_refuses_a_changed_plugin(tmp_path, capsys, monkeypatch):
    """And one it cannot read says so (a relative path, from another folder), not "changed"."""
    monkeypatch.chdir(tmp_path.parent)
    plugin = Path(tmp_path.name) / "mine.py"
    plugin.write_text(PLUGIN.format(cushion=100))
    out = tmp_path / "p"
    argv = [*PLAY, "--out", out, "--workers", "1"]
    argv[2] = f"{plugin}:Mine"
    assert run(capsys, *argv)[0] == 0
    replay = ["replay", "--run", out, "--game", "3", "--check"]
    assert run(capsys, *replay)[0] == 0
    plugin.write_text(PLUGIN.format(cushion=300))
    status, _, err = run(capsys, *replay)
    assert status == 2 and one_line(err) and f"the file {plugin} has changed" in err, err
    # the deal with the file as it is now: the seeded replay, ready to paste (QA: left out)
    seeded = err.partition("(its deal with the files as they are now: ")[2].rstrip(")\n")
    assert seeded.startswith("barbaron replay --seed ") and f"{plugin}:Mine" in seeded, err
    assert run(capsys, *shlex.split(seeded)[1:])[0] == 0
    plugin.write_text(PLUGIN.format(cushion=100))
    monkeypatch.chdir(tmp_path)
    status, _, err = run(capsys, *replay)
    assert status == 2 and one_line(err), err
    where = f"{plugin} cannot be read from {tmp_path} (run this from {tmp_path.parent}, where"
    assert where in err, err
    # its seeded replay goes there first: its relative paths read from here failed too (QA)
    seeded = err.partition("(its deal with the files as they are now: ")[2].rstrip(")\n")
    assert seeded.startswith(f"cd {shlex.quote(str(tmp_path.parent))} && barbaron replay "), err
    monkeypatch.chdir(tmp_path.parent)  # where it was played, the plugin deleted (review: "run
    plugin.unlink()  # this from the folder where it was played", from that folder)
    status, _, err = run(capsys, *replay)
    assert status == 2 and f"the file {plugin}, read when it was played, is gone" in err, err


def test_replay_checks_only_the_plugins_of_the_arm_it_replays(tmp_path, capsys, monkeypatch):
    """A compare of a plugin against normal: its base arm's games were refused as 'the file
    mine.py is gone' (QA). And a module plugin that cannot be imported is named as a module,
    with the way out, not as a file to read from another folder."""
    plugin = tmp_path / "mine.py"
    plugin.write_text(PLUGIN.format(cushion=100))
    out = tmp_path / "c"
    argv = ["compare", f"{plugin}:Mine", "normal", "--max-games", "400", "--workers", "1"]
    assert run(capsys, *argv, "--quiet", "--out", out)[0] == 0
    for arm in ("base", "new"):
        replay = ["replay", "--run", out, "--arm", arm, "--game", "3", "--check"]
        assert run(capsys, *replay)[0] == 0, arm
    replay_refused_once_mine_is_gone(tmp_path, capsys, monkeypatch, "mine:Mine", games=40)


def replay_refused_once_mine_is_gone(tmp_path, capsys, monkeypatch, spec: str, games: int):
    """Play ``spec`` (using the module mine in ``tmp_path``) against easy, then replay a game
    with mine no longer on the import path: refused, naming the module."""
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "m"
    assert run(capsys, "play", "--bots", spec, "easy", "--games", str(games), "--quiet",
               "--workers", "1", "--out", out)[0] == 0  # fmt: skip
    monkeypatch.undo()
    monkeypatch.delitem(sys.modules, "mine")
    status, _, err = run(capsys, "replay", "--run", out, "--game", "3")
    assert status == 2 and one_line(err), err
    assert "the module mine cannot be imported here (put its folder on PYTHONPATH" in err, err


def test_a_replay_from_another_folder_says_where_a_relative_weights_file_was_read(
    tmp_path, capsys, monkeypatch
):
    """A run's value:weights=w.json (a path relative to where it was played) said "is gone"
    when replayed from another folder, though the file was still there (QA)."""
    import shutil

    played, elsewhere = tmp_path / "played", tmp_path / "elsewhere"
    played.mkdir()
    elsewhere.mkdir()
    shutil.copy(
        Path(__file__).resolve().parents[1] / "bots" / "value_weights.json", played / "w.json"
    )
    monkeypatch.chdir(played)
    argv = ["play", "--bots", "value:weights=w.json", "greedy", "--games", "4", "--quiet"]
    assert run(capsys, *argv, "--workers", "1", "--out", played / "r")[0] == 0
    monkeypatch.chdir(elsewhere)
    status, _, err = run(capsys, "replay", "--run", played / "r", "--game", "1")
    assert status == 2 and one_line(err), err
    assert (
        f"the file w.json is not in {elsewhere}: deleted since, or it was played in {played} "
        "(run this from there)" in err
    ), err
    monkeypatch.chdir(played)
    assert run(capsys, "replay", "--run", played / "r", "--game", "1")[0] == 0
    (played / "w.json").unlink()  # deleted where it was played: no other folder to name (review)
    status, _, err = run(capsys, "replay", "--run", played / "r", "--game", "1")
    assert status == 2 and "the file w.json, read when it was played, is gone" in err, err


def test_a_replay_names_a_weights_file_or_nested_module_gone_since_the_run(
    tmp_path, capsys, monkeypatch
):
    """A weights file deleted since the run surfaced as the bot's own 'not found', and a
    plugin nested in mc's parameters that no longer imports as a file 'gone' (QA): each is
    named as what it is, and the compare's other arm still replays."""
    import shutil

    weights = tmp_path / "w.json"
    shutil.copy(Path(__file__).resolve().parents[1] / "bots" / "value_weights.json", weights)
    out = tmp_path / "c"
    argv = ["compare", f"value:weights={weights}", "greedy", "--field", "easy"]
    assert run(capsys, *argv, "--max-games", "8", "--quiet", "--out", out)[0] == 0
    weights.unlink()
    status, _, err = run(capsys, "replay", "--run", out, "--arm", "new", "--game", "3")
    assert status == 2 and one_line(err), err
    assert f"the file {weights}, read when it was played, is gone" in err, err
    assert run(capsys, "replay", "--run", out, "--arm", "base", "--game", "3")[0] == 0
    (tmp_path / "mine.py").write_text(PLUGIN.format(cushion=100))
    nested = "mc:own=mine:Mine,rollouts=2,upgrades=1"
    replay_refused_once_mine_is_gone(tmp_path, capsys, monkeypatch, nested, games=4)


@pytest.mark.parametrize("delay", [0.0, 0.15, 0.4])
def test_ctrl_c_to_the_whole_run_while_helpers_start_is_one_line(tmp_path, delay):
    """A terminal's Ctrl-C reaches every process of the run; a helper still importing must not
    print its own traceback, and the run ends as an interrupt with a resumable folder."""
    out = tmp_path / "c"
    argv = ["play", "--bots", "normal", "normal", "--games", "4000000", "--workers", "2"]
    proc = cli(*argv, "--quiet", "--out", out, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        children = ""
        while not children and time.monotonic() < deadline and proc.poll() is None:
            children = subprocess.run(
                ["pgrep", "-P", str(proc.pid)], capture_output=True, text=True
            ).stdout
            time.sleep(0.005)
        assert children, "the run started no helper"
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGINT)
        status = proc.wait(timeout=30)
        err = proc.stderr.read()
        assert status == 130 and one_line(err), err
    finally:  # a failed test leaves no run behind
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


STUCK = """
import os, time
from pathlib import Path
from barbaron.strategy import Strategy

class Stuck(Strategy):
    def buy(self, view, games, bars):
        Path(os.environ["STUCK_MARK"]).touch()
        while True:
            time.sleep(0.01)
"""


def test_a_second_ctrl_c_stops_a_strategy_that_never_returns(tmp_path):
    """Ctrl-C during a run is taken at the next turn slot; a strategy that never returns never
    gets there, so a second Ctrl-C interrupts at once: one line, exit 130, no hang."""
    plugin = tmp_path / "stuck.py"
    plugin.write_text(STUCK)
    mark = tmp_path / "stuck.mark"
    argv = ["play", "--bots", f"{plugin}:Stuck", "easy", "--games", "1000", "--workers", "1"]
    proc = cli(*argv, "--quiet", "--out", tmp_path / "s", env={"STUCK_MARK": str(mark)})
    try:
        deadline = time.monotonic() + 60
        while not mark.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert mark.exists(), "the bot was never asked to buy"
        for _ in range(2):
            proc.send_signal(signal.SIGINT)
            time.sleep(0.3)
        status = proc.wait(timeout=30)
        err = proc.stderr.read()
        assert status == 130 and one_line(err), err
    finally:  # a failed test leaves no run behind
        proc.kill()


def _playing_children(pid: int) -> list[int]:
    """The child processes of ``pid`` that run ``barbaron play ... --games N``: games, not the
    start-up's usage errors, which end in a tenth of a second (review)."""
    found = []
    with contextlib.suppress(OSError):
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            with contextlib.suppress(OSError):
                line = Path(f"/proc/{child}/cmdline").read_bytes()
                if b"\0play\0" in line and b"\0--games\0" in line:
                    found.append(int(child))
    return found


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
def test_bench_stopped_by_sigterm_stops_the_command_it_times():
    bench = cli("bench", "--end-to-end", "--scale", "0.05")
    deadline = time.monotonic() + 60
    while not (timed := _playing_children(bench.pid)) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert timed, "bench started no barbaron play"
    bench.send_signal(signal.SIGTERM)
    assert bench.wait(timeout=60) == 130
    for pid in timed:  # the timed command ended with it (it played on, alone, to its end)
        assert not Path(f"/proc/{pid}").exists() or "zombie" in _status(pid)


def _status(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/status").read_text().lower()
    return "zombie"


def test_force_keeps_the_old_results_whole_until_the_new_are_in_place(
    tmp_path, capsys, monkeypatch
):
    """--force deleted the old folder, then moved the new one in: killed in between, neither
    was usable and no command could go on (QA). Now the old one is moved aside whole first."""
    out = tmp_path / "r"
    argv = ["play", "--bots", "easy", "hard", "--games", "40", "--quiet", "--workers", "1"]
    assert run(capsys, *argv, "--out", out)[0] == 0
    old = (out / "summary.json").read_text()
    real = os.replace

    def fails_moving_the_new_in(src, dst):
        if str(src).endswith(".partial"):
            raise OSError(28, "No space left on device")  # as if killed there
        return real(src, dst)

    monkeypatch.setattr("barbaron.results.os.replace", fails_moving_the_new_in)
    status, _, err = run(capsys, *argv, "--seed", "2", "--out", out, "--force")
    assert status == 1 and one_line(err)
    aside = tmp_path / ".r.replaced"
    assert (aside / "summary.json").read_text() == old  # the old results, whole
    monkeypatch.setattr("barbaron.results.os.replace", real)
    status, _, err = run(capsys, *argv, "--seed", "2", "--out", out, "--resume", "--force")
    assert status == 0, err
    assert json.loads((out / "summary.json").read_text()) != json.loads(old)
    assert not aside.exists()


def test_ctrl_c_as_a_finished_run_tidies_up_says_the_results_are_complete(
    tmp_path, capsys, ctrl_c_as_it_tidies_up
):
    """A Ctrl-C once the folder had been moved into place said 'interrupted before any game
    finished; nothing was written' beside complete results (QA). It now says where they are."""
    out = tmp_path / "done"
    status, _, err = run(capsys, *PLAY, "--workers", "1", "--out", out)
    assert status == 130 and one_line(err), err
    assert f"after the run was complete: its results are in {out}" in err
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
    assert not (tmp_path / "done.partial").exists()
    assert not list(tmp_path.glob("*.lock"))


def test_a_signal_as_the_run_returns_says_the_results_are_complete(tmp_path, capsys, monkeypatch):
    """SIGTERM in the run's last moments, once its folder was complete, said only 'error:
    interrupted' (QA): a researcher then tried --resume on complete results."""
    from barbaron import runs

    real = runs.Run.finish

    def finish_then_signal(self, *args, **kwargs):
        result = real(self, *args, **kwargs)
        os.kill(os.getpid(), signal.SIGTERM)  # noted while deferred, raised as the call ends
        return result

    monkeypatch.setattr(runs.Run, "finish", finish_then_signal)
    out = tmp_path / "done"
    status, _, err = run(capsys, *PLAY, "--workers", "1", "--out", out)
    assert status == 130 and one_line(err), err
    assert f"after the run was complete: its results are in {out}" in err
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"

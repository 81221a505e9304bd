"""Results folders: written as a run goes, finished atomically, resumable after Ctrl-C.

A run writes into ``OUT.partial/``: ``manifest.json`` (status "partial"), and per finished unit of
work a Parquet file of its rows in ``games.parquet/`` (a Parquet dataset: one table that pandas,
pyarrow and DuckDB read as a whole) and a tally file in ``tallies/``. Finishing writes
``summary.json``, ``summary.csv`` and the plots, marks the manifest "complete", renames the folder
to ``OUT`` and drops the tallies. An interrupted run leaves ``OUT.partial/``, which ``--resume``
continues.
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import csv
import dataclasses
import fcntl
import functools
import hashlib
import importlib.util
import json
import math
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from barbaron import __version__
from barbaron.config import COMMAND_LINE, RULES_OPTIONS, STUDY_FILE, option_text
from barbaron.errors import RunFailed, StartedOtherwise, UsageError
from barbaron.harness import ArmRows, ArmTally, Job, UnitResult, play_unit
from barbaron.plugins import plugin_change, plugin_hashes


class ResultsError(RuntimeError):
    """The results folder cannot be used as asked (exists, partial, mismatched)."""


class OutChanged(ResultsError):
    """--out got files that are not barbaron's while the games played: the complete results
    stay in OUT.partial (its message says so; nothing is to resume)."""


class NotMoved(ResultsError):
    """The complete results could not be moved from OUT.partial to OUT (a folder made
    read-only meanwhile): its message says where they are and how to put them in place."""


class PluginChanged(ResultsError):
    """A file a bot spec loads (a plugin, a weights file) changed while the games played: a
    unit played after the change played the other version, so the run is not one bot's games
    (its message says so; a resume would refuse the changed file)."""


def job_record(job: Job) -> dict:
    """The job as JSON: everything needed to play it again."""
    return {
        "arms": [
            # the rules as the manifest reads them back (seat coins: a list, not a tuple)
            {
                "label": a.label,
                "bots": list(a.bots),
                "rules": a.rules.record(),
            }
            for a in job.arms
        ],
        "games": job.games,
        "seed": job.seed,
        "rotate": job.rotate,
        "rotations": job.rotations,
        "deals": job.deals,
    }


def job_difference(then: object, now: dict) -> str:
    """The first thing in which a recorded job (:func:`job_record`) differs from ``now``, in
    command-line words: ``"--seed 3 (now 4)"``."""
    unread = "another job (its manifest.json records none this version reads)"
    arms = then.get("arms") if isinstance(then, dict) else None
    if not isinstance(arms, list) or not all(isinstance(a, dict) for a in arms):
        return unread
    if [a.get("label") for a in arms] != [a["label"] for a in now["arms"]]:
        return "other lineups or points"
    for old, new in zip(arms, now["arms"], strict=True):
        where = f" in {new['label']}" if len(now["arms"]) > 1 else ""
        if old.get("bots") != new["bots"]:
            bots = " ".join(map(str, old.get("bots") or []))
            return f"the bots {bots}{where} (now {' '.join(new['bots'])})"
        rules = old.get("rules")
        if not isinstance(rules, dict):
            return unread
        # seat coins first: they set start coins and seat bonus too
        for key, value in sorted(new["rules"].items(), key=lambda kv: kv[0] != "seat_coins"):
            if rules.get(key) != value:
                name = RULES_OPTIONS.get(key, key)  # (players: its number of bots)
                return f"{name} {option_text(rules.get(key))}{where} (now {option_text(value)})"
    if then.get("rotate") != now["rotate"]:
        return "--no-rotate" if now["rotate"] else "every rotation (no --no-rotate)"
    if then.get("games") != now["games"]:  # --games, or compare's --max-games
        return f"{then.get('games')} games per lineup (now {now['games']})"
    if then.get("seed") != now["seed"]:
        return f"--seed {then.get('seed')} (now {now['seed']})"
    return "another job (see the differences in its manifest.json)"


def _git_commit() -> str | None:
    try:
        here = Path(__file__).resolve().parent
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5
        )
        return done.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def write_json(path: Path, data: object) -> str:
    """Write strict JSON atomically (temporary file, then rename), and return the text: a
    number that is not finite (an interval of one deal, a rating of -inf) is written as null,
    since JSON has no NaN or Infinity and strict readers (JavaScript's ``JSON.parse``, DuckDB)
    refuse Python's."""
    text = json.dumps(strict_json(data), indent=2, allow_nan=False, default=jsonable) + "\n"
    with written(path) as tmp:
        tmp.write_text(text)
    return text


_STAGED: contextvars.ContextVar[list[tuple[Path, Path]] | None] = contextvars.ContextVar(
    "staged", default=None
)  # the (temporary file, path) renames a staged() block still owes


@contextlib.contextmanager
def staged() -> Iterator[None]:
    """Every file :func:`written` inside the block (in this thread) is renamed into place as
    the block ends, together: a failure while they are written (a full disk at the third
    table) removes them all and leaves the files of before as they were. The renames need no
    space; one refused (a folder in the way) removes the files not renamed yet. Not nested."""
    pending: list[tuple[Path, Path]] = []
    token = _STAGED.set(pending)
    try:
        yield
    except BaseException:
        for tmp, _ in pending:
            tmp.unlink(missing_ok=True)
        raise
    finally:
        _STAGED.reset(token)
    for i, (tmp, path) in enumerate(pending):
        try:
            os.replace(tmp, path)
        except OSError as e:
            for rest, _ in pending[i:]:
                rest.unlink(missing_ok=True)
            raise ResultsError(f"cannot write {path}: {e.strerror or e}") from None


@contextlib.contextmanager
def written(path: Path, tmp: Path | None = None) -> Iterator[Path]:
    """Write ``path`` through a temporary file that is renamed into place when the block ends
    (or, inside :func:`staged`, when that block ends); on any failure the temporary file is
    removed and an OS error names the path. A symlink stays one: its target is written."""
    if path.is_symlink():  # (the temporary file beside the target: a rename cannot cross disks)
        path = Path(os.path.realpath(path))
    tmp = path.with_name(tmp.name if tmp else path.name + ".tmp")
    pending = _STAGED.get()
    try:
        yield tmp
        if pending is None:
            os.replace(tmp, path)
        elif (tmp, path) not in pending:
            pending.append((tmp, path))
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise ResultsError(f"cannot write {path}: {e.strerror or e}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def strict_json(value: object) -> object:
    """``value`` with every float that is not finite replaced by None, in dicts, lists, tuples
    and arrays at any depth."""
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: strict_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [strict_json(v) for v in value]
    if isinstance(value, np.ndarray):
        return strict_json(value.tolist())
    return value


def jsonable(value: object) -> object:
    """What ``json.dumps`` cannot write by itself: numpy integers, written as integers."""
    if isinstance(value, np.integer):
        return int(value)
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


GAMES = "games.parquet"  # the folder of per-unit Parquet files: one table of every game
TALLIES = "tallies"  # per-unit exact tallies, kept while the run is partial


def shard_path(shards: Path, unit: int) -> Path:
    """Where unit ``unit``'s rows are written."""
    return shards / f"unit-{unit:07d}.parquet"


def _column(values: np.ndarray) -> pa.Array:
    """A numpy array as an Arrow array, sharing its memory. (``pa.array`` would import pandas
    to check for pandas objects, which costs every worker a quarter of a second.)"""
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(
        pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)]
    )


def _labels(codes: np.ndarray, names: list[str]) -> pa.DictionaryArray:
    """A dictionary-encoded string column: ``names[codes[i]]`` per row."""
    encoded = [name.encode() for name in names]
    offsets = np.cumsum([0, *map(len, encoded)], dtype=np.int32)
    dictionary = pa.Array.from_buffers(
        pa.string(), len(names), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    )
    return pa.DictionaryArray.from_arrays(_column(codes), dictionary)


def rows_table(job: Job, rows: list[ArmRows]) -> pa.Table:
    """The games.parquet rows of one unit (all arms), as an Arrow table."""
    tables = []
    labels = [a.label for a in job.arms]
    for arm_index, (arm, arm_rows) in enumerate(zip(job.arms, rows, strict=True)):
        n = len(arm_rows.game)
        columns = {}
        if len(job.arms) > 1:
            codes = np.full(n, arm_index, dtype=np.int8 if len(labels) <= 127 else np.int16)
            columns["arm"] = _labels(codes, labels)
        for field in dataclasses.fields(ArmRows):
            values = getattr(arm_rows, field.name)
            columns[field.name] = (
                _labels(values, list(arm.distinct_bots)) if field.name == "bot" else _column(values)
            )
        tables.append(pa.table(columns))
    return pa.concat_tables(tables)


DICTIONARY_COLUMNS = ("arm", "bot", "coins", "worth", "win_share", "bars")  # write_shard's


def write_shard(job: Job, result: UnitResult, path: Path) -> None:
    """Write a unit's rows to ``path`` atomically, compressed (in the worker that played it:
    nothing is joined at the end). Game and deal numbers rise steadily: delta-encoded; the
    few values of the labels and of the results (a dictionary page, then small indices) make
    a third less to compress than plain values do, and it takes less time."""
    table = rows_table(job, result.rows)
    encoding = {"game": "DELTA_BINARY_PACKED", "deal": "DELTA_BINARY_PACKED"}
    dictionary = [name for name in DICTIONARY_COLUMNS if name in table.column_names]
    with written(path, path.with_suffix(".tmp")) as tmp:
        pq.write_table(
            table,
            tmp,
            compression="zstd",
            use_dictionary=dictionary,
            column_encoding=encoding,
            write_statistics=False,
        )


def play_and_write(
    job: Job, unit: int, strategies: dict | None = None, *, shards: Path
) -> UnitResult:
    """Play a unit and write its shard in the worker; return only what the parent needs."""
    result = play_unit(job, unit, strategies)
    write_shard(job, result, shard_path(shards, unit))
    result.rows = []
    return result


MANIFEST_KEYS = ("status", "command", "job", "barbaron")  # what makes a manifest barbaron's
OWN_NAMES = {
    "manifest.json",
    GAMES,
    "summary.json",
    "summary.csv",
    TALLIES,
    STUDY_FILE,
    STUDY_FILE + "-journal",
}
OWN_FOLDERS = {GAMES, TALLIES}  # games.parquet was a single file before barbaron 0.2
PLOT_NAMES = {  # the PNGs barbaron's commands draw (report draws them into a --no-plots folder)
    f"{name}.png"
    for name in (
        "win_shares seats worth compare sprt seat_bonus seat_coins sweep ratings calibration "
        "history"
    ).split()
}
MAX_PENDING_WRITES = 2  # units the writer may hold before add() waits: bounds their memory
NAME_MAX = 255  # the longest file name most file systems take
_SHARD = re.compile(r"unit-(\d{7})(\.parquet|\.npz|\.tmp|\.tmp\.npz)")
_TEMPORARY = re.compile(r"(manifest\.json|summary\.json|summary\.csv)\.tmp|\.[\w.-]+\.tmp\.png")


def read_manifest(folder: Path) -> dict:
    """A results folder's manifest, checked to be an object with barbaron's own keys."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError, RecursionError) as e:
        raise ResultsError(f"{folder} has no readable manifest.json ({e})") from None
    if not isinstance(manifest, dict) or not all(key in manifest for key in MANIFEST_KEYS):
        raise ResultsError(
            f"{folder}/manifest.json is not a barbaron manifest (an object with "
            f"{', '.join(MANIFEST_KEYS)})"
        )
    return manifest


def _has_manifest(folder: Path) -> bool:
    """Whether ``folder`` holds a barbaron manifest: a results folder, or an interrupted one."""
    try:
        if not (folder / "manifest.json").is_file():  # (a pipe of that name would never end)
            return False
        read_manifest(folder)
    except (OSError, ResultsError):
        return False
    return True


def foreign_content(folder: Path) -> str:
    """'' if ``folder`` is a results folder barbaron wrote (a barbaron manifest and nothing
    barbaron did not write), else what says it is not."""
    if folder.is_symlink() or not folder.is_dir():
        return "it is not a folder"
    try:
        manifest = read_manifest(folder)
    except ResultsError:
        return "it has no barbaron manifest.json"
    listed = manifest.get("files")
    for entry in folder.iterdir():
        name = entry.name
        ours = (
            name in OWN_NAMES
            or _TEMPORARY.fullmatch(name)
            or name in PLOT_NAMES
            or (name in listed if isinstance(listed, list) else name.endswith(".png"))
        )
        if not ours or entry.is_symlink() or (entry.is_dir() and name not in OWN_FOLDERS):
            return f"it holds {name!r}, which barbaron did not write"
    for inner in OWN_FOLDERS:
        if (folder / inner).is_dir():
            for entry in (folder / inner).iterdir():
                if entry.is_symlink() or not entry.is_file() or not _SHARD.fullmatch(entry.name):
                    return f"its {inner}/ holds {entry.name!r}, which barbaron did not write"
    return ""


class FolderLock:
    """An exclusive lock on a results folder's name for a whole run: ``.OUT.lock`` beside it,
    so that two runs never write one folder (or its .partial) at once."""

    def __init__(self, out: Path) -> None:
        self.path = out.with_name(f".{out.name}.lock")
        for _ in range(10):  # a run that just ended may remove the file between open and lock
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o644)
            except OSError as e:
                raise ResultsError(
                    f"--out {out}: cannot create its lock file {self.path}: {e.strerror or e}"
                ) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise ResultsError(
                    f"{out} is being written by another barbaron run (it holds {self.path}); "
                    "wait for it to end or choose another --out"
                ) from None
            if os.fstat(fd).st_size:  # barbaron's lock files are empty: this one is not ours
                os.close(fd)
                raise ResultsError(
                    f"{self.path} is not barbaron's lock file (it is not empty): move it away or "
                    "choose another --out"
                )
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                self.fd: int | None = fd
                return
            os.close(fd)
        raise ResultsError(f"cannot lock {self.path}: it keeps changing")

    def release(self) -> None:
        """Remove the lock file and unlock (in that order: no other run locks a stale file). A
        lock file that cannot be removed (its folder made read-only meanwhile) stays, unlocked,
        as a killed run's does, for the next run to take: the error that ended the run is the one
        to say (QA: "cannot move x.partial" was hidden behind "x.lock: Operation not permitted")."""
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)
        os.close(self.fd)
        self.fd = None


def job_plugin_hashes(job: Job) -> dict[str, str]:
    """:func:`plugin_hashes` of every spec of every lineup of ``job``: what its manifest records,
    a resume and its end check."""
    return plugin_hashes([spec for arm in job.arms for spec in arm.bots])


@functools.cache
def code_hash() -> str:
    """A hash of barbaron's own source (the package and its bots): what the games depend on."""
    digest = hashlib.sha256()
    bots = importlib.util.find_spec("barbaron.bots").submodule_search_locations
    for root in (Path(__file__).parent, *map(Path, bots)):
        for path in sorted([*root.rglob("*.py"), *root.rglob("*.json")]):  # bots' weights too
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def home_expanded(path: Path, option: str = "--out") -> Path:
    """``path`` with a leading "~" or "~user" expanded, as a shell would; a UsageError for a
    user with no home folder."""
    try:
        return path.expanduser()
    except RuntimeError:  # pathlib: "Could not determine home directory"
        raise UsageError(f"{option} {str(path)!r}: no home folder for {path.parts[0]!r}") from None


def _target(out: str | Path) -> tuple[Path, Path]:
    """The results folder ``out`` and its partial folder, checked to be names barbaron can use."""
    folder = home_expanded(Path(out)).resolve()  # (and "a/.." never names a parent to replace)
    if folder.parent == folder or not folder.name:
        raise ResultsError(f"--out {out!r} names no folder to create")
    if folder.name.endswith(".partial") or folder.name.endswith(".lock"):
        raise ResultsError(
            f"--out {folder.name!r}: names ending in .partial or .lock are barbaron's own "
            "(an interrupted run, a run's lock); choose another name"
        )
    if len(os.fsencode(folder.name)) + len(".partial") > NAME_MAX:
        raise ResultsError(
            f"--out name {folder.name[:40]!r}... is too long: at most "
            f"{NAME_MAX - len('.partial')} bytes (barbaron adds .partial while it writes)"
        )
    return folder, folder.with_name(folder.name + ".partial")


def _check_existing(out: Path, partial: Path, *, force: bool, resume: bool) -> None:
    """Refuse what is already at ``out`` and ``partial`` unless --force or --resume allows it
    (and never someone else's files). Both together continue a run started with --force
    beside an earlier one, which it replaces once it is complete."""
    for parent in out.parents:  # its own files there would make it no longer barbaron's (QA)
        if _has_manifest(parent):
            raise ResultsError(
                f"--out {out} lies inside the results folder {parent}: choose a folder "
                "outside it (a results folder holds only what barbaron wrote there)"
            )
    interrupted = (partial.exists() or partial.is_symlink()) and not never_started(partial)
    if interrupted and (why := foreign_content(partial)):
        raise ResultsError(
            f"{partial} is not an interrupted barbaron run ({why}): move it away "
            "or choose another --out"
        )
    if out.is_dir() and not out.is_symlink() and _holds_the_current_folder(out):
        raise ResultsError(  # (its folder is put in place whole: the shell's would be gone, QA)
            f"--out {out} is the current folder or holds it: choose another --out"
        )
    if (out.exists() or out.is_symlink()) and not _empty_folder(out):  # (an empty one is used)
        why = foreign_content(out)
        if why:  # (it said "add --force", which then refused it: QA)
            raise ResultsError(
                f"{out} exists and is not a barbaron results folder ({why}): choose another "
                "--out (--force replaces only barbaron's results folders)"
            )
        if resume and not interrupted:
            again = "drop --resume to play it again" if force else "--force plays it again"
            raise ResultsError(f"{out} is complete: nothing to resume ({again})")
        if not force and resume:
            raise ResultsError(
                f"{out} exists and {partial} holds an interrupted run that replaces it: "
                "resume with --force too (the same command as it was started with)"
            )
        if not force:
            raise ResultsError(f"{out} exists: choose another --out or add --force to replace it")
    if interrupted:
        if not (resume or force):
            raise ResultsError(
                f"{partial} holds an interrupted run: add --resume to continue it or --force to "
                "start over"
            )
    elif resume:
        why = "holds no unit (a run killed as it started)" if partial.exists() else "does not exist"
        raise ResultsError(f"nothing to resume: {partial} {why}; start afresh without --resume")


OPTION_OF_SETTING = {"params": "--param"}  # a setting recorded under another name


def _setting(value: object) -> str:
    """A recorded setting as its option is written (a tuning's search space as NAME=LOW:HIGH),
    short enough for a one-line message."""
    if isinstance(value, list) and all(isinstance(p, dict) and "name" in p for p in value):
        text = " ".join(f"{p['name']}={p.get('low')}:{p.get('high')}" for p in value)
    else:
        text = json.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= 80 else text[:77] + "..."


def _holds_the_current_folder(path: Path) -> bool:
    """Whether ``path`` is the current folder or one of its parents."""
    try:
        here, there = Path.cwd().resolve(), path.resolve()
    except OSError:  # (no current folder at all)
        return False
    return there == here or there in here.parents


def never_started(partial: Path) -> bool:
    """Whether ``partial`` is a folder a run made and was killed in before its first manifest
    was in place: no manifest.json, nothing but barbaron's empty folders and a temporary
    manifest (QA: such a folder was refused as not barbaron's, with or without --force)."""
    try:
        if partial.is_symlink() or not partial.is_dir() or (partial / "manifest.json").exists():
            return False
        for entry in partial.iterdir():
            if entry.is_symlink():
                return False
            empty_inner = entry.name in OWN_FOLDERS and entry.is_dir() and not any(entry.iterdir())
            half_manifest = entry.name == "manifest.json.tmp" and entry.is_file()
            if not (empty_inner or half_manifest):  # (a folder of that name: not ours, review)
                return False
    except OSError:
        return False
    return True


def remove_run(folder: Path, *, ignore_errors: bool = False) -> None:
    """Remove a run's folder, its manifest last: a kill half-way leaves a folder that is still
    barbaron's, to resume or replace (QA: --force killed as it removed an interrupted run left
    its shards without their manifest, refused from then on)."""
    if folder.is_dir() and not folder.is_symlink():
        for entry in folder.iterdir():
            if entry.name != "manifest.json":
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=ignore_errors)
                else:
                    with contextlib.suppress(*((OSError,) if ignore_errors else ())):
                        entry.unlink()
    shutil.rmtree(folder, ignore_errors=ignore_errors)


def _empty_folder(path: Path) -> bool:
    """Whether ``path`` is a folder (not a link) holding nothing: no results to keep."""
    try:
        return path.is_dir() and not path.is_symlink() and not any(path.iterdir())
    except OSError:
        return False


def check_target(out: str | Path, *, force: bool = False, resume: bool = False) -> None:
    """What opening a results folder at ``out`` would refuse, checked before any game is played
    (for a command that works a long time before it opens its folder): a bad name, a folder
    there without --force, files that are not barbaron's, an interrupted run without --resume,
    nothing to resume. Whether the run matches the one to resume is checked when it opens."""
    _check_existing(*_target(out), force=force, resume=resume)


class RunFolder:
    """The folder of one run: create or resume it, add units, finish it. It holds the folder's
    lock from creation to :meth:`finish` or :meth:`close`."""

    def __init__(
        self,
        out: str | Path,
        job: Job,
        command: str,
        *,
        force: bool = False,
        resume: bool = False,
        settings: dict | None = None,
    ) -> None:
        """``settings``: what else decides the run's results besides its job (the SPRT's
        bounds, a tuning's search), recorded in the manifest and checked on --resume."""
        self.out, self.partial = _target(out)
        self.job, self.command = job, command
        self.settings = None if settings is None else json.loads(json.dumps(strict_json(settings)))
        self.record = job_record(job)
        self._done: set[int] = set()  # units written completely (added to by the writer thread)
        self._writer: ThreadPoolExecutor | None = None  # writes added units in the background
        self._writes: collections.deque[Future] = collections.deque()  # its pending writes
        self._write_error: BaseException | None = None  # a failed write not raised yet
        self.replayed = 0  # units of an interrupted run that were unreadable and are played again
        self.complete = False  # the finished results are in place at out
        self.manifest_text: str | None = None  # the finished manifest.json, as written
        made = self._made = self._make_parents()
        self._lock = FolderLock(self.out)
        fresh = False  # the partial folder is this run's own, to remove on a failure here
        try:
            self.manifest = self._prepare(force, resume)
            fresh = not resume
            try:  # the manifest first: a run killed from then on left a folder of barbaron's
                self.partial.mkdir(exist_ok=True)
                write_json(self.partial / "manifest.json", self.manifest)
                for inner in OWN_FOLDERS:
                    (self.partial / inner).mkdir(exist_ok=True)
            except (OSError, ResultsError) as e:  # a full disk: no usage error (exit 1)
                what = (
                    str(e)
                    if isinstance(e, ResultsError)
                    else f"cannot create {e.filename or self.partial}: {e.strerror or e}"
                )
                kept = "; the interrupted run is kept" if resume else "; nothing was written"
                raise RunFailed(f"{what}{kept}") from None
        except BaseException:
            if fresh:  # (a half-made folder would be refused as not barbaron's)
                remove_run(self.partial, ignore_errors=True)
            self._lock.release()  # (after: no other run sees the half-made folder)
            for folder in made:
                with contextlib.suppress(OSError):
                    folder.rmdir()
            raise

    def _make_parents(self) -> list[Path]:
        """Create the missing parent folders of --out; return them, deepest first."""
        missing = [p for p in self.out.parents if not p.exists()]
        try:
            self.out.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):  # a file where a folder must be
            blocking = next(
                (p for p in reversed(self.out.parents) if p.is_symlink() or not p.is_dir()),
                self.out.parent,
            )
            raise ResultsError(
                f"--out {self.out}: {blocking} is a file, not a folder; choose another --out"
            ) from None
        except OSError as e:
            raise ResultsError(f"cannot create {self.out.parent}: {e.strerror or e}") from None
        return missing

    def _prepare(self, force: bool, resume: bool) -> dict:
        """Check what is already there against --force and --resume; the manifest to write."""
        _check_existing(self.out, self.partial, force=force, resume=resume)
        if self.partial.exists() or self.partial.is_symlink():
            if resume:
                manifest = self._resumable(force)
                self._done = set(self._valid_units())
                manifest["workers"] = min(self.job.workers, self.job.units)  # (this call's)
                return manifest
            remove_run(self.partial)  # --force, checked to be barbaron's (or never started)
        job = self.job
        return {
            "status": "partial",
            "command": self.command,
            "argv": COMMAND_LINE.get(),  # (a notebook's sys.argv would name its kernel)
            "job": self.record,
            "workers": min(job.workers, job.units),
            "backend": job.backend,
            "batch_size": job.batch_size,
            "barbaron": __version__,
            "git_commit": _git_commit(),
            "code": code_hash(),
            "plugins": job_plugin_hashes(job),
            "python": sys.version.split()[0],
            "host": socket.gethostname(),
            "cwd": os.getcwd(),  # where relative plugin and weights paths were read
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "settings": self.settings,
        }

    def _resumable(self, force: bool) -> dict:
        """The interrupted run's manifest, if this very command may continue it."""
        # (QA: "use --force instead of --resume" to a command that has --force already)
        over = f"{'drop --resume' if force else 'use --force instead of --resume'} to start over"
        if foreign_content(self.partial):
            raise ResultsError(
                f"cannot resume {self.partial}: {foreign_content(self.partial)}; {over}"
            )
        manifest = read_manifest(self.partial)
        if manifest.get("job") != self.record:
            raise StartedOtherwise(
                f"cannot resume {self.partial}: it was started with "
                f"{job_difference(manifest.get('job'), self.record)}; repeat its command "
                f"exactly (see its manifest.json) or {over}"
            )
        if manifest.get("batch_size") != self.job.batch_size:
            raise StartedOtherwise(
                f"cannot resume {self.partial}: it used --batch-size "
                f"{manifest.get('batch_size')}; resume with the same"
            )
        then, now = manifest.get("settings"), self.settings
        if then != now:
            then_keys = list(then) if isinstance(then, dict) else []
            key = next(  # (a setting given then and not now: "now none")
                (
                    k
                    for k in [*(now or {}), *then_keys]
                    if not isinstance(then, dict) or then.get(k) != (now or {}).get(k)
                ),
                None,
            )
            if key:  # as the option is written, then and now (e.g. --trials 12 (now 40))
                option = OPTION_OF_SETTING.get(key, "--" + key.replace("_", "-"))
                before, after = (then or {}).get(key), (now or {}).get(key)
                if before is None:  # (not "--target null": QA)
                    what = f"no {option} (now {option} {_setting(after)})"
                elif after is None:
                    what = f"{option} {_setting(before)} (now none)"
                else:
                    what = f"{option} {_setting(before)} (now {_setting(after)})"
            else:
                what = "other settings"
            raise StartedOtherwise(
                f"cannot resume {self.partial}: it was started with {what} (see its "
                f"manifest.json); repeat its command exactly or {over}"
            )
        now = {"barbaron": __version__, "git_commit": _git_commit(), "code": code_hash()}
        for key, value in now.items():
            if manifest.get(key) != value:
                raise ResultsError(
                    f"cannot resume {self.partial}: barbaron has changed since it started "
                    f"({key} {str(manifest.get(key))[:12]} then, {str(value)[:12]} now), so its "
                    f"games would mix two versions; {over}"
                )
        what = plugin_change(
            manifest.get("plugins"), job_plugin_hashes(self.job), "it started", manifest.get("cwd")
        )
        if what is not None:  # its games would mix two strategies
            raise ResultsError(f"cannot resume {self.partial}: {what}; {over}")
        return manifest

    # --- units --------------------------------------------------------------------------
    def _shard(self, unit: int) -> Path:
        return shard_path(self.partial / GAMES, unit)

    def _tally(self, unit: int) -> Path:
        return self.partial / TALLIES / f"unit-{unit:07d}.npz"

    def _expected_rows(self, unit: int) -> int:
        job = self.job
        return len(job.unit_deals(unit)) * job.rotations * job.players * len(job.arms)

    def _valid_units(self) -> list[int]:
        """Units of the interrupted run whose shard and tally are complete and readable; the
        others (and stray temporary files) are removed, to be played again."""
        valid = []
        for inner in OWN_FOLDERS:
            (self.partial / inner).mkdir(exist_ok=True)
            for entry in (self.partial / inner).iterdir():
                match = _SHARD.fullmatch(entry.name)
                if match is not None and ".tmp" in match.group(2):
                    entry.unlink()  # a temporary file of a write that did not finish
        for entry in sorted((self.partial / TALLIES).iterdir()):
            match = _SHARD.fullmatch(entry.name)
            if match is None or match.group(2) != ".npz":
                continue
            unit = int(match.group(1))
            if unit < self.job.units and self._unit_ok(unit):
                valid.append(unit)
            else:
                self.replayed += 1
                self._shard(unit).unlink(missing_ok=True)
                entry.unlink()
        return valid

    def _unit_ok(self, unit: int) -> bool:
        """Are the unit's tally and shard complete, readable, and this unit's own?"""
        try:
            with np.load(self._tally(unit), allow_pickle=False) as data:
                if int(data["unit"]) != unit:
                    return False
            tallies = self.load_tallies(unit)
            deals = self.job.unit_deals(unit)
            players = self.job.players
            if any(t.position_share.shape != (len(deals), players) for t in tallies):
                return False
            rows = pq.ParquetFile(self._shard(unit)).read()  # every page: damage shows here
            dealt = rows.column("deal").to_numpy()
            return rows.num_rows == self._expected_rows(unit) and bool(
                dealt.min() == deals[0] and dealt.max() == deals[-1]
            )
        except Exception:  # unreadable in any way: play it again
            return False

    def done_units(self) -> list[int]:
        """Units whose shard and tally were both written completely."""
        self._settle(raise_errors=False)
        return sorted(self._done)

    def drop(self, units: list[int]) -> None:
        """Forget finished units (their files too): they are played again, or not part of the
        result (past an early stop)."""
        self._settle(raise_errors=False)
        for unit in units:
            self._done.discard(unit)
            self._tally(unit).unlink(missing_ok=True)
            self._shard(unit).unlink(missing_ok=True)

    def load_tallies(self, unit: int) -> list[ArmTally]:
        """The tallies of a finished unit (for a resumed run's summary)."""
        with np.load(self._tally(unit), allow_pickle=False) as data:
            return [
                ArmTally(**{f.name: data[f"{i}.{f.name}"] for f in dataclasses.fields(ArmTally)})
                for i in range(len(self.job.arms))
            ]

    def add(self, result: UnitResult) -> None:
        """Record a finished unit: its rows as a Parquet shard (unless its worker wrote it
        already), then its tallies, each atomically; the tally file marks the unit done. The
        writing happens on a background thread, so that the run's own process plays its next
        unit meanwhile (Arrow and zstd write without the GIL); a failed write is raised by a
        later call of :meth:`add` (once the writes behind it are due) or by :meth:`finish`."""
        self._settle(raise_errors=True, keep=MAX_PENDING_WRITES - 1)
        if self._writer is None:
            self._writer = ThreadPoolExecutor(1, thread_name_prefix="barbaron-writer")
        self._writes.append(self._writer.submit(self._write_unit, result))

    def _write_unit(self, result: UnitResult) -> None:
        if result.rows:
            write_shard(self.job, result, self._shard(result.unit))
        arrays = {
            f"{i}.{f.name}": getattr(t, f.name)
            for i, t in enumerate(result.tallies)
            for f in dataclasses.fields(ArmTally)
        }
        arrays["unit"] = np.int64(result.unit)  # so that a tally copied to another name is found
        tally = self._tally(result.unit)
        with written(tally, tally.with_name(f"unit-{result.unit:07d}.tmp.npz")) as tmp:
            np.savez(tmp, **arrays)
        self._done.add(result.unit)

    def _settle(self, *, raise_errors: bool, keep: int = 0) -> None:
        """Wait until at most ``keep`` writes are pending; with ``raise_errors``, raise the
        first write that failed (once), else keep it for the next call that raises."""
        while len(self._writes) > keep:
            error = self._writes[0].exception()  # waits (a Ctrl-C here keeps it pending)
            self._writes.popleft()
            self._write_error = self._write_error or error
        if raise_errors and self._write_error is not None:
            error, self._write_error = self._write_error, None
            raise error

    def unit_task(self) -> Callable[..., UnitResult]:
        """What a worker runs per unit: on this machine it also writes its own shard (the
        parent only adds tallies); on a dask cluster the rows come back to be written here."""
        if self.job.backend == "dask":
            return play_unit
        return functools.partial(play_and_write, shards=self.partial / GAMES)

    def own_task(self) -> Callable[..., UnitResult]:
        """What the run's own process runs per unit: play it and keep the rows, which
        :meth:`add` writes while the next unit plays."""
        return play_unit

    def shard_files(self) -> list[Path]:
        """The Parquet shards of the finished units, in unit order."""
        return [self._shard(u) for u in self.done_units()]

    # --- the end ------------------------------------------------------------------------
    def finish(
        self,
        summary: dict,
        table: list[dict],
        plots: list[tuple[str, object]],
        *,
        seconds: float,
        games_played: int,
    ) -> Path:
        """Write summary.json, ``table`` as summary.csv, and the plots, then move the folder
        into place. ``seconds`` and ``games_played`` are this session's."""
        self._settle(raise_errors=True)
        then = self.manifest.get("plugins") or {}
        now = job_plugin_hashes(self.job)
        if now != then:  # (a session's class unreadable at the start is so at the end too)
            changed = plugin_change(then, now, "the run started", self.manifest.get("cwd"))
            raise PluginChanged(
                f"{changed}: units played after that played the other version, so the games "
                f"in {self.partial} are not one bot's; play them again with --force"
            )
        kept = set(self.shard_files())
        for entry in (self.partial / GAMES).iterdir():
            if entry not in kept:  # a unit played past an early stop, or a half-written one
                entry.unlink()
        if not kept:  # a command that keeps no games (tune): no empty table
            (self.partial / GAMES).rmdir()
        write_json(self.partial / "summary.json", summary)
        _write_csv(self.partial / "summary.csv", table)
        for name, figure in plots:
            with written(self.partial / name, self.partial / f".{name}.tmp.png") as tmp:
                figure.savefig(tmp, dpi=110, bbox_inches="tight", format="png")
        self.manifest.update(
            {
                "status": "complete",
                "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "seconds": round(seconds, 3),
                "games_per_second": round(games_played / max(seconds, 1e-9)),
                "files": sorted(
                    {"manifest.json"} | {e.name for e in self.partial.iterdir()} - {TALLIES}
                ),
            }
        )
        self.manifest_text = write_json(self.partial / "manifest.json", self.manifest)
        try:
            # the old results (only with --force, checked to be barbaron's) are moved aside
            # whole and removed once the new are in place: a run killed in between leaves them
            # beside a complete partial, which --resume --force moves in
            replaced = self.out.with_name(f".{self.out.name}.replaced")
            if _empty_folder(self.out):
                self.out.rmdir()  # (fails, keeping all, if something was put there meanwhile)
            elif self.out.exists() or self.out.is_symlink():
                if why := foreign_content(self.out):  # put there while the games played
                    raise OutChanged(
                        f"{self.out} changed while the games played ({why}): the results are "
                        f"complete in {self.partial}; move that folder where you want them"
                    )
                if replaced.exists():
                    shutil.rmtree(replaced)
                os.replace(self.out, replaced)
            os.replace(self.partial, self.out)
        except OSError as e:  # (QA: it said "finished units are kept ... manifest says partial")
            raise NotMoved(
                f"cannot move {self.partial} to {self.out}: {e.strerror or e}; the results are "
                f"complete in {self.partial}: the same command with --resume puts them in place "
                "(or move that folder yourself)"
            ) from None
        self.complete = True
        # tidying up: anything left (a read-only folder) is barbaron's and harmless, and goes
        # when --force replaces the folder
        shutil.rmtree(replaced, ignore_errors=True)
        shutil.rmtree(self.out / TALLIES, ignore_errors=True)
        self.close()
        return self.out

    def close(self) -> None:
        """Finish the pending writes and let go of the folder's lock (a finished or failed
        run)."""
        self._settle(raise_errors=False)
        if self._writer is not None:
            self._writer.shutdown()
        self._lock.release()

    def discard(self) -> None:
        """Remove the partial folder, and the folders made for it, of a run that kept nothing."""
        self._settle(raise_errors=False)
        remove_run(self.partial, ignore_errors=True)
        for folder in self._made:
            with contextlib.suppress(OSError):
                folder.rmdir()


class InMemory:
    """Where a run without a results folder keeps its games: in memory, as Arrow tables."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self._tables: list[pa.Table] = []

    def done_units(self) -> list[int]:
        """None: a run in memory starts from nothing."""
        return []

    def drop(self, units: list[int]) -> None:
        """Nothing to forget."""

    def add(self, result: UnitResult) -> None:
        """Keep a finished unit's rows."""
        self._tables.append(rows_table(self.job, result.rows))

    def unit_task(self) -> Callable[..., UnitResult]:
        """What a worker runs per unit: play it and send the rows back."""
        return play_unit

    own_task = unit_task

    def close(self) -> None:
        """Nothing to let go of."""

    def table(self) -> pa.Table:
        """Every game played, one row per game and seat, in unit order."""
        return pa.concat_tables(self._tables)


def flat_rows(rows: list[dict]) -> list[dict]:
    """Table rows with each interval ``X_ci`` as two columns ``X_ci_low``, ``X_ci_high`` and
    nested values left out: what summary.csv and the results' DataFrames hold."""
    flat = []
    for row in rows:
        out = {}
        for key, value in row.items():
            if key.endswith("_ci"):  # (None: no interval, two empty cells)
                out[f"{key}_low"], out[f"{key}_high"] = (None, None) if value is None else value
            elif not isinstance(value, dict | list):
                out[key] = value
        flat.append(out)
    return flat


def _write_csv(path: Path, rows: list[dict]) -> None:
    """summary.csv: the command's main table, one row per line, intervals as two columns
    (written as pandas writes a DataFrame of the rows: missing and NaN values empty)."""
    flat = flat_rows(rows)
    columns = list(dict.fromkeys(key for row in flat for key in row))

    def cell(value: object) -> object:
        return "" if value is None or (isinstance(value, float) and math.isnan(value)) else value

    with written(path) as tmp, open(tmp, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([cell(row.get(key)) for key in columns] for row in flat)

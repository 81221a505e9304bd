"""Helpers the study scripts share: run a barbaron library function once, reuse its folder."""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import math
import os
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from barbaron.errors import RunFailed, RunInterrupted, StartedOtherwise, UsageError
from barbaron.results import home_expanded, jsonable, strict_json, write_json, written
from barbaron.runs import RESUME_ADVICE

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

ROOT = Path(__file__).resolve().parents[1]


COMPLETE: ContextVar[Path | None] = ContextVar("COMPLETE", default=None)  # a study's results
# folder once its tables are all in place (a Ctrl-C after that says they are complete)
RECORD = "arguments.json"  # in a finished sub-run's folder: what played it, compared on reuse
BOT_ARGUMENTS = ("bots", "bot", "new", "base", "field", "gauntlet")  # an api function's bot specs
STUDY_MARK = ".barbaron-study"  # in a study's results folder: which study writes there
CREATED: list[Path] = []  # folders this process created for its output, the outermost first
USED: list[Path] = []  # the sub-run folders this process played or reused, in order
STUDY_RESUME_ADVICE = "run the same study command again (without --force) to continue"
QUIET: ContextVar[bool] = ContextVar("QUIET", default=True)  # sub-runs without progress bars
# (a study's --quiet: see add_quiet)
FORCED: ContextVar[float | None] = ContextVar("FORCED", default=None)  # when the study's folder
# was claimed by a --force run (this one or an interrupted one it continues): the sub-runs there
# of other arguments, or finished before it, are what that run replaces, played again


def run(
    function: Callable,
    out: Path,
    *,
    workers: int,
    force: bool = False,
    quiet: bool | None = None,
    record: dict | None = None,
    **arguments: object,
) -> dict:
    """``function(**arguments)`` (a ``barbaron.api`` function) into the results folder ``out``;
    its summary.json. An interrupted run (``OUT.partial``) is continued unless ``force``; a
    finished one is reused when its arguments.json holds the same ``record`` (the function and
    its arguments, updated with ``record``), and one played otherwise stops the study with one
    line unless ``force`` plays it again. Keys of arguments.json beyond the record are notes
    (say, a ``provenance``); its manifest.json says how long the run took. A sub-run in the
    study's ``runs/`` folder (kept out of git) writes no PNGs: ``barbaron report`` draws them.
    In a study continuing a --force run (:data:`FORCED`), one of other arguments, finished or
    interrupted, or one finished before that run began, is played again as that run would
    have."""
    with _record_lock(out):
        return _run(
            function, out, workers=workers, force=force, quiet=quiet, record=record, **arguments
        )


@contextlib.contextmanager
def _record_lock(out: Path) -> Iterator[None]:
    """One run of a study at a time on a sub-run's record, the pending one beside its folder
    included: a second run on the same folder must not take or remove the first's (review: the
    first then failed at its end, its results left without a record)."""
    from barbaron.results import FolderLock, ResultsError

    _created(out.parent, "--out")  # (what it creates goes again if the study keeps nothing)
    try:
        lock = FolderLock(out.with_name(f"{out.name}.record"))
    except ResultsError as e:
        raise UsageError(str(e)) from None
    try:
        yield
    finally:
        lock.release()


def _run(
    function: Callable,
    out: Path,
    *,
    workers: int,
    force: bool,
    quiet: bool | None,
    record: dict | None,
    **arguments: object,
) -> dict:
    """:func:`run`, its sub-run's record locked."""
    quiet = QUIET.get() if quiet is None else quiet
    extra = record  # (as given: a replay of an interrupted sub-run takes it again)
    # the bots resolved to their parameters now: a name alone ("normal") would reuse games of
    # a Homie whose defaults have changed since (QA); a caller's own "resolved" (seat
    # compensation's list, as its committed folders hold it) stands, not built again
    if "resolved" not in (record or {}):
        bots = {k: arguments[k] for k in BOT_ARGUMENTS if arguments.get(k) is not None}
        record = {"resolved": {k: _resolved_all(v) for k, v in bots.items()}} | (record or {})
    record = as_json({"function": function.__name__, **arguments} | record)
    USED.append(out)
    partial = out.with_name(out.name + ".partial")
    pending = out.with_name(f".{out.name}.{RECORD}")  # the record of a sub-run under way
    _adopt_pending(out, pending)
    done = (out / "summary.json").exists()
    resume = not force and partial.exists()
    forced_since = FORCED.get()
    if done and not force and not resume:
        had = recorded(out)
        if _matches(had, record):
            if forced_since is None or (out / "summary.json").stat().st_mtime >= forced_since:
                return _reused(out)
            print(f">>> {out} was played before the --force run: it plays it again", flush=True)
            force = True
        elif forced_since is None:
            raise UsageError(
                f"{out} was played with {difference(had, record)}: remove that folder to play "
                "it alone again, or give --force (plays every sub-run of the study again) or "
                "another --out"
            )
        else:
            print(f">>> {out} was played with {difference(had, record)}: the --force run "
                  "plays it again", flush=True)  # fmt: skip
            force = True
    shown = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
    verb = "continuing " if resume else ""
    print(f">>> {verb}api.{function.__name__}({shown}, out={str(out)!r})", flush=True)
    before, old = _manifest(out), recorded(out)
    write_json(pending, record)  # (beside it: the run moves its folder into place, and the
    # process can be killed before the record is put in: QA)
    (out / RECORD).unlink(missing_ok=True)  # --force replaces a folder of barbaron's files only
    try:
        function(
            **arguments,
            out=out,
            workers=workers,
            force=force or out.exists(),  # (a continued run replaces what it was to replace)
            resume=resume,
            progress=not quiet,
            plots=out.parent.name != "runs",  # (RUNS: no PNGs nobody keeps; report draws them)
        )
    except BaseException as e:
        if _manifest(out) != before:  # stopped once the new results were in place
            write_json(out / RECORD, record)
        elif old is not None:  # the old results stay: so does their record
            write_json(out / RECORD, old)
        pending.unlink(missing_ok=True)
        if isinstance(e, RunInterrupted | RunFailed):  # this script, not barbaron's, is to rerun
            line = str(e).replace(RESUME_ADVICE, STUDY_RESUME_ADVICE)
            if "nothing was written" in line:  # (of this sub-run: the finished ones are kept)
                line = f"{line} for {out}"
                if any((used / "summary.json").exists() for used in USED[:-1]):
                    line += "; the study's finished sub-runs are kept"
            if "after the run was complete" in line:  # the sub-run is; the study's tables not
                line = f"{line}; the study's tables are not written yet"
            if STUDY_RESUME_ADVICE not in line and isinstance(e, RunInterrupted):
                line = f"{line}: {STUDY_RESUME_ADVICE}"
            raise type(e)(line) from None
        if resume and isinstance(e, StartedOtherwise):  # (not: another run holds the folder,
            # barbaron changed, a plugin changed: QA and review)
            if done and _matches(old, record):  # and the finished one these: it stands
                return _reused(out, f"; {partial} (other arguments, interrupted) is left")
            if forced_since is not None:  # what the --force run replaces
                USED.pop()
                print(f">>> not continued: {partial} was interrupted with other arguments; "
                      "the --force run plays it again", flush=True)  # fmt: skip
                return _run(function, out, workers=workers, force=True, quiet=quiet,
                            record=extra, **arguments)  # fmt: skip
            raise UsageError(
                f"{partial} holds a sub-run interrupted with other arguments: run the study "
                "with those to finish it, or give --force to start afresh"
            ) from None
        raise
    write_json(out / RECORD, record)
    pending.unlink(missing_ok=True)  # (it serves a process killed before the line above)
    return json.loads((out / "summary.json").read_text())


def _adopt_pending(out: Path, pending: Path) -> None:
    """Put a sub-run's pending record in its folder where the run finished after the record
    was written (killed between its last rename and :func:`run`'s: QA, it was refused as
    played with arguments it does not record); a pending record of a run that did not finish
    goes."""
    summary = out / "summary.json"
    if not pending.exists():
        return
    if (
        not (out / RECORD).exists()
        and summary.exists()
        and summary.stat().st_mtime_ns >= pending.stat().st_mtime_ns
    ):
        os.replace(pending, out / RECORD)
    else:
        pending.unlink(missing_ok=True)


def resolved(spec: str) -> str:
    """A bot spec with every parameter spelled out, and what the bot rests on: each bot it
    holds (the dial's two ends, mc's ``own`` and ``playout``), resolved in turn, and a digest
    of each array it holds (learned weights, a default file's too). A name alone would reuse
    games of a bot changed since: a Homie's defaults, Hard inside mc, retrained weights."""
    from barbaron.registry import make_bot

    return _resolved_bot(make_bot(spec), ())


def _slot_names(cls: type) -> tuple[str, ...]:
    """A class's own ``__slots__`` (one name may be given as a string: review)."""
    slots = vars(cls).get("__slots__", ())
    return (slots,) if isinstance(slots, str) else tuple(slots)


def _resolved_bot(bot: object, outer: tuple[int, ...]) -> str:
    """:func:`resolved` of a bot made; ``outer``: the bots that hold it (none is resolved twice
    on one path: a plugin's bot that holds its holder)."""
    import hashlib

    import numpy as np

    from barbaron.strategy import Strategy

    text = repr(bot)
    slots = [
        f"_{k.__name__.lstrip('_')}{n}" if n.startswith("__") and not n.endswith("__") else n
        for k in type(bot).__mro__
        for n in _slot_names(k)
        if n != "__dict__"
    ]  # (review: private names, which Python mangles)
    names = [*getattr(bot, "__dict__", {}), *dict.fromkeys(slots)]
    for name in names:
        value = getattr(bot, name, None)
        if isinstance(value, Strategy) and id(value) not in outer:
            text += f" [{name}: {_resolved_bot(value, (*outer, id(bot)))}]"
        elif isinstance(value, np.ndarray) and value.ndim > 0 and value.dtype != object:
            digest = hashlib.sha256(f"{value.dtype.str}{value.shape}".encode())
            digest.update(np.ascontiguousarray(value).tobytes())  # (an object array's bytes
            text += f" [{name}: sha256 {digest.hexdigest()[:16]}]"  # are addresses: skipped)
    return text


def _resolved_all(bots: object) -> object:
    """A spec or a list of specs, resolved (:func:`resolved`); anything else as it is, for the
    api function's own error."""
    if isinstance(bots, str):
        return resolved(bots)
    if isinstance(bots, list | tuple) and all(isinstance(b, str) for b in bots):
        return [resolved(b) for b in bots]
    return bots


def _matches(had: dict | None, record: dict) -> bool:
    """Whether a sub-run's arguments.json records ``record`` (its other keys are notes)."""
    return had is not None and {key: had.get(key) for key in record} == record


def _reused(out: Path, note: str = "") -> dict:
    """The summary of the finished sub-run ``out``, said to be reused."""
    print(f">>> reusing {out} (played earlier; --force plays it again){note}", flush=True)
    return json.loads((out / "summary.json").read_text())


def as_json(value: object) -> object:
    """``value`` as arguments.json holds it (tuples as lists, numpy numbers as numbers)."""
    return json.loads(json.dumps(strict_json(value), default=jsonable))


def _manifest(out: Path) -> str | None:
    """The text of ``out``'s manifest.json (None without one): what tells one run from another."""
    try:
        return (out / "manifest.json").read_text()
    except OSError:
        return None


def recorded(out: Path) -> dict | None:
    """The arguments.json of the sub-run folder ``out``, None when there is none to read."""
    try:
        had = json.loads((out / RECORD).read_text())
    except (OSError, ValueError):
        return None
    return had if isinstance(had, dict) else None


def difference(had: dict | None, now: dict) -> str:
    """The first argument in which a recorded sub-run differs from ``now``, as a phrase."""
    if had is None:
        return f"arguments it does not record (no readable {RECORD})"
    key = next(k for k in {**now, **had} if k not in had or k not in now or had[k] != now[k])
    if key == "resolved" and key not in had:  # (a sub-run of an earlier version)
        return (
            "no record of its bots' parameters (played before they were recorded: its games "
            "may be of a bot's older defaults)"
        )
    if key == "resolved":  # which bot, not every bot's parameters (one line)
        then, later = _flat(had[key]), _flat(now[key])
        changed = next(((a, b) for a, b in zip(then, later, strict=False) if a != b), None)
        if changed is not None and len(then) == len(later):
            own = changed[0].partition(" [")[0] != changed[1].partition(" [")[0]
            why = "its defaults have changed" if own else "a bot or weights it holds have changed"
            if not own and " [" not in changed[0]:  # (review: a record of before 3 December)
                why = "recorded before the bots and weights a bot holds were: play it again"
            return f"a bot then {changed[0]!r} (now {changed[1]!r}: {why})"
    return f"{key}={_shown(had, key)} (now {_shown(now, key)})"


def _flat(resolved_bots: object) -> list:
    """The resolved specs of a record, in order (a list, or lists by argument)."""
    if isinstance(resolved_bots, dict):
        return [
            spec for v in resolved_bots.values() for spec in (v if isinstance(v, list) else [v])
        ]
    return list(resolved_bots) if isinstance(resolved_bots, list) else [resolved_bots]


def _shown(arguments: dict, key: str) -> str:
    """The value of ``key`` in ``arguments`` as a phrase (QA: one recorded only as null
    raised StopIteration)."""
    return repr(arguments[key]) if key in arguments else "not given"


def out_folder(
    path: Path,
    option: str = "--out",
    *,
    study: str | None = None,
    force: bool = False,
    arguments: dict | None = None,
    adding: bool = False,
) -> Path:
    """The study's results folder ``path``, created; a name that cannot be one is refused in
    one line (a file in its way, no permission) before any game is played. "~" is expanded
    as a shell would (also in ``--out=~/x``, which a shell leaves as it is). With ``study``,
    the folder is claimed for it, played with ``arguments``, or ``adding`` to its results
    (:func:`claim`)."""
    path = _created(home_expanded(path, option), option)
    if study is not None:
        claim(path, study, option, force, arguments, adding)
    return path


def claim(
    path: Path,
    study: str,
    option: str = "--out",
    force: bool = False,
    arguments: dict | None = None,
    adding: bool = False,
) -> None:
    """Mark ``path`` as ``study``'s results folder, played with ``arguments`` (those the
    results depend on: not --workers, --out or --quiet). Where it holds results (files other
    than hidden ones), refused in one line unless ``force``: results of another study, or of
    no study (QA: a user's curve.csv and summary.json were lost); this study's of other
    ``arguments`` (QA: a quick look with --games 400 replaced the committed results), or of
    arguments not recorded (a damaged mark; a folder from before the records, unless no
    ``arguments`` are given). A --force run records its arguments at once, and when it began
    (:data:`FORCED`), so that the same command without --force continues it. A run ``adding``
    to the results as they are (homie_ladder --tune) is refused, even with ``force``, where
    they are not complete results of its ``arguments``, and changes no mark (QA)."""
    mark = path / STUDY_MARK
    arguments = None if arguments is None else as_json(arguments)
    try:
        marked = json.loads(mark.read_text())
    except FileNotFoundError:
        marked = None
    except (OSError, ValueError):
        marked = "damaged"
    if marked is not None and not (
        isinstance(marked, dict) and isinstance(marked.get("study"), str)
    ):
        marked = "damaged"
    ours = isinstance(marked, dict) and marked["study"] == study
    same = ours and (arguments is None or marked.get("arguments") == arguments)
    forced = marked.get("forced") if ours else None
    forced = forced if isinstance(forced, float) else None
    holds_results = any(
        p.is_file() and not p.name.startswith(".") for p in path.rglob("*")
    )  # (QA: an empty runs/ left by a Ctrl-C was taken for results)
    if adding:
        if holds_results and (not same or forced is not None):
            had = marked.get("arguments") if ours else None
            why = "its results are not this study's, or their arguments are not recorded"
            if same:
                why = "a --force run there was interrupted"
            elif isinstance(had, dict) and arguments is not None:
                why = f"its results were played with {difference(had, arguments)}"
            raise UsageError(
                f"{option} {path} holds no complete results of these arguments to add to "
                f"({why}): run the study there without --tune first"
            )
        FORCED.set(None)
        return
    if same and not force:
        FORCED.set(forced)
        return
    problem = None
    if holds_results and not same:
        problem = _claim_problem(path, study, marked, arguments, option, forced is not None)
    if problem is not None and not force:
        raise UsageError(f"{option} {path} {problem}")
    record = {"study": study} | ({} if arguments is None else {"arguments": arguments})
    if force:
        record["forced"] = time.time()  # (sub-runs finished before it are played again)
    try:
        mark.write_text(json.dumps(record) + "\n")
    except OSError as e:
        raise UsageError(f"{option}: cannot write in {path}: {e.strerror or e}") from None
    FORCED.set(record.get("forced"))


def _claim_problem(
    path: Path,
    study: str,
    marked: object,
    arguments: dict | None,
    option: str,
    forced: bool = False,
) -> str | None:
    """Why ``study`` may not write its results of ``arguments`` into ``path``, which holds
    results and is marked ``marked`` (a mark's JSON, "damaged" or None; ``forced`` by an
    interrupted --force run of this study), as the end of a sentence; None when it may."""
    if marked == "damaged":
        return (
            f"has a damaged {STUDY_MARK} mark: give another {option}, or --force to write this "
            "study's results there"
        )
    if marked is None and not _unmarked_results_of(path, study):
        return (
            "holds files no study wrote: give a new or empty folder, or --force to write this "
            "study's files into it"
        )
    if marked is not None and marked["study"] != study:
        return (
            f"holds the results of another study ({marked['study']}): give another {option}, or "
            "--force to write this one's there"
        )
    had = None if marked is None else marked.get("arguments")
    if arguments is None:
        return None
    if isinstance(had, dict) and forced:
        return (
            f"is being replaced by a --force run of this study, interrupted, with "
            f"{difference(had, arguments)}: run that command again (without --force) to "
            f"finish it, or give --force to replace them with these"
        )
    if not isinstance(had, dict):
        return (
            "holds this study's results of arguments it does not record (written before they "
            f"were, or a damaged mark): give another {option} for this run, or --force to "
            "replace them"
        )
    return (
        f"holds this study's results played with {difference(had, arguments)}: give "
        f"another {option} for this run, or --force to replace them"
    )


def _unmarked_results_of(path: Path, study: str) -> bool:
    """Whether ``path`` holds results ``study`` wrote before folders were marked: its
    summary.json names the study's command, or it holds sub-runs (arguments.json, :func:`run`)
    whose reuse a --force would throw away (QA)."""
    try:
        command = json.loads((path / "summary.json").read_text()).get("command", "")
    except (OSError, ValueError, AttributeError):
        command = ""
    if _script_of(command) == study:
        return True
    return (
        any(path.glob(RECORD)) or any(path.glob(f"*/{RECORD}")) or any(path.glob(f"*/*/{RECORD}"))
    )


def _script_of(command: object) -> str | None:
    """The script a recorded command line ran (``python -m experiments.NAME ...``), or None."""
    words = command.split() if isinstance(command, str) else []
    if len(words) < 3 or words[:2] != ["python", "-m"]:
        return None
    module = words[2].rstrip(":")
    return module.removeprefix("experiments.") if module.startswith("experiments.") else None


def _created(path: Path, option: str) -> Path:
    """``path``, a folder, created (see :func:`out_folder`); the outermost folder it had to
    create is noted, for :func:`remove_unused`."""
    missing = next((p for p in reversed([path, *path.parents]) if not p.exists()), None)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise UsageError(f"{option} {path}: a file stands in the way; give a folder") from None
    except OSError as e:
        raise UsageError(f"{option}: cannot create {path}: {e.strerror or e}") from None
    if not os.access(path, os.W_OK):
        raise UsageError(f"{option}: cannot write in {path} (no permission)")
    if missing is not None and not any(missing.is_relative_to(top) for top in CREATED):
        CREATED.append(missing)  # (one inside a folder noted already goes with it)
    return path


def remove_unused() -> None:
    """Remove the output folders this process created that hold nothing but a study's mark: a
    study refused for bad input, or stopped before it kept anything, leaves nothing behind (QA:
    an empty --out folder was left)."""
    for top in CREATED:
        files = [p for p in top.rglob("*") if not p.is_dir()]
        if all(p.name == STUDY_MARK for p in files):
            for p in files:
                p.unlink()
            for folder in sorted((p for p in top.rglob("*") if p.is_dir()), reverse=True):
                folder.rmdir()
            top.rmdir()
    CREATED.clear()


@contextlib.contextmanager
def finishing(out: Path) -> Iterator[None]:
    """The block that writes a study's tables and plots into ``out``: they are renamed into
    place together at its end, or none of them (a full disk leaves those of before), and a
    Ctrl-C or SIGTERM there waits for its end, so that they never come from two different
    runs, and then says they are complete."""
    from barbaron import interrupts
    from barbaron.results import staged

    try:
        with interrupts.deferred(), staged():
            yield
    except RunInterrupted:
        raise
    except KeyboardInterrupt:  # noted while they were written: all of them were
        _settle_mark(out)
        raise RunInterrupted(
            f"interrupted as the study wrote its tables: they are complete in {out}"
        ) from None
    COMPLETE.set(out)
    _settle_mark(out)


def _settle_mark(out: Path) -> None:
    """Drop the "forced" of ``out``'s mark once a study's tables are in place: the --force run
    is complete, and a sub-run of other arguments found there later stops the study again."""
    mark = out / STUDY_MARK
    try:
        marked = json.loads(mark.read_text())
    except (OSError, ValueError):
        return
    if isinstance(marked, dict) and marked.pop("forced", None) is not None:
        with written(mark) as tmp:
            tmp.write_text(json.dumps(marked) + "\n")


def write_csv(table: pd.DataFrame, path: Path) -> None:
    """``table`` as CSV at ``path``, written whole or not at all (a temporary file renamed)."""
    with written(path) as tmp:
        table.to_csv(tmp, index=False)


def save_figure(figure: Figure, path: Path, **options: object) -> None:
    """``figure`` as a PNG at ``path``, written whole or not at all, and closed."""
    import matplotlib.pyplot as plt

    try:
        with written(path, path.with_name(f".{path.name}.tmp.png")) as tmp:
            figure.savefig(tmp, format="png", **options)
    finally:
        plt.close(figure)


def script(main: Callable[[], int]) -> None:
    """Run a study's ``main`` as barbaron's own commands run: bad input is one line and exit 2,
    a failed run one line and exit 1, an interrupt one line that says what was kept
    (``BARBARON_DEBUG=1`` shows the traceback)."""
    import sys

    from barbaron.cli import running_command, with_one_line_failures

    def main_saying_what_is_complete() -> int:
        COMPLETE.set(None)
        USED.clear()
        try:
            return main()
        except KeyboardInterrupt as e:
            out = COMPLETE.get()
            if isinstance(e, RunInterrupted):
                raise
            if out is None:  # (QA: it said "interrupted" alone)
                kept = f"its finished sub-runs are kept: {STUDY_RESUME_ADVICE}"
                if FORCED.get() is not None:  # (the folder's mark waits for this run)
                    kept = f"its folder waits for this --force run: {STUDY_RESUME_ADVICE}"
                elif not USED:
                    kept = "nothing was written: run it again"
                raise RunInterrupted(
                    f"interrupted before the study wrote its tables; {kept}"
                ) from None
            raise RunInterrupted(  # (as it printed its tables)
                f"interrupted after the study was complete: its results are in {out}"
            ) from None

    study = Path(sys.argv[0]).stem
    with running_command(["python", "-m", f"experiments.{study}", *sys.argv[1:]]):
        status = with_one_line_failures(main_saying_what_is_complete)
    if status != 0:  # bad input, a failure or an interrupt before anything was kept: the
        remove_unused()  # folders it made and left empty go (QA: a Ctrl-C left one)
    sys.exit(status)


class _HelpWithDefaults(argparse.RawDescriptionHelpFormatter):
    """The script's docstring as written; every option's help ends with its default, unless
    it states one (an option given no help shows its default alone)."""

    def _format_action(self, action: argparse.Action) -> str:
        if action.help is None and _has_default(action):
            action = copy.copy(action)
            action.help = "(default: %(default)s)"
        return super()._format_action(action)

    def _get_help_string(self, action: argparse.Action) -> str:
        help_text = action.help or ""
        if "default" in help_text or not _has_default(action):
            return help_text
        return f"{help_text} (default: %(default)s)"


def _has_default(action: argparse.Action) -> bool:
    return (
        bool(action.option_strings)
        and action.default is not None
        and action.default is not argparse.SUPPRESS
        and not isinstance(action.default, bool)
    )


def parser(name: str, description: str) -> argparse.ArgumentParser:
    """The argument parser of the study script ``experiments.<name>``: errors are one line and
    exit 2, as in barbaron's own commands; ``--help`` gives every option's default."""
    from barbaron.cli import OneLineParser

    return OneLineParser(
        prog=f"python -m experiments.{name}",
        description=description,
        formatter_class=_HelpWithDefaults,
    )


def add_force(parser: argparse.ArgumentParser, what: str | None = None) -> None:
    """The --force of a study whose sub-runs are reused (:func:`run`), or of another script
    (``what`` it allows)."""
    parser.add_argument(
        "--force",
        action="store_true",
        help=what
        or "replace the folder's results of other arguments (refused without it), playing "
        "every finished sub-run again; also write into a folder that holds other files",
    )


def add_quiet(parser: argparse.ArgumentParser) -> None:
    """--quiet: the study's sub-runs show no progress bars (their ``>>>`` lines stay)."""
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress bars (each sub-run still prints the line that starts it)",
    )


def add_workers(parser: argparse.ArgumentParser) -> None:
    """--workers, as in barbaron's commands: all cores by default (no result depends on it)."""
    from barbaron.commands._shared import ALL_CORES, WORKERS_HELP

    parser.add_argument(
        "--workers",
        type=workers,
        default=ALL_CORES,
        help=f"{WORKERS_HELP}; no result depends on it",
    )


def add_rounds_and_out(parser: argparse.ArgumentParser, study: str) -> None:
    """--rounds and --out of a study whose results folder is named after its rounds."""
    parser.add_argument(
        "--rounds",
        type=rounds,
        default=10,
        help="rounds per game (default 10; 15 is the Long night house rule)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help=f"results folder (default results/{study}, or results/{study}-R-rounds for other "
        "--rounds)",
    )


def whole_deals(parser: argparse.ArgumentParser, games: int, players: int, what: str) -> None:
    """Refuse (exit 2) a --games that is not whole deals of ``what``: every deal is played in
    each of its ``players`` rotations."""
    if games % players:
        parser.error(
            f"--games {games:,} is not a multiple of {what}'s {players} rotations (e.g. "
            f"{games - games % players + players:,})"
        )


def default_out(study: str, rounds: int) -> Path:
    """``results/STUDY``, or ``results/STUDY-R-rounds`` for rules of other than 10 rounds."""
    return ROOT / "results" / (study + ("" if rounds == 10 else f"-{rounds}-rounds"))


def output_file(
    path: Path,
    option: str = "--out",
    *,
    writer: str | None = None,
    force: bool = False,
    defaults: bool = True,
) -> Path:
    """``path``, a file a script writes at its end, made ready before its work starts: its
    folder created, and a name that cannot be written refused in one line (not after an hour of
    training). "~" is expanded, as in :func:`out_folder`. With ``writer`` (the script), an
    existing file is replaced only if that script wrote it, or with ``force`` (QA: a training
    run replaced a file of notes); a weights file shipped in barbaron's bots/ folder only by a
    run of the script's ``defaults`` (those that trained it), or with ``force`` (QA: a quick
    look that forgot --out replaced the ``value`` bot's weights)."""
    path = home_expanded(path, option)
    out_folder(path.parent, option)
    if path.is_dir():
        raise UsageError(f"{option} {path} is a folder: give the file to write")
    if path.exists() and not os.access(path, os.W_OK):  # (its folder: checked above)
        raise UsageError(f"{option}: cannot write {path} (no permission)")
    if writer is not None and path.exists() and not force and not _written_by(path, writer):
        raise UsageError(
            f"{option} {path} exists and is not a weights file of {writer}: give another "
            f"{option}, or --force to replace it"
        )
    shipped = path.resolve().parent in _weights_folders()
    if writer is not None and shipped and path.exists() and not force and not defaults:
        raise UsageError(
            f"{option} {path} holds a shipped bot's weights, trained with the default "
            f"arguments: give another {option} for this run (say /tmp/{path.name}), or --force "
            "to replace them"
        )
    return path


def _weights_folders() -> set[Path]:
    """Where the shipped weights are: this checkout's bots/ and the installed ``barbaron.bots``
    (QA: another checkout sharing an editable install wrote over the installed ones)."""
    import importlib.util

    spec = importlib.util.find_spec("barbaron.bots")
    installed = [Path(p).resolve() for p in (spec.submodule_search_locations or [])] if spec else []
    return {(ROOT / "bots").resolve(), *installed}


def has_defaults(parser: argparse.ArgumentParser, args: argparse.Namespace, *ignored: str) -> bool:
    """Whether every argument but ``ignored`` (and --force) has its default value."""
    return all(
        value == parser.get_default(key)
        for key, value in vars(args).items()
        if key not in {*ignored, "force"}
    )


def _written_by(path: Path, writer: str) -> bool:
    """Whether ``path`` is a weights file that ``experiments.<writer>`` wrote (its record of
    training names the command)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    trained = data.get("trained") if isinstance(data, dict) else None
    command = trained.get("command") if isinstance(trained, dict) else trained
    return _script_of(command) == writer


def count(text: str) -> int:
    """An argparse type: a whole number >= 1 (games, workers)."""
    return _whole(text, 1, None, "a whole number >= 1")


def workers(text: str) -> int:
    """An argparse type: a number of worker processes, 1 to barbaron's most (QA: 300 was
    refused only by the first sub-run)."""
    from barbaron.config import MAX_WORKERS

    return _whole(text, 1, MAX_WORKERS, f"a whole number from 1 to {MAX_WORKERS}")


def rounds(text: str) -> int:
    """An argparse type: rounds per game, 1 to the rules' most."""
    from barbaron.rules import MAX_ROUNDS

    return _whole(text, 1, MAX_ROUNDS, f"a whole number from 1 to {MAX_ROUNDS:,}")


def population(text: str) -> int:
    """An argparse type: a whole number >= 2 (an evolution strategy's population)."""
    return _whole(text, 2, None, "a whole number >= 2")


def positive(text: str) -> float:
    """An argparse type: a finite number > 0 (a step size)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}")
    return value


def seed(text: str) -> int:
    """An argparse type: a seed, a whole number from 0 to 2**63 - 1."""
    return _whole(text, 0, 2**63 - 1, "a whole number from 0 to 2**63 - 1")


def counts(text: str) -> list[int]:
    """An argparse type: a comma list of different whole numbers >= 1 (e.g. 4,16,64), in
    increasing order whatever the order given (QA: 16,4 was refused for a folder of 4,16)."""
    values = [count(item) for item in text.split(",")]
    if len(set(values)) < len(values):  # (QA: 4,4 gave two rows of the same run)
        raise argparse.ArgumentTypeError(f"must name each number once, got {text!r}")
    return sorted(values)


def _whole(text: str, low: int, high: int | None, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < low or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
    return value

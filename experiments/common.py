"""Helpers the study scripts share: run a barbaron library function once, reuse its folder."""

from __future__ import annotations

import argparse
import json
import math
import os
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(
    function: Callable,
    out: Path,
    *,
    workers: int,
    force: bool = False,
    quiet: bool = True,
    **arguments: object,
) -> dict:
    """``function(**arguments)`` (a ``barbaron.api`` function) into the results folder ``out``,
    unless ``out`` already holds a finished run (or ``force``); return its summary.json. A
    finished run is reused as it is, whatever arguments played it, and the line says so."""
    if force or not (out / "summary.json").exists():
        shown = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
        print(f">>> api.{function.__name__}({shown}, out={str(out)!r})", flush=True)
        function(**arguments, out=out, workers=workers, force=True, progress=not quiet)
    else:
        print(f">>> reusing {out} (played earlier; --force plays it again)", flush=True)
    return json.loads((out / "summary.json").read_text())


def script(main: Callable[[], int]) -> None:
    """Run a study's ``main`` as barbaron's own commands run: bad input is one line and exit 2,
    a failed run one line and exit 1 (``BARBARON_DEBUG=1`` shows the traceback)."""
    import sys

    from barbaron.cli import with_one_line_failures

    sys.exit(with_one_line_failures(main))


def parser(name: str, description: str) -> argparse.ArgumentParser:
    """The argument parser of the study script ``experiments.<name>``: errors are one line and
    exit 2, as in barbaron's own commands."""
    from barbaron.cli import OneLineParser

    return OneLineParser(
        prog=f"python -m experiments.{name}",
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def output_file(path: Path, option: str = "--out") -> Path:
    """``path``, a file a script writes at its end, made ready before its work starts: its
    folder created, and a name that cannot be written refused in one line (not after an hour of
    training)."""
    from barbaron.errors import UsageError

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise UsageError(
            f"{option}: cannot create {path.parent}: a file stands in the way"
        ) from None
    except OSError as e:
        raise UsageError(f"{option}: cannot create {path.parent}: {e.strerror or e}") from None
    if path.is_dir():
        raise UsageError(f"{option} {path} is a folder: give the file to write")
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"{option}: cannot write {path} (no permission)")
    return path


def count(text: str) -> int:
    """An argparse type: a whole number >= 1 (games, workers)."""
    return _whole(text, 1, None, "a whole number >= 1")


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
    """An argparse type: a comma list of whole numbers >= 1 (e.g. 4,16,64)."""
    return [count(item) for item in text.split(",")]


def _whole(text: str, low: int, high: int | None, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < low or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
    return value

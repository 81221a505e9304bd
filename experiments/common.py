"""Helpers the study scripts share: run a barbaron library function once, reuse its folder."""

from __future__ import annotations

import json
import math
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
    unless ``out`` already holds a finished run (or ``force``); return its summary.json."""
    if force or not (out / "summary.json").exists():
        shown = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
        print(f">>> api.{function.__name__}({shown}, out={str(out)!r})", flush=True)
        function(**arguments, out=out, workers=workers, force=True, progress=not quiet)
    return json.loads((out / "summary.json").read_text())


def number(value: float | None) -> float:
    """A number of a summary.json: null (a number that is not finite) as nan."""
    return math.nan if value is None else float(value)

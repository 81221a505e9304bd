"""Draw the plots of a finished results folder into it (win shares per bot, seat win shares and
worth distributions of play, the seat-bonus curve, the sweep curve, the SPRT trace, ...) and
print the tables its command printed, from its summary.json."""

from __future__ import annotations

import argparse
import importlib
import json
import time
from pathlib import Path

from barbaron.commands import COMMANDS
from barbaron.errors import UsageError

HELP = "(re)draw the PNG plots of a results folder and print its tables"
UNEXPECTED_CONTENT = (  # what a summary.json barbaron did not write makes the plots raise
    KeyError,
    TypeError,
    ValueError,
    IndexError,
    AttributeError,
    ZeroDivisionError,
)
PER_POINT = {"sweep", "seats"}  # commands whose summary counts each point's games (not --solve)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", metavar="DIR", help="a results folder")


def run(args: argparse.Namespace) -> int:
    if not args.dir.strip():  # (Path('') is the current folder: it was read as '.', QA)
        raise UsageError("barbaron report needs a results folder, got an empty name")
    folder = Path(args.dir)
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
        partial = isinstance(manifest, dict) and manifest.get("status") == "partial"
        summary = None if partial else json.loads((folder / "summary.json").read_text())
    except (OSError, ValueError, RecursionError) as e:
        interrupted = Path(f"{folder}.partial")
        if not folder.exists() and (interrupted / "manifest.json").is_file():  # (QA)
            raise UsageError(
                f"{folder} does not exist yet: {interrupted} holds its interrupted run, which "
                "has no summary yet; run its command again with --resume to finish it"
            ) from None
        raise UsageError(
            f"{folder} is not a finished results folder (manifest.json and summary.json): {e}"
        ) from None
    if partial:
        raise UsageError(
            f"{folder} holds an interrupted run, which has no summary yet: run its command "
            "again with --resume to finish it, then report the folder it names"
        )
    command = manifest.get("command") if isinstance(manifest, dict) else None
    if command not in COMMANDS:
        raise UsageError(f"{folder}: its manifest names no barbaron command ({command!r})")
    module = importlib.import_module(f"barbaron.commands.{command}")
    parquet = folder / "games.parquet"
    try:
        figures = module.figures(summary, [parquet] if parquet.exists() else [])
        tables = [module.tables(summary)] if hasattr(module, "tables") else []
        games = f"{summary['games']:,} games"
        if command in PER_POINT and "points" in summary:  # summary["games"] is each point's
            points = len(summary["points"])
            games = f"{points * summary['games']:,} games ({points} points of {games} each)"
        elif command == "seats" and "confirmation" in summary:  # --solve: its search played more
            games = f"{games} in its confirmation"
        elif command == "compare":  # summary["games"] is each side's
            games = f"{2 * summary['games']:,} games ({games} for each of NEW and BASE)"
    except UsageError:
        raise
    except UNEXPECTED_CONTENT as e:
        raise _not_written_by(folder, command, e) from None
    from barbaron.results import written

    for name, figure in figures:  # (whole or not at all, a Ctrl-C too: no temporary file left)
        try:
            with written(folder / name, folder / f".{name}.tmp.png") as tmp:
                figure.savefig(tmp, dpi=110, bbox_inches="tight", format="png")  # draws it:
        except UNEXPECTED_CONTENT as e:  # the summary's numbers are used only here
            raise _not_written_by(folder, command, e) from None
        print(folder / name)
    for table in tables:
        print(table)
    print(
        f"({manifest.get('status')} {command} run of {games}, "
        f"finished {manifest.get('finished', '?')}; reported {time.strftime('%Y-%m-%d %H:%M')})"
    )
    return 0


def _not_written_by(folder: Path, command: str, e: Exception) -> UsageError:
    return UsageError(
        f"{folder}/summary.json is not what barbaron {command} writes "
        f"({type(e).__name__}: {e}); rerun the command to write it again"
    )

"""Play a lineup of 2 to 4 bots (one spec per seat) and report each bot's and each seat's win
share with 95% intervals, mean worth, share of the table's worth, and a seat-balance test."""

from __future__ import annotations

import argparse
from pathlib import Path

from barbaron.commands._shared import (
    Once,
    add_rules_options,
    add_run_options,
    bot_table,
    identical_seats_note,
    print_done,
    rules_line,
    run_options,
    seat_table,
)
from barbaron.config import DEFAULT_GAMES
from barbaron.errors import UsageError

HELP = "play a lineup many times; win shares, seat balance, files and plots"
EPILOG = """examples:
  barbaron play --bots hard normal normal normal --games 100000 --out results/hard-vs-normal
  barbaron play --bots shark:margin=-100 hard hard hard --games 40000 --seed 7 --out runs/x
  barbaron play --bots my_bot.py:MyBot normal normal --no-rotate --games 3000 --out runs/y

Every deal (one game's dice and cards) is played once per rotation of the lineup, so each bot
sits in every seat equally often with the same luck. Intervals are 95% and computed over deals.
Writes OUT/manifest.json, games.parquet, summary.json, summary.csv and PNG plots."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bots",
        nargs="+",
        action=Once,
        required=True,
        metavar="BOT",
        help="one bot spec per seat (see 'barbaron bots')",
    )
    add_run_options(parser, games=DEFAULT_GAMES)
    add_rules_options(parser)


def tables(summary: dict) -> str:
    """The bots' and the seats' tables (what the command prints, and report again)."""
    notes = identical_seats_note(summary) + rules_line(summary.get("rules"))
    heading = "".join(f"{line}\n" for line in notes)
    return f"{heading}{bot_table(summary)}\n\n{seat_table(summary)}"


def run(args: argparse.Namespace) -> int:
    from barbaron import api

    result = api.play(args.bots, games=args.games, **run_options(args))
    print(tables(result.summary))
    print_done(result)
    return 0


def worth_by_bot(parquet_files: list[Path], limit: int = 500_000) -> dict:
    """Final worths per bot from the first ``limit`` rows (for the distribution plot)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = [f for p in parquet_files for f in (sorted(p.glob("*.parquet")) if p.is_dir() else [p])]
    tables, rows = [], 0
    for path in files:
        try:
            tables.append(pq.ParquetFile(path).read(columns=["bot", "worth"]))
        except (OSError, KeyError, pa.ArrowException) as e:  # damaged: name it, not the summary
            raise UsageError(
                f"{path} is not a readable part of games.parquet ({e}); rerun the command "
                "(with --force) to write it again"
            ) from None
        rows += tables[-1].num_rows
        if rows >= limit:
            break
    if not tables:
        raise UsageError(
            f"{', '.join(map(str, parquet_files))} holds no games; rerun the command (with "
            "--force) to write them again"
        )
    table = pa.concat_tables(tables).slice(0, limit).unify_dictionaries().combine_chunks()
    bots = table.column("bot").chunk(0)  # one dictionary array: bot names and their indices
    index, worth = _values(bots.indices), _values(table.column("worth").chunk(0))
    return {str(name): worth[index == i] for i, name in enumerate(bots.dictionary.to_pylist())}


def _values(array):
    """A null-free Arrow array of numbers as numpy, sharing its memory (``to_numpy()`` would
    import pandas: a quarter of a second at the end of every run)."""
    import numpy as np

    values = np.frombuffer(array.buffers()[1], dtype=array.type.to_pandas_dtype())
    return values[array.offset : array.offset + len(array)]


def figures(summary: dict, parquet_files: list[Path]) -> list[tuple[str, object]]:
    """Win share per bot and per seat, and the distribution of final worth per bot."""
    from barbaron import plots

    found = [("win_shares.png", plots.bot_win_shares(summary))]
    found.append(("seats.png", plots.seat_win_shares(summary)))
    if parquet_files:
        found.append(("worth.png", plots.worth_distribution(worth_by_bot(parquet_files))))
    return found

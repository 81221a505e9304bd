"""Play standard lineups on one core (one process, no workers) and print games per second and
the process's peak memory. Compilation is warmed up first and not timed."""

from __future__ import annotations

import argparse

from barbaron.config import DEFAULT_BATCH_SIZE, MAX_BATCH_SIZE
from barbaron.errors import UsageError

HELP = "measure the batch engine's games per second and peak memory"
MAX_BENCH_GAMES = 100_000_000  # games per lineup at the most (about ten minutes)

LINEUPS = {
    "threshold-4p": ["threshold:buy=0,takeover=none,upgrade=0"] * 4,
    "threshold-eager-4p": ["threshold:buy=0,takeover=0,upgrade=0"] * 4,
    "threshold-2p": ["threshold:buy=0,takeover=none,upgrade=0"] * 2,
    "easy-4p": ["easy"] * 4,
    "normal-4p": ["normal"] * 4,
    "hard-4p": ["hard"] * 4,
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--games", type=int, default=262144, help="games per lineup (default 262144)"
    )
    parser.add_argument(
        "--batch-size",
        type=int,
        default=DEFAULT_BATCH_SIZE,
        help=f"games per batch (default {DEFAULT_BATCH_SIZE})",
    )
    parser.add_argument(
        "--lineup",
        action="append",
        metavar="NAME",
        help="only this lineup (repeatable); default all: " + ", ".join(LINEUPS),
    )


def run(args: argparse.Namespace) -> int:
    from barbaron.api import build_bots
    from barbaron.bench import bench_lineup
    from barbaron.rules import Rules

    if not 1 <= args.games <= MAX_BENCH_GAMES or not 1 <= args.batch_size <= MAX_BATCH_SIZE:
        raise UsageError(
            f"--games must be from 1 to {MAX_BENCH_GAMES:,} and --batch-size from 1 to "
            f"{MAX_BATCH_SIZE:,}"
        )
    names = args.lineup or list(LINEUPS)
    unknown = [n for n in names if n not in LINEUPS]
    if unknown:
        raise UsageError(f"unknown lineup {unknown[0]!r} (known: {', '.join(LINEUPS)})")
    print(f"{'lineup':<20} {'games':>9} {'seconds':>8} {'games/s/core':>13} {'peak MB':>8}")
    for name in names:
        specs = LINEUPS[name]
        result = bench_lineup(
            Rules(players=len(specs)), build_bots(specs), args.games, args.batch_size
        )
        print(
            f"{name:<20} {result.games:>9} {result.seconds:>8.2f} "
            f"{result.games_per_second:>13,.0f} {result.peak_mb:>8.0f}"
        )
    return 0

"""Play standard lineups on one core (one process, no workers) and print games per second and
the process's peak memory. Compilation is warmed up first and not timed. With --end-to-end,
time whole commands as users run them (start-up, workers and writing included) against the
engine's own throughput in the same session, and print each figure against its goal."""

from __future__ import annotations

import argparse

from barbaron.config import DEFAULT_BATCH_SIZE, MAX_BATCH_SIZE
from barbaron.errors import UsageError

HELP = "measure the batch engine's games per second and peak memory"
MAX_BENCH_GAMES = 100_000_000  # games per lineup at the most (about ten minutes)

ENGINE_GAMES = 262_144  # the engine bench's games per lineup
DEFAULT_ROUNDS = 3  # --end-to-end's rounds of the ratios
MAX_ROUNDS = 20
LINEUPS = {
    "threshold-4p": ["threshold:buy=0,takeover=none,upgrade=0"] * 4,
    "threshold-eager-4p": ["threshold:buy=0,takeover=0,upgrade=0"] * 4,
    "threshold-2p": ["threshold:buy=0,takeover=none,upgrade=0"] * 2,
    "easy-4p": ["easy"] * 4,
    "normal-4p": ["normal"] * 4,
    "hard-4p": ["hard"] * 4,
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, help=f"games per lineup (default {ENGINE_GAMES})")
    parser.add_argument(
        "--batch-size",
        type=int,
        help=f"games per batch (default {DEFAULT_BATCH_SIZE})",
    )
    parser.add_argument(
        "--end-to-end",
        action="store_true",
        help="time whole commands (barbaron play with 1 and 2 workers, start-up, memory) "
        "against the engine instead (about a minute a round)",
    )
    parser.add_argument(
        "--scale",
        type=float,
        help="with --end-to-end: shrink every run by this factor (default 1: full size)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        metavar="N",
        help=f"with --end-to-end: rounds of the ratios, each command once a round in turn; "
        f"each figure is the median of its rounds, their range beside it (default "
        f"{DEFAULT_ROUNDS}: one round's ratios move by a quarter on a shared machine)",
    )
    parser.add_argument(
        "--lineup",
        action="append",
        metavar="NAME",
        help="only this lineup (repeatable); default all: " + ", ".join(LINEUPS),
    )


def run(args: argparse.Namespace) -> int:
    if args.end_to_end:
        for given, option in ((args.lineup, "--lineup"), (args.games, "--games")):
            if given is not None:
                raise UsageError(
                    f"{option} is the engine bench's; --end-to-end times its own lineups "
                    "(--scale shrinks or grows them)"
                )
        if args.batch_size is not None:
            raise UsageError(
                "--batch-size is the engine bench's; --end-to-end times the commands as users "
                "run them, with their default batch"
            )
        repeat = DEFAULT_ROUNDS if args.repeat is None else args.repeat
        return _end_to_end(1.0 if args.scale is None else args.scale, repeat)
    for given, option in ((args.scale, "--scale"), (args.repeat, "--repeat")):
        if given is not None:
            raise UsageError(f"{option} goes with --end-to-end; for the engine alone give --games")
    args.games = ENGINE_GAMES if args.games is None else args.games
    args.batch_size = DEFAULT_BATCH_SIZE if args.batch_size is None else args.batch_size
    for option, value, most in (
        ("--games", args.games, MAX_BENCH_GAMES),
        ("--batch-size", args.batch_size, MAX_BATCH_SIZE),
    ):
        if not 1 <= value <= most:  # (the one that is wrong, named: QA)
            raise UsageError(f"{option} must be from 1 to {most:,}, got {value:,}")
    names = args.lineup or list(LINEUPS)
    unknown = [n for n in names if n not in LINEUPS]
    if unknown:
        raise UsageError(f"unknown lineup {unknown[0]!r} (known: {', '.join(LINEUPS)})")
    from barbaron.api import build_bots
    from barbaron.bench import bench_lineup
    from barbaron.rules import Rules

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


def _end_to_end(scale: float, repeat: int) -> int:
    from barbaron.bench import end_to_end

    if not 0.001 <= scale <= 10:
        raise UsageError(f"--scale must be from 0.001 to 10, got {scale}")
    if not 1 <= repeat <= MAX_ROUNDS:
        raise UsageError(f"--repeat must be a whole number from 1 to {MAX_ROUNDS}, got {repeat}")
    targets = end_to_end(scale, repeat)
    rounds = "  rounds" if repeat > 1 else ""
    print(f"\n{'figure':<55} {'value':>8} {'goal':>8}  met{rounds}")
    for t in targets:
        goal = f"{'>=' if t.higher_is_better else '<='}{t.goal:.2f}"
        spread = f"  {min(t.values):.2f}-{max(t.values):.2f}" if len(t.values) > 1 else ""
        met = "yes" if t.met else "NO "
        print(f"{t.name:<55} {t.value:>8.2f} {goal:>8}  {met}{spread}".rstrip())
    if scale < 1:
        print(
            f"(--scale {scale:g}: the goals are set for full-size runs; at a smaller scale the "
            "fixed start-up weighs more, so the ratios come out lower)"
        )
    elif scale > 1:
        print(
            f"(--scale {scale:g}: runs {scale:g} times the full size; the goals are set for "
            "full size)"
        )
    return 0

"""For each seat bonus, the seats' win shares with 95% intervals, and the bonus at which the
seats come out even: where the least-squares slope of win share over seat index crosses zero
(interpolated; the interval from where the slope's 95% band crosses zero)."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from barbaron.commands._shared import (
    add_rules_options,
    add_run_options,
    plus_minus,
    print_done,
    run_options,
)

HELP = "fairness study: seat win shares against the seat bonus"
EPILOG = """examples:
  barbaron seats --bots normal --bonus 0:200:25 --out runs/seats
  barbaron seats --bots easy normal hard hard --games 40000 --out runs/mixed"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bots",
        nargs="+",
        required=True,
        metavar="BOT",
        help="one spec for the same bot in every seat, or 2-4 specs for a "
        "mixed table (played in rotation)",
    )
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        help="table size, 2 to 4 (default: 4 with one --bots spec, else the number of specs; "
        "with several --bots specs it must be their number)",
    )
    parser.add_argument(
        "--bonus",
        default="0:200:25",
        help="seat bonuses START:STOP:STEP or a comma list (default 0:200:25)",
    )
    add_run_options(parser, games=20000)
    add_rules_options(parser)


def run(args: argparse.Namespace) -> int:
    from barbaron import api

    identical = len(set(args.bots)) == 1
    if identical and args.rotate and not args.quiet:
        print(
            "the same bot in every seat: rotations would repeat identical games, so each "
            "deal is played once"
        )
    result = api.seats(
        args.bots, bonus=args.bonus, players=args.players, games=args.games, **run_options(args)
    )
    points, even = result.summary["points"], result.even
    players = len(points[0]["seats"])
    header = " ".join(f"{'seat ' + str(s):>22}" for s in range(players))
    print(f"{'bonus':>6} {header} {'balance p':>10} {'slope':>9}")
    for p in points:
        cells = " ".join(
            plus_minus(s["win_share"], s["win_share_ci"]).rjust(22) for s in p["seats"]
        )
        print(
            f"{p['seat_bonus']:>6} {cells} {p['seat_balance']['p_value']:>10.3g} "
            f"{p['slope']:>+9.5f}"
        )
    if math.isnan(even["bonus"]):
        print(
            "seats come out even: not within the bonuses played (the slope never changes "
            "sign); widen --bonus"
        )
    else:
        print(
            f"seats come out even at a bonus of {even['bonus']:.1f} coins "
            f"(95% interval {even['ci'][0]:.1f} .. {even['ci'][1]:.1f})"
        )
    print_done(result)
    return 0


def figures(summary: dict, parquet_files: list[Path]) -> list[tuple[str, object]]:
    """Seat win share against the seat bonus."""
    from barbaron import plots

    return [("seat_bonus.png", plots.seat_bonus_curve(summary["points"], summary["even"]))]

"""Rate every bot of a pool on one Elo-like scale. Lineups of --players different bots (every
combination when there are at most 70, else a balanced design in which every pair meets
equally often; with --gauntlet only lineups holding that bot) play the same deals in every
rotation, the games split equally. The ratings follow Luce's choice rule: at a table T, bot i
wins with probability 10^(r_i/400) / sum over j in T of 10^(r_j/400), shared wins counting as
fractions (R19); fit by maximum likelihood, --anchor at 0, with 95% intervals from the sandwich
covariance clustered by deal. Prints the ratings, the head-to-head matrix and the calibration
of every lineup played (predicted against observed win share); writes ratings.png and
calibration.png."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from barbaron.commands._shared import (
    Once,
    add_rules_options,
    add_run_options,
    print_done,
    rules_line,
    run_options,
)
from barbaron.params import counted, fixed, interval, read_number

HELP = "rate every bot of a pool on one Elo-like scale, with intervals"
EPILOG = """examples:
  barbaron tournament --bots easy normal hard shark greedy autopilot --games 1200000 --out runs/t
  barbaron tournament --bots easy normal hard --players 3 --anchor normal --out runs/t3
  barbaron tournament --bots easy normal hard shark --gauntlet my_bot.py:Mine --out runs/g"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bots",
        nargs="+",
        action=Once,
        required=True,
        metavar="BOT",
        help="the pool: 2 or more bot specs",
    )
    parser.add_argument(
        "--players",
        type=int,
        help="bots per lineup, 2 to 4 (default 4, or the pool's size when it is smaller)",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=1_200_000,
        help="games in all, split equally among the lineups, rounded down to whole deals "
        "(default 1,200,000)",
    )
    parser.add_argument("--gauntlet", metavar="BOT", help="play only the lineups with this bot")
    parser.add_argument("--anchor", metavar="BOT", help="the bot rated 0 (default: the first)")
    add_run_options(parser, games=None, batch=4096)
    add_rules_options(parser)


def _rating(row: dict) -> float:
    """A bot's rating; summary.json holds an infinite one as null: a bot that never won is
    at -inf, one that always won at +inf."""
    if row["rating"] is not None:
        return row["rating"]
    return -math.inf if row["win_share"] == 0 else math.inf if row["win_share"] == 1 else math.nan


def _contrast(record: dict, weights: tuple[int, ...], by_bot: dict[str, float]) -> tuple[str, str]:
    """A gap or a gap difference as printed: its value, ``weights`` on its ``bots``' ratings
    (summary.json keeps an infinite one as null, the ratings tell it), and its interval."""
    bots = record.get("bots") or ()
    value = (
        sum(w * by_bot[b] for w, b in zip(weights, bots, strict=True))
        if bots and all(b in by_bot for b in bots)
        else read_number(record["value"])
    )
    low, high = map(read_number, record["ci"])
    bounds = interval([low, high], 1, sign=True) if math.isfinite(low) else "-"
    return fixed(value, 1, sign=True), bounds


def tables(summary: dict) -> str:
    """The ratings table, the head-to-head matrix and the calibration table."""
    ratings = summary["ratings"]
    width = max(12, *(len(r["bot"]) for r in ratings))
    count = len(summary["design"]["lineups"])
    lines = rules_line(summary.get("rules")) + [
        f"{counted(count, 'lineup')} ({summary['design']['kind']}), "
        f"{summary['games_per_lineup']:,} games{' each' if count != 1 else ''}",
        f"{'bot':<{width}} {'rating':>8} {'95% interval':>18} {'games':>12} {'win share':>9}",
    ]
    for r in ratings:
        low, high = map(read_number, r["rating_ci"])
        if r["bot"] == summary["anchor"]:
            ci = "(anchor)"
        else:
            finite = math.isfinite(read_number(r["rating_se"]))
            ci = interval([low, high], 1, sign=True) if finite else "-"
        lines.append(
            f"{r['bot']:<{width}} {fixed(_rating(r), 1, sign=True):>8} {ci:>18} {r['games']:>12,} "
            f"{r['win_share']:>9.4f}"
        )
    if summary.get("anchor_note"):
        lines.append(f"anchor: {summary['anchor_note']}")
    if summary.get("gaps"):
        lines.append(
            "gaps between neighbours in the pool's order, --bots (then --gauntlet), 95% intervals:"
        )
        by_bot = {r["bot"]: _rating(r) for r in ratings}
        for g in summary["gaps"]:
            value, ci = _contrast(g, (-1, 1), by_bot)  # the higher bot minus the lower
            lines.append(f"  {g['gap']:<{2 * width + 3}} {value:>8} {ci}")
        if summary.get("gap_differences"):
            lines.append("each gap minus the one before (0 when the bots are evenly spaced):")
        for d in summary.get("gap_differences", []):
            value, ci = _contrast(d, (1, -2, 1), by_bot)  # (last - middle) - (middle - first)
            lines.append(f"  {d['difference']}: {value} {ci}")
    lines.append(f"model: {summary['model']}")
    lines.append(f"intervals: {summary['interval']}")
    if summary.get("rotate") is False:  # (QA: play says it of a seat test; this said nothing)
        lines.append(
            "seats: --no-rotate played each lineup in the order given, so a bot's seat was "
            "fixed by its place in the lineup: the ratings include the seats' advantages "
            "(rotation, the default, evens them out)"
        )
    h2h = summary["head_to_head"]
    bots = h2h["bots"]
    cell = max(8, *(len(b) for b in bots))
    lines += [
        "",
        "head to head: how often the row bot finished above the column bot (by worth; an "
        "equal worth counts half), in the games where both sat",
        " " * width + "".join(f" {b:>{cell}}" for b in bots),
    ]
    for bot, row in zip(bots, h2h["above"], strict=True):
        text = "".join(f" {'-' if v is None else f'{v:.4f}':>{cell}}" for v in row)
        lines.append(f"{bot:<{width}}{text}")
    lines += [
        "",
        "calibration: every lineup played, each bot's observed win share (and the ratings' "
        "prediction)",
    ]
    by_lineup: dict[str, list[dict]] = {}
    for c in summary["calibration"]:
        by_lineup.setdefault(c["lineup"], []).append(c)
    label = max(len(k) for k in by_lineup)
    for lineup, rows in by_lineup.items():
        text = "  ".join(
            f"{read_number(c['observed']):.4f} ({read_number(c['predicted']):.4f})" for c in rows
        )
        lines.append(f"{lineup:<{label}}  {text}")
    if len(by_lineup) == 1:  # as many ratings as shares to fit: the fit is exact by design
        lines.append(
            "(one lineup: its win shares are what the ratings were fitted to; nothing to calibrate)"
        )
    else:
        lines.append(
            f"mean absolute error {read_number(summary['calibration_mae']):.4f}, largest "
            f"{read_number(summary['calibration_max']):.4f}, over {len(summary['calibration'])} "
            "win shares"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from barbaron import api

    result = api.tournament(
        args.bots,
        players=args.players,
        games=args.games,
        gauntlet=args.gauntlet,
        anchor=args.anchor,
        **run_options(args),
    )
    summary = result.summary
    if summary["games"] != args.games:
        print(
            f"(--games {args.games:,} rounded down to {summary['games']:,}: the same whole deals "
            "in every lineup and rotation)"
        )
    print(tables(summary))
    print_done(result)
    return 0


def figures(summary: dict, parquet_files: list[Path]) -> list[tuple[str, object]]:
    """The ratings with their intervals, and the calibration of every lineup played."""
    from barbaron import plots

    return [
        ("ratings.png", plots.ratings_chart(summary)),
        ("calibration.png", plots.calibration_chart(summary)),
    ]

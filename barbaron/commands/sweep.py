"""Play BOT with each value of one parameter against a fixed field; a table and a plot of its
win share (95% interval) against the parameter."""

from __future__ import annotations

import argparse
from pathlib import Path

from barbaron.commands._shared import (
    Once,
    add_field_options,
    add_rules_options,
    add_run_options,
    print_done,
    rules_line,
    run_options,
)
from barbaron.config import DEFAULT_GAMES, PAIRED_ARMS
from barbaron.errors import UsageError
from barbaron.params import interval, read_number

HELP = "tune one parameter of a bot against a fixed field"
EPILOG = """example:
  barbaron sweep --bot normal --param cushion=0:600:50 --field normal --out runs/cushion"""


class OneParam(Once):
    """--param, which a sweep takes once. Given twice with one name, the refusal says to give
    all the values in one --param; with two names, that a sweep varies one parameter (QA: it
    told those too to give their values at once)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        given = getattr(namespace, self.dest)
        if given is not None and given.partition("=")[0] != values.partition("=")[0]:
            parser.error(
                f"{option_string} given twice: a sweep varies one parameter (barbaron tune "
                "searches several at once)"
            )
        super().__call__(parser, namespace, values, option_string)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bot", required=True, help="the bot to tune (a spec)")
    parser.add_argument(
        "--param",
        action=OneParam,
        required=True,
        help=(
            "NAME=START:STOP:STEP or NAME=V1,V2,... (e.g. cushion=0:600:50, "
            "takeover_cushion=none,0,500, playout=greedy,hard)"
        ),
    )
    add_field_options(parser, "the bot with its default parameters")
    add_run_options(parser, games=DEFAULT_GAMES)
    add_rules_options(parser)


def tables(summary: dict) -> str:
    """The swept bot's win share per value, and the best."""
    from barbaron.strategy import format_value

    name = summary["param"]
    lines = rules_line(summary.get("rules"))
    paired = all(p.get("vs_best_ci") for p in summary["points"])  # (older or huge sweeps: none)
    vs_best = f" {'vs best':>8} {'paired 95% interval':>20}" if paired else ""
    lines.append(f"{name:>12} {'win share':>9} {'95% interval':>18} {'mean worth':>10}{vs_best}")
    for p in summary["points"]:
        line = (
            f"{format_value(p['value']):>12} {read_number(p['win_share']):>9.4f} "
            f"{interval(p['win_share_ci']):>18} {read_number(p['mean_worth']):>10.1f}"
        )
        if paired:
            line += f" {read_number(p['vs_best']):>+8.4f} {interval(p['vs_best_ci']):>20}"
        lines.append(line)
    best = summary["best"]
    ties = [f"{name}={format_value(v)}" for v in best.get("tied", [])]
    tied = f", tied with {shortened(ties)}" if ties else ""
    lines.append(
        f"best: {name}={format_value(best['value'])} (win share "
        f"{read_number(best['win_share']):.4f}{tied}) against {', '.join(summary['field'])}"
    )
    if paired and len(summary["points"]) > 1:
        close = [format_value(v) for v in best.get("within_interval", [])]
        lines.append(
            (f"not told apart from it (95%, paired by deal, {MCB}): {shortened(close)}; "
             if close else f"every other value is below it (95%, paired by deal, {MCB}); ")
            + "the best of several on the same deals reads high: confirm it on fresh deals "
            "(barbaron compare, or another --seed)"
        )  # fmt: skip
    elif len(summary["points"]) > PAIRED_ARMS:
        lines.append(
            f"no paired differences from the best: they are kept for at most {PAIRED_ARMS} "
            "values (sweep fewer, around the best, to tell them apart)"
        )
    return "\n".join(lines)


MCB = "multiple comparisons with the best"


def shortened(values: list[str], shown: int = 10) -> str:
    """``values`` joined by commas, the first ``shown`` of them and how many more (a sweep of
    a thousand values can tie on hundreds: summary.json lists them all)."""
    more = len(values) - shown
    return ", ".join(values[:shown]) + (f" and {more} more" if more > 0 else "")


def run(args: argparse.Namespace) -> int:
    from barbaron import api

    name, eq, values_text = args.param.partition("=")
    if not eq or not name:
        raise UsageError(f"--param must look like NAME=START:STOP:STEP, got {args.param!r}")
    result = api.sweep(
        args.bot,
        name,
        values_text,
        field=args.field,
        players=args.players,
        games=args.games,
        **run_options(args),
    )
    print(tables(result.summary))
    print_done(result)
    return 0


def figures(summary: dict, parquet_files: list[Path]) -> list[tuple[str, object]]:
    """The swept bot's win share against the parameter."""
    from barbaron import plots

    return [
        (
            "sweep.png",
            plots.sweep_curve(
                summary["points"], summary["param"], summary["bot"], summary["field"]
            ),
        )
    ]

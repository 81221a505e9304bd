"""What several commands share: their common options, turning options into the library's
keyword arguments, and the tables they print."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

from barbaron.config import BACKENDS, DEFAULT_BATCH_SIZE, RULES_OPTIONS, backend_named
from barbaron.params import counted, interval, p_phrase, read_number


# --- options ---------------------------------------------------------------------------------
class Once(argparse.Action):
    """Store an option's value, and refuse the option given a second time: argparse would keep
    the last one only (``--bots hard easy --bots normal normal`` played two Normals)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        if getattr(namespace, self.dest) is not self.default:
            parser.error(f"{option_string} given twice: give all its values at once")
        setattr(namespace, self.dest, values)


def add_rules_options(
    parser: argparse.ArgumentParser,
    seat_bonus: str = "extra start coins per later seat (default 100)",
) -> None:
    """--rounds, --start-coins, --seat-bonus (its help: ``seat_bonus``), --seat-coins."""
    group = parser.add_argument_group("rules")
    group.add_argument("--rounds", type=int, default=10, help="rounds per game (default 10)")
    group.add_argument(
        "--start-coins", type=int, help="coins of seat 0 at the start (default 1000)"
    )
    group.add_argument("--seat-bonus", type=int, help=seat_bonus)
    group.add_argument(
        "--seat-coins",
        type=seat_coins_arg,
        metavar="C0,C1,...",
        help="every seat's start coins instead, one per seat (e.g. 1000,1080,1150,1240); "
        "not with --start-coins or --seat-bonus",
    )


def seat_coins_arg(text: str) -> tuple[int, ...]:
    """--seat-coins: whole numbers separated by commas (checked further by the rules)."""
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be whole numbers separated by commas, one per seat (e.g. 1000,1100,1200), "
            f"got {text!r}"
        ) from None


def _folder(text: str) -> str:
    """--out's value: any non-blank path."""
    if not text.strip():
        raise argparse.ArgumentTypeError("give a folder path, not an empty one")
    return text


def add_run_options(
    parser: argparse.ArgumentParser, *, games: int | None, batch: int = DEFAULT_BATCH_SIZE
) -> None:
    """Options of every command that plays games into a results folder (``games``: the
    default of --games, or None for a command that counts games its own way)."""
    parser.add_argument(
        "--out",
        required=True,
        type=_folder,
        metavar="DIR",
        help="results folder to create (an empty one is used; one of results is replaced "
        "only with --force, one of other files never)",
    )
    if games is not None:
        parser.add_argument(
            "--games",
            type=int,
            help=f"games per lineup, rotations included (default {games:,}, rounded down to "
            "whole deals)",
        )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the deals (default 0): same seed, same games"
    )
    parser.add_argument(
        "--no-rotate",
        dest="rotate",
        action="store_false",
        help="play the lineup as given instead of every rotation of it",
    )
    run = parser.add_argument_group("execution")
    run.add_argument("--workers", type=int, default=ALL_CORES, help=WORKERS_HELP)
    run.add_argument(
        "--batch-size",
        type=int,
        default=batch,
        help=f"games per unit of work (default {batch}); results do not depend on it",
    )
    run.add_argument(
        "--backend",
        type=backend_named,
        choices=BACKENDS,
        default="local",
        help="local: processes on this machine (default; 'loky' is its old name); dask: a dask "
        "cluster",
    )
    run.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="dask scheduler address, e.g. tcp://10.0.0.5:8786 (with --backend dask)",
    )
    run.add_argument("--force", action="store_true", help="replace an existing --out folder")
    run.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted run (OUT.partial) with the same command",
    )
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument(
        "--no-plots",
        dest="plots",
        action="store_false",
        help="write no PNGs (faster; 'barbaron report OUT' draws them later)",
    )


def add_field_options(parser: argparse.ArgumentParser, default: str) -> None:
    """--field and --players: the seats a compared or swept bot plays against."""
    parser.add_argument(
        "--field",
        nargs="+",
        action=Once,
        metavar="BOT",
        help=f"the other seats: one spec (repeated) or one per seat (default: {default})",
    )
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        help="table size, 2 to 4 (default: 4 with one --field spec, else the field's size + 1; "
        "with several --field specs it must be their number + 1)",
    )


def rules_options(args: argparse.Namespace) -> dict:
    """The run options of the rules (``barbaron.api.RunOptions``) from the parsed options."""
    return {name: getattr(args, name) for name in RULES_OPTIONS}


def run_options(args: argparse.Namespace) -> dict:
    """The library's run options (``barbaron.api.RunOptions``) from the parsed options."""
    return {
        "seed": args.seed,
        "rotate": args.rotate,
        **rules_options(args),
        "out": args.out,
        "force": args.force,
        "resume": args.resume,
        "workers": args.workers,
        "batch_size": args.batch_size,
        "backend": args.backend,
        "scheduler": args.scheduler,
        "progress": not args.quiet,
        "plots": args.plots,
    }


# --- tables ----------------------------------------------------------------------------------
def plus_minus(mean: float, ci: list[float | None]) -> str:
    """``mean ±reach`` with four decimals, or ``mean +above/-below`` where the interval reaches
    further on one side (an interval near 0 or 1 is not centred on its share)."""
    low, high = map(read_number, ci)
    mean = read_number(mean)
    above, below = high - mean, mean - low
    if math.isnan(above) and math.isnan(below):  # no interval (too few deals)
        return f"{mean:.4f} -"
    if not abs(above - below) > 1e-4:  # (a lean of a unit of the last digit shows no more)
        return f"{mean:.4f} ±{max(above, below):.4f}"
    return f"{mean:.4f} +{above:.4f}/-{below:.4f}"


def bot_table(arm: dict) -> str:
    """The per-bot table: games, win share with interval, mean worth, share of table worth."""
    width = max(12, *(len(b["bot"]) for b in arm["bots"]))
    lines = [
        f"{'bot':<{width}} {'seats':>5} {'games':>10} {'win share':>9} {'95% interval':>18}"
        f" {'mean worth':>10} {'worth share':>11}"
    ]
    for b in arm["bots"]:
        lines.append(
            f"{b['bot']:<{width}} {b['seats']:>5} {b['games']:>10,} "
            f"{read_number(b['win_share']):>9.4f} {interval(b['win_share_ci']):>18} "
            f"{b['mean_worth']:>10.1f} {b['worth_share']:>11.4f}"
        )
    return "\n".join(lines)


BOTS_FIXED = (  # a seat-balance test of a mixed lineup played without rotation
    "each seat held one bot throughout: this tests seats and bots together "
    "(in rotation, without --no-rotate, it tests the seats alone)"
)


def seat_table(arm: dict) -> str:
    """The per-seat table and the seat-balance test."""
    from barbaron.rules import Rules

    lines = [f"{'seat':<6} {'start':>6} {'win share':>9} {'95% interval':>18} {'mean worth':>10}"]
    rules = Rules(**arm["rules"])
    for s in arm["seats"]:
        start = rules.seat_start_coins(s["seat"])
        lines.append(
            f"{s['seat']:<6} {start:>6} {read_number(s['win_share']):>9.4f} "
            f"{interval(s['win_share_ci']):>18} {s['mean_worth']:>10.1f}"
        )
    bal = arm["seat_balance"]
    if math.isnan(read_number(bal["p_value"])):
        lines.append("seat balance: not testable (too few deals, or no variation)")
    else:
        # not rejecting is not proof of balance: how close the seats are is in their intervals
        verdict = "no imbalance detected" if bal["balanced"] else "seats NOT balanced"
        statistic = read_number(bal["statistic"])  # summary.json writes an infinite one as null
        # (a summary from before the key: its lineups rotated, or said nothing)
        together = f", but {BOTS_FIXED}" if bal.get("bots_fixed") else ""
        t2 = f"{statistic:.2f} on {bal['dof']} dof"
        if not math.isfinite(statistic):  # (review: "T2 = inf" beside "no imbalance detected")
            t2 = "inf (a seat's share, or a group's, never varied: p bounds that chance)"
        lines.append(
            f"seat balance: T2 = {t2}, {p_phrase(bal['p_value'])} -> {verdict} (5% level){together}"
        )
    return "\n".join(lines)


def print_done(result) -> None:
    """The closing line of a run: games, how many were played now, how fast, where."""
    rate = result.games_now / max(result.seconds, 1e-9)
    earlier = result.games_total - result.games_now
    resumed = f" ({earlier:,} from before the resume)" if earlier > 0 else ""
    try:
        here = Path.cwd()
    except OSError:  # (the current folder was removed meanwhile)
        here = None
    where = result.out.relative_to(here) if here and result.out.is_relative_to(here) else result.out
    print(
        f"\n{result.games_total:,} games{resumed}; {result.games_now:,} played now in "
        f"{result.seconds:.1f} s ({rate:,.0f} games/s) -> {where}/"
    )


def identical_seats_note(summary: dict) -> list[str]:
    """``[a line]`` saying why a table of one spec played each deal once, not in every
    rotation, or that specs spelt differently for one bot play identical rotations (an A/A
    test), as its summary records (:func:`barbaron.runs.identical_seats`); else ``[]``."""
    kind, bots = summary.get("identical_seats"), summary.get("bots", [])
    if kind == "spec":
        return [
            "the same bot in every seat: rotations would repeat identical games, so each "
            "deal was played once"
        ]
    if kind == "bot":
        specs = [b["bot"] if isinstance(b, dict) else b for b in bots]
        return [
            f"{' and '.join(dict.fromkeys(specs))} are the same bot: its rotations repeat "
            "identical games (their shares come out equal); written as one spec in every seat, "
            "each deal would be played once"
        ]
    return []


ALL_CORES = os.cpu_count() or 1  # --workers by default, here and in the study scripts
WORKERS_HELP = f"parallel worker processes (default: all cores, here {ALL_CORES})"


def rules_line(rules: dict | None, varied: str = "") -> list[str]:
    """``["rules: ..."]`` naming what is not the default in ``rules`` (a summary's record), or
    ``[]``: the tables alone look the same for a Long night. ``varied``: what the command
    varies itself, not named: ``"bonus"`` (the seat-bonus sweep) or ``"coins"`` (the solver,
    whose table shows every seat's coins)."""
    from barbaron.rules import Rules

    if not rules:
        return []
    parts = []
    if rules.get("rounds", Rules.rounds) != Rules.rounds:
        parts.append(counted(rules["rounds"], "round"))
    if varied == "coins":
        pass
    elif rules.get("seat_coins"):
        parts.append("start coins " + ", ".join(map(str, rules["seat_coins"])))
    elif varied == "bonus":
        if rules.get("start_coins", Rules.start_coins) != Rules.start_coins:
            parts.append(f"seat 0 starts with {rules['start_coins']}")
    elif (rules.get("start_coins"), rules.get("seat_bonus")) != (
        Rules.start_coins,
        Rules.seat_bonus,
    ):
        parts.append(f"start coins {rules['start_coins']} + {rules['seat_bonus']} per seat")
    return [f"rules: {'; '.join(parts)}"] if parts else []

"""The tournament commands: play, compare, seats, sweep, report. They build jobs, run them
through the harness into a results folder, and present the returned data as tables and plots."""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from tqdm import tqdm

from barbaron import plots
from barbaron.harness import DEFAULT_BATCH_SIZE, SHARE_SCALE, Arm, Job, Totals, UnitResult
from barbaron.registry import BotSpecError, make_bot, split_spec, with_param
from barbaron.results import ResultsError, RunFolder
from barbaron.rules import Rules
from barbaron.run import execute
from barbaron.stats import Estimate, Sprt, estimate, zero_crossing
from barbaron.strategy import Strategy


class UsageError(Exception):
    """Bad input from the user: reported as one line, exit status 2."""


# --- shared options ----------------------------------------------------------------------------
def add_rules_options(parser: argparse.ArgumentParser) -> None:
    """--rounds, --start-coins, --seat-bonus."""
    group = parser.add_argument_group("rules")
    group.add_argument("--rounds", type=int, default=10, help="rounds per game (default 10)")
    group.add_argument(
        "--start-coins", type=int, default=1000, help="coins of seat 0 at the start (default 1000)"
    )
    group.add_argument(
        "--seat-bonus", type=int, default=100, help="extra start coins per later seat (default 100)"
    )


def add_run_options(
    parser: argparse.ArgumentParser, *, games: int | None, batch: int = DEFAULT_BATCH_SIZE
) -> None:
    """Options of every command that plays games into a results folder (``games``: the
    default of --games, or None for a command that counts games its own way)."""
    parser.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="results folder to create (refused if it exists, unless --force)",
    )
    if games is not None:
        parser.add_argument(
            "--games",
            type=int,
            default=games,
            help=f"games per lineup, rotations included (default {games:,})",
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
    run.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help=f"parallel worker processes (default: all cores, here {os.cpu_count() or 1})",
    )
    run.add_argument(
        "--batch-size",
        type=int,
        default=batch,
        help=f"games per unit of work (default {batch}); results do not depend on it",
    )
    run.add_argument(
        "--backend",
        choices=("loky", "dask"),
        default="loky",
        help="loky: processes on this machine (default); dask: a dask cluster",
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


def add_field_options(parser: argparse.ArgumentParser, default: str) -> None:
    """--field and --players: the seats a compared or swept bot plays against."""
    parser.add_argument(
        "--field",
        nargs="+",
        metavar="BOT",
        help=f"the other seats: one spec (repeated) or one per seat (default: {default})",
    )
    parser.add_argument(
        "--players", type=int, default=4, help="table size when --field is one spec (default 4)"
    )


def field_of(args: argparse.Namespace, default: str) -> list[str]:
    """The field's bot specs, one per other seat."""
    field = args.field or [default]
    if len(field) == 1:
        field = field * (args.players - 1)
    if not 1 <= len(field) <= 3:
        raise UsageError(
            f"--field takes 1 to 3 bot specs (or one with --players 2-4); got {len(field)}"
        )
    return field


def rules_of(args: argparse.Namespace, players: int, **changes: int) -> Rules:
    """The Rules of the rules options (and ``changes``), or a UsageError."""
    values = {
        "players": players,
        "rounds": args.rounds,
        "start_coins": args.start_coins,
        "seat_bonus": args.seat_bonus,
        **changes,
    }
    try:
        return Rules(**values)
    except ValueError as e:
        raise UsageError(
            str(e).replace("start_coins", "--start-coins").replace("seat_bonus", "--seat-bonus")
        ) from None


def build_bots(specs: list[str]) -> list[Strategy]:
    """Build every spec, so that a bad one fails before any game is played."""
    try:
        return [make_bot(spec) for spec in specs]
    except BotSpecError as e:
        raise UsageError(str(e)) from None


def lineup_bots(specs: list[str]) -> list[Strategy]:
    """One strategy per seat of a 2- to 4-player table."""
    if not 2 <= len(specs) <= 4:
        raise UsageError(f"--bots takes 2 to 4 bot specs, one per seat; got {len(specs)}")
    return build_bots(specs)


def make_job(
    args: argparse.Namespace,
    arms: list[Arm],
    *,
    rotate: bool | None = None,
    games: int | None = None,
) -> Job:
    """The Job of the run options, or a UsageError."""
    try:
        return Job(
            arms=tuple(arms),
            games=games if games is not None else args.games,
            seed=args.seed,
            rotate=args.rotate if rotate is None else rotate,
            batch_size=args.batch_size,
            workers=args.workers,
            backend=args.backend,
            scheduler=args.scheduler,
        )
    except ValueError as e:
        raise UsageError(str(e)) from None


def open_folder(args: argparse.Namespace, job: Job, command: str) -> RunFolder:
    """The results folder, or a UsageError if it exists, is partial, or does not match."""
    try:
        return RunFolder(args.out, job, command, force=args.force, resume=args.resume)
    except ResultsError as e:
        raise UsageError(str(e)) from None


def run_job(args: argparse.Namespace, job: Job, folder: RunFolder, **kwargs):
    """Execute a job. A run that fails before its first unit leaves no folder behind; an
    interrupted one keeps its finished units for --resume."""
    try:
        return execute(job, folder, quiet=args.quiet, **kwargs)
    except BaseException as e:
        if not folder.done_units() and not args.resume:
            shutil.rmtree(folder.partial, ignore_errors=True)
        if isinstance(e, KeyboardInterrupt):
            if not folder.partial.exists():
                raise UsageError(
                    "interrupted before any game finished; nothing was written"
                ) from None
            raise UsageError(
                f"interrupted: finished units are kept in {folder.partial} (its "
                "manifest says partial); run the same command with --resume to "
                "continue"
            ) from None
        if isinstance(e, RuntimeError) and "dask" in str(e):
            raise UsageError(str(e)) from None
        raise


# --- tables --------------------------------------------------------------------------------
def _ci(ci: list[float]) -> str:
    return f"[{ci[0]:.4f}, {ci[1]:.4f}]"


def _pm(mean: float, ci: list[float]) -> str:
    return f"{mean:.4f} ±{(ci[1] - ci[0]) / 2:.4f}"


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
            f"{b['win_share']:>9.4f} {_ci(b['win_share_ci']):>18} "
            f"{b['mean_worth']:>10.1f} {b['worth_share']:>11.4f}"
        )
    return "\n".join(lines)


def seat_table(arm: dict) -> str:
    """The per-seat table and the seat-balance test."""
    lines = [f"{'seat':<6} {'start':>6} {'win share':>9} {'95% interval':>18} {'mean worth':>10}"]
    rules = arm["rules"]
    for s in arm["seats"]:
        start = rules["start_coins"] + rules["seat_bonus"] * s["seat"]
        lines.append(
            f"{s['seat']:<6} {start:>6} {s['win_share']:>9.4f} "
            f"{_ci(s['win_share_ci']):>18} {s['mean_worth']:>10.1f}"
        )
    bal = arm["seat_balance"]
    if math.isnan(bal["p_value"]):
        lines.append("seat balance: not testable (too few deals, or no variation)")
    else:
        verdict = "seats balanced" if bal["balanced"] else "seats NOT balanced"
        lines.append(
            f"seat balance: chi2 = {bal['statistic']:.2f} on {bal['dof']} dof, "
            f"p = {bal['p_value']:.3g} -> {verdict} (5% level)"
        )
    return "\n".join(lines)


# --- worth samples and plots ---------------------------------------------------------------
def worth_by_bot(parquet_files: list[Path], limit: int = 2_000_000) -> dict[str, np.ndarray]:
    """Final worths per bot from the first ``limit`` rows (for the distribution plot)."""
    frames, rows = [], 0
    for path in parquet_files:
        table = pq.read_table(path, columns=["bot", "worth"])
        frames.append(table.to_pandas())
        rows += table.num_rows
        if rows >= limit:
            break
    import pandas as pd

    data = pd.concat(frames).head(limit)
    return {
        str(bot): group["worth"].to_numpy() for bot, group in data.groupby("bot", observed=True)
    }


def plots_for(command: str, summary: dict, parquet_files: list[Path]) -> list[tuple[str, object]]:
    """The plots of a results folder, by the command that made it."""
    figures = []
    if command == "play":
        figures += [
            ("win_shares.png", plots.bot_win_shares(summary)),
            ("seats.png", plots.seat_win_shares(summary)),
        ]
        figures.append(("worth.png", plots.worth_distribution(worth_by_bot(parquet_files))))
    elif command == "seats":
        figures.append(
            ("seat_bonus.png", plots.seat_bonus_curve(summary["points"], summary["even"]))
        )
    elif command == "sweep":
        figures.append(
            ("sweep.png", plots.sweep_curve(summary["points"], summary["param"], summary["bot"]))
        )
    elif command == "compare":
        figures.append(("compare.png", plots.bot_win_shares(summary["arms"][0])))
        if summary.get("sprt"):
            figures.append(
                (
                    "sprt.png",
                    plots.sprt_trace(summary["sprt"]["trace"], tuple(summary["sprt"]["bounds"])),
                )
            )
    return figures


def finish(
    job: Job, folder: RunFolder, command: str, summary: dict, table: list[dict], outcome
) -> Path:
    """Write the summary, the table (summary.csv), plots and games; say where they are."""
    shards = [folder.partial / "shards" / f"unit-{u:07d}.parquet" for u in folder.done_units()]
    figures = plots_for(command, summary, shards)
    out = folder.finish(
        summary, table, figures, seconds=outcome.seconds, games_played=outcome.games_now
    )
    import matplotlib.pyplot as plt

    for _, figure in figures:
        plt.close(figure)
    total = sum(t.deals for t in outcome.totals) * job.rotations
    rate = outcome.games_now / max(outcome.seconds, 1e-9)
    resumed = (
        f" ({total - outcome.games_now:,} from before the resume)"
        if total > outcome.games_now
        else ""
    )
    print(
        f"\n{total:,} games{resumed}; {outcome.games_now:,} played now in "
        f"{outcome.seconds:.1f} s ({rate:,.0f} games/s) -> {out}/"
    )
    return out


# --- play ------------------------------------------------------------------------------------
def play(args: argparse.Namespace) -> int:
    lineup_bots(args.bots)
    arm = Arm("play", tuple(args.bots), rules_of(args, len(args.bots)))
    job = make_job(args, [arm])
    folder = open_folder(args, job, "play")
    outcome = run_job(args, job, folder)
    summary = outcome.totals[0].summary()
    summary.pop("label")
    print(bot_table(summary))
    print()
    print(seat_table(summary))
    finish(job, folder, "play", summary, summary["bots"], outcome)
    return 0


# --- compare ---------------------------------------------------------------------------------
def compare(args: argparse.Namespace) -> int:
    field = field_of(args, "normal")
    build_bots([args.new, args.base, *field])
    rules = rules_of(args, len(field) + 1)
    arms = [Arm("new", (args.new, *field), rules), Arm("base", (args.base, *field), rules)]
    sprt = None
    if args.elo0 is not None or args.elo1 is not None:
        try:
            sprt = Sprt(
                args.elo0 if args.elo0 is not None else 0.0,
                args.elo1 if args.elo1 is not None else 10.0,
            )
        except ValueError as e:
            raise UsageError(str(e)) from None
    rotations = len(field) + 1 if args.rotate else 1
    games = args.max_games - args.max_games % rotations  # a maximum: whole deals only
    if games < 1:
        raise UsageError(
            f"--max-games must be at least {rotations} (one deal in every "
            f"rotation), got {args.max_games}"
        )
    job = make_job(args, arms, games=games)
    folder = open_folder(args, job, "compare")
    scale = 2 * SHARE_SCALE * job.rotations  # score = 1/2 + (new - base) / 2 per deal
    paired = {"sum": 0, "sq": 0, "deals": 0}
    trace: list[dict] = []

    def score() -> Estimate:
        return estimate(paired["sum"], paired["sq"], paired["deals"], scale)

    def on_unit(result: UnitResult, totals: list[Totals]) -> bool:
        new = result.tallies[0].position_share[:, 0].astype(object)
        base = result.tallies[1].position_share[:, 0].astype(object)
        v = SHARE_SCALE * job.rotations + (new - base)
        paired["sum"] += int(v.sum())
        paired["sq"] += int((v * v).sum())
        paired["deals"] += len(v)
        if sprt is None:
            return False
        llr = sprt.llr(score())
        games = paired["deals"] * job.rotations
        trace.append({"games": games, "llr": llr})
        lower, upper = sprt.bounds
        if not args.quiet:
            tqdm.write(
                f"  {games:>10,} games per arm: LLR {llr:+.3f} (bounds {lower:+.3f}, {upper:+.3f})"
            )
        return bool(sprt.decision(llr))

    outcome = run_job(args, job, folder, on_unit=on_unit)
    est = score()
    diff = Estimate(2 * est.mean - 1, 2 * est.se, est.deals)  # new minus base win share
    arms_summary = [t.summary() for t in outcome.totals]
    summary = {
        "games": arms_summary[0]["games"],
        "new": args.new,
        "base": args.base,
        "field": list(field),
        "bots": arms_summary[0]["bots"],
        "seats": arms_summary[0]["seats"],
        "arms": arms_summary,
        "difference": {"win_share": diff.mean, "win_share_ci": list(diff.ci), "deals": diff.deals},
    }
    for label, spec, total in (
        ("NEW ", args.new, outcome.totals[0]),
        ("BASE", args.base, outcome.totals[1]),
    ):
        own = total.position_estimate(0)  # its own seat, even if the field plays it too
        print(f"{label} {spec}: win share {own.mean:.4f}, 95% interval {_ci(list(own.ci))}")
    print(
        f"difference NEW - BASE: {diff.mean:+.4f}, 95% interval {_ci(list(diff.ci))} "
        f"(paired over {diff.deals:,} deals, field: {', '.join(field)})"
    )
    if sprt is not None:
        llr = trace[-1]["llr"] if trace else 0.0
        decision = sprt.decision(llr)
        verdict = {
            "H1": f"NEW is stronger (accepts elo1 = {sprt.elo1})",
            "H0": f"NEW is not stronger by elo1 (accepts elo0 = {sprt.elo0})",
            "": "no decision within --max-games",
        }[decision]
        summary["sprt"] = {
            "elo0": sprt.elo0,
            "elo1": sprt.elo1,
            "alpha": sprt.alpha,
            "beta": sprt.beta,
            "bounds": list(sprt.bounds),
            "llr": llr,
            "decision": decision or None,
            "trace": trace,
        }
        print(
            f"SPRT: LLR {llr:+.3f}, bounds {sprt.bounds[0]:+.3f} / {sprt.bounds[1]:+.3f}: {verdict}"
        )
    else:
        verdict = (
            "NEW is stronger"
            if diff.ci[0] > 0
            else "BASE is stronger"
            if diff.ci[1] < 0
            else "no significant difference"
        )
        print(f"verdict at 95%: {verdict}")
    table = [{"arm": arm["label"], **bot} for arm in arms_summary for bot in arm["bots"]]
    finish(job, folder, "compare", summary, table, outcome)
    return 0


# --- seats -----------------------------------------------------------------------------------
def parse_range(text: str, what: str) -> list[float]:
    """'0:200:25' (inclusive) or '10,20,50' -> list of numbers."""
    try:
        if ":" in text:
            start, stop, step = (float(x) for x in text.split(":"))
            if step <= 0 or stop < start:
                raise ValueError
            count = int(math.floor((stop - start) / step + 1e-9)) + 1
            values = [start + i * step for i in range(count)]
        else:
            values = [float(x) for x in text.split(",") if x.strip()]
        if not values:
            raise ValueError
    except ValueError:
        raise UsageError(
            f"{what} must look like START:STOP:STEP (e.g. 0:200:25) or a comma "
            f"list (e.g. 0,50,100), got {text!r}"
        ) from None
    return [int(v) if float(v).is_integer() else v for v in values]


def seats(args: argparse.Namespace) -> int:
    bots = list(args.bots)
    if len(bots) == 1:
        bots = bots * args.players
    if not 2 <= len(bots) <= 4:
        raise UsageError(f"--bots takes 1 bot (with --players) or 2 to 4 bots; got {len(bots)}")
    build_bots(bots)
    bonuses = sorted(set(parse_range(args.bonus, "--bonus")))
    players = len(bots)
    arms = [Arm(f"bonus={b}", tuple(bots), rules_of(args, players, seat_bonus=b)) for b in bonuses]
    identical = len(set(bots)) == 1  # every rotation is the same game: play each deal once
    job = make_job(args, arms, rotate=args.rotate and not identical)
    if identical and args.rotate and not args.quiet:
        print(
            "the same bot in every seat: rotations would repeat identical games, so each "
            "deal is played once"
        )
    folder = open_folder(args, job, "seats")
    outcome = run_job(args, job, folder)
    # the least-squares slope of win share over seat index, per deal: 0 when seats are even
    c = np.array([2 * s - (players - 1) for s in range(players)])  # 2 (s - mean seat)
    denominator = float(c @ c) / 2  # sum_s c_s (s - mean seat)
    points = []
    for bonus, total in zip(bonuses, outcome.totals, strict=True):
        arm = total.summary()
        slope = total.seat_contrast(c)
        points.append(
            {
                "seat_bonus": bonus,
                "seats": arm["seats"],
                "seat_balance": arm["seat_balance"],
                "slope": slope.mean / denominator,
                "slope_ci": [x / denominator for x in slope.ci],
                "arm": arm,
            }
        )
    x = np.array(bonuses, dtype=float)
    mean = np.array([p["slope"] for p in points])
    low = np.array([p["slope_ci"][0] for p in points])
    high = np.array([p["slope_ci"][1] for p in points])
    edges = sorted(v for v in (zero_crossing(x, low), zero_crossing(x, high)) if not math.isnan(v))
    even = {
        "bonus": zero_crossing(x, mean),
        "ci": [
            edges[0] if len(edges) == 2 else math.nan,
            edges[-1] if len(edges) == 2 else math.nan,
        ],
    }
    summary = {
        "games": job.games,
        "bots": bots,
        "points": points,
        "even": even,
        "rotate": job.rotate,
        "seats": points[0]["seats"],
    }
    header = (
        f"{'bonus':>6} "
        + " ".join(f"{'seat ' + str(s):>22}" for s in range(players))
        + f" {'balance p':>10} {'slope':>9}"
    )
    print(header)
    for p in points:
        cells = " ".join(_pm(s["win_share"], s["win_share_ci"]).rjust(22) for s in p["seats"])
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
    table = [{"seat_bonus": p["seat_bonus"], **seat} for p in points for seat in p["seats"]]
    finish(job, folder, "seats", summary, table, outcome)
    return 0


# --- sweep -----------------------------------------------------------------------------------
def sweep(args: argparse.Namespace) -> int:
    name, eq, values_text = args.param.partition("=")
    if not eq or not name:
        raise UsageError(f"--param must look like NAME=START:STOP:STEP, got {args.param!r}")
    values = parse_range(values_text, "--param")
    field = field_of(args, split_spec(args.bot)[0])
    specs = [with_param(args.bot, name, v) for v in values]
    build_bots(specs + field)
    rules = rules_of(args, len(field) + 1)
    arms = [
        Arm(f"{name}={v}", (spec, *field), rules) for v, spec in zip(values, specs, strict=True)
    ]
    job = make_job(args, arms)
    folder = open_folder(args, job, "sweep")
    outcome = run_job(args, job, folder)
    points = []
    for v, spec, total in zip(values, specs, outcome.totals, strict=True):
        est = total.position_estimate(0)
        arm = total.summary()
        points.append(
            {
                "value": v,
                "bot": spec,
                "win_share": est.mean,
                "win_share_ci": list(est.ci),
                "mean_worth": arm["bots"][0]["mean_worth"],
                "arm": arm,
            }
        )
    best = max(points, key=lambda p: p["win_share"])
    summary = {
        "games": job.games,
        "bot": args.bot,
        "param": name,
        "field": list(field),
        "points": points,
        "best": {"value": best["value"], "win_share": best["win_share"]},
        "bots": [
            {
                "bot": p["bot"],
                "games": job.games,
                "win_share": p["win_share"],
                "win_share_ci": p["win_share_ci"],
                "mean_worth": p["mean_worth"],
            }
            for p in points
        ],
        "seats": points[0]["arm"]["seats"],
    }
    print(f"{name:>12} {'win share':>9} {'95% interval':>18} {'mean worth':>10}")
    for p in points:
        print(
            f"{p['value']:>12} {p['win_share']:>9.4f} {_ci(p['win_share_ci']):>18} "
            f"{p['mean_worth']:>10.1f}"
        )
    print(
        f"best: {name}={best['value']} (win share {best['win_share']:.4f}) against "
        f"{', '.join(field)}"
    )
    table = [
        {
            "param": name,
            "value": p["value"],
            "bot": p["bot"],
            "win_share": p["win_share"],
            "win_share_ci": p["win_share_ci"],
            "mean_worth": p["mean_worth"],
        }
        for p in points
    ]
    finish(job, folder, "sweep", summary, table, outcome)
    return 0


# --- report ----------------------------------------------------------------------------------
def report(args: argparse.Namespace) -> int:
    folder = Path(args.dir)
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
        summary = json.loads((folder / "summary.json").read_text())
    except (OSError, ValueError) as e:
        raise UsageError(
            f"{folder} is not a finished results folder (manifest.json and summary.json): {e}"
        ) from None
    command = manifest.get("command")
    parquet = folder / "games.parquet"
    figures = plots_for(command, summary, [parquet] if parquet.exists() else [])
    import matplotlib.pyplot as plt

    for name, figure in figures:
        tmp = folder / f".{name}.tmp.png"
        figure.savefig(tmp, dpi=110, bbox_inches="tight")
        os.replace(tmp, folder / name)
        plt.close(figure)
        print(folder / name)
    if command == "play":
        print(bot_table(summary))
        print(seat_table(summary))
    print(
        f"({manifest.get('status')} {command} run of {summary.get('games'):,} games, "
        f"finished {manifest.get('finished', '?')}; {time.strftime('%Y-%m-%d %H:%M')})"
    )
    return 0

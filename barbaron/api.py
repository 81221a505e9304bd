"""barbaron as a library: every command that plays games is a function here with keyword
arguments, returning a frozen result (the command line only parses, calls and prints).

    >>> from barbaron import api
    >>> r = api.compare("shark", "hard", max_games=4000)
    >>> r.difference["win_share"], r.difference["win_share_ci"]

``out=None`` (the default) plays in memory, for notebooks; ``out="runs/x"`` writes the same
results folder as the command line (``manifest.json``, ``games.parquet``, ``summary.json``,
``summary.csv``, plots). Every function also takes the :class:`RunOptions`.
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, Unpack

from barbaron.config import DEFAULT_BATCH_SIZE, MAX_POINTS
from barbaron.errors import RunFailed, RunInterrupted, UsageError

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from barbaron.harness import Arm, Job, Totals, UnitResult
    from barbaron.rules import Rules
    from barbaron.run import RunOutcome

__all__ = [
    "CompareResult",
    "Execution",
    "PlayResult",
    "RunFailed",
    "RunInterrupted",
    "RunOptions",
    "RunResult",
    "SeatsResult",
    "SweepResult",
    "compare",
    "play",
    "seats",
    "sweep",
]


class RunOptions(TypedDict, total=False):
    """The keyword arguments every game-playing function takes; see :class:`Execution`."""

    seed: int
    rotate: bool
    rounds: int
    start_coins: int
    seat_bonus: int
    out: str | Path | None
    force: bool
    resume: bool
    workers: int
    batch_size: int
    backend: str
    scheduler: str | None
    progress: bool


@dataclass(frozen=True)
class Execution:
    """How a run plays and where it writes: the seed, the rules' money and length, the folder,
    the workers. Results depend only on seed, lineups and rules, never on the rest."""

    seed: int = 0  # the deals' seed: same seed, same games
    rotate: bool = True  # play every deal in every rotation of the lineup (duplicate format)
    rounds: int = 10  # R5
    start_coins: int = 1000  # R4: coins of seat 0
    seat_bonus: int = 100  # R4: extra start coins per later seat
    out: str | Path | None = None  # results folder to write; None plays in memory
    force: bool = False  # replace an existing results folder
    resume: bool = False  # continue an interrupted run (OUT.partial)
    workers: int = 1  # parallel worker processes
    batch_size: int = DEFAULT_BATCH_SIZE  # games per unit of work
    backend: str = "loky"  # loky (processes here) or dask (a cluster: needs scheduler)
    scheduler: str | None = None  # dask scheduler address
    progress: bool = False  # a progress bar (and the SPRT's lines) on the terminal

    def __post_init__(self) -> None:
        if self.out is None and (self.force or self.resume):
            raise UsageError("force and resume need a results folder (out)")
        if self.force and self.resume:
            raise UsageError("give --resume or --force, not both")

    def rules(self, players: int, **changes: int) -> Rules:
        """The rules of a table of ``players`` (and ``changes``), or a UsageError."""
        from barbaron.rules import Rules

        values = {
            "players": players,
            "rounds": self.rounds,
            "start_coins": self.start_coins,
            "seat_bonus": self.seat_bonus,
            **changes,
        }
        try:
            return Rules(**values)
        except ValueError as e:
            raise UsageError(
                str(e).replace("start_coins", "--start-coins").replace("seat_bonus", "--seat-bonus")
            ) from None

    def job(self, arms: list[Arm], games: int, *, rotate: bool | None = None) -> Job:
        """The harness's Job for ``arms``, or a UsageError."""
        from barbaron.harness import Job

        try:
            return Job(
                arms=tuple(arms),
                games=games,
                seed=self.seed,
                rotate=self.rotate if rotate is None else rotate,
                batch_size=self.batch_size,
                workers=self.workers,
                backend=self.backend,
                scheduler=self.scheduler,
            )
        except ValueError as e:
            raise UsageError(str(e)) from None


# --- results ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunResult:
    """What a run returns: its summary (the dict of ``summary.json``), its folder (or None),
    and how much it played now."""

    summary: dict
    out: Path | None  # the results folder, or None for a run in memory
    games_total: int  # games in the results, over every lineup, resumed ones included
    games_now: int  # games this call played
    seconds: float  # how long this call played
    rows: pa.Table | None = field(default=None, repr=False, compare=False)  # in-memory games

    @property
    def bots(self) -> pd.DataFrame:
        """Per bot: games, seats, win share with its 95% interval, mean worth, worth share."""
        return _frame(self.summary["bots"])

    @property
    def seats(self) -> pd.DataFrame:
        """Per seat: win share with its 95% interval, mean worth."""
        return _frame(self.summary["seats"])

    def games(self) -> pd.DataFrame:
        """One row per game and seat (the columns of ``games.parquet``), read when asked."""
        if self.rows is not None:
            return self.rows.to_pandas()
        if self.out is None:
            raise ValueError("this run kept no games")
        import pandas as pd

        return pd.read_parquet(self.out / "games.parquet")


@dataclass(frozen=True)
class PlayResult(RunResult):
    """The result of :func:`play`; ``summary["seat_balance"]`` holds the seat-balance test."""


@dataclass(frozen=True)
class CompareResult(RunResult):
    """The result of :func:`compare`."""

    @property
    def difference(self) -> dict:
        """NEW's win share minus BASE's: ``win_share``, ``win_share_ci`` (95%), ``deals``."""
        return self.summary["difference"]

    @property
    def sprt(self) -> dict | None:
        """The SPRT's bounds, final LLR, decision ("H0", "H1" or None) and trace, if run."""
        return self.summary.get("sprt")


@dataclass(frozen=True)
class SeatsResult(RunResult):
    """The result of :func:`seats`."""

    @property
    def points(self) -> pd.DataFrame:
        """Per seat bonus and seat: win share with its 95% interval."""
        return _frame(
            [
                {"seat_bonus": p["seat_bonus"], **s}
                for p in self.summary["points"]
                for s in p["seats"]
            ]
        )

    @property
    def even(self) -> dict:
        """The bonus where the seats come out even (``bonus``) and its 95% interval (``ci``)."""
        return self.summary["even"]


@dataclass(frozen=True)
class SweepResult(RunResult):
    """The result of :func:`sweep`."""

    @property
    def points(self) -> pd.DataFrame:
        """Per value of the parameter: the bot spec, win share with its interval, mean worth."""
        return _frame([{k: v for k, v in p.items() if k != "arm"} for p in self.summary["points"]])

    @property
    def best(self) -> dict:
        """The value with the highest win share: ``value``, ``win_share``."""
        return self.summary["best"]


def _frame(rows: list[dict]) -> pd.DataFrame:
    import pandas as pd

    from barbaron.results import flat_rows

    return pd.DataFrame(flat_rows(rows))


def parse_values(text: str, what: str) -> list[float]:
    """Numbers from text: ``'0:200:25'`` (START:STOP:STEP, inclusive) or ``'10,20,50'``;
    finite, and at most ``MAX_POINTS`` of them (counted before any list is built)."""
    shape = (
        f"{what} must look like START:STOP:STEP (e.g. 0:200:25) or a comma list "
        f"(e.g. 0,50,100) of finite numbers, got {text!r}"
    )
    try:
        if ":" in text:
            start, stop, step = (float(x) for x in text.split(":"))
            if not all(map(math.isfinite, (start, stop, step))) or step <= 0 or stop < start:
                raise ValueError
            count = int(math.floor((stop - start) / step + 1e-9)) + 1
            if count > MAX_POINTS:
                raise UsageError(f"{what} {text!r} has {count:,} values; at most {MAX_POINTS:,}")
            values = [start + i * step for i in range(count)]
        else:
            items = text.split(",")
            if len(items) > MAX_POINTS:
                raise UsageError(f"{what} has {len(items):,} values; at most {MAX_POINTS:,}")
            values = [float(x) for x in items if x.strip()]
            if not values or not all(map(math.isfinite, values)):
                raise ValueError
    except UsageError:
        raise
    except ValueError:
        raise UsageError(shape) from None
    return [int(v) if float(v).is_integer() else v for v in values]


# --- running ---------------------------------------------------------------------------------
def _execution(options: RunOptions) -> Execution:
    try:
        return Execution(**options)
    except TypeError as e:
        raise TypeError(f"unknown run option: {e}") from None


def build_bots(specs: Sequence[str]) -> list:
    """Build every spec, so that a bad one fails before any game is played."""
    from barbaron.registry import BotSpecError, make_bot

    try:
        return [make_bot(spec) for spec in specs]
    except BotSpecError as e:
        raise UsageError(str(e)) from None


def lineup_bots(specs: Sequence[str]) -> list:
    """One strategy per seat of a 2- to 4-player table."""
    if isinstance(specs, str) or not 2 <= len(specs) <= 4:
        count = 1 if isinstance(specs, str) else len(specs)
        raise UsageError(f"--bots takes 2 to 4 bot specs, one per seat; got {count}")
    return build_bots(specs)


def field_of(field: str | Sequence[str], players: int) -> list[str]:
    """The field's bot specs, one per other seat: one spec repeated, or one per seat."""
    specs = [field] if isinstance(field, str) else list(field)
    if len(specs) == 1:
        specs = specs * (players - 1)
    if not 1 <= len(specs) <= 3:
        raise UsageError(
            f"--field takes 1 to 3 bot specs (or one with --players 2-4); got {len(specs)}"
        )
    return specs


@dataclass
class _Run:
    """A run under way: its job, where it writes (a results folder, or memory), what it played.

    Used as a context manager around playing and finishing: whatever stops it (Ctrl-C, a dead
    worker, a full disk) leaves the folder resumable, lets go of its lock, and becomes one
    :class:`RunInterrupted` or :class:`RunFailed` that says how to resume.
    """

    command: str
    execution: Execution
    job: Job
    sink: object  # results.RunFolder or results.InMemory
    outcome: RunOutcome | None = None

    @classmethod
    def open(
        cls, command: str, execution: Execution, arms: list[Arm], games: int, **job: object
    ) -> _Run:
        """The run of ``arms`` with its results folder (or memory) ready; nothing played yet."""
        from barbaron.results import InMemory, ResultsError, RunFolder

        job = execution.job(arms, games, **job)
        if execution.out is None:
            return cls(command, execution, job, InMemory(job))
        try:
            folder = RunFolder(
                execution.out, job, command, force=execution.force, resume=execution.resume
            )
        except ResultsError as e:
            raise UsageError(str(e)) from None
        return cls(command, execution, job, folder)

    def __enter__(self) -> _Run:
        return self

    def __exit__(self, kind, error, traceback) -> None:
        if error is None:
            return
        sink = self.sink
        sink.close()
        partial = getattr(sink, "partial", None)
        if partial is not None and not sink.done_units() and not self.execution.resume:
            shutil.rmtree(partial, ignore_errors=True)  # nothing finished: leave nothing behind
        kept = partial is not None and partial.exists()
        resume = (
            f"finished units are kept in {partial} (its manifest says partial); run the same "
            "command with --resume to continue"
        )
        if isinstance(error, KeyboardInterrupt):
            if not kept:
                raise RunInterrupted("interrupted before any game finished; nothing was written")
            raise RunInterrupted(f"interrupted: {resume}") from None
        from barbaron.errors import RunFailed
        from barbaron.results import ResultsError

        if isinstance(error, RunFailed | ResultsError | OSError):
            where = f"; {resume}" if kept else "; nothing was kept"
            raise RunFailed(f"{_os_message(error)}{where}") from None
        if isinstance(error, RuntimeError) and "dask" in str(error):
            raise UsageError(str(error)) from None

    def play(self, on_unit: Callable[[UnitResult, list[Totals]], bool] | None = None) -> None:
        """Play the units not yet done."""
        from barbaron.run import execute

        quiet = not self.execution.progress
        self.outcome = execute(self.job, self.sink, quiet=quiet, on_unit=on_unit)

    @property
    def totals(self) -> list[Totals]:
        return self.outcome.totals

    def finish(self, result_type: type[RunResult], summary: dict, table: list[dict]):
        """Write the folder (summary, table, plots, games) and return the typed result."""
        from barbaron.results import InMemory

        outcome = self.outcome
        total = sum(t.deals for t in outcome.totals) * self.job.rotations
        common = {
            "summary": summary,
            "games_total": total,
            "games_now": outcome.games_now,
            "seconds": outcome.seconds,
        }
        if isinstance(self.sink, InMemory):
            return result_type(out=None, rows=self.sink.table(), **common)
        import importlib

        command = importlib.import_module(f"barbaron.commands.{self.command}")
        figures = command.figures(summary, self.sink.shard_files())
        out = self.sink.finish(
            summary, table, figures, seconds=outcome.seconds, games_played=outcome.games_now
        )
        return result_type(out=out, **common)


def _os_message(error: BaseException) -> str:
    """One line for an OS error (with the path it concerns) or any of barbaron's own."""
    if isinstance(error, OSError) and error.filename:
        return f"cannot write {error.filename}: {error.strerror or error}"
    return str(error).splitlines()[0] if str(error) else type(error).__name__


# --- play ------------------------------------------------------------------------------------
def play(bots: Sequence[str], *, games: int = 20_000, **options: Unpack[RunOptions]) -> PlayResult:
    """Play a lineup (one bot spec per seat, 2 to 4) ``games`` times, rotations included: each
    bot's and each seat's win share with 95% intervals, mean worth, worth share, and the
    seat-balance test."""
    from barbaron.harness import Arm

    execution = _execution(options)
    lineup_bots(bots)
    arm = Arm("play", tuple(bots), execution.rules(len(bots)))
    with _Run.open("play", execution, [arm], games) as run:
        run.play()
        summary = run.totals[0].summary()
        summary.pop("label")
        return run.finish(PlayResult, summary, summary["bots"])


# --- compare ---------------------------------------------------------------------------------
def compare(
    new: str,
    base: str,
    *,
    field: str | Sequence[str] = "normal",
    players: int = 4,
    max_games: int = 100_000,
    elo0: float | None = None,
    elo1: float | None = None,
    **options: Unpack[RunOptions],
) -> CompareResult:
    """Is NEW stronger than BASE? Both play the same deals in the same seats against the same
    ``field``; the result is the paired difference of their win shares with its 95% interval.
    With ``elo0``/``elo1`` a sequential probability ratio test stops as soon as the answer is
    clear (at most ``max_games`` games per arm); otherwise exactly ``max_games`` are played."""
    from barbaron.harness import SHARE_SCALE, Arm
    from barbaron.stats import Estimate, Sprt, estimate

    execution = _execution(options)
    field = field_of(field, players)
    build_bots([new, base, *field])
    rules = execution.rules(len(field) + 1)
    arms = [Arm("new", (new, *field), rules), Arm("base", (base, *field), rules)]
    sprt = None
    if elo0 is not None or elo1 is not None:
        try:
            sprt = Sprt(elo0 if elo0 is not None else 0.0, elo1 if elo1 is not None else 10.0)
        except ValueError as e:
            raise UsageError(str(e)) from None
    rotations = len(field) + 1 if execution.rotate else 1
    games = max_games - max_games % rotations  # a maximum: whole deals only
    if games < 1:
        raise UsageError(
            f"--max-games must be at least {rotations} (one deal in every rotation), "
            f"got {max_games}"
        )
    scale = 2 * SHARE_SCALE * rotations  # score = 1/2 + (new - base) / 2 per deal
    paired = {"sum": 0, "sq": 0, "deals": 0}
    trace: list[dict] = []

    def score() -> Estimate:
        return estimate(paired["sum"], paired["sq"], paired["deals"], scale)

    def on_unit(result: UnitResult, totals: list[Totals]) -> bool:
        new_share = result.tallies[0].position_share[:, 0].astype(object)
        base_share = result.tallies[1].position_share[:, 0].astype(object)
        v = SHARE_SCALE * rotations + (new_share - base_share)
        paired["sum"] += int(v.sum())
        paired["sq"] += int((v * v).sum())
        paired["deals"] += len(v)
        if sprt is None:
            return False
        llr = sprt.llr(score())
        played = paired["deals"] * rotations
        trace.append({"games": played, "llr": llr})
        if execution.progress:
            from tqdm import tqdm

            lower, upper = sprt.bounds
            tqdm.write(
                f"  {played:>10,} games per arm: LLR {llr:+.3f} (bounds {lower:+.3f}, {upper:+.3f})"
            )
        return bool(sprt.decision(llr))

    with _Run.open("compare", execution, arms, games) as run:
        run.play(on_unit)
        est = score()
        diff = Estimate(2 * est.mean - 1, 2 * est.se, est.deals)  # new minus base win share
        arms_summary = [t.summary() for t in run.totals]
        own = [t.position_estimate(0) for t in run.totals]  # each arm's own seat
        summary = {
            "games": arms_summary[0]["games"],
            "new": new,
            "base": base,
            "field": list(field),
            "bots": arms_summary[0]["bots"],
            "seats": arms_summary[0]["seats"],
            "arms": arms_summary,
            "own": [{"win_share": e.mean, "win_share_ci": list(e.ci)} for e in own],
            "difference": {
                "win_share": diff.mean,
                "win_share_ci": list(diff.ci),
                "deals": diff.deals,
            },
        }
        if sprt is not None:
            llr = trace[-1]["llr"] if trace else 0.0
            summary["sprt"] = {
                "elo0": sprt.elo0,
                "elo1": sprt.elo1,
                "alpha": sprt.alpha,
                "beta": sprt.beta,
                "bounds": list(sprt.bounds),
                "llr": llr,
                "decision": sprt.decision(llr) or None,
                "trace": trace,
            }
        table = [{"arm": arm["label"], **bot} for arm in arms_summary for bot in arm["bots"]]
        return run.finish(CompareResult, summary, table)


# --- seats -----------------------------------------------------------------------------------
def seats(
    bots: str | Sequence[str],
    *,
    bonus: str | Sequence[float] = "0:200:25",
    players: int = 4,
    games: int = 20_000,
    **options: Unpack[RunOptions],
) -> SeatsResult:
    """Seat fairness: for each seat bonus, every seat's win share; and the bonus at which the
    seats come out even, where the least-squares slope of win share over seat index crosses
    zero (interpolated; its 95% interval from where the slope's band crosses zero). One spec
    plays every seat (each deal once: rotations would repeat identical games); 2 to 4 specs
    make a mixed table played in rotation. ``bonus``: a list, or text like ``"0:200:25"``."""
    import numpy as np

    from barbaron.harness import Arm
    from barbaron.stats import zero_crossing

    execution = _execution(options)
    bots = [bots] if isinstance(bots, str) else list(bots)
    if len(bots) == 1:
        bots = bots * players
    if not 2 <= len(bots) <= 4:
        raise UsageError(f"--bots takes 1 bot (with --players) or 2 to 4 bots; got {len(bots)}")
    build_bots(bots)
    bonuses = sorted(set(parse_values(bonus, "--bonus") if isinstance(bonus, str) else bonus))
    if not 1 <= len(bonuses) <= MAX_POINTS:
        raise UsageError(f"give 1 to {MAX_POINTS} seat bonuses, got {len(bonuses)}")
    players = len(bots)
    arms = [Arm(f"bonus={b}", tuple(bots), execution.rules(players, seat_bonus=b)) for b in bonuses]
    identical = len(set(bots)) == 1  # every rotation is the same game: play each deal once
    with _Run.open(
        "seats", execution, arms, games, rotate=execution.rotate and not identical
    ) as run:
        run.play()
        # the least-squares slope of win share over seat index, per deal: 0 when seats are even
        c = np.array([2 * s - (players - 1) for s in range(players)])  # 2 (s - mean seat)
        denominator = float(c @ c) / 2  # sum_s c_s (s - mean seat)
        points = []
        for b, total in zip(bonuses, run.totals, strict=True):
            arm = total.summary()
            slope = total.seat_contrast(c)
            points.append(
                {
                    "seat_bonus": b,
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
        edges = sorted(
            v for v in (zero_crossing(x, low), zero_crossing(x, high)) if not math.isnan(v)
        )
        even = {
            "bonus": zero_crossing(x, mean),
            "ci": [edges[0], edges[-1]] if len(edges) == 2 else [math.nan, math.nan],
        }
        summary = {
            "games": run.job.games,
            "bots": bots,
            "points": points,
            "even": even,
            "rotate": run.job.rotate,
            "seats": points[0]["seats"],
        }
        table = [{"seat_bonus": p["seat_bonus"], **seat} for p in points for seat in p["seats"]]
        return run.finish(SeatsResult, summary, table)


# --- sweep -----------------------------------------------------------------------------------
def sweep(
    bot: str,
    param: str,
    values: str | Sequence[object],
    *,
    field: str | Sequence[str] | None = None,
    players: int = 4,
    games: int = 20_000,
    **options: Unpack[RunOptions],
) -> SweepResult:
    """Play ``bot`` with each of ``values`` (a list, or text like ``"0:600:50"``) of its
    parameter ``param`` against a fixed field (default: the bot with its default parameters),
    in rotation: its win share per value."""
    from barbaron.harness import Arm
    from barbaron.registry import split_spec, with_param

    execution = _execution(options)
    values = parse_values(values, "--param") if isinstance(values, str) else list(values)
    if not 1 <= len(values) <= MAX_POINTS:
        raise UsageError(f"give 1 to {MAX_POINTS} values of {param}, got {len(values)}")
    field = field_of(field if field is not None else split_spec(bot)[0], players)
    specs = [with_param(bot, param, v) for v in values]
    build_bots(specs + field)
    rules = execution.rules(len(field) + 1)
    arms = [
        Arm(f"{param}={v}", (spec, *field), rules) for v, spec in zip(values, specs, strict=True)
    ]
    with _Run.open("sweep", execution, arms, games) as run:
        run.play()
        points = []
        for v, spec, total in zip(values, specs, run.totals, strict=True):
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
        columns = ("bot", "win_share", "win_share_ci", "mean_worth")
        summary = {
            "games": run.job.games,
            "bot": bot,
            "param": param,
            "field": list(field),
            "points": points,
            "best": {"value": best["value"], "win_share": best["win_share"]},
            "bots": [
                {"bot": p["bot"], "games": run.job.games, **{k: p[k] for k in columns[1:]}}
                for p in points
            ],
            "seats": points[0]["arm"]["seats"],
        }
        table = [
            {"param": param, "value": p["value"], **{k: p[k] for k in columns}} for p in points
        ]
        return run.finish(SweepResult, summary, table)

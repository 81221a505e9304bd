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
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Unpack

from barbaron import interrupts
from barbaron.config import DEFAULT_GAMES, MAX_GAMES, MAX_POINTS, PAIRED_ARMS, SPRT_LOOK
from barbaron.errors import RunFailed, RunInterrupted, UsageError
from barbaron.params import listed, whole
from barbaron.runs import (
    Execution,
    Run,
    RunOptions,
    RunResult,
    build_bots,
    check_magnitude,
    checked,
    distinct,
    execution_of,
    field_of,
    field_or_own,
    frame,
    games_or_default,
    identical_seats,
    lineup_bots,
    parameter_values,
    parse_values,
    shown,
    specs_of,
    table_of,
)
from barbaron.solve import SolveResult, solve_seats
from barbaron.strategy import IllegalDecision, StrategyError
from barbaron.tournament import TournamentResult, tournament
from barbaron.tuning import TuneResult, tune

if TYPE_CHECKING:
    import pandas as pd

    from barbaron.harness import Totals, UnitResult

__all__ = [
    "CompareResult",
    "Execution",
    "IllegalDecision",
    "PlayResult",
    "RunFailed",
    "RunInterrupted",
    "RunOptions",
    "RunResult",
    "SeatsResult",
    "SolveResult",
    "StrategyError",
    "SweepResult",
    "TournamentResult",
    "TuneResult",
    "UsageError",
    "build_bots",
    "compare",
    "field_of",
    "lineup_bots",
    "parameter_values",
    "parse_values",
    "play",
    "seats",
    "solve_seats",
    "sweep",
    "tournament",
    "tune",
]


# --- results ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class PlayResult(RunResult):
    """The result of :func:`play`; ``summary["seat_balance"]`` holds the seat-balance test."""


@dataclass(frozen=True)
class CompareResult(RunResult):
    """The result of :func:`compare`."""

    @property
    def bots(self) -> pd.DataFrame:
        """Per arm (``new``, ``base``) and bot, as ``summary.csv``: games, seats, role, win
        share with its 95% interval, mean worth, worth share."""
        return self._per_arm("bots")

    @property
    def seats(self) -> pd.DataFrame:
        """Per arm and seat: win share with its 95% interval, mean worth."""
        return self._per_arm("seats")

    def _per_arm(self, rows: str) -> pd.DataFrame:
        return frame([{"arm": a["label"], **row} for a in self.summary["arms"] for row in a[rows]])

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
    """The result of :func:`seats`: per seat bonus, each played as its own lineup."""

    @property
    def points(self) -> pd.DataFrame:
        """Per seat bonus and seat: win share with its 95% interval."""
        return self._per_bonus("seats")

    @property
    def seats(self) -> pd.DataFrame:
        """Per seat bonus and seat (as :attr:`points`)."""
        return self.points

    @property
    def bots(self) -> pd.DataFrame:
        """Per seat bonus and bot: games, seats, win share with its 95% interval, mean worth."""
        return self._per_bonus("bots")

    def _per_bonus(self, rows: str) -> pd.DataFrame:
        return frame(
            [
                {"seat_bonus": p["seat_bonus"], **row}
                for p in self.summary["points"]
                for row in p["arm"][rows]
            ]
        )

    @property
    def even(self) -> dict:
        """The bonus where the seats come out even (``bonus``), its 95% interval (``ci``), and
        where a parabola through the bonuses around it crosses zero (``bent``; outside ``ci``,
        the straight line between two bonuses played is off: play a finer grid there)."""
        return self.summary["even"]


@dataclass(frozen=True)
class SweepResult(RunResult):
    """The result of :func:`sweep`."""

    @property
    def points(self) -> pd.DataFrame:
        """Per value of the parameter: the bot spec, win share with its interval, mean worth,
        and the difference from the best value's win share with its paired interval."""
        return frame([{k: v for k, v in p.items() if k != "arm"} for p in self.summary["points"]])

    @property
    def best(self) -> dict:
        """The value with the highest win share: ``value``, ``win_share``, ``tied`` (values of
        the same share), ``within_interval`` (values not told apart from it:
        multiple comparisons with the best, paired by deal, ``PairedShares.possibly_best``)."""
        return self.summary["best"]

    @property
    def bots(self) -> pd.DataFrame:
        """Per value and bot: games, seats, role, win share with its interval, mean worth."""
        return self._per_value("bots")

    @property
    def seats(self) -> pd.DataFrame:
        """Per value and seat: win share with its 95% interval, mean worth."""
        return self._per_value("seats")

    def _per_value(self, rows: str) -> pd.DataFrame:
        return frame(
            [{"value": p["value"], **row} for p in self.summary["points"] for row in p["arm"][rows]]
        )


VS_BEST = ("vs_best", "vs_best_ci")  # a sweep's paired difference from its best value


def _takes_text(bot: str, param: str) -> bool:
    """Whether ``param`` of the bot a spec names has text as its default."""
    from barbaron.strategy import constructor_parameters

    (built,) = build_bots([bot])
    return any(
        p.name == param and isinstance(p.default, str) for p in constructor_parameters(type(built))
    )


def _as_spec_writes(value: object) -> object:
    """A sweep's value as a spec reads it back, so that the library's sweep plays and labels
    what the command line's does: text parsed (``"100"`` is 100, ``"none"`` None), a whole
    float a whole number (``1.0`` is 1)."""
    from barbaron.registry import parse_value

    if isinstance(value, str):
        return parse_value(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# --- play ------------------------------------------------------------------------------------
@interrupts.deferring
def play(
    bots: Sequence[str], *, games: int | None = None, **options: Unpack[RunOptions]
) -> PlayResult:
    """Play a lineup (one bot spec per seat, 2 to 4) ``games`` times, rotations included
    (default 20,000, rounded down to whole deals): each bot's and each seat's win share with
    95% intervals, mean worth, worth share, and the seat-balance test. The same spec in every
    seat plays each deal once: its rotations would repeat identical games."""
    from barbaron.harness import Arm

    execution = execution_of(options)
    bots = specs_of(bots, "--bots")
    rotate = execution.rotate and len(set(bots)) > 1  # one spec: rotations repeat its games
    games = games_or_default(games, DEFAULT_GAMES, len(bots) if rotate else 1)
    lineup_bots(bots)
    arm = Arm("play", tuple(bots), execution.rules(len(bots)))
    with Run.open("play", execution, [arm], games, rotate=rotate) as run:
        run.play()
        summary = run.totals[0].summary()
        summary.pop("label")
        summary["identical_seats"] = identical_seats(bots, execution.rotate)
        return run.finish(PlayResult, summary, summary["bots"])


# --- compare ---------------------------------------------------------------------------------
@interrupts.deferring
def compare(
    new: str,
    base: str,
    *,
    field: str | Sequence[str] = "normal",
    players: int | None = None,
    max_games: int = 100_000,
    elo0: float | None = None,
    elo1: float | None = None,
    **options: Unpack[RunOptions],
) -> CompareResult:
    """Is NEW stronger than BASE? Both play the same deals in the same seats against the same
    ``field`` (one spec for every other seat of a table of ``players``, default 4; or one spec
    per other seat, when ``players``, if given, must be their number + 1); the result is the
    paired difference of their win shares with its 95% interval. With ``elo0``/``elo1`` (at least
    0.5 Elo apart) a sequential probability ratio test stops as soon as the answer is clear (at
    most ``max_games`` games per arm; it looks every :data:`SPRT_LOOK` games, its units of work,
    so that where it stops does not depend on ``batch_size``: give none); otherwise
    ``max_games`` are played, rounded down to whole deals (a multiple of the rotations)."""
    from barbaron.harness import SHARE_SCALE, Arm
    from barbaron.stats import Estimate, Span, Sprt, difference_elo, estimate

    execution = execution_of(options)
    new = checked(new, "NEW", "spec")
    base = checked(base, "BASE", "spec")
    max_games = checked(max_games, "max_games", "whole")
    elo0 = checked(elo0, "elo0", "number", optional=True)
    elo1 = checked(elo1, "elo1", "number", optional=True)
    field = field_of(field, players)
    build_bots([new, base, *field])
    rules = execution.rules(len(field) + 1)
    arms = [
        Arm("new", (new, *field), rules, studied=True),
        Arm("base", (base, *field), rules, studied=True),
    ]
    sprt = None
    if elo0 is not None or elo1 is not None:
        try:
            sprt = Sprt(
                float(elo0) if elo0 is not None else 0.0, float(elo1) if elo1 is not None else 10.0
            )
        except ValueError as e:
            raise UsageError(str(e)) from None
        if options.get("batch_size", SPRT_LOOK) != SPRT_LOOK:
            raise UsageError(
                "--batch-size cannot be given with --elo0/--elo1: the SPRT looks every "
                f"{SPRT_LOOK:,} games per arm, and those are its units of work (so its answer "
                "never depends on them)"
            )
        execution = replace(execution, batch_size=SPRT_LOOK)
    rotations = len(field) + 1 if execution.rotate else 1
    games = max_games - max_games % rotations  # a maximum: whole deals only
    if not 1 <= games <= MAX_GAMES:
        raise UsageError(
            f"--max-games must be from {rotations} (one deal in every rotation) to "
            f"{MAX_GAMES:,}, got {max_games}"
        )
    scale = 2 * SHARE_SCALE * rotations  # score = 1/2 + (new - base) / 2 per deal
    paired = {"sum": 0, "sq": 0, "deals": 0, "differing": 0}
    trace: list[dict] = []

    score_span = Span(0.0, 1.0, rotations, paired=True)  # (a deal's games of each arm)

    def score() -> Estimate:
        return estimate(paired["sum"], paired["sq"], paired["deals"], scale, score_span)

    def on_unit(result: UnitResult, totals: list[Totals]) -> bool:
        new_share = result.tallies[0].position_share[:, 0].astype(object)
        base_share = result.tallies[1].position_share[:, 0].astype(object)
        v = SHARE_SCALE * rotations + (new_share - base_share)
        paired["sum"] += int(v.sum())
        paired["sq"] += int((v * v).sum())
        paired["deals"] += len(v)
        paired["differing"] += int((new_share != base_share).sum())
        if sprt is None:
            return False
        under_way = sprt.under_way(paired["differing"])  # (before: nan, null in summary.json)
        llr = sprt.llr(score()) if under_way else math.nan
        played = paired["deals"] * rotations
        trace.append({"games": played, "llr": llr})
        if execution.progress:
            from tqdm import tqdm

            lower, upper = sprt.bounds
            shown = f"{llr:+.3f}" if under_way else "not yet taken"
            tqdm.write(
                f"  {played:>10,} games per arm: LLR {shown} (bounds {lower:+.3f}, {upper:+.3f})"
            )
        return bool(sprt.decision(llr, paired["differing"]))

    settings = None if sprt is None else {"elo0": sprt.elo0, "elo1": sprt.elo1}
    with Run.open("compare", execution, arms, games, settings) as run:
        run.play(on_unit)
        est = score()
        diff = Estimate(
            2 * est.mean - 1, 2 * est.se, est.deals, Span(-1.0, 1.0, rotations, paired=True)
        )  # new - base
        arms_summary = [t.summary() for t in run.totals]
        summary = {
            "games": arms_summary[0]["games"],
            "new": new,
            "base": base,
            "field": list(field),
            "rules": arms_summary[0]["rules"],
            "bots": arms_summary[0]["bots"],
            "seats": arms_summary[0]["seats"],
            "arms": arms_summary,
            "own": [  # each arm's studied bot, its own seat
                {k: arm["bots"][0][k] for k in ("win_share", "win_share_ci")}
                for arm in arms_summary
            ],
            "difference": {
                "win_share": diff.mean,
                "win_share_ci": list(diff.ci),
                "deals": diff.deals,
                "differing_deals": paired["differing"],
                "elo": difference_elo(diff.mean),  # the SPRT's scale
                "elo_ci": [difference_elo(x) for x in diff.ci],
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
                "decision": sprt.decision(llr, paired["differing"]) or None,
                "trace": trace,
            }
        table = [{"arm": arm["label"], **bot} for arm in arms_summary for bot in arm["bots"]]
        return run.finish(CompareResult, summary, table)


# --- seats -----------------------------------------------------------------------------------
@interrupts.deferring
def seats(
    bots: str | Sequence[str],
    *,
    bonus: str | float | Sequence[float] = "0:200:25",
    players: int | None = None,
    games: int | None = None,
    **options: Unpack[RunOptions],
) -> SeatsResult:
    """Seat fairness: for each seat bonus, every seat's win share; and the bonus at which the
    seats come out even, where the least-squares slope of win share over seat index crosses
    zero (interpolated; its 95% interval from where the slope's band crosses zero, an edge nan
    where the band does not cross within the bonuses played). One spec
    plays every seat of a table of ``players`` (default 4; each deal once: rotations would
    repeat identical games); 2 to 4 specs make a mixed table played in rotation (``players``, if
    given, must be their number). ``bonus``: a list of whole numbers, one number, or text like
    ``"0:200:25"``; each bonus once. ``games`` per bonus: default 20,000, rounded down to whole
    deals."""
    import numpy as np

    from barbaron.harness import Arm
    from barbaron.stats import even_point

    execution = execution_of(options)
    if execution.seat_coins is not None:
        raise UsageError(
            "--seat-coins fixes every seat's start coins, leaving no seat bonus to vary: give "
            "--solve (solve_seats) to search from them, or play them with 'barbaron play'"
        )
    if execution.seat_bonus is not None:
        raise UsageError(
            "--seat-bonus is one bonus, and seats plays a range of them: give it as --bonus "
            f"{execution.seat_bonus} (or a range such as --bonus 0:200:25)"
        )
    bots = table_of(bots, players)
    bonuses = sorted(bonuses_of(bonus))
    players = len(bots)
    try:
        arms = [
            Arm(f"bonus={b}", tuple(bots), execution.rules(players, seat_bonus=b)) for b in bonuses
        ]
    except UsageError as e:  # a bonus the rules refuse: it came from --bonus (QA)
        raise UsageError(str(e).replace("--seat-bonus", "--bonus")) from None
    rotate = execution.rotate and len(set(bots)) > 1  # one spec: rotations repeat its games
    games = games_or_default(games, DEFAULT_GAMES, players if rotate else 1)
    with Run.open("seats", execution, arms, games, rotate=rotate) as run:
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
        even = even_point(points)
        summary = {
            "games": run.job.games,
            "bots": bots,
            "points": points,
            "even": even,
            "rotate": run.job.rotate,
            "identical_seats": identical_seats(bots, execution.rotate),
            "seats": points[0]["seats"],
        }
        table = [
            {"seat_bonus": p["seat_bonus"], **seat, "balance_p": p["seat_balance"]["p_value"]}
            | {"slope": p["slope"]}
            for p in points
            for seat in p["seats"]
        ]
        return run.finish(SeatsResult, summary, table)


def bonuses_of(bonus: object) -> list:
    """The seat bonuses of ``bonus``: text (``"0:200:25"``), one number, or a list of them;
    each once, 1 to MAX_POINTS of them, each a non-negative multiple of 5; else a UsageError."""
    bonus = listed(bonus)
    if isinstance(bonus, str):
        bonuses = parse_values(bonus, "--bonus")
    else:
        if isinstance(bonus, numbers.Real) and not isinstance(bonus, bool):
            bonus = [bonus]
        if isinstance(bonus, bytes | dict | set) or not isinstance(bonus, Sequence):
            raise UsageError(
                "bonus must be text like '0:200:25', a number or a list of numbers, got "
                f"{shown(bonus)}"
            )
        if not 1 <= len(bonus) <= MAX_POINTS:
            raise UsageError(f"give 1 to {MAX_POINTS} seat bonuses, got {len(bonus)}")
        bonuses = [whole(checked(b, "bonus", "number")) for b in bonus]  # 50.0 is 50
        bonuses = [int(b) if isinstance(b, float) and b.is_integer() else b for b in bonuses]
        bonuses = distinct(bonuses, "--bonus")
    for b in bonuses:
        if not (b >= 0 and b % 5 == 0):  # R9 (and no NaN)
            raise UsageError(
                "--bonus values must be whole, non-negative multiples of 5 (coins come in 5s), "
                f"got {b}"
            )
    return bonuses


# --- sweep -----------------------------------------------------------------------------------
@interrupts.deferring
def sweep(
    bot: str,
    param: str,
    values: str | Sequence[object],
    *,
    field: str | Sequence[str] | None = None,
    players: int | None = None,
    games: int | None = None,
    **options: Unpack[RunOptions],
) -> SweepResult:
    """Play ``bot`` with each of ``values`` (a list, or text like ``"0:600:50"``) of its
    parameter ``param`` (each value once) against a fixed field (default: the bot with its
    default parameters; one spec for every other seat of a table of ``players``, default 4, or
    one spec per other seat), in rotation: its win share per value, ``games`` each (default
    20,000, rounded down to whole deals)."""
    import numpy as np

    from barbaron.harness import SHARE_SCALE, Arm
    from barbaron.registry import with_param
    from barbaron.stats import PairedShares
    from barbaron.strategy import format_value

    execution = execution_of(options)
    bot = checked(bot, "--bot", "spec")
    param = checked(param, "param", "text")
    values = listed(values)
    text = _takes_text(bot, param)
    if isinstance(values, str):
        values = parameter_values(values, f"--param {param}", text_values=text)
    elif isinstance(values, bytes | dict | set) or not isinstance(values, Sequence):
        raise UsageError(
            f"values must be text like '0:600:50' or a list of values of {param}, "
            f"got {shown(values)}"
        )
    if not 1 <= len(values) <= MAX_POINTS:
        raise UsageError(f"give 1 to {MAX_POINTS} values of {param}, got {len(values)}")
    values = [v.item() if getattr(v, "ndim", None) == 0 else v for v in values]  # numpy's
    # the values the command line would give (a text parameter: as its spec writes them)
    for v in values:  # (the checks the text of --param makes)
        check_magnitude(v, param)
    values = [format_value(v) if text else _as_spec_writes(v) for v in values]
    for v in values:
        if isinstance(v, str) and "," in v:
            raise UsageError(
                f"a value of {param} holds a comma, which separates a spec's parameters: {v!r} "
                "(a spec inside a spec writes ';')"
            )
    values = distinct(values, f"the values of {param}")
    field = field_or_own(field, bot, players)
    rotations = len(field) + 1 if execution.rotate else 1
    games = games_or_default(games, DEFAULT_GAMES, rotations)
    specs = [with_param(bot, param, v) for v in values]
    build_bots(specs + field)
    rules = execution.rules(len(field) + 1)
    arms = [
        Arm(f"{param}={format_value(v)}", (spec, *field), rules, studied=True)
        for v, spec in zip(values, specs, strict=True)
    ]
    paired = (
        PairedShares(len(arms), SHARE_SCALE * rotations, rotations)
        if len(arms) <= PAIRED_ARMS
        else None
    )

    def on_unit(result: UnitResult, totals: list[Totals]) -> bool:
        paired.add(np.stack([t.position_share[:, 0] for t in result.tallies]))
        return False

    with Run.open("sweep", execution, arms, games) as run:
        run.play(on_unit=on_unit if paired is not None else None, stopping=False)
        points = []
        columns = ("bot", "win_share", "win_share_ci", "mean_worth")
        for v, spec, total in zip(values, specs, run.totals, strict=True):
            arm = total.summary()
            studied = arm["bots"][0]  # its own seat, apart from copies of its spec in the field
            points.append(
                {"value": v, "bot": spec, **{k: studied[k] for k in columns[1:]}, "arm": arm}
            )
        best = max(points, key=lambda p: p["win_share"])
        tied = [p["value"] for p in points if p is not best and p["win_share"] == best["win_share"]]
        at = points.index(best)
        for i, p in enumerate(points):  # paired by deal: the values played the same deals
            d = paired.difference(i, at) if paired is not None and i != at else None
            p["vs_best"], p["vs_best_ci"] = (None, None) if d is None else (d.mean, list(d.ci))
        if paired is not None:
            best["vs_best"], best["vs_best_ci"] = 0.0, [0.0, 0.0]
        close = [] if paired is None else paired.possibly_best()
        summary = {
            "games": run.job.games,
            "bot": bot,
            "param": param,
            "field": list(field),
            "rules": rules.record(),
            "points": points,
            "best": {
                "value": best["value"],
                "win_share": best["win_share"],
                "tied": tied,  # values with exactly the same win share (the first is "value")
                # the values not told apart from the best (multiple comparisons with the best)
                "within_interval": [points[i]["value"] for i in close if i != at],
            },
            "bots": [
                {"bot": p["bot"], "games": run.job.games, **{k: p[k] for k in columns[1:]}}
                for p in points
            ],
            "seats": points[0]["arm"]["seats"],
        }
        table = [
            {"param": param, "value": p["value"], **{k: p[k] for k in (*columns, *VS_BEST)}}
            for p in points
        ]
        return run.finish(SweepResult, summary, table)

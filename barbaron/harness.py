"""The tournament harness: plays deals across workers and returns data (rows and exact tallies).

A *job* is one or more *arms* (a lineup and its rules) played on the same deals. A deal is the
dice and cards of one stream index (``barbaron.streams``); in the duplicate format every deal
is played once per rotation of the lineup, so every bot sits in every seat equally often and
meets the same luck. Global game index = deal * rotations + rotation (with ``rotate=False``,
one rotation and game == deal). Work is cut into *units* of consecutive deals; a unit's result
depends only on (job, unit), never on the worker that played it, so any worker count, backend
or batch size gives the same games. The CLI, tables and plots only present what this returns.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import gc
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

import numpy as np

from barbaron import interrupts
from barbaron.config import (
    BACKENDS,
    DEFAULT_BATCH_SIZE,
    MAX_BATCH_SIZE,
    MAX_GAMES,
    MAX_INDEX,
    MAX_WORKERS,
    backend_named,
)
from barbaron.errors import RunFailed
from barbaron.params import nearest_deals
from barbaron.registry import make_bots
from barbaron.rules import Rules
from barbaron.stats import Estimate, Span, estimate, seat_balance
from barbaron.strategy import IllegalDecision, Strategy

SHARE_SCALE = 12  # win shares 1, 1/2, 1/3, 1/4 times 12 are whole numbers (R19)
FIXED = 1 << 32  # fixed-point scale for worth shares, so that their sums are exact integers


@dataclass(frozen=True)
class Arm:
    """One lineup under one set of rules; ``label`` names it in files and tables."""

    label: str
    bots: tuple[str, ...]  # one bot spec per seat, in seat order of rotation 0
    rules: Rules
    studied: bool = False  # lineup position 0 is the bot under study (compare, sweep, tune)

    def __post_init__(self) -> None:
        if len(self.bots) != self.rules.players:
            raise ValueError(
                f"{self.label}: {self.rules.players} players need "
                f"{self.rules.players} bots, got {len(self.bots)}"
            )

    @property
    def distinct_bots(self) -> tuple[str, ...]:
        """The different bot specs of the lineup, in order of first seat."""
        return tuple(dict.fromkeys(self.bots))

    @property
    def groups(self) -> tuple[tuple[str, tuple[int, ...], str | None], ...]:
        """The rows of the per-bot table: (spec, lineup positions, role). Each spec pools its
        positions; a studied bot is its own row (role "studied"), apart from any copies of its
        spec in the field (role "field"), whose figures are not its own."""
        if not self.studied:
            return tuple(
                (spec, tuple(p for p, b in enumerate(self.bots) if b == spec), None)
                for spec in self.distinct_bots
            )
        field = self.bots[1:]
        return ((self.bots[0], (0,), "studied"),) + tuple(
            (spec, tuple(p + 1 for p, b in enumerate(field) if b == spec), "field")
            for spec in dict.fromkeys(field)
        )


@dataclass(frozen=True)
class Job:
    """What to play: arms, deals, seed, rotation, how to split the work."""

    arms: tuple[Arm, ...]
    games: int  # games per arm, rotations included
    seed: int
    rotate: bool = True
    batch_size: int = DEFAULT_BATCH_SIZE  # games per unit of work (rounded to whole deals)
    workers: int = 1
    backend: str = "local"  # "local" (processes on this machine) or "dask"
    scheduler: str | None = None  # dask scheduler address

    def __post_init__(self) -> None:
        if not self.arms:
            raise ValueError("a job needs at least one lineup")
        if len({a.rules.players for a in self.arms}) != 1:
            raise ValueError("every lineup of a job must have the same number of players")
        if not 1 <= self.games <= MAX_GAMES:
            raise ValueError(
                f"--games must be from 1 to {MAX_GAMES:,} per lineup, got {self.games}"
            )
        if not 0 <= self.seed < MAX_INDEX:
            raise ValueError(f"--seed must be a whole number from 0 to 2**63 - 1, got {self.seed}")
        if self.games % self.rotations:
            raise ValueError(
                f"--games {self.games} is not a multiple of the {self.rotations} rotations "
                f"(each deal is played in every rotation): "
                f"{nearest_deals(self.games, self.rotations)}, or --no-rotate"
            )
        if not 1 <= self.batch_size <= MAX_BATCH_SIZE:
            raise ValueError(
                f"--batch-size must be from 1 to {MAX_BATCH_SIZE:,}, got {self.batch_size}"
            )
        if not 1 <= self.workers <= MAX_WORKERS:
            raise ValueError(f"--workers must be from 1 to {MAX_WORKERS}, got {self.workers}")
        object.__setattr__(self, "backend", backend_named(self.backend))
        if self.backend not in BACKENDS:
            raise ValueError(f"--backend must be local or dask, got {self.backend!r}")
        if self.backend == "dask" and not self.scheduler:
            raise ValueError("--backend dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")

    @property
    def players(self) -> int:
        return self.arms[0].rules.players

    @property
    def rotations(self) -> int:
        """Rotations played per deal: every seat shift of the lineup, or just the lineup."""
        return self.players if self.rotate else 1

    @property
    def deals(self) -> int:
        return self.games // self.rotations

    @property
    def deals_per_unit(self) -> int:
        return max(1, self.batch_size // self.rotations)

    @property
    def units(self) -> int:
        return -(-self.deals // self.deals_per_unit)

    def unit_deals(self, unit: int) -> np.ndarray:
        """The deal indices of unit ``unit``."""
        first = unit * self.deals_per_unit
        return np.arange(first, min(first + self.deals_per_unit, self.deals), dtype=np.int64)


@dataclass
class ArmRows:
    """One row per game and seat, for games.parquet (columns as in the README)."""

    game: np.ndarray  # int64 global game index: deal * rotations + rotation
    deal: np.ndarray  # int64
    rotation: np.ndarray  # int8
    seat: np.ndarray  # int8
    bot: np.ndarray  # int8 index into the arm's distinct bot specs
    start_coins: np.ndarray  # int32
    coins: np.ndarray  # int32
    worth: np.ndarray  # int32
    win_share: np.ndarray  # float64, R19
    bars: np.ndarray  # int8 bars owned at the end


@dataclass
class ArmTally:
    """Per-deal integer aggregates of one arm in one unit (sums over rotations).

    "Position" is a bot's place in the lineup as given (it sits in seat (position + r) mod P in
    rotation r); a spec that fills several positions is summed over them in the summaries.
    """

    position_share: np.ndarray  # (deals, players) int64: sum over rotations of 12 * win share
    seat_share: np.ndarray  # (deals, players) int64: the same per seat
    position_worth: np.ndarray  # (players,) int64 total worth
    seat_worth: np.ndarray  # (players,) int64 total worth
    position_worth_share: np.ndarray  # (players,) int64 sum of fixed-point worth shares


@dataclass
class UnitResult:
    """Everything one unit of work returns: rows and tallies per arm."""

    unit: int
    deals: np.ndarray
    rows: list[ArmRows]
    tallies: list[ArmTally]
    seconds: float = 0.0


def rotated(bots: tuple[str, ...], rotation: int) -> list[int]:
    """Which lineup position sits in each seat in a rotation: seat s holds bot (s - r) mod P."""
    players = len(bots)
    return [(seat - rotation) % players for seat in range(players)]


def play_unit(job: Job, unit: int, strategies: dict[str, Strategy] | None = None) -> UnitResult:
    """Play unit ``unit`` of ``job``: every arm, every rotation, on the unit's deals."""
    from barbaron.batch import play_batch  # (numba: loaded when the first game is played)

    start = time.perf_counter()
    strategies = strategies if strategies is not None else {}
    deals = job.unit_deals(unit)
    players, rotations = job.players, job.rotations
    rows, tallies = [], []
    for arm in job.arms:
        missing = [spec for spec in dict.fromkeys(arm.bots) if spec not in strategies]
        strategies.update(zip(missing, make_bots(missing), strict=True))
        lineup = [strategies[spec] for spec in arm.bots]
        distinct = arm.distinct_bots
        bot_of = np.array([distinct.index(spec) for spec in arm.bots], dtype=np.int8)
        n = deals.size
        shares12 = np.empty((rotations, n, players), dtype=np.int64)
        worth = np.empty((rotations, n, players), dtype=np.int64)
        coins = np.empty((rotations, n, players), dtype=np.int32)
        bars = np.empty((rotations, n, players), dtype=np.int8)
        seat_bot = np.empty((rotations, players), dtype=np.int8)  # lineup position per seat
        for r in range(rotations):
            order = rotated(arm.bots, r)
            seat_bot[r] = order
            try:
                out = play_batch(arm.rules, [lineup[i] for i in order], job.seed, deals)
            except IllegalDecision as e:
                raise _in_the_games_numbers(e, rotations, r, arm, len(job.arms)) from None
            win = out.winners
            shares12[r] = np.where(win, SHARE_SCALE // win.sum(axis=1, keepdims=True), 0)
            worth[r] = out.worth
            coins[r] = out.state.coins
            bars[r] = out.bars
        table = worth.sum(axis=2, keepdims=True)
        whole = np.maximum(table, 1)  # worth shares rounded to nearest (down lost a hair each)
        worth_share = np.where(table > 0, (worth * FIXED + whole // 2) // whole, FIXED // players)
        # seat s in rotation r holds lineup position seat_bot[r, s]: gather by position
        seat_of_position = np.argsort(seat_bot, axis=1)  # (rotations, players)
        seat_worth = worth.sum(axis=1)  # (rotations, players): summed before the gather
        seat_wshare = worth_share.sum(axis=1)
        tallies.append(
            ArmTally(
                position_share=sum(shares12[r][:, p] for r, p in enumerate(seat_of_position)),
                seat_share=shares12.sum(axis=0),
                position_worth=sum(seat_worth[r, p] for r, p in enumerate(seat_of_position)),
                seat_worth=seat_worth.sum(axis=0),
                position_worth_share=sum(seat_wshare[r, p] for r, p in enumerate(seat_of_position)),
            )
        )
        # rows ordered by game (deal-major, then rotation), then seat
        game = deals[:, None] * rotations + np.arange(rotations)[None, :]  # (n, r)
        rows.append(
            ArmRows(
                game=np.repeat(game.ravel(), players),
                deal=np.repeat(deals, rotations * players),
                rotation=np.tile(np.repeat(np.arange(rotations, dtype=np.int8), players), n),
                seat=np.tile(np.arange(players, dtype=np.int8), n * rotations),
                bot=np.tile(bot_of[seat_bot].ravel(), n),
                start_coins=np.tile(
                    np.array(
                        [arm.rules.seat_start_coins(s) for s in range(players)], dtype=np.int32
                    ),
                    n * rotations,
                ),
                coins=coins.transpose(1, 0, 2).ravel(),
                worth=worth.transpose(1, 0, 2).ravel().astype(np.int32),
                win_share=(shares12.transpose(1, 0, 2).ravel() / SHARE_SCALE),
                bars=bars.transpose(1, 0, 2).ravel(),
            )
        )
    return UnitResult(unit, deals, rows, tallies, time.perf_counter() - start)


def _in_the_games_numbers(
    error: IllegalDecision, rotations: int, rotation: int, arm: Arm, arms: int
) -> IllegalDecision:
    """``error`` naming its game as games.parquet does (the engine knows only the deal); a run
    kept in memory numbers its games alike, so the words hold there too."""
    if error.game is None:
        return error
    game = error.game * rotations + rotation
    where = f"deal {error.game}, rotation {rotation}: game {game}, as games.parquet numbers games"
    if arms > 1:
        where += f", lineup {' '.join(arm.bots)}"
    named = IllegalDecision(f"{error.message} ({where})")
    named.game = error.game
    return named


class Totals:
    """Exact running sums of one arm over all units so far (Python ints: no overflow, and the
    same totals whatever the order or size of the units)."""

    def __init__(self, arm: Arm, rotations: int) -> None:
        self.arm, self.rotations = arm, rotations
        players = arm.rules.players
        groups = arm.groups
        # (groups, positions): which lineup positions each row of the per-bot table pools
        self.member = np.array(
            [[p in positions for p in range(players)] for _, positions, _ in groups], dtype=np.int64
        )
        self.deals = 0
        zeros = np.zeros  # object arrays of Python ints
        self.position_share = zeros(players, dtype=object)
        self.position_share_sq = zeros(players, dtype=object)
        self.bot_share = zeros(len(groups), dtype=object)
        self.bot_share_sq = zeros(len(groups), dtype=object)
        self.seat_share = zeros(players, dtype=object)
        self.seat_cross = zeros((players, players), dtype=object)
        self.position_worth = zeros(players, dtype=object)
        self.seat_worth = zeros(players, dtype=object)
        self.position_worth_share = zeros(players, dtype=object)

    def add(self, tally: ArmTally) -> None:
        """Add one unit's tally: sums within a unit in int64 (a unit's values are small),
        then into the Python-int totals."""
        positions = tally.position_share
        per_bot = positions @ self.member.T  # (deals, bots)
        seats = tally.seat_share

        def exact(a: np.ndarray) -> np.ndarray:
            return a.astype(object)

        self.deals += len(seats)
        self.position_share += exact(positions.sum(axis=0))
        self.position_share_sq += exact((positions * positions).sum(axis=0))
        self.bot_share += exact(per_bot.sum(axis=0))
        self.bot_share_sq += exact((per_bot * per_bot).sum(axis=0))
        self.seat_share += exact(seats.sum(axis=0))
        self.seat_cross += exact(seats.T @ seats)
        self.position_worth += exact(tally.position_worth)
        self.seat_worth += exact(tally.seat_worth)
        self.position_worth_share += exact(tally.position_worth_share)

    def position_estimate(self, position: int) -> Estimate:
        """Win share of the bot at lineup position ``position`` (over its rotations)."""
        total, squares = int(self.position_share[position]), int(self.position_share_sq[position])
        scale = SHARE_SCALE * self.rotations
        return estimate(total, squares, self.deals, scale, self._span(1, total, squares, scale))

    def seat_contrast(self, weights: np.ndarray) -> Estimate:
        """Mean over deals of sum_s weights[s] * seat s's win share, with its interval."""
        w = np.asarray(weights, dtype=object)
        return estimate(
            int(w @ self.seat_share),
            int(w @ self.seat_cross @ w),
            self.deals,
            SHARE_SCALE * self.rotations,
        )

    @functools.cached_property
    def _one_bot(self) -> bool:
        """Whether every spec of the lineup builds one bot (built once, when first asked)."""
        from barbaron.runs import one_bot

        return one_bot(self.arm.bots)

    def _span(self, copies: int, total: int, squares: int, scale: int) -> Span:
        """What the mean share of a bot's ``copies`` can be in a deal (its sums over the deals:
        ``total`` and ``squares`` of the values times ``scale``): one game at most, and exactly
        1/copies where its copies fill the table (one of them always wins). Exactly 1/players
        where one bot, however spelt, sits in every seat in rotation: each position sat in every
        seat of one same game, and every deal gave it 1/players, as the sums confirm (the
        rotations of a bot that is not deterministic differ: it keeps its interval; QA: `hard
        hard:risk=0 hard hard` had intervals around its exact 0.25)."""
        players = self.arm.rules.players
        every_deal_even = total * players == self.deals * scale and squares * self.deals == total**2
        if self.rotations == players and self.deals and every_deal_even and self._one_bot:
            return Span(1 / players, 1 / players, self.rotations)
        share = 1 / copies
        return Span(share if copies == players else 0.0, share, self.rotations)

    def summary(self) -> dict:
        """Per bot and per seat: games, win share with 95% interval, mean worth; seat balance."""
        r, players = self.rotations, self.arm.rules.players
        games = self.deals * r
        copies = self.member.sum(axis=1)
        bots = []
        for b, (spec, _, role) in enumerate(self.arm.groups):
            total, squares = int(self.bot_share[b]), int(self.bot_share_sq[b])
            scale = SHARE_SCALE * r * int(copies[b])
            est = estimate(
                total, squares, self.deals, scale, self._span(int(copies[b]), total, squares, scale)
            )
            seats_played = games * int(copies[b])
            mine = self.member[b].astype(bool)
            bots.append(
                {
                    "bot": spec,
                    **({} if role is None else {"role": role}),
                    "games": games,
                    "seats": int(copies[b]),
                    "win_share": est.mean,
                    "win_share_ci": est.share_ci,
                    "mean_worth": float(sum(self.position_worth[mine])) / max(seats_played, 1),
                    "worth_share": float(sum(self.position_worth_share[mine]))
                    / FIXED
                    / max(seats_played, 1),
                }
            )
        seats = []
        for seat in range(players):
            est = estimate(
                int(self.seat_share[seat]),
                int(self.seat_cross[seat, seat]),
                self.deals,
                SHARE_SCALE * r,
                Span(0.0, 1.0, r),
            )
            seats.append(
                {
                    "seat": seat,
                    "win_share": est.mean,
                    "win_share_ci": est.share_ci,
                    "mean_worth": float(self.seat_worth[seat]) / max(games, 1),
                }
            )
        balance = seat_balance(
            self.seat_share,
            self.seat_cross,
            self.deals,
            SHARE_SCALE * r,
        )
        return {
            "label": self.arm.label,
            "rules": self.arm.rules.record(),
            "games": games,
            "deals": self.deals,
            "bots": bots,
            "seats": seats,
            # without rotation each seat of a mixed lineup held one bot: seats and bots together
            "seat_balance": {
                **balance.record(),
                "bots_fixed": r == 1 and len(bots) > 1 and not self._one_bot,
            },
        }


def new_totals(job: Job) -> list[Totals]:
    """Empty running sums, one per arm."""
    return [Totals(arm, job.rotations) for arm in job.arms]


@contextlib.contextmanager
def _dask_session(job: Job) -> Iterator:
    """A client of the job's dask scheduler for the block; the scheduler lost within it is a
    RunFailed naming it."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise RuntimeError(
            "--backend dask needs the dask extra: pip install -e '.[dask]'"
        ) from None
    client = _dask_client(Client, job.scheduler)
    from concurrent.futures import CancelledError

    from distributed.comm.core import CommClosedError

    with _silenced("distributed", "tornado"):  # closing a client whose scheduler is gone logs
        try:
            yield client
        except (CancelledError, CommClosedError) as e:  # the scheduler went away mid-run
            raise RunFailed(f"lost the dask scheduler at {job.scheduler}: {_reason(e)}") from e
        finally:
            client.close()


def _reason(error: BaseException) -> str:
    """Why dask cancelled a run's futures or closed its connection, in its own short words
    (``scheduler-connection-lost``), not a task's key."""
    groups = getattr(error, "error_groups", None)  # FuturesCancelledError: one per reason
    reason = groups[0].reason if groups else getattr(error, "reason", None)
    if isinstance(reason, str):
        return reason
    return (str(error).splitlines()[0] if str(error) else type(error).__name__).rstrip(".")


SCHEDULER_ANSWER_SECONDS = 20.0  # how long a dask scheduler gets to answer at the most


def _dask_client(client_class, address: str):
    """A dask client of the scheduler at ``address``, or a RuntimeError saying why not.

    distributed's own timeout covers the connection, not the handshake after it: a port that
    accepts and then never answers as a dask scheduler (a web server, say) held the run for
    ever. So the client is made on a daemon thread that gets ``SCHEDULER_ANSWER_SECONDS``."""
    import threading

    refused = _refused(address)
    if refused is not None:  # at once: dask's client would retry for its whole timeout
        raise RuntimeError(f"cannot reach the dask scheduler at {address}: {refused}")
    made: dict = {}

    def connect() -> None:
        try:
            made["client"] = client_class(address, timeout=f"{SCHEDULER_ANSWER_SECONDS / 2}s")
        except Exception as e:  # the scheduler is unreachable or refuses
            made["error"] = f"{type(e).__name__}: {e}"
            if "Worker.identity" in str(e):  # (QA: a worker's address answers that way)
                made["error"] = "it answers as a dask worker: give its scheduler's address"

    thread = threading.Thread(target=connect, name="barbaron-dask-connect", daemon=True)
    thread.start()
    thread.join(SCHEDULER_ANSWER_SECONDS)
    if thread.is_alive():
        made["error"] = (
            f"no dask scheduler answered within {SCHEDULER_ANSWER_SECONDS:g} s (is it a dask "
            "scheduler's address, tcp://HOST:8786?)"
        )
    if "error" in made:
        raise RuntimeError(f"cannot reach the dask scheduler at {address}: {made['error']}")
    return made["client"]


def _refused(address: str) -> str | None:
    """Why a ``tcp://HOST:PORT`` address refuses a connection at once (nothing listens there,
    or no such host), or None: it accepts one, or is of another protocol, or does not answer
    (dask's client, given its time, says what then)."""
    import socket
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(address)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if parts.scheme != "tcp" or host is None or port is None:
        return None
    try:
        with socket.create_connection((host, port), timeout=SCHEDULER_ANSWER_SECONDS / 2):
            return None
    except ConnectionRefusedError:
        return "connection refused (is a dask scheduler running there?)"
    except socket.gaierror as e:
        return f"unknown host {host!r}: {e.strerror}"
    except OSError:
        return None


@contextlib.contextmanager
def _silenced(*packages: str) -> Iterator[None]:
    """Within the block, the loggers of ``packages`` print nothing (distributed's client and
    tornado log a traceback for every attempt to reach a scheduler that is gone: the run says
    it in one line)."""
    names = [n for n in logging.root.manager.loggerDict if n.split(".")[0] in packages]
    loggers = [logging.getLogger(n) for n in {*packages, *names}]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def run_units(
    job: Job,
    units: Iterable[int],
    task: Callable[..., UnitResult] = play_unit,
    leftovers: list[UnitResult] | None = None,
    count: int | None = None,
    own_task: Callable[..., UnitResult] | None = None,
    on_start: Callable[[], None] | None = None,
) -> Iterator[UnitResult]:
    """Run ``task(job, unit)`` (by default :func:`play_unit`) for ``units`` on the job's
    workers and yield the results in unit order as they finish.

    On this machine the process itself is one of the workers: it plays units (with
    ``own_task``, by default ``task``) while the other ``workers - 1`` processes start and play
    theirs, so a second worker pays off at once (but once a helper is ready, this process plays
    nothing while its background work, the plots' import, runs: the helpers play on). When
    the run fails or is interrupted, the units that finished but could not be yielded yet (their
    turn had not come) are put in ``leftovers``, so that none of the work is lost (on an early
    stop too: the caller decides). ``count``: how many units there are, if known (no more
    helpers are started than units). ``on_start`` is called once the helper processes exist
    and have their first units (at once without any; on dask once the scheduler has answered):
    where to draw a progress bar and start a thread of this process (a background import),
    which a fork would copy half-way, its locks held.
    """
    on_start = on_start or (lambda: None)
    if job.backend == "dask":
        yield from _on_dask(job, units, task, on_start, leftovers)
        return
    helpers = min(job.workers, job.units if count is None else count) - 1
    strategies: dict[str, Strategy] = {}
    own_task = own_task or task
    if helpers <= 0:
        on_start()
        for unit in units:
            yield own_task(job, unit, strategies)
        return
    from concurrent.futures import FIRST_COMPLETED, wait

    parent = os.getpid()
    _load(job)  # before the helpers fork: they start with it all loaded
    _background_done()  # nor does a fork copy a thread of this process half-way through
    executor, warm = _start_helpers(helpers, parent)
    queue = iter(units)
    left = True  # units remain in the queue
    order: collections.deque[int] = collections.deque()  # units taken, in the order to yield
    running: dict[int, Future] = {}  # units the helpers play or played (until yielded)
    mine: dict[int, UnitResult] = {}  # units this process played
    started = False  # on_start called
    try:  # (from the first fork on: a helper that started is stopped whatever fails)
        # the helpers get units once they are ready: forked or kept ones at once (queued behind
        # a warm-up of milliseconds); a newly spawned one imports and loads the kernels first,
        # and until then this process plays on
        warming = [_submit(executor, _in_worker, _warm_up, parent, job, 0) for _ in range(helpers)]
        while True:
            ready = helpers if warm else sum(f.done() for f in warming)
            # two units ahead per helper, however many finished ones wait for their turn
            while left and sum(not f.done() for f in running.values()) < 2 * ready:
                if (unit := next(queue, None)) is None:
                    left = False
                else:
                    running[unit] = _submit(executor, _in_worker, task, parent, job, unit)
                    order.append(unit)
            if not started:  # once the helpers have their first units
                on_start()  # (a spawned helper may start later, but it copies no thread)
                started = True
            while order and (order[0] in mine or running[order[0]].done()):
                unit = order.popleft()
                yield mine.pop(unit) if unit in mine else running.pop(unit).result()
            # while the background import runs, a unit played here beside it takes several
            # times as long, and the helpers' queue ran dry meanwhile: this process only keeps
            # that queue filled then (unless no helper is ready yet to play instead)
            if left and (ready == 0 or not _background_busy()):
                if (unit := next(queue, None)) is None:
                    left = False
                else:
                    order.append(unit)  # play it here while the helpers play theirs
                    mine[unit] = own_task(job, unit, strategies)
            elif left or order:  # wait for a helper's unit (or its start), hearing Ctrl-C
                pending = [f for f in (*running.values(), *warming) if not f.done()]
                timeout = BACKGROUND_CHECK_SECONDS if left else INTERRUPT_CHECK_SECONDS
                if pending:
                    wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)
                else:  # nothing to wait for but the background work
                    time.sleep(timeout)
                interrupts.check()
                if pending and not any(f.done() for f in pending) and _a_helper_ended(executor):
                    raise BrokenProcessPool("a helper process ended while the run played")
            else:
                break
    except BaseException as error:  # an early stop, a failure or an interrupt: keep what finished
        if leftovers is not None:
            leftovers.extend(mine.values())
            leftovers.extend(
                f.result()
                for f in running.values()
                if f.done() and not f.cancelled() and f.exception() is None
            )
        ended = _exit_codes(executor)  # before this process kills the others
        _stop_helpers(executor)  # before going on: none may still write into the folder
        if isinstance(error, BrokenProcessPool):
            raise HelperDied(str(error), ended) from error
        raise
    _end_helpers(executor, helpers)


def _a_helper_ended(executor) -> bool:
    """Whether a helper of the pool has ended. One killed as it sent a result leaves half a
    message in the result pipe, which the pool's manager thread then waits for the rest of for
    ever: no future fails, and without this check the run would wait for ever too (QA)."""
    from multiprocessing.connection import wait

    processes = list(getattr(executor, "_processes", {}).values())
    return bool(processes) and bool(wait([p.sentinel for p in processes], timeout=0))


class HelperDied(BrokenProcessPool):
    """A helper process ended abruptly, with the ``exit_codes`` of :func:`_exit_codes`."""

    def __init__(self, message: str, exit_codes: list[int]) -> None:
        super().__init__(message)
        self.exit_codes = exit_codes


HELPER_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})  # set anew in a starting helper


START_METHOD = "fork" if sys.platform == "linux" else "spawn"  # how helper processes start
_kept: list = []  # spawned helpers kept for this process's next run: (their setting, pool)


def _start_helpers(helpers: int, parent: int) -> tuple[ProcessPoolExecutor, bool]:
    """A pool of ``helpers`` processes for the units of one run, and whether they are ready to
    play at once (forked, or kept from an earlier run).

    On Linux they are forks of this process, started once it is ready to play (its modules,
    bots and compiled kernels loaded): they play at once, where a fresh interpreter would
    spend a second importing and loading kernels while this process plays alone (issue 9).
    (multiprocessing flushes this process's output before it forks, so no helper writes
    buffered lines again: tested.) Elsewhere they are spawned (fork is unsafe on macOS): those
    take that second to start, so a run that ends well keeps them for the process's next run
    (:func:`_end_helpers`), as ``tune``'s trials or a sweep's points follow one another, if
    it needs as many, all still alive, in the same setting (:func:`_helper_setting`)."""
    import multiprocessing

    if _kept:
        setting, pool = _kept.pop()
        alive = all(p.is_alive() for p in pool._processes.values())
        if setting == _helper_setting(helpers) and alive and not pool._broken:
            return pool, True
        pool.shutdown(wait=False, cancel_futures=True)
    pool = ProcessPoolExecutor(
        helpers,
        mp_context=multiprocessing.get_context(START_METHOD),
        initializer=_helper_starts,
        initargs=(parent,),
    )
    return pool, START_METHOD == "fork"


def _end_helpers(executor, helpers: int) -> None:
    """The end of a run that went well: forked helpers end with it; spawned ones are kept."""
    if START_METHOD == "fork":
        executor.shutdown()
    else:
        _kept.append((_helper_setting(helpers), executor))


def _helper_setting(helpers: int) -> tuple:
    """What spawned helpers took from this process when they started and a later run must
    find unchanged to use them: their number, this process, its folder and import path (a
    plugin given by a relative path or as package.module), and the registry's scans."""
    from barbaron import registry

    return helpers, os.getpid(), os.getcwd(), tuple(sys.path), registry.resets()


def _exit_codes(executor) -> list[int]:
    """The exit codes of the pool's helpers that have ended, but for the SIGTERM the pool itself
    sends the others once one has died (a -9 hints at the system's out-of-memory killer).

    The pool's manager thread reaps the ended helpers at the same time (``Process.join``): a
    helper it has just reaped, but not yet noted the code of, reads as running for an instant,
    so an ended helper's code is read again until it is there."""
    from multiprocessing.connection import wait

    processes = list(getattr(executor, "_processes", {}).values())
    ended = set(wait([p.sentinel for p in processes], timeout=0))
    deadline = time.monotonic() + EXIT_CODE_SECONDS
    codes = []
    for process in processes:
        code = process.exitcode
        while code is None and process.sentinel in ended and time.monotonic() < deadline:
            time.sleep(0.001)
            code = process.exitcode
        if code is not None and code != -signal.SIGTERM:
            codes.append(code)
    return sorted(codes)


EXIT_CODE_SECONDS = 1.0  # how long an ended helper's exit code is waited for at most


_background: list = []  # threads of this process started by in_background, until joined


def in_background(work: Callable[[], None], name: str) -> None:
    """Run ``work()`` on a daemon thread of this process (an import the run needs later, while
    the games play in kernels that let go of the GIL). :func:`run_units` waits for such threads
    to end before it forks helpers: a fork copies a thread's locks, and a thread half-way
    through an import holds the import's."""
    import threading

    thread = threading.Thread(target=work, name=name, daemon=True)
    _background.append(thread)  # (first: a Ctrl-C within start() leaves no thread unlisted)
    thread.start()


def _background_busy() -> bool:
    """Whether a thread :func:`in_background` started is still running."""
    return any(thread.is_alive() for thread in _background)


def _background_done() -> None:
    """Wait for the threads :func:`in_background` started (an interrupted run's may still run)."""
    while _background:
        if _background[-1].ident is not None:  # (one a Ctrl-C kept from starting: no join)
            _background[-1].join()  # (a Ctrl-C in the join leaves it listed, to be waited for)
        _background.pop()


def _submit(executor, *call) -> Future:
    """``executor.submit(*call)`` with SIGINT and SIGTERM blocked for its instant: a helper
    process starts within a submit (all at the first with fork, one per submit with spawn),
    and a blocked signal stays blocked in the child until :func:`_helper_starts` has chosen
    what it does there. A signal in that instant is not lost: another thread of this process
    takes it."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, HELPER_SIGNALS)
    try:
        return executor.submit(*call)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _helper_starts(parent: int) -> None:
    """A helper process's first act. A terminal's Ctrl-C reaches every process of the run:
    this process handles it and kills its helpers (``_stop_helpers``), so a helper ignores it,
    where a forked one would run this process's handler; SIGTERM ends a helper at once, as it
    does any process. Then the helper watches its parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELPER_SIGNALS)
    _watch_parent(parent)


INTERRUPT_CHECK_SECONDS = 0.1  # how often a run waiting for its helpers looks for a Ctrl-C
BACKGROUND_CHECK_SECONDS = 0.01  # how often it looks whether its background work has ended
HELPERS_STOP_SECONDS = 10.0  # how long a stopping run waits for its killed helpers at most
MANAGER_STOP_SECONDS = 1.0  # how long the pool's manager thread gets to stop by itself


def _stop_helpers(executor) -> None:
    """Kill the run's helper processes at once (a failure or an interrupt) and wait until they
    are gone.

    A helper killed while it sends a result leaves half a message in the
    result pipe, whose writing end this process holds too, and the manager thread then waits
    for the rest for ever (seen once: a run interrupted during its first seconds hung). So the
    helpers are killed here; once they are gone the manager thread gets a second to stop, and
    only if it is still waiting is this process's writing end closed, so that the read ends
    (closing it while the thread closes it too printed the thread's traceback)."""
    from multiprocessing.connection import wait

    processes = list(getattr(executor, "_processes", {}).values())
    result_queue = getattr(executor, "_result_queue", None)
    manager = getattr(executor, "_executor_manager_thread", None)
    for process in processes:
        with contextlib.suppress(OSError, ValueError):
            process.kill()
    deadline = time.monotonic() + HELPERS_STOP_SECONDS
    alive = [p.sentinel for p in processes]
    while alive and (left := deadline - time.monotonic()) > 0:
        with contextlib.suppress(OSError, ValueError):
            gone = wait(alive, timeout=left)
            alive = [s for s in alive if s not in gone]
    executor.shutdown(wait=False, cancel_futures=True)
    if manager is None:
        return
    manager.join(timeout=MANAGER_STOP_SECONDS)  # it closes the pipe itself when it stops
    if manager.is_alive():  # waiting for the rest of a half message: end that read
        writer = getattr(result_queue, "_writer", None)
        if writer is not None:
            with contextlib.suppress(OSError):
                writer.close()
        manager.join(timeout=HELPERS_STOP_SECONDS)


DASK_UNITS_AHEAD = 4  # units in flight per worker thread of a dask cluster
DASK_CHECK_SECONDS = 5.0  # how often a dask run looks at its workers while it waits
DASK_PAUSED_SECONDS = 120.0  # how long every worker may stay paused before the run ends


def _on_dask(
    job: Job,
    units: Iterable[int],
    task: Callable[..., UnitResult],
    on_start: Callable[[], None],
    leftovers: list[UnitResult] | None,
):
    """The units on a dask cluster, yielded in unit order (``on_start`` once the scheduler has
    answered), :data:`DASK_UNITS_AHEAD` in flight per worker thread of the cluster.

    Each unit's result comes to this process as soon as it finishes, whatever its place: a
    worker that dies loses no finished unit (QA: a unit killing the one worker that held the
    others' results lost them all). A unit whose workers all died while they played it (dask
    runs it again on another, ``distributed.scheduler.allowed-failures`` times) ends the run
    in a RunFailed naming it, as does a cluster whose every worker stayed paused (memory above
    ``distributed.worker.memory.pause``) for :data:`DASK_PAUSED_SECONDS`; a cluster without
    workers is waited for, as dask does. A unit's failure is raised in its turn, as on this
    machine. On a failure or an interrupt the units that finished go to ``leftovers``;
    whatever ends the run, those still in flight are cancelled."""
    import distributed

    from barbaron.results import code_hash, job_plugin_hashes

    here = (code_hash(), job_plugin_hashes(job))
    with interrupts.immediate(), _dask_session(job) as client:
        on_start()
        queue = iter(units)
        order: collections.deque[int] = collections.deque()  # units taken, in the order to yield
        flying: dict = {}  # future -> its unit, until its result is here
        finished: dict[int, UnitResult | BaseException] = {}  # results (or failures) here
        paused_since: float | None = None
        try:
            while True:
                ahead = DASK_UNITS_AHEAD * max(1, sum(client.nthreads().values()))
                while len(flying) < ahead and (unit := next(queue, None)) is not None:
                    future = client.submit(_as_here, task, here, job, unit, pure=False)
                    flying[future] = unit
                    order.append(unit)
                while order and order[0] in finished:
                    result = finished.pop(order.popleft())
                    if isinstance(result, BaseException):
                        raise result
                    yield result
                if not order:
                    return
                try:
                    done, _ = distributed.wait(
                        list(flying), timeout=DASK_CHECK_SECONDS, return_when="FIRST_COMPLETED"
                    )
                except TimeoutError:
                    paused_since = _still_paused(client, paused_since)
                    continue
                paused_since = None
                ready = [f for f in done if f.status == "finished"]
                for future, result in zip(ready, client.gather(ready), strict=True):  # at once
                    finished[flying.pop(future)] = result
                for future in done - set(ready):
                    unit = flying.pop(future)
                    finished[unit] = _failure(future, job, unit)
        except GeneratorExit:  # an early stop: the units in flight are not wanted
            raise
        except BaseException:
            if leftovers is not None:
                leftovers.extend(r for r in finished.values() if isinstance(r, UnitResult))
            raise
        finally:
            with contextlib.suppress(Exception):  # (a scheduler that is gone has none queued)
                client.cancel(list(flying))


def _failure(future, job: Job, unit: int) -> BaseException:
    """The failure of a unit that did not finish, to raise in its turn."""
    from concurrent.futures import CancelledError

    from distributed.scheduler import KilledWorker

    error = future.exception()
    if isinstance(error, CancelledError):  # the scheduler is gone: the run ends now
        raise error
    if isinstance(error, KilledWorker):
        return RunFailed(_killed_worker(job, unit, error))
    return error  # the unit's own failure (a bot's error, other code on a worker)


def _still_paused(client, since: float | None) -> float | None:
    """When every worker of the cluster was first seen paused (None if one is not), raising
    a RunFailed once that has lasted :data:`DASK_PAUSED_SECONDS`: dask gives a paused worker
    no work, so the run would wait for ever (QA: a bot holding 300 MB on workers of 600 MB)."""
    try:
        info = client.scheduler_info(n_workers=-1)  # (all of them: some versions show 5)
    except TypeError:  # a distributed that shows them all without being asked
        info = client.scheduler_info()
    workers = info.get("workers", {})
    if not workers or any(w.get("status") != "paused" for w in workers.values()):
        return None
    now = time.monotonic()
    if since is None:
        return now
    if now - since >= DASK_PAUSED_SECONDS:
        raise RunFailed(
            f"every dask worker has been paused for {DASK_PAUSED_SECONDS:g} s, its memory above "
            "dask's pause threshold (distributed.worker.memory.pause): a bot that holds memory, "
            "or workers with too little (give them more memory or fewer threads)"
        )
    return since


def _killed_worker(job: Job, unit: int, error: Exception) -> str:
    """The line for a unit that every dask worker which played it died of."""
    deals = job.unit_deals(unit)
    tries = getattr(error, "allowed_failures", None)
    workers = {
        0: "the dask worker that played it",
        None: "every dask worker that played it",
    }.get(tries, f"each of the {tries + 1} dask workers that played it")
    return (
        f"unit {unit} (deals {deals[0]}..{deals[-1]}) ended the process of {workers}: a bot "
        "that exits the process, crashes the interpreter or goes past the worker's memory "
        "limit (the workers' logs say which)"
    )


def _as_here(task: Callable[..., UnitResult], here: tuple, job: Job, unit: int) -> UnitResult:
    """``task(job, unit)`` on a dask worker, once it is known to run this process's barbaron
    and to read the same plugin files (``here``: their hashes): other code would play other
    games under this run's name (QA: a worker of modified rules, or one whose folder held
    another file of a relative plugin's name, gave other results and exit 0)."""
    import socket

    from barbaron.results import code_hash, job_plugin_hashes

    code, plugins = here
    where = f"the dask worker on {socket.gethostname()} (pid {os.getpid()}, in {os.getcwd()})"
    if code_hash() != code:
        raise RunFailed(
            f"{where} runs other barbaron code (code {code_hash()[:12]}, here {code[:12]}): "
            "every worker needs the barbaron, and the bots, this process runs"
        )
    theirs = job_plugin_hashes(job)
    if differ := sorted(n for n in {*plugins, *theirs} if plugins.get(n) != theirs.get(n)):
        raise RunFailed(
            f"{where} reads other plugin files than this process ({', '.join(differ)}: other "
            "or missing there): give the workers the same files, by absolute paths or on their "
            "PYTHONPATH"
        )
    return task(job, unit)


def _load(job: Job) -> None:
    """Load what playing ``job`` takes (modules, bots, compiled kernels): one game per arm."""
    from barbaron.batch import play_batch

    for arm in job.arms:  # (deal 0 in rotation 0: an illegal answer is named as play_unit's)
        try:
            play_batch(arm.rules, make_bots(arm.bots), job.seed, np.arange(1))
        except IllegalDecision as e:
            raise _in_the_games_numbers(e, job.rotations, 0, arm, len(job.arms)) from None


def _warm_up(job: Job, unit: int, strategies: dict | None = None) -> None:
    """Get a helper process ready to play ``job`` (:func:`_load`; a forked one has it all
    loaded already, and its one game per arm takes a few milliseconds).

    What it loaded is then frozen out of the garbage collector, as the command's own process
    does before it exits (``cli.entry``): a spawned helper's last collection, which the run
    waits for at its end, no longer walks numba's objects."""
    _load(job)
    gc.freeze()


def _in_worker(task: Callable[..., UnitResult], parent: int, job: Job, unit: int) -> UnitResult:
    """``task(job, unit)`` in a worker process that ends itself as soon as the process that
    started the run is gone, however that ended (no orphans playing on)."""
    _watch_parent(parent)
    return task(job, unit)


def _watch_parent(parent: int) -> None:
    """In a worker process: end it as soon as ``parent`` is gone (checked twice a second). Run
    when the worker starts, and again with every task (a worker of a dask cluster has another
    parent: it is left alone)."""
    import threading

    name = "barbaron-watch-parent"
    if os.getppid() != parent:
        if os.getppid() == 1:  # the run's process died while this one was starting
            os._exit(1)
        return
    if not any(t.name == name for t in threading.enumerate()):
        threading.Thread(target=_exit_with_parent, args=(parent,), name=name, daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)

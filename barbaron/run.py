"""Running a job into a results folder, with a progress bar; returns the exact totals."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from tqdm import tqdm

from barbaron import interrupts
from barbaron.errors import RunFailed
from barbaron.harness import Job, Totals, UnitResult, new_totals, run_units
from barbaron.results import InMemory, RunFolder


class _Bar(tqdm):
    """tqdm without its monitor thread (it refreshes a bar left alone for 10 s, and this one is
    updated after every unit): so no thread of this process is copied when helpers fork."""

    monitor_interval = 0


@dataclass
class RunOutcome:
    """What a run played: totals per arm, and the time it took."""

    totals: list[Totals]
    seconds: float
    stopped_early: bool
    games_now: int  # games played by this call (a resumed run counts only its new ones)


def execute(
    job: Job,
    folder: RunFolder | InMemory,
    *,
    quiet: bool = False,
    on_unit: Callable[[UnitResult, list[Totals]], bool] | None = None,
    stopping: bool = True,
    on_start: Callable[[], None] | None = None,
) -> RunOutcome:
    """Play the job's units not yet in ``folder``, writing each as it finishes.

    ``on_unit`` sees every unit (those of an interrupted run first, replayed from their
    tallies) with the totals so far, and returns True to stop early; the games played are
    then deals 0..k of every arm. For that it sees them in order: of an interrupted run's
    units only the first ones without a gap are kept. Without ``stopping`` (a callback that
    only adds up, never stops) every finished unit is kept, and seen first. Ctrl-C and
    SIGTERM while it plays are raised at safe points: between turn slots and units
    (``barbaron.interrupts``). ``on_start``: see :func:`~barbaron.harness.run_units`.
    """
    with interrupts.deferred():
        return _play_units(job, folder, quiet, on_unit, stopping, on_start)


def _play_units(
    job: Job,
    folder: RunFolder | InMemory,
    quiet: bool,
    on_unit: Callable[[UnitResult, list[Totals]], bool] | None,
    stopping: bool,
    on_start: Callable[[], None] | None,
) -> RunOutcome:
    """:func:`execute`'s work."""
    totals = new_totals(job)
    done = folder.done_units()
    if on_unit is not None and stopping:  # a stopping rule sees deals 0..k: the done prefix
        prefix = next((i for i, unit in enumerate(done) if unit != i), len(done))
        folder.drop(done[prefix:])  # played again, in order
        done = done[:prefix]
    stopped = False
    for index, unit in enumerate(done):
        tallies = folder.load_tallies(unit)
        for total, tally in zip(totals, tallies, strict=True):
            total.add(tally)
        if on_unit is not None:
            deals = job.unit_deals(unit)
            if on_unit(UnitResult(unit, deals, [], tallies), totals):
                stopped = True
                folder.drop(done[index + 1 :])  # past the stop: not part of the result
                done = done[: index + 1]
                break
    finished = set(done)
    todo = (u for u in range(0 if stopped else job.units) if u not in finished)
    per_deal = job.rotations * len(job.arms)
    bars: list[_Bar] = []  # drawn once the workers are there (a dask scheduler may not answer)

    def started() -> None:
        bars.append(
            _Bar(
                total=job.deals * per_deal,
                initial=sum(len(job.unit_deals(u)) for u in done) * per_deal,
                unit=" games",
                unit_scale=True,
                disable=quiet,
                smoothing=0.1,
                dynamic_ncols=True,
                desc="playing",
            )
        )
        if on_start is not None:
            on_start()

    start = time.perf_counter()
    games_now = 0
    leftovers: list[UnitResult] = []
    left = 0 if stopped else job.units - len(finished)
    results = run_units(
        job,
        todo,
        folder.unit_task(),
        leftovers,
        count=left,
        own_task=folder.own_task(),
        on_start=started,
    )
    try:
        for result in _dead_workers_named(results, job, finished):
            folder.add(result)
            for total, tally in zip(totals, result.tallies, strict=True):
                total.add(tally)
            bars[0].update(len(result.deals) * per_deal)
            games_now += len(result.deals) * per_deal
            interrupts.check()  # between units too
            if on_unit is not None and on_unit(result, totals):
                stopped = True
                break
    except BaseException:  # keep every unit that finished, in whatever order, for --resume
        results.close()  # stops the workers, and hands over what finished but was not yielded
        for result in leftovers:
            with contextlib.suppress(Exception):  # best effort: the run is failing already
                folder.add(result)
        raise
    finally:
        results.close()  # an early stop: cancel the units still queued before finishing
        for bar in bars:
            bar.close()
    return RunOutcome(totals, time.perf_counter() - start, stopped, games_now)


def _dead_workers_named(
    results: Iterator[UnitResult], job: Job, finished: set[int]
) -> Iterator[UnitResult]:
    """The results in unit order; a worker process that dies becomes a RunFailed naming the
    unit the run was waiting for (the first not finished after the last one received), with
    the exit codes ``harness.run_units`` found. (A terminal's Ctrl-C cannot kill one: helpers
    ignore it, see ``harness``.)"""
    last = -1
    try:
        for result in results:
            last = result.unit
            yield result
    except BrokenProcessPool as e:
        codes = ", ".join(map(str, getattr(e, "exit_codes", [])))
        unit = next(u for u in range(last + 1, job.units) if u not in finished)
        deals = job.unit_deals(unit)
        raise RunFailed(
            f"a worker process died{f' (exit codes {codes})' if codes else ''} "
            f"while unit {unit} (deals {deals[0]}..{deals[-1]}) or a later one was played"
        ) from None

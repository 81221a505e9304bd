"""Throughput and memory: of the batch engine on one core, and of whole commands as users run
them (start-up, workers, writing included)."""

from __future__ import annotations

import os
import resource
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from barbaron import interrupts
from barbaron.batch import play_batch
from barbaron.rules import Rules
from barbaron.strategy import Strategy
from barbaron.testing import fresh_python


@dataclass(frozen=True)
class BenchResult:
    """One lineup's measurement."""

    games: int
    seconds: float
    peak_mb: float  # the process's peak resident memory so far

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds


def bench_lineup(
    rules: Rules, strategies: list[Strategy], games: int, batch_size: int
) -> BenchResult:
    """Play ``games`` games in batches of ``batch_size`` (after an untimed warm-up)."""
    play_batch(rules, strategies, 0, np.arange(min(batch_size, 64)))  # compile, not timed
    start = time.perf_counter()
    for first in range(0, games, batch_size):
        play_batch(rules, strategies, 0, np.arange(first, min(first + batch_size, games)))
    seconds = time.perf_counter() - start
    return BenchResult(games, seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


@dataclass(frozen=True)
class CommandTiming:
    """One whole ``barbaron`` command, timed from the shell's point of view."""

    argv: tuple[str, ...]
    seconds: float  # wall clock, start-up and writing included
    peak_mb: float  # the largest resident memory of the command or any of its workers
    status: int

    @property
    def line(self) -> str:
        return "barbaron " + " ".join(self.argv)


def time_command(argv: list[str], out: Path | None = None) -> CommandTiming:
    """Run ``barbaron ARGV [--out OUT]`` in a fresh process and time it."""
    full = [*argv, *(["--out", str(out)] if out is not None else [])]
    start = time.perf_counter()
    with interrupts.deferred():  # (one that came while it started would orphan the command)
        command, env = fresh_python("barbaron.cli", *full)  # (this barbaron, as the console
        process = subprocess.Popen(  # script runs it: not the current folder first)
            command,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            with interrupts.immediate():  # (raises one noted as it started, then any at once)
                _, status, usage = os.wait4(process.pid, 0)
        except BaseException:  # Ctrl-C or SIGTERM: the command ends too, before its folder goes
            process.terminate()
            process.wait()
            raise
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return CommandTiming(tuple(argv), seconds, usage.ru_maxrss / 1024, process.returncode)


@dataclass(frozen=True)
class Target:
    """One figure of the end-to-end benchmark against what it should reach: ``value`` is the
    median of the rounds' ``values`` (one per round, or none for a figure measured once)."""

    name: str
    value: float
    goal: float
    higher_is_better: bool
    how: str  # the commands it comes from
    values: tuple[float, ...] = ()

    @property
    def met(self) -> bool:
        return self.value >= self.goal if self.higher_is_better else self.value <= self.goal

    @classmethod
    def of_rounds(
        cls, name: str, values: list[float], goal: float, higher_is_better: bool, how: str
    ) -> Target:
        """The figure of several rounds: their median, each round's value kept."""
        return cls(name, float(np.median(values)), goal, higher_is_better, how, tuple(values))


def end_to_end(scale: float = 1.0, repeat: int = 1, echo=print) -> list[Target]:
    """The whole-command figures users see, against the engine's own throughput measured in
    the same session: start-up, 1 worker against the engine, 2 workers against 1, Hard's speed,
    and memory against the number of games. ``scale`` shrinks every run (1 = full size). The
    ratios are measured ``repeat`` times, each round running every command once in turn, and
    each figure is the median of its rounds: on a shared machine one round's ratio moves by a
    quarter from one minute to the next."""
    from barbaron.registry import make_bot

    threshold = "threshold:buy=0,takeover=none,upgrade=0"

    def engine(spec: str, games: int) -> float:
        bots = [make_bot(spec) for _ in range(4)]
        result = bench_lineup(Rules(players=4), bots, games, 16384)
        echo(f"  engine, 4 {spec}: {result.games_per_second:,.0f} games/s")
        return result.games_per_second

    def play(spec: str, games: int, workers: int, *extra: str) -> float:
        argv = ["play", "--bots", *[spec] * 4, "--games", str(games), "--workers", str(workers)]
        with tempfile.TemporaryDirectory() as tmp:
            timing = time_command([*argv, *extra, "--quiet"], Path(tmp) / "out")
        if timing.status != 0:
            raise RuntimeError(f"{timing.line} failed with exit status {timing.status}")
        echo(f"  {timing.line}: {timing.seconds:.2f} s, {timing.peak_mb:,.0f} MB")
        return timing.seconds

    def startup(argv: list[str]) -> float:
        with tempfile.TemporaryDirectory() as tmp:  # (an --out, where the command takes one)
            out = Path(tmp) / "out" if "--bots" in argv else None
            seconds = sorted(time_command(argv, out).seconds for _ in range(3))[1]
        echo(f"  barbaron {' '.join(argv)}: {seconds:.3f} s (median of 3)")
        return seconds

    def peak(games: int) -> float:
        with tempfile.TemporaryDirectory() as tmp:
            argv = ["play", "--bots", *["normal"] * 4, "--games", str(games), "--quiet"]
            timing = time_command([*argv, "--workers", "2"], Path(tmp) / "out")
        echo(f"  {timing.line}: peak {timing.peak_mb:,.0f} MB")
        return timing.peak_mb

    big, mid = max(4, int(1_000_000 * scale)), max(4, int(400_000 * scale))
    big -= big % 4
    mid -= mid % 4
    targets = []
    echo("start-up")
    commands = (["--help"], ["bots"], ["play"], ["play", "--bots", "nobody", "greedy"])
    slowest = max(startup(a) for a in commands)
    targets.append(
        Target(
            "start-up, slowest of --help, bots, two usage errors (s)",
            slowest,
            0.4,
            False,
            "barbaron --help; barbaron bots; barbaron play (no --bots); barbaron play --bots "
            "nobody greedy --out DIR (an unknown bot)",
        )
    )
    rounds: dict[str, list[float]] = {"engine": [], "workers": [], "normal": [], "hard": []}
    for r in range(repeat):
        if repeat > 1:
            echo(f"round {r + 1} of {repeat}")
        echo("engine and whole commands, 4 threshold bots")
        rate = engine(threshold, max(16384, big // 4))
        one = play(threshold, big, 1, "--no-rotate")
        two = play(threshold, big, 2, "--no-rotate")
        echo("whole commands, 4 Normal")
        normal_one, normal_two = play("normal", mid, 1), play("normal", mid, 2)
        echo("Hard against the threshold bot, engine")
        hard = engine("hard", max(16384, big // 8))
        rounds["engine"].append(big / one / rate)
        rounds["workers"].append(one / two)
        rounds["normal"].append(normal_one / normal_two)
        rounds["hard"].append(hard / rate)
    targets += [
        Target.of_rounds(
            "1 worker, whole command / engine",
            rounds["engine"],
            2 / 3,
            True,
            f"play 4 threshold --games {big} --no-rotate --workers 1",
        ),
        Target.of_rounds(
            "2 workers / 1 worker, same command",
            rounds["workers"],
            1.7,
            True,
            "the same with --workers 2",
        ),
        Target.of_rounds(
            "2 workers / 1 worker, 4 Normal",
            rounds["normal"],
            1.6,
            True,
            f"play 4 normal --games {mid} --workers 2 and 1",
        ),
        Target.of_rounds(
            "4 Hard / 4 threshold, engine",
            rounds["hard"],
            0.5,
            True,
            "bench hard-4p against threshold-4p",
        ),
    ]
    echo("memory")
    small_games, large_games = max(4, int(200_000 * scale)), max(4, int(2_000_000 * scale))
    ratio = peak(large_games - large_games % 4) / peak(small_games - small_games % 4)
    targets.append(
        Target(
            "peak memory, 10x the games (ratio)",
            ratio,
            1.2,
            False,
            f"play 4 normal --games {large_games} against {small_games}",
        )
    )
    return targets

"""Throughput and memory of the batch engine on one core."""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass

import numpy as np

from barbaron.batch import play_batch
from barbaron.rules import Rules
from barbaron.strategy import Strategy


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

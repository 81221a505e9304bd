"""Test helpers: where the conformance suite lives; seeded random chance and players."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from barbaron import rules as R
from barbaron.strategy import GameView, ScalarStrategy, Strategy

REPO = Path(__file__).resolve().parents[1]
CONFORMANCE = REPO.parent / "shared" / "conformance"
CONFORMANCE_FILES = sorted(CONFORMANCE.glob("*.json"))

# A shell that starts the suite in the background starts it with Ctrl-C ignored, which barbaron
# rightly leaves ignored (and the subprocesses inherit): the tests of Ctrl-C need Python's own.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _a_study_state_of_its_own():
    """A study's --force and --quiet (context variables of ``experiments.common``, set by the
    study that ran last in this thread) do not carry over to the next test's sub-runs."""
    yield
    import sys

    common = sys.modules.get("experiments.common")
    if common is not None:
        common.FORCED.set(None)
        common.QUIET.set(True)


class GeneratorChance:
    """Dice and shuffles from an explicit numpy Generator (tests only; no global RNG)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def roll(self) -> tuple[int, int]:
        a, b = self.rng.integers(1, 7, size=2)
        return int(a), int(b)

    def deck_order(self, shuffle: int) -> list[int]:
        return [int(c) for c in self.rng.permutation(R.N_CARDS)]


class CoinFlipBot(ScalarStrategy):
    """Decides every open choice at random from its own Generator: reaches every rule path."""

    def __init__(self, rng: np.random.Generator, p: float = 0.6) -> None:
        self.rng, self.p = rng, p

    def upgrade_one(self, view: GameView) -> int | None:
        if self.rng.random() > self.p:
            return None
        options = [
            b
            for b in range(R.N_BARS)
            if view.owner[b] == view.seat
            and view.level[b] < R.MAX_LEVEL
            and R.upgrade_cost(b) <= view.coins[view.seat]
        ]
        return int(self.rng.choice(options))

    def buy_one(self, view: GameView, bar: int) -> bool:
        return bool(self.rng.random() < self.p)

    def takeover_one(self, view: GameView, bar: int) -> bool:
        return bool(self.rng.random() < self.p)


class RandomBatchBot(Strategy):
    """A batch strategy that decides at random from its per-game stream (view.uniform)."""

    def __init__(self, p: float = 0.5) -> None:
        self.p = p

    def __repr__(self) -> str:
        return f"RandomBatchBot({self.p})"

    def upgrade(self, view, games):
        ok = (
            (view.owner[games] == view.seat)
            & (view.level[games] < R.MAX_LEVEL)
            & (R.UPGRADE_COST_TABLE <= view.coins[games, view.seat][:, None])
        )
        pick = (view.uniform(games, 1) * ok.sum(axis=1)).astype(int)  # the pick-th legal bar
        rank = np.cumsum(ok, axis=1) - 1
        choice = np.argmax(ok & (rank == pick[:, None]), axis=1)
        return np.where(view.uniform(games, 0) < self.p, choice, -1).astype(np.int8)

    def buy(self, view, games, bars):
        return view.uniform(games) < self.p

    def takeover(self, view, games, bars):
        return view.uniform(games) < self.p


def interrupted_at(folder_path: Path, job, unit: int, force: bool = False) -> None:
    """Play ``job`` into the results folder ``folder_path`` (with ``force``: beside an earlier
    run there) until unit ``unit`` finishes, then Ctrl-C: leaves the interrupted run's partial
    folder."""
    from barbaron.results import RunFolder
    from barbaron.run import execute

    def interrupt(result, totals):
        if result.unit == unit:
            raise KeyboardInterrupt

    folder = RunFolder(folder_path, job, "play", force=force)
    with pytest.raises(KeyboardInterrupt):
        execute(job, folder, quiet=True, on_unit=interrupt)
    folder.close()


@pytest.fixture
def ctrl_c_as_it_tidies_up(monkeypatch):
    """A Ctrl-C as a finished run removes its tallies: once its results are in place."""
    from barbaron import results

    real = results.shutil.rmtree

    def rmtree(path, *args, **kwargs):
        if Path(path).name == results.TALLIES:
            raise KeyboardInterrupt
        return real(path, *args, **kwargs)

    monkeypatch.setattr(results.shutil, "rmtree", rmtree)


def after_unit(monkeypatch, unit: int, action: Callable[[], None]) -> None:
    """Make the next run call ``action`` once its unit ``unit`` has finished (and been
    written)."""
    from barbaron import run as run_module

    real = run_module.execute

    def execute(job, folder, *, on_unit=None, **options):
        def then(result, totals):
            if result.unit == unit:
                action()
            return False

        return real(job, folder, on_unit=then, **options)

    monkeypatch.setattr(run_module, "execute", execute)


def ctrl_c_after_unit(monkeypatch, unit: int) -> None:
    """Make the next run press Ctrl-C once its unit ``unit`` has finished (and been written)."""

    def ctrl_c() -> None:
        raise KeyboardInterrupt

    after_unit(monkeypatch, unit, ctrl_c)


def adjusted_interval(
    values: np.ndarray, low: float, high: float, games: int, tail: float, paired: bool = False
):
    """The interval of the mean of per-deal ``values`` (each the mean of ``games`` games within
    [low, high]) with z**2/2 more games at each end (0.5 for a paired difference), Student's
    t: computed here with scipy."""
    from scipy.stats import norm
    from scipy.stats import t as student

    added = (0.5 if paired else norm.ppf(tail) ** 2 / 2) / games
    sample = np.concatenate([values, [low, high]])
    weights = np.concatenate([np.ones(len(values)), [added, added]])
    total = weights.sum()
    mean = (weights * sample).sum() / total
    se = np.sqrt((weights * (sample - mean) ** 2).sum() / (total - 1) / total)
    q = student.ppf(1 - tail, len(values) - 1)
    return max(mean - q * se, low), min(mean + q * se, high)

"""Small vector helpers the bot families share."""

from __future__ import annotations

import numpy as np

from barbaron import rules as R
from barbaron.strategy import BatchView


def upgradable(view: BatchView, games: np.ndarray, budget: np.ndarray) -> np.ndarray:
    """(k, 12) bars the seat owns below Draught Tap whose next level costs at most ``budget``."""
    return (
        (view.owner[games] == view.seat)
        & (view.level[games] < R.MAX_LEVEL)
        & (R.UPGRADE_COST_TABLE <= np.asarray(budget)[..., None])
    )


def pick(allowed: np.ndarray, score: np.ndarray) -> np.ndarray:
    """(k,) per row the allowed column with the highest score (ties: lowest index), or -1."""
    masked = np.where(allowed, score, -np.inf)
    return np.where(allowed.any(axis=1), masked.argmax(axis=1), -1).astype(np.int8)


def coins(view: BatchView, games: np.ndarray) -> np.ndarray:
    """(k,) the deciding seat's coins, as int64 for arithmetic."""
    return view.coins[games, view.seat].astype(np.int64)


def random_choice(allowed: np.ndarray, u: np.ndarray) -> np.ndarray:
    """(k,) per row a uniformly random allowed column, chosen by ``u`` in [0, 1), or -1."""
    count = allowed.sum(axis=1)
    nth = (u * count).astype(np.int64)  # 0 .. count-1
    rank = np.cumsum(allowed, axis=1) - 1
    hit = allowed & (rank == nth[:, None])
    return np.where(count > 0, hit.argmax(axis=1), -1).astype(np.int8)


def dearest(allowed: np.ndarray) -> np.ndarray:
    """(k,) per row the allowed bar with the highest index (the dearest, R2), or -1."""
    last = R.N_BARS - 1 - allowed[:, ::-1].argmax(axis=1)
    return np.where(allowed.any(axis=1), last, -1).astype(np.int8)

"""Normal, the second Homie: "keeps a fixed cash cushion and takes over a bar when that
completes a district" (rules page).

Buys and upgrades whenever at least ``cushion`` coins are left afterwards; upgrades its
dearest affordable bar (the dearer the bar, the higher its tab); takes over only a bar that
completes one of its districts, and only if
``takeover_cushion`` coins are left (default: the same cushion).
"""

from __future__ import annotations

import numpy as np
from barbaron.bots.common import coins, dearest, upgradable

from barbaron import rules as R
from barbaron.strategy import BatchView, Strategy


def _cushion(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} is a whole number of coins >= 0, got {value!r}")
    return value


class Normal(Strategy):
    """Fixed cash cushion; takeovers only to complete a district."""

    def __init__(self, cushion: int = 250, takeover_cushion: int | None = None) -> None:
        self.cushion = _cushion("cushion", cushion)
        self.takeover_cushion = (
            self.cushion
            if takeover_cushion is None
            else _cushion("takeover_cushion", takeover_cushion)
        )

    def __repr__(self) -> str:
        return f"normal:cushion={self.cushion},takeover_cushion={self.takeover_cushion}"

    def upgrade(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        return dearest(upgradable(view, games, coins(view, games) - self.cushion))

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return coins(view, games) - R.PRICE_TABLE[bars] >= self.cushion

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        holdings = view.district_holdings(games, view.seat)
        completes = holdings[np.arange(games.size), bars // R.BARS_PER_DISTRICT] == 2
        left = coins(view, games) - view.takeover_cost(games, bars)
        return completes & (left >= self.takeover_cushion)

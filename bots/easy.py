"""Easy, the first Homie: buys "more or less on a whim" (rules page).

Every decision is a coin flip from the seat's own per-game stream: buy an affordable free bar
with probability ``buy``; before a roll, upgrade a random affordable bar with probability
``upgrade``; take over with probability ``takeover``. Upgrades and takeovers are rare.
"""

from __future__ import annotations

import numpy as np
from barbaron.bots.common import coins, random_choice, upgradable

from barbaron.strategy import BatchView, Strategy


class Easy(Strategy):
    """Random: buy with probability ``buy``, upgrade ``upgrade``, take over ``takeover``."""

    def __init__(self, buy: float = 0.6, upgrade: float = 0.1, takeover: float = 0.05) -> None:
        for name, p in (("buy", buy), ("upgrade", upgrade), ("takeover", takeover)):
            if isinstance(p, bool) or not isinstance(p, int | float) or not 0 <= p <= 1:
                raise ValueError(f"{name} is a probability between 0 and 1, got {p!r}")
        self.params = {"buy": buy, "upgrade": upgrade, "takeover": takeover}

    def __repr__(self) -> str:
        return "easy:" + ",".join(f"{k}={v}" for k, v in self.params.items())

    def upgrade(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        allowed = upgradable(view, games, coins(view, games))
        choice = random_choice(allowed, view.uniform(games, 1))
        return np.where(view.uniform(games, 0) < self.params["upgrade"], choice, -1).astype(np.int8)

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return view.uniform(games) < self.params["buy"]

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return view.uniform(games) < self.params["takeover"]

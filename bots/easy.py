"""Easy, the first Homie: buys "more or less on a whim" (rules page).

Every decision is a coin flip from the seat's own per-game stream: buy an affordable free bar
with probability ``buy``; before a roll, upgrade a random affordable bar with probability
``upgrade``; take over with probability ``takeover``. Upgrades and takeovers are rare.
"""

from __future__ import annotations

import numpy as np
from barbaron.bots.common import coins, random_choice, upgradable

from barbaron import params
from barbaron.registry import register
from barbaron.strategy import BatchView, Strategy


@register("easy")
class Easy(Strategy):
    """Homie Easy: buys on a whim; upgrades and takes over rarely, at random.

    ``buy``, ``upgrade``, ``takeover``: the probability of saying yes to each question.
    """

    def __init__(self, buy: float = 0.6, upgrade: float = 0.1, takeover: float = 0.05) -> None:
        # not self.buy etc.: those are the strategy's methods
        self.p_buy = params.probability("buy", buy)
        self.p_upgrade = params.probability("upgrade", upgrade)
        self.p_takeover = params.probability("takeover", takeover)

    def upgrade(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        allowed = upgradable(view, games, coins(view, games))
        choice = random_choice(allowed, view.uniform(games, 1))
        return np.where(view.uniform(games, 0) < self.p_upgrade, choice, -1).astype(np.int8)

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return view.uniform(games) < self.p_buy

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return view.uniform(games) < self.p_takeover

"""The autopilot: what plays a human's turn when the 40-second turn timer runs out.

A safe, simple default that a player would not resent: buy the free bar it stands on if at
least ``cushion`` coins stay in hand; never upgrade and never take over, since those spend a
player's money on choices they did not make.
"""

from __future__ import annotations

import numpy as np
from barbaron.bots.common import coins

from barbaron import params
from barbaron import rules as R
from barbaron.registry import register
from barbaron.strategy import BatchView, Strategy


@register("autopilot")
class Autopilot(Strategy):
    """Plays a timed-out human's turn: buys if a cash cushion stays; never upgrades or takes over.

    ``cushion``: coins that must stay in hand after a purchase.
    """

    def __init__(self, cushion: int = 300) -> None:
        self.cushion = params.cushion("cushion", cushion)

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return coins(view, games) - R.PRICE_TABLE[bars] >= self.cushion

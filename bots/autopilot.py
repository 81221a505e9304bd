"""The autopilot: what plays a human's turn when the 40-second turn timer runs out.

A safe, simple default that a player would not resent: buy the free bar it stands on if at
least ``cushion`` coins stay in hand; never upgrade and never take over, since those spend a
player's money on choices they did not make.
"""

from __future__ import annotations

import numpy as np
from barbaron.bots.common import coins

from barbaron import rules as R
from barbaron.strategy import BatchView, Strategy


class Autopilot(Strategy):
    """Buys if ``cushion`` coins remain; never upgrades or takes over."""

    def __init__(self, cushion: int = 300) -> None:
        if isinstance(cushion, bool) or not isinstance(cushion, int) or cushion < 0:
            raise ValueError(f"cushion is a whole number of coins >= 0, got {cushion!r}")
        self.cushion = cushion

    def __repr__(self) -> str:
        return f"autopilot:cushion={self.cushion}"

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return coins(view, games) - R.PRICE_TABLE[bars] >= self.cushion

"""Normal, the second Homie: "keeps a fixed cash cushion and takes over a bar when that
completes a district" (rules page).

Buys and upgrades whenever at least ``cushion`` coins are left afterwards; upgrades its
dearest affordable bar (the dearer the bar, the higher its tab); takes over only a bar that
completes one of its districts, and only if
``takeover_cushion`` coins are left (default: the same cushion).

The default cushion, 880 coins, is the preset that puts Normal midway in rating between Easy
and Hard (chosen with ``barbaron tune --target``; ``python -m experiments.homie_ladder``,
``results/homie_ladder/presets.json``). Normal before the presets, much closer to Hard, is
``normal:cushion=250``.
"""

from __future__ import annotations

import numpy as np
from barbaron.bots.common import coins, dearest, upgradable

from barbaron import params
from barbaron import rules as R
from barbaron.registry import register
from barbaron.strategy import BatchView, Strategy


@register("normal")
class Normal(Strategy):
    """Homie Normal: keeps a cash cushion; takes over only to complete a district.

    ``cushion``: coins that must stay in hand after buying or upgrading (default 880, the
    preset; ``normal:cushion=250`` is the Normal of before); ``takeover_cushion``: the same for
    a takeover (none: the same as ``cushion``).
    """

    def __init__(self, cushion: int = 880, takeover_cushion: int | None = None) -> None:
        self.cushion = params.cushion("cushion", cushion)
        takeover_cushion = params.cushion(
            "takeover_cushion", takeover_cushion, allow_none=True, none_means="the same as cushion"
        )
        self.takeover_cushion = self.cushion if takeover_cushion is None else takeover_cushion

    def upgrade(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        return dearest(upgradable(view, games, coins(view, games) - self.cushion))

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return coins(view, games) - R.PRICE_TABLE[bars] >= self.cushion

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        holdings = view.district_holdings(games, view.seat)
        completes = holdings[np.arange(games.size), bars // R.BARS_PER_DISTRICT] == 2
        left = coins(view, games) - view.takeover_cost(games, bars)
        return completes & (left >= self.takeover_cushion)

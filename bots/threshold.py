"""The threshold bot: three cash cushions, the conformance policy of ``SCENARIO-FORMAT.md``.

It buys, takes over and upgrades whenever it keeps at least a cushion of coins afterwards; a
cushion of ``None`` means never. Simple, predictable, and a useful baseline.
"""

from __future__ import annotations

import numpy as np
from barbaron.bots.common import lazy_njit

from barbaron import params
from barbaron import rules as R
from barbaron.registry import register
from barbaron.strategy import BatchView, Strategy

NEVER = np.int64(1) << 40  # a cushion no coin count reaches


def cushion_array(cushion: int | None, name: str = "cushion") -> np.int64:
    """A cushion as a number the vector formulas compare against (None = never)."""
    value = params.cushion(name, cushion, allow_none=True)
    return NEVER if value is None else np.int64(value)


def upgrade_choice(view: BatchView, games: np.ndarray, cushion: np.ndarray) -> np.ndarray:
    """Per game: the lowest-index own bar below Draught Tap whose level costs <= coins - cushion
    (``cushion``: one for all games, or one per row of ``games``)."""
    if isinstance(cushion, np.ndarray):
        if cushion.ndim:
            return _first_upgradable_each(
                view.coins, view.owner, view.level, games, view.seat, cushion
            )
        cushion = cushion[()]
    return _first_upgradable(view.coins, view.owner, view.level, games, view.seat, cushion)


@lazy_njit
def _first_upgradable_in(owner, level, g, seat, budget):
    """The lowest-index bar of the seat below Draught Tap whose level costs <= budget, or -1."""
    for b in range(R.N_BARS):
        if owner[g, b] == seat and level[g, b] < R.MAX_LEVEL and R.UPGRADE_COST_TABLE[b] <= budget:
            return b
    return -1


@lazy_njit
def _first_upgradable(coins, owner, level, games, seat, cushion):
    """:func:`_first_upgradable_in` per row, the budget coins - ``cushion`` (one for all)."""
    out = np.empty(games.size, dtype=np.int8)
    for i in range(games.size):
        g = games[i]
        out[i] = _first_upgradable_in(owner, level, g, seat, np.int64(coins[g, seat]) - cushion)
    return out


@lazy_njit
def _first_upgradable_each(coins, owner, level, games, seat, cushions):
    """The same with one cushion per row."""
    out = np.empty(games.size, dtype=np.int8)
    for i in range(games.size):
        g = games[i]
        budget = np.int64(coins[g, seat]) - cushions[i]
        out[i] = _first_upgradable_in(owner, level, g, seat, budget)
    return out


def buy_choice(view: BatchView, games: np.ndarray, bars: np.ndarray, cushion) -> np.ndarray:
    """Per game: buy iff coins - price >= cushion."""
    return view.coins[games, view.seat] - R.PRICE_TABLE[bars] >= cushion


def takeover_choice(view: BatchView, games: np.ndarray, bars: np.ndarray, cushion) -> np.ndarray:
    """Per game: take over iff coins - takeover cost >= cushion."""
    cost = R.TAKEOVER_TABLE[bars, view.level[games, bars]]
    return view.coins[games, view.seat] - cost >= cushion


@register("threshold")
class ThresholdBot(Strategy):
    """Cash cushions: buys, takes over or upgrades iff the coins left are at least the cushion.

    ``buy``, ``takeover``, ``upgrade``: the cushion of each decision, none for never.
    """

    def __init__(
        self, buy: int | None = 0, takeover: int | None = None, upgrade: int | None = 0
    ) -> None:
        # private names: buy, takeover and upgrade are the strategy's methods
        self._buy = cushion_array(buy, "buy")
        self._takeover = cushion_array(takeover, "takeover")
        self._upgrade = cushion_array(upgrade, "upgrade")

    @classmethod
    def from_policy(cls, policy: dict) -> ThresholdBot:
        """The bot of a scenario's policy object ``{"buy": .., "takeover": .., "upgrade": ..}``."""
        return cls(policy["buy"], policy["takeover"], policy["upgrade"])

    def upgrade(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        return upgrade_choice(view, games, self._upgrade)

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return buy_choice(view, games, bars, self._buy)

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return takeover_choice(view, games, bars, self._takeover)


class PerGameThreshold(Strategy):
    """Threshold policies that differ from game to game: one scripted policy per batch row.

    Used to play many scenarios, each with its own policies, in one batch.
    """

    def __init__(self, bots: list[ThresholdBot]) -> None:
        self._buy, self._takeover, self._upgrade = (
            np.array([getattr(b, name) for b in bots], dtype=np.int64)
            for name in ("_buy", "_takeover", "_upgrade")
        )

    def upgrade(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        return upgrade_choice(view, games, self._upgrade[games])

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return buy_choice(view, games, bars, self._buy[games])

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return takeover_choice(view, games, bars, self._takeover[games])

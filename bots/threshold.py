"""The threshold bot: three cash cushions, the conformance policy of ``SCENARIO-FORMAT.md``.

It buys, takes over and upgrades whenever it would keep at least a cushion of coins afterwards;
a cushion of ``None`` means never. Simple, predictable, and a useful baseline.
"""

from __future__ import annotations

from dataclasses import dataclass

from barbaron import rules as R
from barbaron.reference import GameView


@dataclass(frozen=True)
class ThresholdBot:
    """Buy, take over or upgrade iff the coins left afterwards are at least the cushion."""

    buy_cushion: int | None = 0  # keep this many coins after buying; None = never buy
    takeover_cushion: int | None = None  # keep this many after a takeover; None = never
    upgrade_cushion: int | None = 0  # keep this many after an upgrade; None = never

    def __post_init__(self) -> None:
        for name in ("buy_cushion", "takeover_cushion", "upgrade_cushion"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 0
            ):
                raise ValueError(
                    f"threshold: {name} must be a whole number >= 0 or None, got {value!r}"
                )

    @classmethod
    def from_policy(cls, policy: dict) -> ThresholdBot:
        """The bot of a scenario's policy object ``{"buy": .., "takeover": .., "upgrade": ..}``."""
        return cls(policy["buy"], policy["takeover"], policy["upgrade"])

    def upgrade(self, view: GameView) -> int | None:
        """The lowest-index owned bar below Draught Tap whose level costs <= coins - cushion."""
        if self.upgrade_cushion is None:
            return None
        budget = view.coins[view.seat] - self.upgrade_cushion
        for bar in range(R.N_BARS):
            if (
                view.owner[bar] == view.seat
                and view.level[bar] < R.MAX_LEVEL
                and R.upgrade_cost(bar) <= budget
            ):
                return bar
        return None

    def buy(self, view: GameView, bar: int) -> bool:
        """Buy iff coins - price >= the buy cushion."""
        return _keeps(view.coins[view.seat] - R.PRICES[bar], self.buy_cushion)

    def takeover(self, view: GameView, bar: int) -> bool:
        """Take over iff coins - takeover cost >= the takeover cushion."""
        cost = R.takeover_cost(R.bar_value(bar, view.level[bar]))
        return _keeps(view.coins[view.seat] - cost, self.takeover_cushion)


def _keeps(left: int, cushion: int | None) -> bool:
    return cushion is not None and left >= cushion

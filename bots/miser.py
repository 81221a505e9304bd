"""Miser: never buys, upgrades or takes over. Tests the floor: what hoarding wages and cards
alone is worth (its worth is pure coins), and how much the others' tabs drain it.
"""

from __future__ import annotations

from barbaron.strategy import Strategy


class Miser(Strategy):
    """Never spends: the base Strategy's answers (no, no, no)."""

    def __repr__(self) -> str:
        return "miser"

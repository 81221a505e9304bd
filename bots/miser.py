"""Miser: never buys, upgrades or takes over. Tests the floor: what hoarding wages and cards
alone is worth (its worth is pure coins), and how much the others' tabs drain it.
"""

from __future__ import annotations

from barbaron.registry import register
from barbaron.strategy import Strategy


@register("miser")
class Miser(Strategy):
    """Never buys, upgrades or takes over.

    The base Strategy's answers: no, no, no.
    """

"""Greedy: buy, upgrade and take over whenever the rules allow. Tests whether raw
aggression (maximum property and tabs, no cash kept) wins, and how often it ends in forced sales.
"""

from __future__ import annotations

from barbaron.bots.threshold import ThresholdBot

from barbaron.registry import register


@register("greedy")
class Greedy(ThresholdBot):
    """Buys, upgrades and takes over whenever the rules allow.

    A threshold bot with every cushion at 0.
    """

    def __init__(self) -> None:
        super().__init__(buy=0, takeover=0, upgrade=0)

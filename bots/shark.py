"""Shark: Hard's own judgement with its caution tuned away, an attempt to beat Hard.

Idea tested: does Hard lose games by being careful? Shark values bars, upgrades and takeovers
exactly as Hard does (expected tabs from everyone's dice odds, districts, the rival's loss),
but its parameters were found by a grid search of 54 settings (risk 0..1, reserve 0..60,
rival 0.5..2, margin -400..100; 24,000 rotated games each) against a table of three default
Hards: keep no risk buffer and take over even at a modest expected loss (``margin=-150``),
weighting the victim's loss double (``rival=2``). The search found cash buffers and reluctant
takeovers both cost win share against Hard; see the README for its measured win share.
"""

from __future__ import annotations

from barbaron.bots.hard import Hard

from barbaron.registry import register


@register("shark")
class Shark(Hard):
    """Experimental: Hard's judgement tuned to beat the Hard of before (rival's loss counted 2x).

    Tuned when Hard kept a buffer and took over reluctantly: no buffer, takeovers even at an
    expected loss, the rival's loss counted double. Hard has since taken the first two as its
    defaults; Shark still differs in ``rival`` (2 against 1.5) and has no shortfall price.
    """

    def __init__(
        self, risk: float = 0.0, reserve: int = 0, rival: float = 2.0, margin: float = -150.0
    ) -> None:
        # Hard's shortfall price came after Shark's search: Shark keeps playing without it
        super().__init__(risk=risk, reserve=reserve, rival=rival, margin=margin, shortfall=0.0)

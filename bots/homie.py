"""homie: the Homies as one difficulty dial, from Easy (``skill=0``) to Hard (``skill=1``).

At every decision (an upgrade before the roll, a buy, a takeover) the dial tosses a coin that
comes up "Hard" with probability ``skill``: Hard answers the decision, as the registered ``hard``
bot would; otherwise Easy, the beginner, answers it, as the registered ``easy`` bot would. Both
are built from the registry with their defaults, so the dial follows any change of the Homies'
defaults: ``homie:skill=1`` plays exactly as ``hard`` and ``homie:skill=0`` exactly as ``easy``,
game for game (tested), and in between the share of Hard's decisions is ``skill``.

The coin is draw :data:`COIN_DRAW` of the seat's own per-game stream at that decision (keyed by
seed, game, seat, turn slot and decision kind), never a global generator, so a game is the same
alone or in any batch. Easy draws its own coins from draws 0 and 1 of the same stream, so the
dial's coin is independent of them: where Easy answers, it buys, upgrades and takes over with
its usual probabilities. Two dial settings playing the same deal see the same coins, so raising
``skill`` only hands more of the decisions to Hard (until the games part ways): the settings
are compared on common random numbers.

Why a coin per decision: Easy and Hard are different families (coin flips against
expected-tab judgement), so no parameter path leads from one to the other with both ends
exact. A coin per game instead would make an opponent that is either Easy or Hard in any one
game, and its curve is less even: its win share is linear in skill, so its rating rose by 182
points over the first step of 0.1 and 28 over the last, against 117 and 30 for the coin per
decision (against three of the Normal before the presets, ``normal:cushion=250``, 20,000 games
a setting). The measured curve, win share and an Elo-like rating with intervals at 11 settings
against three Normal, is in ``results/homie_dial/`` (``python -m experiments.homie_dial``).
"""

from __future__ import annotations

import numpy as np

from barbaron import params
from barbaron.registry import make_bot, register
from barbaron.strategy import AnswersInOne, BatchView, Decision, ask

COIN_DRAW = 15  # the dial's coin: the last draw of a decision (Easy uses 0 and 1)
EXPERT, BEGINNER = "hard", "easy"  # the registered bots at the dial's two ends


@register("homie")
class Homie(AnswersInOne):
    """Homie with a difficulty dial: each decision is Hard's with probability skill, else Easy's.

    ``skill`` from 0 (plays exactly as ``easy``) to 1 (exactly as ``hard``): the chance that a
    decision is answered by Hard rather than by Easy, tossed per game and decision from the
    seat's own stream.
    """

    def __init__(self, skill: float = 0.5) -> None:
        self.skill = params.probability("skill", skill)
        self.expert = make_bot(EXPERT)  # the registered bots at their current defaults
        self.beginner = make_bot(BEGINNER)

    def experts_turn(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        """(k,) per row of ``games``: does Hard answer this decision (the dial's coin)?"""
        if self.skill >= 1:
            return np.ones(games.size, dtype=bool)
        if self.skill <= 0:
            return np.zeros(games.size, dtype=bool)
        return view.uniform(games, COIN_DRAW) < self.skill

    def _decide(self, view: BatchView, games: np.ndarray, bars: np.ndarray | None) -> np.ndarray:
        decision = view.decision
        out = np.empty(games.size, dtype=np.int64 if decision is Decision.UPGRADE else bool)
        expert = self.experts_turn(view, games)
        for strategy, rows in ((self.expert, expert), (self.beginner, ~expert)):
            mine = np.flatnonzero(rows)
            if mine.size:
                out[mine] = ask(
                    strategy, decision, view, games[mine], None if bars is None else bars[mine]
                )
        return out

"""Sage: Hard with a takeover rule learned from rollouts, one step of policy improvement.

Idea tested: where does Hard's takeover formula lose games, and how much does fixing that
gain? Sage buys and upgrades exactly as Hard does; at every takeover it is offered, a linear
model estimates what taking over adds to its win share (R19), and it takes over where that
is above 0. The model was fitted to rollouts (``python -m experiments.train_sage``): Hard in
every seat of tables against ten fields, 2 to 4 players; at each takeover Hard was offered,
both answers played out 64 times on the same futures (Hard in its own seat, the field's bot in
the others), the mean difference being the label; a ridge regression per number of its own
rolls left (0 to 5, 6 or more) on the formula's terms, leads, cash and districts
(:data:`FEATURES`). The weights ship as ``sage_weights.json`` beside this file (``weights=PATH``
takes another file); a missing or corrupt file is a one-line error.

What it learned (README: counted on the same positions): at four players, fewer takeovers with
one or two rolls left (a takeover hands half the bar's value to its owner, with few rolls to
earn it back), and other ones than Hard's after its last roll; at two players far fewer in
mid-game and more early. It costs Hard's speed plus a few numpy operations per takeover offered.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from barbaron.bots.common import coins, read_weights
from barbaron.bots.hard import Hard, _takeover_scores, _turns

from barbaron import rules as R
from barbaron.registry import register
from barbaron.strategy import BatchView

WEIGHTS = Path(__file__).with_name("sage_weights.json")
FEATURES = (  # what the rule sees of a takeover, from the deciding seat's view
    "bias",
    "own_gain",  # Hard's formula, its own side: tabs gained and no longer paid - half the value
    "rival_side",  # the victim's lost tabs - the half it receives (/100, as own_gain)
    "shortfall_rise",  # the rise in the expected shortfall of the next roll, /100
    "lead",  # own worth - the best rival's, /1000
    "lead_over_victim",  # own worth - the victim's, /1000
    "victim_leads",  # 1 if the victim is the best rival
    "coins_left",  # coins after paying, /1000
    "cost",  # /1000
    "own_in_district",  # own bars in the bar's district, 0-2
    "victim_in_district",  # the victim's, 1-3
    "level",  # the bar's upgrade level, 0-2
    "value",  # the bar's value, /100
    "completes",  # 1 if it completes its own district
    "breaks",  # 1 if it breaks the victim's whole district
    "two_players",
    "three_players",
    "rank",  # rivals worth more than it
    "worth_share",  # own worth / everyone's
    "worst_tab",  # the worst tab its next roll could cost, /100 (0 after its last roll)
    "cushion",  # coins left - worst_tab, /1000
    "short",  # min(cushion, 0), /100
    "victim_coins",  # the victim's coins once paid, /1000
    "own_bars",  # bars it owns
    "campus",  # the bar's district: Campus, Old Town, Harbour (The Strip: all three 0)
    "old_town",
    "harbour",
)
TURN_GROUPS = 7  # weights per own rolls left: 0, 1, ..., 5, 6 or more


def weight_names() -> list[str]:
    """The weights in their file, in order: every feature per group of rolls left."""
    return [f"{group}:{name}" for group in range(TURN_GROUPS) for name in FEATURES]


def load_weights(path: str | Path | None = None) -> np.ndarray:
    """(TURN_GROUPS, features) the rule's weights from a weights file (default: the shipped
    one), checked: a missing or corrupt file is a ValueError naming it."""
    w = read_weights(WEIGHTS if path is None else path, "features", weight_names())
    return w.reshape(TURN_GROUPS, len(FEATURES))


def features(view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
    """(k, features) what the rule sees of taking over ``bars[i]`` in ``games[i]`` from the
    deciding seat's view (:data:`FEATURES`)."""
    me, n = view.seat, view.rules.players
    turns = _turns(view)
    c, o, lv, p = view.coins, view.owner, view.level, view.position
    formula = _takeover_scores(c, o, lv, p, games, bars, me, turns, 0.0, 0.0)
    with_rival = _takeover_scores(c, o, lv, p, games, bars, me, turns, 1.0, 0.0)
    priced = _takeover_scores(c, o, lv, p, games, bars, me, turns, 0.0, 1.0)
    owner, level = o[games], lv[games]
    values = R.VALUE_TABLE[np.arange(R.N_BARS), level]  # (k, 12)
    worths = np.stack(
        [c[games, s] + np.where(owner == s, values, 0).sum(axis=1) for s in range(n)], axis=1
    ).astype(np.float64)
    rivals = np.delete(worths, me, axis=1).max(axis=1)
    rows = np.arange(games.size)
    victim = owner[rows, bars]
    victim_worth = worths[rows, victim]
    cost = R.TAKEOVER_TABLE[bars, level[rows, bars]]
    left = c[games, me] - cost
    district = bars // R.BARS_PER_DISTRICT
    held = owner.reshape(games.size, -1, R.BARS_PER_DISTRICT)[rows, district]  # (k, 3)
    own_held = (held == me).sum(axis=1)
    victim_held = (held == victim[:, None]).sum(axis=1)
    worst = view.worst_tab_next_roll(games, me) if view.turns_left(me) else np.zeros(games.size)
    cushion = left - worst
    return np.column_stack(
        [
            np.ones(games.size),
            formula / 100,
            (with_rival - formula) / 100,
            (formula - priced) / 100,
            (worths[:, me] - rivals) / 1000,
            (worths[:, me] - victim_worth) / 1000,
            victim_worth == rivals,
            left / 1000,
            cost / 1000,
            own_held,
            victim_held,
            level[rows, bars],
            R.VALUE_TABLE[bars, level[rows, bars]] / 100,
            own_held == R.BARS_PER_DISTRICT - 1,
            victim_held == R.BARS_PER_DISTRICT,
            np.full(games.size, n == 2),
            np.full(games.size, n == 3),
            (worths > worths[:, me : me + 1]).sum(axis=1),
            worths[:, me] / np.maximum(worths.sum(axis=1), 1),
            worst / 100,
            cushion / 1000,
            np.minimum(cushion, 0) / 100,
            (c[games, victim] + cost) / 1000,
            (owner == me).sum(axis=1),
            district[:, None] == np.arange(3),
        ]
    ).astype(np.float64)


def turn_group(view: BatchView) -> int:
    """Which weights a decision uses: the deciding seat's rolls left, 6 or more as one."""
    return min(view.turns_left(view.seat), TURN_GROUPS - 1)


@register("sage")
class Sage(Hard):
    """Experimental: Hard whose takeovers follow a rule learned from rollouts of both answers.

    ``weights``: the rule's weights file (none: the one shipped with barbaron).
    """

    def __init__(self, weights: str | None = None) -> None:
        super().__init__()
        self.weights = load_weights(weights)

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        advantage = features(view, games, bars) @ self.weights[turn_group(view)]
        keeps = coins(view, games) - view.takeover_cost(games, bars) >= self.buffer(view, games)
        if view.rounds_left == 0:  # where nobody rolls again, as Hard: it only gives half away
            keeps &= ~view.skip[games, view.seat + 1 :].all(axis=1)
        return keeps & (advantage > 0)

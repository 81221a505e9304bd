"""value: a learned evaluation of positions, with one-ply look-ahead.

Idea tested: can a few numbers about a position, weighed by a model fitted on the harness's
own games, judge decisions as well as hand-written rules? For each option of a decision
(upgrade none or any bar it may; buy or not; take over or not) it applies the option's sure
effects (coins, owner, level) to the position and scores the result with the model; it takes
the option whose position scores best (ties: the first, i.e. not spending).

**Features** (from the deciding seat's view, whatever the number of players; coins in
thousands): its worth and coins; for every seat the *projected worth*, worth plus the tabs its
bars are expected to earn from the others' dice odds over the turns left minus the tabs it is
expected to pay (``barbaron.odds``); its projected lead over the best, second-best and mean
rival, also scaled by the turns left; its expected income and payments and the best rival's
income; its upgrade levels and whole districts; the coins a bad next roll could force it to
find; the turns left; the fair share 1/players.

**Model**: logistic regression of the final win share (R19) on those features (soft labels,
L2-regularized, Newton's method in numpy), fitted by ``python -m experiments.train_value`` on
positions of games between the built-in bots; the weights ship as ``value_weights.json`` beside
this file (``weights=PATH`` takes another file). A missing or corrupt file is a one-line error.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from barbaron.bots.common import lazy_njit, read_weights, row_scores

from barbaron import odds
from barbaron import rules as R
from barbaron.registry import register
from barbaron.strategy import BatchView, Decision, Strategy

WEIGHTS = Path(__file__).with_name("value_weights.json")
FEATURES = (
    "bias",
    "fair_logit",
    "turns_left",
    "worth",
    "projected",
    "lead",
    "lead_scaled",
    "worth_lead",
    "lead_over_mean",
    "lead_over_second",
    "coins",
    "income",
    "payments",
    "rival_income",
    "levels",
    "districts",
    "shortfall",
    "lead_x_turns",
)
N_FEATURES = len(FEATURES)


def turns_after(rules: R.Rules, round_: int, seat: int, decision: Decision) -> np.ndarray:
    """(players,) the rolls each seat still makes after ``seat``'s ``decision`` in ``round_``
    (its own roll this turn counts only before it: an upgrade), capped at the odds' horizon."""
    left = rules.rounds - round_
    ahead = [s > seat or (s == seat and decision is Decision.UPGRADE) for s in range(rules.players)]
    return np.array([min(left + a, odds.MAX_TURNS) for a in ahead], dtype=np.int64)


@lazy_njit
def features(coins, owner, level, position, skip, me, turns, players):
    """(n, N_FEATURES) the features of every row (a position) from seat ``me``'s view;
    ``turns[s]``: rolls seat s has left (one fewer while its skip flag is set)."""
    n = coins.shape[0]
    out = np.zeros((n, 18))
    proj = np.zeros(players)
    income = np.zeros(players)
    pay = np.zeros(players)
    wealth = np.zeros(players)
    t = np.zeros(players, dtype=np.int64)
    for g in range(n):
        for s in range(players):
            t[s] = max(turns[s] - (1 if skip[g, s] else 0), 0)
            income[s] = 0.0
            pay[s] = 0.0
            wealth[s] = coins[g, s]
        levels = 0
        districts = 0
        for first in range(0, R.N_BARS, R.BARS_PER_DISTRICT):
            o0, o1, o2 = owner[g, first], owner[g, first + 1], owner[g, first + 2]
            if o0 == me and o1 == me and o2 == me:
                districts += 1
            for b in range(first, first + R.BARS_PER_DISTRICT):
                holder = owner[g, b]
                if holder < 0:
                    continue
                lv = level[g, b]
                wealth[holder] += R.VALUE_TABLE[b, lv]
                held = (o0 == holder) + (o1 == holder) + (o2 == holder)
                tab = R.TAB_TABLE[b, lv, held]
                if holder == me:
                    levels += lv
                for s in range(players):
                    if s != holder:
                        e = odds.EXPECTED_BAR_VISITS[t[s], position[g, s], b] * tab
                        income[holder] += e
                        pay[s] += e
        best = -1e18
        second = -1e18
        total = 0.0
        for s in range(players):
            proj[s] = wealth[s] + income[s] - pay[s]
            if s != me:
                total += proj[s]
                if proj[s] > best:
                    second = best
                    best = proj[s]
                elif proj[s] > second:
                    second = proj[s]
        if players == 2:
            second = best
        rival_income = 0.0
        for s in range(players):
            if s != me and income[s] > rival_income:
                rival_income = income[s]
        worst = 0
        p = position[g, me]
        for b in range(R.N_BARS):
            holder = owner[g, b]
            if odds.REACHABLE_BARS[p, b] and holder >= 0 and holder != me:
                first = b // R.BARS_PER_DISTRICT * R.BARS_PER_DISTRICT
                held = (
                    (owner[g, first] == holder)
                    + (owner[g, first + 1] == holder)
                    + (owner[g, first + 2] == holder)
                )
                worst = max(worst, R.TAB_TABLE[b, level[g, b], held])
        best_worth = -1e18
        for s in range(players):
            if s != me and wealth[s] > best_worth:
                best_worth = wealth[s]
        lead = (proj[me] - best) / 1000.0
        tm = t[me]
        out[g, 0] = 1.0
        out[g, 1] = -math.log(players - 1.0)
        out[g, 2] = tm / 10.0
        out[g, 3] = wealth[me] / 1000.0
        out[g, 4] = proj[me] / 1000.0
        out[g, 5] = lead
        out[g, 6] = lead / math.sqrt(tm + 1.0)
        out[g, 7] = (wealth[me] - best_worth) / 1000.0
        out[g, 8] = (proj[me] - total / (players - 1)) / 1000.0
        out[g, 9] = (proj[me] - second) / 1000.0
        out[g, 10] = coins[g, me] / 1000.0
        out[g, 11] = income[me] / 1000.0
        out[g, 12] = pay[me] / 1000.0
        out[g, 13] = rival_income / 1000.0
        out[g, 14] = levels / 10.0
        out[g, 15] = districts
        out[g, 16] = max(worst - coins[g, me], 0) / 1000.0 if tm > 0 else 0.0
        out[g, 17] = lead * tm / 10.0
    return out


def load_weights(path: str | Path | None = None) -> np.ndarray:
    """The model's weights from a weights file (JSON: ``features`` and ``weights``), checked;
    a missing or corrupt file raises ValueError naming the file and the problem."""
    return read_weights(WEIGHTS if path is None else path, "features", list(FEATURES))


@register("value")
class Value(Strategy):
    """Learned evaluation: scores each option's resulting position with a fitted model.

    ``weights``: the weights file (none: the one shipped with barbaron).
    """

    def __init__(self, weights: str | None = None) -> None:
        self.weights = load_weights(weights)

    def score(
        self, view: BatchView, coins, owner, level, position, skip, turns: np.ndarray
    ) -> np.ndarray:
        """(n,) the model's log-odds that the deciding seat wins, per row of the arrays."""
        x = features(coins, owner, level, position, skip, view.seat, turns, view.rules.players)
        return row_scores(x, self.weights)

    def _rows(self, view: BatchView, rows: np.ndarray):
        return (
            view.coins[rows],
            view.owner[rows],
            view.level[rows],
            view.position[rows],
            view.skip[rows],
        )

    def upgrade(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        seat = view.seat
        legal = (
            (view.owner[games] == seat)
            & (view.level[games] < R.MAX_LEVEL)
            & (view.coins[games, seat][:, None] >= R.UPGRADE_COST_TABLE[None, :])
        )
        row, bar = np.nonzero(legal)  # one candidate per legal upgrade, then "none" per game
        rows = np.concatenate([games[row], games])
        coins, owner, level, position, skip = self._rows(view, rows)
        up = np.arange(row.size)
        coins[up, seat] -= R.UPGRADE_COST_TABLE[bar]
        level[up, bar] += 1
        turns = turns_after(view.rules, view.round, seat, Decision.UPGRADE)
        score = self.score(view, coins, owner, level, position, skip, turns)
        table = np.full((games.size, R.N_BARS + 1), -np.inf)
        table[:, 0] = score[row.size :]
        table[row, bar + 1] = score[: row.size]
        return (np.argmax(table, axis=1) - 1).astype(np.int8)

    def _yes_no(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        k, seat = games.size, view.seat
        coins, owner, level, position, skip = self._rows(view, np.repeat(games, 2))
        yes = np.arange(1, 2 * k, 2)  # rows 2i: no, 2i + 1: yes
        bars = bars.astype(np.int64)
        if view.decision is Decision.BUY:
            coins[yes, seat] -= R.PRICE_TABLE[bars]
        else:
            cost = R.TAKEOVER_TABLE[bars, level[yes, bars]]
            victim = owner[yes, bars].astype(np.int64)
            coins[yes, seat] -= cost
            coins[yes, victim] += cost
        owner[yes, bars] = seat
        turns = turns_after(view.rules, view.round, seat, view.decision)
        score = self.score(view, coins, owner, level, position, skip, turns).reshape(k, 2)
        return score[:, 1] > score[:, 0]

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return self._yes_no(view, games, bars)

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return self._yes_no(view, games, bars)

"""policy: a linear policy trained through the learning environment (``barbaron.env``).

Idea tested: can an agent trained only through the environment's interface (observations,
masks, final win share as the reward) beat the Homies? The policy reads the environment's
observation vector (``barbaron.env.core``), scores every legal action and takes the best:
for each option it applies the option's sure effects (coins, owner, level) to the observed
position and scores the result with a linear function of ``value``'s position features
(``bots/value.py``: projected worth and lead from the dice odds, income, payments, ...), plus
a learned bias for saying yes (buying, taking over, upgrading). Ties: the first option (no).

**Training**: ``python -m experiments.train_policy`` optimizes the weights with CMA-ES
(the ``cma`` package) on the mean final win share against three Normal in ``BatchEnv``,
rotations included, starting from ``value``'s weights. The weights ship as
``policy_weights.json`` beside this file (``weights=PATH`` takes another file).

As a bot it builds the very observation the environment would give its seat and runs the
same function (:func:`choose`), so it plays exactly as it was trained.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from barbaron.bots.common import read_weights, row_scores

from barbaron import rules as R
from barbaron.registry import register
from barbaron.strategy import BatchView, Decision, Strategy

WEIGHTS = Path(__file__).with_name("policy_weights.json")
BIASES = ("yes_buy", "yes_takeover", "yes_upgrade")


def parameter_names() -> list[str]:
    from barbaron.bots.value import FEATURES

    return list(FEATURES) + list(BIASES)


def load_weights(path: str | Path | None = None) -> np.ndarray:
    """The policy's weights from a JSON file (``parameters`` and ``weights``), checked; a
    missing or corrupt file raises ValueError naming the file and the problem."""
    return read_weights(WEIGHTS if path is None else path, "parameters", parameter_names())


def save_weights(weights: np.ndarray, path: str | Path, **extra: object) -> None:
    """Write a weights file :func:`load_weights` reads."""
    from barbaron.results import written

    data = {"parameters": parameter_names(), "weights": [float(x) for x in weights], **extra}
    with written(Path(path)) as tmp:  # whole or not at all: never a truncated weights file
        tmp.write_text(json.dumps(data, indent=1) + "\n")


def choose(obs: np.ndarray, mask: np.ndarray, weights: np.ndarray, rules: R.Rules) -> np.ndarray:
    """(k,) the policy's action for each row of environment observations ``obs`` (k, size)
    with masks ``mask`` (k, 14); rows not asked anything get 0."""
    from barbaron.bots.value import N_FEATURES, features, turns_after

    p = rules.players
    k = obs.shape[0]
    out = np.zeros(k, dtype=np.int64)
    onehot = obs[:, 3 * p + 26 : 3 * p + 29]
    kind = np.where(onehot.any(axis=1), onehot.argmax(axis=1), -1)
    group_key = np.stack([obs[:, 3 * p + 24], obs[:, 3 * p + 25], kind], axis=1).astype(np.int64)
    w, bias = weights[:N_FEATURES], weights[N_FEATURES:]
    for key in np.unique(group_key[kind >= 0], axis=0):
        round_, seat, decision = int(key[0]), int(key[1]), Decision(int(key[2]))
        rows = np.flatnonzero((group_key == key).all(axis=1))
        o = obs[rows]
        coins = np.rint(o[:, :p].astype(np.float64) * 1000).astype(np.int64)
        position = o[:, p : 2 * p].astype(np.int8)
        skip = o[:, 2 * p : 3 * p] > 0.5
        owner = o[:, 3 * p : 3 * p + 12].astype(np.int8)
        level = o[:, 3 * p + 12 : 3 * p + 24].astype(np.int8)
        turns = np.roll(turns_after(rules, round_, seat, decision), -seat)  # relative seats
        if decision is Decision.UPGRADE:
            legal = mask[rows, 2:].astype(bool)
            row, bar = np.nonzero(legal)
            cand = np.concatenate([np.arange(rows.size), row])  # "none" per row, then upgrades
            c, ow, lv = coins[cand], owner[cand], level[cand].copy()
            up = np.arange(rows.size, cand.size)
            c[up, 0] -= R.UPGRADE_COST_TABLE[bar]
            lv[up, bar] += 1
            x = features(c, ow, lv, position[cand], skip[cand], 0, turns, p)
            score = row_scores(x, w)
            score[up] += bias[2]
            table = np.full((rows.size, R.N_BARS + 1), -np.inf)
            table[:, 0] = score[: rows.size]
            table[row, bar + 1] = score[rows.size :]
            best = np.argmax(table, axis=1)
            out[rows] = np.where(best > 0, best + 1, 0)  # column 1 + b is action 2 + b
        else:
            bars = np.rint(o[:, 3 * p + 29]).astype(np.int64)
            cand = np.repeat(np.arange(rows.size), 2)
            c, ow, lv = coins[cand], owner[cand].copy(), level[cand]
            yes = np.arange(1, 2 * rows.size, 2)
            if decision is Decision.BUY:
                c[yes, 0] -= R.PRICE_TABLE[bars]
            else:
                cost = R.TAKEOVER_TABLE[bars, lv[yes, bars]]
                victim = ow[yes, bars].astype(np.int64)
                c[yes, 0] -= cost
                c[yes, victim] += cost
            ow[yes, bars] = 0
            x = features(c, ow, lv, position[cand], skip[cand], 0, turns, p)
            score = row_scores(x, w).reshape(rows.size, 2)
            score[:, 1] += bias[0] if decision is Decision.BUY else bias[1]
            out[rows] = np.where(score[:, 1] > score[:, 0], 1, 0)
    return out


@register("policy")
class Policy(Strategy):
    """Linear policy trained by CMA-ES through the learning environment (barbaron.env).

    ``weights``: the weights file (none: the one shipped with barbaron).
    """

    def __init__(self, weights: str | None = None) -> None:
        self.weights = load_weights(weights)

    def _actions(self, view: BatchView, games: np.ndarray, bars: np.ndarray | None):
        from barbaron.env.core import action_masks, observe

        k = games.size
        me = np.full(k, view.seat, dtype=np.int64)
        kind = np.full(k, int(view.decision), dtype=np.int8)
        bar = np.full(k, -1, dtype=np.int8) if bars is None else bars.astype(np.int8)
        coins, owner, level = view.coins[games], view.owner[games], view.level[games]
        obs = observe(
            coins, view.position[games], view.skip[games], owner, level, view.round, me, kind, bar
        )
        mask = action_masks(coins, owner, level, me, kind)
        return choose(obs, mask, self.weights, view.rules)

    def upgrade(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        a = self._actions(view, games, None)
        return np.where(a >= 2, a - 2, -1).astype(np.int8)

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return self._actions(view, games, bars) == 1

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return self._actions(view, games, bars) == 1

"""Train the ``sage`` bot's takeover rule: one step of policy improvement over Hard's takeover
formula, learned from rollouts.

1. Plays Hard (its formula, the default) in every seat of tables against ten fields (4, 3 and
   2 players) on the batch engine. At each takeover Hard is offered, both answers are played
   out ``--rollouts`` times on the same futures (``barbaron.rollouts``: fresh streams, Hard in
   its own seat, the field's bot in the others), and the mean difference of its win share
   (R19), taking over minus not, is the label of that decision's features
   (``barbaron.bots.sage.features``).
2. Fits a ridge regression of the label on the features, one set of weights per number of
   Hard's own rolls left (0 to 5, 6 or more), in numpy: deterministic, so the same arguments
   give the same weights. The rule takes over where the estimate is above 0.
3. Writes the weights file (JSON; default ``bots/sage_weights.json``, the one barbaron
   ships) and prints, per table, what the rule fitted on half of the decisions changes in the
   other half and what that is worth by the rollouts' own estimate.

    python -m experiments.train_sage                       # full size, writes the shipped file
    python -m experiments.train_sage --games 240 --rollouts 4 --out /tmp/sage_w.json
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from barbaron.bots import hard, sage

from barbaron import rollouts
from barbaron.batch import play_batch
from barbaron.registry import make_bot
from barbaron.results import written
from barbaron.rules import Rules
from experiments import common

SEED = 20262
ROLLOUTS = 64
RIDGE = 1.0  # the penalty on every weight (features are scaled to about 1)
BATCH = 2000  # games played at once
HARD = {"risk": 0.0, "reserve": 0, "rival": 1.5, "margin": -150.0, "shortfall": 1.0}  # the
# Hard the shipped rule improves on (Hard's defaults of 1 December), named so that a later
# change of Hard's defaults does not move a rerun; the fields below likewise
SPECS = {
    "hard": "hard:" + ",".join(f"{k}={v}" for k, v in HARD.items()),
    "shark": "shark:risk=0.0,reserve=0,rival=2.0,margin=-150.0",
    "normal": "normal:cushion=880,takeover_cushion=none",
    "easy": "easy:buy=0.6,upgrade=0.1,takeover=0.05",
}
TABLES = (  # (players, the field in every other seat, share of --games)
    (4, "greedy", 2.0),
    (4, "shark", 1.0),
    (4, "normal", 1.0),
    (4, "hard", 1.0),
    (4, "easy", 1.0),
    (4, "threshold:buy=0,takeover=0,upgrade=150", 1.0),
    (3, "greedy", 1.0),
    (3, "hard", 1.0),
    (2, "greedy", 1.0),
    (2, "hard", 1.0),
)


class Labeller(hard.Hard):
    """Hard's formula, labelling each takeover it is offered by rollouts of both answers."""

    def __init__(self, field: str, k: int) -> None:
        super().__init__(**HARD)
        self.field = make_bot(SPECS.get(field, field))  # the other seats, games and rollouts
        self.k = k
        self.own = hard.Hard(**HARD)  # its seat in the rollouts: the formula, labelling nothing
        self.rows: list[np.ndarray] = []  # per decision: features, the formula's answer, label

    def takeover(self, view, games, bars):
        answer = np.asarray(super().takeover(view, games, bars), dtype=bool)
        options = np.stack([answer, ~answer], axis=1)
        lineup = [self.own if s == view.seat else self.field for s in range(view.rules.players)]
        ev = rollouts.evaluate(
            view.rules,
            lineup,
            view.seed,
            rollouts.position_of(view, games),
            rollouts.DecisionPoint.of(view),
            options,
            np.ones(options.shape, dtype=bool),
            self.k,
            bars=bars,
        )
        other_minus_own = (ev.win_share[:, 1] - ev.win_share[:, 0]).mean(axis=1)
        label = np.where(answer, -other_minus_own, other_minus_own)  # taking over minus not
        group = np.full(games.size, sage.turn_group(view))
        features = sage.features(view, games, bars)
        self.rows.append(np.column_stack([features, group, answer, label]))
        return answer


def table_games(games: int, share: float, players: int) -> int:
    """Deals of a table: its share of ``games``, whole rotations (at least one)."""
    return max(1, round(games * share / 12)) * 12 // players


def collect(games: int, rollouts_k: int, seed: int) -> list[np.ndarray]:
    """Per table, the labelled decisions of Hard in every seat."""
    data = []
    for index, (players, field, share) in enumerate(TABLES):
        rules = Rules(players=players)
        deals = table_games(games, share, players)
        labeller = Labeller(field, rollouts_k)
        for seat in range(players):
            lineup = [labeller if s == seat else labeller.field for s in range(players)]
            for first in range(0, deals, BATCH):
                batch = np.arange(first, min(deals, first + BATCH), dtype=np.int64)
                play_batch(rules, lineup, seed + index, batch)
        data.append(np.concatenate(labeller.rows))
    return data


def design(rows: np.ndarray) -> np.ndarray:
    """Each decision's features in the block of its group of rolls left, zeros elsewhere."""
    f = len(sage.FEATURES)
    x = np.zeros((rows.shape[0], sage.TURN_GROUPS * f))
    group = rows[:, f].astype(np.int64)
    for g in range(sage.TURN_GROUPS):
        x[group == g, g * f : (g + 1) * f] = rows[group == g, :f]
    return x


def fit(rows: np.ndarray, ridge: float = RIDGE) -> np.ndarray:
    """(groups, features) the ridge regression of the labels on the features, per group."""
    x, y = design(rows), rows[:, -1]
    w = np.linalg.solve(x.T @ x + ridge * np.eye(x.shape[1]), x.T @ y)
    return w.reshape(sage.TURN_GROUPS, len(sage.FEATURES))


def checked(rows: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """(share of the formula's answers the rule changes, the rollouts' estimate of the win
    share those changes add, summed over the decisions)."""
    take = design(rows) @ w.ravel() > 0
    answer, label = rows[:, -2].astype(bool), rows[:, -1]
    gain = np.where(take == answer, 0.0, np.where(take, label, -label))
    return float((take != answer).mean()), float(gain.sum())


def train(games: int, rollouts_k: int = ROLLOUTS, seed: int = SEED) -> dict:
    """The weights file's content for a training run of ``games`` games (all tables)."""
    data = collect(games, rollouts_k, seed)
    half = fit(np.concatenate([rows[::2] for rows in data]))
    tables = []
    for (players, field, share), rows in zip(TABLES, data, strict=True):
        changed, gain = checked(rows[1::2], half)
        deals = table_games(games, share, players)
        tables.append(
            {
                "table": f"hard + {players - 1} {field}",
                "games": deals * players,
                "decisions": int(rows.shape[0]),
                "changed_held_out": changed,
                "win_share_gain_held_out": gain / (deals * players / 2),
            }
        )
    w = fit(np.concatenate(data))
    return {
        "features": sage.weight_names(),
        "weights": [float(v) for v in w.ravel()],
        "trained": {
            "command": f"python -m experiments.train_sage --games {games} --rollouts "
            f"{rollouts_k} --seed {seed}",
            "games": games,
            "rollouts": rollouts_k,
            "seed": seed,
            "ridge": RIDGE,
            "tables": tables,
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = common.parser("train_sage", __doc__)
    parser.add_argument(
        "--games",
        type=common.count,
        default=24000,
        help="training games per share of a table: greedy at 4 players has two shares, the other "
        "nine tables one (24,000 plays 264,000 games)",
    )
    parser.add_argument(
        "--rollouts", type=common.count, default=ROLLOUTS, help="rollouts per answer"
    )
    parser.add_argument("--seed", type=common.seed, default=SEED)
    parser.add_argument(
        "--out",
        type=Path,
        default=sage.WEIGHTS,
        help="the weights file (default bots/sage_weights.json, the one barbaron ships)",
    )
    common.add_force(parser, "replace an --out file that is not this script's weights file")
    args = parser.parse_args(argv)
    if args.games < 12:  # (--rollouts: at least 1, as common.count reads it)
        parser.error("--games must be at least 12 (whole rotations at each table)")
    args.out = common.output_file(
        args.out,
        writer="train_sage",
        force=args.force,
        defaults=common.has_defaults(parser, args, "out"),
    )
    start = time.perf_counter()
    data = train(args.games, args.rollouts, args.seed)
    with written(args.out) as tmp:
        tmp.write_text(json.dumps(data, indent=1) + "\n")
    for t in data["trained"]["tables"]:
        print(
            f"{t['table']:<52} {t['decisions']:>8,} takeovers; held out: "
            f"{t['changed_held_out']:6.1%} changed, {t['win_share_gain_held_out']:+.4f} win share"
        )
    print(f"-> {args.out} [{time.perf_counter() - start:.0f} s]")
    return 0


if __name__ == "__main__":
    common.script(main)

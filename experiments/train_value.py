"""Train the ``value`` bot's evaluation: logistic regression of the final win share on features
of positions from the harness's own games.

1. Plays games between the built-in bots (4-, 3- and 2-player tables; every lineup drawn from a
   fixed pool, in a fixed order) on the batch engine, and keeps every position after every turn
   slot, seen from every seat (features of ``barbaron.bots.value``), with that seat's final win
   share (R19) as the label.
2. Fits the weights by Newton's method on the log-loss with soft labels and a small L2 penalty
   (none on the bias), in numpy: deterministic, so the same arguments give the same weights.
3. Writes the weights file (JSON; default ``bots/value_weights.json``, the one barbaron ships)
   and prints the fit's log-loss, with a held-out check.

    python -m experiments.train_value                        # full size, writes the shipped file
    python -m experiments.train_value --games 2000 --out /tmp/value_w.json
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from barbaron.bots import value

from barbaron.batch import BatchState, kernel_state, play_slot, worth
from barbaron.registry import make_bot
from barbaron.results import written
from barbaron.rules import Rules
from experiments import common

SEED = 20261
POOL = (  # the policies whose games the model learns from, pinned to the settings the shipped
    # weights were trained with (29 November): the bots' defaults have moved since
    "greedy",
    "normal:cushion=250",  # Normal before its preset (880)
    "hard:risk=0.0,reserve=0,rival=1.5,margin=-150.0,shortfall=1.0",
    "shark:risk=0.0,reserve=0,rival=2.0,margin=-150.0",
    "easy:buy=0.6,upgrade=0.1,takeover=0.05",
    "hard:risk=1.0,reserve=60,rival=1.0,margin=0.0,shortfall=1.0",
    "threshold:buy=0,takeover=150,upgrade=0",
    "threshold:buy=150,takeover=none,upgrade=150",
    "threshold:buy=0,takeover=0,upgrade=300",
    "normal:cushion=100",
)
TABLES = ((4, 0.6), (3, 0.2), (2, 0.2))  # players, share of the games
BATCH = 500  # games per lineup
L2 = 1e-3  # per position, on every weight but the bias


def lineups(players: int, count: int, seed: int) -> list[tuple[str, ...]]:
    """``count`` lineups of ``players`` specs from the pool, drawn by a seeded generator."""
    rng = np.random.default_rng([seed, players])
    return [tuple(POOL[i] for i in rng.integers(0, len(POOL), players)) for _ in range(count)]


def positions(rules: Rules, lineup: tuple[str, ...], seed: int, games: np.ndarray):
    """(features, labels) of every position after every turn slot, from every seat's view."""
    bots = [make_bot(spec) for spec in lineup]
    state = BatchState.start(rules, games)
    st = kernel_state(state)
    players = rules.players
    xs, who = [], []
    for round_ in range(1, rules.rounds + 1):
        for seat in range(players):
            play_slot(rules, bots[seat], seed, state, st, round_, seat)
            left = rules.rounds - round_
            turns = np.array([left + (s > seat) for s in range(players)], dtype=np.int64)
            for me in range(players):
                xs.append(
                    value.features(
                        state.coins,
                        state.owner,
                        state.level,
                        state.position,
                        state.skip,
                        me,
                        turns,
                        players,
                    )
                )
                who.append(me)
    final = worth(state, players)
    winners = final == final.max(axis=1, keepdims=True)
    share = winners / winners.sum(axis=1, keepdims=True)
    labels = [share[:, me] for me in who]
    return np.concatenate(xs), np.concatenate(labels)


def dataset(games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features, labels, deal) of the training positions of ``games`` games."""
    xs, ys, deals = [], [], []
    first = 0
    for players, share in TABLES:
        n = max(1, round(games * share / BATCH))
        rules = Rules(players=players)
        for lineup in lineups(players, n, seed):
            game = np.arange(first, first + BATCH, dtype=np.int64)
            x, y = positions(rules, lineup, seed, game)
            xs.append(x)
            ys.append(y)
            deals.append(np.tile(game, x.shape[0] // BATCH))
            first += BATCH
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(deals)


def log_loss(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    z = x @ w
    return float(np.mean(np.logaddexp(0, z) - y * z))


def fit(x: np.ndarray, y: np.ndarray, l2: float = L2, steps: int = 30) -> np.ndarray:
    """Logistic regression with soft labels: Newton's method on the mean log-loss plus
    ``l2`` / 2 x |w|^2 (the bias unpenalized)."""
    n, f = x.shape
    w = np.zeros(f)
    penalty = np.full(f, l2)
    penalty[0] = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) / n + penalty * w
        hess = (x * (p * (1 - p))[:, None]).T @ x / n + np.diag(penalty) + 1e-9 * np.eye(f)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w


def train(games: int, seed: int = SEED) -> dict:
    """The weights file's content for a training run of ``games`` games."""
    x, y, deal = dataset(games, seed)
    held = deal % 10 == 0  # every tenth deal checks the fit
    w = fit(x[~held], y[~held])
    base = np.full(x.shape[1], 0.0)
    base[1] = 1.0  # the fair share alone: log-odds of 1 / players
    return {
        "features": list(value.FEATURES),
        "weights": [float(v) for v in w],
        "trained": {
            "command": f"python -m experiments.train_value --games {games} --seed {seed}",
            "games": int(np.unique(deal).size),  # played: whole lineups of BATCH games (QA)
            "seed": seed,
            "positions": int(x.shape[0]),
            "pool": list(POOL),
            "log_loss_train": log_loss(x[~held], y[~held], w),
            "log_loss_held_out": log_loss(x[held], y[held], w),
            "log_loss_fair_share": log_loss(x[held], y[held], base),
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = common.parser("train_value", __doc__)
    parser.add_argument(
        "--games", type=common.count, default=20000, help="training games (all tables)"
    )
    parser.add_argument("--seed", type=common.seed, default=SEED)
    parser.add_argument(
        "--out",
        type=Path,
        default=value.WEIGHTS,
        help="the weights file (default bots/value_weights.json, the one barbaron ships)",
    )
    common.add_force(parser, "replace an --out file that is not this script's weights file")
    args = parser.parse_args(argv)
    args.out = common.output_file(
        args.out,
        writer="train_value",
        force=args.force,
        defaults=common.has_defaults(parser, args, "out"),
    )
    start = time.perf_counter()
    data = train(args.games, args.seed)
    with written(args.out) as tmp:
        tmp.write_text(json.dumps(data, indent=1) + "\n")
    t = data["trained"]
    rounded = (
        f" (--games {args.games:,} rounds to whole lineups of {BATCH} games at each table size)"
        if t["games"] != args.games
        else ""
    )
    print(
        f"{t['positions']:,} positions of {t['games']:,} games{rounded}; log-loss "
        f"{t['log_loss_train']:.4f}"
        f" (held out {t['log_loss_held_out']:.4f}, fair share alone "
        f"{t['log_loss_fair_share']:.4f}) -> {args.out} [{time.perf_counter() - start:.0f} s]"
    )
    return 0


if __name__ == "__main__":
    common.script(main)

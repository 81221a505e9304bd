"""Study: what the game rewards. Which bars pay back their price, where players land, when
takeovers pay.

Replays seeded games on the reference engine (the same games the batch engine plays; every rule
visible in the event log) at a table of Easy, Normal, Hard and Shark in rotation, and follows
every bar from purchase to the end:

- ``landings.csv``: where each rolled turn ends, by the player's turn number (1st, 2nd, ...) and
  space; ``landing_test.csv``: per space, its share of all turn ends against the exact Markov
  chain of ``barbaron.odds``, with z from the spread between games (the notebook shows it);
- ``spells.parquet`` (raw, not committed): one row per ownership spell of a bar (bought or taken
  over, until the end, a forced sale or a takeover): cost, upgrades paid, tabs earned, and for
  takeovers whether they completed a district or broke a rival's full one;
- the summaries ``bars.csv``, ``districts.csv``, ``payback_by_round.csv``, ``takeovers.csv``;
  plots ``landing_frequency.png``, ``payback.png``, ``takeovers.png``.

    python -m experiments.game_rewards                  # 20,000 games
    python -m experiments.game_rewards --games 200 --out /tmp/rewards
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from barbaron import odds
from barbaron import rules as R
from barbaron.reference import Game
from barbaron.registry import make_bot
from barbaron.results import written
from barbaron.rules import Rules
from barbaron.streams import SeededChance
from experiments import common
from experiments.common import ROOT

SEED = 77
# the Homies as they were when the study was run (its committed results): the old Hard and the
# Normal before the presets, spelled out so that a rerun plays the same games (but for the
# turns after which nobody rolls again, where Hard and Shark no longer take over since 30
# November)
LINEUP = [
    "easy",
    "normal:cushion=250",
    "hard:risk=1,reserve=60,rival=1,margin=0,shortfall=0",
    "shark",
]


class TurnRecorder(Game):
    """A reference game that also records where every rolled turn ends."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.turn_ends: list[tuple[int, int, int]] = []  # (seat, k-th rolled turn, space)
        self._rolled = [0] * self.rules.players

    def _turn(self, seat: int) -> None:
        skipped = self.skip[seat]
        super()._turn(seat)
        if not skipped:
            self._rolled[seat] += 1
            self.turn_ends.append((seat, self._rolled[seat], self.position[seat]))


def play_game(game: int, seed: int) -> TurnRecorder:
    """Game ``game``: the lineup rotated by game % 4 (seat s holds LINEUP[(s - r) % 4])."""
    r = game % len(LINEUP)
    bots = [LINEUP[(s - r) % len(LINEUP)] for s in range(len(LINEUP))]
    strategies = [make_bot(b) for b in bots]
    played = TurnRecorder(Rules(), strategies, SeededChance(seed, game), seed=seed, game=game)
    played.bots = bots
    played.play()
    return played


def spells_of(played: TurnRecorder, game: int) -> list[dict]:
    """Ownership spells of every bar in one game, from its event log."""
    owner = [-1] * R.N_BARS
    level = [0] * R.N_BARS
    open_spell: dict[int, dict] = {}
    done = []

    def close(bar: int, how: str, proceeds: int, round_: int) -> None:
        spell = open_spell.pop(bar)
        spell.update(end=how, end_round=round_, proceeds=proceeds)
        done.append(spell)

    for e in played.events:
        b = e.bar
        if e.kind in ("buy", "takeover"):
            seat = e.seat
            first = R.district_of(b) * R.BARS_PER_DISTRICT
            district = range(first, first + R.BARS_PER_DISTRICT)
            rival_full = e.kind == "takeover" and all(owner[x] == owner[b] for x in district)
            if e.kind == "takeover":
                close(b, "taken", e.amount, e.round)
            owner[b] = seat
            open_spell[b] = {
                "game": game,
                "seat": seat,
                "bot": played.bots[seat],
                "bar": b,
                "bar_name": R.BAR_NAMES[b],
                "district": R.DISTRICT_NAMES[R.district_of(b)],
                "how": e.kind,
                "round": e.round,
                "cost": e.amount,
                "level_at_start": level[b],
                "value_at_start": R.bar_value(b, level[b]),
                "upgrades": 0,
                "tabs": 0,
                "completes_district": all(owner[x] == seat for x in district),
                "breaks_full_district": rival_full,
            }
        elif e.kind == "upgrade":
            level[b] += 1
            open_spell[b]["upgrades"] += e.amount
        elif e.kind == "keg":
            level[b] += 1
        elif e.kind in ("pay", "broke") and b >= 0 and e.to == owner[b]:
            open_spell[b]["tabs"] += e.amount
        elif e.kind == "sale":
            close(b, "sold", e.amount, e.round)
            owner[b], level[b] = -1, 0
    for b in list(open_spell):
        close(b, "end", R.bar_value(b, level[b]), played.rules.rounds + 1)
    return done


def main(argv: list[str] | None = None) -> int:
    parser = common.parser("game_rewards", __doc__.split("\n\n")[0])
    parser.add_argument(
        "--games", type=common.count, default=20_000, help="games to follow (default 20,000)"
    )
    parser.add_argument("--seed", type=common.seed, default=SEED)
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT / "results" / "game_rewards",
        help="results folder (default results/game_rewards)",
    )
    common.add_force(parser, "write into a folder that holds other files")
    args = parser.parse_args(argv)
    args.out = common.out_folder(
        args.out,
        study="game_rewards",
        force=args.force,
        arguments={"games": args.games, "seed": args.seed},
    )

    counts = np.zeros((64, R.N_SPACES), dtype=np.int64)  # [k-th rolled turn, space]
    exact = np.array([np.linalg.matrix_power(odds.TURN, k)[R.PAYDAY] for k in range(64)])
    # per game, turn ends per space minus the chain's expectation for the same turns: games
    # are independent, a game's turns are not (one player's follow one another; the deck is
    # shared), so the test's variance is the spread of these between games
    deviation_sum = np.zeros(R.N_SPACES)
    deviation_squares = np.zeros(R.N_SPACES)
    spells = []
    for game in range(args.games):
        played = play_game(game, args.seed)
        deviation = np.zeros(R.N_SPACES)
        for _, k, space in played.turn_ends:
            counts[k, space] += 1
            deviation[space] += 1
            deviation -= exact[k]
        deviation_sum += deviation
        deviation_squares += deviation**2
        spells.extend(spells_of(played, game))
    turns = np.flatnonzero(counts.sum(axis=1))
    landings = pd.DataFrame(
        [
            {
                "turn": int(k),
                "space": s,
                "name": R.SPACE_NAMES[s],
                "count": int(counts[k, s]),
                "exact": float(exact[k, s]),
            }
            for k in turns
            for s in range(R.N_SPACES)
        ]
    )
    with common.finishing(args.out):  # every table and plot of this run together (Ctrl-C waits)
        common.write_csv(landings, args.out / "landings.csv")
        common.write_csv(
            landing_test(counts, exact, deviation_sum, deviation_squares, args.games),
            args.out / "landing_test.csv",
        )
        spells = pd.DataFrame(spells)
        spells["invested"] = spells["cost"] + spells["upgrades"]
        spells["tabs_per_coin"] = spells["tabs"] / spells["invested"]
        spells["paid_back"] = spells["tabs"] >= spells["cost"]
        with written(args.out / "spells.parquet") as tmp:
            spells.to_parquet(tmp, index=False)

        bought = spells[spells["how"] == "buy"]
        summary = {
            "purchases": ("tabs", "size"),
            "mean_tabs": ("tabs", "mean"),
            "tabs_per_coin": ("tabs_per_coin", "mean"),
            "paid_back": ("paid_back", "mean"),
        }
        bars = (
            bought.groupby(["bar", "bar_name", "district"])
            .agg(**summary, mean_round=("round", "mean"))
            .reset_index()
        )
        common.write_csv(bars, args.out / "bars.csv")
        common.write_csv(
            bought.groupby("district", sort=False).agg(**summary).reset_index(),
            args.out / "districts.csv",
        )
        common.write_csv(
            bought.groupby(["bar", "bar_name", "round"]).agg(**summary).reset_index(),
            args.out / "payback_by_round.csv",
        )
        taken = spells[spells["how"] == "takeover"].copy()
        taken["premium"] = taken["cost"] - taken["value_at_start"]
        taken["net"] = taken["tabs"] - taken["premium"]
        takeovers = (
            taken.groupby(["round", "completes_district", "breaks_full_district"])
            .agg(
                takeovers=("net", "size"),
                mean_premium=("premium", "mean"),
                mean_tabs_after=("tabs", "mean"),
                mean_net=("net", "mean"),
                share_paying=("net", lambda x: float((x > 0).mean())),
            )
            .reset_index()
        )
        common.write_csv(takeovers, args.out / "takeovers.csv")
        plot(args.out, landings, bought, taken)
    print(bars.round(3).to_string(index=False))
    return 0


def landing_test(
    counts: np.ndarray,
    exact: np.ndarray,
    deviation_sum: np.ndarray,
    deviation_squares: np.ndarray,
    games: int,
) -> pd.DataFrame:
    """Per space: its share of all turn ends, the exact chain's share for the same turns, and
    z, the difference over its standard error from the spread between games (a game's turn
    ends are not independent draws: a binomial variance would not be justified). z is NaN
    where there is no spread to measure it by (one game; QA: it said 0.0)."""
    n = counts.sum()
    mean = deviation_sum / games
    variance = (deviation_squares - games * mean**2) / (games - 1) if games > 1 else np.nan
    se = np.sqrt(games * np.maximum(variance, 0))
    return pd.DataFrame(
        {
            "space": np.arange(R.N_SPACES),
            "name": R.SPACE_NAMES,
            "turn_ends": counts.sum(axis=0),
            "observed": counts.sum(axis=0) / n,
            "exact": (counts.sum(axis=1) @ exact) / n,
            "z": np.divide(deviation_sum, se, out=np.full(R.N_SPACES, np.nan), where=se > 0),
        }
    )


def plot(out: Path, landings: pd.DataFrame, bought: pd.DataFrame, taken: pd.DataFrame) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    per_space = landings.groupby("space").agg(count=("count", "sum"))
    weights = landings.pivot(index="turn", columns="space", values="count").sum(axis=1)
    exact = (
        landings.pivot(index="turn", columns="space", values="exact")
        .mul(weights, axis=0)
        .sum(axis=0)
        / weights.sum()
    )
    fig, ax = plt.subplots(figsize=(10, 4))
    x = np.arange(R.N_SPACES)
    ax.bar(x - 0.2, per_space["count"] / per_space["count"].sum(), width=0.4, label="games")
    ax.bar(x + 0.2, exact, width=0.4, label="exact Markov chain")
    ax.set_xticks(x, R.SPACE_NAMES, rotation=60, ha="right")
    ax.set_ylabel("share of rolled turns ending here")
    ax.legend()
    ax.set_title("Where turns end")
    common.save_figure(fig, out / "landing_frequency.png", dpi=110, bbox_inches="tight")

    grid = bought.pivot_table(
        index="bar_name", columns="round", values="tabs_per_coin", aggfunc="mean"
    ).reindex(list(R.BAR_NAMES))
    fig, ax = plt.subplots(figsize=(9, 5))
    im = ax.imshow(grid.to_numpy(dtype=float), cmap="viridis", aspect="auto")
    ax.set_yticks(range(len(grid)), grid.index)
    ax.set_xticks(range(len(grid.columns)), grid.columns)
    ax.set_xlabel("round of purchase")
    ax.set_title("Tabs earned per coin invested, by bar and round of purchase")
    fig.colorbar(im)
    common.save_figure(fig, out / "payback.png", dpi=110, bbox_inches="tight")

    fig, ax = plt.subplots(figsize=(8, 4))
    for label, rows in (
        ("completes a district", taken[taken["completes_district"]]),
        ("breaks a full district", taken[taken["breaks_full_district"]]),
        ("other", taken[~taken["completes_district"] & ~taken["breaks_full_district"]]),
    ):
        if len(rows):
            by_round = rows.groupby("round")["net"].mean()
            ax.plot(by_round.index, by_round.values, marker="o", label=label)
    ax.axhline(0, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel("round of the takeover")
    ax.set_ylabel("tabs earned after - premium paid (coins)")
    ax.legend()
    ax.set_title("When takeovers pay (premium = cost - value, which goes to the rival)")
    common.save_figure(fig, out / "takeovers.png", dpi=110, bbox_inches="tight")


if __name__ == "__main__":
    common.script(main)

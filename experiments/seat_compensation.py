"""Study: is the 100-coin seat compensation fair, and which bonus makes the seats even?

For each Homie level in every seat (4 Easy, 4 Normal, 4 Hard, and the same for 3 and 2 players)
and for mixed tables in rotation, plays seat bonuses 0..200 in steps of 25 with ``barbaron
seats`` and collects, per table: seat win shares with 95% intervals, the bonus where the seats
come out even (with its interval), whether 100 is fair, and the bonus each seat would need on
its own (to test whether a flat step per seat suffices).

    python -m experiments.seat_compensation            # full size: 1,000,000 games/point
    python -m experiments.seat_compensation --games 20000 --out /tmp/seats-small

Writes ``OUT/<table>/`` (the seats command's folder for each table) and, in ``OUT/``:
``seats.csv`` (every table, bonus and seat), ``even.csv`` (one row per table) and
``even_bonus.png``. Re-running with the same arguments reproduces every number exactly.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from barbaron import api
from barbaron.stats import zero_crossing
from experiments.common import ROOT, run

BONUSES = "0:200:25"
SEED = 2026

# (table name, bots): the same level in every seat plays each deal once; mixed tables play
# every rotation of the lineup.
TABLES = [
    *[(f"{level}-{p}p", [level] * p) for p in (4, 3, 2) for level in ("easy", "normal", "hard")],
    ("mixed-4p", ["easy", "normal", "hard", "hard"]),
    ("mixed-3p", ["easy", "normal", "hard"]),
    ("mixed-2p", ["normal", "hard"]),
]


def run_table(name: str, bots: list[str], args: argparse.Namespace) -> dict:
    """Play one table over all bonuses (or reuse a finished folder) and return its summary."""
    games = args.games
    if len(set(bots)) > 1:  # mixed tables play every rotation: whole deals only
        games = args.mixed_games - args.mixed_games % len(bots)
    return run(
        api.seats,
        args.out / name,
        workers=args.workers,
        force=args.force,
        quiet=args.quiet,
        bots=bots,
        bonus=BONUSES,
        games=games,
        seed=args.seed,
    )


def seat_needs(points: list[dict], players: int) -> list[float]:
    """Per seat, the flat bonus at which its own win share reaches 1/players (interpolated)."""
    bonus = np.array([p["seat_bonus"] for p in points], dtype=float)
    needs = []
    for seat in range(players):
        share = np.array([p["seats"][seat]["win_share"] for p in points])
        needs.append(zero_crossing(bonus, share - 1 / players))
    return needs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        type=int,
        default=1_000_000,
        help="games per bonus point, same level in every seat (default 1e6)",
    )
    parser.add_argument(
        "--mixed-games",
        type=int,
        default=None,
        help="games per bonus point for mixed tables (default: --games)",
    )
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "seat_compensation")
    parser.add_argument("--force", action="store_true", help="replay tables already finished")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument(
        "--tables",
        help="only these tables, comma-separated (default: all: "
        + ", ".join(name for name, _ in TABLES)
        + ")",
    )
    args = parser.parse_args(argv)
    chosen = args.tables.split(",") if args.tables else [name for name, _ in TABLES]
    unknown = sorted(set(chosen) - {name for name, _ in TABLES})
    if unknown:
        parser.error(f"unknown table {unknown[0]!r}")
    args.mixed_games = args.mixed_games or args.games
    args.out.mkdir(parents=True, exist_ok=True)

    seats_rows, even_rows = [], []
    for name, bots in TABLES:
        if name not in chosen:
            continue
        summary = run_table(name, bots, args)
        players = len(bots)
        points = summary["points"]
        for p in points:
            for s in p["seats"]:
                seats_rows.append(
                    {
                        "table": name,
                        "players": players,
                        "bots": " ".join(bots),
                        "seat_bonus": p["seat_bonus"],
                        "seat": s["seat"],
                        "win_share": s["win_share"],
                        "ci_low": s["win_share_ci"][0],
                        "ci_high": s["win_share_ci"][1],
                        "balance_p": p["seat_balance"]["p_value"],
                        "games": summary["games"],
                    }
                )
        at_100 = next(p for p in points if p["seat_bonus"] == 100)
        needs = seat_needs(points, players)
        even_rows.append(
            {
                "table": name,
                "players": players,
                "bots": " ".join(bots),
                "games_per_point": summary["games"],
                "even_bonus": summary["even"]["bonus"],
                "even_ci_low": summary["even"]["ci"][0],
                "even_ci_high": summary["even"]["ci"][1],
                "fair_at_100": bool(at_100["seat_balance"]["balanced"]),
                "balance_p_at_100": at_100["seat_balance"]["p_value"],
                "seat0_share_at_100": at_100["seats"][0]["win_share"],
                "last_seat_share_at_100": at_100["seats"][-1]["win_share"],
                **{f"seat{s}_needs": needs[s] for s in range(players)},
            }
        )
    pd.DataFrame(seats_rows).to_csv(args.out / "seats.csv", index=False)
    even = pd.DataFrame(even_rows)
    even.to_csv(args.out / "even.csv", index=False)
    plot_even(even, args.out / "even_bonus.png")
    print(
        even[
            [
                "table",
                "games_per_point",
                "even_bonus",
                "even_ci_low",
                "even_ci_high",
                "fair_at_100",
                "balance_p_at_100",
            ]
        ].to_string(index=False)
    )
    return 0


def plot_even(even: pd.DataFrame, path: Path) -> None:
    """The even bonus of every table with its interval, against the rules' 100."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    y = np.arange(len(even))
    mid = even["even_bonus"].to_numpy(dtype=float)
    low = mid - even["even_ci_low"].to_numpy(dtype=float)
    high = even["even_ci_high"].to_numpy(dtype=float) - mid
    ok = ~np.isnan(mid)
    ax.errorbar(
        mid[ok], y[ok], xerr=[np.nan_to_num(low[ok]), np.nan_to_num(high[ok])], fmt="o", capsize=4
    )
    ax.axvline(100, color="grey", linestyle="--", label="the rules: 100 per seat")
    ax.set_yticks(y, even["table"])
    ax.set_xlabel("seat bonus at which the seats come out even (95% interval)")
    ax.legend()
    ax.set_title("Fair seat bonus per table")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())

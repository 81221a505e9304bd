"""Study: how far apart are the Homies, and which settings separate them clearly?

1. Head-to-head matrix of Easy, Normal, Hard, the autopilot and Shark (the best experimental
   bot): every pair at a 2-player table, and every one-against-three 4-player table.
2. Sweeps of each Homie's main parameters against three of its own default: Easy's buy and
   upgrade probabilities, Normal's cushion, Hard's risk weights (risk, reserve, margin).
3. Recommended settings. Target: **each level wins about 35% (33-37%) against three of the level
   below** (a fair share is 25%). Easy's upgrade probability and Hard's caution are tuned by a
   small grid to meet it; the recommended ladder is then played at full size.

    python -m experiments.homie_ladder                      # full size
    python -m experiments.homie_ladder --games 4000 --sweep-games 2000 --out /tmp/ladder

All tables play every seat rotation; intervals are 95% over deals. Writes ``OUT/runs/`` (one
barbaron results folder per table or sweep), ``pairs.csv``, ``one_vs_three.csv``,
``sweeps.csv``, ``tuning.csv``, ``recommended.json`` and ``recommended.csv``, and the plots
``one_vs_three.png``, ``sweeps.png``, ``recommended.png``. Same arguments, same numbers.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from barbaron import api
from experiments.common import ROOT, run

SEED = 4242
BOTS = ["easy", "normal", "hard", "autopilot", "shark"]
SWEEPS = [  # (bot, parameter, values): each against three of the bot's default
    ("easy", "buy", "0:1:0.1"),
    ("easy", "upgrade", "0:1:0.1"),
    ("normal", "cushion", "0:600:50"),
    ("hard", "risk", "0:2:0.25"),
    ("hard", "reserve", "0:200:25"),
    ("hard", "margin", "-300:100:50"),
]
TARGET, TOLERANCE = 0.35, 0.02
EASY_GRID = [f"easy:buy=1.0,upgrade={u}" for u in (0.4, 0.5, 0.6, 0.7, 0.8)]
HARD_GRID = [f"hard:risk={r},reserve=0,margin={m}" for r in (0.0, 0.5) for m in (-100, 0, 100)]


def lone_share(summary: dict, bot: str) -> tuple[float, float, float]:
    """Win share and interval of ``bot`` in a play summary."""
    row = next(b for b in summary["bots"] if b["bot"] == bot)
    return row["win_share"], row["win_share_ci"][0], row["win_share_ci"][1]


def folder_name(text: str) -> str:
    """A portable folder name for a bot spec or table (no colons or commas)."""
    return text.replace(":", "_").replace(",", "_")


def play(bots: list[str], games: int, args: argparse.Namespace, name: str) -> dict:
    games -= games % len(bots)
    out = args.out / "runs" / folder_name(name)
    return run(
        api.play,
        out,
        workers=args.workers,
        force=args.force,
        bots=bots,
        games=games,
        seed=args.seed,
    )


def matrix(args: argparse.Namespace) -> tuple[pd.DataFrame, pd.DataFrame]:
    pairs, ones = [], []
    for a, b in itertools.combinations(BOTS, 2):
        s = play([a, b], args.games, args, f"pair-{a}-{b}")
        for bot, other in ((a, b), (b, a)):
            share, low, high = lone_share(s, bot)
            pairs.append(
                {
                    "bot": bot,
                    "opponent": other,
                    "win_share": share,
                    "ci_low": low,
                    "ci_high": high,
                    "games": s["games"],
                }
            )
    for a, b in itertools.permutations(BOTS, 2):
        s = play([a, b, b, b], args.games, args, f"1v3-{a}-{b}")
        share, low, high = lone_share(s, a)
        ones.append(
            {
                "bot": a,
                "field": b,
                "win_share": share,
                "ci_low": low,
                "ci_high": high,
                "games": s["games"],
            }
        )
    return pd.DataFrame(pairs), pd.DataFrame(ones)


def sweeps(args: argparse.Namespace) -> pd.DataFrame:
    rows = []
    for bot, param, values in SWEEPS:
        s = run(
            api.sweep,
            args.out / "runs" / f"sweep-{bot}-{param}",
            workers=args.workers,
            force=args.force,
            bot=bot,
            param=param,
            values=values,
            field=bot,
            games=args.sweep_games,
            seed=args.seed,
        )
        for p in s["points"]:
            rows.append(
                {
                    "bot": bot,
                    "param": param,
                    "value": p["value"],
                    "win_share": p["win_share"],
                    "ci_low": p["win_share_ci"][0],
                    "ci_high": p["win_share_ci"][1],
                    "games": s["games"],
                }
            )
    return pd.DataFrame(rows)


def tune(args: argparse.Namespace) -> tuple[pd.DataFrame, str, str]:
    """Pick Easy's and Hard's settings whose one-against-three share is nearest the target."""
    rows = []
    for easy in EASY_GRID:  # Normal against three of this Easy
        s = play(["normal", easy, easy, easy], args.sweep_games, args, f"tune-{easy}")
        share, low, high = lone_share(s, "normal")
        rows.append(
            {
                "level": "easy",
                "setting": easy,
                "table": f"normal + 3 {easy}",
                "win_share": share,
                "ci_low": low,
                "ci_high": high,
            }
        )
    for hard in HARD_GRID:  # this Hard against three Normals
        s = play([hard, "normal", "normal", "normal"], args.sweep_games, args, f"tune-{hard}")
        share, low, high = lone_share(s, hard)
        rows.append(
            {
                "level": "hard",
                "setting": hard,
                "table": f"{hard} + 3 normal",
                "win_share": share,
                "ci_low": low,
                "ci_high": high,
            }
        )
    tuning = pd.DataFrame(rows)
    tuning["distance"] = (tuning["win_share"] - TARGET).abs()
    best = tuning.loc[tuning.groupby("level")["distance"].idxmin()].set_index("level")
    return tuning, best.loc["easy", "setting"], best.loc["hard", "setting"]


def recommended(args: argparse.Namespace, easy: str, hard: str) -> tuple[dict, pd.DataFrame]:
    normal = "normal"
    tables = [
        ("Normal + 3 Easy", normal, easy),
        ("Hard + 3 Normal", hard, normal),
        ("Hard + 3 Easy", hard, easy),
    ]
    rows = []
    for label, one, three in tables:
        s = play([one, three, three, three], args.games, args, f"recommended-{one}-{three}")
        share, low, high = lone_share(s, one)
        rows.append(
            {
                "table": label,
                "one": one,
                "three": three,
                "win_share": share,
                "ci_low": low,
                "ci_high": high,
                "games": s["games"],
                "meets_target": bool(abs(share - TARGET) <= TOLERANCE)
                if label != "Hard + 3 Easy"
                else bool(low > TARGET),
            }
        )
    table = pd.DataFrame(rows)
    record = {
        "target": f"each level wins {TARGET:.0%} +- {TOLERANCE:.0%} against three of the "
        "level below; Hard against three Easy above that",
        "easy": easy,
        "normal": normal,
        "hard": hard,
        "met": bool(table["meets_target"].all()),
        "tables": rows,
    }
    return record, table


def plot_all(out: Path, ones: pd.DataFrame, sweep: pd.DataFrame, rec: pd.DataFrame) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    grid = ones.pivot(index="bot", columns="field", values="win_share").loc[BOTS, BOTS]
    fig, ax = plt.subplots(figsize=(6.5, 5))
    im = ax.imshow(grid.to_numpy(dtype=float), cmap="RdYlGn", vmin=0, vmax=1)
    ax.set_xticks(range(len(BOTS)), BOTS)
    ax.set_yticks(range(len(BOTS)), BOTS)
    for (i, j), v in np.ndenumerate(grid.to_numpy(dtype=float)):
        if not np.isnan(v):
            ax.text(j, i, f"{v:.2f}", ha="center", va="center")
    ax.set_xlabel("three of")
    ax.set_ylabel("one")
    ax.set_title("Win share of one bot against three of another (fair 0.25)")
    fig.colorbar(im)
    fig.savefig(out / "one_vs_three.png", dpi=110, bbox_inches="tight")
    plt.close(fig)

    groups = list(sweep.groupby(["bot", "param"], sort=False))
    fig, axes = plt.subplots(2, 3, figsize=(13, 7))
    for ax, ((bot, param), rows) in zip(axes.ravel(), groups, strict=False):
        ax.plot(rows["value"], rows["win_share"], marker="o")
        ax.fill_between(rows["value"], rows["ci_low"], rows["ci_high"], alpha=0.25)
        ax.axhline(0.25, color="grey", linestyle="--", linewidth=1)
        ax.set_title(f"{bot}: {param} (vs 3 default {bot})")
        ax.set_xlabel(param)
        ax.set_ylabel("win share")
    fig.tight_layout()
    fig.savefig(out / "sweeps.png", dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 3.5))
    y = np.arange(len(rec))
    ax.errorbar(
        rec["win_share"],
        y,
        xerr=[rec["win_share"] - rec["ci_low"], rec["ci_high"] - rec["win_share"]],
        fmt="o",
        capsize=4,
    )
    ax.axvspan(TARGET - TOLERANCE, TARGET + TOLERANCE, color="green", alpha=0.15, label="target")
    ax.axvline(0.25, color="grey", linestyle="--", linewidth=1, label="fair share")
    ax.set_yticks(y, rec["table"])
    ax.set_xlabel("win share of the one (95% interval)")
    ax.legend()
    ax.set_title("Recommended Homie settings")
    fig.savefig(out / "recommended.png", dpi=110, bbox_inches="tight")
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        type=int,
        default=200_000,
        help="games per matrix table and recommended table (default 200,000)",
    )
    parser.add_argument(
        "--sweep-games",
        type=int,
        default=40_000,
        help="games per sweep point and tuning point (default 40,000)",
    )
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "homie_ladder")
    parser.add_argument("--force", action="store_true", help="replay finished runs")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    pairs, ones = matrix(args)
    pairs.to_csv(args.out / "pairs.csv", index=False)
    ones.to_csv(args.out / "one_vs_three.csv", index=False)
    sweep = sweeps(args)
    sweep.to_csv(args.out / "sweeps.csv", index=False)
    tuning, easy, hard = tune(args)
    tuning.to_csv(args.out / "tuning.csv", index=False)
    record, rec = recommended(args, easy, hard)
    rec.to_csv(args.out / "recommended.csv", index=False)
    (args.out / "recommended.json").write_text(json.dumps(record, indent=2) + "\n")
    plot_all(args.out, ones, sweep, rec)
    print(ones.pivot(index="bot", columns="field", values="win_share").round(4).to_string())
    print(
        rec[["table", "one", "three", "win_share", "ci_low", "ci_high", "meets_target"]].to_string(
            index=False
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

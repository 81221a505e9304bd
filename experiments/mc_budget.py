"""Study: mc's strength against its time budget, so a user can choose ``rollouts``.

For each number of rollouts K (default 4, 16, 32 = mc's default, 64), plays mc against three
greedy (all rotations) and records mc's win share with its 95% interval and the games per
second per core of the whole table (this machine's, at the time: compare the Ks of one run,
numba's compilation done before the first). Writes ``OUT/runs/`` (one barbaron results folder
per K), ``mc_budget.csv`` and ``mc_budget.png`` (win share and speed against K).

    python -m experiments.mc_budget                                  # as in the README
    python -m experiments.mc_budget --games 4000 --rollouts 4,16 --out /tmp/budget
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from barbaron import api
from barbaron.params import read_number
from experiments import common
from experiments.common import ROOT

SEED = 5
FIELD = "greedy"
PLAYERS = 4  # mc and three of the field, in every rotation


def run_folder(out: Path, k: int) -> Path:
    """The results folder of mc at K rollouts in the study's folder ``out``."""
    return out / "runs" / f"mc-k{k}"


def main(argv: list[str] | None = None) -> int:
    parser = common.parser("mc_budget", __doc__)
    parser.add_argument(
        "--games",
        type=common.count,
        default=20000,
        help="games per K, rotations in (default 20,000)",
    )
    parser.add_argument(
        "--rollouts",
        type=common.counts,
        default=[4, 16, 32, 64],
        help="the values of K, comma-separated (default 4,16,32,64)",
    )
    common.add_workers(parser)
    parser.add_argument("--seed", type=common.seed, default=SEED)
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT / "results" / "mc_budget",
        help="results folder (default results/mc_budget)",
    )
    common.add_force(parser)
    common.add_quiet(parser)
    args = parser.parse_args(argv)
    common.QUIET.set(args.quiet)
    common.whole_deals(parser, args.games, PLAYERS, "the table")  # (api.play's own refusal
    # suggested a --no-rotate this study lacks, QA)
    args.out = common.out_folder(
        args.out,
        study="mc_budget",
        force=args.force,
        arguments={"games": args.games, "rollouts": args.rollouts, "seed": args.seed},
    )
    ks = args.rollouts
    # numba's kernels compiled (and cached on disk for the workers) before any K is timed: a
    # first run's speed included the compilation (QA: 755 games/s/core, then 1,560)
    if not all((run_folder(args.out, k) / "summary.json").exists() for k in ks):
        api.play(
            [f"mc:rollouts={min(ks)}", *[FIELD] * (PLAYERS - 1)], games=PLAYERS, progress=False
        )
    rows = []
    for k in ks:
        folder = run_folder(args.out, k)
        summary = common.run(
            api.play,
            folder,
            workers=args.workers,
            force=args.force,
            bots=[f"mc:rollouts={k}", *[FIELD] * (PLAYERS - 1)],
            games=args.games,
            seed=args.seed,
        )
        manifest = json.loads((folder / "manifest.json").read_text())
        speed = manifest["games_per_second"] / manifest["workers"]
        mc = summary["bots"][0]
        rows.append(
            {
                "rollouts": k,
                "win_share": mc["win_share"],
                "ci_low": read_number(mc["win_share_ci"][0]),
                "ci_high": read_number(mc["win_share_ci"][1]),
                "games_per_second_per_core": round(speed, 1),
                "games": summary["games"],
            }
        )
    table = pd.DataFrame(rows)
    with common.finishing(args.out):  # the table and its plot of this run together
        common.write_csv(table, args.out / "mc_budget.csv")
        plot(table, args.out / "mc_budget.png")
    print(table.to_string(index=False))
    return 0


def plot(table: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.errorbar(
        table["rollouts"],
        table["win_share"],
        yerr=[table["win_share"] - table["ci_low"], table["ci_high"] - table["win_share"]],
        marker="o",
        capsize=3,
        label="mc win share",
    )
    ax.axhline(0.25, color="grey", lw=0.8, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("rollouts per option (K)")
    ax.set_ylabel("win share against 3 greedy")
    speed = ax.twinx()
    speed.plot(table["rollouts"], table["games_per_second_per_core"], "s--", color="C1")
    speed.set_ylabel("games per second per core", color="C1")
    speed.set_yscale("log")
    ax.set_title("mc: strength against time")
    fig.tight_layout()
    common.save_figure(fig, path, dpi=120)


if __name__ == "__main__":
    common.script(main)

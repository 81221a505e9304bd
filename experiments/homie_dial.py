"""Study: the difficulty dial's strength curve, rating(skill), for ``homie:skill=X``.

Plays ``homie:skill=X`` for X = 0, 0.1, ..., 1.0 (11 settings; 0 is Easy and 1 is Hard exactly)
in one seat against a fixed field of three Normal, every seat rotation, every setting on the
same deals (one ``barbaron sweep``: common random numbers, and the dial's coins are the same
for every setting of a deal). Each setting's win share becomes a rating on one Elo-like scale
with the tournament's model (``barbaron.tournament.fit_luce``: Luce's choice rule, the field's
Normal the anchor at 0, so rating = 400 log10(3 w / (1 - w)) for a win share w) and its
sandwich covariance, each deal (its rotations of every setting) one cluster. A step between
neighbouring settings gets its interval from that covariance (ratings), and from the per-deal
paired differences (win shares): a step is "up" when its interval lies above 0, "flat" when it
holds 0, "down" when it lies below.

    python -m experiments.homie_dial                        # as committed
    python -m experiments.homie_dial --games 4000 --out /tmp/dial
    python -m experiments.homie_dial --rounds 15            # the Long night: homie_dial-15-rounds

Writes ``OUT/runs/sweep/`` (the barbaron results folder, not committed), ``curve.csv`` (one
row per setting: win share, rating, their 95% intervals, the step from the setting before),
``curve.png`` (rating and win share against skill, and the steps) and ``summary.json`` (the
same, the command that reproduces it, and the skill values whose ratings are evenly spaced
from Easy to Hard: a "difficulty 1 to 10" read off the curve). Same arguments, same numbers.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from barbaron.bots.homie import Homie

from barbaron import api
from barbaron.params import read_number
from barbaron.results import write_json
from barbaron.stats import t_quantile
from barbaron.tournament import ELO, INTERVAL, MODEL, fit_luce
from experiments import common
from experiments.common import run

SEED = 1313
BOT = "homie"
PARAM = "skill"
FIELD = "normal"
PLAYERS = 4
SKILLS = [round(0.1 * i, 1) for i in range(11)]
LEVELS = 10  # difficulty levels evenly spaced in rating, read off the curve


def per_deal_wins(folder: Path, labels: list[str], deals: int) -> tuple[np.ndarray, np.ndarray]:
    """(dial, field): (settings, deals) wins of the dial's seat and of the three field seats
    in each deal, summed over the deal's rotations, from the sweep's ``games.parquet``."""
    import pyarrow.dataset as ds

    index = {label: i for i, label in enumerate(labels)}
    dial = np.zeros((len(labels), deals))
    field = np.zeros((len(labels), deals))
    data = ds.dataset(folder / "games.parquet", format="parquet")
    for batch in data.to_batches(columns=["arm", "deal", "bot", "win_share"]):
        rows = batch.to_pandas()
        arm = rows["arm"].astype(str).map(index).to_numpy()
        deal = rows["deal"].to_numpy()
        share = rows["win_share"].to_numpy()
        mine = (rows["bot"].astype(str) != FIELD).to_numpy()
        np.add.at(dial, (arm[mine], deal[mine]), share[mine])
        np.add.at(field, (arm[~mine], deal[~mine]), share[~mine])
    return dial, field


def ratings(dial: np.ndarray, field: np.ndarray, rotations: int):
    """The Luce fit of the lineups (setting i, field, field, field) with the field anchored at
    0, and its sandwich covariance over deals."""
    settings, deals = dial.shape
    anchor = settings  # the field's index
    lineups = np.array([[i, anchor, anchor, anchor] for i in range(settings)])
    field_wins = field.sum(axis=1)
    wins = np.column_stack([dial.sum(axis=1), *[field_wins / 3] * 3])
    u = np.vstack([dial, field.sum(axis=0)])  # (bots, deals): each bot's wins per deal
    return fit_luce(
        lineups,
        wins,
        np.full(settings, rotations * deals),
        settings + 1,
        anchor=anchor,
        deals=deals,
        deal_sum=u.sum(axis=1),
        deal_cross=u @ u.T,
        plays=np.full(settings, rotations),
    )


def verdict(low: float, high: float) -> str:
    return "up" if low > 0 else "down" if high < 0 else "flat"


def curve(summary: dict, folder: Path, games: int) -> tuple[pd.DataFrame, object]:
    points = summary["points"]
    labels = [p["arm"]["label"] for p in points]
    deals = points[0]["arm"]["deals"]
    rotations = games // deals
    dial, field = per_deal_wins(folder, labels, deals)
    shares = dial.sum(axis=1) / (rotations * deals)
    for p, share in zip(points, shares, strict=True):  # the same games as the sweep's tallies
        if not np.isclose(p["win_share"], share, rtol=0, atol=1e-12):
            raise RuntimeError(f"games.parquet disagrees with the summary at {p['bot']}")
    fit = ratings(dial, field, rotations)
    unit = np.eye(len(fit.ratings))  # (the points, then the field): a rating step's weights
    rows = []
    for i, p in enumerate(points):
        row = {
            "skill": p["value"],
            "bot": p["bot"],
            "games": games,
            "win_share": p["win_share"],
            "win_share_ci_low": read_number(p["win_share_ci"][0]),
            "win_share_ci_high": read_number(p["win_share_ci"][1]),
            "rating": fit.ratings[i],
            "rating_ci_low": fit.ci(i)[0],
            "rating_ci_high": fit.ci(i)[1],
            "rating_se": fit.se[i],
        }
        if i:
            diff = (dial[i] - dial[i - 1]) / rotations  # paired: the same deals
            se = diff.std(ddof=1) / np.sqrt(deals)
            step, (step_low, step_high), _ = fit.contrast(unit[i] - unit[i - 1])
            q = t_quantile(0.025, deals - 1)  # Student's t over the deals, as the ratings' own
            row |= {
                "share_step": diff.mean(),
                "share_step_ci_low": diff.mean() - q * se,
                "share_step_ci_high": diff.mean() + q * se,
                "rating_step": step,
                "rating_step_ci_low": step_low,
                "rating_step_ci_high": step_high,
                "step": verdict(step_low, step_high),
            }
        rows.append(row)
    return pd.DataFrame(rows), fit


def even_levels(table: pd.DataFrame) -> list[dict] | None:
    """Skill values whose ratings are evenly spaced from skill 0 to skill 1 (linear
    interpolation of the measured curve), or None where the curve is not increasing."""
    r, s = table["rating"].to_numpy(), table["skill"].to_numpy()
    if not np.all(np.diff(r) > 0):
        return None
    targets = np.linspace(r[0], r[-1], LEVELS)
    return [
        {"level": k + 1, "rating": float(t), "skill": round(float(np.interp(t, r, s)), 3)}
        for k, t in enumerate(targets)
    ]


def plot(out: Path, table: pd.DataFrame) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = table["skill"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4))
    ax = axes[0]
    ax.errorbar(
        x,
        table["rating"],
        yerr=[table["rating"] - table["rating_ci_low"], table["rating_ci_high"] - table["rating"]],
        fmt="o-",
        capsize=3,
    )
    ax.axhline(0, color="grey", linestyle="--", linewidth=1, label=f"the field ({FIELD}) = 0")
    ax.annotate("= easy", (x.iloc[0], table["rating"].iloc[0]), (6, -4), textcoords="offset points")
    ax.annotate(
        "hard =", (x.iloc[-1], table["rating"].iloc[-1]), (-44, -3), textcoords="offset points"
    )
    ax.set_xlabel("skill")
    ax.set_ylabel("rating (Elo-like, 95% interval)")
    ax.set_title(f"homie:skill=X against 3 {FIELD}: rating")
    ax.legend(loc="lower right")
    ax = axes[1]
    ax.plot(x, table["win_share"], marker="o")
    ax.fill_between(x, table["win_share_ci_low"], table["win_share_ci_high"], alpha=0.3)
    ax.axhline(1 / PLAYERS, color="grey", linestyle="--", linewidth=1, label="fair share")
    ax.set_xlabel("skill")
    ax.set_ylabel("win share (95% interval)")
    ax.set_title("win share")
    ax.legend(loc="lower right")
    ax = axes[2]
    steps = table.iloc[1:]
    mid = steps["skill"] - 0.05
    ax.errorbar(
        mid,
        steps["rating_step"],
        yerr=[
            steps["rating_step"] - steps["rating_step_ci_low"],
            steps["rating_step_ci_high"] - steps["rating_step"],
        ],
        fmt="s",
        capsize=3,
    )
    ax.axhline(0, color="grey", linewidth=1)
    ax.set_ylim(bottom=min(0, steps["rating_step_ci_low"].min()) - 5)
    ax.set_xlabel("skill (step from X - 0.1 to X)")
    ax.set_ylabel("rating step (95% interval, paired)")
    ax.set_title("each step of 0.1")
    fig.tight_layout()
    common.save_figure(fig, out / "curve.png", dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = common.parser("homie_dial", __doc__)
    parser.add_argument(
        "--games", type=common.count, default=200_000, help="games per setting (default 200,000)"
    )
    parser.add_argument("--seed", type=common.seed, default=SEED)
    common.add_workers(parser)
    common.add_rounds_and_out(parser, "homie_dial")
    common.add_force(parser)
    common.add_quiet(parser)
    args = parser.parse_args(argv)
    common.QUIET.set(args.quiet)
    games = args.games
    common.whole_deals(parser, games, PLAYERS, "the sweep")  # (3 became 0 silently, QA)
    default_out = common.default_out("homie_dial", args.rounds)
    args.out = common.out_folder(
        args.out or default_out,
        study="homie_dial",
        force=args.force,
        arguments={"games": games, "seed": args.seed, "rounds": args.rounds},
    )
    folder = args.out / "runs" / "sweep"
    start = time.perf_counter()
    summary = run(
        api.sweep,
        folder,
        workers=args.workers,
        force=args.force,
        bot=BOT,
        param=PARAM,
        values=SKILLS,
        field=FIELD,
        games=games,
        seed=args.seed,
        rounds=args.rounds,
    )
    table, fit = curve(summary, folder, games)
    steps = table.iloc[1:]
    command = f"python -m experiments.homie_dial --games {games} --seed {args.seed}"
    command += f" --workers {args.workers}"
    if args.rounds != 10:
        command += f" --rounds {args.rounds}"
    if args.out.resolve() != default_out.resolve():
        command += f" --out {args.out}"
    record = {
        "study": "the difficulty dial homie:skill=X: rating against skill",
        "command": command,
        "bot": BOT,
        "param": PARAM,
        "field": [FIELD] * (PLAYERS - 1),
        "seed": args.seed,
        "rounds": args.rounds,
        "ends": {  # the registered bots at the dial's ends, with their defaults now
            "skill=0": repr(Homie(skill=0).beginner),
            "skill=1": repr(Homie(skill=1).expert),
        },
        "games_per_setting": games,
        "deals_per_setting": summary["points"][0]["arm"]["deals"],
        "rating": {
            "model": MODEL,
            "anchor": f"{FIELD} (the field) at 0: rating = 400 log10(3 w / (1 - w)) for win "
            "share w",
            "interval": INTERVAL,
            "step_interval": "95%: ratings from the same sandwich covariance "
            "(var r_i + var r_j - 2 cov); win shares from the per-deal paired differences",
            "elo_per_unit_log_strength": ELO,
        },
        "points": json.loads(table.to_json(orient="records")),
        "steps_up": int((steps["step"] == "up").sum()),
        "steps_flat": [float(s) for s in steps.loc[steps["step"] == "flat", "skill"]],
        "steps_down": [float(s) for s in steps.loc[steps["step"] == "down", "skill"]],
        "increasing_at_every_step": bool((steps["step"] == "up").all()),
        "even_levels": even_levels(table),
    }
    with common.finishing(args.out):  # the curve, its plot and summary of this run together
        common.write_csv(table, args.out / "curve.csv")
        plot(args.out, table)
        write_json(args.out / "summary.json", record)
    shown = table[
        ["skill", "win_share", "win_share_ci_low", "win_share_ci_high", "rating"]
        + ["rating_ci_low", "rating_ci_high", "rating_step", "rating_step_ci_low"]
        + ["rating_step_ci_high", "step"]
    ]
    print(shown.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print("even levels (skill values evenly spaced in rating):", record["even_levels"])
    ups = record["steps_up"]
    print(
        f"steps up: {ups} of {len(steps)}; flat at {record['steps_flat'] or 'none'}; "
        f"down at {record['steps_down'] or 'none'}"
    )
    print(f"{time.perf_counter() - start:.1f} s -> {args.out}/")
    return 0


if __name__ == "__main__":
    common.script(main)

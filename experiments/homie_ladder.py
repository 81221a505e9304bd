"""Study: how far apart are the Homies? A rated ladder of every bot, and the Homie presets.

1. **Ratings.** A tournament of every registered bot (``mc`` aside; ``homie`` at three skills,
   ``threshold`` at three settings, and the registry's old Normal for reference where the
   preset changed it) on one Elo-like scale with 95% intervals (``barbaron tournament``: Luce's
   choice rule, sandwich intervals over deals), Hard the anchor at 0. ``mc`` is too slow for
   the whole tournament: it is rated at a reduced budget (``--mc``, default
   ``mc:rollouts=16``) in a gauntlet against the same pool (every lineup holds it), also with
   Hard at 0. Writes ``ratings.csv`` and ``ratings.png``.
2. **Hard against every simple policy**: greedy and the 48 threshold policies
   ``threshold:buy=B,takeover=T,upgrade=U`` (B in 0, 150, 300; T and U in 0, 150, 300, none;
   greedy is B=T=U=0), in four gauntlets of Hard and 12 policies (every lineup of Hard and three
   of them), Hard the anchor at 0 in each, so all 48 are on one scale: a policy's rating is its
   distance from Hard and its interval that distance's interval (Hard's own is a point).
   Writes ``policies.csv`` and ``policies.png``.
3. **The presets** (``presets.json``, ``presets.csv``): the registered ``easy``, ``normal`` and
   ``hard``. Evenly spaced: the gaps Normal - Easy and Hard - Normal on the ladder, their
   difference, with 95% intervals from the ladder's covariance (refitted from its games,
   ``barbaron.tournament.fit_luce``). Hard above every simple policy (2). Easy a fair
   beginner's opponent: the beginner is the autopilot (buys while keeping 300 coins, never
   upgrades or takes over: what the game plays for a player who has not yet learnt upgrades
   and takeovers), who must win at least a fair share against Easy, 50% head to head and 25%
   against three Easy (the interval's low end above it), from the matrix's tables (4).
   ``--tune`` first chooses Normal's cushion with ``api.tune(..., target=...)`` (the
   ``barbaron tune --target`` command it records) so that Normal's rating lies midway between
   Easy's and Hard's on the last ladder (``ratings.csv``): Luce's rule turns that rating into a
   win share at a table of Normal, Easy, ``homie:skill=0.5`` and Hard, corrected by how far the
   current Normal's ladder rating lies from the one its share there implies. Writes
   ``tune.json``; the chosen cushion becomes the registry's default by hand
   (``bots/normal.py``), and the ladder is run again to check the gaps. ``--tune-games`` and
   ``--tune-trials`` size it; like every size they are among the arguments the folder records,
   so a small ladder that is to be tuned is run with the ones its tune will take.
4. Head-to-head matrix of Easy, Normal, Hard, the autopilot and Shark (every pair at a 2-player
   table, every one-against-three table: ``pairs.csv``, ``one_vs_three.csv``,
   ``one_vs_three.png``) and sweeps of each Homie's main parameters against three of its own
   default (``sweeps.csv``, ``sweeps.png``).

    python -m experiments.homie_ladder                 # the study: 5 to 9 minutes on 2 cores
    python -m experiments.homie_ladder --tune          # re-choose Normal (under a minute)
    python -m experiments.homie_ladder --games 4000 --sweep-games 2000 --ladder-games 40000 \\
        --grid-games 20000 --mc-games 4000 --tune-games 4000 --tune-trials 4 \\
        --out /tmp/ladder                                     # a small rerun (and + --tune)
    python -m experiments.homie_ladder --rounds 15     # the Long night: homie_ladder-15-rounds

All tables play every seat rotation; intervals are 95% over deals. ``OUT/runs/`` holds one
barbaron results folder per table, tournament, sweep or tune (not committed); ``summary.json``
has every part's numbers and the command that reproduces them. Same arguments, same numbers.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import shlex
import time
from pathlib import Path

import numpy as np
import pandas as pd

from barbaron import api
from barbaron.errors import UsageError
from barbaron.params import read_number
from barbaron.registry import make_bot
from barbaron.results import write_json
from barbaron.tournament import ELO, INTERVAL, MODEL, fit_luce, luce_shares
from barbaron.tournament import design as tournament_design
from barbaron.tuning import MAX_TRIALS
from experiments import common
from experiments.common import run

SEED = 4242
ANCHOR = "hard"
PLAYERS = 4
HOMIES = ["easy", "normal", "hard"]
# every registered bot but mc; homie at three skills, threshold at three representative settings
LADDER = [
    "hard",
    "easy",
    "normal",
    "autopilot",
    "greedy",
    "miser",
    "shark",
    "value",
    "policy",
    "homie:skill=0.25",
    "homie:skill=0.5",
    "homie:skill=0.75",
    "threshold",
    "threshold:buy=150,takeover=150,upgrade=150",
    "threshold:buy=300,takeover=300,upgrade=300",
]
OLD_DEFAULTS = ["normal:cushion=250"]  # the registry's Normal before the presets (if different)
MC = "mc:rollouts=16"
SIZES = ("games", "sweep_games", "ladder_games", "grid_games", "mc_games", "tune_games")
RECORDED = (*SIZES, "tune_trials", "mc", "seed", "rounds")  # the arguments its results depend on
CUSHIONS = ["0", "150", "300", "none"]
GRID = [  # (buy, takeover, upgrade, spec): greedy is the all-zero policy
    (
        b,
        t,
        u,
        "greedy" if (b, t, u) == ("0", "0", "0") else f"threshold:buy={b},takeover={t},upgrade={u}",
    )
    for b in ("0", "150", "300")
    for t in CUSHIONS
    for u in CUSHIONS
]
GROUPS = 4  # gauntlets of Hard and 12 policies (policy i in group i % 4)
BEGINNER, BEGINNER_FLOOR = "autopilot", {2: 0.5, 4: 0.25}  # wins at least a fair share
BOTS = ["easy", "normal", "hard", "autopilot", "shark"]  # the head-to-head matrix
SWEEPS = [  # (bot, parameter, values): each against three of the bot's default
    ("easy", "buy", "0:1:0.1"),
    ("easy", "upgrade", "0:1:0.1"),
    ("normal", "cushion", "0:1400:100"),
    ("hard", "risk", "0:2:0.25"),
    ("hard", "reserve", "0:200:25"),
    ("hard", "margin", "-300:100:50"),
]
TUNE_BOT, TUNE_PARAM = "normal", "cushion=600:1200"
TUNE_FIELD = ["easy", "homie:skill=0.5", "hard"]  # Normal's table: Easy, a mid dial, Hard
TUNE_TRIALS, TUNE_GAMES = 40, 100_000  # --tune's defaults: trials, games per trial and probe
TUNE_LEAST_GAMES = 400  # --tune-games at the least: the probe's share must be above 0


def lone_share(summary: dict, bot: str) -> tuple[float, float, float]:
    """Win share and interval of ``bot`` in a play summary."""
    row = next(b for b in summary["bots"] if b["bot"] == bot)
    return row["win_share"], row["win_share_ci"][0], row["win_share_ci"][1]


def folder_name(text: str) -> str:
    """A portable folder name for a bot spec or table (no colons, commas or equals signs)."""
    return text.replace(":", "_").replace(",", "_").replace("=", "")


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
        rounds=args.rounds,
    )


def fewest_games(pool: list[str], gauntlet: str | None = None) -> int:
    """The fewest games :func:`rate` can play: one deal of every lineup in every rotation."""
    bots = pool if gauntlet in (None, *pool) else [*pool, gauntlet]
    where = None if gauntlet is None else bots.index(gauntlet)
    return len(tournament_design(len(bots), PLAYERS, where)) * PLAYERS


def sub_run_seconds(runs: list[Path]) -> float:
    """The seconds the sub-runs ``runs`` played (each its last session's, from its manifest):
    those this study used, played now or reused, not others in its folder."""
    manifests = (run / "manifest.json" for run in dict.fromkeys(runs))
    return sum(json.loads(m.read_text()).get("seconds", 0.0) for m in manifests if m.exists())


def check_game_counts(args: argparse.Namespace) -> list[str]:
    """Refuse game counts a stage cannot play before any stage runs (they failed hours in); the
    notes to print once the run goes ahead (a stage of one deal a lineup: no interval)."""
    needs = [
        ("--games", args.games, PLAYERS, "one deal of the 1-vs-3 tables in every rotation"),
        ("--ladder-games", args.ladder_games, fewest_games(ladder_pool()), "the ladder"),
        (
            "--grid-games",
            args.grid_games,
            max(
                fewest_games([ANCHOR, *[spec for *_, spec in GRID[g::GROUPS]]], ANCHOR)
                for g in range(GROUPS)
            ),
            "each policy gauntlet",
        ),
    ]
    if args.mc != "none":
        needs.append(
            ("--mc-games", args.mc_games, fewest_games(ladder_pool(), args.mc), "mc's gauntlet")
        )
    notes = []
    for option, games, least, what in needs:
        if games < least:
            raise UsageError(f"{option} {games:,} is too few: {what} needs at least {least:,}")
        if option != "--games" and games < 2 * least:  # (QA: mc's rating had no interval)
            notes.append(
                f">>> note: {option} {games:,} plays one deal of each lineup of {what}: its "
                f"ratings get no interval (one needs two deals, {2 * least:,} games)"
            )
    if args.tune_games % PLAYERS or args.tune_games < TUNE_LEAST_GAMES:
        raise UsageError(
            f"--tune-games {args.tune_games:,} must be a multiple of the tune table's {PLAYERS} "
            f"rotations, at least {TUNE_LEAST_GAMES:,} (e.g. "
            f"{max(TUNE_LEAST_GAMES, args.tune_games - args.tune_games % PLAYERS + PLAYERS):,})"
        )
    if args.tune_trials > MAX_TRIALS:
        raise UsageError(f"--tune-trials {args.tune_trials:,} is too many: at most {MAX_TRIALS:,}")
    if args.games % PLAYERS:  # (QA: 4,002 played 4,000 at the 1-vs-3 tables, 4,002 in pairs)
        raise UsageError(
            f"--games {args.games:,} is not a multiple of the 1-vs-3 tables' {PLAYERS} rotations "
            f"(e.g. {args.games - args.games % PLAYERS + PLAYERS:,})"
        )
    if args.sweep_games % PLAYERS:
        raise UsageError(
            f"--sweep-games {args.sweep_games:,} is not a multiple of the sweeps' {PLAYERS} "
            "rotations"
        )
    return notes


def rate(pool: list[str], games: int, args: argparse.Namespace, name: str, **design) -> dict:
    """A tournament of ``pool`` (Hard the anchor), its summary. Eight units of work, enough to
    keep two workers busy (the games do not depend on the batch size; one that does not depend
    on --workers lets an interrupted run continue with any)."""
    gauntlet = design.get("gauntlet")
    bots = pool if gauntlet in (None, *pool) else [*pool, gauntlet]
    where = None if gauntlet is None else bots.index(gauntlet)
    lineups = len(tournament_design(len(bots), PLAYERS, where))
    deals = max(1, games // lineups // PLAYERS)
    batch = PLAYERS * max(1, -(-deals // 8))
    return run(
        api.tournament,
        args.out / "runs" / name,
        workers=args.workers,
        force=args.force,
        bots=pool,
        games=games,
        anchor=ANCHOR,
        seed=args.seed,
        rounds=args.rounds,
        batch_size=batch,
        **design,
    )


# --- 1. the ladder ------------------------------------------------------------------------------
def ladder_pool() -> list[str]:
    """LADDER, and the old defaults that now differ from the registered bots."""
    pool = list(LADDER)
    for spec in OLD_DEFAULTS:
        name = spec.split(":")[0]
        if repr(make_bot(spec)) != repr(make_bot(name)):
            pool.append(spec)
    return pool


def codes(column, lookup: dict[str, int]) -> np.ndarray:
    """A dictionary-encoded column of ``games.parquet`` (bot specs, arm labels) as indices of
    ``lookup``."""
    values = np.array([lookup[v] for v in column.dictionary.to_pylist()], dtype=np.int64)
    return values[column.indices.to_numpy(zero_copy_only=False)]


def luce_fit(folder: Path, summary: dict):
    """The tournament's fit again, from its ``games.parquet``, for the full covariance of the
    ratings (``summary.json`` has each rating's interval, not their covariances); checked
    against the summary's ratings."""
    import pyarrow.dataset as ds

    pool = summary["pool"]
    index = {spec: i for i, spec in enumerate(pool)}
    lineups = np.array([[index[b] for b in x] for x in summary["design"]["lineups"]])
    arm_of = {" + ".join(x): k for k, x in enumerate(summary["design"]["lineups"])}
    position = np.full((len(lineups), len(pool)), -1)
    for k, x in enumerate(lineups):
        position[k, x] = np.arange(len(x))
    deals = summary["deals"]
    rotations = summary["games_per_lineup"] // deals
    u = np.zeros((deals, len(pool)))  # each bot's wins per deal over every lineup
    wins = np.zeros(lineups.shape)
    data = ds.dataset(folder / "games.parquet", format="parquet")
    for batch in data.to_batches(columns=["arm", "deal", "bot", "win_share"]):
        arm = codes(batch.column("arm"), arm_of)
        bot = codes(batch.column("bot"), index)
        share = batch.column("win_share").to_numpy()
        deal = batch.column("deal").to_numpy()
        u += np.bincount(deal * len(pool) + bot, share, minlength=u.size).reshape(u.shape)
        cell = arm * lineups.shape[1] + position[arm, bot]
        wins += np.bincount(cell, share, minlength=wins.size).reshape(wins.shape)
    fit = fit_luce(
        lineups,
        wins,
        np.full(len(lineups), float(deals * rotations)),
        len(pool),
        anchor=None if summary["anchor"] is None else index[summary["anchor"]],
        deals=deals,
        deal_sum=u.sum(axis=0),
        deal_cross=u.T @ u,
        plays=np.full(len(lineups), float(rotations)),
    )
    stated = {r["bot"]: read_number(r["rating"]) for r in summary["ratings"]}
    se = {r["bot"]: read_number(r["rating_se"]) for r in summary["ratings"]}
    finite = np.where(np.isfinite(fit.ratings), fit.ratings, np.nan)  # summary.json: null
    same = np.allclose(
        [stated[b] for b in pool], finite, rtol=0, atol=1e-4, equal_nan=True
    ) and np.allclose(  # (a run from before 3 December: its errors lack deals / (deals - 1))
        [se[b] for b in pool], fit.se, rtol=1e-4 + 1 / deals, atol=1e-6, equal_nan=True
    )
    if not same:
        raise RuntimeError(f"games.parquet in {folder} disagrees with its summary")
    return pool, fit


def rating_columns(r: dict) -> dict:
    """A tournament summary's rating of one bot as table columns."""
    return {
        "rating": r["rating"],
        "ci_low": r["rating_ci"][0],
        "ci_high": r["rating_ci"][1],
        "games": r["games"],
        "win_share": r["win_share"],
    }


def ratings_table(summary: dict, how: str) -> pd.DataFrame:
    return pd.DataFrame(
        [{"bot": r["bot"], **rating_columns(r), "rated_in": how} for r in summary["ratings"]]
    )


def ladder(args: argparse.Namespace) -> tuple[pd.DataFrame, dict, tuple]:
    pool = ladder_pool()
    name = "tournament"
    main = rate(pool, args.ladder_games, args, name)
    fit = luce_fit(args.out / "runs" / name, main)
    table = ratings_table(main, "tournament")
    if args.mc != "none":
        gauntlet = rate(pool, args.mc_games, args, "mc-gauntlet", gauntlet=args.mc)
        rows = ratings_table(gauntlet, "gauntlet")
        row = rows[rows["bot"] == args.mc]
        table = pd.concat([table, row], ignore_index=True)
    table = table.sort_values("rating", ascending=False, ignore_index=True)
    record = {
        "pool": pool,
        "games": main["games"],
        "design": main["design"]["kind"],
        "lineups": len(main["design"]["lineups"]),
        "calibration_mae": main["calibration_mae"],
        "calibration_max": main["calibration_max"],
    }
    if args.mc != "none":
        record["mc"] = {
            "bot": args.mc,
            "games": gauntlet["games"],
            "lineups": len(gauntlet["design"]["lineups"]),
            "design": gauntlet["design"]["kind"],
            "note": "rated in its own gauntlet against the same pool, Hard at 0 there too",
            "pool_ratings_there": {r["bot"]: r["rating"] for r in gauntlet["ratings"]},
        }
    return table, record, fit


# --- 2. Hard against every simple policy --------------------------------------------------------
def policies(args: argparse.Namespace) -> pd.DataFrame:
    rows = []
    for g in range(GROUPS):
        group = GRID[g::GROUPS]
        specs = [spec for *_, spec in group]
        s = rate([ANCHOR, *specs], args.grid_games, args, f"grid-{g}", gauntlet=ANCHOR)
        rating = {r["bot"]: r for r in s["ratings"]}
        for b, t, u, spec in group:
            r = rating[spec]
            rows.append(
                {
                    "bot": spec,
                    "buy": b,
                    "takeover": t,
                    "upgrade": u,
                    **rating_columns(r),
                    "group": g,
                    "hard_above": bool(read_number(r["rating_ci"][1]) < 0),
                }
            )
    return pd.DataFrame(rows).sort_values("rating", ascending=False, ignore_index=True)


# --- 3. the presets -----------------------------------------------------------------------------
def difference(fit, pool: list[str], weights: dict[str, float]) -> dict:
    """A linear combination of ratings with its 95% interval from the fit's covariance; NaN,
    with a note, where a bot in it never won or always won (an infinite rating: small runs)."""
    at = [pool.index(bot) for bot in weights]
    infinite = [bot for bot, i in zip(weights, at, strict=True) if not np.isfinite(fit.ratings[i])]
    if infinite:
        note = f"not measurable: {', '.join(infinite)} never or always won (play more games)"
        return {"value": math.nan, "ci": [math.nan, math.nan], "se": math.nan, "note": note}
    vector = np.zeros(len(pool))
    vector[at] = list(weights.values())
    value, ci, se = fit.contrast(vector)  # (Student's t on deals - 1, as the tournament's gaps)
    return {"value": value, "ci": ci, "se": se}


def beginner_check(pairs: pd.DataFrame, ones: pd.DataFrame) -> dict:
    two = pairs.query("bot == @BEGINNER and opponent == 'easy'").iloc[0]
    four = ones.query("bot == @BEGINNER and field == 'easy'").iloc[0]
    tables = []
    for players, label, row in ((2, f"{BEGINNER} v easy", two), (4, f"{BEGINNER} + 3 easy", four)):
        floor = BEGINNER_FLOOR[players]
        tables.append(
            {
                "table": label,
                "win_share": float(row["win_share"]),
                "ci": [float(row["ci_low"]), float(row["ci_high"])],
                "games": int(row["games"]),
                "at_least": floor,
                "met": bool(row["ci_low"] > floor),
            }
        )
    return {
        "beginner": BEGINNER,
        "meaning": f"a beginner, modelled by {BEGINNER} (buys while keeping 300 coins, never "
        "upgrades or takes over), wins at least a fair share against Easy: the low end of the "
        "95% interval above 50% head to head and above 25% against three Easy",
        "tables": tables,
        "met": all(t["met"] for t in tables),
    }


def presets(
    table: pd.DataFrame, fit: tuple, grid: pd.DataFrame, beginner: dict, tune: dict | None
) -> tuple[dict, pd.DataFrame]:
    pool, f = fit
    rating = table.set_index("bot")
    low = difference(f, pool, {"normal": 1, "easy": -1})
    high = difference(f, pool, {"hard": 1, "normal": -1})
    diff = difference(f, pool, {"hard": 1, "normal": -2, "easy": 1})
    unbeaten = grid[~grid["hard_above"]]  # the best-rated of these, or of all (QA: it named
    closest = (unbeaten if len(unbeaten) else grid).iloc[0]  # one Hard beats, above all: False)
    simple = ["greedy", *[b for b in pool if b.startswith("threshold")]]
    ladder_simple = rating.loc[simple].sort_values("rating", ascending=False)
    rows = [
        {
            "preset": name,
            "spec": repr(make_bot(name)),
            "rating": rating.loc[name, "rating"],
            "ci_low": rating.loc[name, "ci_low"],
            "ci_high": rating.loc[name, "ci_high"],
        }
        for name in HOMIES
    ]
    record = {
        "presets": {r["preset"]: r["spec"] for r in rows},
        "ratings": rows,
        "gaps": {
            "normal - easy": low,
            "hard - normal": high,
            "(hard - normal) - (normal - easy)": diff,
            "ratio": high["value"] / low["value"] if low["value"] else math.nan,
            "evenly_spaced": None if "note" in diff else bool(diff["ci"][0] <= 0 <= diff["ci"][1]),
            "meaning": "the ladder's ratings; intervals 95% from the sandwich covariance of the "
            "fit (ratings refitted from the ladder's games.parquet): evenly spaced when the "
            "interval of the gaps' difference holds 0",
        },
        "hard_above_simple_policies": {
            "grid_policies": len(grid),
            "all_below_hard": bool(grid["hard_above"].all()),
            "closest": {
                "bot": closest["bot"],
                "rating": float(closest["rating"]),
                "ci": [float(closest["ci_low"]), float(closest["ci_high"])],
                "gap": float(-closest["rating"]),
                "gap_ci": [float(-closest["ci_high"]), float(-closest["ci_low"])],
            },
            "greedy": grid.set_index("bot")
            .loc["greedy", ["rating", "ci_low", "ci_high"]]
            .astype(float)
            .to_dict(),
            "on_the_ladder": {
                b: [float(r["rating"]), float(r["ci_low"]), float(r["ci_high"])]
                for b, r in ladder_simple.iterrows()
            },
            "meaning": "ratings with Hard at 0 (four gauntlets of Hard and 12 policies): Hard is "
            "above a policy when the policy's interval lies below 0",
        },
        "fair_beginners_opponent": beginner,
        "tune": tune,
        "normal_registered_as": None if tune is None else registered_normal(tune["best_spec"]),
    }
    return record, pd.DataFrame(rows)


def implied_rating(share: float, field: list[float]) -> float:
    """The rating that Luce's rule gives a bot winning ``share`` against bots rated ``field``."""
    return float(ELO * np.log(share / (1 - share) * np.exp(np.array(field) / ELO).sum()))


def registered_normal(tuned: str) -> dict:
    """The registered Normal beside the one this ladder's tuning chose, and whether they play
    alike (coins come in 5s, so a cushion counts in steps of 5)."""
    registered = make_bot("normal")
    same = -(-make_bot(tuned).cushion // 5) * 5 == registered.cushion
    return {
        "tuned": tuned,
        "registered": repr(registered),
        "note": "every coin amount of the game is a multiple of 5, so a cushion counts in steps "
        "of 5 coins: the registered default is the tuned cushion rounded up to one (the same "
        "games, tests/test_bots.py)"
        if same
        else "the registered default was tuned for other rules (the 10-round ladder); these "
        "rules' tuning chose another cushion",
    }


def tune_normal(args: argparse.Namespace, rerun: str) -> dict:
    """Choose Normal's cushion with ``api.tune(target=...)`` so that Normal's rating on the
    ladder lies midway between Easy's and Hard's (the last ladder's ``ratings.csv``).

    The target is a win share at the tune table (Normal, Easy, ``homie:skill=0.5``, Hard).
    Luce's rule turns a rating into a share there, but not exactly the ladder's rating (one
    table is not the whole pool): so the current Normal first plays the tune table on fresh
    deals, and the gap between its ladder rating and the rating its share there implies (the
    offset) is carried over to the target. Run after each ladder until the gaps are even;
    ``rerun`` is the command that runs it again."""
    paths = [args.out / "ratings.csv", args.out / "presets.json"]
    missing = [p.name for p in paths if not p.exists()]
    if missing:  # (QA: it ended with exit 1 and no "error:")
        raise UsageError(
            f"{args.out} has no {' or '.join(missing)}: run the ladder there first (the same "
            "command without --tune)"
        )
    r = pd.read_csv(paths[0]).set_index("bot")["rating"]
    mid = (r["easy"] + r["hard"]) / 2
    field = [float(r[b]) for b in TUNE_FIELD]
    now = repr(make_bot(TUNE_BOT))
    rated = json.loads(paths[1].read_text())["presets"][TUNE_BOT]
    if rated != now:
        raise UsageError(f"the last ladder rated {rated}, not {now}: run the ladder again first")
    given = f"{TUNE_BOT}:cushion={make_bot(TUNE_BOT).cushion}"  # the start, whatever the default
    probe = run(
        api.play,
        args.out / "runs" / "tune-normal-probe",
        workers=args.workers,
        force=args.force,
        bots=[given, *TUNE_FIELD],
        games=args.tune_games,
        seed=args.seed + 2,
        rounds=args.rounds,
    )
    share = lone_share(probe, given)[0]
    if not 0 < share < 1:  # (QA: --tune-games 4 ended in api.tune's "--target ... got 0.0")
        raise UsageError(
            f"Normal won {share:.0%} of the {args.tune_games:,} probe games: too few to tune "
            "by; give more --tune-games"
        )
    offset = float(r[TUNE_BOT]) - implied_rating(share, field)
    target = round(float(luce_shares([mid - offset, *field], range(1 + len(field)))[0]), 4)
    out = args.out / "runs" / "tune-normal"
    s = run(
        api.tune,
        out,
        workers=args.workers,
        force=args.force,
        bot=given,
        params=[TUNE_PARAM],
        field=TUNE_FIELD,
        target=target,
        trials=args.tune_trials,
        games_per_trial=args.tune_games,
        seed=args.seed,
        rounds=args.rounds,
    )
    long = args.rounds != 10  # (the rules of another number of rounds, said in every command)
    command = (
        f"barbaron tune --bot {given} --param {TUNE_PARAM} --field {' '.join(TUNE_FIELD)} "
        f"--target {target} --trials {args.tune_trials} --games-per-trial {args.tune_games} "
        f"--seed {args.seed} --workers {args.workers}"
        + (f" --rounds {args.rounds}" if long else "")
        + " --out runs/tune-normal"
    )
    record = {
        "command": command,
        "api": f"api.tune({given!r}, [{TUNE_PARAM!r}], field={TUNE_FIELD!r}, "
        f"target={target}, trials={args.tune_trials}, games_per_trial={args.tune_games}, "
        f"seed={args.seed}" + (f", rounds={args.rounds})" if long else ")"),
        "rerun": rerun,
        "derivation": {
            "from": "ratings.csv of the ladder run before it (Hard at 0)",
            "normal_then": now,
            "normal_then_rating": float(r[TUNE_BOT]),
            "normal_then_share_at_the_tune_table": share,
            "probe": f"barbaron play --bots {given} {' '.join(TUNE_FIELD)} --games "
            f"{args.tune_games} --seed {args.seed + 2}"
            + (f" --rounds {args.rounds}" if long else ""),
            "offset": offset,
            "easy": float(r["easy"]),
            "hard": float(r["hard"]),
            "midway": float(mid),
            "field": {b: float(r[b]) for b in TUNE_FIELD},
            "target": target,
            "rule": "target = 10^(t/400) / (10^(t/400) + sum over the field of 10^(r/400)), "
            "t = m - offset, m midway between Easy and Hard; offset = Normal's ladder rating "
            "minus the rating its share at the tune table implies by the same rule",
        },
        "best_spec": s["best_spec"],
        "tuning_share": s["tuning_share"],
        "confirmed_share": s["confirmed_share"],
        "confirmed_ci": s["confirmed_ci"],
        "confirmation": s["confirmation"],
        "trials": s["trials"],
    }
    with common.finishing(args.out):  # (and a --force run's mark settled)
        write_json(args.out / "tune.json", record)
    print(f"best: {s['best_spec']} (target {target}); confirmed {s['confirmed_share']:.4f}")
    return record


# --- 4. the matrix and the sweeps ---------------------------------------------------------------
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
            rounds=args.rounds,
        )
        for p in s["points"]:
            rows.append(
                {
                    "bot": bot,
                    "param": param,
                    "value": p["value"],
                    "win_share": p["win_share"],
                    "ci_low": read_number(p["win_share_ci"][0]),
                    "ci_high": read_number(p["win_share_ci"][1]),
                    "games": s["games"],
                }
            )
    return pd.DataFrame(rows)


# --- plots --------------------------------------------------------------------------------------
def plot_all(
    out: Path, table: pd.DataFrame, grid: pd.DataFrame, ones: pd.DataFrame, sweep: pd.DataFrame
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = table.iloc[::-1]
    y = np.arange(len(rows))
    colours = [
        "tab:red" if b in HOMIES else "tab:orange" if how == "gauntlet" else "tab:blue"
        for b, how in zip(rows["bot"], rows["rated_in"], strict=True)
    ]
    fig, ax = plt.subplots(figsize=(8, 0.38 * len(rows) + 1.5))
    ax.errorbar(
        rows["rating"],
        y,
        xerr=[rows["rating"] - rows["ci_low"], rows["ci_high"] - rows["rating"]],
        fmt="none",
        ecolor="grey",
        capsize=3,
    )
    ax.scatter(rows["rating"], y, c=colours, zorder=3)
    labels = [
        b + ("  (gauntlet)" if h == "gauntlet" else "")
        for b, h in zip(rows["bot"], rows["rated_in"], strict=True)
    ]
    ax.set_yticks(y, labels)
    ax.axvline(0, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel("rating, Hard = 0 (Elo-like, 95% interval)")
    ax.set_title("The ladder: every registered bot (Homie presets in red)")
    common.save_figure(fig, out / "ratings.png", dpi=110, bbox_inches="tight")

    rows = grid.iloc[::-1]
    y = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(8, 0.22 * len(rows) + 1.5))
    ax.errorbar(
        rows["rating"],
        y,
        xerr=[rows["rating"] - rows["ci_low"], rows["ci_high"] - rows["rating"]],
        fmt="o",
        markersize=3,
        capsize=2,
    )
    ax.axvline(0, color="tab:red", linewidth=1.5, label="hard (0)")
    labels = [
        f"{b}/{t}/{u}"
        for b, t, u in zip(rows["buy"], rows["takeover"], rows["upgrade"], strict=True)
    ]
    ax.set_yticks(y, labels, fontsize=7)
    ax.set_ylabel("threshold policy: buy / takeover / upgrade cushion (0/0/0 = greedy)")
    ax.set_xlabel("rating, Hard = 0 (Elo-like, 95% interval)")
    ax.set_title("Hard against every simple policy")
    ax.legend(loc="lower left")
    common.save_figure(fig, out / "policies.png", dpi=110, bbox_inches="tight")

    grid2 = ones.pivot(index="bot", columns="field", values="win_share").loc[BOTS, BOTS]
    fig, ax = plt.subplots(figsize=(6.5, 5))
    im = ax.imshow(grid2.to_numpy(dtype=float), cmap="RdYlGn", vmin=0, vmax=1)
    ax.set_xticks(range(len(BOTS)), BOTS)
    ax.set_yticks(range(len(BOTS)), BOTS)
    for (i, j), v in np.ndenumerate(grid2.to_numpy(dtype=float)):
        if not np.isnan(v):
            ax.text(j, i, f"{v:.2f}", ha="center", va="center")
    ax.set_xlabel("three of")
    ax.set_ylabel("one")
    ax.set_title("Win share of one bot against three of another (fair 0.25)")
    fig.colorbar(im)
    common.save_figure(fig, out / "one_vs_three.png", dpi=110, bbox_inches="tight")

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
    common.save_figure(fig, out / "sweeps.png", dpi=110)


def this_ladders_tune(path: Path, command: str) -> dict | None:
    """The folder's tune.json, without its trials, when a --tune run of this ladder's arguments
    wrote it (its "rerun" is ``command`` and --tune); None otherwise, said when there is one of
    other arguments (QA: a --force ladder of other sizes took in the tune of the one before)."""
    if not path.exists():
        return None
    tune = json.loads(path.read_text())
    if _options(tune.get("rerun", "")) != _options(f"{command} --tune"):
        print(f"(tune.json is of other arguments, {tune.get('rerun')!r}: not used, and removed)")
        return None
    tune.pop("trials", None)
    return tune


def _options(command: str) -> dict:
    """A study's command line as {option: value} (True for a flag), --out left out."""
    words = shlex.split(command)[3:]
    options = {}
    for i, word in enumerate(words):
        if word.startswith("--"):
            value = (
                words[i + 1] if i + 1 < len(words) and not words[i + 1].startswith("--") else True
            )
            options[word] = value
    options.pop("--out", None)
    return options


def command_of(args: argparse.Namespace, defaults: dict) -> str:
    """The command that reproduces this run."""
    parts = ["python -m experiments.homie_ladder"]
    for name in RECORDED:
        value = getattr(args, name)
        if value != defaults[name]:
            parts.append(f"--{name.replace('_', '-')} {value}")
    if args.out.resolve() != common.default_out("homie_ladder", args.rounds).resolve():
        parts.append(f"--out {args.out}")
    return " ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = common.parser("homie_ladder", __doc__.split("\n\n")[0])
    parser.add_argument(
        "--games",
        type=common.count,
        default=200_000,
        help="games per matrix table (default 200,000)",
    )
    parser.add_argument(
        "--sweep-games",
        type=common.count,
        default=40_000,
        help="games per sweep point (default 40,000)",
    )
    parser.add_argument(
        "--ladder-games",
        type=common.count,
        default=1_200_000,
        help="games of the ladder's tournament (default 1,200,000)",
    )
    parser.add_argument(
        "--grid-games",
        type=common.count,
        default=400_000,
        help="games of each of the 4 policy gauntlets (default 400,000)",
    )
    parser.add_argument(
        "--mc-games",
        type=common.count,
        default=100_000,
        help="games of mc's gauntlet (default 100,000)",
    )
    parser.add_argument("--mc", default=MC, help=f"the mc spec to rate (default {MC}; none: skip)")
    parser.add_argument("--seed", type=common.seed, default=SEED)
    common.add_workers(parser)
    common.add_rounds_and_out(parser, "homie_ladder")
    common.add_force(parser)
    common.add_quiet(parser)
    parser.add_argument(
        "--tune",
        action="store_true",
        help="only choose Normal's cushion with api.tune from the last ladder's ratings.csv "
        "(writes tune.json; make it the default in bots/normal.py, then rerun the ladder)",
    )
    parser.add_argument(
        "--tune-games",
        type=common.count,
        default=TUNE_GAMES,
        help=f"--tune's games per trial, of its probe and of its confirmation (default "
        f"{TUNE_GAMES:,}; a multiple of {PLAYERS})",
    )
    parser.add_argument(
        "--tune-trials",
        type=common.count,
        default=TUNE_TRIALS,
        help=f"--tune's trials (default {TUNE_TRIALS}, at most {MAX_TRIALS:,})",
    )
    args = parser.parse_args(argv)
    common.QUIET.set(args.quiet)
    if args.mc != "none":
        api.build_bots([args.mc])  # a bad spec is refused before the hours of play
    notes = check_game_counts(args)
    defaults = {k: parser.get_default(k) for k in vars(args)}
    args.out = common.out_folder(
        args.out or common.default_out("homie_ladder", args.rounds),
        study="homie_ladder",
        force=args.force,
        adding=args.tune,  # (--tune: to the ladder there, as it is)
        arguments={name: getattr(args, name) for name in RECORDED},
    )
    start = time.perf_counter()
    command = command_of(args, defaults)
    if args.tune:
        tune_normal(args, command + " --tune")
        print(f"{time.perf_counter() - start:.1f} s -> {args.out}/tune.json")
        return 0

    for note in notes:  # (once the folder is taken: QA saw them printed above a refusal, and
        print(note, flush=True)  # with --tune, which plays none of those stages)
    table, record, fit = ladder(args)
    grid = policies(args)
    pairs, ones = matrix(args)
    sweep = sweeps(args)
    tune_path = args.out / "tune.json"
    tune = this_ladders_tune(tune_path, command)
    preset, rows = presets(table, fit, grid, beginner_check(pairs, ones), tune)
    preset = {"command": command} | preset
    summary = {
        "study": "how far apart are the Homies: a rated ladder of every bot, Hard against every "
        "simple policy, the presets",
        "command": preset["command"],
        "seed": args.seed,
        "rounds": args.rounds,
        "model": MODEL,
        "interval": INTERVAL,
        "anchor": f"{ANCHOR} at 0",
        "elo_per_unit_log_strength": ELO,
        "ladder": record,
        "ratings": json.loads(table.to_json(orient="records")),
        "policies": json.loads(grid.to_json(orient="records")),
        "presets": preset,
        # this run's time: sub-runs reused from an earlier run take none; the games' time is
        # the sum of the sub-runs' own (each its last session's, from its manifest)
        "seconds_this_run": round(time.perf_counter() - start, 1),
        "seconds_of_the_sub_runs": round(sub_run_seconds(common.USED), 1),
    }
    with common.finishing(args.out):  # every table of this run, written together, or none (Ctrl-C)
        for frame, name in (
            (table, "ratings.csv"),
            (grid, "policies.csv"),
            (pairs, "pairs.csv"),
            (ones, "one_vs_three.csv"),
            (sweep, "sweeps.csv"),
            (rows, "presets.csv"),
        ):
            common.write_csv(frame, args.out / name)
        write_json(args.out / "presets.json", preset)
        write_json(args.out / "summary.json", summary)
        if tune is None:  # a tune of other arguments is not this ladder's
            tune_path.unlink(missing_ok=True)
        plot_all(args.out, table, grid, ones, sweep)

    for frame in (table, grid.head(5)):  # ratings to 0.1 points, win shares to 4 decimals
        shares = {c: "{:.4f}".format for c in frame.columns if "share" in c}
        print(frame.to_string(index=False, float_format="{:.1f}".format, formatters=shares))
    gaps = preset["gaps"]
    for key in ("normal - easy", "hard - normal", "(hard - normal) - (normal - easy)"):
        g = gaps[key]
        if "note" in g:
            print(f"{key:34} {g['note']}")
        else:
            print(f"{key:34} {g['value']:+7.1f}  [{g['ci'][0]:+.1f}, {g['ci'][1]:+.1f}]")
    above = preset["hard_above_simple_policies"]
    named = "closest" if above["all_below_hard"] else "one it does not beat:"
    even = gaps["evenly_spaced"]
    spacing = {
        None: "not measurable",
        True: "not rejected (the interval of the gaps' difference, above, holds 0)",
        False: "no",
    }[even]
    print(
        f"evenly spaced: {spacing}; "
        f"hard above all {len(grid)} policies: "
        f"{above['all_below_hard']} ({named} {above['closest']['bot']}, gap "
        f"{above['closest']['gap']:.1f} [{above['closest']['gap_ci'][0]:.1f}, "
        f"{above['closest']['gap_ci'][1]:.1f}]); fair beginner's opponent: "
        f"{preset['fair_beginners_opponent']['met']}"
    )
    print(f"{time.perf_counter() - start:.1f} s -> {args.out}/")
    return 0


if __name__ == "__main__":
    common.script(main)

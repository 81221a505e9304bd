"""Study: is the 100-coin seat compensation fair, and which bonus makes the seats even?

For tables of bots (the same bot in every seat, each deal played once; or a mixed lineup in
every rotation), plays a grid of flat seat bonuses with ``barbaron seats`` and collects, per
table: seat win shares with 95% intervals, the bonus where the seats come out even (with its
interval), whether 100 is fair, the bonus each seat would need on its own and the largest seat
deviation left at the even flat bonus (to test whether a flat step per seat suffices). Then it
solves per-seat start coins for some tables with ``barbaron seats --solve`` (a shaped schedule),
confirms each on fresh deals (seed + 1), and plays the flat step (the even bonus rounded to 5
coins) on the very same deals, so that flat and shaped are compared game for game.

The tables (``TABLES``), in groups:

- ``old``: the first edition's tables, played before the Homies' defaults changed, with the bots
  pinned to the specs they were played with (Easy; Normal ``normal:cushion=250``; the old Hard
  ``hard:risk=1,reserve=60,rival=1,margin=0,shortfall=0``). Their folders are reused.
- ``strong``: the new Hard (``hard`` at its registered defaults), the strongest fast bot
  (``value``: it edges ``shark`` head to head) and mixed tables of strong bots.
- ``mc``: 4 x ``mc:rollouts=8`` at bonus 75 (the strong 4-player tables' even bonus) and 100,
  fewer games: does search play agree with the fast bots?
- ``dial``: tables of the difficulty dial ``homie:skill=X`` (Easy at 0, Hard at 1), for the
  online game's quick matches with mixed human skill.

    python -m experiments.seat_compensation            # full size: 1,000,000 games/point
    python -m experiments.seat_compensation --games 20000 --mc-games 2000 --search-games 20000 \
        --out /tmp/seats-small                         # small: minutes, not hours
    python -m experiments.seat_compensation --rounds 15 --games 400000 --search-games 400000 \
        --tables hard-4p,hard-3p,hard-2p,skill50-4p,skills-4p,skills-3p,skills-2p \
        --solves hard-4p                               # the Long night house rule, as committed

Writes ``OUT/<table>/`` (the seats command's folder for each table), ``OUT/solved/<table>/``
(the solve command's folder), ``OUT/flat/<table>/`` (the flat step on the confirmation's deals)
and, in ``OUT/``: ``seats.csv`` (every table, bonus and seat),
``even.csv`` (one row per table), ``solved.csv`` (one row per solved table and seat),
``tables.json`` (every table's bots as resolved now and what was played), ``even_bonus.png``
and ``solved.png``. A finished folder is reused when its ``arguments.json`` records the same
bots (resolved to their parameters), grid, games, seed and rounds; a folder played otherwise
stops the study with one line (``--force`` plays every table again; or give another ``--out``).
Re-running with the same arguments reproduces every number exactly.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from barbaron import api
from barbaron.params import read_number
from barbaron.results import write_json
from barbaron.stats import zero_crossing
from experiments import common
from experiments.common import resolved, run

SEED = 2026
FULL_GRID = "0:200:25"

# The Homies as the first edition played them (pinned: the registered defaults have moved on).
EASY = "easy:buy=0.6,upgrade=0.1,takeover=0.05"
OLD_NORMAL = "normal:cushion=250"
OLD_HARD = "hard:risk=1,reserve=60,rival=1,margin=0,shortfall=0"
# The strongest fast bot: value edges shark (4 seats alternating, every rotation, 1,200,000
# games, seed 8: value 25.07% [25.05, 25.10], shark 24.93%; 2 players: 50.0% each).
FAST = "value"
MC = "mc:rollouts=8"


@dataclass(frozen=True)
class Table:
    name: str
    bots: tuple[str, ...]
    label: str
    group: str
    bonus: str = FULL_GRID
    games: str = "games"  # which argument sets the games per point: games, mixed_games, mc_games

    @property
    def rotated(self) -> bool:
        return len(set(self.bots)) > 1


def _dial(*skills: float) -> tuple[str, ...]:
    return tuple(f"homie:skill={s:g}" for s in skills)


TABLES = [
    # --- the first edition (reused) ------------------------------------------------------
    *[Table(f"easy-{p}p", (EASY,) * p, f"{p} Easy", "old") for p in (4, 3, 2)],
    *[Table(f"normal-old-{p}p", (OLD_NORMAL,) * p, f"{p} old Normal", "old") for p in (4, 3, 2)],
    *[Table(f"hard-old-{p}p", (OLD_HARD,) * p, f"{p} old Hard", "old") for p in (4, 3, 2)],
    Table(
        "mixed-old-4p",
        (EASY, OLD_NORMAL, OLD_HARD, OLD_HARD),
        "Easy, old Normal, old Hard x2",
        "old",
        games="mixed_games",
    ),
    Table(
        "mixed-old-3p",
        (EASY, OLD_NORMAL, OLD_HARD),
        "Easy, old Normal, old Hard",
        "old",
        games="mixed_games",
    ),
    Table(
        "mixed-old-2p", (OLD_NORMAL, OLD_HARD), "old Normal, old Hard", "old", games="mixed_games"
    ),
    # --- strong play: grids bracket the even bonus (found on 120,000-game probes) -------------
    *[Table(f"hard-{p}p", ("hard",) * p, f"{p} Hard", "strong") for p in (4, 3, 2)],
    Table("value-4p", (FAST,) * 4, "4 value", "strong", bonus="50:100:25"),
    Table("value-3p", (FAST,) * 3, "3 value", "strong", bonus="75:125:25"),
    Table("value-2p", (FAST,) * 2, "2 value", "strong", bonus="100:150:25"),
    Table(
        "strong-4p",
        ("hard", "shark", FAST, "hard"),
        "Hard, shark, value, Hard",
        "strong",
        bonus="50:100:25",
        games="mixed_games",
    ),
    Table(
        "strong-3p",
        ("hard", "shark", FAST),
        "Hard, shark, value",
        "strong",
        bonus="75:125:25",
        games="mixed_games",
    ),
    Table(
        "strong-2p",
        ("hard", FAST),
        "Hard, value",
        "strong",
        bonus="100:150:25",
        games="mixed_games",
    ),
    # --- search play, fewer games ------------------------------------------------------------
    Table("mc8-4p", (MC,) * 4, "4 mc:rollouts=8", "mc", bonus="75,100", games="mc_games"),
    # --- the difficulty dial: quick matches of mixed human skill ------------------------------
    Table("skill25-4p", _dial(0.25) * 4, "4 homie:skill=0.25", "dial", bonus="0:200:50"),
    Table("skill50-4p", _dial(0.5) * 4, "4 homie:skill=0.5", "dial", bonus="0:200:50"),
    Table(
        "skills-4p",
        _dial(0.25, 0.5, 0.75, 1),
        "homie:skill=0.25, 0.5, 0.75, 1",
        "dial",
        bonus="0:200:50",
        games="mixed_games",
    ),
    Table(
        "skills-3p",
        _dial(0.25, 0.625, 1),
        "homie:skill=0.25, 0.625, 1",
        "dial",
        bonus="0:200:50",
        games="mixed_games",
    ),
    Table(
        "skills-2p",
        _dial(0.5, 1),
        "homie:skill=0.5, 1",
        "dial",
        bonus="0:200:50",
        games="mixed_games",
    ),
]
BY_NAME = {t.name: t for t in TABLES}

# Tables whose per-seat start coins are solved (api.solve_seats), with the search's games per
# lineup (value is 5x slower than Hard, and mixed tables play every rotation: half the search;
# always the same 1,000,000-game confirmation).
SOLVES = {
    "hard-4p": 1_000_000,
    "value-4p": 500_000,
    "hard-3p": 1_000_000,
    "hard-2p": 1_000_000,
    "value-3p": 500_000,
    "value-2p": 500_000,
    "strong-4p": 500_000,
    "skills-4p": 500_000,
    "hard-old-4p": 1_000_000,  # the first edition's open question: flat or shaped at old Hard?
}
OTHER_SEARCH = 500_000  # the search's games per lineup for a table solved on request (--solves)


def record_of(table: Table) -> dict:
    """What a folder's table must have been played with to be reused, besides the run's
    arguments: its bots resolved to their parameters now."""
    return {
        "table": table.name,
        "label": table.label,
        "bots": list(table.bots),
        "resolved": [resolved(b) for b in table.bots],
    }


def whole_rotations(table: Table, games: int) -> int:
    """``games`` rounded down to whole deals of the table (every rotation of a mixed one)."""
    rotations = len(table.bots) if table.rotated else 1
    return games - games % rotations


def games_of(table: Table, args: argparse.Namespace) -> int:
    return whole_rotations(table, getattr(args, table.games))


def run_table(table: Table, args: argparse.Namespace) -> dict:
    """Play one table over its bonuses (or reuse a finished folder) and return its summary."""
    games = games_of(table, args)
    return run(
        api.seats,
        args.out / table.name,
        workers=args.workers,
        force=args.force,
        record=record_of(table),
        bots=list(table.bots),
        bonus=table.bonus,
        games=games,
        seed=args.seed,
        rounds=args.rounds,
    )


def run_solve(table: Table, args: argparse.Namespace) -> dict:
    """Solve one table's per-seat start coins and confirm them (or reuse a finished folder)."""
    search = whole_rotations(table, args.search_games or SOLVES.get(table.name, OTHER_SEARCH))
    games = whole_rotations(table, args.solve_games)
    return run(
        api.solve_seats,
        args.out / "solved" / table.name,
        workers=args.workers,
        force=args.force,
        record=record_of(table),
        bots=list(table.bots),
        games=games,
        search_games=search,
        seed=args.seed,
        rounds=args.rounds,
    )


def run_flat(table: Table, bonus: int, args: argparse.Namespace) -> dict:
    """The flat step ``bonus`` on the solved schedule's confirmation deals (seed + 1, as many
    games): the flat rule and the shaped schedule compared on the same fresh deals."""
    games = whole_rotations(table, args.solve_games)
    return run(
        api.seats,
        args.out / "flat" / table.name,
        workers=args.workers,
        force=args.force,
        record=record_of(table),
        bots=list(table.bots),
        bonus=[bonus],
        games=games,
        seed=args.seed + 1,
        rounds=args.rounds,
    )


def seat_needs(points: list[dict], players: int) -> list[float]:
    """Per seat, the flat bonus at which its own win share reaches 1/players (interpolated)."""
    bonus = np.array([p["seat_bonus"] for p in points], dtype=float)
    needs = []
    for seat in range(players):
        share = np.array([p["seats"][seat]["win_share"] for p in points])
        needs.append(zero_crossing(bonus, share - 1 / players))
    return needs


def flat_deviation(points: list[dict], players: int, bonus: float) -> float:
    """The largest seat deviation from 1/players, in percentage points, at the flat ``bonus``
    (every seat's share interpolated linearly between the grid's points); nan off the grid."""
    xs = np.array([p["seat_bonus"] for p in points], dtype=float)
    if np.isnan(bonus) or not xs[0] <= bonus <= xs[-1]:
        return float("nan")
    shares = [
        np.interp(bonus, xs, [p["seats"][s]["win_share"] for p in points]) for s in range(players)
    ]
    return 100 * float(np.max(np.abs(np.array(shares) - 1 / players)))


def table_rows(table: Table, summary: dict) -> tuple[list[dict], dict]:
    """The table's rows of seats.csv and its row of even.csv."""
    players = len(table.bots)
    points = summary["points"]
    bots = " ".join(table.bots)
    seats = [
        {
            "table": table.name,
            "group": table.group,
            "players": players,
            "bots": bots,
            "seat_bonus": p["seat_bonus"],
            "seat": s["seat"],
            "win_share": s["win_share"],
            "ci_low": read_number(s["win_share_ci"][0]),
            "ci_high": read_number(s["win_share_ci"][1]),
            "balance_p": p["seat_balance"]["p_value"],
            "games": summary["games"],
        }
        for p in points
        for s in p["seats"]
    ]
    at_100 = next((p for p in points if p["seat_bonus"] == 100), None)
    needs = seat_needs(points, players)
    even = read_number(summary["even"]["bonus"])
    row = {
        "table": table.name,
        "label": table.label,
        "group": table.group,
        "players": players,
        "bots": bots,
        "bonus_grid": table.bonus,
        "games_per_point": summary["games"],
        "even_bonus": even,
        "even_ci_low": summary["even"]["ci"][0],
        "even_ci_high": summary["even"]["ci"][1],
        "fair_at_100": np.nan if at_100 is None else at_100["seat_balance"]["balanced"],
        "balance_p_at_100": np.nan if at_100 is None else at_100["seat_balance"]["p_value"],
        "shares_at_100": ""
        if at_100 is None
        else " / ".join(f"{100 * s['win_share']:.2f}" for s in at_100["seats"]),
        "seat0_share_at_100": np.nan if at_100 is None else at_100["seats"][0]["win_share"],
        "last_seat_share_at_100": np.nan if at_100 is None else at_100["seats"][-1]["win_share"],
        "flat_largest_dev_pp": flat_deviation(points, players, even),
        **{f"seat{s}_needs": needs[s] for s in range(players)},
    }
    return seats, row


def solved_rows(table: Table, summary: dict, even: float, flat: dict) -> list[dict]:
    """One row per seat of a solved table: its coins and its confirmation, and beside them the
    flat step (the even bonus rounded to 5 coins) on the same deals."""
    players = len(table.bots)
    conf = summary["confirmation"]
    coins = summary["seat_coins"]
    point = flat["points"][0]
    flat_dev = [100 * (s["win_share"] - 1 / players) for s in point["seats"]]
    return [
        {
            "table": table.name,
            "label": table.label,
            "players": players,
            "bots": " ".join(table.bots),
            "seat": s["seat"],
            "start_coins": coins[s["seat"]],
            "step": coins[s["seat"]] - coins[s["seat"] - 1] if s["seat"] else 0,
            "flat_even_coins": coins[0] + s["seat"] * even,
            "win_share": s["win_share"],
            "ci_low": read_number(s["win_share_ci"][0]),
            "ci_high": read_number(s["win_share_ci"][1]),
            "deviation_pp": s["deviation_pp"],
            "p_value": conf["p_value"],
            "largest_deviation_pp": conf["largest_deviation_pp"],
            "confirmation_games": summary["games"],
            "confirmation_seed": conf["seed"],
            "search_games": summary["search"]["games"],
            "converged": summary["converged"],
            "flat_bonus": point["seat_bonus"],
            "flat_win_share": point["seats"][s["seat"]]["win_share"],
            "flat_deviation_pp": flat_dev[s["seat"]],
            "flat_p_value": point["seat_balance"]["p_value"],
            "flat_largest_deviation_pp": max(abs(d) for d in flat_dev),
        }
        for s in conf["seats"]
    ]


def main(argv: list[str] | None = None) -> int:
    parser = common.parser("seat_compensation", __doc__.split("\n\n")[0])
    parser.add_argument(
        "--games",
        type=common.count,
        default=1_000_000,
        help="games per bonus point, same bot in every seat (default 1,000,000); every count "
        "of games is rounded down to whole deals of its table (a mixed table of 3 plays "
        "999,999 of 1,000,000)",
    )
    parser.add_argument(
        "--mixed-games",
        type=common.count,
        default=None,
        help="games per bonus point for mixed tables (default: --games)",
    )
    parser.add_argument(
        "--mc-games",
        type=common.count,
        default=30_000,
        help="games per bonus point for the mc table (default 30,000)",
    )
    parser.add_argument(
        "--solve-games",
        type=common.count,
        default=None,
        help="confirmation games of each solved schedule (default: --games)",
    )
    parser.add_argument(
        "--search-games",
        type=common.count,
        default=None,
        help="the solver's games per lineup (default: 1,000,000 for hard-4p, hard-3p, hard-2p "
        "and hard-old-4p, else 500,000)",
    )
    parser.add_argument("--seed", type=common.seed, default=SEED)
    common.add_workers(parser)
    common.add_rounds_and_out(parser, "seat_compensation")
    common.add_force(parser)
    common.add_quiet(parser)
    parser.add_argument(
        "--tables",
        help="only these tables, comma-separated (default: all: "
        + ", ".join(t.name for t in TABLES)
        + ")",
    )
    parser.add_argument(
        "--solves",
        help="solve only these tables, comma-separated, or 'none' (default: all of "
        + ", ".join(SOLVES)
        + " that are among --tables)",
    )
    args = parser.parse_args(argv)
    common.QUIET.set(args.quiet)
    if args.tables is not None and not args.tables.strip():  # (QA: "" ran every table)
        parser.error("--tables is empty: name one or more tables, or leave it out for all")
    chosen = args.tables.split(",") if args.tables else [t.name for t in TABLES]
    unknown = sorted(set(chosen) - set(BY_NAME))
    if unknown:
        parser.error(f"unknown table {unknown[0]!r}")
    if args.solves is None:
        solves = [name for name in SOLVES if name in chosen]
    elif args.solves == "none":
        solves = []
    else:
        solves = args.solves.split(",")
    unknown = sorted(set(solves) - set(chosen))
    if unknown:
        parser.error(f"solve {unknown[0]!r}: not among --tables")
    # in the study's own order, each once: the results (and the folder's record of its
    # arguments) do not depend on the order given (QA)
    chosen = [t.name for t in TABLES if t.name in chosen]
    solves = [n for n in SOLVES if n in solves] + [
        n for n in chosen if n in solves and n not in SOLVES
    ]
    args.out = args.out or common.default_out("seat_compensation", args.rounds)
    args.mixed_games = args.mixed_games or args.games
    args.solve_games = args.solve_games or args.games
    args.out = common.out_folder(
        args.out,
        study="seat_compensation",
        force=args.force,
        arguments={  # (in the order a refusal names the first that differs: solves before
            # the solver's sizes, which are recorded as None without solves; QA)
            **{k: getattr(args, k) for k in ("games", "mixed_games", "mc_games", "seed")},
            "rounds": args.rounds,
            "tables": chosen,
            "solves": solves,
            **{k: getattr(args, k) if solves else None for k in ("solve_games", "search_games")},
        },
    )

    seats_rows, even_rows, solved = [], [], []
    records = {}
    for table in TABLES:
        if table.name not in chosen:
            continue
        seats, row = table_rows(table, run_table(table, args))
        seats_rows += seats
        even_rows.append(row)
        records[table.name] = common.recorded(args.out / table.name)
    even = pd.DataFrame(even_rows)
    for name in solves:
        table = BY_NAME[name]
        flat = float(even.set_index("table").loc[name, "even_bonus"])
        step = int(5 * round(flat / 5)) if not np.isnan(flat) else 100
        summary = run_solve(table, args)
        solved += solved_rows(table, summary, flat, run_flat(table, step, args))
        for kind in ("solved", "flat"):
            records[f"{kind}/{name}"] = common.recorded(args.out / kind / name)
    solved = pd.DataFrame(solved) if solved else None
    with common.finishing(args.out):  # every table of this run written together (Ctrl-C waits)
        common.write_csv(pd.DataFrame(seats_rows), args.out / "seats.csv")
        common.write_csv(even, args.out / "even.csv")
        write_json(args.out / "tables.json", records)
        plot_even(even, args.out / "even_bonus.png")
        if solved is not None:
            common.write_csv(solved, args.out / "solved.csv")
            plot_solved(solved, args.out / "solved.png")
        else:  # this run solved nothing: an earlier run's solved tables are not its own
            for name in ("solved.csv", "solved.png"):
                (args.out / name).unlink(missing_ok=True)
    shown = [
        "table",
        "games_per_point",
        "even_bonus",
        "even_ci_low",
        "even_ci_high",
        "flat_largest_dev_pp",
        "balance_p_at_100",
    ]
    print(_rounded(even[shown]).to_string(index=False))
    if solved is not None:
        shown = [
            "table",
            "seat",
            "start_coins",
            "win_share",
            "deviation_pp",
            "p_value",
            "flat_bonus",
            "flat_deviation_pp",
            "flat_p_value",
        ]
        print(_rounded(solved[shown]).to_string(index=False))
    return 0


GROUP_COLORS = {"old": "tab:grey", "strong": "tab:blue", "mc": "tab:red", "dial": "tab:green"}


def _rounded(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` as printed: deviations in percentage points to 9 decimals (two seats' shares
    at their even bonus differ from 1/2 by 1e-16, which printed as 5.6e-15); the files keep
    every digit."""
    return table.round({c: 9 for c in table.columns if c.endswith("_pp")})


def plot_even(even: pd.DataFrame, path: Path) -> None:
    """The even bonus of every table with its interval, against the rules' 100."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.32 * len(even)))
    y = np.arange(len(even))[::-1]
    mid = even["even_bonus"].to_numpy(dtype=float)
    low = mid - even["even_ci_low"].to_numpy(dtype=float)
    high = even["even_ci_high"].to_numpy(dtype=float) - mid
    for group, color in GROUP_COLORS.items():
        ok = (even["group"] == group).to_numpy() & ~np.isnan(mid)
        if ok.any():
            ax.errorbar(
                mid[ok],
                y[ok],
                xerr=[np.nan_to_num(low[ok]), np.nan_to_num(high[ok])],
                fmt="o",
                capsize=4,
                color=color,
                label=group,
            )
    for yi in y[np.isnan(mid)]:
        ax.annotate(
            "no crossing on its grid", (100, yi), xytext=(4, -4), textcoords="offset points"
        )
    ax.axvline(100, color="black", linestyle="--", linewidth=1, label="the rules: 100 per seat")
    ax.set_yticks(y, even["table"])
    ax.set_xlabel("flat seat bonus at which the seats come out even (95% interval)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")  # beside the points
    ax.set_title("Fair seat bonus per table")
    common.save_figure(fig, path, dpi=110, bbox_inches="tight")


def plot_solved(solved: pd.DataFrame, path: Path) -> None:
    """Per solved table: each seat's solved extra coins over seat 0 against the flat even
    bonus's, and the confirmation's deviations from a fair share."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    tables = list(dict.fromkeys(solved["table"]))
    for i, name in enumerate(tables):
        t = solved[solved["table"] == name]
        base = t["start_coins"].iloc[0]
        (line,) = left.plot(t["seat"], t["start_coins"] - base, marker="o", label=name)
        left.plot(t["seat"], t["flat_even_coins"] - base, linestyle=":", color=line.get_color())
        x = t["seat"] + 0.6 * ((i + 0.5) / len(tables) - 0.5)  # (one table: on its seats)
        right.errorbar(
            x,
            t["deviation_pp"],
            yerr=100 * np.array([t["win_share"] - t["ci_low"], t["ci_high"] - t["win_share"]]),
            fmt="o",
            markerfacecolor="none",  # (hollow: a cross at the same place shows through)
            capsize=3,
            color=line.get_color(),
        )
        right.plot(x, t["flat_deviation_pp"], "x", color=line.get_color(), markersize=7, zorder=3)
    for ax in (left, right):
        ax.set_xticks(range(int(solved["players"].max())))
    left.set_xlabel("seat")
    left.set_ylabel("start coins over seat 0")
    left.set_title("Solved schedule (solid) and the even flat bonus (dotted)")
    left.legend(fontsize="small")
    right.axhline(0, color="grey", linewidth=1)
    for limit in (-0.3, 0.3):
        right.axhline(limit, color="grey", linestyle=":", linewidth=1)
    right.set_xlabel("seat")
    right.set_ylabel("win share - 1/players (percentage points)")
    right.set_title("Fresh deals: solved (dots, 95% intervals) and flat step (crosses)")
    fig.tight_layout()
    common.save_figure(fig, path, dpi=110, bbox_inches="tight")


if __name__ == "__main__":
    common.script(main)

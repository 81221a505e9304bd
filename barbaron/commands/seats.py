"""For each seat bonus, the seats' win shares with 95% intervals, and the bonus at which the
seats come out even: where the least-squares slope of win share over seat index crosses zero
(interpolated; the interval from where the slope's 95% band crosses zero). With --solve: the
per-seat start coins at which every seat wins 1/players (a damped quasi-Newton iteration on common
random numbers, seat 0's coins fixed), confirmed on fresh deals."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from barbaron.commands._shared import (
    BOTS_FIXED,
    Once,
    add_rules_options,
    add_run_options,
    identical_seats_note,
    plus_minus,
    print_done,
    rules_line,
    run_options,
    seat_table,
)
from barbaron.config import DEFAULT_GAMES, SOLVE_GAMES
from barbaron.errors import UsageError
from barbaron.params import p_text, read_number

HELP = "fairness study: seat win shares against the seat bonus"
EPILOG = """examples:
  barbaron seats --bots normal --bonus 0:200:25 --out runs/seats
  barbaron seats --bots easy normal hard hard --games 40000 --out runs/mixed
  barbaron seats --bots hard --solve --out runs/solved"""

BONUS = "0:200:25"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bots",
        nargs="+",
        action=Once,
        required=True,
        metavar="BOT",
        help="one spec for the same bot in every seat, or 2-4 specs for a "
        "mixed table (played in rotation)",
    )
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        help="table size, 2 to 4 (default: 4 with one --bots spec, else the number of specs; "
        "with several --bots specs it must be their number)",
    )
    parser.add_argument(
        "--bonus", help=f"seat bonuses START:STOP:STEP or a comma list (default {BONUS})"
    )
    parser.add_argument(
        "--games",
        type=int,
        help=f"games per bonus (default {DEFAULT_GAMES:,}); with --solve, the confirmation's "
        f"games (default {SOLVE_GAMES:,}); defaults rounded down to whole deals",
    )
    solve = parser.add_argument_group("solve")
    solve.add_argument(
        "--solve",
        action="store_true",
        help="find every seat's start coins at which each seat wins 1/players (seat 0 keeps "
        "--start-coins), and confirm them on fresh deals",
    )
    solve.add_argument(
        "--search-games",
        type=int,
        help="with --solve: games per lineup in a full-size search iteration (default "
        f"{SOLVE_GAMES:,}, rounded down to whole deals)",
    )
    solve.add_argument(
        "--iterations",
        type=int,
        help="with --solve: search iterations at the most (default 12)",
    )
    add_run_options(parser, games=None)
    add_rules_options(
        parser,
        seat_bonus="with --solve: the schedule the search starts from (default 100); the bonus "
        "sweep takes its bonuses from --bonus instead",
    )


def run(args: argparse.Namespace) -> int:
    from barbaron import api

    if args.solve:
        return _solve(args)
    for option in ("search_games", "iterations"):
        if getattr(args, option) is not None:
            raise UsageError(f"--{option.replace('_', '-')} goes with --solve")
    result = api.seats(
        args.bots,
        bonus=BONUS if args.bonus is None else args.bonus,
        players=args.players,
        games=args.games,
        **run_options(args),
    )
    print(tables(result.summary))
    print_done(result)
    return 0


def tables(summary: dict) -> str:
    """The seats' win share per bonus and the even bonus; with --solve, the search's
    iterations, the solution and its confirmation."""
    if "confirmation" in summary:
        return _solve_tables(summary)
    points, even = summary["points"], summary["even"]
    players = len(points[0]["seats"])
    header = " ".join(f"{'seat ' + str(s):>22}" for s in range(players))
    lines = identical_seats_note(summary)
    lines += rules_line(points[0]["arm"].get("rules"), varied="bonus")
    lines.append(f"{'bonus':>6} {header} {'balance p':>10} {'slope':>9}")
    untestable = False
    cells_of = [
        [plus_minus(read_number(s["win_share"]), s["win_share_ci"]) for s in p["seats"]]
        for p in points
    ]
    # each seat's reaches left-aligned after its shares, so that the shares line up (QA)
    widths = [max(len(row[seat]) for row in cells_of) for seat in range(players)]
    for p, row in zip(points, cells_of, strict=True):
        cells = " ".join(
            cell.ljust(width).rjust(22) for cell, width in zip(row, widths, strict=True)
        )
        balance = read_number(p["seat_balance"]["p_value"])
        testable = not math.isnan(balance)  # too few deals, or no variation: said below (QA)
        untestable |= not testable
        lines.append(
            f"{p['seat_bonus']:>6} {cells} {p_text(balance) if testable else '-':>10} "
            f"{read_number(p['slope']):>+9.5f}"
        )
    lines.append("(each seat: win share and how far its 95% interval reaches on either side)")
    if points[0]["seat_balance"].get("bots_fixed"):
        lines.append(f"balance p and the even bonus: {BOTS_FIXED}")
    if untestable:
        lines.append("(balance p '-': not testable, too few deals or no variation)")
    if math.isnan(read_number(even["bonus"])):
        lines.append(
            "seats come out even: not within the bonuses played (the slope never changes "
            "sign); widen --bonus"
        )
    else:
        interval = _even_interval(even, points)
        lines.append(f"seats come out even at a bonus of {even['bonus']:.1f} coins ({interval})")
        lines.extend(_bent_at_even(even, points))
        lines.extend(_uneven_at_even(even["bonus"], points))
    return "\n".join(lines)


def _bent_at_even(even: dict, points: list[dict]) -> list[str]:
    """A warning when the slope bends too much between the two bonuses either side of the even
    one for a straight line there: a parabola through their neighbours crosses zero outside
    the even bonus's interval (``stats.bent_crossing``; a summary from before it: no check)."""
    from barbaron.stats import bracket

    bent = read_number(even.get("bent"))
    low, high = map(read_number, even["ci"])
    if not (bent < low or bent > high):  # (nan: no check, or an edge beyond the grid)
        return []
    bonuses = [p["seat_bonus"] for p in points]
    i = bracket(bonuses, even["bonus"])
    below, above = bonuses[i], bonuses[i + 1]
    step = max(1, round((above - below) / 10))
    return [
        f"but the slope bends between the bonuses {below} and {above}: parabolas through the "
        f"bonuses around them cross zero at {bent:.1f}, outside that interval, which assumes "
        f"a straight line there; play a finer grid there (--bonus {below}:{above}:{step})"
    ]


UNEVEN = 0.005  # a seat this far from 1/players (half a point of win share) is not even


def _uneven_at_even(bonus: float, points: list[dict]) -> list[str]:
    """A warning when the seats are not even where the slope is 0: their shares, interpolated
    between the bonuses either side, with a seat further from 1/players than its 95% interval's
    half-width and than :data:`UNEVEN` (the seats' shares are no straight line over the seat,
    and no flat bonus evens them all)."""
    below = [p for p in points if p["seat_bonus"] <= bonus][-1]
    above = next(p for p in points if p["seat_bonus"] >= bonus)
    span = above["seat_bonus"] - below["seat_bonus"]
    t = (bonus - below["seat_bonus"]) / span if span else 0.0
    players = len(below["seats"])

    def at_even(seat: int, value) -> float:
        return (1 - t) * value(below["seats"][seat]) + t * value(above["seats"][seat])

    def share(s: dict) -> float:
        return read_number(s["win_share"])

    def half_width(s: dict) -> float:
        low, high = map(read_number, s["win_share_ci"])
        return (high - low) / 2

    shares = [at_even(seat, share) for seat in range(players)]
    off = [  # beyond its interval, and by enough to matter
        seat
        for seat in range(players)
        if abs(shares[seat] - 1 / players) > max(at_even(seat, half_width), UNEVEN)
    ]
    if not off:
        return []
    listed = ", ".join(f"{x:.4f}" for x in shares)
    which = (
        f"seat {off[0]} is beyond its"
        if len(off) == 1
        else f"seats {', '.join(map(str, off))} are beyond their"
    )
    return [
        f"but there the seats would win about {listed} (interpolated): {which} 95% interval "
        f"of 1/{players} and more than half a point from it, so no flat bonus evens every seat; "
        "seats --solve finds each seat's coins"
    ]


def _solve_tables(s: dict) -> str:
    search, c = s["search"], s["confirmation"]
    players = len(s["seat_coins"])
    lines = (
        identical_seats_note(s)
        + rules_line(c.get("rules"), varied="coins")
        + [
            f"search: {s['method']}",
            f"seat 0 fixed at {s['seat_coins'][0]} coins; search seed {search['seed']}",
        ]
    )
    cell = 1 + max(5, *(len(str(x)) for it in s["iterations"] for x in it["seat_coins"]))
    header = f"{'iteration':>9} {'games':>10} {'start coins':>{cell * players}}"
    lines.append(f"{header} {'largest deviation':>18}")
    for it in s["iterations"]:
        coins = "".join(f"{x:>{cell}}" for x in it["seat_coins"])
        lines.append(
            f"{it['iteration']:>9} {it['games']:>10,} {coins} "
            f"{read_number(it['largest_deviation_pp']):>11.2f} points"
        )
    beyond = "; ".join(
        f"seat {h['seat']}'s fair coins lie "
        + ("below 0" if h["limit"] == 0 else f"above {h['limit']:,}")
        for h in s.get("held_at_limit") or []
    )
    from barbaron.solve import STOPS

    stop = s.get("stop")  # (none in a folder from an earlier version)
    if not beyond and stop == "wandered":
        beyond = (
            f"back to iteration {s['back_to_iteration']}'s coins, a wander within the noise of "
            f"{search['games']:,} games (more --search-games narrow it)"
        )
    elif not beyond and stop in STOPS and stop != "iterations" and not s["converged"]:
        beyond = STOPS[stop]
    state = (
        "converged"
        if s["converged"]
        else f"NOT converged: {beyond}; closest to fair of those played"
        if beyond
        else "NOT converged (closest to fair of those played)"
    )
    coins = ", ".join(map(str, s["seat_coins"]))
    lines.append(f"solution: {coins}, from iteration {s['solution_iteration']} ({state})")
    lines.append(f"\nconfirmation on fresh deals (seed {c['seed']}, {c['games']:,} games):")
    lines.append(seat_table(c))
    lines.append(
        f"largest seat deviation from 1/{players}: "
        f"{read_number(c['largest_deviation_pp']):.3f} percentage points"
    )
    return "\n".join(lines)


def _even_interval(even: dict, points: list[dict]) -> str:
    """The even bonus's 95% interval in words; an edge the band does not reach within the
    bonuses played is said to lie beyond them."""
    low, high = map(read_number, even["ci"])
    first, last = points[0]["seat_bonus"], points[-1]["seat_bonus"]
    if math.isnan(low) and math.isnan(high):
        return f"95% interval beyond the bonuses played, {first} to {last}: widen --bonus"
    if math.isnan(low):
        return f"95% interval below {first} .. {high:.1f}: widen --bonus"
    if math.isnan(high):
        return f"95% interval {low:.1f} .. above {last}: widen --bonus"
    return f"95% interval {low:.1f} .. {high:.1f}"


def _solve(args: argparse.Namespace) -> int:
    """seats --solve: the search's iterations, the solution and its confirmation."""
    from barbaron import api

    if args.bonus is not None:
        raise UsageError("--bonus is the bonus sweep's; --solve finds every seat's coins")
    given = {"search_games": args.search_games, "iterations": args.iterations}
    result = api.solve_seats(
        args.bots,
        players=args.players,
        games=args.games,
        **{k: v for k, v in given.items() if v is not None},
        **run_options(args),
    )
    print(tables(result.summary))
    print_done(result)
    return 0


def figures(summary: dict, parquet_files: list[Path]) -> list[tuple[str, object]]:
    """Seat win share against the seat bonus; with --solve, the search's iterations and the
    confirmation."""
    from barbaron import plots

    if "confirmation" in summary:
        return [("seat_coins.png", plots.seat_coins_search(summary))]
    return [("seat_bonus.png", plots.seat_bonus_curve(summary["points"], summary["even"]))]

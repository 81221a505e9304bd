"""Per-seat start coins that make every seat's win share equal: ``barbaron seats --solve``.

The unknowns are the start coins of seats 1..P-1; seat 0 keeps the coins it starts with in the
rules given (``--start-coins``, or the first of ``--seat-coins``), so the level of the money
stays the designer's choice and only the compensation is solved. The equations: each of seats
1..P-1 wins 1/P of the games (R19 shares); seat 0's share then follows, as shares sum to 1.

- **Common random numbers.** Every iteration plays the same deals (the run's seed; a shorter
  iteration plays the first of them), so the shares move between iterations by the coins
  alone, not by luck: the search finds the root on these deals.
- **Damped quasi-Newton.** The first two iterations play 1/16 and 1/4 of the search's
  games (cheap steps from far away) and measure the Jacobian: on the same deals, the table
  plays once more for each seat 1..P-1 with :data:`STEP` more coins for that seat, and the
  differences are the Jacobian's columns (the shares' response to each seat's coins, a finite
  difference on common random numbers, so with little noise). The full-size iterations after
  them play the current coins only (the search's games go where they count, into the shares
  at the current coins) and correct the Jacobian by the secant of each move of at least
  :data:`SECANT_MIN` coins from the full-size iteration before (Broyden's update): where the
  shares bend, a Jacobian kept fixed (a chord iteration, as before 30 November) stepped back
  and forth about the root (QA: 60 starts of 2 to 4 players at 4,000 games, converged in 34;
  with the secant in 56). Smaller moves leave it as it is: their change of the shares is
  mostly the rounding of a few deals, and near the root the search is a chord's. Every
  step is damped (no seat moves more than :data:`MAX_STEP` coins at once) and the coins are
  rounded to multiples of 5 (R9). Where the shares do not respond to the extra coins at all
  (a start far from fair: a singular Jacobian), the step is the damped one toward seat 0's
  share, each seat by its own sign (a seat winning as often as seat 0 stays), and the next
  iteration measures the Jacobian again; where the Newton step would take a seat whose share
  is more than 1/(2P) from seat 0's further from it (a Jacobian measured or updated where the
  shares barely respond can point anywhere), the seats that far take that step, the others
  stay, and the Jacobian is measured again too. A larger step back
  to coins already played at full size is a cycle (from a start so far off that the shares
  barely respond there, the Jacobian measured there overshoots): the Jacobian is then
  corrected by the secant through the last two full-size iterations (Broyden's update), and
  the step halved until it lands on coins not played yet. The search stops when a full-size
  iteration's step rounds to no change, or leads back to coins already played at full size
  (converged when that last step is at most 5 coins a seat, not cut short, back to the
  iteration just before, rounding's own back-and-forth, and no seat's coins were held at 0 or
  at the most allowed: the fair point then lies beyond; back to older coins, the search
  wandered within the noise of its games), or after ``iterations``. The
  solution is the full-size iteration's coins closest to fair (the smallest largest seat
  deviation). The root's error is the search's sampling error (about 0.05 percentage points
  a seat at 1,000,000 games): hence a search as large as the confirmation by default.
- **Confirmation.** On its own deals the solution is fair by construction, so it plays again
  on fresh deals (seed + 1, as tune's confirmation): the seats' shares with intervals there,
  the seat-balance test and the largest seat deviation are the result. The results folder is
  the confirmation's (its games, manifest, summary); it is created once the search has found
  the coins, and ``resume`` repeats the search (the same, as it is deterministic) and then
  continues the confirmation.

Same seed, same solution, whatever the workers or batch size: the shares come from exact
integer tallies.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Unpack

import numpy as np

from barbaron import interrupts
from barbaron.errors import RunFailed, RunInterrupted, UsageError
from barbaron.params import nearest_deals, whole_deals
from barbaron.rules import MAX_START_COINS
from barbaron.runs import (
    Execution,
    Run,
    RunOptions,
    RunResult,
    checked,
    execution_of,
    frame,
    games_or_default,
    identical_seats,
    table_of,
)

if TYPE_CHECKING:
    import pandas as pd

    from barbaron.harness import Totals
    from barbaron.rules import Rules

STEP = 50  # coins added to one seat to measure the shares' response (the Jacobian)
MAX_STEP = 300  # the most coins a seat moves in one iteration (the damping)
ROUND = 5  # coins come in 5s (R9)
WARM_UP = (16, 4)  # the first iterations play 1/16 and 1/4 of the search's games
SECANT_MIN = 20  # the least move (coins, largest seat) from which the Jacobian is corrected
MAX_ITERATIONS = 100
METHOD = (
    f"damped quasi-Newton on common random numbers (Jacobian from +{STEP} coins a seat on the "
    f"short iterations, corrected by the secant of each move of {SECANT_MIN} coins or more; "
    f"steps of at most {MAX_STEP} coins, coins in {ROUND}s)"
)


@dataclass(frozen=True)
class SolveResult(RunResult):
    """The result of :func:`solve_seats`: the per-seat start coins, the search's iterations and
    the confirmation on fresh deals. ``.seats``, ``.bots`` and ``.games()`` are the
    confirmation's."""

    @property
    def seat_coins(self) -> list[int]:
        """The solution: every seat's start coins."""
        return self.summary["seat_coins"]

    @property
    def confirmation(self) -> dict:
        """The solution on fresh deals: ``seats`` (win share with 95% interval, deviation from
        1/players in percentage points), ``seat_balance``, ``p_value``,
        ``largest_deviation_pp``."""
        return self.summary["confirmation"]

    @property
    def iterations(self) -> pd.DataFrame:
        """One row per iteration and seat: games, start coins, win share with its 95%
        interval on the search's deals."""
        return frame(
            [
                {"iteration": it["iteration"], "games": it["games"], "start_coins": coins, **s}
                for it in self.summary["iterations"]
                for coins, s in zip(it["seat_coins"], it["seats"], strict=True)
            ]
        )


@interrupts.deferring
def solve_seats(
    bots: str | Sequence[str],
    *,
    players: int | None = None,
    games: int | None = None,
    search_games: int | None = None,
    iterations: int = 12,
    **options: Unpack[RunOptions],
) -> SolveResult:
    """Find every seat's start coins at which each seat of the table wins 1/players, by a
    damped quasi-Newton iteration on common random numbers (see the module's docstring), seat 0's
    coins fixed; then confirm them with ``games`` games on fresh deals (``games`` and
    ``search_games``: default 1,000,000, rounded down to whole deals). The table: one spec for
    every seat of ``players`` (default 4; each deal once, as rotations would repeat identical
    games), or 2 to 4 specs played in rotation (every seat sees every bot, so the coins are
    fair to the seats, whoever sits in them; with ``rotate=False`` they are fair to this
    seating). The search starts from the rules' start coins (``start_coins``/``seat_bonus``
    or ``seat_coins``); ``search_games`` games per lineup at full size, at most
    ``iterations`` iterations."""
    from barbaron.config import MAX_GAMES, MAX_INDEX, SOLVE_GAMES
    from barbaron.harness import Arm

    execution = execution_of(options)
    bots = table_of(bots, players)
    players = len(bots)
    iterations = checked(iterations, "iterations", "whole")
    if not 1 <= iterations <= MAX_ITERATIONS:
        raise UsageError(f"--iterations must be from 1 to {MAX_ITERATIONS}, got {iterations}")
    rotate = execution.rotate and len(set(bots)) > 1  # identical seats: each deal once
    rotations = players if rotate else 1
    games = games_or_default(games, SOLVE_GAMES, rotations)
    search_games = games_or_default(search_games, SOLVE_GAMES, rotations, "search_games")
    if not rotations <= search_games <= MAX_GAMES or search_games % rotations:
        near = (
            f": {nearest_deals(search_games, rotations)}"
            if rotations <= search_games <= MAX_GAMES
            else ""
        )
        raise UsageError(
            f"--search-games must be {whole_deals(rotations)}, at most {MAX_GAMES:,}, "
            f"got {search_games}{near}"
        )
    start = execution.rules(players)
    for seat in range(1, players):  # the search measures each seat's response to STEP more
        if start.seat_start_coins(seat) > MAX_START_COINS - STEP:
            raise UsageError(
                f"seat {seat} starts with {start.seat_start_coins(seat):,} coins: the search "
                f"adds {STEP} to measure its response, so at most {MAX_START_COINS - STEP:,}"
            )
    confirming = dataclasses.replace(execution, seed=(execution.seed + 1) % MAX_INDEX)
    confirming.job([Arm("solution", tuple(bots), start)], games, rotate=rotate)  # checks it
    if execution.out is not None:  # before the search: it may take long
        from barbaron.results import ResultsError, check_target

        try:
            check_target(execution.out, force=execution.force, resume=execution.resume)
        except ResultsError as e:
            raise UsageError(str(e)) from None
    try:
        search = _search(execution, bots, start, search_games, iterations, rotate)
    except KeyboardInterrupt:  # the folder is made once the coins are found: nothing to keep
        raise RunInterrupted(
            "interrupted during the search for the seat coins, before anything was written; "
            "run the command again to start over"
        ) from None
    except RunFailed as e:  # (a worker killed: QA, the line said nothing of what to do)
        raise RunFailed(
            f"{e} (in the search for the seat coins, before anything was written): run the "
            "command again to start over"
        ) from None
    rules = execution.rules(players, seat_coins=search["seat_coins"])
    arm = Arm("solution", tuple(bots), rules)
    with Run.open("seats", confirming, [arm], games, rotate=rotate) as run:
        run.play()
        confirmation = run.totals[0].summary()
        confirmation.pop("label")
        for seat in confirmation["seats"]:
            seat["start_coins"] = rules.seat_start_coins(seat["seat"])
            seat["deviation_pp"] = 100 * (seat["win_share"] - 1 / players)
        confirmation["seed"] = confirming.seed
        confirmation["p_value"] = confirmation["seat_balance"]["p_value"]
        confirmation["largest_deviation_pp"] = max(
            abs(s["deviation_pp"]) for s in confirmation["seats"]
        )
        summary = {
            "games": games,
            "bots": confirmation["bots"],
            "seats": confirmation["seats"],
            "rotate": rotate,
            "identical_seats": identical_seats(bots, execution.rotate),
            "seat_coins": search["seat_coins"],
            "solution_iteration": search["solution_iteration"],
            "converged": search["converged"],
            "held_at_limit": search["held_at_limit"],
            "stop": search["stop"],
            "back_to_iteration": search["back_to_iteration"],
            "method": METHOD,
            "search": search["settings"],
            "iterations": search["iterations"],
            "confirmation": confirmation,
        }
        columns = ("seat", "start_coins", "win_share", "win_share_ci", "deviation_pp", "mean_worth")
        table = [{k: s[k] for k in columns} for s in confirmation["seats"]]
        return run.finish(
            SolveResult,
            summary,
            table,
            also_games=search["games_played"],
            also_seconds=search["seconds"],
        )


def _search(
    execution: Execution,
    bots: list[str],
    start: Rules,
    search_games: int,
    iterations: int,
    rotate: bool,
) -> dict:
    """The damped quasi-Newton iteration: the solution, whether it converged, every iteration,
    the search's settings, its games and seconds."""
    import time

    from barbaron.harness import Arm
    from barbaron.tuning import play_totals

    players = len(bots)
    rotations = players if rotate else 1
    coins = [start.seat_start_coins(s) for s in range(players)]
    full: dict[tuple[int, ...], int] = {}  # coins played at full size -> their iteration
    history: list[dict] = []
    jacobian = None  # d share of seat i / d coins of seat j, seats 1..P-1
    stop, back, played, started = "iterations", None, 0, time.perf_counter()
    for k in range(iterations):
        warm = WARM_UP[k] if k < len(WARM_UP) and k < iterations - 1 else 1
        n = max(rotations, search_games // warm // rotations * rotations)
        measure = warm > 1 or jacobian is None  # the short iterations measure the Jacobian
        arms = [Arm("coins", tuple(bots), execution.rules(players, seat_coins=coins))]
        for seat in range(1, players if measure else 1):
            more = [c + STEP * (s == seat) for s, c in enumerate(coins)]
            rules = execution.rules(players, seat_coins=more)
            arms.append(Arm(f"seat {seat} +{STEP}", tuple(bots), rules))
        job = execution.job(arms, n, rotate=rotate)
        totals = play_totals(job, quiet=not execution.progress)
        played += n * len(arms)
        at = totals[0].summary()
        share = _shares(totals[0])
        measured = None
        if measure:
            measured = np.array([(_shares(t) - share)[1:] for t in totals[1:]]).T / STEP
            jacobian = measured
        elif history and history[-1]["games"] == search_games:  # two full-size in a row
            jacobian = _secant(jacobian, coins, share, history[-1])
        step = _newton(jacobian, share)
        if step is None or _away(step, share):  # no response to +STEP coins here, or a step
            # a seat far off would take further off: far from fair (QA: 83 of 190 far starts
            # failed on the first; from 0/0/0/3000 the second gave seat 3, winning 99%, 300
            # coins more): the damped step toward seat 0's share, measured again there
            step = _toward_seat_0(share, far_only=step is not None)
            jacobian = None
        moved, held = _move(coins, step)
        halved = False  # (a step cut short is no sign of a root)
        if n == search_games and tuple(moved) in full and _largest(moved, coins) > ROUND:
            # back to coins played already: a cycle, where the Jacobian measured far from here
            # (where shares barely respond) overshoots. Correct it by the secant from the last
            # full-size iteration even after a small move, then halve the step until it lands
            # on coins not played yet (QA: from 500/2000 it stopped at 500/500, 6 points off,
            # with the fair coins between 500 and 800).
            if history[-1]["games"] == search_games and jacobian is not None and not measure:
                secant = _secant(jacobian, coins, share, history[-1], guarded=False)
                along = _newton(secant, share)
                if along is not None and not _away(along, share):  # (else: keep J)
                    step, jacobian = along, secant
                    moved, held = _move(coins, step)
            while tuple(moved) in full and _largest(moved, coins) > ROUND:
                step = step / 2
                moved, held = _move(coins, step)
                halved = True
        deviation = 100 * float(np.abs(share - 1 / players).max())
        history.append(
            {
                "iteration": k,
                "games": n,
                "seat_coins": coins,
                "seats": [
                    {key: s[key] for key in ("seat", "win_share", "win_share_ci")}
                    for s in at["seats"]
                ],
                "largest_deviation_pp": deviation,
                "seat_balance": at["seat_balance"],
                "jacobian_per_100_coins": None if measured is None else (100 * measured).tolist(),
                "step": step.tolist(),
            }
        )
        if execution.progress:
            from tqdm import tqdm

            tqdm.write(
                f"  iteration {k}: {n:,} games, coins {_text(coins)}: largest seat deviation "
                f"{deviation:.2f} points; next {_text(moved)}"
            )
        if n == search_games:
            full[tuple(coins)] = k
            if tuple(moved) in full:  # no change (or a step of 5 back to coins played)
                back = full[tuple(moved)]
                stop = _stop(back, k, held, halved)
                break
        coins = moved
    # the closest to fair of the full-size iterations (the last is one); ties: the earliest
    best = min(full.values(), key=lambda k: history[k]["largest_deviation_pp"])
    return {
        "seat_coins": history[best]["seat_coins"],
        "solution_iteration": best,
        "converged": stop in CONVERGED,
        "stop": stop,  # why the search stopped: one of STOPS
        "held_at_limit": held,  # seats the last step wanted beyond 0 .. the most coins allowed
        "back_to_iteration": back,  # the full-size iteration whose coins the last step chose
        "iterations": history,
        "settings": {
            "seed": execution.seed,
            "games": search_games,
            "max_iterations": iterations,
            "start": [start.seat_start_coins(s) for s in range(players)],
            "fixed_seat": 0,
            "step": STEP,
            "max_step": MAX_STEP,
            "secant_min": SECANT_MIN,
            "warm_up": [search_games // w // rotations * rotations for w in WARM_UP],
        },
        "games_played": played,
        "seconds": time.perf_counter() - started,
    }


STOPS = {  # why a search stopped, in words; the first two are convergence
    "no change": "its step rounded to no change",
    "back and forth": "its step went back to the coins of the iteration before (rounding)",
    "held": "a limit held its step back: the fair coins lie beyond",
    "halved": "its step, halved to leave a cycle, came back to coins played",
    "wandered": "its step went back to older coins, a wander within the noise of its games",
    "iterations": "it ran out of iterations",
}
CONVERGED = ("no change", "back and forth")


def _stop(back: int, k: int, held: list[dict], halved: bool) -> str:
    """Why full-size iteration ``k`` ends the search, its step leading to the coins of
    iteration ``back`` (k itself: no change): a key of :data:`STOPS`."""
    if held:  # (no root within the limits)
        return "held"
    if halved:  # (a step cut short is no sign of a root)
        return "halved"
    return {k: "no change", k - 1: "back and forth"}.get(back, "wandered")


def _newton(jacobian: np.ndarray | None, share: np.ndarray) -> np.ndarray | None:
    """The Newton step toward even shares, damped; None without a Jacobian, or a singular
    one."""
    if jacobian is None:
        return None
    try:
        step = np.linalg.solve(jacobian, 1 / len(share) - share[1:])
    except np.linalg.LinAlgError:
        return None
    return step * min(1.0, MAX_STEP / max(np.abs(step).max(), 1e-12))  # the damping


def _far(share: np.ndarray) -> np.ndarray:
    """Per seat 1..: its share is more than 1/(2 players) from seat 0's (near fair every seat
    is well within that)."""
    return np.abs(share[1:] - share[0]) > 1 / (2 * len(share))


def _away(step: np.ndarray, share: np.ndarray) -> bool:
    """Whether ``step`` takes a seat far from seat 0's share further from it: a Jacobian
    measured or updated where the shares barely respond, which then points anywhere."""
    gap = share[1:] - share[0]  # > 0: the seat wins more than seat 0, so needs fewer coins
    return bool((_far(share) & (step * gap > 0) & (np.abs(step) >= ROUND / 2)).any())


def _toward_seat_0(share: np.ndarray, far_only: bool) -> np.ndarray:
    """The damped step toward seat 0's share, each seat by its own sign (more coins, more
    wins; a seat winning as often as seat 0 stays); ``far_only``: the seats far from it alone
    (a Newton step refused for them says nothing of the others, which stay)."""
    step = MAX_STEP * np.sign(share[0] - share[1:])
    return np.where(_far(share), step, 0.0) if far_only else step


def _move(coins: list[int], step: np.ndarray) -> tuple[list[int], list[dict]]:
    """The coins ``step`` moves seats 1.. to, in 5s within the limits; and the seats a limit
    held back, with the coins there."""
    upper = MAX_START_COINS - STEP  # room for the Jacobian's extra coins
    wanted = [
        math.floor((c + d) / ROUND + 0.5) * ROUND for c, d in zip(coins[1:], step, strict=True)
    ]
    moved = [coins[0]] + [min(max(w, 0), upper) for w in wanted]
    held = [
        {"seat": seat, "limit": moved[seat]} for seat, w in enumerate(wanted, 1) if w != moved[seat]
    ]
    return moved, held


def _secant(
    jacobian: np.ndarray, coins: list[int], share: np.ndarray, last: dict, guarded: bool = True
) -> np.ndarray:
    """The Jacobian corrected by the secant from the ``last`` full-size iteration to this one
    (Broyden's update: the least change that makes it map that move of the coins onto that
    change of the shares). ``guarded``: unchanged after a move of less than :data:`SECANT_MIN`
    coins a seat (the shares' change is then mostly the rounding of a few deals), or where the
    update would leave a seat winning less with more coins of its own."""
    dx = np.array(coins[1:], float) - np.array(last["seat_coins"][1:], float)
    if guarded and np.abs(dx).max() < SECANT_MIN:
        return jacobian
    df = share[1:] - np.array([seat["win_share"] for seat in last["seats"]])[1:]
    secant = jacobian + np.outer(df - jacobian @ dx, dx) / float(dx @ dx)
    return jacobian if guarded and (np.diag(secant) <= 0).any() else secant


def _largest(a: Sequence[int], b: Sequence[int]) -> int:
    """The largest difference between two seats' coins."""
    return max(abs(x - y) for x, y in zip(a, b, strict=True))


def _shares(total: Totals) -> np.ndarray:
    """Every seat's win share (R19) from the exact tallies."""
    return np.array([s["win_share"] for s in total.summary()["seats"]])


def _text(coins: Sequence[int]) -> str:
    return "/".join(str(c) for c in coins)

"""A rating for every bot of a pool on one Elo-like scale, with intervals: ``barbaron tournament``.

**Design.** Lineups are sets of ``players`` different bots of the pool: every combination when
there are at most :data:`MAX_COMBINATIONS`, otherwise a balanced design in which every pair of
bots sits at the same number of lineups (:func:`balanced_design`); with a gauntlet bot, only
lineups that hold it. All lineups are arms of one job: they play the same deals, each in every
rotation, and the games are split equally among them.

**Model.** At a table T, bot i wins with probability

    P(i wins | T) = 10^(r_i / 400) / sum_{j in T} 10^(r_j / 400)

(Luce's choice rule: the first place of a Plackett-Luce model; two bots alone at a table get
the logistic Elo curve). A shared win counts 1/k for each of k winners (R19), as a fractional
outcome. The ratings maximise the likelihood (:func:`fit_luce`, scipy's trust-region Newton on
the exact concave log-likelihood), with the anchor bot at 0.

**Intervals.** 95%, from the sandwich (robust) covariance H^-1 J H^-1, H the observed
information and J the sum over deals of the outer products of each deal's score, the deal
taken whole: all its rotations in all its lineups share dice and cards, so they are one
cluster. With G deals, J is scaled by G / (G - 1) and the interval takes Student's t on G - 1
degrees of freedom, as every other interval of barbaron does (with 10 deals the plain normal
sandwich covered 88-92% in QA's and the tests' simulations; both corrections vanish as G
grows). Its inputs are exact per-deal sums over bots (a vector and a matrix per run), so
memory stays flat however many games are played. The plain observed-information interval,
which would treat the games as independent, is reported beside it (``rating_se_model``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Unpack

import numpy as np

from barbaron import interrupts
from barbaron.config import MAX_GAMES
from barbaron.errors import UsageError
from barbaron.params import counted
from barbaron.runs import RunOptions, RunResult, frame

if TYPE_CHECKING:
    import pandas as pd

    from barbaron.harness import Arm, Totals, UnitResult

MAX_COMBINATIONS = 70  # every combination up to this many lineups; a balanced design above
MAX_POOL = 32  # bots in one tournament at the most (a balanced design of 4 takes seconds)
DESIGN_NODES = 1000  # the search for the smallest balanced design stops after this many nodes
ELO = 400 / math.log(10)  # rating points per unit of the natural log-strength
MODEL = (
    "Luce choice rule (the first place of a Plackett-Luce model): at a table T, bot i wins "
    "with probability 10^(r_i/400) / sum over j in T of 10^(r_j/400); shared wins count as "
    "fractions (R19); maximum likelihood"
)
INTERVAL = (
    "95%: sandwich (robust) covariance from the observed information and the per-deal scores, "
    "each deal (all its lineups and rotations) one cluster, times deals/(deals-1); Student's t "
    "on deals-1 degrees of freedom"
)


# --- the model ---------------------------------------------------------------------------------
def luce_shares(ratings: Sequence[float], lineup: Sequence[int]) -> np.ndarray:
    """Each seat's win probability at a table of the bots ``lineup`` (indices into
    ``ratings``, repeats allowed) under the Luce choice rule."""
    r = np.asarray(ratings, dtype=float)[np.asarray(lineup, dtype=int)]
    top = r == np.inf
    if top.any():  # bots that always win split the wins
        return top / top.sum()
    finite = np.isfinite(r)
    if not finite.any():
        return np.full(len(r), 1 / len(r))
    x = np.where(finite, r, -np.inf) / ELO
    e = np.exp(x - x[finite].max())
    return e / e.sum()


@dataclass(frozen=True)
class LuceFit:
    """Ratings of the Luce model (Elo points, the anchor at 0) and their uncertainty. A bot
    that never won is at -inf, one that won every game it played at +inf (no finite
    maximum exists); their errors are nan."""

    ratings: np.ndarray  # (bots,)
    se: np.ndarray  # (bots,) standard errors: sandwich if per-deal sums were given, else model
    se_model: np.ndarray  # (bots,) from the observed information alone (games independent)
    cov: np.ndarray  # (bots, bots) the covariance behind ``se`` (0 for fixed bots)
    loglik: float
    iterations: int
    dof: float = math.inf  # of ``se``: deals - 1 for the sandwich, none (normal) for the model

    @property
    def quantile(self) -> float:
        """The two-sided 95% quantile of the intervals: Student's t on :attr:`dof`."""
        from barbaron.stats import Z95, t_quantile

        return Z95 if math.isinf(self.dof) else t_quantile(0.025, int(self.dof))

    def ci(self, bot: int) -> tuple[float, float]:
        """The 95% interval of one bot's rating."""
        half = self.quantile * self.se[bot]
        return (self.ratings[bot] - half, self.ratings[bot] + half)

    def contrast(self, weights: np.ndarray) -> tuple[float, list[float], float]:
        """``weights @ ratings`` with its 95% interval and standard error from the ratings'
        covariance (a gap between two bots needs it: each rating's own interval is relative
        to the anchor). A bot of the contrast at -inf or +inf: nan interval and error."""
        used = np.asarray(weights) != 0  # (a bot not in it may be at -inf, its covariance nan)
        w = np.asarray(weights, dtype=float)[used]
        with np.errstate(invalid="ignore"):  # two bots at -inf: their gap is nan
            value = float(w @ self.ratings[used])
        if not math.isfinite(value):
            return value, [math.nan, math.nan], math.nan
        variance = float(w @ self.cov[np.ix_(used, used)] @ w)
        se = math.sqrt(variance) if variance >= 0 else math.nan
        return value, [value - self.quantile * se, value + self.quantile * se], se


def fit_luce(
    lineups: np.ndarray,
    wins: np.ndarray,
    games: np.ndarray,
    bots: int,
    *,
    anchor: int | None = 0,
    deals: int | None = None,
    deal_sum: np.ndarray | None = None,
    deal_cross: np.ndarray | None = None,
    plays: np.ndarray | None = None,
) -> LuceFit:
    """Maximum-likelihood ratings from lineups and their wins.

    ``lineups`` (L, P): bot indices per lineup position; ``wins`` (L, P): wins of each
    position summed over the lineup's games (fractions for shared wins); ``games`` (L,).
    For the sandwich interval give the deals' sums: ``deal_sum`` (bots,) and ``deal_cross``
    (bots, bots), the sums over ``deals`` deals of u_d and u_d u_d^T, u_d being each bot's wins
    in deal d over every lineup, with ``plays`` (L,) the games of each lineup in one deal.
    ``anchor`` is rated 0; it must have a finite rating (:func:`luce_extremes`), and can be None
    only when no bot has one.
    """
    with interrupts.deferred():  # a Ctrl-C inside scipy's import breaks it for the process
        from scipy.optimize import minimize

    lineups = np.asarray(lineups, dtype=np.int64)
    wins = np.asarray(wins, dtype=float)
    games = np.asarray(games, dtype=float)
    seen, never, always = luce_extremes(lineups, wins, games, bots)
    finite = seen & ~never & ~always
    if anchor is None and finite.any():
        raise ValueError("an anchor is needed: some bots have a finite rating")
    if anchor is not None and not finite[anchor]:
        raise ValueError("the anchor has no finite rating: it never won, or always won")
    live = ~(np.isin(lineups, np.flatnonzero(always)).any(axis=1))  # lineups without a sure winner
    idx, w, n = lineups[live], wins[live], games[live]
    member = ~never[idx]  # (L, P) positions of bots with finite ratings
    free = np.flatnonzero(finite & (np.arange(bots) != anchor))  # the anchor stays at 0

    def full(x: np.ndarray) -> np.ndarray:
        theta = np.zeros(bots)
        theta[free] = x
        return theta

    def shares(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t = np.where(member, theta[idx], -np.inf)
        top = t.max(axis=1, keepdims=True)
        e = np.where(member, np.exp(t - top), 0.0)
        total = e.sum(axis=1, keepdims=True)
        return e / total, (top + np.log(total))[:, 0]

    where = np.searchsorted(free, idx)  # position of each member in the free vector
    is_free = np.isin(idx, free)

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        theta = full(x)
        p, lse = shares(theta)
        value = -(np.where(member, w * theta[idx], 0).sum() - (n * lse).sum())
        residual = w - n[:, None] * p
        grad = -np.bincount(where[is_free], residual[is_free], minlength=len(free))
        return float(value), grad

    def hessian(x: np.ndarray) -> np.ndarray:
        p, _ = shares(full(x))
        block = n[:, None, None] * (
            np.einsum("li,ij->lij", p, np.eye(p.shape[1])) - p[:, :, None] * p[:, None, :]
        )
        h = np.zeros((bots, bots))
        np.add.at(h, (idx[:, :, None], idx[:, None, :]), block)
        return h[np.ix_(free, free)]

    if len(free):
        done = minimize(
            objective,
            np.zeros(len(free)),
            jac=True,
            hess=hessian,
            method="trust-exact",
            options={"gtol": 1e-9, "maxiter": 500},
        )
        x, iterations, value = done.x, int(done.nit), float(done.fun)
    else:
        x, iterations, value = np.zeros(0), 0, objective(np.zeros(0))[0]
    theta = full(x)
    ratings = theta * ELO
    ratings[never] = -np.inf
    ratings[always] = np.inf
    ratings[~seen] = np.nan
    h_inv = np.linalg.inv(hessian(x)) if len(free) else np.zeros((0, 0))
    cov_model = h_inv
    cov, dof = cov_model, math.inf
    if deal_cross is not None and len(free) and deals < 2:  # one deal shows no spread between
        cov = np.full_like(h_inv, np.nan)  # deals: no interval (as play's of a single deal)
    elif deal_cross is not None and len(free):
        p, _ = shares(theta)
        plays_live = np.asarray(plays, dtype=float)[live]
        c = np.bincount(idx.ravel(), (plays_live[:, None] * p).ravel(), minlength=bots)
        s1 = np.asarray(deal_sum, dtype=float)
        s2 = np.asarray(deal_cross, dtype=float)
        j = s2 - np.outer(s1, c) - np.outer(c, s1) + deals * np.outer(c, c)
        cov = h_inv @ j[np.ix_(free, free)] @ h_inv * (deals / (deals - 1))  # (few clusters)
        dof = deals - 1
    full_cov = np.zeros((bots, bots))
    full_cov[np.ix_(free, free)] = cov * ELO**2
    se = np.full(bots, np.nan)
    se_model = np.full(bots, np.nan)
    se[free] = np.sqrt(np.clip(np.diag(cov), 0, None)) * ELO
    se_model[free] = np.sqrt(np.clip(np.diag(cov_model), 0, None)) * ELO
    if anchor is not None:
        se[anchor] = se_model[anchor] = 0.0
    return LuceFit(ratings, se, se_model, full_cov, -value, iterations, dof)


def luce_extremes(
    lineups: np.ndarray, wins: np.ndarray, games: np.ndarray, bots: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(seen, never, always), each (bots,) bool: the bots that played, those that never won
    (rating -inf) and those that won every game of every lineup they sat at (+inf). Only the
    others have a finite rating and can be the anchor. Arguments as for :func:`fit_luce`."""
    lineups = np.asarray(lineups, dtype=np.int64)
    wins = np.asarray(wins, dtype=float)
    bot_wins = np.bincount(lineups.ravel(), wins.ravel(), minlength=bots)
    seen = np.bincount(lineups.ravel(), minlength=bots) > 0
    never = seen & (bot_wins <= 0)
    always = np.zeros(bots, dtype=bool)
    for k in np.flatnonzero(seen & ~never):
        rows = (lineups == k).any(axis=1)
        mine = np.where(lineups[rows] == k, wins[rows], 0).sum(axis=1)
        always[k] = bool(np.all(mine >= np.asarray(games, dtype=float)[rows] - 1e-9))
    return seen, never, always


# --- the design ----------------------------------------------------------------------------------
def balanced_design(bots: int, size: int) -> list[tuple[int, ...]]:
    """Lineups of ``size`` different bots of ``range(bots)`` in which every pair of bots meets
    equally often: every combination if there are at most :data:`MAX_COMBINATIONS`, else the
    fewest lineups made of whole cyclic orbits (a block and its shifts by 1, 2, ... mod
    ``bots``) that cover every pair equally, chosen by scipy's mixed-integer solver (all the
    orbits together are every combination, so a solution always exists)."""
    if size <= 2 or math.comb(bots, size) <= MAX_COMBINATIONS:  # pairs: each pair once
        return list(itertools.combinations(range(bots), size))
    with interrupts.deferred():  # (as in fit_luce)
        from scipy.optimize import Bounds, LinearConstraint, milp

    orbits, seen = [], set()
    for block in itertools.combinations(range(bots), size):
        if block in seen:
            continue
        orbit = sorted({tuple(sorted((b + t) % bots for b in block)) for t in range(bots)})
        seen.update(orbit)
        orbits.append(orbit)
    classes = bots // 2  # pair {a, b} is of class min(|a-b|, bots-|a-b|): 1 .. bots // 2
    cover = np.zeros((len(orbits), classes))
    for o, orbit in enumerate(orbits):
        for block in orbit:
            for a, b in itertools.combinations(block, 2):
                d = min(abs(a - b), bots - abs(a - b))
                cover[o, d - 1] += 1
    pairs_of_class = np.array([bots / 2 if 2 * d == bots else bots for d in range(1, classes + 1)])
    cover /= pairs_of_class  # times each pair of a class meets in the orbit's lineups
    size_of = np.array([len(orbit) for orbit in orbits], dtype=float)
    # variables: one 0/1 per orbit, then lambda (how often every pair meets) >= 1
    a = np.hstack([cover.T, -np.ones((classes, 1))])
    cost = np.append(size_of, 0.0)
    done = milp(
        cost,
        constraints=LinearConstraint(a, 0, 0),
        integrality=np.ones(len(cost)),
        options={"node_limit": DESIGN_NODES},  # then the best found (not a clock: reproducible)
        bounds=Bounds(np.append(np.zeros(len(orbits)), 1), np.append(np.ones(len(orbits)), np.inf)),
    )
    chosen = [o for o in range(len(orbits)) if done.x is not None and done.x[o] > 0.5]
    if not chosen:  # no solution within the time limit (all the orbits are one): every one
        return list(itertools.combinations(range(bots), size))
    return sorted(block for o in chosen for block in orbits[o])


def design(bots: int, players: int, gauntlet: int | None = None) -> list[tuple[int, ...]]:
    """The tournament's lineups (bot indices in pool order): see :func:`balanced_design`; with
    a ``gauntlet`` bot, it and a balanced design of ``players - 1`` of the others."""
    if gauntlet is None:
        return balanced_design(bots, players)
    others = [b for b in range(bots) if b != gauntlet]
    return [
        tuple(sorted((gauntlet, *(others[i] for i in block))))
        for block in balanced_design(len(others), players - 1)
    ]


# --- what a run gathers ----------------------------------------------------------------------
class _Gather:
    """Exact per-deal sums over bots (for the sandwich and the bots' win shares), over seats
    (seat balance across every lineup), and the head-to-head counts; called with every unit."""

    def __init__(self, pool: list[str], arms: list[Arm], players: int) -> None:
        self.pool, self.arms, self.players = pool, arms, players
        n = len(pool)
        index = {spec: i for i, spec in enumerate(pool)}
        self.position_bot = [np.array([index[s] for s in arm.bots]) for arm in arms]
        self.distinct_bot = [np.array([index[s] for s in arm.distinct_bots]) for arm in arms]
        self.maps = [np.eye(n, dtype=np.int64)[p] for p in self.position_bot]  # (P, n)
        self.deals = 0
        self.bot_sum = np.zeros(n, dtype=object)
        self.bot_cross = np.zeros((n, n), dtype=object)
        self.seat_sum = np.zeros(players, dtype=object)
        self.seat_cross = np.zeros((players, players), dtype=object)
        self.above = np.zeros((n, n), dtype=np.int64)  # 2 x games row finished above column
        self.met = np.zeros((n, n), dtype=np.int64)  # games where both sat
        self.sink = None  # where a unit's rows are, when they do not come back with it

    def __call__(self, result: UnitResult, totals: list[Totals]) -> bool:
        u = sum(t.position_share @ m for t, m in zip(result.tallies, self.maps, strict=True))
        s = sum(t.seat_share for t in result.tallies)
        self.deals += len(u)
        self.bot_sum += u.sum(axis=0).astype(object)
        self.bot_cross += (u.T @ u).astype(object)
        self.seat_sum += s.sum(axis=0).astype(object)
        self.seat_cross += (s.T @ s).astype(object)
        worth, who = self._worth(result)
        self._head_to_head(worth, who)
        return False

    def _worth(self, result: UnitResult) -> tuple[np.ndarray, np.ndarray]:
        """(games, players) final worth and pool index of the bot in each seat, every arm."""
        if result.rows:
            worth = np.concatenate([r.worth for r in result.rows])
            who = np.concatenate(
                [lut[r.bot] for lut, r in zip(self.distinct_bot, result.rows, strict=True)]
            )
        else:  # the worker wrote them (or an interrupted run did): read the unit's shard
            import pyarrow as pa
            import pyarrow.compute as pc
            import pyarrow.parquet as pq

            from barbaron.results import GAMES, shard_path

            table = pq.read_table(
                shard_path(self.sink.partial / GAMES, result.unit), columns=["worth", "bot"]
            )
            worth = table.column("worth").to_numpy()
            pool = pa.array(self.pool)
            who = np.concatenate(
                [  # each chunk's dictionary of specs, then its codes
                    pc.index_in(chunk.dictionary, value_set=pool).to_numpy(zero_copy_only=False)[
                        chunk.indices.to_numpy(zero_copy_only=False)
                    ]
                    for chunk in table.column("bot").chunks
                ]
            )
        return worth.reshape(-1, self.players), who.reshape(-1, self.players)

    def _head_to_head(self, worth: np.ndarray, who: np.ndarray) -> None:
        n = len(self.pool)
        for s, t in itertools.combinations(range(self.players), 2):
            score = 2 * (worth[:, s] > worth[:, t]) + (worth[:, s] == worth[:, t])
            pair = who[:, s] * n + who[:, t]
            back = who[:, t] * n + who[:, s]
            self.above += np.bincount(pair, score, minlength=n * n).astype(np.int64).reshape(n, n)
            self.above += (
                np.bincount(back, 2 - score, minlength=n * n).astype(np.int64).reshape(n, n)
            )
            met = np.bincount(pair, minlength=n * n) + np.bincount(back, minlength=n * n)
            self.met += met.reshape(n, n)


# --- the result --------------------------------------------------------------------------------
@dataclass(frozen=True)
class TournamentResult(RunResult):
    """The result of :func:`tournament`: ``summary["ratings"]``, ``["head_to_head"]``,
    ``["calibration"]`` and ``["calibration_mae"]``."""

    @property
    def ratings(self) -> pd.DataFrame:
        """Per bot, best first: rating with its 95% interval, games, win share."""
        return frame(self.summary["ratings"])

    @property
    def head_to_head(self) -> pd.DataFrame:
        """Row bot against column bot: the share of the games where both sat in which the
        row finished above the column (by worth; an equal worth counts half)."""
        import pandas as pd

        h2h = self.summary["head_to_head"]
        return pd.DataFrame(h2h["above"], index=h2h["bots"], columns=h2h["bots"], dtype=float)

    @property
    def calibration(self) -> pd.DataFrame:
        """Per lineup played and bot: predicted and observed win share."""
        return frame(self.summary["calibration"])

    def predict(self, lineup: Sequence[str]) -> list[float]:
        """The win share the ratings predict for each seat of ``lineup`` (specs of the
        pool, repeats allowed): lineups never played too."""
        return predict(self.summary["ratings"], lineup)


def predict(ratings: list[dict], lineup: Sequence[str]) -> list[float]:
    """Each seat's predicted win share at ``lineup`` from a tournament's ``ratings`` rows."""
    rating = {r["bot"]: r["rating"] for r in ratings}
    lineup = [lineup] if isinstance(lineup, str) else list(lineup)
    if not 2 <= len(lineup) <= 4:  # R5
        raise UsageError(f"a table has 2, 3 or 4 players (R5): the lineup has {len(lineup)}")
    order = list(rating)
    exact = all(isinstance(spec, str) and spec in rating for spec in lineup)
    built = None if exact else _buildable(order)  # (built once, if needed at all)
    found = [_in_pool(spec, order, "lineup", built) for spec in lineup]  # (spelt otherwise too)
    if None in found:
        raise UsageError(f"{lineup[found.index(None)]!r} is not a bot of this tournament")
    lineup = found
    return luce_shares([rating[b] for b in order], [order.index(b) for b in lineup]).tolist()


# --- the function ------------------------------------------------------------------------------
def _pool(bots: Sequence[str], gauntlet: str | None) -> tuple[list[str], str | None]:
    """The pool's specs, built (a bad one fails here), with the gauntlet bot added if absent,
    and the pool's spec of the gauntlet bot; two specs of the same bot with the same
    parameters are refused."""
    from barbaron.runs import build_bots, same_bot, specs_of

    pool = specs_of(bots, "--bots")
    if gauntlet is not None:
        found = _in_pool(gauntlet, pool, "--gauntlet")
        if found is None:
            pool.append(gauntlet)
        gauntlet = found or gauntlet
    if len(pool) < 2:
        raise UsageError(f"--bots takes a pool of at least 2 bot specs, got {len(pool)}")
    if len(pool) > MAX_POOL:
        raise UsageError(f"--bots takes at most {MAX_POOL} bot specs, got {len(pool)}")
    built = build_bots(pool)
    for (i, a), (j, b) in itertools.combinations(enumerate(built), 2):
        if same_bot(a, b):
            same = "twice" if pool[i] == pool[j] else f"twice ({pool[i]!r} and {pool[j]!r})"
            raise UsageError(f"--bots names the same bot {same}: every bot of the pool once")
    return pool, gauntlet


@interrupts.deferring
def tournament(
    bots: Sequence[str],
    *,
    players: int | None = None,
    games: int = 1_200_000,
    gauntlet: str | None = None,
    anchor: str | None = None,
    **options: Unpack[RunOptions],
) -> TournamentResult:
    """Rate every bot of ``bots`` on one Elo-like scale: play lineups of ``players`` of them
    (default 4, or all of a smaller pool's bots)
    (every combination, a balanced design, or every lineup with ``gauntlet``) on the same deals
    in every rotation, ``games`` games in all split equally, and fit the Luce model (see the
    module's docstring). ``anchor`` (default: the first bot) is rated 0."""
    from barbaron.harness import Arm
    from barbaron.runs import Run, checked, execution_of, players_of

    execution = execution_of(options)
    pool, gauntlet = _pool(bots, gauntlet)
    n = len(pool)
    players = min(4, n) if players is None else players_of(players)
    games = checked(games, "--games", "whole")
    if players > n:
        raise UsageError(f"--players {players} is more than the {n} bots of the pool")
    given = anchor
    anchor = pool[0] if given is None else _in_pool(given, pool, "--anchor")
    if anchor is None:
        raise UsageError(f"--anchor {given!r} is not one of the pool's bots")
    if games < 1:
        raise UsageError(f"--games must be a whole number of games >= 1, got {games}")
    lineups = design(n, players, None if gauntlet is None else pool.index(gauntlet))
    rotations = players if execution.rotate else 1
    per_lineup = games // len(lineups) // rotations * rotations
    if per_lineup < rotations:
        raise UsageError(
            f"--games {games:,} is too few for {counted(len(lineups), 'lineup')} of "
            f"{counted(rotations, 'rotation')} each: at least {len(lineups) * rotations:,}"
        )
    if per_lineup > MAX_GAMES:  # (QA: it named the games per lineup as if the user had)
        raise UsageError(
            f"--games {games:,} gives each of {counted(len(lineups), 'lineup')} {per_lineup:,} "
            f"games: at most {MAX_GAMES:,} a lineup"
        )
    rules = execution.rules(players)
    arms = [Arm(" + ".join(pool[i] for i in x), tuple(pool[i] for i in x), rules) for x in lineups]
    gather = _Gather(pool, arms, players)
    with Run.open("tournament", execution, arms, per_lineup) as run:
        gather.sink = run.sink
        run.play(gather)
        summary = _summary(run, gather, pool, lineups, pool.index(anchor), gauntlet)
        table = [
            {k: r[k] for k in ("bot", "rating", "rating_ci", "games", "win_share", "win_share_ci")}
            for r in summary["ratings"]
        ]
        return run.finish(TournamentResult, summary, table)


def _in_pool(spec: object, pool: list[str], option: str, built: list | None = None) -> str | None:
    """The pool's spec of the bot ``spec`` names: the same text, or a spec of the same bot
    (``normal:cushion=880`` for ``normal``; QA: only the same text was found); None if the
    pool has no such bot. A spec that builds no bot is a UsageError naming ``option``.
    ``built``: the pool's bots, if built already (None for one that does not build here)."""
    from barbaron.runs import build_bots, same_bot

    if not isinstance(spec, str):
        raise UsageError(f"{option} must be a bot spec, got {spec!r}")
    if spec in pool:
        return spec
    try:
        (bot,) = build_bots([spec])
    except UsageError as e:
        raise UsageError(f"{option} {spec!r}: {e}") from None
    built = build_bots(pool) if built is None else built
    return next(
        (s for s, m in zip(pool, built, strict=True) if m is not None and same_bot(bot, m)), None
    )


def _buildable(pool: list[str]) -> list:
    """Each spec of ``pool`` built, or None where it builds no bot in this process (a plugin
    file gone since the tournament)."""
    from barbaron.runs import build_bots

    out = []
    for spec in pool:
        try:
            out.append(build_bots([spec])[0])
        except UsageError:
            out.append(None)
    return out


def _anchor_used(
    lineups: np.ndarray, wins: np.ndarray, games: np.ndarray, pool: list[str], wanted: int
) -> tuple[int | None, str | None]:
    """The bot rated 0: ``wanted`` if it has a finite rating, else the pool's first bot that
    has one (None if none has), with a note saying why it is not ``wanted``."""
    seen, never, always = luce_extremes(lineups, wins, games, len(pool))
    finite = seen & ~never & ~always
    if finite[wanted]:
        return wanted, None
    why = "it never won" if never[wanted] else "it won every game it played"
    if not finite.any():
        return None, f"no bot has a finite rating ({pool[wanted]}: {why}), so none is at 0"
    use = int(np.flatnonzero(finite)[0])
    return use, f"{pool[wanted]} has no finite rating ({why}): {pool[use]} is at 0 instead"


def _summary(run, gather: _Gather, pool, lineups, anchor: int, gauntlet) -> dict:
    """summary.json of a tournament: ratings, head-to-head, calibration, bots and seats."""
    from barbaron.harness import FIXED, SHARE_SCALE
    from barbaron.stats import Span, estimate, seat_balance

    job, totals = run.job, run.totals
    n, rotations, deals = len(pool), job.rotations, gather.deals
    idx = np.array(lineups, dtype=np.int64)
    wins = np.array([[int(v) for v in t.position_share] for t in totals], dtype=float)
    wins /= SHARE_SCALE
    games = np.full(len(lineups), float(deals * rotations))
    anchor, anchor_note = _anchor_used(idx, wins, games, pool, anchor)
    fit = fit_luce(
        idx,
        wins,
        games,
        n,
        anchor=anchor,
        deals=deals,
        deal_sum=gather.bot_sum.astype(float) / SHARE_SCALE,
        deal_cross=gather.bot_cross.astype(float) / SHARE_SCALE**2,
        plays=np.full(len(lineups), float(rotations)),
    )
    lineups_with = np.bincount(idx.ravel(), minlength=n)  # (a lineup seats each bot once)
    per_deal = lineups_with * rotations  # games of each bot per deal
    worth = np.zeros(n)
    worth_share = np.zeros(n)
    for total, positions in zip(totals, gather.position_bot, strict=True):
        for p, b in enumerate(positions):
            worth[b] += float(total.position_worth[p])
            worth_share[b] += float(total.position_worth_share[p]) / FIXED
    bots = []
    for b, spec in enumerate(pool):
        est = estimate(
            int(gather.bot_sum[b]),
            int(gather.bot_cross[b, b]),
            deals,
            SHARE_SCALE * int(per_deal[b]),
            Span(0.0, 1.0, int(per_deal[b])),
        )
        played = deals * int(per_deal[b])
        bots.append(
            {
                "bot": spec,
                "games": played,
                "rating": float(fit.ratings[b]),
                "rating_ci": list(map(float, fit.ci(b))),
                "rating_se": float(fit.se[b]),
                "rating_se_model": float(fit.se_model[b]),
                "win_share": est.mean,
                "win_share_ci": est.share_ci,
                "mean_worth": float(worth[b]) / max(played, 1),
                "worth_share": float(worth_share[b]) / max(played, 1),
                "lineups": int(per_deal[b]) // rotations,
            }
        )
    ratings = sorted(bots, key=lambda r: -r["rating"] if not math.isnan(r["rating"]) else math.inf)
    gaps, spacing = _gaps(fit, pool)
    calibration = []
    for lineup, total in zip(lineups, totals, strict=True):
        predicted = luce_shares(fit.ratings, lineup)
        label = total.arm.label
        for p, b in enumerate(lineup):
            est = total.position_estimate(p)
            calibration.append(
                {
                    "lineup": label,
                    "bot": pool[b],
                    "predicted": float(predicted[p]),
                    "observed": est.mean,
                    "observed_ci": est.share_ci,
                    "error": est.mean - float(predicted[p]),
                }
            )
    errors = np.array([abs(c["error"]) for c in calibration])
    with np.errstate(invalid="ignore", divide="ignore"):
        above = gather.above / (2 * gather.met)
    h2h = [
        [None if gather.met[i, j] == 0 else float(above[i, j]) for j in range(n)] for i in range(n)
    ]
    seats = []
    for seat in range(job.players):
        est = estimate(
            int(gather.seat_sum[seat]),
            int(gather.seat_cross[seat, seat]),
            deals,
            SHARE_SCALE * rotations * len(lineups),
            Span(0.0, 1.0, rotations * len(lineups)),
        )
        seat_worth = sum(float(t.seat_worth[seat]) for t in totals)
        seats.append(
            {
                "seat": seat,
                "win_share": est.mean,
                "win_share_ci": est.share_ci,
                "mean_worth": seat_worth / max(deals * rotations * len(lineups), 1),
            }
        )
    balance = seat_balance(
        gather.seat_sum,
        gather.seat_cross,
        deals,
        SHARE_SCALE * rotations * len(lineups),
    )
    combinations = math.comb(n, job.players)
    if gauntlet is not None:
        kind = f"every lineup has {gauntlet}"
    elif len(lineups) == combinations:
        kind = f"every combination of {job.players} of the {n} bots"
    else:
        kind = f"balanced: {combinations:,} combinations, every pair meets equally often"
    return {
        "games": deals * rotations * len(lineups),
        "games_per_lineup": deals * rotations,
        "deals": deals,
        "players": job.players,
        "rotate": job.rotate,
        "rules": job.arms[0].rules.record(),
        "pool": pool,
        "anchor": None if anchor is None else pool[anchor],
        "anchor_note": anchor_note,
        "gauntlet": gauntlet,
        "design": {
            "kind": kind,
            "lineups": [[pool[b] for b in lineup] for lineup in lineups],
            "pair_meetings": sorted({int(m) for m in _pair_meetings(lineups, n, gauntlet, pool)}),
        },
        "model": MODEL,
        "interval": INTERVAL,
        "loglik": fit.loglik,
        "ratings": [
            {
                k: r[k]
                for k in (
                    "bot",
                    "rating",
                    "rating_ci",
                    "games",
                    "win_share",
                    "win_share_ci",
                    "rating_se",
                    "rating_se_model",
                    "lineups",
                )
            }
            for r in ratings
        ],
        "gaps": gaps,  # neighbours in the pool's order, as given
        "gap_differences": spacing,  # each gap minus the one before: 0 when evenly spaced
        "rating_covariance": {"bots": pool, "matrix": fit.cov.tolist()},
        "head_to_head": {
            "bots": pool,
            "above": h2h,
            "games": gather.met.tolist(),
            "meaning": "share of the games where both sat in which the row bot finished above "
            "the column bot by worth (an equal worth counts half)",
        },
        "calibration": calibration,
        "calibration_mae": float(errors.mean()),
        "calibration_max": float(errors.max()),
        "bots": [
            {k: b[k] for k in ("bot", "games", "win_share", "win_share_ci", "mean_worth")}
            | {"worth_share": b["worth_share"], "rating": b["rating"]}
            for b in bots
        ],
        "seats": seats,
        "seat_balance": balance.record(),
    }


def _gaps(fit: LuceFit, pool: list[str]) -> tuple[list[dict], list[dict]]:
    """The gaps between neighbours in the pool's order, and how much each gap differs from the
    one before it (0 for evenly spaced bots, as the Homies should be)."""
    n = len(pool)
    gaps, spacing = [], []
    for i in range(n - 1):
        value, ci, _ = fit.contrast(np.eye(n)[i + 1] - np.eye(n)[i])
        gaps.append(
            {"gap": f"{pool[i + 1]} - {pool[i]}", "bots": [pool[i], pool[i + 1]], "value": value}
            | {"ci": ci}
        )
    for i in range(n - 2):
        value, ci, _ = fit.contrast(np.eye(n)[i + 2] - 2 * np.eye(n)[i + 1] + np.eye(n)[i])
        spacing.append(
            {"difference": f"({gaps[i + 1]['gap']}) - ({gaps[i]['gap']})"}
            | {"bots": pool[i : i + 3], "value": value, "ci": ci}
        )
    return gaps, spacing


def _pair_meetings(lineups, n: int, gauntlet, pool) -> list[int]:
    """How many lineups each pair of bots shares (of the pairs without the gauntlet bot)."""
    skip = None if gauntlet is None else pool.index(gauntlet)
    count = np.zeros((n, n), dtype=int)
    for lineup in lineups:
        for a, b in itertools.combinations(lineup, 2):
            count[a, b] += 1
    return [count[a, b] for a, b in itertools.combinations(range(n), 2) if skip not in (a, b)]

"""Statistics for tournaments: means over deals with 95% intervals, seat balance, SPRT.

Rotated games of one deal share their dice and cards, so they are not independent. Every
statistic here is computed from one value per deal (the average over that deal's rotations),
and intervals come from the spread of those per-deal values, not from a naive binomial.
All sums are exact integers, so a summary never depends on how games were split into batches.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist

import numpy as np

Z95 = 1.959963984540054  # two-sided 95% normal quantile
MIN_ELO_GAP = 0.5  # the SPRT's elo1 - elo0 at the least
MIN_DIFFERING_DEALS = 30  # the SPRT decides only once this many deals' paired scores differ


@dataclass(frozen=True)
class Span:
    """What a per-deal value can be: from ``low`` to ``high``, the mean of ``games`` games (a
    deal's rotations, say) of values within the same span; ``paired`` for a paired difference
    of two shares (or a score made of one)."""

    low: float
    high: float
    games: int = 1
    paired: bool = False


@dataclass(frozen=True)
class Estimate:
    """A mean over deals with its standard error and 95% interval."""

    mean: float
    se: float
    deals: int
    span: Span | None = None  # what a per-deal value can be, if known

    @property
    def ci(self) -> tuple[float, float]:
        """The 95% confidence interval (:meth:`interval`)."""
        return self.interval(0.025)

    def interval(self, tail: float) -> tuple[float, float]:
        """The interval that misses the mean on each side with probability ``tail``: Student's
        t over the deals. Where the per-deal values' :class:`Span` is known, it is taken as if
        z**2/2 more games had come out at each end of it (Agresti and Coull's adjustment, in
        deals of ``span.games`` games), or 0.5 games for a paired difference (Agresti and
        Min's): a share that few deals move off its usual value (a bot that almost never wins,
        two bots that almost always play alike) had an interval of no width that missed the
        truth in most small runs (QA: 43% coverage at 400 games of a 0.13% share, 17% for two
        bots differing in 0.2% of deals). With it, coverage was 94-100% in every table
        measured, from 5 deals on, and intervals from 1,000 deals on within 1% of the plain
        ones, where those hold."""
        if self.span is not None and self.span.low == self.span.high and self.deals:
            return (self.span.low, self.span.high)  # one value possible: exact from one deal
        if self.deals < 2 or not math.isfinite(self.se):
            return (math.nan, math.nan)
        q = t_quantile(tail, self.deals - 1)
        if self.span is None:
            return (self.mean - q * self.se, self.mean + q * self.se)
        low, high = self.span.low, self.span.high
        per_end = 0.5 if self.span.paired else NormalDist().inv_cdf(tail) ** 2 / 2  # games
        n, added = self.deals, per_end / self.span.games
        squares = self.se**2 * n * (n - 1) + n * self.mean**2  # sum of the per-deal squares
        total = n + 2 * added
        mean = (n * self.mean + added * (low + high)) / total
        variance = max(squares + added * (low**2 + high**2) - total * mean**2, 0.0) / (total - 1)
        se = math.sqrt(variance / total)
        return (max(mean - q * se, low), min(mean + q * se, high))

    @property
    def share_ci(self) -> list[float]:
        """:attr:`ci` of a share, kept within 0 and 1."""
        low, high = self.ci
        return [max(low, 0.0), min(high, 1.0)]


def estimate(
    total: int,
    total_sq: int,
    deals: int,
    scale: float,
    span: Span | None = None,
) -> Estimate:
    """Mean and standard error of per-deal values x_d = v_d / scale from exact integer sums
    ``total`` = sum v_d and ``total_sq`` = sum v_d**2; ``span``: what an x_d can be, if known
    (see :meth:`Estimate.interval`)."""
    total, total_sq = int(total), int(total_sq)  # (numpy integers would overflow)
    if deals == 0:
        return Estimate(math.nan, math.nan, 0, span)
    mean = total / deals / scale
    if deals < 2:
        return Estimate(mean, math.nan, deals, span)
    var = (total_sq - total * total / deals) / (deals - 1) / scale**2
    return Estimate(mean, math.sqrt(max(var, 0.0) / deals), deals, span)


@functools.cache
def t_quantile(tail: float, dof: int) -> float:
    """The value Student's t with ``dof`` degrees of freedom exceeds with probability ``tail``
    (by bisection of its distribution function, :func:`beta_regularized`; scipy's import would
    cost every command that prints an interval 0.2 s)."""
    z = NormalDist().inv_cdf(1 - tail)
    if dof >= 100_000:  # Cornish and Fisher's expansion, exact to 1e-12 there
        return z + (z**3 + z) / (4 * dof) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * dof**2)

    def above(t: float) -> float:
        return beta_regularized(dof / 2, 0.5, dof / (dof + t * t)) / 2

    low, high = 0.0, max(z, 1.0)
    while above(high) > tail:
        low, high = high, 2 * high
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if above(middle) > tail else (low, middle)
    return (low + high) / 2


class PairedShares:
    """The per-deal shares of several arms played on the same deals, kept as exact sums (each
    arm's total and every pair's cross products), so that any two arms' paired difference has
    its interval over deals once every deal is in."""

    def __init__(self, arms: int, scale: float, rotations: int) -> None:
        self.scale, self.rotations, self.deals = scale, rotations, 0
        self.total = [0] * arms
        self.cross = [[0] * arms for _ in range(arms)]

    def add(self, shares: np.ndarray) -> None:
        """``shares`` (arms, deals) int: each arm's share of the deals, times ``scale``."""
        shares = np.asarray(shares, dtype=np.int64)
        self.deals += shares.shape[1]
        for i, row in enumerate((shares @ shares.T).tolist()):  # (exact: small integers)
            self.total[i] += int(shares[i].sum())
            self.cross[i] = [a + b for a, b in zip(self.cross[i], row, strict=True)]

    def possibly_best(self, alpha: float = 0.05) -> list[int]:
        """The arms that cannot be told apart from the best: Hsu's multiple comparisons with
        the best, with Bonferroni's bound (an arm is out where another beats it by more than
        a one-sided interval at ``alpha`` / (arms - 1) allows; with two, at ``alpha`` / 2, as
        their paired 95% interval). The set holds the truly best arm with probability at least
        1 - ``alpha``; each arm tested against the observed best alone at 5% left out one of 5
        equal arms in 28% of sweeps (QA). With too few deals for an interval, no arm is out."""
        arms = len(self.total)
        tail = alpha / max(arms - 1, 2)  # (two arms: the paired 95% interval's own tail)
        return [
            i
            for i in range(arms)
            if not any(self.difference(j, i).interval(tail)[0] > 0 for j in range(arms) if j != i)
        ]

    def difference(self, i: int, j: int) -> Estimate:
        """Arm ``i``'s share less arm ``j``'s, paired by deal."""
        c = self.cross
        return estimate(
            self.total[i] - self.total[j],
            c[i][i] - 2 * c[i][j] + c[j][j],
            self.deals,
            self.scale,
            Span(-1.0, 1.0, self.rotations, paired=True),  # (each arm's share of its one seat)
        )


def hotelling_sf(t2: float, dimensions: int, observations: int) -> float:
    """P(T^2 > t2) for Hotelling's T^2 of a mean in ``dimensions`` dimensions from
    ``observations`` > dimensions independent ones: F = t2 (n - k) / (k (n - 1)) follows
    F(k, n - k). (The chi-square limit rejected too often with few deals: 9.8% at the 5% level
    with 40 deals of four players, QA.)"""
    if math.isinf(t2):
        return 0.0
    n, k = observations, dimensions
    f = t2 * (n - k) / (k * (n - 1))
    return beta_regularized((n - k) / 2, k / 2, (n - k) / (n - k + k * f))  # F's upper tail


def beta_regularized(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), by its continued fraction (modified
    Lentz): precise far into the tails (p-values of 1e-200). Here, not scipy.special, whose
    import took 0.2 s of every command that prints a seat test (tested equal to scipy's)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of :func:`beta_regularized` (it converges for x < (a+1)/(a+b+2))."""
    tiny = 1e-300

    def kept(value: float) -> float:
        return value if abs(value) > tiny else tiny

    c, d = 1.0, 1 / kept(1 - (a + b) * x / (a + 1))
    h = d
    for m in range(1, 1_000_000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 / kept(1 + numerator * d)
            c = kept(1 + numerator / c)
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h


@dataclass(frozen=True)
class SeatBalance:
    """Wald test that every seat's expected win share is 1/players (per-deal covariance):
    Hotelling's T^2 with its F reference."""

    statistic: float
    dof: int
    p_value: float

    @property
    def balanced(self) -> bool | None:
        """True if the seats do not differ beyond chance at the 5% level; None when the test
        cannot be made (too few deals, or no variation)."""
        return None if math.isnan(self.p_value) else self.p_value >= 0.05

    def record(self) -> dict:
        """The test as summary.json holds it."""
        return {
            "statistic": self.statistic,
            "dof": self.dof,
            "p_value": self.p_value,
            "balanced": self.balanced,
        }


def seat_balance(total: np.ndarray, cross: np.ndarray, deals: int, scale: float) -> SeatBalance:
    """Test H0: all seats win 1/P, from per-deal seat shares s_d (P,) = v_d / scale given as
    exact sums ``total`` = sum v_d (P,) and ``cross`` = sum v_d v_d^T (P, P).

    The Wald statistic d' S^-1 d (d: the first P - 1 seats' mean shares less 1/P, S: their
    covariance over the deals) is computed in exact fractions: with a seat that never wins, or
    two seats whose shares always add up to one, S is singular, and in floating point its
    rounding made the statistic any number, negative ones too. The test then has as many
    degrees of freedom as S has rank; a difference where S has no spread at all (a seat that
    never wins, in every deal) has an infinite statistic and the p-value of
    :func:`_no_spread_p`, the most its chance under balance can be. Otherwise the statistic is
    Hotelling's T^2, and its p-value comes from the F reference (:func:`hotelling_sf`)."""
    players = len(total)
    if deals < players + 1:
        return SeatBalance(math.nan, players - 1, math.nan)
    t = [Fraction(int(value)) for value in total]  # (exact: numpy integers would overflow)
    # S = A / (deals^2 (deals - 1) scale^2) and d = e / (P deals scale), so
    # d' S^-1 d = (deals - 1) / P^2 * e' A^-1 e
    a = [
        [deals * Fraction(int(cross[i][j])) - t[i] * t[j] for j in range(players - 1)]
        for i in range(players - 1)
    ]
    e = [players * t[i] - deals * Fraction(scale) for i in range(players - 1)]
    solution, rank = _solve_exact(a, e)
    if rank == 0 and not any(e):  # identical games in every seat: no variation at all
        return SeatBalance(math.nan, players - 1, math.nan)
    if solution is None:  # a difference in a direction without spread
        p = _no_spread_p(t, cross, deals, scale)
        if math.isnan(p):
            return SeatBalance(math.nan, players - 1, math.nan)
        return SeatBalance(math.inf, max(rank, 1), p)
    statistic = float(sum(x * y for x, y in zip(e, solution, strict=True)) * (deals - 1))
    statistic /= players**2
    return SeatBalance(statistic, rank, hotelling_sf(statistic, rank, deals))


def _no_spread_p(t: list[Fraction], cross: np.ndarray, deals: int, scale: float) -> float:
    """A p-value for seats whose shares never varied (a seat that never wins, two that always
    take the same part): the most a balanced table's chance of it can be. A group of k of the P
    seats expects k/P a deal; by Markov's inequality its share is c or less (c below k/P) with
    chance at most q = (1 - k/P) / (1 - c), and c or more (c above) at most q = (k/P) / c; in
    every one of n deals, q^n. The strongest group's q^n, times 2 sides and the 2^(P-1) - 1
    groups (a group and the other seats are one event: their shares add up to one), bounds the
    chance under balance of a bound that small. NaN when no group's share is constant away
    from k/P (a direction of no spread this does not reach): not testable. (QA: p = 0 was
    printed as p < 1e-300; four seats, one never winning in 30 deals: at most 14 x 0.75^30,
    2.5e-3.)"""
    players = len(t)
    bounds = []  # q^n of each group whose share never varied from a value not its fair part
    for mask in range(1, 2 ** (players - 1)):  # the groups without the last seat
        group = [i for i in range(players) if mask >> i & 1]
        total = sum(t[i] for i in group)
        squares = sum(Fraction(int(cross[i][j])) for i in group for j in group)
        if deals * squares != total * total:  # its share varied
            continue
        c, fair = total / (deals * Fraction(scale)), Fraction(len(group), players)
        if c != fair:
            q = (1 - fair) / (1 - c) if c < fair else fair / c
            bounds.append(float(q) ** deals)
    if not bounds:
        return math.nan
    return min(1.0, 2 * (2 ** (players - 1) - 1) * min(bounds))


def _solve_exact(a: list[list[Fraction]], b: list[Fraction]) -> tuple[list | None, int]:
    """A solution x of a x = b (free unknowns 0) by Gaussian elimination in fractions, or None
    if there is none; and the rank of ``a``."""
    n = len(b)
    rows = [[*a[i], b[i]] for i in range(n)]
    pivots: list[int] = []
    for column in range(n):
        r = len(pivots)
        pivot = next((i for i in range(r, n) if rows[i][column] != 0), None)
        if pivot is None:
            continue
        rows[r], rows[pivot] = rows[pivot], rows[r]
        for i in range(n):
            if i != r and rows[i][column] != 0:
                factor = rows[i][column] / rows[r][column]
                rows[i] = [x - factor * y for x, y in zip(rows[i], rows[r], strict=True)]
        pivots.append(column)
    if any(row[n] != 0 for row in rows[len(pivots) :]):
        return None, len(pivots)
    x = [Fraction(0)] * n
    for r, column in enumerate(pivots):
        x[column] = rows[r][n] / rows[r][column]
    return x, len(pivots)


def elo_to_score(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger (logistic Elo curve)."""
    return 1 / (1 + 10 ** (-elo / 400))


def difference_elo(difference: float) -> float:
    """The Elo of the paired score 1/2 + ``difference`` / 2 (compare's scale, the SPRT's): a
    difference of win shares, kept within -1 and 1; -inf and +inf at the ends."""
    return score_to_elo(min(max(0.5 + difference / 2, 0.0), 1.0))


def score_to_elo(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (inverse of :func:`elo_to_score`;
    -inf and +inf at 0 and 1, nan where it is not a score)."""
    if not 0 <= score <= 1:
        return math.nan
    if score in (0, 1):
        return math.copysign(math.inf, score - 0.5)
    return 400 * math.log10(score / (1 - score))


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test on paired per-deal scores (normal approximation,
    as chess engine testing uses): H0 score = score(elo0) against H1 score = score(elo1)."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        are_numbers = all(
            isinstance(e, int | float) and not isinstance(e, bool) for e in (self.elo0, self.elo1)
        )
        if not are_numbers or not all(
            math.isfinite(e) and abs(e) <= 1000 for e in (self.elo0, self.elo1)
        ):
            raise ValueError(
                f"--elo0 and --elo1 must be finite Elo differences from -1000 to 1000, got "
                f"{self.elo0} and {self.elo1}"
            )
        if not self.elo1 > self.elo0:
            raise ValueError(f"--elo1 must be above --elo0, got {self.elo0} and {self.elo1}")
        if self.elo1 - self.elo0 < MIN_ELO_GAP:
            raise ValueError(
                f"--elo1 must be at least {MIN_ELO_GAP} Elo above --elo0 (a smaller gap needs "
                f"more games than can be played to decide), got {self.elo0} and {self.elo1}"
            )
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper): accept H0 at or below lower, H1 at or above upper."""
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def llr(self, score: Estimate) -> float:
        """Log-likelihood ratio of H1 against H0 given the mean per-deal score so far."""
        if score.deals < 2 or not score.se > 0:
            return 0.0
        s0, s1 = elo_to_score(self.elo0), elo_to_score(self.elo1)
        var = score.se**2 * score.deals
        return (s1 - s0) * (2 * score.mean - s0 - s1) / (2 * var) * score.deals

    @staticmethod
    def under_way(differing: int) -> bool:
        """Whether the test is taken yet, ``differing`` deals so far having paired scores that
        differ. Two near-identical bots differ in a few deals: the normal approximation of a
        mean of mostly zeros, its variance estimated from a handful of non-zeros, would stop on
        noise (3 differing deals of 3,072 once "accepted" elo1), and its LLR means nothing (one
        deal gave -16525817.791), so neither counts before :data:`MIN_DIFFERING_DEALS`."""
        return differing >= MIN_DIFFERING_DEALS

    def decision(self, llr: float, differing: int) -> str:
        """'H1' (stronger), 'H0' (not stronger by elo1) or '' (keep going, or not yet
        :meth:`under_way` with ``differing`` deals that differ)."""
        if not self.under_way(differing):
            return ""
        lower, upper = self.bounds
        return "H1" if llr >= upper else "H0" if llr <= lower else ""


def zero_crossing(xs: np.ndarray, ys: np.ndarray) -> float:
    """Linear interpolation of where y(x) first changes sign; nan if it never does."""
    for i in range(len(xs) - 1):
        y0, y1 = ys[i], ys[i + 1]
        if y0 == 0:
            return float(xs[i])
        if y0 * y1 < 0:
            return float(xs[i] + (xs[i + 1] - xs[i]) * y0 / (y0 - y1))
    return float(xs[-1]) if len(ys) and ys[-1] == 0 else math.nan


def bracket(xs: Sequence[float] | np.ndarray, at: float) -> int:
    """The index i of the grid interval [xs[i], xs[i + 1]] that holds ``at``."""
    return min(max(int(np.searchsorted(xs, at, side="right")) - 1, 0), len(xs) - 2)


def bent_crossing(xs: np.ndarray, ys: np.ndarray, at: float) -> float:
    """Where the curve through the points around ``at`` crosses zero, bent: the mean root of
    the parabolas through the two points either side of it and each of their outer neighbours
    (each parabola changes sign between the two as y does, so its root lies there). The
    linear crossing ``at`` assumes a straight line there, which a steep, bending curve is not
    (QA: 24.7 between bonuses 0 and 50, where a finer grid found 19.1). ``at`` itself where it
    is a point of the grid (no line assumed); nan with fewer than three points or a y that is
    not finite."""
    if len(xs) < 3 or math.isnan(at):
        return math.nan
    if at in xs:
        return float(at)
    i = bracket(xs, at)
    roots = []
    for k in (i - 1, i + 2):  # the outer neighbours that exist
        if 0 <= k < len(xs):
            three = sorted((i, i + 1, k))
            if not np.isfinite(ys[three]).all():
                return math.nan
            found = np.roots(np.polyfit(xs[three], ys[three], 2))
            real = [r.real for r in found if abs(r.imag) < 1e-9 and xs[i] <= r.real <= xs[i + 1]]
            roots.append(min(real, key=lambda r: abs(r - at)))
    return float(np.mean(roots))


def even_point(points: list[dict]) -> dict:
    """Where seats come out even over a bonus sweep's ``points`` (each with ``seat_bonus``,
    ``slope`` and its 95% ``slope_ci``): ``bonus``, where the mean slope crosses zero, and its
    ``ci``, where the band's edges do, both by straight lines between the bonuses played
    (``bent``: :func:`bent_crossing`, the check of that). An edge the band does not reach
    within the bonuses played is nan, on the side the crossing lies: above the one edge found
    if the mean slope crosses zero above it or, not crossing at all, nears zero at the grid's
    top."""
    x = np.array([p["seat_bonus"] for p in points], dtype=float)
    mean = np.array([p["slope"] for p in points], dtype=float)
    low, high = np.array([p["slope_ci"] for p in points], dtype=float).T
    bonus = zero_crossing(x, mean)
    edges = sorted(v for v in (zero_crossing(x, low), zero_crossing(x, high)) if not math.isnan(v))
    if len(edges) == 1:  # the band crosses zero on one side only: open on the other
        above = edges[0] <= bonus if not math.isnan(bonus) else abs(mean[-1]) < abs(mean[0])
        edges = [edges[0], math.nan] if above else [math.nan, edges[0]]
    return {
        "bonus": bonus,
        "ci": edges if len(edges) == 2 else [math.nan, math.nan],
        "bent": bent_crossing(x, mean, bonus),
    }

"""mc: flat Monte-Carlo search, the project's ceiling bot.

Idea tested: how far above the hand-written judgement does plain search get? At every decision
it lists its legal options (upgrade: none, or one of its bars; buy: no or yes; take over: no or
yes), plays each of them out ``rollouts`` times to the end of the game in the batch engine
(``barbaron.rollouts``) and takes the one with the highest win share (R19) of its own seat
plus ``worth`` times its worth share (``worth=0``: worth share only breaks ties).

- **Common random numbers.** Every option of a decision sees the same ``rollouts`` futures:
  the same dice, card shuffles and bot draws, from fresh streams keyed by (seed, game, turn slot,
  decision, rollout), never the game's own: the search cannot see the dice it will roll. The
  cards drawn from the current shuffle are public (``view.cards_seen``): the rollouts keep
  them and reshuffle only the others, whose order it does not see.
- **Playouts.** Every other seat plays ``playout`` in the rollouts; its own seat plays ``own``
  (what it assumes about its own later play: a stronger policy than the field's helps). Specs
  inside a spec write their parameters with ``;`` instead of ``,``
  (``mc:own=hard:margin=-100;risk=0``). A playout may not search itself (no ``mc``).
- **Options.** Of its upgrades it plays out the ``upgrades`` best by Hard's measure (expected
  extra tabs from the others' dice odds) and not upgrading. Where the best two are close
  after the first round of rollouts (win shares within ``close``), it plays ``extra`` x
  ``rollouts`` more for those games, the same futures for every option again.
- **Caution.** It departs from its own playout's answer (listed first) only where another
  option's mean score is higher by more than ``z`` standard errors of the paired differences
  (same futures), so with few rollouts it falls back on that policy's judgement (with one
  rollout there is no spread to measure: it keeps its playout's answer, unless ``z`` is 0).

Cost: per decision, (options x rollouts) games played from the decision to the end: about
2 x (upgrades + 1) x rollouts half-games per turn, and ``extra`` x that again where the best two
are within ``close`` (ties included: ``close=0`` still takes the extra rounds for an exact tie).
See the README for strength against time.
Every answer depends only on (seed, game, the position, its parameters): the futures come from
counter-based streams, so a game is the same alone or in any batch.
"""

from __future__ import annotations

import numpy as np

from barbaron import params
from barbaron import rules as R
from barbaron.config import MAX_ROLLOUTS
from barbaron.registry import register
from barbaron.strategy import BatchView, Strategy

MAX_WORTH_WEIGHT = 1e6  # far beyond any use: win shares then only break ties (no overflow)


def whole(name: str, value: object, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | np.integer)
        or not (low <= value <= high)
    ):
        raise ValueError(f"{name} must be a whole number from {low} to {high:,}, got {value!r}")
    return int(value)


def playout_bot(name: str, spec: object) -> Strategy:
    """The strategy a playout spec names (``;`` separating its parameters); no searching bot."""
    from barbaron.registry import BotSpecError, make_bot

    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"{name} must be a bot spec, got {spec!r}")
    text = spec.replace(";", ",")
    try:
        bot = make_bot(text)
    except BotSpecError as e:
        raise ValueError(f"{name} {spec!r}: {e}") from None
    if getattr(bot, "searches", False):
        raise ValueError(
            f"{name} {spec!r} is recursive: a playout may not search itself (use a policy bot "
            "such as greedy, hard or shark)"
        )
    return bot


@register("mc")
class MC(Strategy):
    """Flat Monte-Carlo search: plays every option out on the same futures, win and worth share.

    ``rollouts``: futures per option; ``playout``: the other seats' policy in the rollouts;
    ``own``: its own seat's (none: ``playout``); ``upgrades``: upgrade options considered;
    ``extra``, ``close``: more rollouts where the best two options are that close; ``worth``:
    weight of the worth share in the score (0: tie-break only).
    """

    searches = True  # a playout may not be a searching bot

    def __init__(
        self,
        rollouts: int = 32,
        playout: str = "greedy",
        own: str | None = "hard",
        upgrades: int = 3,
        extra: int = 0,
        close: float = 0.01,
        worth: float = 10.0,
        z: float = 1.0,
    ) -> None:
        self.rollouts = whole("rollouts", rollouts, 1, MAX_ROLLOUTS)
        self.playout = playout_bot("playout", playout)
        self.own = self.playout if own is None else playout_bot("own", own)
        self.upgrades = whole("upgrades", upgrades, 0, R.N_BARS)
        self.extra = whole("extra", extra, 0, 64)
        self.close = params.number("close", close, low=0)
        self.worth = params.number("worth", worth, low=0, high=MAX_WORTH_WEIGHT)
        self.z = params.number("z", z, low=0)

    # --- the search -----------------------------------------------------------------------
    def _lineup(self, view: BatchView) -> list[Strategy]:
        return [self.own if s == view.seat else self.playout for s in range(view.rules.players)]

    def _choose(
        self,
        view: BatchView,
        games: np.ndarray,
        options: np.ndarray,
        valid: np.ndarray,
        bars: np.ndarray | None = None,
    ) -> np.ndarray:
        """Per row the column of ``options`` to answer (column 0 is the own playout's answer):
        the best by mean rollout score, if it beats column 0 by more than ``z`` standard errors
        of the paired (same futures) differences; else column 0."""
        from barbaron import rollouts as ro

        n, m = options.shape
        best = np.zeros(n, dtype=np.int64)
        rows = np.flatnonzero(valid.sum(axis=1) > 1)
        if rows.size == 0:
            return best
        state = ro.position_of(view, games[rows])
        point = ro.DecisionPoint.of(view)
        lineup = self._lineup(view)
        opts, ok = options[rows], valid[rows]
        b = None if bars is None else bars[rows]
        k = self.rollouts
        ev = ro.evaluate(view.rules, lineup, view.seed, state, point, opts, ok, k, bars=b)
        scores, wins = [self._per_rollout(ev)], [ev.win_share]
        for round_ in range(1, self.extra + 1):
            gap = self._gap(np.concatenate(scores, axis=2), np.concatenate(wins, axis=2), ok)
            near = np.flatnonzero(gap <= self.close)
            if near.size == 0:
                break
            more = ro.evaluate(
                view.rules,
                lineup,
                view.seed,
                ro.take(state, near),
                point,
                opts[near],
                ok[near],
                k,
                first=round_ * k,
                bars=None if b is None else b[near],
            )
            extra, extra_win = np.full((2, rows.size, m, k), np.nan)
            extra[near], extra_win[near] = self._per_rollout(more), more.win_share
            scores.append(extra)
            wins.append(extra_win)
        best[rows] = self._pick(np.concatenate(scores, axis=2), ok)
        return best

    def _per_rollout(self, ev) -> np.ndarray:
        """(n, m, k) the score of each rollout: win share, plus worth x worth share (tie-break
        only when worth is 0)."""
        tie = 1e-9 if self.worth == 0 else self.worth
        return ev.win_share + tie * ev.worth_share

    @staticmethod
    def _gap(score: np.ndarray, win: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """(n,) how far apart the mean win shares of the best two options by mean score are
        (per-rollout arrays (n, m, k), NaN where not played; every row has two options)."""
        mean = np.where(ok, np.nanmean(score, axis=2), -np.inf)
        top_two = np.argsort(-mean, axis=1, kind="stable")[:, :2]
        share = np.take_along_axis(np.nanmean(win, axis=2), top_two, axis=1)
        return np.abs(share[:, 0] - share[:, 1])

    def _pick(self, score: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """The choice per row from per-rollout scores (NaN: not played): the option of the best
        mean score if its mean paired difference to option 0 is more than ``z`` standard
        errors, else option 0."""
        played = ~np.isnan(score)
        count = played[:, :1, :].sum(axis=2)  # rollouts per row (the same for every option)
        diff = np.where(played, score - score[:, :1, :], 0.0)
        mean = diff.sum(axis=2) / count
        squares = np.where(played, (diff - mean[..., None]) ** 2, 0.0).sum(axis=2)
        with np.errstate(divide="ignore", invalid="ignore"):  # one rollout: no spread to tell
            var = np.where(count > 1, squares / (count - 1), np.inf)  # (QA: it read as 0, so
        se = np.sqrt(var / count)  # one future overruled the playout whatever z)
        mean = np.where(ok, mean, -np.inf)
        mean[:, 0] = 0.0
        top = np.argmax(mean, axis=1)
        at = np.arange(score.shape[0])
        sure = mean[at, top] > (self.z * se[at, top] if self.z > 0 else 0.0)
        return np.where(sure, top, 0)

    # --- decisions --------------------------------------------------------------------------
    def upgrade(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        prior = np.asarray(self.own.upgrade(view, games)).astype(np.int64)
        seat = view.seat
        have = view.coins[games, seat][:, None]
        allowed = (
            (view.owner[games] == seat)
            & (view.level[games] < R.MAX_LEVEL)
            & (R.UPGRADE_COST_TABLE[None, :] <= have)
        )
        gain = view.visits_by_others(games, seat) * view.tab_gain_of_upgrade(games)
        gain = np.where(allowed, gain, -np.inf)
        order = np.argsort(-gain, axis=1, kind="stable")[:, : self.upgrades]
        top = np.take_along_axis(gain, order, axis=1) > -np.inf
        # options: the prior's answer first, then none, then the best bars (no repeats)
        options = np.concatenate(
            [prior[:, None], np.full((games.size, 1), -1), np.where(top, order, -1)], axis=1
        )
        valid = np.concatenate([np.ones((games.size, 1), bool), prior[:, None] != -1, top], 1)
        valid[:, 2:] &= options[:, 2:] != prior[:, None]
        choice = self._choose(view, games, options, valid)
        return options[np.arange(games.size), choice].astype(np.int8)

    def _yes_no(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        method = getattr(self.own, view.decision.method)
        prior = np.asarray(method(view, games, bars), dtype=bool)
        options = np.stack([prior, ~prior], axis=1)
        valid = np.ones(options.shape, dtype=bool)
        choice = self._choose(view, games, options, valid, bars)
        return options[np.arange(games.size), choice]

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return self._yes_no(view, games, bars)

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return self._yes_no(view, games, bars)

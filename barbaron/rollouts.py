"""Rollouts: games continued from a decision point, many copies at once, on fresh luck.

A searching strategy asks "what if I answered this decision so, and the game went on?". This
module answers it in the batch engine for many games and many answers in one call:

1. :func:`position_of` (from a strategy's view) or a :class:`~barbaron.batch.BatchState` of the
   batch engine gives the games at one decision point: the open decision of one seat in one
   turn slot (an upgrade before the roll, R16; a buy, R14, or a takeover, R15, after it);
2. :func:`fork` copies each game ``k`` times. Copy ``r`` of game ``g`` draws its future dice,
   card shuffles and bot draws from **fresh streams** keyed by (seed, g, slot, decision, r)
   (:func:`barbaron.streams.rollout_keys`), never from the game's own streams: a strategy must
   not see the dice it will actually roll. The cards already drawn from the current shuffle are
   public; the order of the unseen ones is not, so each copy reshuffles them with its own
   stream (from a canonical order: the copies depend on which cards are unseen, never on
   their hidden order). A position taken from a view (the cards it shows as drawn) is
   therefore copied exactly as the true state would be;
3. :func:`play_from` applies one answer per copy to the open decision and plays every copy to
   the end with the given strategies (its own seat's rest of the turn included);
4. :func:`evaluate` does all three for a set of answers per game, every answer seeing the same
   ``k`` futures (common random numbers), and returns per game and answer the deciding seat's
   summed win share (R19, in twelfths: exact) and worth share.

Every copy's result depends only on (seed, game, slot, decision, rollout, the position, the
answer, the strategies): not on the batch, the other answers or how the work is chunked.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from barbaron import rules as R
from barbaron import streams
from barbaron.batch import (
    BUY,
    TAKEOVER,
    BatchState,
    _finish_turn,
    kernel_state,
    play_rest_of_turn,
    play_slot,
    worth,
)
from barbaron.rules import Rules
from barbaron.strategy import BatchView, Decision, IllegalDecision, Strategy, StrategyError

WIN_UNITS = 12  # a k-way shared win (k = 1..4) is 12 / k units: win shares summed exactly
MAX_COPIES = 1 << 17  # copies played at once by evaluate (memory); results do not depend on it


@dataclass(frozen=True)
class DecisionPoint:
    """Where a batch of positions stands: the open ``decision`` of ``seat`` in turn ``slot``."""

    slot: int
    seat: int
    decision: Decision

    @classmethod
    def of(cls, view: BatchView) -> DecisionPoint:
        return cls(view.slot, view.seat, Decision(view.decision))

    def round(self, rules: Rules) -> int:
        """The 1-based round of the slot."""
        return self.slot // rules.players + 1


def position_of(view: BatchView, games: np.ndarray) -> BatchState:
    """Rows ``games`` of a strategy's view as a batch state (copies of its arrays). Of the
    deck it knows what a player knows: the cards drawn from the current shuffle, in order;
    the unseen ones follow in card order, which :func:`fork` reshuffles."""
    n = games.size
    seen = view.cards_seen(games)
    rank = np.tile(R.N_CARDS + np.arange(R.N_CARDS), (n, 1))  # a card's place in the deck:
    rows, slots = np.nonzero(seen >= 0)  # its draw order if seen, after all those if not
    rank[rows, seen[rows, slots]] = slots
    deck = np.argsort(rank, axis=1).astype(np.int8)
    return BatchState(
        game=view.game[games].astype(np.int64),
        coins=view.coins[games].copy(),
        position=view.position[games].copy(),
        skip=view.skip[games].copy(),
        owner=view.owner[games].copy(),
        level=view.level[games].copy(),
        deck=deck,
        drawn=view.cards_drawn(games).astype(np.int32),
        rolls=np.zeros(n, dtype=np.int32),
        round=view.round,
    )


def take(state: BatchState, rows: np.ndarray) -> BatchState:
    """A new state of rows ``rows`` of ``state`` (copied; rows may repeat)."""
    return BatchState(
        game=state.game[rows].copy(),
        coins=state.coins[rows].copy(),
        position=state.position[rows].copy(),
        skip=state.skip[rows].copy(),
        owner=state.owner[rows].copy(),
        level=state.level[rows].copy(),
        deck=state.deck[rows].copy(),
        drawn=state.drawn[rows].copy(),
        rolls=state.rolls[rows].copy(),
        round=state.round,
    )


def fork(
    state: BatchState, rows: np.ndarray, rollout: np.ndarray, seed: int, point: DecisionPoint
) -> BatchState:
    """Copy ``rows[i]`` of ``state`` as rollout ``rollout[i]``: its game becomes the rollout's
    stream key (fresh dice, shuffles and bot draws; its dice counted from 0) and the unseen
    cards of its current shuffle are reshuffled by that key's stream (the drawn ones stay as
    they were: public)."""
    rows = np.asarray(rows, dtype=np.int64)
    rollout = np.asarray(rollout, dtype=np.int64)
    if rollout.size and (rollout.min() < 0 or rollout.max() >= 1 << 32):
        raise ValueError("rollout numbers must be 0 .. 2**32 - 1")
    copy = take(state, rows)
    copy.game[:] = streams.rollout_keys(
        seed, state.game[rows], point.slot, int(point.decision), rollout
    )
    copy.rolls[:] = 0  # (a fresh stream: how many dice the game rolled so far is not needed)
    _reshuffle_unseen(seed, copy.game, copy.deck, copy.drawn)
    return copy


@nb.njit(cache=True, nogil=True)
def _reshuffle_unseen(seed, keys, deck, drawn):
    """Fisher-Yates over the cards of the current shuffle not drawn yet, with the stream of the
    copy's key (the counters of its current shuffle number, which the copy never draws again),
    starting from them in card order: the copy never depends on their hidden order."""
    for g in range(keys.size):
        shuffle, index = divmod(drawn[g], R.N_CARDS)
        if index == 0:  # the next draw reshuffles anyway, from the key's stream
            continue
        deck[g, index:].sort()
        for i in range(R.N_CARDS - 1, index, -1):
            w = streams.word(seed, keys[g], streams.DECK, shuffle * 16 + i)
            j = index + streams.below(w & np.uint64(0xFFFFFFFF), i - index + 1)
            deck[g, i], deck[g, j] = deck[g, j], deck[g, i]


def play_from(
    rules: Rules,
    strategies: list[Strategy],
    seed: int,
    state: BatchState,
    point: DecisionPoint,
    choice: np.ndarray,
    bars: np.ndarray | None = None,
) -> np.ndarray:
    """Answer the open decision of every row with ``choice[i]`` (a bar or -1 for an upgrade,
    a bool for a buy or takeover of ``bars[i]``) and play each row to the end under ``seed``
    (the rows' games are their stream keys); ``state`` is changed in place. Returns the final
    worth (n, players), R19.

    The answers are not checked: they must be legal (an upgrade of an own bar below Draught Tap
    the seat can pay for; a buy or takeover the engine offered)."""
    if len(strategies) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} strategies")
    n, players = len(state.game), rules.players
    round_number = point.round(rules)
    state.round = round_number
    st = kernel_state(state)
    if point.decision is Decision.UPGRADE:
        st.active[:] = True
        st.upgrade[:] = np.asarray(choice, dtype=np.int8)
        play_rest_of_turn(rules, strategies[point.seat], seed, state, st, round_number, point.seat)
    else:
        kind = BUY if point.decision is Decision.BUY else TAKEOVER
        st.pending[:] = kind
        st.pending_bar[:] = np.asarray(bars, dtype=np.int8)
        st.answer[:] = np.asarray(choice, dtype=bool)
        if n:
            _finish_turn(point.seat, st)
    for slot in range(point.slot + 1, rules.turn_slots):
        round_number, seat = divmod(slot, players)
        play_slot(rules, strategies[seat], seed, state, st, round_number + 1, seat)
    return worth(state, players)


def shares(final_worth: np.ndarray, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row: ``seat``'s win share in twelfths (int, R19) and its worth share (float; an even
    share when the table's worth is 0)."""
    best = final_worth.max(axis=1, keepdims=True)
    winners = final_worth == best
    k = winners.sum(axis=1)
    win = np.where(winners[:, seat], WIN_UNITS // k, 0).astype(np.int64)
    total = final_worth.sum(axis=1).astype(np.float64)
    players = final_worth.shape[1]
    mine = final_worth[:, seat].astype(np.float64)
    share = np.where(total > 0, mine / np.where(total > 0, total, 1.0), 1.0 / players)
    return win, share


@dataclass(frozen=True)
class Evaluation:
    """Per game, answer and rollout: the deciding seat's win share in twelfths (exact, R19) and
    its worth share; ``played`` marks the (game, answer, rollout) played."""

    win: np.ndarray  # (n, m, k) int64
    worth_share: np.ndarray  # (n, m, k) float64
    played: np.ndarray  # (n, m, k) bool

    @property
    def rollouts(self) -> np.ndarray:
        """(n, m) rollouts played per game and answer."""
        return self.played.sum(axis=2)

    @property
    def win_share(self) -> np.ndarray:
        """(n, m, k) the deciding seat's win share in each rollout."""
        return self.win / WIN_UNITS

    def mean_win_share(self) -> np.ndarray:
        """(n, m) mean win share per game and answer (NaN where none was played)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.win.sum(axis=2) / (WIN_UNITS * self.rollouts)


def _in_rollout(
    error: IllegalDecision | StrategyError,
    rules: Rules,
    point: DecisionPoint,
    games: np.ndarray,
    keys: np.ndarray,
) -> IllegalDecision | StrategyError:
    """``error`` from a rollout, said as such: the engine knows a copy's game only by its
    stream key (``keys[i]``, a copy of real game ``games[i]``), so the real game replaces it."""
    where = f"from seat {point.seat}'s {point.decision.method} in round {point.round(rules)}"
    key = getattr(error, "game", None)
    if key is not None and (key == keys).any():
        game = int(games[np.flatnonzero(keys == key)[0]])
        return IllegalDecision(f"in a rollout {where}: {error.message}", game=game)
    real = np.unique(games)
    shown = ", ".join(map(str, real[:3])) + (", ..." if real.size > 3 else "")
    message = f"in a rollout {where}, of game{'s' * (real.size > 1)} {shown}: {error}"
    return type(error)(message)


def evaluate(
    rules: Rules,
    strategies: list[Strategy],
    seed: int,
    state: BatchState,
    point: DecisionPoint,
    options: np.ndarray,
    valid: np.ndarray,
    rollouts: int,
    *,
    first: int = 0,
    bars: np.ndarray | None = None,
    max_copies: int = MAX_COPIES,
) -> Evaluation:
    """Rollouts of every valid answer ``options[i, j]`` (``valid[i, j]``) of every row ``i`` of
    ``state`` (all at ``point``): rollouts number ``first`` .. ``first + rollouts - 1``, the
    same futures for each answer of a row (common random numbers); ``bars[i]`` the bar of a
    buy or takeover. The rows' games are their real game indices (the rollouts' stream keys
    are derived from them). Copies are played ``max_copies`` at a time; the result does not
    depend on it."""
    options = np.asarray(options)
    valid = np.asarray(valid, dtype=bool)
    n, m = options.shape
    k = int(rollouts)
    win = np.zeros((n, m, k), dtype=np.int64)
    share = np.zeros((n, m, k), dtype=np.float64)
    played = np.zeros((n, m, k), dtype=bool)
    row_i, opt_j = np.nonzero(valid)  # every (row, answer), row-major, then every rollout
    total = row_i.size * k
    if total == 0:
        return Evaluation(win, share, played)
    for done in range(0, total, max_copies):
        c = np.arange(done, min(total, done + max_copies))
        p, r = np.divmod(c, k)
        rows, opts = row_i[p], opt_j[p]
        copies = fork(state, rows, r + first, seed, point)
        choice = options[rows, opts]
        try:
            final = play_from(
                rules, strategies, seed, copies, point, choice, None if bars is None else bars[rows]
            )
        except (IllegalDecision, StrategyError) as e:
            raise _in_rollout(e, rules, point, state.game[rows], copies.game) from e
        win[rows, opts, r], share[rows, opts, r] = shares(final, point.seat)
        played[rows, opts, r] = True
    return Evaluation(win, share, played)

"""The strategy interface: decisions made for many games at once, from a read-only view.

A strategy is a class with three methods. Each gets the view of the whole batch and ``games``,
the batch rows where the decision is open for the strategy's seat, and answers one value per row:

- ``upgrade(view, games)``: before the roll, a bar index to raise one level, or -1 (R16);
- ``buy(view, games, bars)``: buy the free bar the seat stands on? (R14);
- ``takeover(view, games, bars)``: take over the bar whose tab it just paid? (R15).

The engine asks only where the choice is legal and rejects an illegal answer. A strategy never
mutates the view. Strategies that randomize draw from :meth:`BatchView.uniform` only, a per-game
stream, so a game's outcome never depends on its batch or on the order strategies are asked.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from barbaron import streams
from barbaron.reference import GameView
from barbaron.rules import Rules

UPGRADE, BUY, TAKEOVER = 0, 1, 2  # decision kinds, also the keys of a strategy's random draws


@dataclass(frozen=True)
class BatchView:
    """A read-only view of a batch of games at one decision point of one seat."""

    rules: Rules
    seat: int  # the deciding seat
    round: int  # 1-based round number
    slot: int  # turn slot within the game, 0-based: (round - 1) * players + seat
    decision: int  # UPGRADE, BUY or TAKEOVER
    seed: int  # the run's seed
    game: np.ndarray  # (n,) int64: global game index of each row (selects its random streams)
    coins: np.ndarray  # (n, players) int32
    position: np.ndarray  # (n, players) int8: space index (R1)
    skip: np.ndarray  # (n, players) bool: next turn slot is skipped (R6)
    owner: np.ndarray  # (n, 12) int8: owning seat per bar (R2), -1 free
    level: np.ndarray  # (n, 12) int8: 0 plain, 1 Happy Hour, 2 Draught Tap

    @property
    def rounds_left(self) -> int:
        """Rounds still to come after the current one."""
        return self.rules.rounds - self.round

    def uniform(self, games: np.ndarray, draw: int = 0) -> np.ndarray:
        """Floats in [0, 1) for rows ``games``: draw number ``draw`` (0..15) of this decision.

        They come from the seat's own per-game stream, keyed by (seed, game, seat, slot,
        decision, draw), so they are the same whatever batch the game is played in.
        """
        if not 0 <= draw < 16:
            raise ValueError(f"draw must be 0..15, got {draw}")
        n = (self.slot * 3 + self.decision) * 16 + draw
        return _uniforms(self.seed, self.game[games], streams.BOTS + self.seat, n)


@nb.njit(cache=True)
def _uniforms(seed: int, games: np.ndarray, purpose: int, n: int) -> np.ndarray:
    out = np.empty(games.size)
    for i in range(games.size):
        out[i] = streams.uniform(seed, games[i], purpose, n)
    return out


class Strategy:
    """Base class of batch strategies: by default never upgrade, buy or take over."""

    def upgrade(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        """Per row of ``games``: the bar to raise one level before the roll, or -1."""
        return np.full(games.size, -1, dtype=np.int8)

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        """Per row of ``games``: buy the free bar ``bars[i]`` the seat stands on?"""
        return np.zeros(games.size, dtype=bool)

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        """Per row of ``games``: take over ``bars[i]``, whose tab the seat just paid?"""
        return np.zeros(games.size, dtype=bool)


class InOneGame:
    """A batch strategy seated in the reference engine: each question becomes a batch of one."""

    def __init__(self, strategy: Strategy, seed: int, game: int) -> None:
        self.strategy, self.seed, self.game = strategy, seed, game

    def __repr__(self) -> str:
        return repr(self.strategy)

    def _view(self, view: GameView, decision: int) -> BatchView:
        def row(values: tuple, dtype: type) -> np.ndarray:
            a = np.array([values], dtype=dtype)
            a.flags.writeable = False
            return a

        return BatchView(
            rules=view.rules,
            seat=view.seat,
            round=view.round,
            decision=decision,
            slot=(view.round - 1) * view.rules.players + view.seat,
            seed=self.seed,
            game=np.array([self.game], dtype=np.int64),
            coins=row(view.coins, np.int32),
            position=row(view.position, np.int8),
            skip=row(view.skip, bool),
            owner=row(view.owner, np.int8),
            level=row(view.level, np.int8),
        )

    _ONE = np.zeros(1, dtype=np.int64)

    def upgrade(self, view: GameView) -> int | None:
        bar = int(self.strategy.upgrade(self._view(view, UPGRADE), self._ONE)[0])
        return None if bar == -1 else bar

    def buy(self, view: GameView, bar: int) -> bool:
        bars = np.array([bar], dtype=np.int8)
        return bool(self.strategy.buy(self._view(view, BUY), self._ONE, bars)[0])

    def takeover(self, view: GameView, bar: int) -> bool:
        bars = np.array([bar], dtype=np.int8)
        return bool(self.strategy.takeover(self._view(view, TAKEOVER), self._ONE, bars)[0])


class Mixed(Strategy):
    """Different strategies in one seat across a batch: row g is played by ``strategies[which[g]]``.

    Lets one batch hold several lineups (e.g. every rotation of a deal). Each strategy is asked
    about its own rows only; the order in which they are asked does not matter.
    """

    def __init__(self, strategies: list[Strategy], which: np.ndarray) -> None:
        self.strategies, self.which = strategies, np.asarray(which)

    def __repr__(self) -> str:
        return f"Mixed({self.strategies!r})"

    def _ask(self, games: np.ndarray, ask, dtype) -> np.ndarray:
        out = np.empty(games.size, dtype=dtype)
        who = self.which[games]
        for k in range(len(self.strategies)):
            mine = np.flatnonzero(who == k)
            if mine.size:
                out[mine] = ask(self.strategies[k], mine)
        return out

    def upgrade(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        return self._ask(games, lambda s, m: s.upgrade(view, games[m]), np.int8)

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return self._ask(games, lambda s, m: s.buy(view, games[m], bars[m]), bool)

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return self._ask(games, lambda s, m: s.takeover(view, games[m], bars[m]), bool)

"""Per-game random streams: a counter-based generator, a pure function of (seed, game, purpose, n).

There is no generator object and no global state: the n-th number of a stream is a SplitMix64
hash of its coordinates, so any game of a million can be replayed alone, and a game's dice do not
depend on the batch it was played in, the worker, or the order anything was asked.

The functions are compiled with numba and callable from plain Python too: the batch engine and
the reference engine draw from the very same code.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from barbaron import numba_start
from barbaron import rules as R

DICE = 1  # purpose: the game's dice, n = the roll counter
DECK = 2  # purpose: card shuffles, n = shuffle * 16 + swap position
ROLLOUT = 4  # purpose: the stream keys of rollouts (barbaron.rollouts), n = rollout_counter
BOTS = 8  # purpose BOTS + seat: what a randomizing strategy in that seat draws

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)


@nb.njit(cache=True, nogil=True)
def mix64(z: np.uint64) -> np.uint64:
    """The SplitMix64 finalizer: a bijection of 64-bit words that scrambles every bit."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True, nogil=True)
def word(seed: int, game: int, purpose: int, n: int) -> np.uint64:
    """The n-th 64-bit word of stream ``purpose`` of game ``game`` under ``seed``."""
    h = mix64(np.uint64(seed) + _GAMMA)
    h = mix64(h ^ (np.uint64(game) * _GAMMA))
    return mix64(h ^ ((np.uint64(purpose) << np.uint64(48)) + np.uint64(n)))


@nb.njit(cache=True, nogil=True)
def below(w32: np.uint64, k: int) -> int:
    """Map a 32-bit word to 0..k-1 by multiply-shift (bias below k / 2**32)."""
    return int((w32 * np.uint64(k)) >> np.uint64(32))


@nb.njit(cache=True, nogil=True)
def roll(seed: int, game: int, n: int) -> tuple[int, int]:
    """The n-th roll of a game's two dice, each 1..6."""
    w = word(seed, game, DICE, n)
    return below(w & _LOW32, 6) + 1, below(w >> np.uint64(32), 6) + 1


@nb.njit(cache=True, nogil=True)
def shuffle_into(seed: int, game: int, shuffle: int, order: np.ndarray) -> None:
    """Write card order number ``shuffle`` of a game into ``order`` (14 card indices, R17)."""
    for i in range(R.N_CARDS):
        order[i] = i
    for i in range(R.N_CARDS - 1, 0, -1):  # Fisher-Yates
        j = below(word(seed, game, DECK, shuffle * 16 + i) & _LOW32, i + 1)
        order[i], order[j] = order[j], order[i]


@nb.njit(cache=True, nogil=True)
def uniform(seed: int, game: int, purpose: int, n: int) -> float:
    """A float in [0, 1) with 53 random bits."""
    return float(word(seed, game, purpose, n) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


def bot_draw(slot: int, decision: int, draw: int) -> int:
    """The counter of a strategy's draw ``draw`` (0..15) at a decision (R-independent bookkeeping).

    Keyed by turn slot and decision kind, so it never depends on which other decisions were
    asked first, in which batch, or how often the strategy drew elsewhere.
    """
    if isinstance(draw, bool) or not isinstance(draw, int | np.integer) or not 0 <= draw < 16:
        raise ValueError(f"draw must be a whole number 0..15, got {draw!r}")  # (1.5 was draw 1)
    return (slot * 3 + decision) * 16 + draw


@nb.njit(cache=True, nogil=True)
def rollout_keys(seed: int, games: np.ndarray, slot: int, decision: int, rollout: np.ndarray):
    """(n,) the stream key of rollout ``rollout[i]`` (0 .. 2**32 - 1) of game ``games[i]`` from
    decision ``decision`` (0..2) of turn slot ``slot``: a pseudo game index in [2**62, 2**63),
    above every game index a run uses, whose dice, shuffles and bot draws (its streams under
    ``seed``) are fresh: a hash of (seed, game, slot, decision, rollout)."""
    out = np.empty(games.size, dtype=np.int64)
    base = np.uint64(slot * 3 + decision) << np.uint64(32)
    top = np.uint64(1) << np.uint64(62)
    for i in range(games.size):
        w = word(seed, games[i], ROLLOUT, base + np.uint64(rollout[i]))
        out[i] = np.int64((w >> np.uint64(2)) | top)
    return out


class SeededChance:
    """The dice and shuffles of game ``game`` under ``seed``, for the reference engine."""

    def __init__(self, seed: int, game: int) -> None:
        self.seed, self.game, self.rolls = seed, game, 0

    def roll(self) -> tuple[int, int]:
        self.rolls += 1
        return roll(self.seed, self.game, self.rolls - 1)

    def deck_order(self, shuffle: int) -> list[int]:
        order = np.empty(R.N_CARDS, dtype=np.int8)
        shuffle_into(self.seed, self.game, shuffle, order)
        return [int(c) for c in order]


with numba_start.cython_blas_alone():
    mix64(np.uint64(0))  # numba sets its CPU target up at the first kernel call: here, lighter

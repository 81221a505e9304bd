"""The compiled helpers behind :class:`barbaron.strategy.BatchView`'s methods.

Apart from ``barbaron.strategy`` so that importing the strategy contract (and every bot with it)
does not import numba: the view's methods import this module when first used.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from barbaron import odds, streams
from barbaron import rules as R


@nb.njit(cache=True, nogil=True)
def held(owner, g, b):
    """How many bars of bar b's district the owner of b holds in game g (0 if b is free)."""
    holder = owner[g, b]
    if holder < 0:
        return 0
    first = b // R.BARS_PER_DISTRICT * R.BARS_PER_DISTRICT
    n = 0
    for c in range(first, first + R.BARS_PER_DISTRICT):
        n += owner[g, c] == holder
    return n


@nb.njit(cache=True, nogil=True)
def district_holdings(owner: np.ndarray, games: np.ndarray, seat: int) -> np.ndarray:
    out = np.zeros((games.size, R.N_DISTRICTS), dtype=np.int8)
    for i in range(games.size):
        for b in range(R.N_BARS):
            if owner[games[i], b] == seat:
                out[i, b // R.BARS_PER_DISTRICT] += 1
    return out


@nb.njit(cache=True, nogil=True)
def tabs(owner: np.ndarray, level: np.ndarray, games: np.ndarray) -> np.ndarray:
    out = np.empty((games.size, R.N_BARS), dtype=np.int32)
    for i in range(games.size):
        g = games[i]
        for b in range(R.N_BARS):
            out[i, b] = R.TAB_TABLE[b, level[g, b], held(owner, g, b)]
    return out


@nb.njit(cache=True, nogil=True)
def tab_gain_of_upgrade(owner: np.ndarray, level: np.ndarray, games: np.ndarray) -> np.ndarray:
    out = np.zeros((games.size, R.N_BARS), dtype=np.int32)
    for i in range(games.size):
        g = games[i]
        for b in range(R.N_BARS):
            lv = level[g, b]
            if owner[g, b] >= 0 and lv < R.MAX_LEVEL:
                n = held(owner, g, b)
                out[i, b] = R.TAB_TABLE[b, lv + 1, n] - R.TAB_TABLE[b, lv, n]
    return out


@nb.njit(cache=True, nogil=True)
def visits_by_others(position, games, turns, exclude):
    out = np.zeros((games.size, R.N_BARS))
    for i in range(games.size):
        g = games[i]
        for seat in range(turns.size):
            if seat != exclude[i]:
                t, p = turns[seat], position[g, seat]
                for b in range(R.N_BARS):
                    out[i, b] += odds.EXPECTED_BAR_VISITS[t, p, b]
    return out


@nb.njit(cache=True, nogil=True)
def worst_tab(owner, level, position, games, seat):
    out = np.zeros(games.size, dtype=np.int32)
    for i in range(games.size):
        g = games[i]
        p = position[g, seat]
        for b in range(R.N_BARS):
            if odds.REACHABLE_BARS[p, b] and owner[g, b] >= 0 and owner[g, b] != seat:
                tab = R.TAB_TABLE[b, level[g, b], held(owner, g, b)]
                if tab > out[i]:
                    out[i] = tab
    return out


@nb.njit(cache=True, nogil=True)
def uniforms(seed: int, games: np.ndarray, purpose: int, n: int) -> np.ndarray:
    out = np.empty(games.size)
    for i in range(games.size):
        out[i] = streams.uniform(seed, games[i], purpose, n)
    return out

"""Exact movement odds of one player: two dice, then the cards that move (a Markov chain).

A turn takes a player from space p to space q with probability ``TURN[p, q]``: the 36 equally
likely rolls, then, on the Jukebox or the Regulars' Table, a card that moves with probability
1/14 each (Pub crawl +3, Taxi to Neon Light, Bouncer to Payday, Police check to Curfew; R18).
The deck is treated as freshly shuffled (each card 1/14); Curfew's skipped turn is ignored.
"""

from __future__ import annotations

import numpy as np

from barbaron import rules as R

DICE_SUM = np.array([0, 0] + [(6 - abs(7 - s)) / 36 for s in range(2, 13)])  # P(sum = s)
DICE_SUM.flags.writeable = False


def _card_moves() -> np.ndarray:
    """(16, 16): where a player standing on space p ends up after the space's card, if any."""
    move = np.eye(R.N_SPACES)
    share = 1 / R.N_CARDS
    for space in R.CARD_SPACES:
        move[space] = 0
        move[space, space] = (R.N_CARDS - 4) * share  # a card that does not move the player
        move[space, space + R.PUB_CRAWL_STEPS] += share
        move[space, R.NEON_LIGHT] += share  # Taxi
        move[space, R.PAYDAY] += share  # Bouncer
        move[space, R.CURFEW] += share  # Police check
    return move


def _turn_matrix() -> np.ndarray:
    roll = np.zeros((R.N_SPACES, R.N_SPACES))
    for p in range(R.N_SPACES):
        for s in range(2, 13):
            roll[p, (p + s) % R.N_SPACES] += DICE_SUM[s]
    return roll @ _card_moves()


TURN = _turn_matrix()  # (16, 16): P(a turn from space p ends on space q)
TURN.flags.writeable = False
MAX_TURNS = 64


def _cumulative_landings() -> np.ndarray:
    cum = np.zeros((MAX_TURNS + 1, R.N_SPACES, R.N_SPACES))
    step = np.eye(R.N_SPACES)
    for t in range(1, MAX_TURNS + 1):
        step = step @ TURN
        cum[t] = cum[t - 1] + step
    cum.flags.writeable = False
    return cum


# EXPECTED_LANDINGS[t, p, q]: expected number of turns, among the next t, that end on q from p
EXPECTED_LANDINGS = _cumulative_landings()
# EXPECTED_BAR_VISITS[t, p, b]: the same for the bars only, b in bar order (R2)
EXPECTED_BAR_VISITS = np.ascontiguousarray(EXPECTED_LANDINGS[:, :, list(R.BAR_SPACES)])
EXPECTED_BAR_VISITS.flags.writeable = False
# REACHABLE_BARS[p, b]: can a turn from space p end on bar b?
REACHABLE_BARS = TURN[:, list(R.BAR_SPACES)] > 0
REACHABLE_BARS.flags.writeable = False


def stationary() -> np.ndarray:
    """(16,): the long-run share of turns that end on each space."""
    values, vectors = np.linalg.eig(TURN.T)
    v = np.real(vectors[:, np.argmin(np.abs(values - 1))])
    return v / v.sum()

"""Hard, the third Homie: "weighs up the other players' dice odds, whole districts and the risk
of having to pay up itself" (rules page).

- **Dice odds.** For every bar it knows the expected number of visits from each other player
  over the rest of the game, from where they stand now (the exact dice-and-card Markov chain of
  ``barbaron.odds``), and so the expected tabs a bar, an upgrade or a district will earn.
- **Its own risk.** Before spending, it keeps ``reserve`` coins plus ``risk`` times the worst tab
  its next roll could cost, so that it is rarely forced to sell bars at half value (R12).
- **Worth.** Buying and upgrading keep worth (price in, value out), so it does both whenever the
  cash is safe, choosing the upgrade that earns most. A takeover costs it half the bar's value
  and hands that half to a rival; it takes over only when the expected tabs it gains, plus what
  the rival loses (a broken district counts here), outweigh that, with ``rival`` weighting the
  rival's side, by more than ``margin`` coins.
- **The end.** All expectations run to the last round; after its last roll it only keeps
  enough for Birthday cards, and a takeover with no turns left never pays.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from barbaron.bots.common import coins, pick, upgradable

from barbaron import odds, params
from barbaron import rules as R
from barbaron.registry import register
from barbaron.strategy import BatchView, Strategy


@register("hard")
class Hard(Strategy):
    """Homie Hard: expected tabs from everyone's dice odds, districts, a risk-sized cash buffer.

    ``reserve`` + ``risk`` x the worst tab of its next roll is the cash it keeps; a takeover must
    be worth more than ``margin`` coins, counting the rival's loss ``rival`` times.
    """

    def __init__(
        self, risk: float = 1.0, reserve: int = 60, rival: float = 1.0, margin: float = 0.0
    ) -> None:
        self.risk = params.number("risk", risk, low=0)
        self.reserve = params.number("reserve", reserve, low=0)
        self.rival = params.number("rival", rival, low=0)
        self.margin = params.number("margin", margin)

    # --- what it knows --------------------------------------------------------------------
    def buffer(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        """(k,) coins to keep in hand: reserve + risk x the worst tab of its next roll."""
        if view.turns_left(view.seat) == 0:  # no roll left: only Birthday cards can cost
            return np.full(games.size, R.BIRTHDAY_EACH * (view.rules.players - 1))
        worst = view.worst_tab_next_roll(games, view.seat)
        return self.reserve + self.risk * worst

    # --- decisions ------------------------------------------------------------------------
    def upgrade(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        allowed = upgradable(view, games, coins(view, games) - self.buffer(view, games))
        gain = view.visits_by_others(games, view.seat) * view.tab_gain_of_upgrade(games)
        return pick(allowed & (gain > 0), gain)

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        left = coins(view, games) - R.PRICE_TABLE[bars]
        return left >= self.buffer(view, games)

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        turns = np.array(
            [min(view.turns_left(s), odds.MAX_TURNS) for s in range(view.rules.players)]
        )
        score = _takeover_scores(
            view.owner,
            view.level,
            view.position,
            games,
            bars,
            view.seat,
            turns,
            self.rival,
        )
        left = coins(view, games) - view.takeover_cost(games, bars)
        return (left >= self.buffer(view, games)) & (score > self.margin)


@nb.njit(cache=True)
def _district_income(owner, level, g, first, holder, skip_bar, add_bar, payers):
    """Expected tabs ``holder``'s bars of a district earn from ``payers`` (3,) visits, with
    ``skip_bar`` taken away from it and ``add_bar`` given to it (-1: none)."""
    held = 0
    for j in range(R.BARS_PER_DISTRICT):
        b = first + j
        if (owner[g, b] == holder and b != skip_bar) or b == add_bar:
            held += 1
    total = 0.0
    for j in range(R.BARS_PER_DISTRICT):
        b = first + j
        if (owner[g, b] == holder and b != skip_bar) or b == add_bar:
            total += R.TAB_TABLE[b, level[g, b], held] * payers[j]
    return total


@nb.njit(cache=True)
def _takeover_scores(owner, level, position, games, bars, me, turns, rival):
    """Per game: what taking over ``bars[i]`` is worth to ``me`` against its owner, in coins:
    (tabs it gains + tabs it stops paying - half the value it gives away)
    + rival * (tabs the owner loses - half the value it receives)."""
    players = turns.size
    out = np.empty(games.size)
    to_me = np.empty(R.BARS_PER_DISTRICT)
    to_victim = np.empty(R.BARS_PER_DISTRICT)
    for i in range(games.size):
        g, bar = games[i], bars[i]
        victim = owner[g, bar]
        first = bar // R.BARS_PER_DISTRICT * R.BARS_PER_DISTRICT
        for j in range(R.BARS_PER_DISTRICT):
            to_me[j] = 0.0
            to_victim[j] = 0.0
            for s in range(players):
                v = odds.EXPECTED_BAR_VISITS[turns[s], position[g, s], first + j]
                if s != me:
                    to_me[j] += v
                if s != victim:
                    to_victim[j] += v
        gain = _district_income(owner, level, g, first, me, -1, bar, to_me) - _district_income(
            owner, level, g, first, me, -1, -1, to_me
        )
        held = 0
        for j in range(R.BARS_PER_DISTRICT):
            held += owner[g, first + j] == victim
        mine_visits = odds.EXPECTED_BAR_VISITS[turns[me], position[g, me], bar]
        avoided = mine_visits * R.TAB_TABLE[bar, level[g, bar], held]
        loss = _district_income(
            owner, level, g, first, victim, -1, -1, to_victim
        ) - _district_income(owner, level, g, first, victim, bar, -1, to_victim)
        half = R.VALUE_TABLE[bar, level[g, bar]] / 2
        out[i] = gain + avoided - half + rival * (loss - half)
    return out

"""Hard, the third Homie: "weighs up the other players' dice odds, whole districts and the risk
of having to pay up itself" (rules page).

- **Dice odds.** For every bar it knows the expected number of visits from each other player
  over the rest of the game, from where they stand now (the exact dice-and-card Markov chain of
  ``barbaron.odds``), and so the expected tabs a bar, an upgrade or a district will earn.
- **Worth.** Buying and upgrading keep worth (price in, value out), so it does both whenever the
  cash is safe, choosing the upgrade that earns most. A takeover costs it half the bar's value
  and hands that half to a rival; it takes over only when the expected tabs it gains, plus what
  the rival loses (a broken district counts here), outweigh that, with ``rival`` weighting the
  rival's side, by more than ``margin`` coins.
- **Its own risk.** Before spending, it keeps ``reserve`` coins plus ``risk`` times the worst tab
  its next roll could cost. A takeover, its biggest outlay, also pays for the risk it creates:
  ``shortfall`` times the expected amount its next roll's tab would exceed the coins left
  (what forced sales at half value would cost it, R12) counts against the takeover.
- **The end.** All expectations run to the last round; after its last roll it only keeps
  enough for Birthday cards, and once nobody rolls again (the game's last turn slot, or the
  later seats of the last round all sit out a Curfew) it never takes over, whatever
  ``margin`` allows: it could only hand half the value away.

Its defaults (since the "Hard that beats every simple policy" issue) come from grid searches
against greedy, Normal and a grid of threshold policies: a standing cash buffer costs more win
share than the forced sales it prevents (``risk=0``, ``reserve=0``), takeovers pay even at a
modest expected loss (``margin=-150``, ``rival=1.5``), and the next roll's risk is priced into
takeovers only (``shortfall=1``). A subclass plays with these defaults unless it passes others
(Shark passes ``shortfall=0``, the judgement it was tuned with).
"""

from __future__ import annotations

import numpy as np
from barbaron.bots.common import coins, lazy_njit, pick, upgradable

from barbaron import odds, params
from barbaron import rules as R
from barbaron.registry import register
from barbaron.strategy import BatchView, Strategy


@register("hard")
class Hard(Strategy):
    """Homie Hard: expected tabs from everyone's dice odds, whole districts, the risk of paying up.

    ``reserve`` + ``risk`` x the worst tab of its next roll is the cash it keeps; a takeover must
    be worth more than ``margin`` coins, counting the rival's loss ``rival`` times and
    ``shortfall`` times the expected tab of its next roll beyond the coins it would keep.
    """

    def __init__(
        self,
        risk: float = 0.0,
        reserve: int = 0,
        rival: float = 1.5,
        margin: float = -150.0,
        shortfall: float = 1.0,
    ) -> None:
        self.risk = params.number("risk", risk, low=0)
        self.reserve = params.cushion("reserve", reserve)  # (coins: whole, as every cushion)
        self.rival = params.number("rival", rival, low=0)
        self.margin = params.number("margin", margin)
        self.shortfall = params.number("shortfall", shortfall, low=0)

    def expected_shortfall(
        self, view: BatchView, games: np.ndarray, left: np.ndarray
    ) -> np.ndarray:
        """(k,) the expected amount by which the tab of its next roll exceeds ``left`` coins:
        the sum over other seats' bars of P(the next turn ends there) x max(0, tab - left);
        0 after its last roll."""
        if view.turns_left(view.seat) == 0:
            return np.zeros(games.size)
        left = np.asarray(left, dtype=np.float64)  # coins; a subclass may pass fractions
        v = view
        return _shortfalls(v.owner, v.level, v.position, games, v.seat, left)

    # --- what it knows --------------------------------------------------------------------
    def buffer(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        """(k,) coins to keep in hand: reserve + risk x the worst tab of its next roll."""
        if view.turns_left(view.seat) == 0:  # no roll left: only Birthday cards can cost
            return np.full(games.size, R.BIRTHDAY_EACH * (view.rules.players - 1))
        worst = view.worst_tab_next_roll(games, view.seat)
        return self.reserve + self.risk * worst

    def _buffer_terms(self, view: BatchView) -> tuple[float, float]:
        """(base, risk): the decisions' kernels keep base + risk x the worst tab of the next
        roll, as :meth:`buffer` does (risk 0 after the last roll: Birthday cards only)."""
        if view.turns_left(view.seat) == 0:
            return float(R.BIRTHDAY_EACH * (view.rules.players - 1)), 0.0
        return float(self.reserve), self.risk  # (floats: one compiled kernel, any size)

    def _own_buffer(self, view: BatchView, games: np.ndarray) -> np.ndarray | None:
        """A subclass's own :meth:`buffer` for these rows, or None if it keeps Hard's."""
        if type(self).buffer is Hard.buffer:
            return None
        return self.buffer(view, games)

    # --- decisions ------------------------------------------------------------------------
    # Each decision is one compiled pass over the rows (the kernels below), computing what the
    # numpy statement in its comment does, with the same floating-point operations in the same
    # order, so that every choice (ties too) is the same. A subclass that overrides buffer()
    # gets the numpy statements.
    def upgrade(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        # allowed = upgradable(view, games, coins(view, games) - self.buffer(view, games))
        # gain = view.visits_by_others(games, view.seat) * view.tab_gain_of_upgrade(games)
        # return pick(allowed & (gain > 0), gain)
        v, turns = view, _turns(view)
        buffer = self._own_buffer(view, games)
        if buffer is not None:
            allowed = upgradable(view, games, coins(view, games) - buffer)
            gain = view.visits_by_others(games, view.seat) * view.tab_gain_of_upgrade(games)
            return pick(allowed & (gain > 0), gain)
        base, risk = self._buffer_terms(view)
        return _upgrades(v.coins, v.owner, v.level, v.position, games, v.seat, turns, base, risk)

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        # return coins(view, games) - R.PRICE_TABLE[bars] >= self.buffer(view, games)
        v = view
        buffer = self._own_buffer(view, games)
        if buffer is not None:
            return coins(view, games) - R.PRICE_TABLE[bars] >= buffer
        base, risk = self._buffer_terms(view)
        return _buys(v.coins, v.owner, v.level, v.position, games, bars, v.seat, base, risk)

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        # score = _takeover_scores(view.owner, ..., games, bars, view.seat, turns, self.rival)
        # left = coins(view, games) - view.takeover_cost(games, bars)
        # score -= shortfall x (expected_shortfall(left) - expected_shortfall(coins))
        # return (left >= self.buffer(view, games)) & (score > self.margin)
        v, turns = view, _turns(view)
        if view.rounds_left == 0:  # where nobody rolls again, no tab can repay what it gives
            last = view.skip[games, view.seat + 1 :].all(axis=1)  # (later seats sit out, R6)
            if last.any():
                answer = np.zeros(games.size, dtype=bool)
                if not last.all():
                    answer[~last] = self.takeover(view, games[~last], bars[~last])
                return answer
        shortfall = self.shortfall if view.turns_left(view.seat) else 0.0
        buffer = self._own_buffer(view, games)
        if buffer is not None:
            score = _takeover_scores(
                v.coins,
                v.owner,
                v.level,
                v.position,
                games,
                bars,
                v.seat,
                turns,
                self.rival,
                shortfall,
            )
            left = coins(view, games) - view.takeover_cost(games, bars)
            return (left >= buffer) & (score > self.margin)
        terms = (*self._buffer_terms(view), self.rival, self.margin, shortfall)
        return _takeovers(v.coins, v.owner, v.level, v.position, games, bars, v.seat, turns, *terms)


BAR_SPACE = np.array(R.BAR_SPACES, dtype=np.int64)  # (12,) the space of each bar
BAR_SPACE.flags.writeable = False


def _turns(view: BatchView) -> np.ndarray:
    """(players,) the rolls each seat has left, capped at the odds tables' horizon."""
    return np.array([min(view.turns_left(s), odds.MAX_TURNS) for s in range(view.rules.players)])


# --- kernels: numba, compiled on first use ------------------------------------------------------
# The cash a decision keeps, base + risk x worst tab (see :meth:`Hard.buffer`), is at least base
# and at most base + risk x MAX_TAB, and rounding keeps that order; so where a comparison comes
# out the same at both ends, the worst tab of the next roll is not looked for.
MAX_TAB = int(R.TAB_TABLE.max())  # the highest tab of any bar


@lazy_njit
def _tab_owed(owner, level, g, b, seat):
    """The tab ``seat`` pays on landing on bar b in game g (R11): 0 if the bar is free or its
    own."""
    holder = owner[g, b]
    if holder < 0 or holder == seat:
        return 0
    first = b // R.BARS_PER_DISTRICT * R.BARS_PER_DISTRICT
    held = (owner[g, first] == holder) + (owner[g, first + 1] == holder)
    held += owner[g, first + 2] == holder
    return R.TAB_TABLE[b, level[g, b], held]


@lazy_njit
def _worst_tab(owner, level, position, g, seat):
    """The highest tab ``seat`` could owe at the end of its next roll in game g (0 if none):
    ``BatchView.worst_tab_next_roll`` of one game."""
    p = position[g, seat]
    worst = 0
    for b in range(R.N_BARS):
        if odds.REACHABLE_BARS[p, b]:
            worst = max(worst, _tab_owed(owner, level, g, b, seat))
    return worst


@lazy_njit
def _buffer(owner, level, position, g, seat, base, risk):
    """Coins to keep in game g: base + risk x the worst tab of the next roll (base alone when
    risk is 0, as base + 0.0 x tab is base)."""
    if risk == 0:
        return base
    return base + risk * _worst_tab(owner, level, position, g, seat)


@lazy_njit
def _upgrades(coins, owner, level, position, games, seat, turns, base, risk):
    """Per row: of the bars the seat may upgrade (below Draught Tap, the level's cost at most
    coins - buffer), the one whose next level earns most from the others' expected visits
    (visits_by_others x tab_gain_of_upgrade), if that is above 0; ties the lowest bar; else -1."""
    out = np.full(games.size, -1, dtype=np.int8)
    high = base + risk * MAX_TAB
    candidate = np.empty(R.N_BARS, dtype=np.int64)
    candidate_gain = np.empty(R.N_BARS)
    for i in range(games.size):
        g = games[i]
        have = coins[g, seat]
        ceiling = have - base  # the most the budget can be (the buffer is at least base)
        n = 0
        best = -1
        best_gain = 0.0
        for b in range(R.N_BARS):
            lv = level[g, b]
            if owner[g, b] == seat and lv < R.MAX_LEVEL and R.UPGRADE_COST_TABLE[b] <= ceiling:
                first = b // R.BARS_PER_DISTRICT * R.BARS_PER_DISTRICT
                held = (
                    (owner[g, first] == seat)
                    + (owner[g, first + 1] == seat)
                    + (owner[g, first + 2] == seat)
                )
                rise = R.TAB_TABLE[b, lv + 1, held] - R.TAB_TABLE[b, lv, held]
                visits = 0.0
                for s in range(turns.size):
                    if s != seat:
                        visits += odds.EXPECTED_BAR_VISITS[turns[s], position[g, s], b]
                gain = visits * rise
                if gain > 0:
                    candidate[n] = b
                    candidate_gain[n] = gain
                    n += 1
                    if gain > best_gain:  # the first of equal gains stays
                        best = b
                        best_gain = gain
        if n == 0 or R.UPGRADE_COST_TABLE[best] <= have - high:  # affordable whatever the buffer
            out[i] = best
            continue
        budget = have - _buffer(owner, level, position, g, seat, base, risk)
        best = -1
        best_gain = 0.0
        for k in range(n):
            if R.UPGRADE_COST_TABLE[candidate[k]] <= budget and candidate_gain[k] > best_gain:
                best = candidate[k]
                best_gain = candidate_gain[k]
        out[i] = best
    return out


@lazy_njit
def _buys(coins, owner, level, position, games, bars, seat, base, risk):
    """Per row: buy iff the coins left after the price are at least the buffer."""
    out = np.zeros(games.size, dtype=np.bool_)
    high = base + risk * MAX_TAB
    for i in range(games.size):
        g = games[i]
        left = coins[g, seat] - R.PRICE_TABLE[bars[i]]
        if left >= high:
            out[i] = True
        elif left >= base:
            out[i] = left >= _buffer(owner, level, position, g, seat, base, risk)
    return out


@lazy_njit
def _takeovers(
    coins, owner, level, position, games, bars, seat, turns, base, risk, rival, margin, shortfall
):
    """Per row: take over iff the coins left after the cost are at least the buffer and the
    takeover's score (:func:`_priced_takeover_score`) is above ``margin``."""
    out = np.zeros(games.size, dtype=np.bool_)
    high = base + risk * MAX_TAB
    for i in range(games.size):
        g, bar = games[i], bars[i]
        left = coins[g, seat] - R.TAKEOVER_TABLE[bar, level[g, bar]]
        if left >= base and (
            _priced_takeover_score(
                coins, owner, level, position, g, bar, seat, turns, rival, shortfall
            )
            > margin
        ):
            out[i] = left >= high or left >= _buffer(owner, level, position, g, seat, base, risk)
    return out


@lazy_njit
def _shortfall(owner, level, position, g, seat, left):
    """The expected amount by which the tab of ``seat``'s next roll exceeds ``left`` coins in
    game g: the sum, bar by bar, of P(its next turn ends there) x max(tab - left, 0) over the
    other seats' bars."""
    p = position[g, seat]
    total = 0.0
    for b in range(R.N_BARS):
        tab = _tab_owed(owner, level, g, b, seat)
        if tab:  # every bar's tab is above 0: skips the free and its own
            total += odds.TURN[p, BAR_SPACE[b]] * max(tab - left, 0)
    return total


@lazy_njit
def _shortfalls(owner, level, position, games, seat, left):
    """Per row: :func:`_shortfall` of game ``games[i]`` with ``left[i]`` coins."""
    out = np.empty(games.size)
    for i in range(games.size):
        out[i] = _shortfall(owner, level, position, games[i], seat, left[i])
    return out


@lazy_njit
def _district_income(first, o0, o1, o2, l0, l1, l2, holder, skip_bar, add_bar, p0, p1, p2):
    """Expected tabs ``holder``'s bars of the district of bars first..first+2 (owners o, levels
    l) earn from visits p, with ``skip_bar`` taken away from it and ``add_bar`` given to it
    (-1: none)."""
    c0 = (o0 == holder and first != skip_bar) or first == add_bar
    c1 = (o1 == holder and first + 1 != skip_bar) or first + 1 == add_bar
    c2 = (o2 == holder and first + 2 != skip_bar) or first + 2 == add_bar
    held = c0 + c1 + c2
    total = 0.0
    if c0:
        total += R.TAB_TABLE[first, l0, held] * p0
    if c1:
        total += R.TAB_TABLE[first + 1, l1, held] * p1
    if c2:
        total += R.TAB_TABLE[first + 2, l2, held] * p2
    return total


@lazy_njit
def _takeover_score(owner, level, position, g, bar, me, turns, rival):
    """What taking over ``bar`` in game g is worth to ``me`` against its owner, in coins:
    (tabs it gains + tabs it stops paying - half the value it gives away)
    + rival * (tabs the owner loses - half the value it receives)."""
    victim = owner[g, bar]
    first = bar // R.BARS_PER_DISTRICT * R.BARS_PER_DISTRICT
    o0, o1, o2 = owner[g, first], owner[g, first + 1], owner[g, first + 2]
    l0, l1, l2 = level[g, first], level[g, first + 1], level[g, first + 2]
    m0 = m1 = m2 = 0.0  # the district's expected visits by everyone but me
    v0 = v1 = v2 = 0.0  # ... and by everyone but the victim
    for s in range(turns.size):
        t, p = turns[s], position[g, s]
        e0 = odds.EXPECTED_BAR_VISITS[t, p, first]
        e1 = odds.EXPECTED_BAR_VISITS[t, p, first + 1]
        e2 = odds.EXPECTED_BAR_VISITS[t, p, first + 2]
        if s != me:
            m0 += e0
            m1 += e1
            m2 += e2
        if s != victim:
            v0 += e0
            v1 += e1
            v2 += e2
    gain = _district_income(first, o0, o1, o2, l0, l1, l2, me, -1, bar, m0, m1, m2)
    gain -= _district_income(first, o0, o1, o2, l0, l1, l2, me, -1, -1, m0, m1, m2)
    held = (o0 == victim) + (o1 == victim) + (o2 == victim)
    mine_visits = odds.EXPECTED_BAR_VISITS[turns[me], position[g, me], bar]
    avoided = mine_visits * R.TAB_TABLE[bar, level[g, bar], held]
    loss = _district_income(first, o0, o1, o2, l0, l1, l2, victim, -1, -1, v0, v1, v2)
    loss -= _district_income(first, o0, o1, o2, l0, l1, l2, victim, bar, -1, v0, v1, v2)
    half = R.VALUE_TABLE[bar, level[g, bar]] / 2
    return gain + avoided - half + rival * (loss - half)


@lazy_njit
def _priced_takeover_score(coins, owner, level, position, g, bar, me, turns, rival, shortfall):
    """:func:`_takeover_score` less ``shortfall`` x the rise in the expected shortfall of the
    next roll (:func:`_shortfall`) that paying for the takeover brings."""
    score = _takeover_score(owner, level, position, g, bar, me, turns, rival)
    if shortfall == 0:
        return score
    have = coins[g, me]
    left = have - R.TAKEOVER_TABLE[bar, level[g, bar]]
    rise = _shortfall(owner, level, position, g, me, left)
    rise -= _shortfall(owner, level, position, g, me, have)
    return score - shortfall * rise


@lazy_njit
def _takeover_scores(coins, owner, level, position, games, bars, me, turns, rival, shortfall):
    """Per row: :func:`_priced_takeover_score` of ``bars[i]`` in game ``games[i]``."""
    out = np.empty(games.size)
    for i in range(games.size):
        out[i] = _priced_takeover_score(
            coins, owner, level, position, games[i], bars[i], me, turns, rival, shortfall
        )
    return out

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

import numpy as np

from barbaron import rules as R
from barbaron.strategy import BatchView, Strategy
from bots.common import coins, pick, upgradable


def _number(name: str, value: object, low: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < low:
        raise ValueError(f"{name} must be a number >= {low}, got {value!r}")
    return value


class Hard(Strategy):
    """Expected tabs from the others' dice odds, districts, and a risk-sized cash buffer."""

    def __init__(
        self, risk: float = 1.0, reserve: int = 60, rival: float = 1.0, margin: float = 0.0
    ) -> None:
        self.params = {
            "risk": _number("risk", risk, 0),
            "reserve": _number("reserve", reserve, 0),
            "rival": _number("rival", rival, 0),
            "margin": _number("margin", margin, -1e9),
        }

    def __repr__(self) -> str:
        return "hard:" + ",".join(f"{k}={v}" for k, v in self.params.items())

    # --- what it knows --------------------------------------------------------------------
    def buffer(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        """(k,) coins to keep in hand: reserve + risk x the worst tab of its next roll."""
        if view.turns_left(view.seat) == 0:  # no roll left: only Birthday cards can cost
            return np.full(games.size, R.BIRTHDAY_EACH * (view.rules.players - 1))
        worst = view.worst_tab_next_roll(games, view.seat)
        return self.params["reserve"] + self.params["risk"] * worst

    # --- decisions ------------------------------------------------------------------------
    def upgrade(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        allowed = upgradable(view, games, coins(view, games) - self.buffer(view, games))
        gain = view.visits_by_others(games, view.seat) * view.tab_gain_of_upgrade(games)
        return pick(allowed & (gain > 0), gain)

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        left = coins(view, games) - R.PRICE_TABLE[bars]
        return left >= self.buffer(view, games)

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        me, rows = view.seat, np.arange(games.size)
        value = view.bar_value(games, bars).astype(float)
        victim = view.owner[games, bars].astype(np.int64)
        district = bars[:, None] // R.BARS_PER_DISTRICT * R.BARS_PER_DISTRICT + np.arange(3)
        owner3 = view.owner[games[:, None], district]  # (k, 3)
        level3 = view.level[games[:, None], district]
        taken = district == bars[:, None]
        mine_before = owner3 == me
        victims_before = owner3 == victim[:, None]

        def income(own: np.ndarray, payers: np.ndarray) -> np.ndarray:
            """Expected tabs the bars ``own`` of the district earn from ``payers`` visits."""
            tab = R.TAB_TABLE[district, level3, own.sum(axis=1, keepdims=True)]
            return (np.where(own, tab, 0) * payers).sum(axis=1)

        paid_to_me = view.visits_by_others(games, me)[rows[:, None], district]
        paid_to_victim = view.visits_by_others(games, victim)[rows[:, None], district]
        my_gain = income(mine_before | taken, paid_to_me) - income(mine_before, paid_to_me)
        tab_now = R.TAB_TABLE[bars, view.level[games, bars], victims_before.sum(axis=1)]
        avoided = view.expected_bar_visits(games, me)[rows, bars] * tab_now
        victim_loss = income(victims_before, paid_to_victim) - income(
            victims_before & ~taken, paid_to_victim
        )
        score = (my_gain + avoided - value / 2) + self.params["rival"] * (victim_loss - value / 2)
        left = coins(view, games) - view.takeover_cost(games, bars)
        return (left >= self.buffer(view, games)) & (score > self.params["margin"])

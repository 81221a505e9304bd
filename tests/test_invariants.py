"""Invariants over many seeded random games on the reference engine (R9, R12, R19, conservation)."""

from collections import Counter

import numpy as np
from conftest import CoinFlipBot, GeneratorChance

from barbaron import rules as R
from barbaron.reference import BANK, Game, worths
from barbaron.rules import Rules

# Coins that enter or leave the table through the bank, by event kind: everything else moves
# between players (tabs, takeovers, Round on the house, Birthday) and sums to zero.
FROM_BANK = {"wages", "gain", "sale"}
TO_BANK = {"buy", "upgrade"}
PAYMENTS = {"pay", "broke"}


class CheckedGame(Game):
    """A game that checks the invariants after every turn slot."""

    def _turn(self, seat):
        before = sum(self.coins)
        first_event = len(self.events)
        super()._turn(seat)
        assert all(c >= 0 and c % 5 == 0 for c in self.coins), self.coins
        assert all(lv == 0 for o, lv in zip(self.owner, self.level, strict=True) if o == -1)
        assert all(0 <= lv <= R.MAX_LEVEL for lv in self.level)
        flow = 0
        for event in self.events[first_event:]:
            if event.kind in FROM_BANK:
                flow += event.amount
            elif event.kind in TO_BANK or (event.kind in PAYMENTS and event.to == BANK):
                flow -= event.amount
        assert sum(self.coins) - before == flow, self.events[first_event:]


def random_game(seed):
    rng = np.random.default_rng(seed)
    rules = Rules(
        players=int(rng.integers(2, 5)),
        rounds=int(rng.choice([3, 10, 15])),
        start_coins=int(rng.choice([30, 60, 200, 1000])),
        seat_bonus=int(rng.choice([0, 50, 100])),
    )
    bots = [CoinFlipBot(rng, p=float(rng.uniform(0.3, 1.0))) for _ in range(rules.players)]
    return CheckedGame(rules, bots, GeneratorChance(rng))


def test_invariants_hold_in_400_random_games():
    seen = Counter()
    for seed in range(400):
        game = random_game(seed)
        outcome = game.play()
        assert len(outcome.trace) == game.rules.turn_slots
        assert list(outcome.worth) == worths(outcome.coins, outcome.owner, outcome.level)
        assert max(outcome.worth) == outcome.worth[outcome.winners[0]]
        seen.update(e.kind for e in game.events)
        seen.update(
            e.text.removeprefix("draws a bar card: ") for e in game.events if e.kind == "card"
        )
    # the random games must actually reach the rare rules, or the invariants prove little
    for kind in ("sale", "broke", "takeover", "skip", "upgrade", "keg", *R.CARD_TITLES):
        assert seen[kind] > 0, f"no {kind!r} in 400 games"

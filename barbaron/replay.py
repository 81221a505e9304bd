"""Any game of a seeded batch run, replayed alone on the reference engine with its story."""

from __future__ import annotations

from collections.abc import Sequence

from barbaron.reference import Event, Game, Outcome
from barbaron.rules import Rules
from barbaron.strategy import Strategy
from barbaron.streams import SeededChance


def replay_game(
    rules: Rules, strategies: Sequence[Strategy], seed: int, game: int
) -> tuple[Outcome, list[Event]]:
    """Game ``game`` of a run under ``seed``: the same dice, cards and bot draws as the batch."""
    played = Game(rules, strategies, SeededChance(seed, game), seed=seed, game=game)
    return played.play(), played.events

"""Any game of a seeded batch run, replayed alone on the reference engine with its story."""

from __future__ import annotations

from collections.abc import Sequence

from barbaron.reference import Event, Game, Outcome
from barbaron.rules import Rules
from barbaron.strategy import InOneGame, Strategy
from barbaron.streams import SeededChance


def replay_game(
    rules: Rules, strategies: Sequence[Strategy], seed: int, game: int
) -> tuple[Outcome, list[Event]]:
    """Game ``game`` of a run under ``seed``: the same dice, cards and bot draws as the batch."""
    seats = [InOneGame(strategy, seed, game) for strategy in strategies]
    played = Game(rules, seats, SeededChance(seed, game))
    return played.play(), played.events

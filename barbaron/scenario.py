"""Scripted scenarios (``shared/spec/SCENARIO-FORMAT.md``): loading, validation, scripted chance."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from barbaron import rules as R
from barbaron.bots.threshold import ThresholdBot
from barbaron.reference import ChanceExhausted, Event, Game, Outcome
from barbaron.rules import Rules

POLICY_KEYS = ("buy", "takeover", "upgrade")


class ScenarioError(ValueError):
    """A scenario file that cannot be played; the message names the file and the problem."""


@dataclass(frozen=True)
class Scenario:
    """One scripted game: rules, a threshold policy per seat, the dice and the card order."""

    name: str
    path: str
    rules: Rules
    policies: tuple[ThresholdBot, ...]
    dice: tuple[tuple[int, int], ...]  # one pair per roll, in order
    deck: tuple[int, ...]  # card indices (R3) in draw order, blocks of 14
    expect: dict | None  # the expected outcome, keys as in Outcome.KEYS


class ScriptedChance:
    """Dice and shuffles read from a scenario, in order; running out raises ChanceExhausted."""

    def __init__(self, dice: Sequence[tuple[int, int]], deck: Sequence[int]) -> None:
        self._dice = dice
        self._deck = deck
        self.rolls = 0

    def roll(self) -> tuple[int, int]:
        if self.rolls >= len(self._dice):
            raise ChanceExhausted(
                f"too few dice: the game needs more than the {len(self._dice)} rolls given"
            )
        self.rolls += 1
        return self._dice[self.rolls - 1]

    def deck_order(self, shuffle: int) -> Sequence[int]:
        start = shuffle * R.N_CARDS
        if start + R.N_CARDS > len(self._deck):
            raise ChanceExhausted(
                f"too few cards: the game draws more than the {len(self._deck)} cards given"
            )
        return self._deck[start : start + R.N_CARDS]


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate one scenario file; raise ScenarioError naming the file and the problem."""
    path = str(path)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise ScenarioError(f"{path}: cannot read it: {e.strerror or e}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ScenarioError(f"{path}: not valid JSON: {e}") from None
    except RecursionError:
        raise ScenarioError(f"{path}: nested too deeply to be a scenario") from None
    try:
        return _parse(path, data)
    except (ValueError, TypeError, RecursionError) as e:
        raise ScenarioError(f"{path}: {e}") from None


def _parse(path: str, data: object) -> Scenario:
    if not isinstance(data, dict):
        raise ValueError("the file must hold one JSON object with rules, policies, dice and deck")
    for key in ("policies", "dice", "deck"):
        if key not in data:
            raise ValueError(f"missing key {key!r}")
    rules = Rules.from_dict(data.get("rules", {}))
    name = data.get("name", Path(path).stem)
    if not isinstance(name, str):
        raise ValueError("name must be a string")
    return Scenario(
        name=name,
        path=path,
        rules=rules,
        policies=_policies(data["policies"], rules.players),
        dice=_dice(data["dice"]),
        deck=_deck(data["deck"]),
        expect=_expect(data.get("expect")),
    )


def _policies(policies: object, players: int) -> tuple[ThresholdBot, ...]:
    if not isinstance(policies, list) or len(policies) != players:
        raise ValueError(f"policies must be a list of {players} objects, one per seat")
    bots = []
    for seat, policy in enumerate(policies):
        if not isinstance(policy, dict) or set(policy) != set(POLICY_KEYS):
            raise ValueError(
                f"policies[{seat}] must be an object with exactly the keys buy, takeover, upgrade"
            )
        for key in POLICY_KEYS:
            value = policy[key]
            if value is not None and (type(value) is not int or value < 0):
                raise ValueError(
                    f"policies[{seat}].{key} = {value!r}: a cushion is a whole "
                    "number >= 0, or null for never"
                )
        bots.append(ThresholdBot.from_policy(policy))
    return tuple(bots)


def _dice(dice: object) -> tuple[tuple[int, int], ...]:
    if not isinstance(dice, list):
        raise ValueError("dice must be a list of pairs like [3, 5]")
    for i, pair in enumerate(dice):
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError(f"dice[{i}] = {pair!r}: each roll is a pair of two dice like [3, 5]")
        for die in pair:
            if type(die) is not int or not 1 <= die <= 6:
                raise ValueError(f"dice[{i}] = {pair!r}: a die shows 1 to 6, not {die!r}")
    return tuple((a, b) for a, b in dice)


def _deck(deck: object) -> tuple[int, ...]:
    if not isinstance(deck, list):
        raise ValueError("deck must be a list of card ids")
    for i, card in enumerate(deck):
        if card not in R.CARD_INDEX:
            raise ValueError(f"deck[{i}] = {card!r} is not a card id (valid: {', '.join(R.CARDS)})")
    for start in range(0, len(deck), R.N_CARDS):
        block = deck[start : start + R.N_CARDS]
        if sorted(block) != sorted(R.CARDS):
            missing = sorted(set(R.CARDS) - set(block))
            twice = sorted({c for c in block if block.count(c) > 1})
            what = "; ".join(
                part
                for part in (
                    f"{len(block)} cards instead of 14" if len(block) != R.N_CARDS else "",
                    f"repeats {', '.join(twice)}" if twice else "",
                    f"lacks {', '.join(missing)}" if missing else "",
                )
                if part
            )
            raise ValueError(
                f"deck entries {start + 1}..{start + len(block)} are not a "
                f"permutation of the 14 cards ({what})"
            )
    return tuple(R.CARD_INDEX[card] for card in deck)


def _expect(expect: object) -> dict | None:
    if expect is None:
        return None
    if not isinstance(expect, dict):
        raise ValueError("expect must be an object")
    unknown = sorted(set(expect) - set(Outcome.KEYS))
    if unknown:
        valid = ", ".join(Outcome.KEYS)
        raise ValueError(f"expect has unknown key {unknown[0]!r} (valid: {valid})")
    return expect


def play_scenario(scenario: Scenario) -> tuple[Outcome, list[Event]]:
    """Play a scenario on the reference engine: its outcome and its event log."""
    game = Game(scenario.rules, scenario.policies, ScriptedChance(scenario.dice, scenario.deck))
    try:
        outcome = game.play()
    except ChanceExhausted as e:
        raise ScenarioError(f"{scenario.path}: {e} (ran out in round {game.round})") from None
    return outcome, game.events


def play_scenarios_batch(scenarios: Sequence[Scenario]) -> list[dict]:
    """Play scenarios on the batch engine, one batch per rules; outcomes as ``Outcome.to_dict``."""
    from barbaron.batch import Script, ScriptExhausted, play_batch
    from barbaron.bots.threshold import PerGameThreshold

    results: list[dict | None] = [None] * len(scenarios)
    groups: dict[Rules, list[int]] = {}
    for i, s in enumerate(scenarios):
        groups.setdefault(s.rules, []).append(i)
    for rules, members in groups.items():
        group = [scenarios[i] for i in members]
        seats = [
            PerGameThreshold([s.policies[seat] for s in group]) for seat in range(rules.players)
        ]
        script = Script.from_lists([s.dice for s in group], [s.deck for s in group])
        try:
            out = play_batch(
                rules, seats, seed=0, games=np.arange(len(group)), script=script, trace=True
            )
        except ScriptExhausted as e:
            raise ScenarioError(f"{group[e.row].path}: {e}") from None
        st = out.state
        for row, i in enumerate(members):
            worth = out.worth[row].tolist()
            best = max(worth)
            results[i] = {
                "coins": st.coins[row].tolist(),
                "position": st.position[row].tolist(),
                "owner": st.owner[row].tolist(),
                "level": st.level[row].tolist(),
                "worth": worth,
                "winners": [s for s, w in enumerate(worth) if w == best],
                "trace": out.trace[row].tolist(),
            }
    return results

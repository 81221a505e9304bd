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
from barbaron.strategy import AnswersInOne, BatchView, Decision, IllegalDecision, Strategy

POLICY_KEYS = ("buy", "takeover", "upgrade")
DECISION_KINDS = tuple(d.method for d in Decision)  # the "kind" of a recorded decision


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
    # barbaron's extension: every seat's decisions in play order, [slot, kind, answer] (the
    # seats then answer from it, not by their policies), and the bot spec of each seat
    decisions: tuple[tuple[int, str, int | bool], ...] | None = None
    bots: tuple[str, ...] | None = None

    def seats(self) -> tuple[Strategy, ...]:
        """The strategy of each seat: its recorded decisions, or else its threshold policy."""
        if self.decisions is None:
            return self.policies
        return tuple(
            RecordedDecisions(self.decisions, seat, self.rules.players)
            for seat in range(self.rules.players)
        )


class DecisionMismatch(IllegalDecision):
    """The game asks a decision that a scenario's ``decisions`` list does not hold."""


class RecordedDecisions(AnswersInOne):
    """One seat's answers read from a scenario's ``decisions`` (keyed by turn slot and kind: a
    slot has at most one upgrade and one landing decision). In a batch, every row gets the same
    answer: play one recorded scenario per batch."""

    def __init__(self, decisions, seat: int, players: int) -> None:
        self.answers = {  # (slot, kind) -> (answer, its index in 'decisions')
            (slot, kind): (answer, i)
            for i, (slot, kind, answer) in enumerate(decisions)
            if slot % players == seat
        }
        self.seat = seat

    def __repr__(self) -> str:
        return f"recorded(seat {self.seat})"

    def _answer(self, view: BatchView, games: np.ndarray) -> object:
        kind = view.decision.method
        try:
            answer, i = self.answers[(view.slot, kind)]
        except KeyError:
            raise DecisionMismatch(
                f"the game asks seat {self.seat} {'an' if kind[0] in 'aeiou' else 'a'} {kind} "
                f"decision in turn slot {view.slot} "
                "and 'decisions' holds no answer to it"
            ) from None
        if view.decision is Decision.UPGRADE and answer != -1:  # (R16: the engine's own check)
            from barbaron.batch import first_illegal_upgrade

            bad = first_illegal_upgrade(view, games[:1], np.array([answer]))
            if bad is not None:
                raise DecisionMismatch(
                    f"decisions[{i}]: seat {self.seat} upgrades bar {answer} in turn slot "
                    f"{view.slot} (round {view.round}), {bad[1]}"
                )
        return answer

    def _decide(self, view: BatchView, games: np.ndarray, bars: np.ndarray | None):
        dtype = np.int64 if view.decision is Decision.UPGRADE else bool
        return np.full(games.size, self._answer(view, games), dtype=dtype)


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
        decisions=_decisions(data.get("decisions"), rules),
        bots=_bots(data.get("bots"), rules.players),
    )


def _decisions(decisions: object, rules: Rules) -> tuple | None:
    if decisions is None:
        return None
    if not isinstance(decisions, list):
        raise ValueError("decisions must be a list of [slot, kind, answer]")
    seen = set()
    out = []
    for i, item in enumerate(decisions):
        if not isinstance(item, list) or len(item) != 3:
            raise ValueError(f"decisions[{i}] = {item!r}: each decision is [slot, kind, answer]")
        slot, kind, answer = item
        if type(slot) is not int or not 0 <= slot < rules.turn_slots:
            raise ValueError(f"decisions[{i}]: slot {slot!r} is not 0..{rules.turn_slots - 1}")
        if kind not in DECISION_KINDS:
            raise ValueError(f"decisions[{i}]: kind {kind!r} is not upgrade, buy or takeover")
        if kind == "upgrade":
            if type(answer) is not int or not -1 <= answer < R.N_BARS:
                raise ValueError(f"decisions[{i}]: an upgrade answers a bar 0..11 or -1")
        elif type(answer) is not bool:
            raise ValueError(f"decisions[{i}]: a {kind} answers true or false")
        if (slot, kind) in seen:
            raise ValueError(f"decisions[{i}]: a second {kind} decision in turn slot {slot}")
        seen.add((slot, kind))
        out.append((slot, kind, answer))
    return tuple(out)


def _bots(bots: object, players: int) -> tuple[str, ...] | None:
    if bots is None:
        return None
    if (
        not isinstance(bots, list)
        or len(bots) != players
        or not all(isinstance(b, str) for b in bots)
    ):
        raise ValueError(f"bots must be a list of {players} bot specs, one per seat")
    return tuple(bots)


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
    game = Game(scenario.rules, scenario.seats(), ScriptedChance(scenario.dice, scenario.deck))
    try:
        outcome = game.play()
    except ChanceExhausted as e:
        raise ScenarioError(f"{scenario.path}: {e} (ran out in round {game.round})") from None
    except IllegalDecision as e:  # a recorded answer the game did not ask, or an illegal one
        raise ScenarioError(f"{scenario.path}: {e}") from None
    return outcome, game.events


def play_scenarios_batch(scenarios: Sequence[Scenario]) -> list[dict]:
    """Play scenarios on the batch engine, one batch per rules; outcomes as ``Outcome.to_dict``."""
    from barbaron.batch import Script, ScriptExhausted, play_batch
    from barbaron.bots.threshold import PerGameThreshold

    results: list[dict | None] = [None] * len(scenarios)
    groups: dict[object, list[int]] = {}
    for i, s in enumerate(scenarios):  # a scenario with recorded decisions plays alone
        groups.setdefault(s.rules if s.decisions is None else i, []).append(i)
    for members in groups.values():
        group = [scenarios[i] for i in members]
        rules = group[0].rules
        if group[0].decisions is not None:
            seats = list(group[0].seats())
        else:
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
        except IllegalDecision as e:  # recorded decisions: a scenario that plays alone
            raise ScenarioError(f"{group[0].path}: {e}") from None
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

"""Check that a strategy keeps the contract, as Gymnasium's ``check_env`` checks an environment.

    >>> from barbaron.testing import check_strategy
    >>> report = check_strategy("my_bot.py:MyBot")
    >>> report.passed
    >>> for result in report.results: print(result)

:func:`check_strategy` plays a few thousand seeded games on eleven tables (2, 3 and 4
players, the usual money, tight money and millions of coins, a one-round game, the checked bot
"X" in every seat, alone and with built-in bots) and reports one :class:`CheckResult` per
check:

1. ``legal answers``: answers of the right shape and dtype, legal upgrades, no exception, the
   ``games`` and ``bars`` arguments left as they were;
2. ``determinism``: the same seed gives the same games again with the same instance, with fresh
   instances (one per seat) and in a fresh Python process;
3. ``batch independence``: a game is the same played alone as in its batch, with the
   batch's rows shuffled, and in one batch as large as the whole check (``--games``);
4. ``order independence``: a game is the same when two lineups share a batch row by row
   (:class:`~barbaron.strategy.Mixed`), whichever lineup's strategies are asked first;
5. ``no global random generator``: no use of ``random``'s or ``numpy.random``'s global state
   (nor numba's, inside compiled code): their legacy functions are watched during the check and
   the states compared before and after;
6. ``twin`` (with ``twin=SPEC``): the two specs, e.g. a scalar and a vectorized form of one bot,
   play identical games.

A failing check names the first game that shows it (seed, game index, lineup, rules) and, where
it can, the first answer that differs. ``python -m barbaron.testing SPEC --seed S --games N``
prints a digest per game: the fresh-process half of the determinism check.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import pickle
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from barbaron.config import CHECK_GAMES, MAX_INDEX
from barbaron.errors import UsageError
from barbaron.rules import Rules
from barbaron.strategy import (
    SPEC_ATTRIBUTE,
    AnswersInOne,
    Decision,
    IllegalDecision,
    Mixed,
    ScalarStrategy,
    Strategy,
    answering,
    checked_answer,
    describe,
    frame_text,
    handed,
    is_strategy,
    raised_where,
    rules_change,
)

__all__ = ["CHECKS", "DEFAULT_GAMES", "CheckReport", "CheckResult", "check_strategy"]

DEFAULT_GAMES = CHECK_GAMES  # distinct games of a check; each check replays them its way
ALONE_GAMES = 270  # of those, how many the batch check replays one at a time
REFERENCE_GAMES = 2  # per table, how many it plays again on the reference engine
MAX_GAMES = 200_000  # the check keeps every game's coins after every turn, twice

LEGAL = "legal answers"
DETERMINISM = "determinism"
BATCH = "batch independence"
ORDER = "order independence"
GLOBAL_RANDOM = "no global random generator"
TWIN = "twin"
CHECKS = (LEGAL, DETERMINISM, BATCH, ORDER, GLOBAL_RANDOM, TWIN)  # in report order

X = None  # the checked bot's place in a table's lineup
COMPANIONS = ("greedy", "easy", "normal", "hard")  # built-in bots it meets

# (rules, lineup): every seat of 2-, 3- and 4-player tables; tight money for forced sales; a
# one-round game (every decision is a last one) and millions of coins (past 16-bit numbers and
# lookups sized for usual games)
_TABLE_SPECS: tuple[tuple[Rules, tuple[str | None, ...]], ...] = (
    (Rules(), (X, X, X, X)),
    (Rules(start_coins=200, seat_bonus=0), (X, X, X, X)),
    (Rules(players=3, start_coins=150, seat_bonus=0), (X, X, X)),
    (Rules(players=2, rounds=15, start_coins=100, seat_bonus=0), (X, X)),
    (Rules(), (X, "greedy", "easy", "normal")),
    (Rules(start_coins=300, seat_bonus=0), ("greedy", X, "hard", "easy")),
    (Rules(players=3, start_coins=200, seat_bonus=0), ("easy", "greedy", X)),
    (Rules(start_coins=250, seat_bonus=50), ("normal", "easy", "greedy", X)),
    (Rules(players=2, start_coins=150, seat_bonus=0), ("greedy", X)),
    (Rules(players=3, rounds=1, start_coins=300, seat_bonus=0), (X, X, "greedy")),
    (Rules(start_coins=1_000_000, seat_bonus=1_000_000), (X, "greedy", X, "hard")),
)
TABLES = len(_TABLE_SPECS)

_FIELDS = ("coins", "owner", "level", "position", "skip", "worth", "trace")  # compared per game
_FIELD_NAMES = {
    "coins": "coins",
    "owner": "owners",
    "level": "levels",
    "position": "positions",
    "skip": "skip flags",
    "worth": "worth",
}


# --- the report -----------------------------------------------------------------------------
@dataclass(frozen=True)
class CheckResult:
    """One check's verdict: its name, passed or not, and what it saw (the first failing game)."""

    name: str
    passed: bool
    detail: str
    skipped: bool = False  # not run (an earlier check failed so that it could not be)
    seconds: float = 0.0

    @property
    def status(self) -> str:
        """PASS, FAIL or SKIP."""
        return "SKIP" if self.skipped else "PASS" if self.passed else "FAIL"

    def __str__(self) -> str:
        return f"{self.status} {self.name}: {self.detail}"


@dataclass(frozen=True)
class CheckReport:
    """Every check's result for one spec; ``passed`` when all of them passed."""

    spec: str
    results: list[CheckResult]
    twin: str | None = None
    seed: int = 0
    games: int = DEFAULT_GAMES
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        """True if every check ran and passed."""
        return all(r.passed for r in self.results)

    @property
    def failed(self) -> list[CheckResult]:
        """The checks that ran and failed."""
        return [r for r in self.results if not r.passed and not r.skipped]

    def result(self, name: str) -> CheckResult:
        """The result of the check called ``name``."""
        for r in self.results:
            if r.name == name:
                return r
        raise KeyError(name)

    def summary(self) -> str:
        """The closing line: all passed, or which failed."""
        n = len(self.results)
        took = f"{self.games:,} games, seed {self.seed}, {self.seconds:.1f} s"
        if self.passed:
            return f"all {n} checks passed for {self.spec} ({took})"
        failed = self.failed
        skipped = [r for r in self.results if r.skipped]
        text = f"{len(failed)} of {n} checks failed for {self.spec}: " + ", ".join(
            r.name for r in failed
        )
        if skipped:
            text += f"; {len(skipped)} skipped"
        return f"{text} ({took})"

    def lines(self) -> list[str]:
        """One line per check, then the closing line."""
        return [str(r) for r in self.results] + [self.summary()]

    def __str__(self) -> str:
        return "\n".join(self.lines())


# --- tables and games -----------------------------------------------------------------------
@dataclass(frozen=True)
class _Table:
    """A batch of the check: rules, a lineup (X the checked bot) and consecutive game indices."""

    rules: Rules
    lineup: tuple[str | None, ...]
    first: int  # first game index
    n: int  # games

    @property
    def games(self) -> np.ndarray:
        return np.arange(self.first, self.first + self.n, dtype=np.int64)

    def lineup_text(self, lineup: Sequence[str | None] | None = None) -> str:
        return " ".join("X" if s is X else s for s in (lineup or self.lineup))

    def where(self, seed: int, game: int, lineup: Sequence[str | None] | None = None) -> str:
        """``game 17 (seed 0, lineup X X X X, 4 players, 10 rounds, 1000 coins +100/seat)``"""
        r = self.rules
        return (
            f"game {game} (seed {seed}, lineup {self.lineup_text(lineup)}, {r.players} players, "
            f"{r.rounds} rounds, {r.start_coins} coins +{r.seat_bonus}/seat)"
        )


def _tables(games: int) -> list[_Table]:
    """The check's tables, ``games`` games in all, split as evenly as can be."""
    tables, first = [], 0
    for i, (rules, lineup) in enumerate(_TABLE_SPECS):
        n = games // TABLES + (1 if i < games % TABLES else 0)
        tables.append(_Table(rules, lineup, first, n))
        first += n
    return tables


def _rotated(lineup: tuple[str | None, ...]) -> tuple[str | None, ...]:
    """The lineup moved one seat on: seat s holds what seat s - 1 held."""
    return lineup[-1:] + lineup[:-1]


# --- watching the checked bot ---------------------------------------------------------------
def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class _BotFailure(Exception):
    """The checked bot raised or answered something the contract forbids, in ``game``."""

    def __init__(self, text: str, game: int | None, round_: int, seat: int) -> None:
        super().__init__(text)
        self.text, self.game, self.round, self.seat = text, game, round_, seat


class _Log:
    """What the checked bot was asked and answered in one batch, and what it saw happen."""

    def __init__(self) -> None:
        self.entries: list[tuple[int, int, int, np.ndarray, np.ndarray, np.ndarray]] = []
        self.asked = np.zeros(3, dtype=np.int64)  # questions per Decision
        self.yes = np.zeros(3, dtype=np.int64)  # upgrades chosen, buys, takeovers
        self._owned: np.ndarray | None = None  # per batch row: bars owned when last seen
        self._sold: np.ndarray | None = None  # per batch row: a bar went back to the bank

    def observe(self, owner: np.ndarray) -> None:
        """Note the bars owned now; a bar goes back to the bank only in a forced sale (R12)."""
        owned = (owner >= 0).sum(axis=1)
        if self._owned is None:
            self._owned = np.zeros_like(owned)
            self._sold = np.zeros(owned.shape, dtype=bool)
        self._sold |= owned < self._owned
        self._owned = owned

    def record(self, view, games: np.ndarray, bars: np.ndarray | None, answer) -> None:
        d = int(view.decision)
        answers = np.asarray(answer).astype(np.int64)
        self.asked[d] += games.size
        self.yes[d] += int((answers >= 0).sum() if d == Decision.UPGRADE else answers.sum())
        no_bars = np.full(games.size, -1, dtype=np.int64)
        self.entries.append(
            (
                view.slot,
                view.seat,
                d,
                view.game[games].astype(np.int64),
                no_bars if bars is None else bars.astype(np.int64),
                answers,
            )
        )

    def sold_games(self) -> int:
        return 0 if self._sold is None else int(self._sold.sum())

    def answers_of(self, game: int) -> list[tuple[int, int, int, int, int]]:
        """(slot, seat, decision, bar, answer) of every question about ``game``, in order."""
        out = []
        for slot, seat, d, games, bars, answers in self.entries:
            for i in np.flatnonzero(games == game):
                out.append((slot, seat, d, int(bars[i]), int(answers[i])))
        return sorted(out)


def _own_rules(view):
    """``view`` with a copy of its rules: what a checked bot writes there stays its own (the
    tables' rules serve every check of the process), and is reported."""
    return dataclasses.replace(view, rules=dataclasses.replace(view.rules))


class _Probe(AnswersInOne):
    """The checked bot as the engine sees it: every call passed on unchanged, its answers
    checked (shape, dtype, legal upgrades, arguments untouched) and logged."""

    def __init__(self, bot: object, log: _Log) -> None:
        self.bot, self.log = bot, log

    def __repr__(self) -> str:
        return repr(self.bot)

    def _decide(self, view, games: np.ndarray, bars: np.ndarray | None):
        decision = view.decision
        name = f"{describe(self.bot)}.{answering(self.bot, decision)}"  # (as play names it)
        self.log.observe(view.owner)
        args = (view, games) if bars is None else (view, games, bars)
        games_before = games.copy()
        bars_before = None if bars is None else bars.copy()

        def fail(text: str, row: int = 0) -> _BotFailure:
            game = int(view.game[games_before[row]]) if games_before.size else None
            return _BotFailure(text, game, view.round, view.seat)

        shown = _own_rules(view)
        try:
            answer = getattr(self.bot, decision.method)(shown, *args[1:])
        except (Exception, SystemExit) as e:
            if isinstance(e, IllegalDecision) and isinstance(self.bot, ScalarStrategy):
                # its own check of one game's answer: said once, with that game
                raise _BotFailure(e.message, e.game, view.round, view.seat) from None
            raise self._which_row_raises(view, games_before, bars_before, name, e) from e
        if change := rules_change(shown.rules, view.rules):
            raise fail(f"{name} {change}")
        if not np.array_equal(games, games_before) or (
            bars is not None and not np.array_equal(bars, bars_before)
        ):
            changed = "games" if not np.array_equal(games, games_before) else "bars"
            raise fail(f"{name} changed its {changed} argument in place")
        try:
            choice = checked_answer(self.bot, decision, answer, games.size)
        except IllegalDecision as e:
            many = f"; asked about {games.size} games at once" if games.size > 1 else ""
            raise fail(f"{e}{many}") from None
        if decision is Decision.UPGRADE:
            from barbaron.batch import first_illegal_upgrade

            bad = first_illegal_upgrade(view, games, choice)
            if bad is not None:
                row, why = bad
                raise fail(f"{name} answered bar {int(choice[row])}, {why}", row)
        self.log.record(view, games, bars, choice)
        return answer

    def _which_row_raises(self, view, games, bars, name, error) -> _BotFailure:
        """The failure of a call that raised, naming the first game that raises alone."""
        text = f"{name} raised {_one_line(error)}{raised_where(error, self.bot)}"
        if games.size > 1:
            for i in range(games.size):
                try:  # (read-only copies, as the engine hands them)
                    args = (_own_rules(view), handed(games[i : i + 1]))
                    if bars is not None:
                        args += (handed(bars[i : i + 1]),)
                    getattr(self.bot, view.decision.method)(*args)
                except (Exception, SystemExit):
                    return _BotFailure(text, int(view.game[games[i]]), view.round, view.seat)
            text += f" when asked about {games.size} games at once (but not about any one alone)"
        game = int(view.game[games[0]]) if games.size else None
        return _BotFailure(text, game, view.round, view.seat)


# --- playing --------------------------------------------------------------------------------
@dataclass
class _Played:
    """One batch as played: per row its game index and final state, or the error that ended it."""

    table: _Table
    lineup: tuple[str | None, ...]  # as played (the table's, or another for the order check)
    games: np.ndarray
    state: dict[str, np.ndarray] | None
    log: _Log
    error: str | None = None

    def where(self, seed: int, game: int) -> str:
        return self.table.where(seed, game, self.lineup)


class _Cast:
    """Who plays: the companions (built once) and the checked bot's instances (``make``)."""

    def __init__(self, make: Callable[[], Strategy], companions: dict[str, Strategy]) -> None:
        self.make, self.companions = make, companions

    def fresh(self) -> Strategy:
        return self.make()

    def seats(self, lineup, log: _Log, bot: Callable[[int], object] | object) -> list:
        """One strategy per seat: the checked bot (``bot`` or ``bot(seat)``) in X's seats."""
        out = []
        for seat, spec in enumerate(lineup):
            if spec is X:
                instance = bot(seat) if callable(bot) and not is_strategy(bot) else bot
                out.append(_Probe(instance, log))
            else:
                out.append(self.companions[spec])
        return out


def _subject(bot: object) -> tuple[str, Callable[[], Strategy], str | None]:
    """What :func:`check_strategy` checks, from a spec, a strategy class or an instance: its
    name, a maker of fresh instances, and the spec a fresh process builds it from (None for a
    class or instance no other process can import: one of a notebook or a script)."""
    from barbaron.registry import BotSpecError, class_spec, split_spec

    if isinstance(bot, str):  # (a class of __main__, also inside it: no other process has it)
        from barbaron.plugins import plugin_hashes

        session = any(name.startswith("__main__:") for name in plugin_hashes([bot]))
        return bot, lambda: _build(bot), None if session else bot
    cls = bot if isinstance(bot, type) else type(bot)
    if not is_strategy(bot):
        raise UsageError(
            "check_strategy takes a bot spec (a string like 'normal'), a strategy class or a "
            f"strategy instance, got {bot!r}"
        )
    name = class_spec(cls)
    if isinstance(bot, type):

        def make() -> Strategy:
            try:
                return cls()
            except Exception as e:
                raise BotSpecError(
                    f"bot {name!r}: {cls.__name__}() raised {_one_line(e)}"
                ) from None

        importable = cls.__module__ != "__main__" and split_spec(name) == (name, "")
        return name, make, name if importable and _builds(name, cls) else None
    import copy

    def copied() -> Strategy:
        try:
            return copy.deepcopy(bot)
        except Exception as e:
            raise BotSpecError(f"{name} instance: copying it raised {_one_line(e)}") from None

    return f"{name} instance", copied, _instance_spec(bot, name)


def _instance_spec(bot: object, name: str) -> str | None:
    """The spec another process builds ``bot`` from: its importable class and the parameters it
    was built with (None where there is none, or it would build another bot: parameters a
    spec cannot write, or state changed after construction, e.g. trained weights)."""
    from barbaron.registry import BotSpecError, bot_arguments, make_bot, split_spec
    from barbaron.strategy import format_value, same_arguments

    params = bot_arguments(bot)
    if type(bot).__module__ == "__main__" or split_spec(name) != (name, "") or params is None:
        return None
    spec = name + "".join(
        f"{':' if i == 0 else ','}{k}={format_value(v)}" for i, (k, v) in enumerate(params.items())
    )
    try:
        again = make_bot(spec)
    except BotSpecError:
        return None
    same = (
        type(again) is type(bot)
        and same_arguments(bot_arguments(again), params)
        and _state(again) == _state(bot)
    )
    return spec if same else None


def _state(bot: object) -> bytes | None:
    """A bot's attributes as bytes, to compare two of them (None if they do not pickle)."""
    import pickle

    try:
        return pickle.dumps(sorted((k, v) for k, v in vars(bot).items() if k != SPEC_ATTRIBUTE))
    except Exception:
        return None


def _builds(spec: str, cls: type) -> bool:
    """Whether ``spec`` builds an instance of ``cls`` here (then a fresh process can too; a
    plugin file is loaded anew, so it is the same class by module and name)."""
    from barbaron.registry import BotSpecError, make_bot

    try:
        built = type(make_bot(spec))
        return (built.__module__, built.__qualname__) == (cls.__module__, cls.__qualname__)
    except BotSpecError:
        return False


def _build(spec: str, role: str = "") -> Strategy:
    """``make_bot(spec)``; any failure other than a bad spec is reported as one too, its
    message starting with ``role`` (which bot of the check it is)."""
    from barbaron.registry import BotSpecError, make_bot

    try:
        return make_bot(spec)
    except BotSpecError as e:
        if not role:
            raise
        raise BotSpecError(f"{role}{e}") from None
    except Exception as e:  # the bot's constructor failed in a way make_bot does not expect
        raise BotSpecError(f"{role}bot {spec!r}: building it raised {_one_line(e)}") from None


def _play(
    table: _Table,
    seed: int,
    seats: list,
    log: _Log,
    games: np.ndarray | None = None,
    lineup: tuple[str | None, ...] | None = None,
    reference: bool = False,
) -> _Played:
    """``table``'s games (or ``games``) played by ``seats`` in the batch engine, or one at a
    time in the reference engine; a failure is kept as the played batch's error."""
    from barbaron.batch import play_batch

    games = table.games if games is None else np.asarray(games, dtype=np.int64)
    lineup = table.lineup if lineup is None else lineup
    try:
        if reference:
            state = _reference_state(table.rules, seats, seed, games)
        else:
            out = play_batch(table.rules, seats, seed, games, trace=True)
            st = out.state
            state = {
                "coins": st.coins,
                "owner": st.owner,
                "level": st.level,
                "position": st.position,
                "skip": st.skip,
                "worth": out.worth,
                "trace": out.trace,
            }
    except (Exception, SystemExit) as e:
        f = _bot_failure(e)
        if f is not None:  # the probe's finding (the engine may have wrapped it)
            game = "a batch" if f.game is None else table.where(seed, f.game, lineup)
            error = f"{game}, round {f.round}, seat {f.seat}: {f.text}"
        else:  # a companion or the engine itself objected
            first = table.where(seed, int(games[0]), lineup) if games.size else "an empty batch"
            error = f"the batch of {first} raised {_one_line(e)}"
        return _Played(table, lineup, games, None, log, error)
    log.observe(state["owner"])
    return _Played(table, lineup, games, state, log)


def _reference_state(rules: Rules, seats: list, seed: int, games: np.ndarray) -> dict:
    """``games`` played one at a time on the reference engine, as :func:`_play` keeps them."""
    from barbaron.replay import seeded_game

    rows = []
    for g in games.tolist():
        game = seeded_game(rules, seats, seed, g)
        outcome = game.play()
        rows.append(dict(outcome.to_dict(), skip=game.skip))
    return {f: np.array([row[f] for row in rows]) for f in _FIELDS}


def _bot_failure(error: BaseException | None) -> _BotFailure | None:
    """The probe's finding behind ``error``, if any (through ``raise ... from`` chains)."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, _BotFailure):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def _play_all(tables: list[_Table], seed: int, cast: _Cast, bot: object) -> list[_Played]:
    """Every table once, ``bot`` in X's seats; stops at the first error (the rest would only
    repeat it)."""
    played = []
    for table in tables:
        log = _Log()
        p = _play(table, seed, cast.seats(table.lineup, log, bot), log)
        played.append(p)
        if p.error:
            break
    return played


def _first_error(played: list[_Played]) -> str | None:
    return next((p.error for p in played if p.error), None)


# --- comparing ------------------------------------------------------------------------------
def _round_seat(slot: int, players: int) -> str:
    round_, seat = divmod(slot, players)
    return f"round {round_ + 1}, seat {seat}"


def _answer_text(decision: int, bar: int, answer: int) -> str:
    if decision == Decision.UPGRADE:
        return "none" if answer < 0 else f"bar {answer}"
    return "yes" if answer else "no"


def _explain(a: _Played, ra: int, b: _Played, rb: int) -> str:
    """How row ``ra`` of ``a`` and row ``rb`` of ``b`` (one game) differ."""
    players = a.table.rules.players
    parts = []
    for f in ("coins", "owner", "level", "position", "skip", "worth"):
        x, y = a.state[f][ra], b.state[f][rb]
        if not np.array_equal(x, y):
            parts.append(f"{_FIELD_NAMES[f]} {x.astype(int).tolist()} vs {y.astype(int).tolist()}")
            break
    ta, tb = a.state["trace"][ra], b.state["trace"][rb]
    slots = np.flatnonzero((ta != tb).any(axis=1))
    if slots.size:
        s = int(slots[0])
        parts.append(f"coins first differ after turn slot {s} ({_round_seat(s, players)})")
    game = int(a.games[ra])
    qa, qb = a.log.answers_of(game), b.log.answers_of(game)

    def question(q: tuple[int, int, int, int, int]) -> str:
        slot, _, d, bar, _ = q
        about = f" bar {bar}" if bar >= 0 else ""
        return f"{_round_seat(slot, players)}, {Decision(d).method}{about}"

    for x, y in zip(qa, qb, strict=False):
        if x[:4] != y[:4]:
            parts.append(f"first different question: {question(x)} vs {question(y)}")
            break
        if x != y:
            d, bar = x[2], x[3]
            parts.append(
                f"first different answer: {question(x)}: {_answer_text(d, bar, x[4])} vs "
                f"{_answer_text(d, bar, y[4])}"
            )
            break
    return "; ".join(parts) if parts else "the games differ"


def _difference(
    base: _Played, other: _Played, seed: int, how: str, rows: np.ndarray | None = None
) -> str | None:
    """Where ``other`` (its rows ``rows``, default all) first differs from ``base``, which holds
    its table's games in order: the game, ``how`` it was played, and what differs; or None."""
    rows = np.arange(other.games.size) if rows is None else rows
    if rows.size == 0:
        return None
    base_rows = other.games[rows] - base.table.first
    bad = np.zeros(rows.size, dtype=bool)
    for f in _FIELDS:
        x, y = base.state[f][base_rows], other.state[f][rows]
        bad |= (x != y).reshape(rows.size, -1).any(axis=1)
    if not bad.any():
        return None
    candidates = np.flatnonzero(bad)
    i = candidates[np.argmin(other.games[rows][candidates])]
    game = int(other.games[rows[i]])
    what = _explain(base, int(base_rows[i]), other, int(rows[i]))
    return f"{base.where(seed, game)} differs {how}: {what}"


# --- digests (the fresh-process check) ------------------------------------------------------
def _digests(played: _Played) -> list[str]:
    """A short hash of each game's final state and coins trace."""
    out = []
    for i in range(played.games.size):
        h = hashlib.blake2b(digest_size=8)
        for f in _FIELDS:
            h.update(np.ascontiguousarray(played.state[f][i]).tobytes())
        out.append(h.hexdigest())
    return out


def _digest_lines(spec: str, seed: int, games: int) -> tuple[list[str], str | None]:
    """``digest GAME HASH`` lines of the check's first pass, played as it plays them."""
    bot = _build(spec)
    cast = _Cast(lambda: _build(spec), {c: _build(c) for c in COMPANIONS})
    lines = []
    for p in _play_all(_tables(games), seed, cast, bot):
        if p.error:
            return lines, p.error
        lines += [f"digest {g} {d}" for g, d in zip(p.games.tolist(), _digests(p), strict=True)]
    return lines, None


class _FreshProcess:
    """``python -m barbaron.testing SPEC`` running beside the check, to compare digests."""

    def __init__(self, spec: str, seed: int, games: int) -> None:
        command, env = fresh_python("barbaron.testing", spec, "--seed", str(seed))
        command += ["--games", str(games)]
        env["PYTHONHASHSEED"] = "random"  # a bot that depends on hash() order shows it
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
        )

    def result(self, timeout: float) -> tuple[dict[int, str] | None, str | None]:
        """(digest by game, None) or (None, why not)."""
        try:
            out, err = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            return None, f"did not finish within {timeout:.0f} s"
        if self.process.returncode != 0:
            lines = [line for line in err.splitlines() if line.strip()]
            last = lines[-1].strip() if lines else f"exit status {self.process.returncode}"
            return None, last.removeprefix("error: ")
        digests = {}
        for line in out.splitlines():  # anything else the bot printed is left out
            words = line.split()
            if len(words) == 3 and words[0] == "digest" and words[1].isdigit():
                digests[int(words[1])] = words[2]
        return digests, None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


# --- global random generators ---------------------------------------------------------------
class _RandomWatch:
    """While active: every call of ``random``'s and ``numpy.random``'s global-state functions
    is noted (name, count, first caller), and the states are compared before and after."""

    def __init__(self) -> None:
        self.uses: dict[str, list] = {}  # name -> [calls, first caller]
        self.changed: list[str] = []
        self._patched: list[tuple[object, str, object, object]] = []  # (where, name, was, is)
        self._active = False
        self._numba_noted = False  # numba's generators noted too (games were to be played)

    def __enter__(self) -> _RandomWatch:
        try:
            self._install()
        except BaseException:
            self._restore()
            raise
        self._before = self._states()
        self._active = True
        return self

    def before_games(self) -> None:
        """Note numba's generators too, before the first game: the games load numba anyway,
        and a spec refused before then is refused without its second of loading. numba
        compiles with the functions unwatched: it knows ``np.random.random`` by identity, so a
        kernel that draws from it would not compile (an error the bot does not have) where a
        cached one runs and changes numba's generator, which is what the watch reports."""
        from numba.core.dispatcher import Dispatcher

        self._before.update(self._numba_states())
        self._numba_noted = True
        compile_ = Dispatcher.compile
        watch = self

        def compile_unwatched(dispatcher, signature):
            with watch._unwatched():
                return compile_(dispatcher, signature)

        self._patched.append((Dispatcher, "compile", compile_, compile_unwatched))
        Dispatcher.compile = compile_unwatched

    @contextlib.contextmanager
    def _unwatched(self) -> Iterator[None]:
        """The original functions back for a while (a kernel's compilation)."""
        patched = list(self._patched)
        for where, name, was, _ in reversed(patched):
            setattr(where, name, was)
        try:
            yield
        finally:
            if self._patched:  # (still watching)
                for where, name, _, is_ in patched:
                    setattr(where, name, is_)

    def _install(self) -> None:
        import random

        legacy = getattr(getattr(np.random, "mtrand", None), "_rand", None)
        for name in dir(np.random):
            fn = getattr(np.random, name)
            extra = name in ("seed", "ranf", "sample", "set_bit_generator")
            bound = legacy is not None and getattr(fn, "__self__", None) is legacy
            if name != "get_state" and (bound or extra):
                self._patch(np.random, name, f"numpy.random.{name}", fn)
        self._patch_default_rng()
        for name in dir(random):
            fn = getattr(random, name)
            if name != "getstate" and getattr(fn, "__self__", None) is random._inst:
                self._patch(random, name, f"random.{name}", fn)

    def __exit__(self, *exc: object) -> None:
        self._active = False
        after = self._states()
        if self._numba_noted:
            after |= self._numba_states()
        self.changed = [k for k, v in self._before.items() if after.get(k) != v]
        self._restore()

    def _restore(self) -> None:
        for where, name, was, _ in reversed(self._patched):
            setattr(where, name, was)
        self._patched.clear()

    def _note(self, name: str) -> None:
        if not self._active:
            return
        entry = self.uses.get(name)
        if entry is None:
            frame = sys._getframe(2)
            self.uses[name] = [1, frame_text(frame.f_code, frame.f_lineno)]
        else:
            entry[0] += 1

    def _patch(self, module: object, name: str, label: str, fn: Callable) -> None:
        def watched(*args, **kwargs):
            self._note(label)
            return fn(*args, **kwargs)

        watched.__name__ = getattr(fn, "__name__", name)
        watched.__doc__ = getattr(fn, "__doc__", None)
        watched.__wrapped__ = fn
        self._patched.append((module, name, fn, watched))
        setattr(module, name, watched)

    def _patch_default_rng(self) -> None:
        original = np.random.default_rng

        def default_rng(seed=None):
            if seed is None and not _importing():  # a module loading (scipy.stats does) is not
                self._note("numpy.random.default_rng() without a seed")  # the bot drawing
            return original(seed)

        default_rng.__doc__ = original.__doc__
        default_rng.__wrapped__ = original
        self._patched.append((np.random, "default_rng", original, default_rng))
        np.random.default_rng = default_rng

    @staticmethod
    def _states() -> dict[str, object]:
        import random

        return {
            "numpy's global random state (numpy.random.get_state())": pickle.dumps(
                np.random.get_state()
            ),
            "the random module's state (random.getstate())": random.getstate(),
        }

    @staticmethod
    def _numba_states() -> dict[str, object]:
        """numba's own generators for np.random / random inside compiled code."""
        try:
            from numba import _helperlib as helper

            return {
                "numba's np.random state (np.random in compiled code)": helper.rnd_get_state(
                    helper.rnd_get_np_state_ptr()
                ),
                "numba's random state (random in compiled code)": helper.rnd_get_state(
                    helper.rnd_get_py_state_ptr()
                ),
            }
        except Exception:  # a numba without these internals: numpy's and random's still count
            return {}

    def findings(self) -> list[str]:
        """What was used, one phrase each; empty if nothing."""
        out = [
            f"called {name} ({calls:,} calls, first from {where})"
            for name, (calls, where) in self.uses.items()
        ]
        out += [f"changed {what}" for what in self.changed]
        return out


def _importing() -> bool:
    """Whether the caller runs inside a module being imported."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


# --- the checks -----------------------------------------------------------------------------
def _compare_all(
    base: list[_Played], others: list[_Played], seed: int, how: str, rows=None
) -> str | None:
    """The first difference of ``others`` from ``base`` (table by table), or the first error."""
    for b, o in zip(base, others, strict=False):
        if o.error:
            return f"{how}, {o.error}"
        d = _difference(b, o, seed, how, rows)
        if d:
            return d
    return None


@dataclass
class _Context:
    spec: str
    seed: int
    tables: list[_Table]
    cast: _Cast
    bot: Strategy
    fresh_note: str = ""  # why no fresh process played, when one was asked for
    base: list[_Played] = field(default_factory=list)


def _check_legal(c: _Context) -> CheckResult:
    c.base = _play_all(c.tables, c.seed, c.cast, c.bot)
    error = _first_error(c.base)
    if error:
        return CheckResult(LEGAL, False, error)
    asked = sum(p.log.asked for p in c.base)
    yes = sum(p.log.yes for p in c.base)
    sold = sum(p.log.sold_games() for p in c.base)
    games = sum(t.n for t in c.tables)
    kinds = ", ".join(f"{d.method} {int(asked[d]):,} ({int(yes[d]):,} yes)" for d in Decision)
    never = [d.method for d in Decision if asked[d] == 0]
    note = f"; never asked to {' or '.join(never)}" if never else ""
    detail = (
        f"{int(asked.sum()):,} answers in {games:,} games, all legal: {kinds}; X in every seat "
        f"of 2-4 players, alone and with {', '.join(COMPANIONS)}; forced sales in "
        f"{sold:,} games{note}"
    )
    return CheckResult(LEGAL, True, detail)


def _check_determinism(c: _Context, fresh_process: _FreshProcess | None, start: float):
    again = _play_all(c.tables, c.seed, c.cast, c.bot)
    problem = _compare_all(c.base, again, c.seed, "when the same instance plays it again")
    if problem:
        return CheckResult(DETERMINISM, False, problem)
    fresh: dict[tuple[int, int], Strategy] = {}

    def fresh_bot(table: _Table):
        return lambda seat: fresh.setdefault((table.first, seat), c.cast.fresh())

    fresh_runs = []
    for table, b in zip(c.tables, c.base, strict=True):
        log = _Log()
        fresh_runs.append(
            _play(table, c.seed, c.cast.seats(table.lineup, log, fresh_bot(table)), log)
        )
        problem = _compare_all([b], fresh_runs[-1:], c.seed, "with a fresh instance in each seat")
        if problem:
            return CheckResult(DETERMINISM, False, problem)
    # an instance that met the same game numbers in other states first (other start coins):
    # a bot that keeps what it saw by game number answers from those (QA: a cache keyed by game,
    # round and seat passed every check and changed real games, whose rotations share a deal)
    used, moved = c.cast.fresh(), [dataclasses.replace(t, rules=_moved(t.rules)) for t in c.tables]
    first = _play_all(moved, c.seed, c.cast, used)
    how = f"with {MOVED_COINS} coins more or less at the start"
    if error := _first_error(first):
        return CheckResult(DETERMINISM, False, f"{how}, {error}")
    problem = _compare_all(
        c.base,
        _play_all(c.tables, c.seed, c.cast, used),
        c.seed,
        f"when the instance first played the same game numbers {how} (it keeps state between "
        "games)",
    )
    if problem:
        return CheckResult(DETERMINISM, False, problem)
    where = (
        "the same instance twice, fresh instances per seat, an instance that played the same "
        "game numbers in other states first"
    )
    if fresh_process is None:
        return CheckResult(DETERMINISM, True, f"identical games: {where}{c.fresh_note}")
    timeout = max(120.0, 20 * (time.perf_counter() - start))
    digests, why = fresh_process.result(timeout)
    if digests is None:
        return CheckResult(DETERMINISM, False, f"in a fresh process: {why}")
    for b in c.base:
        for g, d in zip(b.games.tolist(), _digests(b), strict=True):
            if digests.get(g) != d:
                return CheckResult(
                    DETERMINISM,
                    False,
                    f"{b.where(c.seed, g)} differs in a fresh Python process "
                    f"(game digest {d} here, {digests.get(g, 'missing')} there): the bot "
                    "follows something that changes between processes (a set's order or "
                    "hash() of text, id(), the process id, the clock)",
                )
    games = sum(t.n for t in c.tables)
    return CheckResult(
        DETERMINISM, True, f"{games:,} games identical: {where}, and in a fresh process"
    )


MOVED_COINS = 50  # how far the determinism check moves every table's start coins


def _moved(rules: Rules) -> Rules:
    """``rules`` with the start coins moved by :data:`MOVED_COINS` (down where up would pass
    the most a rule allows): the same dice and cards, other states."""
    step = MOVED_COINS if rules.start_coins < 500_000 else -MOVED_COINS
    return dataclasses.replace(rules, start_coins=rules.start_coins + step)


def _check_batch(c: _Context) -> CheckResult:
    bot = c.cast.fresh()
    per_table = max(1, -(-ALONE_GAMES // TABLES))
    alone = 0
    for table, b in zip(c.tables, c.base, strict=True):
        for g in table.games[:per_table]:
            log = _Log()
            one = _play(table, c.seed, c.cast.seats(table.lineup, log, bot), log, np.array([g]))
            alone += 1
            problem = _compare_all([b], [one], c.seed, "when played alone (in its batch vs alone)")
            if problem:
                return CheckResult(BATCH, False, problem)
    reference = 0
    how = (
        "on the reference engine, one game at a time in plain Python (batch engine vs "
        "reference; a bot that writes into the arrays it is shown, or keeps state between "
        "games, changes a game)"
    )
    for table, b in zip(c.tables, c.base, strict=True):
        for g in table.games[:REFERENCE_GAMES]:
            log = _Log()
            seats = c.cast.seats(table.lineup, log, bot)
            one = _play(table, c.seed, seats, log, np.array([g]), reference=True)
            reference += 1
            problem = _compare_all([b], [one], c.seed, how)
            if problem:
                return CheckResult(BATCH, False, problem)
    rng = np.random.default_rng([c.seed, 1])
    for table, b in zip(c.tables, c.base, strict=True):
        log = _Log()
        order = rng.permutation(table.games)
        shuffled = _play(table, c.seed, c.cast.seats(table.lineup, log, bot), log, order)
        problem = _compare_all(
            [b], [shuffled], c.seed, "when its batch's rows are shuffled (in order vs shuffled)"
        )
        if problem:
            return CheckResult(BATCH, False, problem)
    # and in a batch as large as the whole check, at the first table: a bot that answers by
    # the batch's size (QA: "view.game.size > 1000") passed with batches of a few hundred
    games = sum(t.n for t in c.tables)
    first, log = c.tables[0], _Log()
    everything = np.arange(games, dtype=np.int64)  # every game index of the check
    large = _play(first, c.seed, c.cast.seats(first.lineup, log, bot), log, everything)
    how = f"in one batch of {games:,} games (in its batch vs that one)"
    rows = np.flatnonzero(np.isin(everything, first.games))
    problem = _compare_all([c.base[0]], [large], c.seed, how, rows)
    if problem:
        return CheckResult(BATCH, False, problem)
    return CheckResult(
        BATCH,
        True,
        f"{alone} games identical alone (batch size 1) and in their batch, {reference} of them "
        f"also on the reference engine; {games:,} games identical with the batch's rows "
        f"shuffled; {first.n:,} identical in one batch of {games:,}",
    )


def _check_order(c: _Context) -> CheckResult:
    bot = c.cast.fresh()
    rng = np.random.default_rng([c.seed, 2])
    for table, b in zip(c.tables, c.base, strict=True):
        other = _rotated(table.lineup)
        log = _Log()
        plain = _play(table, c.seed, c.cast.seats(other, log, bot), log, lineup=other)
        if plain.error:
            return CheckResult(ORDER, False, f"with its lineup rotated one seat, {plain.error}")
        which = rng.integers(0, 2, table.n)  # each row's lineup: 0 the table's, 1 the other
        for asked_first in (0, 1):  # the lineup whose strategies Mixed asks first
            log = _Log()
            order = (asked_first, 1 - asked_first)
            by_lineup = [c.cast.seats((table.lineup, other)[k], log, bot) for k in order]
            index = np.argsort(order)[which]  # each row's strategy within Mixed
            seats = [Mixed([s[seat] for s in by_lineup], index) for seat in range(len(other))]
            mixed = _play(table, c.seed, seats, log)
            for k, base in ((0, b), (1, plain)):
                mine, theirs = (table.lineup, other)[k], (table.lineup, other)[1 - k]
                first = "its own" if asked_first == k else "the other"
                if mine == theirs:
                    how = (
                        "when its batch is split row by row between two Mixed copies of its "
                        f"lineup, {first} copy asked first (in its own batch vs mixed)"
                    )
                else:
                    how = (
                        f"when it shares its batch row by row with lineup "
                        f"{table.lineup_text(theirs)} (Mixed), {first} lineup's strategies "
                        "asked first (in its own batch vs mixed)"
                    )
                problem = _compare_all([base], [mixed], c.seed, how, np.flatnonzero(which == k))
                if problem:
                    return CheckResult(ORDER, False, problem)
    games = sum(t.n for t in c.tables)
    return CheckResult(
        ORDER,
        True,
        f"{games:,} games identical when each table shares its batch row by row with its "
        "lineup rotated one seat (Mixed), whichever lineup is asked first",
    )


def _check_twin(c: _Context, twin: str, twin_bot: Strategy) -> CheckResult:
    played = _play_all(c.tables, c.seed, c.cast, twin_bot)
    problem = _compare_all(c.base, played, c.seed, f"between X and the twin {twin} (X vs twin)")
    if problem:
        return CheckResult(TWIN, False, problem)
    games = sum(t.n for t in c.tables)
    return CheckResult(
        TWIN,
        True,
        f"{twin} plays the same {games:,} games (coins after every turn, owners, levels, worth)",
    )


def check_strategy(
    spec: str | type | Strategy,
    *,
    twin: str | None = None,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    fresh_process: bool = True,
    echo: Callable[[str], object] | None = None,
) -> CheckReport:
    """Check the bot ``spec`` names against the strategy contract (see the module's docstring).
    ``spec`` may also be a strategy class (built with no arguments) or an instance (copied for
    fresh ones): one written in a notebook is checked too, without the fresh process, which
    needs something it can import.

    ``games`` distinct games (at least one per table, :data:`TABLES`) under ``seed``;
    ``twin``, another spec that must play identical games; ``fresh_process=False`` skips the
    fresh-process half of the determinism check; ``echo`` gets a header line, each result's
    line as soon as it is known, and the closing line. A bad spec raises ``BotSpecError`` (a
    ``UsageError``, as bad numbers do); a misbehaving bot is a failed check, never an exception.
    """
    from barbaron.params import whole

    if twin is not None and not isinstance(twin, str):
        raise UsageError(f"twin must be a bot spec (a string like 'normal'), got {twin!r}")
    games, seed = whole(games), whole(seed)  # numpy's integers too
    if isinstance(games, bool) or not isinstance(games, int) or not TABLES <= games <= MAX_GAMES:
        raise UsageError(
            f"--games must be from {TABLES} (one per table) to {MAX_GAMES:,}, got {games!r}"
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < MAX_INDEX:
        raise UsageError(f"--seed must be a whole number from 0 to 2**63 - 1, got {seed!r}")
    start = time.perf_counter()
    say = echo or (lambda line: None)
    results: list[CheckResult] = []

    def add(result: CheckResult, since: float) -> None:
        result = dataclasses.replace(result, seconds=time.perf_counter() - since)
        results.append(result)
        say(f"{result}  [{result.seconds:.1f} s]")

    child = None
    watch = _RandomWatch()
    try:
        with watch:
            # inside the watch: a plugin's imports bind the watched functions
            label, make, importable = _subject(spec)
            bot = make()
            twin_bot = _build(twin, "the twin (--twin): ") if twin is not None else None
            companions = {c: _build(c) for c in COMPANIONS}
            watch.before_games()
            say(
                f"checking X = {label}{f' (twin {twin})' if twin else ''}: {games:,} games, "
                f"seed {seed}, {TABLES} tables of 2-4 players"
            )
            if fresh_process and sys.executable and importable is not None:
                child = _FreshProcess(importable, seed, games)
            c = _Context(label, seed, _tables(games), _Cast(make, companions), bot)
            if fresh_process and importable is None:
                why = (
                    "another process cannot build it as it is (its class, or its parameters "
                    "and state, cannot be written as a spec)"
                    if label.endswith(" instance")
                    else f"another process cannot import {label}"
                )
                c.fresh_note = f" (no fresh process: {why})"
            t = time.perf_counter()
            legal = _check_legal(c)
            add(legal, t)
            if legal.passed:
                for check in (
                    lambda: _check_determinism(c, child, start),
                    lambda: _check_batch(c),
                    lambda: _check_order(c),
                ):
                    t = time.perf_counter()
                    add(check(), t)
            else:
                for name in (DETERMINISM, BATCH, ORDER):
                    skip = CheckResult(name, False, f"not run: {LEGAL} failed", skipped=True)
                    add(skip, time.perf_counter())
        t = time.perf_counter()
        found = watch.findings()
        if found:
            add(CheckResult(GLOBAL_RANDOM, False, "; ".join(found)), t)
        else:
            add(
                CheckResult(
                    GLOBAL_RANDOM,
                    True,
                    "no call of random's or numpy.random's global functions; their states "
                    "(and numba's) unchanged",
                ),
                t,
            )
        if twin is not None:
            t = time.perf_counter()
            if legal.passed:
                add(_check_twin(c, twin, twin_bot), t)
            else:
                add(CheckResult(TWIN, False, f"not run: {LEGAL} failed", skipped=True), t)
    finally:
        if child is not None:
            child.stop()
    report = CheckReport(label, results, twin, seed, games, time.perf_counter() - start)
    say(report.summary())
    return report


# --- python -m barbaron.testing: the fresh process ------------------------------------------
IMPORT_PATH = "BARBARON_IMPORT_PATH"  # the parent's import path, for a fresh process to append


def fresh_python(module: str, *args: str) -> tuple[list[str], dict[str, str]]:
    """The command and environment of a fresh Python that runs ``module`` with this very
    barbaron and imports what this process imports. ``-P``: nothing comes before the standard
    library but barbaron's own folder and PYTHONPATH, as here (``-m`` put the current folder
    first, where a plugin saved as random.py stood for the real module: QA), and the rest of
    this process's import path (a script's folder, a notebook's) is appended after the child's
    own by :func:`take_parents_path` (``IMPORT_PATH``), as it was set up here by then."""
    import barbaron

    env = dict(os.environ)
    own = (sys.prefix, sys.base_prefix, sys.exec_prefix)  # the child finds these itself
    root = str(Path(barbaron.__file__).resolve().parents[1])  # (a clone that is not installed)
    front = [p for p in (root, env.get("PYTHONPATH")) if p and not p.startswith(own)]
    env["PYTHONPATH"] = os.pathsep.join(front)
    here = [p or os.getcwd() for p in sys.path]  # ('' is this process's current folder)
    env[IMPORT_PATH] = os.pathsep.join(p for p in here if not p.startswith(own))
    return [sys.executable, "-P", "-m", module, *args], env


def take_parents_path() -> None:
    """In a process :func:`fresh_python` started: append its parent's import path."""
    for entry in os.environ.get(IMPORT_PATH, "").split(os.pathsep):
        if entry and entry not in sys.path:
            sys.path.append(entry)


def main(argv: Sequence[str] | None = None) -> int:
    """Print ``digest GAME HASH`` per game of the check's first pass (the determinism check's
    fresh process)."""
    import argparse

    from barbaron.registry import BotSpecError

    take_parents_path()
    parser = argparse.ArgumentParser(
        prog="python -m barbaron.testing",
        description="Play the games of 'barbaron check SPEC' and print a digest per game.",
    )
    parser.add_argument("spec")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES)
    args = parser.parse_args(argv)
    if args.games < TABLES:
        print(f"error: --games must be at least {TABLES}", file=sys.stderr)
        return 2
    try:
        lines, error = _digest_lines(args.spec, args.seed, args.games)
    except BotSpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    sys.stdout.write("".join(line + "\n" for line in lines))
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The strategy contract: one ``Strategy`` class, asked about many games at once.

A strategy is a class with three methods, one per :class:`Decision`. Each gets the view of the
whole batch and ``games``, the batch rows where the decision is open for the strategy's seat,
and answers one value per row:

- ``upgrade(view, games)``: before the roll, a bar index to raise one level, or -1 (R16);
- ``buy(view, games, bars)``: buy the free bar the seat stands on? (R14);
- ``takeover(view, games, bars)``: take over the bar whose tab it just paid? (R15).

Both engines take the same ``Strategy`` objects: the batch engine asks them directly, the
reference engine wraps them itself (:class:`InOneGame`), one game at a time. The engine asks only
where the choice is legal and rejects an illegal answer. A strategy never mutates the view.
Strategies that randomize draw from :meth:`BatchView.uniform` only, a per-game stream, so a
game's outcome never depends on its batch or on the order strategies are asked.
:class:`ScalarStrategy` lets a strategy be written one game at a time, on a :class:`GameView`.

Importing this module does not import numba (``barbaron bots`` imports every bot, and so this
module, only to list them): the view's compiled helpers live in ``barbaron.view_kernels`` and
the random streams in ``barbaron.streams``, both imported where first used.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import numbers
import os
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path

import numpy as np

from barbaron import odds
from barbaron import rules as R
from barbaron.params import counted
from barbaron.rules import Rules


class IllegalDecision(RuntimeError):
    """A strategy answered something the rules or the contract do not allow: a bug in it.
    ``game``: the game (its stream index) the answer was for, where one game is to blame."""

    def __init__(self, message: str, game: int | None = None) -> None:
        super().__init__(message if game is None else f"{message} (game {game})")
        self.message, self.game = message, game


class StrategyError(RuntimeError):
    """A strategy raised an exception (or tried to exit) while answering: a bug in it."""


class Decision(IntEnum):
    """The three questions a strategy answers; the value also keys a strategy's random draws."""

    UPGRADE = 0  # R16: which bar to raise one level before the roll, if any
    BUY = 1  # R14: buy the free bar the seat stands on?
    TAKEOVER = 2  # R15: take over the bar whose tab the seat just paid?

    @property
    def method(self) -> str:
        """The name of the strategy method that answers it: upgrade, buy or takeover."""
        return _METHOD_NAMES[self]  # (read for every question asked: an enum's name is slow)


_METHOD_NAMES = tuple(d.name.lower() for d in Decision)  # Decision.method, by value


def constructor_parameters(cls: type) -> list[inspect.Parameter]:
    """The named parameters of ``cls``'s constructor (no self, no *args or **kwargs)."""
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    try:
        signature = inspect.signature(cls.__init__)
    except (TypeError, ValueError):
        return []
    return [p for p in list(signature.parameters.values())[1:] if p.kind not in variadic]


def is_strategy(obj: object) -> bool:
    """Whether ``obj`` (a strategy, or its class) answers the three questions: ``upgrade``,
    ``buy`` and ``takeover`` (the duck type every engine asks)."""
    return all(callable(getattr(obj, m, None)) for m in ("upgrade", "buy", "takeover"))


def format_value(value: object) -> str:
    """A parameter value as a bot spec writes it (``None`` is ``none``, booleans ``true`` and
    ``false``)."""
    if value is None or isinstance(value, bool):
        return str(value).lower()
    return str(value)


@dataclass(frozen=True)
class GameView:
    """What a one-game strategy sees when it decides: a read-only snapshot of one game."""

    rules: Rules
    seat: int  # the deciding seat
    round: int  # 1-based round number
    coins: tuple[int, ...]  # per seat
    position: tuple[int, ...]  # per seat, space index (R1)
    skip: tuple[bool, ...]  # per seat, True if their next turn slot is skipped (R6)
    owner: tuple[int, ...]  # per bar (R2), owning seat or -1
    level: tuple[int, ...]  # per bar, 0 plain, 1 Happy Hour, 2 Draught Tap
    seed: int | None = None  # the run's seed, where the game belongs to a seeded run
    game: int | None = None  # the engine's game index, in a run its deal (rotations share it)
    decision: Decision = Decision.UPGRADE  # which question is being asked
    cards_drawn: int = 0  # bar cards drawn so far in the game (R17: reshuffled every 14)
    cards_seen: tuple[int, ...] = ()  # the cards (R3) drawn from the current shuffle, in order:
    # public, as everyone saw them drawn; the order of the rest is not shown

    @property
    def rounds_left(self) -> int:
        """Rounds still to come after the current one."""
        return self.rules.rounds - self.round

    @property
    def slot(self) -> int:
        """The turn slot being played, 0-based (R5)."""
        return (self.round - 1) * self.rules.players + self.seat

    def uniform(self, draw: int = 0) -> float:
        """A float in [0, 1) from the seat's own stream for this decision (seeded games only)."""
        if self.seed is None or self.game is None:
            raise ValueError("this game has no random stream for strategies (not a seeded run)")
        from barbaron import streams

        n = streams.bot_draw(self.slot, self.decision, draw)
        return streams.uniform(self.seed, self.game, streams.BOTS + self.seat, n)


@dataclass(frozen=True)
class BatchView:
    """A read-only view of a batch of games at one decision point of one seat."""

    rules: Rules
    seat: int  # the deciding seat
    round: int  # 1-based round number
    slot: int  # turn slot within the game, 0-based: (round - 1) * players + seat
    decision: Decision  # the question being asked
    seed: int  # the run's seed
    game: np.ndarray  # (n,) int64: engine game index of each row (keys its random streams; in a
    # run, the deal: every rotation of a deal plays its dice and cards)
    coins: np.ndarray  # (n, players) int32
    position: np.ndarray  # (n, players) int8: space index (R1)
    skip: np.ndarray  # (n, players) bool: next turn slot is skipped (R6)
    owner: np.ndarray  # (n, 12) int8: owning seat per bar (R2), -1 free
    level: np.ndarray  # (n, 12) int8: 0 plain, 1 Happy Hour, 2 Draught Tap
    # The deck, read through cards_drawn() and cards_seen() only: its undrawn order is hidden.
    _deck: np.ndarray | None = field(default=None, repr=False, compare=False)  # (n, 14) int8
    _drawn: np.ndarray | None = field(default=None, repr=False, compare=False)  # (n,) int32

    @property
    def rounds_left(self) -> int:
        """Rounds still to come after the current one."""
        return self.rules.rounds - self.round

    def cards_drawn(self, games: np.ndarray) -> np.ndarray:
        """(k,) bar cards drawn so far in each game (R17: the deck is reshuffled every 14)."""
        rows = self._rows(games)
        if self._drawn is None:  # (a view built without its deck: nothing drawn)
            return np.zeros(rows.size, dtype=np.int64)
        return self._drawn[rows].astype(np.int64)

    def cards_seen(self, games: np.ndarray) -> np.ndarray:
        """(k, 14) the cards (R3) drawn from each game's current shuffle, in draw order, then
        -1: public, as everyone saw them drawn (the order of the others is not shown)."""
        rows = self._rows(games)
        seen = np.full((rows.size, R.N_CARDS), -1, dtype=np.int8)
        if self._deck is not None:
            count = (self._drawn[rows] % R.N_CARDS)[:, None]
            drawn = np.arange(R.N_CARDS) < count
            seen[drawn] = self._deck[rows][drawn]
        return seen

    def turns_left(self, seat: int) -> int:
        """Rolls ``seat`` still makes from this decision on, to the end (skips not counted).

        The deciding seat's own roll this turn counts only before it (an upgrade decision).
        """
        own_roll_ahead = seat == self.seat and self.decision is Decision.UPGRADE
        later_this_round = seat > self.seat or own_roll_ahead
        return self.rounds_left + (1 if later_this_round else 0)

    def tabs(self, games: np.ndarray) -> np.ndarray:
        """(k, 12) the tab (R11) a visitor other than the owner pays on each bar now; 0 if free."""
        from barbaron import view_kernels

        return view_kernels.tabs(self.owner, self.level, self._rows(games))

    def tab_gain_of_upgrade(self, games: np.ndarray) -> np.ndarray:
        """(k, 12) how much each owned bar's tab would rise with one more level (0 at the top
        level or for a free bar)."""
        from barbaron import view_kernels

        return view_kernels.tab_gain_of_upgrade(self.owner, self.level, self._rows(games))

    def district_holdings(self, games: np.ndarray, seat: int) -> np.ndarray:
        """(k, 4) how many bars of each district ``seat`` owns."""
        from barbaron import view_kernels

        return view_kernels.district_holdings(self.owner, self._rows(games), int(self._seat(seat)))

    def bar_value(self, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        """(k,) value (R10) of ``bars[i]`` in game ``games[i]``."""
        rows, bars = self._indices(games), self._bars(bars)
        return R.VALUE_TABLE[bars, self.level[rows, bars]]

    def takeover_cost(self, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        """(k,) what taking over ``bars[i]`` costs now (R15)."""
        rows, bars = self._indices(games), self._bars(bars)
        return R.TAKEOVER_TABLE[bars, self.level[rows, bars]]

    def landing_probabilities(self, games: np.ndarray, seat: int) -> np.ndarray:
        """(k, 16) exact odds of ``seat``'s next turn ending on each space (dice and cards)."""
        return odds.TURN[self.position[self._indices(games), self._seat(seat)]]

    def expected_bar_visits(
        self, games: np.ndarray, seat: int, turns: int | None = None
    ) -> np.ndarray:
        """(k, 12) expected visits of ``seat`` to each bar in its next ``turns`` rolls
        (default: all it has left, ``turns_left(seat)``)."""
        turns = self.turns_left(seat) if turns is None else turns
        position = self.position[self._indices(games), self._seat(seat)]
        return odds.EXPECTED_BAR_VISITS[min(turns, odds.MAX_TURNS), position]

    def visits_by_others(self, games: np.ndarray, seat: int | np.ndarray) -> np.ndarray:
        """(k, 12) expected visits to each bar from every seat but ``seat`` (one per game, or
        one for all), each over all the rolls it has left: what a bar of ``seat``'s would see."""
        from barbaron import view_kernels

        games = self._rows(games)
        turns = np.array(
            [min(self.turns_left(s), odds.MAX_TURNS) for s in range(self.rules.players)]
        )
        exclude = np.broadcast_to(self._seat(seat), games.shape)
        return view_kernels.visits_by_others(
            self.position, games, turns, np.ascontiguousarray(exclude)
        )

    def worst_tab_next_roll(self, games: np.ndarray, seat: int) -> np.ndarray:
        """(k,) the highest tab ``seat`` could owe at the end of its next roll (0 if none)."""
        from barbaron import view_kernels

        rows, seat = self._rows(games), int(self._seat(seat))
        return view_kernels.worst_tab(self.owner, self.level, self.position, rows, seat)

    def _rows(self, games: np.ndarray) -> np.ndarray:
        """``games`` as a 1-d, contiguous :meth:`_indices`, as a compiled helper (which checks
        no index) reads with them: a deal number from ``view.game`` is not a row."""
        given = np.asarray(games)
        if given.size == 0 and given.ndim == 1:  # (an empty list is float64 to numpy)
            return np.zeros(0, dtype=np.int64)
        if given.dtype.kind not in "iu" or given.ndim != 1:
            raise TypeError(
                f"games must be a 1-d array of row indices, got {given.dtype} {given.shape}"
            )
        return np.ascontiguousarray(self._indices(given))

    def _indices(self, games: np.ndarray | int) -> np.ndarray:
        """``games`` as int64 rows of this batch in any shape (a numpy helper broadcasts them,
        ``games[:, None]`` with 12 bars, say), checked: a -1 would read another game's row."""
        given = np.asarray(games)
        if given.size == 0:
            return given.astype(np.int64)
        if given.dtype.kind not in "iu":  # (a mask is not rows)
            raise TypeError(f"games must be row indices of this batch, got {given.dtype}")
        n = len(self.owner)
        if not (0 <= given.min() and given.max() < n):
            bad = given[(given < 0) | (given >= n)].flat[0]
            raise IndexError(
                f"games holds {bad}, not a row of this batch of {n} (rows are 0..{n - 1}; "
                "view.game[rows] are the games' numbers)"
            )
        return given.astype(np.int64, copy=False)

    def _bars(self, bars: np.ndarray) -> np.ndarray:
        """``bars`` as int64 bar indices (R2), checked (a -1 would read the last bar)."""
        given = np.asarray(bars)
        if given.size == 0:
            return given.astype(np.int64)
        if given.dtype.kind not in "iu":
            raise TypeError(f"bars must be bar indices (integers 0..11), got {given.dtype}")
        if not (0 <= given.min() and given.max() < R.N_BARS):
            bad = given[(given < 0) | (given >= R.N_BARS)].flat[0]
            raise IndexError(f"bars holds {bad}, not a bar (bars are 0..{R.N_BARS - 1}, R2)")
        return given.astype(np.int64, copy=False)

    def _seat(self, seat: int | np.ndarray) -> np.ndarray:
        """``seat`` (one, or one per row) as int64, checked to be a seat of this table."""
        seats = np.asarray(seat)
        players = self.rules.players
        if seats.dtype.kind not in "iu" or (
            seats.size and not (0 <= seats.min() and seats.max() < players)
        ):
            raise IndexError(f"seat must be 0..{players - 1} at this table, got {seat!r}")
        return seats.astype(np.int64)

    def uniform(self, games: np.ndarray, draw: int = 0) -> np.ndarray:
        """Floats in [0, 1) for rows ``games``: draw number ``draw`` (0..15) of this decision.

        They come from the seat's own per-game stream, keyed by (seed, game, seat, slot,
        decision, draw), so they are the same whatever batch the game is played in.
        """
        from barbaron import streams, view_kernels

        n = streams.bot_draw(self.slot, self.decision, draw)
        deals = self.game[self._rows(games)]
        return view_kernels.uniforms(self.seed, deals, streams.BOTS + self.seat, n)


_DEFAULT_FACTORY = getattr(dataclasses, "_HAS_DEFAULT_FACTORY", object())  # its signature's
# default for a field with a default_factory

SPEC_ATTRIBUTE = "_barbaron_spec"  # the spec a bot was built from (registry.make_bot sets it)
ARGUMENTS_ATTRIBUTE = "_barbaron_arguments"  # its constructor's arguments (Strategy.__new__ sets
# it): barbaron's own copy, as a bot may keep anything in ``params`` (weights, a config)


def constructor_arguments(bot: object) -> dict[str, object] | None:
    """The arguments a Strategy was constructed with, defaults filled in, as the base class
    recorded them; None for a class of its own. Read from barbaron's own attribute, not
    ``params``, so that a bot keeping something else there is still told apart (QA)."""
    arguments = getattr(bot, "__dict__", {}).get(ARGUMENTS_ATTRIBUTE)
    return arguments if isinstance(arguments, dict) else None


def same_arguments(a: object, b: object) -> bool:
    """Whether two bots' argument dicts are equal; False where comparing them fails (arrays
    given in Python compare element-wise)."""
    try:
        return bool(a == b)
    except Exception:
        return False


def describe(strategy: object) -> str:
    """A strategy's spec (as given on the command line, where it was built from one), or its
    name and parameters, for error messages; never fails, whatever the strategy's repr does."""
    try:
        spec = getattr(strategy, SPEC_ATTRIBUTE, None)
    except Exception:
        spec = None
    if isinstance(spec, str):
        return spec
    cls = type(strategy)
    text = safe_text(strategy, repr)
    names = [n for n in (cls.__name__, getattr(cls, "registered_name", None)) if n]
    return text if any(text.startswith(n) for n in names) else f"{cls.__name__} ({text})"


def safe_text(value: object, show: Callable[[object], str] = str) -> str:
    """``show(value)`` on one line, or a placeholder where that fails (a plugin's own
    exception or repr may raise, or span lines)."""
    try:
        return " ".join(str(show(value)).split())
    except Exception as e:
        return f"<{type(value).__name__} that cannot be shown: {type(e).__name__}>"


def checked_answer(strategy: object, decision: Decision, answer: object, size: int) -> np.ndarray:
    """A strategy's answers as an array: ``size`` integers for an upgrade, ``size`` booleans
    for a buy or takeover question; anything else is a bug in the strategy."""
    try:
        answer = np.asarray(answer)
    except Exception as e:  # a ragged list, an object numpy cannot read
        raise IllegalDecision(
            f"{describe(strategy)}.{decision.method} must return {size} answers as an array, "
            f"got something numpy cannot read ({type(e).__name__}: {safe_text(e)})"
        ) from None
    integers = decision is Decision.UPGRADE
    ok = answer.dtype.kind in "iu" if integers else answer.dtype == bool
    if answer.shape != (size,) or not ok:
        kind = "integers (a bar or -1)" if integers else "booleans"
        raise IllegalDecision(
            f"{describe(strategy)}.{decision.method} must return {size} {kind} as an "
            f"array, got shape {answer.shape} of {answer.dtype}"
        )
    if integers and size and (answer.max() > R.N_BARS - 1 or answer.min() < -1):
        bad = answer[(answer > R.N_BARS - 1) | (answer < -1)][0]
        raise IllegalDecision(
            f"{describe(strategy)}.upgrade answered {bad}: a bar is 0 to {R.N_BARS - 1}, or -1 "
            "for no upgrade"
        )
    return answer


def ask(
    strategy: object,
    decision: Decision,
    view: BatchView,
    games: np.ndarray,
    bars: np.ndarray | None = None,
) -> np.ndarray:
    """The strategy's checked answers to ``decision`` for rows ``games`` (about ``bars``). Its
    own exception, or an attempt to exit, becomes a :class:`StrategyError` naming the bot, the
    method, the round and seat, the exception and the line of the bot's code that raised it."""
    method = getattr(strategy, decision.method)
    asked, about = handed(games), None if bars is None else handed(bars)
    try:
        answer = method(view, asked) if about is None else method(view, asked, about)
    except (IllegalDecision, StrategyError, KeyboardInterrupt):
        raise
    except BaseException as e:
        raise StrategyError(  # (QA: play named neither the round nor the line, as check did)
            f"{describe(strategy)}.{answering(strategy, decision)} raised {type(e).__name__} "
            f"{_at_batch(view, games)}: {safe_text(e)}{raised_where(e, strategy)}"
        ) from e
    try:
        return checked_answer(strategy, decision, answer, games.size)
    except IllegalDecision as e:  # (the batch's size alone: "must return 159 booleans")
        raise IllegalDecision(f"{e.message}, {_at_batch(view, games)}", e.game) from None


def _at_batch(view: BatchView, games: np.ndarray) -> str:
    """Where a call of a bot went wrong: the batch, which is the unit it answers for (the
    round is the first in which any of the batch's games did, so it depends on the batch)."""
    if view.game.size == 1:  # one game at a time (the reference engine, a duel): exact
        return f"as seat {view.seat} in round {view.round}"
    return (
        f"as seat {view.seat} in round {view.round}, asked about {counted(games.size, 'game')} "
        f"of a batch of {view.game.size:,} at once"
    )


def raised_where(error: BaseException, bot: object) -> str:
    """Where ``error`` came from, as `` (at my_bot.py:140 in Crasher.takeover_one)``: the
    innermost frame in a file of the bot's own classes, else the innermost outside Python's
    library and barbaron; and, for a write to something read-only, what that may mean."""
    import sysconfig
    import traceback

    frames = [(f.f_code, line) for f, line in traceback.walk_tb(error.__traceback__)]
    library = (sysconfig.get_paths()["stdlib"], str(Path(__file__).resolve().parent))
    own = set()
    for cls in type(bot).__mro__:
        with contextlib.suppress(TypeError, OSError):
            own.add(os.path.realpath(inspect.getfile(cls)))
    own = {path for path in own if not path.startswith(library)}  # (Strategy's own file: QA)
    mine = [f for f in frames if os.path.realpath(f[0].co_filename) in own]
    outside = [f for f in frames if not os.path.realpath(f[0].co_filename).startswith(library)]
    at = f" (at {frame_text(*(mine or outside or frames)[-1])})" if frames else ""
    text = str(error)
    if "does not support item assignment" in text or "read-only" in text:
        at += "; if that was what the bot is handed: it is read-only (a bot never changes the game)"
    return at


def frame_text(code: types.CodeType, line: int) -> str:
    """``file:line in qualified.name``, as the checks name where a bot did something."""
    return f"{short_path(code.co_filename)}:{line} in {code.co_qualname}"


def short_path(path: str) -> str:
    """``path`` relative to the current folder if it lies below it, else as it is."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def rules_change(rules: Rules, before: Rules) -> str | None:
    """What a strategy did to the rules its views showed it, if ``rules`` no longer equal
    ``before`` (in words that follow its name), else None. A strategy reads the rules and never
    writes them, as it never writes the state's arrays: rules are frozen, but
    ``object.__setattr__`` gets past that (QA: a bot that set rounds to 3 crashed ``check`` and
    was recorded as a 3-round run)."""
    with contextlib.suppress(Exception):  # (an array written in has no true or false ==)
        if rules == before:
            return None
    changed = [f.name for f in dataclasses.fields(Rules) if not _same(rules, before, f.name)]
    if not changed:
        return None
    return (
        f"changed the rules it was shown ({', '.join(changed)}): a strategy reads view.rules, "
        "never writes them"
    )


def _same(a: object, b: object, name: str) -> bool:
    """Whether attribute ``name`` of ``a`` and ``b`` is the same value of the same type."""
    x, y = getattr(a, name), getattr(b, name)
    try:
        return type(x) is type(y) and bool(x == y)
    except Exception:
        return False


def rules_kept(rules: Rules, before: Rules, strategy: object) -> None:
    """Raise a :class:`StrategyError` naming ``strategy`` if it changed the rules
    (:func:`rules_change`): the engines check after every turn slot."""
    if change := rules_change(rules, before):
        raise StrategyError(f"{describe(strategy)} {change}")


def answering(strategy: object, decision: Decision) -> str:
    """The name of ``strategy``'s method that answers ``decision`` (``buy``; ``buy_one`` for a
    :class:`ScalarStrategy`, whose errors name the method its author wrote)."""
    return decision.method + ("_one" if isinstance(strategy, ScalarStrategy) else "")


def read_only(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a`` (a view's arrays: see ``batch._read_only`` for their bases)."""
    v = a.view()
    v.setflags(write=False)
    return v


def handed(a: np.ndarray) -> np.ndarray:
    """A read-only copy of ``a``: the ``games`` and ``bars`` a strategy is handed (writing into
    the engine's own made games depend on their batch; a copy stays apart even if made
    writable again)."""
    return read_only(a.copy())


class Strategy:
    """Base class of strategies: by default never upgrade, buy or take over.

    ``params`` holds the constructor's arguments (defaults filled in) and ``repr`` writes them
    as a bot spec (``normal:cushion=250,...``), so a subclass needs to write neither. A subclass
    may keep something else in ``params``: barbaron reads its own copy of the arguments
    (:func:`constructor_arguments`).
    """

    registered_name: str | None = None  # the registry's short name, set by @register

    def __new__(cls, *args: object, **kwargs: object) -> Strategy:
        self = super().__new__(cls)
        try:
            bound = inspect.signature(cls.__init__).bind(self, *args, **kwargs)
        except TypeError:  # a bad call: __init__ reports it
            arguments = {}
        else:
            bound.apply_defaults()
            arguments = {
                p.name: bound.arguments[p.name]
                for p in constructor_parameters(cls)
                if p.name in bound.arguments
                # a dataclass field's default_factory: made by __init__, so left out (QA)
                and bound.arguments[p.name] is not _DEFAULT_FACTORY
            }
        object.__setattr__(self, ARGUMENTS_ATTRIBUTE, arguments)  # (a frozen dataclass too, QA)
        if not any("params" in vars(k) for k in cls.__mro__):  # (a class's own params stays:
            object.__setattr__(self, "params", dict(arguments))  # a property, a constant; QA)
        return self

    def __repr__(self) -> str:
        head = type(self).__dict__.get("registered_name") or type(self).__name__
        params = constructor_arguments(self)
        if not params:
            return head
        return head + ":" + ",".join(f"{k}={format_value(v)}" for k, v in params.items())

    def upgrade(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        """Per row of ``games``: the bar to raise one level before the roll, or -1."""
        return np.full(games.size, -1, dtype=np.int8)

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        """Per row of ``games``: buy the free bar ``bars[i]`` the seat stands on?"""
        return np.zeros(games.size, dtype=bool)

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        """Per row of ``games``: take over ``bars[i]``, whose tab the seat just paid?"""
        return np.zeros(games.size, dtype=bool)


class AnswersInOne(Strategy):
    """A strategy that answers all three questions in one method, ``_decide(view, games,
    bars)`` (``bars`` is None for an upgrade; the question is ``view.decision``): for
    wrappers and adapters, which treat every decision alike."""

    def _decide(self, view: BatchView, games: np.ndarray, bars: np.ndarray | None) -> np.ndarray:
        raise NotImplementedError

    def upgrade(self, view: BatchView, games: np.ndarray) -> np.ndarray:
        return self._decide(view, games, None)

    def buy(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return self._decide(view, games, bars)

    def takeover(self, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
        return self._decide(view, games, bars)


_ONE_ROW = np.zeros(1, dtype=np.int64)


def _row(values: tuple, dtype: type) -> np.ndarray:
    a = np.array([values], dtype=dtype)
    a.flags.writeable = False
    return a


def batch_view_of(view: GameView) -> BatchView:
    """A one-game view as a batch of one row (row 0)."""
    deck = np.full((1, R.N_CARDS), -1, dtype=np.int8)
    deck[0, : len(view.cards_seen)] = view.cards_seen
    return BatchView(
        rules=view.rules,
        seat=view.seat,
        round=view.round,
        decision=view.decision,
        slot=view.slot,
        seed=0 if view.seed is None else view.seed,
        game=_row((0 if view.game is None else view.game,), np.int64)[0],
        coins=_row(view.coins, np.int32),
        position=_row(view.position, np.int8),
        skip=_row(view.skip, bool),
        owner=_row(view.owner, np.int8),
        level=_row(view.level, np.int8),
        _deck=read_only(deck),
        _drawn=read_only(np.array([view.cards_drawn], dtype=np.int32)),
    )


class InOneGame:
    """A strategy asked about one game at a time, as the reference engine asks (it wraps its
    seats' strategies in this itself): each question becomes a batch of one, answers checked."""

    def __init__(self, strategy: Strategy) -> None:
        self.strategy = strategy

    def __repr__(self) -> str:
        return repr(self.strategy)

    def answer(self, view: GameView, bar: int = -1) -> int | bool:
        """The answer to ``view.decision``: a bar to upgrade (or -1), or yes/no about ``bar``."""
        decision = view.decision
        bars = None if decision is Decision.UPGRADE else np.array([bar], dtype=np.int8)
        value = ask(self.strategy, decision, batch_view_of(view), _ONE_ROW, bars)[0]
        return int(value) if decision is Decision.UPGRADE else bool(value)


class Mixed(AnswersInOne):
    """Different strategies in one seat across a batch: row g is played by ``strategies[which[g]]``.

    Lets one batch hold several lineups (e.g. every rotation of a deal). Each strategy is asked
    about its own rows only; the order in which they are asked does not matter.
    """

    def __init__(self, strategies: list[Strategy], which: np.ndarray) -> None:
        self.strategies, self.which = strategies, np.asarray(which)

    def __repr__(self) -> str:
        return f"Mixed({self.strategies!r})"

    def _decide(self, view: BatchView, games: np.ndarray, bars: np.ndarray | None):
        decision = view.decision
        out = np.empty(games.size, dtype=np.int64 if decision is Decision.UPGRADE else bool)
        who = self.which[games]
        for k, strategy in enumerate(self.strategies):
            mine = np.flatnonzero(who == k)
            if mine.size:
                out[mine] = ask(
                    strategy, decision, view, games[mine], None if bars is None else bars[mine]
                )
        return out


def _scalar_answer(strategy: object, decision: Decision, answer: object, game: int) -> int | bool:
    """One game's answer of a :class:`ScalarStrategy`, checked: None or a bar index for an
    upgrade (-1 for None), a real bool for buy and takeover."""
    if decision is Decision.UPGRADE:
        if answer is None:
            return -1
        if isinstance(answer, numbers.Integral) and not isinstance(answer, bool | np.bool_):
            if -1 <= answer < R.N_BARS:
                return int(answer)
        expected = f"None or a bar index (0 to {R.N_BARS - 1}; -1 is taken for None too)"
    else:
        if isinstance(answer, bool | np.bool_):
            return bool(answer)
        expected = "True or False"
    raise IllegalDecision(
        f"{describe(strategy)}.{answering(strategy, decision)} answered {answer!r}; it must "
        f"answer {expected}",
        game=game,
    )


class ScalarStrategy(AnswersInOne):
    """Write a strategy one game at a time, in plain Python; it runs wherever batch ones do.

    Override ``upgrade_one``, ``buy_one`` and ``takeover_one``; each gets a :class:`GameView` of
    one game (``game.uniform(draw)`` gives the same random numbers a vectorized version would
    get from ``view.uniform(games, draw)``). Slower than a vectorized strategy: once it works,
    port each method to arrays (see the README) and test that both give the same games
    (``barbaron check SPEC --twin SPEC``).
    """

    def upgrade_one(self, game: GameView) -> int | None:
        """Before the roll: the bar to raise one level, or None."""
        return None

    def buy_one(self, game: GameView, bar: int) -> bool:
        """Buy the free ``bar`` the seat stands on?"""
        return False

    def takeover_one(self, game: GameView, bar: int) -> bool:
        """Take over ``bar``, whose tab the seat just paid?"""
        return False

    @staticmethod
    def _one(view: BatchView, g: int, drawn: int, seen: np.ndarray) -> GameView:
        """Row ``g`` of ``view`` as one game, with its cards drawn and seen (asked once for
        all the rows)."""
        return GameView(
            rules=view.rules,
            seat=view.seat,
            round=view.round,
            coins=tuple(view.coins[g].tolist()),
            position=tuple(view.position[g].tolist()),
            skip=tuple(view.skip[g].tolist()),
            owner=tuple(view.owner[g].tolist()),
            level=tuple(view.level[g].tolist()),
            seed=view.seed,
            game=int(view.game[g]),
            decision=view.decision,
            cards_drawn=drawn,
            cards_seen=tuple(seen[seen >= 0].tolist()),
        )

    def _decide(self, view: BatchView, games: np.ndarray, bars: np.ndarray | None):
        decision = view.decision
        method = getattr(self, answering(self, decision))
        drawn, seen = view.cards_drawn(games).tolist(), view.cards_seen(games)
        answers = []
        for i, g in enumerate(games.tolist()):
            extra = () if bars is None else (int(bars[i]),)
            game = self._one(view, g, drawn[i], seen[i])
            answers.append(_scalar_answer(self, decision, method(game, *extra), game.game))
        return np.array(answers, dtype=np.int64 if decision is Decision.UPGRADE else bool)


# barbaron's own classes that bots are built on, never bots themselves (a spec naming one, as
# imported into a user's module, is refused)
BASE_CLASSES = (Strategy, AnswersInOne, ScalarStrategy, Mixed)

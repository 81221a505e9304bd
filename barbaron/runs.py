"""What every game-playing function of the library shares: the run options, the typed result
they return, and the run itself (a results folder or memory; Ctrl-C and faults as one error).
``barbaron.api`` and the modules of the tournament and tuning commands build on it."""

from __future__ import annotations

import contextlib
import math
import numbers
import os
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field, fields
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from barbaron.config import DEFAULT_BATCH_SIZE, MAX_POINTS
from barbaron.errors import RunFailed, RunInterrupted, UsageError, interrupted_when_complete
from barbaron.params import flag, is_whole, number_text

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from barbaron.harness import Arm, Job, Totals, UnitResult
    from barbaron.rules import Rules
    from barbaron.run import RunOutcome


class RunOptions(TypedDict, total=False):
    """The keyword arguments every game-playing function takes; see :class:`Execution`."""

    seed: int
    rotate: bool
    rounds: int
    start_coins: int | None
    seat_bonus: int | None
    seat_coins: Sequence[int] | None
    out: str | Path | None
    force: bool
    resume: bool
    workers: int
    batch_size: int
    backend: str
    scheduler: str | None
    progress: bool
    plots: bool


@dataclass(frozen=True)
class Execution:
    """How a run plays and where it writes: the seed, the rules' money and length, the folder,
    the workers. Results depend only on seed, lineups and rules, never on the rest.

    The start coins are R4's flat schedule (``start_coins``, default 1000, and ``seat_bonus``,
    default 100) or ``seat_coins``, one value per seat: one or the other, not both."""

    seed: int = 0  # the deals' seed: same seed, same games
    rotate: bool = True  # play every deal in every rotation of the lineup (duplicate format)
    rounds: int = 10  # R5
    start_coins: int | None = None  # R4: coins of seat 0 (None: the rules' default, 1000)
    seat_bonus: int | None = None  # R4: extra start coins per later seat (None: 100)
    seat_coins: Sequence[int] | None = None  # R4: every seat's start coins instead, or None
    out: str | Path | None = None  # results folder to write; None plays in memory
    force: bool = False  # replace an existing results folder
    resume: bool = False  # continue an interrupted run (OUT.partial)
    workers: int = 1  # parallel worker processes
    batch_size: int = DEFAULT_BATCH_SIZE  # games per unit of work
    backend: str = "local"  # local (processes here) or dask (a cluster: needs scheduler)
    scheduler: str | None = None  # dask scheduler address
    progress: bool = False  # a progress bar (and the SPRT's lines) on the terminal
    plots: bool = True  # the PNGs of a results folder (``barbaron report`` draws them later)

    def __post_init__(self) -> None:
        kinds = {
            "seed": "whole",
            "rotate": "bool",
            "rounds": "whole",
            "force": "bool",
            "resume": "bool",
            "workers": "whole",
            "batch_size": "whole",
            "backend": "text",
            "progress": "bool",
            "plots": "bool",
        }
        for name, kind in kinds.items():
            object.__setattr__(self, name, checked(getattr(self, name), name, kind))
        for name in ("start_coins", "seat_bonus"):  # None: the rules' default
            value = checked(getattr(self, name), name, "whole", optional=True)
            object.__setattr__(self, name, value)
        if self.seat_coins is not None:
            coins = self.seat_coins
            if isinstance(coins, str | bytes | Mapping | Set) or not isinstance(coins, Iterable):
                raise UsageError(
                    f"seat_coins must be a list of whole numbers, one per seat, got {shown(coins)}"
                )
            coins = tuple(checked(c, "seat_coins", "whole") for c in coins)
            if not coins:
                raise UsageError("--seat-coins needs one value per seat, got none")
            object.__setattr__(self, "seat_coins", coins)
            if self.start_coins is not None or self.seat_bonus is not None:
                raise UsageError(
                    "give --seat-coins or --start-coins/--seat-bonus, not both (--seat-coins "
                    "sets every seat's start coins)"
                )
        checked(self.out, "out", "path", optional=True)
        checked(self.scheduler, "--scheduler", "text", optional=True)
        if self.scheduler is not None and self.backend != "dask":
            raise UsageError("--scheduler needs --backend dask (a scheduler is a dask cluster's)")
        if self.out is None and (self.force or self.resume):
            raise UsageError("force and resume need a results folder (out)")

    def rules(self, players: int, **changes: object) -> Rules:
        """The rules of a table of ``players`` (and ``changes``), or a UsageError. With seat
        coins, the flat schedule's fields say seat 0's coins and no bonus, so that no record
        shows a schedule that is not played."""
        from barbaron.rules import Rules

        values = {
            "players": players,
            "rounds": self.rounds,
            "start_coins": self.start_coins,
            "seat_bonus": self.seat_bonus,
            "seat_coins": self.seat_coins,
            **changes,
        }
        if values["seat_coins"]:
            values.update(start_coins=values["seat_coins"][0], seat_bonus=0)
        try:
            return Rules(**{k: v for k, v in values.items() if v is not None})
        except ValueError as e:
            from barbaron.config import RULES_OPTIONS

            message = str(e)
            for name, option in RULES_OPTIONS.items():  # (QA: "rules: rounds must be ...")
                message = message.replace(f"rules: {name}", f"rules: {option}")
            raise UsageError(message) from None

    def job(self, arms: list[Arm], games: int, *, rotate: bool | None = None) -> Job:
        """The harness's Job for ``arms``, or a UsageError."""
        from barbaron.harness import Job

        try:
            return Job(
                arms=tuple(arms),
                games=games,
                seed=self.seed,
                rotate=self.rotate if rotate is None else rotate,
                batch_size=self.batch_size,
                workers=self.workers,
                backend=self.backend,
                scheduler=self.scheduler,
            )
        except ValueError as e:
            raise UsageError(str(e)) from None


# --- results ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunResult:
    """What a run returns: its summary (the dict of ``summary.json``), its folder (or None),
    and how much it played now."""

    summary: dict
    out: Path | None  # the results folder, or None for a run in memory
    games_total: int  # games in the results, over every lineup, resumed ones included
    games_now: int = field(compare=False)  # games this call played (a resume plays fewer)
    seconds: float = field(compare=False)  # how long this call played
    rows: pa.Table | None = field(default=None, repr=False, compare=False)  # in-memory games
    manifest: str | None = field(default=None, repr=False, compare=False)  # out's manifest.json
    # as the run left it: what tells that the folder still holds this run

    @property
    def bots(self) -> pd.DataFrame:
        """Per bot: games, seats, win share with its 95% interval, mean worth, worth share."""
        return frame(self.summary["bots"])

    @property
    def seats(self) -> pd.DataFrame:
        """Per seat: win share with its 95% interval, mean worth."""
        return frame(self.summary["seats"])

    def games(self) -> pd.DataFrame:
        """One row per game and seat (the columns of ``games.parquet``), read when asked. A
        run of several lineups lists them in order (column ``arm``), each by game and seat,
        whatever the batch size or workers (the files hold them unit by unit, lineups mixed)."""
        if self.rows is not None:
            return _in_order(self.rows.to_pandas())
        if self.out is None:
            raise ValueError("this run kept no games")
        import pandas as pd

        from barbaron.results import ResultsError

        try:
            now = (self.out / "manifest.json").read_text()
        except OSError:
            now = None
        if self.manifest is not None and now != self.manifest:
            raise ResultsError(
                f"{self.out} no longer holds this run ("
                + ("it is gone" if now is None else "another run replaced it")
                + "): play it again, or read its games.parquet as it is now"
            )
        return _in_order(pd.read_parquet(self.out / "games.parquet"))


def _in_order(games: pd.DataFrame) -> pd.DataFrame:
    """``games`` of several lineups by lineup (in the order they were listed), game and seat."""
    if "arm" not in games.columns:  # (one lineup: its units hold consecutive games, in order)
        return games
    return games.sort_values(["arm", "game", "seat"], kind="stable", ignore_index=True)


def frame(rows: list[dict]) -> pd.DataFrame:
    import pandas as pd

    from barbaron.results import flat_rows

    return pd.DataFrame(flat_rows(rows))


# --- checking arguments ------------------------------------------------------------------------
MAX_MAGNITUDE = 1e12  # the largest number a list of values (--bonus, --param) may hold
MAX_MAGNITUDE_TEXT = f"{MAX_MAGNITUDE:g}".replace("e+", "e")  # as the messages say it

KINDS = {
    "whole": "a whole number",
    "bool": "True or False",
    "number": "a number",
    "text": "non-empty text",
    "spec": "non-empty text",  # a bot spec: a class or instance given is told its spec
    "path": "a folder path (text or a pathlib.Path)",
}


def shown(value: object) -> str:
    """``value`` for a one-line message: its repr (shortened) and its type."""
    text = " ".join(repr(value).split())
    text = text if len(text) <= 60 else text[:57] + "..."
    return text if value is None else f"{text} ({type(value).__name__})"


def checked(value: object, name: str, kind: str, *, optional: bool = False):
    """``value`` if it is of ``kind`` (a key of :data:`KINDS`), else a UsageError naming the
    argument ``name`` and what it must be; ``optional``: None passes too. Whole numbers come back
    as ``int``, numbers as given."""
    if value is None and optional:
        return None
    if kind == "whole":
        ok = is_whole(value)
    elif kind == "bool":
        value = flag(value)
        ok = isinstance(value, bool)
    elif kind == "number":
        ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    elif kind in ("text", "spec"):
        ok = isinstance(value, str) and bool(value.strip())
    elif kind == "path":
        ok = (isinstance(value, str) and bool(value.strip())) or (
            isinstance(value, os.PathLike) and isinstance(os.fspath(value), str)
        )
    else:
        raise ValueError(f"unknown kind {kind!r}")
    if not ok:
        either = " or None" if optional and not isinstance(value, str) else ""
        spec = _as_spec(value) if kind == "spec" else ""  # (a bot given for its spec)
        raise UsageError(f"{name} must be {KINDS[kind]}{either}, got {shown(value)}{spec}")
    return int(value) if kind == "whole" else value


def specs_of(value: object, name: str) -> list[str]:
    """Bot specs: one (text) or a list of them, each non-empty text; else a UsageError."""
    if isinstance(value, str):
        value = [value]
    elif isinstance(value, bytes | bytearray | Mapping | Set) or not isinstance(value, Iterable):
        raise UsageError(
            f"{name} must be a bot spec (text such as 'normal' or 'hard:risk=0.5') or a list "
            f"of them, got {shown(value)}{_as_spec(value)}"
        )
    specs = list(value)
    for spec in specs:
        if not isinstance(spec, str) or not spec.strip():
            raise UsageError(
                f"{name} must be bot specs (text such as 'normal' or 'hard:risk=0.5'), "
                f"got {shown(spec)}{_as_spec(spec)}"
            )
    return specs


def _as_spec(bot: object) -> str:
    """For a strategy class or instance given where a spec is needed: how to write its spec
    (a class of a notebook or script is ``__main__:Class``)."""
    from barbaron.registry import class_spec, spec_writable
    from barbaron.strategy import constructor_arguments, format_value, is_strategy

    cls = bot if isinstance(bot, type) else type(bot)
    if not is_strategy(bot) or "<locals>" in cls.__qualname__:  # (no spec reaches that one)
        return ""
    name = cls.__dict__.get("registered_name")  # its own: a subclass inherits its parent's (QA)
    if name is not None:  # a built-in bot, or one registered by a package
        return f"; write it as a spec: {name if bot is cls else repr(bot)}"
    params = {} if bot is cls else constructor_arguments(bot) or {}
    unwritable = [k for k, v in params.items() if not spec_writable(v)]
    if unwritable:  # (its spec would be refused: QA)
        return (
            f"; a spec cannot write its {unwritable[0]} (a {type(params[unwritable[0]]).__name__}"
            f"): make that value the default of {class_spec(cls)}, or of a subclass, and name it"
        )
    written = ",".join(f"{k}={format_value(v).replace(',', ';')}" for k, v in params.items())
    return f"; write it as a spec: {class_spec(cls)}{':' + written if written else ''}"


def players_of(players: object) -> int | None:
    """The table size asked for (2, 3 or 4), or None for the default; else a UsageError."""
    if players is None:
        return None
    players = checked(players, "--players", "whole")
    if not 2 <= players <= 4:
        raise UsageError(f"--players must be 2, 3 or 4, got {players}")
    return players


def distinct(values: list, what: str) -> list:
    """``values`` if none is listed twice; else a UsageError."""

    def same(a: object, b: object) -> bool:  # 5 and 5.0 are one value; true and 1 are two
        return isinstance(a, bool) == isinstance(b, bool) and a == b

    for i, v in enumerate(values):
        if any(same(v, w) for w in values[:i]):
            raise UsageError(f"{what} lists {v} twice: give every value once")
    return values


def games_or_default(games: int | None, default: int, rotations: int, what: str = "games") -> int:
    """``games`` as given (checked to be whole), or when None the command's ``default`` rounded
    down to whole deals: a multiple of the ``rotations`` (a table of 3 plays 19,998 of 20,000).
    A number given is played exactly, or refused when it is not whole deals."""
    if games is None:
        return default - default % rotations
    return checked(games, what, "whole")


def parse_values(text: str, what: str) -> list[float]:
    """Numbers from text: ``'0:200:25'`` (START:STOP:STEP, inclusive) or ``'10,20,50'``;
    finite, at most ``MAX_MAGNITUDE`` in size, each once, and at most ``MAX_POINTS`` of them
    (counted before any list is built)."""
    shape = (
        f"{what} must look like START:STOP:STEP (e.g. 0:200:25) or a comma list "
        f"(e.g. 0,50,100) of finite numbers, got {text!r}"
    )
    if not isinstance(text, str):
        raise UsageError(f"{what} must be text like '0:200:25' or '0,50,100', got {shown(text)}")

    def not_too_large(found: Iterable[float]) -> None:
        for v in found:
            check_magnitude(v, what)

    try:
        if not text.strip():
            raise ValueError
        if ":" in text:
            start, stop, step = (number_text(x) for x in text.split(":"))
            if not all(map(math.isfinite, (start, stop, step))):
                raise ValueError
            if step <= 0:
                raise UsageError(f"{what} {text!r}: STEP must be above 0")
            if stop < start:
                raise UsageError(f"{what} {text!r}: STOP must be at least START (ranges go up)")
            not_too_large((start, stop))
            count = int(math.floor((stop - start) / step + 1e-9)) + 1
            if count > MAX_POINTS:
                raise UsageError(f"{what} {text!r} has {count:,} values; at most {MAX_POINTS:,}")
            first, by = (Decimal(x.strip()) for x in text.split(":")[::2])  # decimal steps
            values = [float(first + i * by) for i in range(count)]  # exact: 0.3 * 3 is 0.9
        else:
            values = [number_text(x) for x in _comma_items(text, what, "numbers")]
            if not all(map(math.isfinite, values)):
                raise ValueError
            not_too_large(values)
    except UsageError:
        raise
    except ValueError:
        raise UsageError(shape) from None
    return distinct([int(v) if float(v).is_integer() else v for v in values], what)


def _comma_items(text: str, what: str, kind: str) -> list[str]:
    """The items of a comma list of ``kind``: at most ``MAX_POINTS``, none empty."""
    items = text.split(",")
    if len(items) > MAX_POINTS:
        raise UsageError(f"{what} has {len(items):,} values; at most {MAX_POINTS:,}")
    if not all(x.strip() for x in items):
        raise UsageError(
            f"{what} has an empty value in {text!r}: {kind} separated by single commas"
        )
    return items


def parameter_values(text: str, what: str, *, text_values: bool = False) -> list:
    """A parameter's values from text: a range of numbers (:func:`parse_values`), or a comma
    list of values as a bot spec writes them, numbers or not (``none,0,500``, ``true,false``,
    ``greedy,hard:margin=-100;risk=0``); with ``text_values`` (a parameter whose default is
    text), the items as written."""
    from barbaron.registry import parse_value

    if text_values and isinstance(text, str):
        return distinct([x.strip() for x in _comma_items(text, what, "values")], what)
    if not isinstance(text, str) or not any(c.isalpha() for c in text.lower().replace("e", "")):
        return parse_values(text, what)  # numbers only (1e3 included): the range's own errors
    values = [parse_value(x.strip()) for x in _comma_items(text, what, "values")]
    for v in values:
        check_magnitude(v, what)
    return distinct(values, what)


def check_magnitude(value: object, what: str) -> None:
    """A UsageError for a number (of any kind) that is not finite or beyond ``MAX_MAGNITUDE``
    in size, as a list of values may hold; anything else passes."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        return
    try:
        ok = abs(float(value)) <= MAX_MAGNITUDE  # (nan and inf fail)
    except OverflowError:  # a whole number past what a float holds
        ok = False
    if not ok:
        text = " ".join(repr(value).split())
        text = text if len(text) <= 30 else f"{text[:27]}..."
        raise UsageError(
            f"{what} value {text} is not a finite number of at most {MAX_MAGNITUDE_TEXT} in size"
        )


# --- running ---------------------------------------------------------------------------------
def execution_of(options: RunOptions) -> Execution:
    known = {f.name for f in fields(Execution)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(
            f"unknown argument {unknown[0]!r}: the run options are {', '.join(sorted(known))}"
        )
    return Execution(**options)


def build_bots(specs: Sequence[str]) -> list:
    """Build every spec, so that a bad one fails before any game is played."""
    from barbaron.registry import BotSpecError, make_bots

    specs = specs_of(specs, "bots")
    try:
        return make_bots(specs)
    except BotSpecError as e:
        raise UsageError(str(e)) from None


def same_bot(a: object, b: object) -> bool:
    """Whether two built strategies are one bot: the same class with the same constructor
    arguments (``normal`` and ``normal:cushion=880`` are); not where those are unknown (a
    plugin class of its own has no ``params``: they are read from its spec, QA)."""
    from barbaron.registry import bot_arguments
    from barbaron.strategy import same_arguments

    if type(a) is not type(b):
        return False
    arguments = bot_arguments(a)
    return arguments is not None and same_arguments(arguments, bot_arguments(b))


def one_bot(specs: Sequence[str]) -> bool:
    """Whether every spec of a lineup builds the same bot: its rotations would repeat
    identical games."""
    first, *others = build_bots(specs)  # (one spec: a table of that bot)
    return all(same_bot(first, other) for other in others)


def identical_seats(specs: Sequence[str], rotate: bool) -> str | None:
    """What a lineup played in rotation repeats (a summary records it, so that the tables and
    ``report`` can say so): ``"spec"``, one spec in every seat, whose deals are played once;
    ``"bot"``, specs spelt differently for one bot, whose rotations repeat identical games (an
    A/A test); None when the bots differ or no rotation was asked for."""
    if not rotate:
        return None
    if len(set(specs)) == 1:
        return "spec"
    return "bot" if one_bot(specs) else None


def lineup_bots(specs: Sequence[str]) -> list:
    """One strategy per seat of a 2- to 4-player table."""
    specs = specs_of(specs, "--bots")
    if not 2 <= len(specs) <= 4:
        import shlex

        from barbaron.registry import seat_words

        words = seat_words(specs[0]) if len(specs) == 1 else []
        joined = f" ({specs[0]!r}: write --bots {shlex.join(words)})" if len(words) > 1 else ""
        raise UsageError(f"--bots takes 2 to 4 bot specs, one per seat; got {len(specs)}{joined}")
    return build_bots(specs)


def field_or_own(field: str | Sequence[str] | None, bot: str, players: int | None) -> list[str]:
    """:func:`field_of` ``field``, by default the studied ``bot`` with its own defaults (its spec
    without parameters), which must build: a bot with a parameter that has no default needs a
    field given (QA: the error named a spec the user never wrote)."""
    if field is not None:
        return field_of(field, players)
    from barbaron.registry import BotSpecError, make_bot, split_spec

    own = split_spec(bot)[0]
    if own != bot:
        build_bots([bot])  # (the bot's own fault first, said as itself)
        try:
            make_bot(own)
        except BotSpecError as e:
            raise UsageError(
                f"{e}: without --field the field is the bot with its own defaults, {own!r}, "
                "which cannot be built; give --field SPEC"
            ) from None
    return field_of(own, players)


def field_of(field: str | Sequence[str], players: int | None) -> list[str]:
    """The field's bot specs, one per other seat: one spec repeated (for ``players``, default
    4), or one per seat (``players``, if given, must be their number + 1)."""
    specs = specs_of(field, "--field")
    players = players_of(players)
    if not 1 <= len(specs) <= 3:
        raise UsageError(
            f"--field takes 1 to 3 bot specs (one, or one per other seat); got {len(specs)}"
        )
    if len(specs) == 1:
        return specs * ((players or 4) - 1)
    if players is not None and players != len(specs) + 1:
        raise UsageError(
            f"--players {players} disagrees with the {len(specs)} --field specs (a table of "
            f"{len(specs) + 1}): give --players {len(specs) + 1} or leave it out"
        )
    return specs


def table_of(bots: str | Sequence[str], players: object) -> list[str]:
    """The bot specs of a seat-fairness table, one per seat: one spec for every seat of a table
    of ``players`` (default 4), or 2 to 4 specs (``players``, if given, must be their number)."""
    bots = specs_of(bots, "--bots")
    players = players_of(players)
    if len(bots) == 1:
        bots = bots * (players or 4)
    elif not 2 <= len(bots) <= 4:
        raise UsageError(f"--bots takes 1 bot (with --players) or 2 to 4 bots; got {len(bots)}")
    elif players is not None and players != len(bots):
        raise UsageError(
            f"--players {players} disagrees with the {len(bots)} --bots specs: give --players "
            f"{len(bots)} or leave it out"
        )
    build_bots(bots)
    return bots


@dataclass
class Run:
    """A run under way: its job, where it writes (a results folder, or memory), what it played.

    Used as a context manager around playing and finishing: whatever stops it (Ctrl-C, a dead
    worker, a full disk) leaves the folder resumable, lets go of its lock, and becomes one
    :class:`RunInterrupted` or :class:`RunFailed` that says how to resume.
    """

    command: str
    execution: Execution
    job: Job
    sink: object  # results.RunFolder or results.InMemory
    outcome: RunOutcome | None = None

    @classmethod
    def open(
        cls,
        command: str,
        execution: Execution,
        arms: list[Arm],
        games: int,
        settings: dict | None = None,
        **job: object,
    ) -> Run:
        """The run of ``arms`` with its results folder (or memory) ready; nothing played yet.
        ``settings``: what else decides its results, checked on --resume (``RunFolder``)."""
        job = execution.job(arms, games, **job)  # (checked before pyarrow loads)
        from barbaron.results import InMemory, ResultsError, RunFolder

        if execution.out is None:
            return cls(command, execution, job, InMemory(job))
        try:
            folder = RunFolder(
                execution.out,
                job,
                command,
                force=execution.force,
                resume=execution.resume,
                settings=settings,
            )
        except ResultsError as e:
            raise UsageError(str(e)) from None
        return cls(command, execution, job, folder)

    def __enter__(self) -> Run:
        return self

    def __exit__(self, kind, error, traceback) -> None:
        if error is None:
            return
        sink = self.sink
        raise_when_complete(sink, error)
        partial = getattr(sink, "partial", None)
        if partial is not None and not sink.done_units() and not self.execution.resume:
            sink.discard()  # nothing finished: leave nothing behind (the lock still held)
        kept = None if partial is None else partial.exists()
        sink.close()
        raise_stopped(error, kept, f"finished units are kept in {partial}", "game", "run")
        if isinstance(error, RuntimeError) and "dask" in str(error):
            raise UsageError(str(error)) from None

    def play(
        self,
        on_unit: Callable[[UnitResult, list[Totals]], bool] | None = None,
        *,
        stopping: bool = True,
    ) -> None:
        """Play the units not yet done (``on_unit``, ``stopping``: see ``run.execute``)."""
        from barbaron import interrupts
        from barbaron.run import execute

        quiet = not self.execution.progress
        # a folder with its plots: matplotlib imported while the games play
        plots = getattr(self.sink, "partial", None) is not None and self.execution.plots
        with interrupts.deferred():  # a Ctrl-C in the main thread's import would block this one's
            self.outcome = execute(
                self.job,
                self.sink,
                quiet=quiet,
                on_unit=on_unit,
                stopping=stopping,
                on_start=_import_plots if plots else None,
            )

    @property
    def totals(self) -> list[Totals]:
        return self.outcome.totals

    def finish(
        self,
        result_type: type[RunResult],
        summary: dict,
        table: list[dict],
        *,
        also_games: int = 0,
        also_seconds: float = 0.0,
    ):
        """Write the folder (summary, table, plots, games) and return the typed result.
        ``also_games`` and ``also_seconds``: what was played before the job (a search that
        chose it), counted in the result and the manifest."""
        from barbaron.results import InMemory

        outcome = self.outcome
        total = sum(t.deals for t in outcome.totals) * self.job.rotations
        seconds = outcome.seconds + also_seconds
        common = {
            "summary": summary,
            "games_total": total + also_games,
            "games_now": outcome.games_now + also_games,
            "seconds": seconds,
        }
        if isinstance(self.sink, InMemory):
            return result_type(out=None, rows=self.sink.table(), **common)
        import importlib

        command = importlib.import_module(f"barbaron.commands.{self.command}")
        figures = command.figures(summary, self.sink.shard_files()) if self.execution.plots else []
        out = self.sink.finish(
            summary, table, figures, seconds=seconds, games_played=common["games_now"]
        )
        return result_type(out=out, manifest=self.sink.manifest_text, **common)


def _import_plots() -> None:
    """Import the plots' modules (matplotlib) on a background thread while the games play; a
    failure is left to the import when the plots are drawn."""
    import importlib

    from barbaron.harness import in_background

    def load() -> None:
        with contextlib.suppress(Exception):
            importlib.import_module("barbaron.plots")

    in_background(load, "barbaron-import-plots")


def raise_when_complete(folder: object, error: BaseException) -> None:
    """A Ctrl-C that came once ``folder``'s results were in place (as it tidied up) says so:
    they are whole, and nothing is to be resumed."""
    if getattr(folder, "complete", False) and isinstance(error, KeyboardInterrupt):
        folder.close()
        raise interrupted_when_complete(folder.out) from None


RESUME_ADVICE = "run the same command with --resume (in the library: resume=True) to continue"


def raise_stopped(
    error: BaseException, kept: bool | None, kept_text: str, unit: str, holder: str
) -> None:
    """What stopped a run, as one line: Ctrl-C (or SIGTERM) becomes :class:`RunInterrupted`,
    a fault :class:`RunFailed`, each saying what was kept (``kept_text``, when ``kept``; None
    for a run in memory) and how to resume; a bot's failure says what was kept too. Anything
    else is left to propagate."""
    from barbaron.strategy import IllegalDecision, StrategyError

    resume = f"{kept_text} (its manifest says partial); {RESUME_ADVICE}"
    if isinstance(error, IllegalDecision | StrategyError) and kept:
        raise type(error)(
            f"{error}; {kept_text}: fix the bot and start afresh with --force (force=True in "
            "the library); --resume continues them only with every bot unchanged"
        ) from error
    if isinstance(error, KeyboardInterrupt):
        if kept is None:
            raise RunInterrupted(f"interrupted (the {holder} was in memory: nothing was kept)")
        if not kept:
            raise RunInterrupted(f"interrupted before any {unit} finished; nothing was written")
        raise RunInterrupted(f"interrupted: {resume}") from None
    from barbaron.results import NotMoved, OutChanged, PluginChanged, ResultsError

    if isinstance(error, OutChanged | PluginChanged | NotMoved):  # its line says it all
        raise RunFailed(str(error)) from None
    if isinstance(error, RunFailed | ResultsError | OSError):
        if _disk_full(error):  # (QA: --resume alone failed the same way on the full disk)
            resume = resume.replace(RESUME_ADVICE, f"free space on that disk, then {RESUME_ADVICE}")
        where = f"; {resume}" if kept else "; nothing was kept"
        raise RunFailed(f"{os_message(error)}{where}") from None


def _disk_full(error: BaseException) -> bool:
    """Whether ``error`` is a full disk's (said by this process, or by a worker's line)."""
    import errno

    full = (errno.ENOSPC, errno.EDQUOT)
    return getattr(error, "errno", None) in full or any(os.strerror(n) in str(error) for n in full)


def os_message(error: BaseException) -> str:
    """One line for an OS error (with the path it concerns) or any of barbaron's own."""
    if isinstance(error, OSError) and error.filename:
        return f"cannot write {error.filename}: {error.strerror or error}"
    return str(error).splitlines()[0] if str(error) else type(error).__name__

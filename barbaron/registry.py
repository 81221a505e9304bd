"""The bot registry and bot specs: short names with parameters, or a user's own class.

A bot family registers itself under a short name with the :func:`register` decorator::

    @register("normal")
    class Normal(Strategy):
        \"\"\"Homie Normal: keeps a cash cushion; takes over only to complete a district.\"\"\"

The first line of the class docstring is the bot's description in ``barbaron bots``; its
parameters and their defaults come from the constructor's signature. A separately installed
package adds bots through the ``barbaron.bots`` entry-point group, one entry per bot (the entry's
name is the bot's name)::

    [project.entry-points."barbaron.bots"]
    mybot = "mypackage.bots:MyBot"

The registry fills itself on first use (:func:`bot_entries`, :func:`listing`, :func:`make_bot`),
not when this module is imported: it imports every module of the ``barbaron.bots`` package, then
loads the entry points. An entry point that fails to load, or that claims a name another
package's entry point holds, makes that name unusable with a one-line error; the other bots still
work. One that claims a built-in bot's name (or one registered with :func:`register`) is refused
and the name keeps its bot: the Homies, mc's playouts and the checker's tables name built-in
bots, and a package must not change what they play (``barbaron bots`` says so).

A spec is ``NAME``, ``NAME:key=value,key=value``, ``path/to/file.py:ClassName[:key=value,...]``
or ``[package.]module:ClassName[:key=value,...]`` (a module on the import path). Values: whole
numbers, decimals, ``none``, ``true``/``false``, or text.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import importlib
import inspect
import math
import numbers
import re
import shlex
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, TypeVar

from barbaron.errors import UsageError
from barbaron.params import closest_name, number_text
from barbaron.plugins import is_file

if TYPE_CHECKING:  # imported where needed: importing this module must stay cheap (numba!)
    from importlib.metadata import EntryPoint

    from barbaron.strategy import Strategy

BOTS_PACKAGE = "barbaron.bots"  # built-in bots: every module of this package
ENTRY_POINT_GROUP = "barbaron.bots"  # bots of other installed packages

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")  # a bot name a spec can hold (no '.', ':', '/')

T = TypeVar("T", bound=type)


class BotSpecError(UsageError):
    """A bot spec that names no bot, or gives it parameters it does not take (a usage error,
    as every bad input the library is given)."""


@dataclass(frozen=True)
class BotEntry:
    """A registered bot family: its name, class, description and constructor parameters."""

    name: str
    cls: type
    description: str  # the first line of the class's own docstring
    parameters: tuple[tuple[str, object], ...]  # (name, default); inspect.Parameter.empty: none

    @classmethod
    def of(cls, name: str, bot_class: type) -> BotEntry:
        """The entry of ``bot_class`` registered as ``name``."""
        import inspect

        from barbaron.strategy import constructor_parameters

        doc = inspect.cleandoc(bot_class.__dict__.get("__doc__") or "")
        return cls(
            name=name,
            cls=bot_class,
            description=doc.partition("\n")[0].strip().removesuffix("."),
            parameters=tuple((p.name, p.default) for p in constructor_parameters(bot_class)),
        )

    def parameter_text(self) -> str:
        """The parameters with their defaults as a spec writes them: ``cushion=250, ...``."""
        import inspect

        from barbaron.strategy import format_value

        return ", ".join(
            name if default is inspect.Parameter.empty else f"{name}={format_value(default)}"
            for name, default in self.parameters
        )


# --- registration -------------------------------------------------------------------------

_registered: dict[str, type] = {}  # by @register; kept for the process (modules import once)
_plugins: dict[str, type] = {}  # loaded from entry points
_unusable: dict[str, str] = {}  # name -> why it cannot be used (a broken entry point, a clash)
_scan_problem: list[str] = []  # why the entry points could not be read, if they could not
_refused: list[str] = []  # entry points refused for claiming a registered (built-in) name
_loaded = False
_loading = False  # _load is importing the built-in bots and entry points now
_resets = 0  # calls of reset() so far
_lock = threading.RLock()


def _same(a: type, b: type) -> bool:
    """One class, or the same class defined again (its module imported a second time)."""
    return a is b or class_spec(a) == class_spec(b)


def register(name: str) -> Callable[[T], T]:
    """Class decorator: register a bot class under the short ``name`` used in bot specs.

    Sets ``cls.registered_name``, which the generic ``repr`` writes, so the bot's repr is a spec
    that builds it again. Registering a name twice, for two classes, is a ``BotSpecError``.
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"a bot name is a letter then letters, digits, _ or -, got {name!r}")

    def decorate(cls: T) -> T:
        with _lock:
            for known in (_registered, _plugins):
                other = known.get(name)
                if other is not None and not _same(other, cls):
                    raise BotSpecError(
                        f"bot name {name!r} registered twice: by {class_spec(other)} and by "
                        f"{class_spec(cls)}"
                    )
            _registered[name] = cls
        cls.registered_name = name
        return cls

    return decorate


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _load_entry_point(ep: EntryPoint) -> None:
    dist = getattr(ep, "dist", None)
    where = f"entry point '{ep.name} = {ep.value}'" + (
        f" (from {dist.name} {dist.version})" if dist is not None else ""
    )
    if not _NAME.fullmatch(ep.name):
        _unusable[ep.name] = f"{where}: not a valid bot name"
        return
    other = _registered.get(ep.name)  # a built-in keeps its name, however the entry fails (QA)
    try:
        cls = ep.load()
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # SystemExit too: a plugin must not end the program
        _problem(ep.name, f"cannot load {where}: {_one_line(e)}", built_in=other is not None)
        return
    if not isinstance(cls, type):
        _problem(ep.name, f"{where} is not a class", built_in=other is not None)
        return
    if other is not None and not _same(other, cls):
        _refused.append(f"{where} refused: {ep.name!r} is {class_spec(other)}")
        return
    other = _plugins.get(ep.name)
    if other is not None and not _same(other, cls):
        _unusable[ep.name] = (
            f"bot name {ep.name!r} registered twice: by {class_spec(other)} and by "
            f"{class_spec(cls)} ({where})"
        )
        return
    _plugins[ep.name] = cls
    if "registered_name" not in cls.__dict__:  # its repr then names it as a spec does
        cls.registered_name = ep.name


def _problem(name: str, why: str, *, built_in: bool) -> None:
    """An entry point that cannot be used: its name unusable, or, where a built-in holds the
    name, listed as refused and the built-in kept."""
    if built_in:
        _refused.append(f"{why}; refused: {name!r} is a built-in bot's name")
    else:
        _unusable[name] = why


def _load() -> None:
    """Import the built-in bots and load the entry points, once (until :func:`reset`). A call
    made while they load (a plugin module that builds a bot as it imports) returns at once: the
    built-ins are in by then, and a second scan would meet that module half imported."""
    global _loaded, _loading
    if _loaded:
        return
    import pkgutil
    from importlib import metadata

    with _lock:  # (an RLock: the nested call of the loading thread gets here)
        if _loaded or _loading:
            return
        _loading = True
        try:
            package = importlib.import_module(BOTS_PACKAGE)
            for module in pkgutil.iter_modules(package.__path__, f"{BOTS_PACKAGE}."):
                importlib.import_module(module.name)  # its @register decorators run
            try:
                entry_points = metadata.entry_points(group=ENTRY_POINT_GROUP)
            except Exception as e:  # broken metadata of some installed package: no plugins
                _scan_problem.append(f"cannot read entry points: {_one_line(e)}")
                entry_points = ()
            for ep in entry_points:
                _load_entry_point(ep)
            _loaded = True
        finally:
            _loading = False


def reset() -> None:
    """Forget the entry points found so far; the next lookup looks for them again (for tests,
    or after installing a plugin package in a running process)."""
    global _loaded, _resets
    with _lock:
        _resets += 1
        _plugins.clear()
        _unusable.clear()
        _scan_problem.clear()
        _refused.clear()
        _loaded = False


def resets() -> int:
    """How many times :func:`reset` was called in this process (helpers started before the
    last one have not looked again)."""
    return _resets


def bot_entries() -> dict[str, BotEntry]:
    """Every usable registered bot, by name (sorted)."""
    _load()
    with _lock:
        classes = {**_registered, **_plugins}
        names = sorted(set(classes) - set(_unusable))
    return {name: BotEntry.of(name, classes[name]) for name in names}


def known_names() -> list[str]:
    """Every registered bot name, sorted, including names that cannot be used now."""
    _load()
    with _lock:
        return sorted(set(_registered) | set(_plugins) | set(_unusable))


def listing() -> list[str]:
    """The lines of ``barbaron bots``: per bot, sorted by name, its description and then its
    parameters with their defaults; a bot that cannot be used says why."""
    entries = bot_entries()
    with _lock:
        unusable = dict(_unusable)
    names = sorted(set(entries) | set(unusable))
    width = max(map(len, names), default=0)
    lines = []
    for name in names:
        if name in entries:
            entry = entries[name]
            params = entry.parameter_text()
            text = (entry.description + (f"  ({params})" if params else "")).lstrip()  # (QA:
            # a plugin class without a docstring had its parameters out of line)
        else:
            text = f"(unusable) {unusable[name]}"
        lines.append(f"{name:<{width}}  {text}".rstrip())
    with _lock:
        notes = [f"({refused})" for refused in sorted(_refused)]
    return lines + notes + [f"(plugins unavailable: {problem})" for problem in _scan_problem]


def _registered_class(spec: str, name: str) -> type:
    _load()
    with _lock:
        problem = _unusable.get(name)
        cls = _plugins.get(name) or _registered.get(name)
    if problem is not None:
        raise BotSpecError(f"bot {spec!r}: {problem}")
    if cls is None:
        known = known_names()
        if not name:
            raise BotSpecError(
                f"bot {spec!r} has no name before its ':' (a bot is NAME, NAME:key=value,... "
                "or FILE.py:ClassName)"
            )
        if (specs := seat_words(spec)) and specs != [spec]:
            raise BotSpecError(
                f"unknown bot {name!r}: each seat's spec is a word of its own "
                f"({shlex.join(specs)}); a ',' separates one spec's parameters, after its ':'"
                if len(specs) > 1
                else f"unknown bot {name!r} (did you mean {specs[0]!r}?"
                + (" a spec's parameters follow its ':')" if "=" in specs[0] else ")")
            )
        if close := closest_name(name, known):
            raise BotSpecError(f"unknown bot {name!r} (did you mean {close!r}?)")
        first = spec.partition(":")[2].partition(":")[0]
        hint = (  # (my_module:collector: a class name is recognised by its capital letter)
            f"; a plugin's class starts with a capital letter: {name}:{first[0].upper()}"
            f"{first[1:]}?"
            if first.isidentifier()
            else ""
        )
        raise BotSpecError(
            f"unknown bot {name!r} (known: {', '.join(known)}; or a plugin FILE.py:ClassName)"
            + hint
        )
    return cls


# --- specs --------------------------------------------------------------------------------


NONE_WORDS = ("none", "null")  # None for every parameter (never too, but for text parameters)


def parse_value(text: str) -> object:
    """A parameter value from its text: none, true/false, int, float, else the text."""
    low = text.strip().lower()
    if low in (*NONE_WORDS, "never"):
        return None
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return number_text(text, kind)
        except ValueError:
            pass
    return text


def _params(spec: str, text: str, defaults: dict[str, object]) -> dict[str, object]:
    """The parameters a spec gives, each read by :func:`parse_value`, except that one whose
    default is text gets the text as written (``mode=never`` is "never", ``mode=123`` "123"),
    ``none`` (or ``null``) apart: None, as for every parameter."""
    params: dict[str, object] = {}
    for item in text.split(",") if text else ():
        if not item.strip():  # (hard:risk=0,,reserve=0 or a trailing comma: a slip, said)
            raise BotSpecError(
                f"bot {spec!r}: an empty parameter (a comma too many: write key=value,key=value)"
            )
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise BotSpecError(f"bot {spec!r}: parameter {item!r} is not key=value")
        if key in params:
            raise BotSpecError(f"bot {spec!r}: parameter {key!r} given twice")
        text = isinstance(defaults.get(key), str) and value.strip().lower() not in NONE_WORDS
        params[key] = value.strip() if text else parse_value(value)
    return params


PLUGIN_MODULE = "barbaron_plugin_"  # the start of the module name of a plugin loaded from a file
# the specs refused within plugins_refused() (None outside it)
_REFUSING: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "barbaron_plugins_refused", default=None
)


@contextlib.contextmanager
def plugins_refused() -> Iterator[list[str]]:
    """Within it only registered bots are built (built-ins and installed entry points): a
    ``FILE.py:Class`` or ``module:Class`` spec, nested ones too, fails and is listed in the list
    given. For the bots a data file names (a scenario's), which must not run code, or build a
    class of a module imported already (``ctypes:CDLL:name=...``: review), that came with it."""
    refused: list[str] = []
    token = _REFUSING.set(refused)
    try:
        yield refused
    finally:
        _REFUSING.reset(token)


_file_sources: dict[str, bytes] = {}  # module name of a file plugin -> digest of the source run


def class_spec(cls: type) -> str:
    """How a message names a bot class: ``FILE.py:Class`` for one loaded from a file (its
    module's name is internal), ``module:Class`` otherwise."""
    module = sys.modules.get(cls.__module__)
    if cls.__module__.startswith(PLUGIN_MODULE) and getattr(module, "__file__", None):
        return f"{module.__file__}:{cls.__qualname__}"
    return f"{cls.__module__}:{cls.__qualname__}"


def _load_class(spec: str, where: str, name: str) -> type:
    _load()  # the built-in names first: a plugin's own register() cannot take one, whatever the
    # order of the specs (QA: it did when it came first, and the built-in's import then failed)
    module_name = None
    if (
        not where.endswith(".py")
        and "/" not in where
        and Path(where).suffix
        and is_file(Path(where))
    ):
        raise _not_python(spec, where)  # (QA: good.txt was read as the module good.txt)
    if (refusing := _REFUSING.get()) is not None:
        refusing.append(spec)
        raise BotSpecError(f"bot {spec!r}: a plugin, whose code is not run here")
    if where.endswith(".py") or "/" in where:
        path = Path(where)
        if not path.is_file():
            raise BotSpecError(f"bot {spec!r}: no file {where}")
        resolved = str(path.resolve()).encode(errors="surrogateescape")
        module_name = f"{PLUGIN_MODULE}{hashlib.sha256(resolved).hexdigest()[:16]}"
    try:
        if module_name is not None:
            module = _file_module(spec, where, module_name)
        else:
            module = importlib.import_module(where)
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # the user's module failed to import (even by sys.exit): say so
        if module_name is not None:
            sys.modules.pop(module_name, None)
            _file_sources.pop(module_name, None)
        if isinstance(e, BotSpecError) and str(e).startswith(f"bot {spec!r}"):
            raise  # (one that names this spec already; another, such as a bot name registered
            # twice as the module loads, is said to come from it: QA)
        hint = ""
        first, dot, _ = where.partition(".")
        missing = isinstance(e, ModuleNotFoundError)
        if missing and module_name is None and dot and Path(f"{first}.py").is_file():  # (QA:
            hint = f" (did you mean the file {first}.py:{name}?)"  # clever.pyy for clever.py)
        elif missing and e.name == first:  # (QA)
            file = where.replace(".", "/") + ".py"
            hint = f" (put the folder that holds it on PYTHONPATH, or name the file: {file}:{name})"
            if Path(where).suffix.lower() in FILE_SUFFIXES:  # (review: not "missing/txt.py")
                hint = (
                    f" (nor is there a file {where} here, and a plugin file ends in .py; a "
                    "module: put the folder that holds it on PYTHONPATH)"
                )
        elif missing and module_name is not None and e.name:
            folder = Path(where).parent  # a module the plugin file imports, beside it (QA)
            beside = folder / e.name.partition(".")[0]
            if beside.with_suffix(".py").is_file() or beside.is_dir():
                hint = (
                    f" ({e.name} lies beside {where}: a plugin's own imports are found on "
                    f"PYTHONPATH, so put {folder.resolve()} there)"
                )
        said = str(e) if isinstance(e, BotSpecError) else _one_line(e)  # (barbaron's own words)
        raise BotSpecError(f"bot {spec!r}: cannot import {where}: {said}{hint}") from None
    from barbaron.strategy import BASE_CLASSES, Strategy

    cls = getattr(module, name, None)
    base = any(cls is b for b in BASE_CLASSES)  # imported there: what bots are built on
    if not isinstance(cls, type) or base:
        classes = sorted(
            k
            for k, v in vars(module).items()
            if isinstance(v, type)
            and issubclass(v, Strategy)
            and v.__module__ == module.__name__
            and v not in BASE_CLASSES
        )
        defined = ", ".join(classes) or "none"
        if base:
            raise BotSpecError(
                f"bot {spec!r}: {name} is barbaron's base class, not a bot: name your subclass "
                f"of it (strategy classes defined in {where}: {defined})"
            )
        head, comma, rest = name.partition(",")
        nested = f" ({where}:{head}:{rest.replace(',', ';')} inside another bot's parameter)"
        hint = (  # (QA: "own=params.py:Knobs;cushion=5" read as the class 'Knobs,cushion=5')
            f"; parameters follow the class after a ':', as in {where}:{head}:{rest}"
            + (nested if "," in rest else "")
            if comma and "=" in name
            else ""
        )
        raise BotSpecError(
            f"bot {spec!r}: {where} has no class {name!r} (strategy classes defined there: "
            f"{defined}){hint}"
        )
    return cls


FILE_SUFFIXES = (".txt", ".json", ".csv", ".md", ".ipynb", ".pyc", ".pyw", ".yaml", ".yml")  # a
# name that reads as a file, not as package.module, when no such module is found


def _not_python(spec: str, where: str) -> BotSpecError:
    """The error for a plugin named by a file Python does not import (``notes.txt``)."""
    return BotSpecError(
        f"bot {spec!r}: {where} is not a Python file: a plugin is a file ending in .py "
        "(path/to/file.py:ClassName) or a module on PYTHONPATH (package.module:ClassName)"
    )


def _file_module(spec: str, where: str, module_name: str) -> ModuleType:
    """The module of a file plugin: run once per process (a worker builds its bots for every
    unit), and again only when the file has changed since (a notebook's edit)."""
    from importlib.util import module_from_spec, spec_from_file_location

    digest = hashlib.sha256(Path(where).read_bytes()).digest()
    module = sys.modules.get(module_name)
    if module is not None and _file_sources.get(module_name) == digest:
        return module
    loader = spec_from_file_location(module_name, where)
    if loader is None:  # a file Python does not import
        raise _not_python(spec, where)
    module = module_from_spec(loader)
    sys.modules[module_name] = module  # dataclasses and pickling look modules up here
    _file_sources.pop(module_name, None)
    loader.loader.exec_module(module)
    _file_sources[module_name] = digest
    return module


def _is_plugin(head: str) -> bool:
    return head.endswith(".py") or "/" in head or "." in head


def _names_class(rest: str) -> bool:
    """Whether the text after a spec's first colon starts with a class name (``Bot``, not
    ``cushion=5``): then the head is a module, a top-level one too (``my_bots:Bot``)."""
    first = rest.partition(":")[0]
    return first.isidentifier() and first[0].isupper()


def seat_words(spec: str) -> list[str]:
    """The registered bots' specs a text written as one spec holds, split at its commas and
    spaces: a word that names a bot starts a spec, a ``key=value`` word is a parameter of the
    one before (``'normal,hard:risk=0,easy'`` -> ``['normal', 'hard:risk=0', 'easy']``,
    ``'hard,risk=0'`` -> ``['hard:risk=0']``); [] where a word is neither (a plugin, a path)."""
    known = set(known_names())
    specs: list[str] = []
    for word in re.split(r"[,\s]+", spec.strip()):
        if word.partition(":")[0] in known:
            specs.append(word)
        elif specs and "=" in word and ":" not in word:
            specs[-1] += ("," if ":" in specs[-1] else ":") + word
        elif word:
            return []
    return specs


def split_spec(spec: str) -> tuple[str, str]:
    """(the bot, its parameter text): ``'normal:cushion=5'`` -> ``('normal', 'cushion=5')``,
    ``'my.py:Bot:x=1'`` -> ``('my.py:Bot', 'x=1')``, ``'bots:Bot'`` -> ``('bots:Bot', '')``."""
    head, _, rest = spec.partition(":")
    if _is_plugin(head) or _names_class(rest):  # a plugin: FILE:Class[:params]
        name, _, params = rest.partition(":")
        return f"{head}:{name}", params
    return head, rest


def with_param(spec: str, key: str, value: object) -> str:
    """``spec`` with one more parameter (or a new value for it)."""
    from barbaron.strategy import format_value

    bot, params = split_spec(spec)
    kept = [p for p in params.split(",") if p and p.partition("=")[0].strip() != key]
    return f"{bot}:{','.join([*kept, f'{key}={format_value(value)}'])}"


def spec_writable(value: object) -> bool:
    """Whether a spec can write ``value`` (a collection it cannot: its commas separate
    parameters)."""
    return not isinstance(value, tuple | list | dict | set | frozenset)


def _check_kind(spec: str, key: str, value: object, default: object) -> None:
    """A BotSpecError unless ``value`` is of its default's kind: a number for a number, true or
    false for a flag (``none`` always passes), and nothing for a collection, which a spec
    cannot write. Other defaults, or none, leave it to the bot."""
    if value is None:
        return
    if not spec_writable(default):  # (QA: weights=3 passed for (1.0, 2.0))
        raise BotSpecError(
            f"bot {spec!r}: {key} takes a {type(default).__name__} (its default is {default!r}), "
            "which a spec cannot write: leave it out, or subclass the bot with the default you "
            "want and name the subclass"
        )
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise BotSpecError(f"bot {spec!r}: {key} must be true or false, got {value!r}")
    elif isinstance(default, numbers.Real) and (  # (numpy's numbers too)
        isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value)
    ):
        raise BotSpecError(
            f"bot {spec!r}: {key} must be a finite number (its default is {default}), got {value!r}"
        )


def bot_arguments(bot: object) -> dict[str, object] | None:
    """A built bot's constructor arguments, defaults filled in: as a Strategy recorded them,
    else (a plugin class of its own) read again from the spec :func:`make_bot` built it from;
    None where neither tells."""
    from barbaron.strategy import SPEC_ATTRIBUTE, constructor_arguments, constructor_parameters

    params = constructor_arguments(bot)
    if params is not None:
        return params
    spec = getattr(bot, SPEC_ATTRIBUTE, None)
    if not isinstance(spec, str):
        return None
    accepted = {p.name: p.default for p in constructor_parameters(type(bot))}
    return accepted | _params(spec, split_spec(spec)[1], accepted)


def bot_class(spec: str) -> type:
    """The class a spec names (a plugin's module is loaded); BotSpecError if none."""
    bot = split_spec(spec)[0]
    head, _, name = bot.partition(":")
    if name or _is_plugin(head):
        if not name:
            raise BotSpecError(f"bot {spec!r}: a plugin is FILE.py:ClassName or module:ClassName")
        return _load_class(spec, head, name)
    return _registered_class(spec, head)


def make_bots(specs: Sequence[str]) -> list[Strategy]:
    """:func:`make_bot` of every spec, the plugins' modules loaded first: a name one of them
    registers as it loads is then known whatever the specs' order (QA: ``--bots mynew
    reg.py:MyNew`` failed where the other order played, and replay printed it that way)."""
    for spec in specs:
        if isinstance(spec, str) and ":" in split_spec(spec)[0]:  # FILE.py:Class, module:Class
            bot_class(spec)
    return [make_bot(spec) for spec in specs]


def _missing(cls: type, spec: str, params: dict) -> str | None:
    """What to say of a constructor that failed for want of parameters without a default that
    a spec can give (QA: "missing 1 required positional argument: 'a'" said nothing of the
    fix); None if none is missing."""
    from barbaron.strategy import constructor_parameters

    needed = [
        p.name
        for p in constructor_parameters(cls)
        if p.default is inspect.Parameter.empty
        and p.kind is not inspect.Parameter.POSITIONAL_ONLY
        and p.name not in params
    ]
    if not needed:
        return None
    values = ",".join(f"{k}=..." for k in needed)
    param_text = split_spec(spec)[1]
    return (
        f"{cls.__name__} has no default for {', '.join(map(repr, needed))}: give "
        f"{'it a value' if len(needed) == 1 else 'them values'} in the spec "
        f"({spec}{',' if param_text else ':'}{values})"
    )


def _not_built(cls: type, spec: str, params: dict, error: BaseException) -> BotSpecError:
    """The error for a constructor that failed on a spec's parameters."""
    if isinstance(error, TypeError):  # a parameter missing, or a value the bot refuses
        return BotSpecError(f"bot {spec!r}: {_missing(cls, spec, params) or error}")
    if isinstance(error, ValueError):  # a parameter value the bot refuses
        return BotSpecError(f"bot {spec!r}: {error}")
    if isinstance(error, OverflowError):  # too large for the bot's arrays (numpy's own words)
        big = [k for k, v in params.items() if isinstance(v, int | float) and abs(v) >= 2**63]
        which = ", ".join(big) if big else "a parameter's value"
        return BotSpecError(f"bot {spec!r}: {which}: too large for the bot's arrays")
    # the plugin's own constructor failed (or tried to exit)
    return BotSpecError(f"bot {spec!r}: {cls.__name__}() raised {type(error).__name__}: {error}")


def make_bot(spec: str) -> Strategy:
    """The strategy a spec names, built with its parameters; BotSpecError says what is wrong."""
    from barbaron.strategy import SPEC_ATTRIBUTE, constructor_parameters, is_strategy

    if not isinstance(spec, str):
        raise BotSpecError(f"a bot spec is text like 'normal' or 'hard:risk=0', got {spec!r}")
    cls = bot_class(spec)
    param_text = split_spec(spec)[1]
    if spec.endswith(":"):  # (hard: played as hard, labelled another bot)
        raise BotSpecError(
            f"bot {spec!r} ends with ':' and no parameters: write {spec[:-1]!r}, or give "
            "key=value after the ':'"
        )
    accepted = {p.name: p.default for p in constructor_parameters(cls)}
    params = _params(spec, param_text, accepted)
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise BotSpecError(
            f"bot {spec!r}: unknown parameter {unknown[0]!r} "
            f"(valid: {', '.join(accepted) or 'none'})"
        )
    failure: BaseException | None = None
    try:
        bot = cls(**params)
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # said below, once each value is known to be of its kind
        failure = e
    if failure is not None and any(re.search(rf"\b{re.escape(k)}\b", str(failure)) for k in params):
        raise _not_built(cls, spec, params, failure)  # the bot's own check, naming its value
    for key, value in params.items():  # after the bot's own checks, which say more, but
        _check_kind(spec, key, value, accepted[key])  # before a failure that names none of
    if failure is not None:  # the values (QA: "'<' not supported between 'str' and 'int'")
        raise _not_built(cls, spec, params, failure)
    with contextlib.suppress(AttributeError):  # error messages name the bot as it was given
        setattr(bot, SPEC_ATTRIBUTE, spec)  # (a name of barbaron's: a bot's own "spec" stays)
    if not is_strategy(bot):  # (after it is built: a bot may get its methods as it is made)
        raise BotSpecError(
            f"bot {spec!r}: {cls.__name__} is not a strategy (it needs upgrade, buy and "
            "takeover methods; subclass barbaron.strategy.Strategy)"
        )
    return bot

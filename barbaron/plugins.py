"""Which files a bot spec loads, and their hashes: plugin modules and files, files given as
parameters, nested specs, classes of ``__main__``. A run records them so that a resume, its end
or a replay can refuse a strategy whose code changed (``barbaron.results``); light to import,
so that a check or replay refuses a bad spec before the engine loads."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def plugin_hashes(specs: list[str]) -> dict[str, str]:
    """A content hash of every file the specs load, so that a resume (or a replay) can refuse
    a changed strategy: plugin modules (``file.py:Class`` or ``[package.]module:Class``), also
    inside another spec's parameters (``mc:own=my.py:Bot``), files given as parameters
    (``value:weights=w.json``) or named by a plugin's defaults for those a spec leaves out
    (``weights="w.json"`` in its constructor), and classes of ``__main__`` (``__main__:Class``,
    a script's or a session's: :func:`_main_class_hash`). A plugin that cannot be read is
    recorded as ``UNREADABLE``."""
    hashes: dict[str, str] = {}
    for kind, name in _names_in(specs):
        if kind == "class":  # of __main__ (no file: the class's own code)
            hashes.setdefault(name, _main_class_hash(name.partition(":")[2]))
        elif kind == "plugin" and name not in hashes:
            path = _plugin_path(name)
            hashes[name] = _sha256(path) if path is not None and is_file(path) else UNREADABLE
        elif kind == "text" and is_file(Path(name)):
            hashes.setdefault(name, _sha256(Path(name)))
    return hashes


def names_in(specs: Sequence[str]) -> set[str]:
    """Every name the specs give that :func:`plugin_hashes` could record, whether it exists
    now or not (a file gone since a run still belongs to the specs that named it)."""
    return {name for _, name in _names_in(specs)}


def _names_in(specs: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(kind, name) for every class of ``__main__`` ("class", ``__main__:Class``), plugin
    module or file ("plugin"), text parameter and file a plugin's default names ("text") in
    the specs, nested specs too (their parameters written with ";"; a nested ``x:y`` is a
    plugin where y is a Class name or x names a module or file there is, and text otherwise)."""
    from barbaron.registry import parse_value, split_spec

    def visit(spec: str, nested: bool) -> Iterator[tuple[str, str]]:
        bot, params = split_spec(spec)
        head, plugin, cls = bot.partition(":")
        main = head == "__main__"
        if plugin and (main or not nested or cls[:1].isupper() or _plugin_path(head) is not None):
            yield ("class", bot) if main else ("plugin", head)
            given = {item.partition("=")[0].strip() for item in params.split(",")}
            yield from (("text", path) for path in _default_files(spec, given))
        for item in params.split(","):
            value = item.partition("=")[2].strip()
            if not value or not isinstance(parse_value(value), str):  # a number names no file
                continue
            yield "text", value
            if ":" in value and not is_file(Path(value)):  # a spec inside a spec
                yield from visit(value.replace(";", ","), nested=True)

    for spec in specs:
        yield from visit(spec, nested=False)


def _default_files(spec: str, given: set[str]) -> list[str]:
    """The files a plugin's constructor defaults name (text or a path, to a file there is), for
    the parameters not ``given``: a weights file the bot opens by default (the plugin's module
    is loaded to read them; a spec that names no class names no file)."""
    from barbaron.registry import BotSpecError, bot_class
    from barbaron.strategy import constructor_parameters

    try:
        cls = bot_class(spec)
    except BotSpecError:  # (building its bots says what is wrong with it)
        return []
    defaults = [p.default for p in constructor_parameters(cls) if p.name not in given]
    return [str(d) for d in defaults if isinstance(d, str | os.PathLike) and is_file(Path(d))]


UNREADABLE = "unreadable"  # plugin_hashes' mark of a plugin it cannot read
UNDEFINED = "undefined"  # its mark of a class of __main__ this session does not define


def _main_class_hash(name: str) -> str:
    """A hash of the class ``name`` of ``__main__``: of the whole script it was written in (its
    helpers and defaults too), or in an interactive session of the class's source where Python
    can find it; ``UNREADABLE`` otherwise (then a resume cannot tell it is the same class)."""
    import inspect

    main = sys.modules.get("__main__")
    cls = getattr(main, name, None)
    if not isinstance(cls, type):
        return UNDEFINED
    script = getattr(main, "__file__", None)
    if isinstance(script, str) and is_file(Path(script)):
        return _sha256(Path(script))
    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):  # typed into an interactive session
        return UNREADABLE
    return hashlib.sha256(source.encode()).hexdigest()


def _plugin_path(head: str) -> Path | None:
    """The file of a plugin named ``file.py`` (or a path) or ``package.module``; None if no
    module of that name is found."""
    if head.endswith(".py") or "/" in head:
        return Path(head)
    try:
        found = importlib.util.find_spec(head)
    except (ImportError, ValueError):  # its package is missing, or the name is not one
        return None
    return Path(found.origin) if found is not None and found.origin else None


def is_file(path: Path) -> bool:
    """Whether ``path`` names a file (a name no file can have, too long or with a NUL: no)."""
    try:
        return path.is_file()
    except (OSError, ValueError):  # a name too long, or with a NUL: no file
        return False


def plugin_change(
    then: object, now: dict[str, str], since: str, where: object = None
) -> str | None:
    """What differs between the file hashes a run recorded (``then``) and those of its specs
    now (:func:`plugin_hashes`), in a few words; None if nothing. ``since``: when it was
    recorded (``"it started"``); ``where``: the folder it was recorded in, if known (relative
    paths were read from there)."""
    given = isinstance(where, str) and where != ""
    here = given and same_folder(where, os.getcwd())
    known = given and not here
    folder = where if known else "another folder"  # where relative paths were read
    then = then if isinstance(then, dict) else {}
    for name in sorted(p for p in now if p.startswith("__main__:")):  # a session's classes
        if now[name] == UNDEFINED:
            return f"the class {name} is not defined here, as it was when {since}"
        if now[name] == UNREADABLE:  # (unreadable then and now would pass as unchanged)
            return (
                f"the code of the class {name} cannot be read to tell whether it changed "
                f"since {since} (a class typed into an interactive session: put it in a file)"
            )
    changed = sorted(p for p in {*then, *now} if then.get(p) != now.get(p))
    if not changed:
        return None
    name = changed[0]
    if name.startswith("__main__:"):
        return f"the code of the class {name} has changed since {since}"
    if name not in now and not Path(name).is_absolute() and not here:  # (relative: elsewhere?)
        return (  # (QA: a relative weights file said "is gone" from another folder)
            f"the file {name} is not in {os.getcwd()}: deleted since, or {since} in "
            f"{folder} (run this from there)"
        )
    if name not in now:
        return f"the file {name}, read when {since}, is gone"
    if now[name] == UNREADABLE and _plugin_path(name) is None:  # a module, not a file
        return (
            f"the module {name} cannot be imported here (put its folder on PYTHONPATH, as "
            f"when {since})"
        )
    if now[name] == UNREADABLE and Path(name).is_absolute():
        return f"the file {name}, read when {since}, cannot be read now"
    if now[name] == UNREADABLE and here:  # (review: "run this from" the folder it is in)
        return f"the file {name}, read when {since}, is gone (or cannot be read)"
    if now[name] == UNREADABLE:
        return (
            f"the file {name} cannot be read from {os.getcwd()} (run this from "
            f"{f'{where}, where' if known else 'the folder where'} {since})"
        )
    if name not in then:
        return f"{_called(name)} was not there when {since}"
    return f"{_called(name)} has changed since {since}"


def same_folder(a: str, b: str) -> bool:
    """Whether two paths name one folder (a symlink to it too)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one is gone (a run folder moved since): compare the names
        return os.path.realpath(a) == os.path.realpath(b)


def _called(name: str) -> str:
    """How a message names a plugin: ``the module pkg.mod`` or ``the file path/to/bot.py`` (a
    name with a hash is one of the two; told apart without importing anything)."""
    file = name.endswith(".py") or "/" in name or os.sep in name or is_file(Path(name))
    return f"the {'file' if file else 'module'} {name}"

"""Ctrl-C (and SIGTERM) while games play are taken at safe points, not wherever they land.

Python raises ``KeyboardInterrupt`` between any two bytecodes. Raised inside importlib it can
leave an import lock held, and the next import (the plots, at the end of the run) waits for
ever; raised inside numba's callback while a compiled kernel loads, it is swallowed and the
Ctrl-C is lost. Both were seen at the start of runs with workers. So while a run plays
(:func:`deferred`), the signal only notes that it came, and the engine and the harness raise
``KeyboardInterrupt`` where they call :func:`check`: before every turn slot and between units.
A second one before that point (a strategy that never returns) is raised at once, and so is
every one within :func:`immediate` (a wait on another machine, with no slot of ours to check).
A signal the process was told to ignore (a background job of a shell) stays ignored.
"""

from __future__ import annotations

import contextlib
import functools
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

from barbaron import end_while_starting

P = ParamSpec("P")
R = TypeVar("R")

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received: list[int] = []  # the signals noted and not yet raised (process-wide, as signals)
_depth = 0  # how many deferred() blocks are open in the main thread
_immediate = 0  # how many immediate() blocks are open in the main thread


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _note(signum: int, frame: object) -> None:
    """The handler while deferred. A raise it makes may itself be swallowed (inside a callback
    whose errors are only printed), so the note stays until a check or the block's end."""
    _received.append(signum)
    if len(_received) > 1 or _immediate:  # a second one, or nothing of ours to check
        _landed.append(signum)  # (raised where it lands: it may come out as another error)
        raise KeyboardInterrupt


def _quiet_about_interrupts(hook: Callable, unraisable: sys.UnraisableHookArgs) -> None:
    """``sys.unraisablehook`` within :func:`deferred`: a Ctrl-C raised inside a callback that
    cannot raise (numba's, as a kernel loads) printed 7 lines of "Exception ignored" before the
    run's own one line (QA); it is noted (:func:`_note`), so nothing is lost by not printing it.
    Any other error goes to the ``hook`` that was there before."""
    if not isinstance(unraisable.exc_value, KeyboardInterrupt):
        hook(unraisable)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Within the block, Ctrl-C and SIGTERM are noted and raised by :func:`check` (or at the
    block's end). Nests; outside the main thread (where no handler may be set) it does
    nothing."""
    global _depth
    if not _in_main_thread():
        yield
        return
    outermost = _depth == 0
    previous: dict[int, object] = {}
    _depth += 1
    came = False
    try:
        if outermost:
            _received.clear()
            hook = sys.unraisablehook
            sys.unraisablehook = functools.partial(_quiet_about_interrupts, hook)
            for s in _SIGNALS:
                handler = signal.getsignal(s)
                if handler not in (signal.SIG_IGN, None):  # None: a handler set by C code
                    previous[s] = handler
                    signal.signal(s, _note)
        yield
    finally:
        _depth -= 1
        if outermost:
            if isinstance(quiet := sys.unraisablehook, functools.partial) and (
                quiet.func is _quiet_about_interrupts
            ):  # (one set within the block stays)
                sys.unraisablehook = hook
            for s, handler in previous.items():
                signal.signal(s, handler)
            came = bool(_received)  # after the last check (or while the block failed)
            _received.clear()
    if came:
        raise KeyboardInterrupt


def deferring(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` run within :func:`deferred`, from its first line: a library call imports
    numba and pyarrow on its way to the games, and a Ctrl-C raised half-way through such an
    import leaves the module broken for the rest of the process (seen: numba without its
    ``core``). Noted instead, it ends the run at its first check, as on the command line."""

    @functools.wraps(function)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        returned = False
        try:
            with deferred():
                result = function(*args, **kwargs)
                returned = True
        except KeyboardInterrupt:
            if not (returned and hasattr(result, "out")):
                raise
            from barbaron.errors import interrupted_when_complete  # noted as it returned

            raise interrupted_when_complete(result.out) from None
        return result

    return call


@contextlib.contextmanager
def immediate() -> Iterator[None]:
    """Within a deferred block: Ctrl-C and SIGTERM raise where they land again (a wait with
    nothing of barbaron's own running in this process)."""
    global _immediate
    if not _in_main_thread():
        yield
        return
    _immediate += 1
    try:
        check()
        yield
    finally:
        _immediate -= 1


_landed: list[int] = []  # signals raised where they landed (raise_interrupt, a second _note)


def raise_interrupt(signum: int, frame: object) -> None:
    """Python's own handling of Ctrl-C (``KeyboardInterrupt`` where it lands), noted: raised
    inside C code it can come out as another error (inside numpy's import, an ImportError: QA),
    which the command line then still reports as the interrupt it was (:func:`landed`)."""
    _landed.append(signum)
    raise KeyboardInterrupt


def landed() -> bool:
    """Whether a Ctrl-C or SIGTERM was raised where it landed since :func:`started` (by
    :func:`raise_interrupt`, or by :func:`_note` as a second one): an error it came out as is
    that interrupt."""
    return bool(_landed)


def started() -> None:
    """Ctrl-C and SIGTERM back to Python's own handling (Ctrl-C's noted: :func:`raise_interrupt`),
    if :func:`barbaron.quiet_while_starting` took them (the script's run then says what it
    kept)."""
    _landed.clear()
    for s, default in (
        (signal.SIGINT, raise_interrupt),
        (signal.SIGTERM, signal.SIG_DFL),
    ):
        if signal.getsignal(s) is end_while_starting:
            signal.signal(s, default)


def check() -> None:
    """Raise ``KeyboardInterrupt`` if Ctrl-C or SIGTERM came since the last check (in the
    main thread, within a deferred block; elsewhere nothing is ever noted)."""
    if _received and _depth and _in_main_thread():
        _received.clear()
        raise KeyboardInterrupt

"""Ctrl-C (and SIGTERM) while games play are taken at safe points, not wherever they land.

Python raises ``KeyboardInterrupt`` between any two bytecodes. Raised inside importlib it can
leave an import lock held, and the next import (the plots, at the end of the run) waits for
ever; raised inside numba's callback while a compiled kernel loads, it is swallowed and the
Ctrl-C is lost. Both were seen at the start of runs with workers. So while a run plays
(:func:`deferred`), the signal only notes that it came, and the engine and the harness raise
``KeyboardInterrupt`` where they call :func:`check`: before every turn slot and between units.
A second one before that point (a strategy that never returns) is raised at once.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received: list[int] = []  # the signals noted since the last check (process-wide, as signals)
_depth = 0  # how many deferred() blocks are open in the main thread


def _note(signum: int, frame: object) -> None:
    if _received:  # the first was not taken yet: the user insists
        _received.clear()
        raise KeyboardInterrupt
    _received.append(signum)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Within the block, Ctrl-C and SIGTERM are noted and raised by :func:`check` (or at the
    block's end). Nests; outside the main thread (where no handler may be set) it does
    nothing."""
    global _depth
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    outermost = _depth == 0
    previous = {s: signal.signal(s, _note) for s in _SIGNALS} if outermost else {}
    _depth += 1
    came = False
    try:
        yield
    finally:
        _depth -= 1
        if outermost:
            for s, handler in previous.items():
                signal.signal(s, handler)
            came = bool(_received)  # after the last check (or while the block failed)
            _received.clear()
    if came:
        raise KeyboardInterrupt


def check() -> None:
    """Raise ``KeyboardInterrupt`` if Ctrl-C or SIGTERM came since the last check."""
    if _received:
        _received.clear()
        raise KeyboardInterrupt

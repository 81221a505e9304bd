"""Small vector helpers the bot families share, and :func:`lazy_njit`, which compiles a bot's
numba kernels on first use (importing a bot, as ``barbaron bots`` does, must not import numba)."""

from __future__ import annotations

import functools
import json
import math
import threading
from pathlib import Path

import numpy as np

from barbaron import rules as R
from barbaron.strategy import BatchView

_COMPILE_LOCK = threading.RLock()


class LazyKernel:
    """A module-level function that becomes ``numba.njit(cache=True, nogil=True)(func)`` on its
    first call (nogil: the run's writer thread works while a kernel runs).

    Made by :func:`lazy_njit`. The first call of any lazy kernel of a module imports numba and
    puts a numba dispatcher in place of every lazy kernel among the module's globals (and, in
    turn, among the globals of the modules those kernels come from), before anything is
    compiled. So a kernel that calls another kernel by its global name compiles as with a plain
    ``@nb.njit``: numba resolves the callee's global name when it compiles the caller, and finds
    a dispatcher there. Calls from Python after that go straight to the dispatcher (the
    module's global name now holds it); a reference taken earlier (``from m import kernel``)
    keeps working through this object. The function object is unchanged, so numba's on-disk
    cache (``cache=True``: keyed by source file, function name and line) works as it did.
    """

    def __init__(self, func) -> None:
        functools.update_wrapper(self, func)
        self.py_func = func
        self.dispatcher = None

    def __call__(self, *args):
        dispatcher = self.dispatcher
        if dispatcher is None:
            with _COMPILE_LOCK:
                _materialize(self.py_func.__globals__, set())
            dispatcher = self.dispatcher
        return dispatcher(*args)

    def __repr__(self) -> str:
        state = "compiled" if self.dispatcher is not None else "not compiled yet"
        return f"<lazy numba kernel {self.__module__}.{self.__qualname__} ({state})>"


def _materialize(namespace: dict, seen: set[int]) -> None:
    """Replace every lazy kernel in ``namespace`` (a module's globals) by its dispatcher."""
    if id(namespace) in seen:
        return
    seen.add(id(namespace))
    import numba

    for name, value in list(namespace.items()):
        if isinstance(value, LazyKernel):
            if value.dispatcher is None:
                value.dispatcher = numba.njit(cache=True, nogil=True)(value.py_func)
            namespace[name] = value.dispatcher
            _materialize(value.py_func.__globals__, seen)


def lazy_njit(func):
    """Decorator: ``@nb.njit(cache=True, nogil=True)``, compiled on first use instead of
    importing numba when the module is imported. Use it on module-level functions only; a
    kernel calls another kernel by its global name (defined in, or imported by name into, the
    same module)."""
    return LazyKernel(func)


def row_scores(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """(n,) ``x @ w`` per row of the (n, f) features ``x``, summed in one fixed order. A matrix
    product's last bits depend on a row's place in the matrix (BLAS blocks the rows), and two
    options that tie exactly (two bars of the same price) were then told apart by that noise:
    a game's choice depended on the games batched with it."""
    total = x[:, 0] * w[0]
    for column in range(1, x.shape[1]):
        total += x[:, column] * w[column]
    return total


def upgradable(view: BatchView, games: np.ndarray, budget: np.ndarray) -> np.ndarray:
    """(k, 12) bars the seat owns below Draught Tap whose next level costs at most ``budget``."""
    return (
        (view.owner[games] == view.seat)
        & (view.level[games] < R.MAX_LEVEL)
        & (R.UPGRADE_COST_TABLE <= np.asarray(budget)[..., None])
    )


def pick(allowed: np.ndarray, score: np.ndarray) -> np.ndarray:
    """(k,) per row the allowed column with the highest score (ties: lowest index), or -1."""
    masked = np.where(allowed, score, -np.inf)
    return np.where(allowed.any(axis=1), masked.argmax(axis=1), -1).astype(np.int8)


def coins(view: BatchView, games: np.ndarray) -> np.ndarray:
    """(k,) the deciding seat's coins, as int64 for arithmetic."""
    return view.coins[games, view.seat].astype(np.int64)


def random_choice(allowed: np.ndarray, u: np.ndarray) -> np.ndarray:
    """(k,) per row a uniformly random allowed column, chosen by ``u`` in [0, 1), or -1."""
    count = allowed.sum(axis=1)
    nth = (u * count).astype(np.int64)  # 0 .. count-1
    rank = np.cumsum(allowed, axis=1) - 1
    hit = allowed & (rank == nth[:, None])
    return np.where(count > 0, hit.argmax(axis=1), -1).astype(np.int8)


def dearest(allowed: np.ndarray) -> np.ndarray:
    """(k,) per row the allowed bar with the highest index (the dearest, R2), or -1."""
    last = R.N_BARS - 1 - allowed[:, ::-1].argmax(axis=1)
    return np.where(allowed.any(axis=1), last, -1).astype(np.int8)


MAX_WEIGHT = 1e12  # a fitted weight's largest size (the shipped ones are below 3): no overflow


def read_weights(path: str | Path, key: str, names: list[str]) -> np.ndarray:
    """A bot's fitted weights from a JSON file holding ``key`` (the names, in order) and
    ``weights`` (one finite number per name); a missing or corrupt file raises ValueError
    naming the file and the problem."""
    if not isinstance(path, str | Path) or not str(path).strip():
        raise ValueError(f"weights must be the path of a weights file, got {path!r}")
    path = Path(path).expanduser()
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"weights file {path} not found") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"weights file {path} is not readable JSON ({e})") from None
    if not isinstance(data, dict) or list(data.get(key, [])) != list(names):
        shown = ", ".join(names) if len(names) <= 20 else f"{names[0]} ... {names[-1]}"
        raise ValueError(
            f"weights file {path} does not hold the {len(names)} {key} this bot reads ({shown})"
        )
    w = data.get("weights")
    if (
        not isinstance(w, list)
        or len(w) != len(names)
        or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in w)
        or not all(math.isfinite(x) and abs(x) <= MAX_WEIGHT for x in w)
    ):  # (QA: weights of 1e308 overflowed every score to nan, read as "no")
        raise ValueError(
            f"weights file {path}: 'weights' must be {len(names)} finite numbers of at most "
            f"{MAX_WEIGHT:.0e} in size"
        )
    return np.array(w, dtype=np.float64)

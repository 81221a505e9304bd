"""numba's set-up without the whole ``scipy.linalg`` package.

numba sets up its CPU target when a process first calls a kernel. That set-up imports
``scipy.linalg.cython_blas`` only to check that a BLAS is there (``numba.np.arraymath``), and the
import runs all of ``scipy.linalg``'s package imports: about 0.2 s of every command that plays
games and of every helper's start. barbaron's kernels call no BLAS, so :func:`cython_blas_alone`
loads that one extension module by itself while numba checks, then takes it out of
``sys.modules`` again: a later ``import scipy.linalg`` (the tournament's fits) runs as usual and
binds the same module object.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

CYTHON_BLAS = "scipy.linalg.cython_blas"


def _load_alone() -> bool:
    """Put scipy's cython_blas extension module into ``sys.modules`` without its package; False
    if scipy.linalg is loaded already or the module cannot be found or loaded (numba then
    imports it, or does without, as it always does)."""
    if CYTHON_BLAS in sys.modules or "scipy.linalg" in sys.modules:
        return False
    scipy = importlib.util.find_spec("scipy")
    if scipy is None or scipy.origin is None:
        return False
    folder = Path(scipy.origin).parent / "linalg"
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = folder / f"cython_blas{suffix}"
        if path.is_file():
            spec = importlib.util.spec_from_file_location(CYTHON_BLAS, path)
            module = importlib.util.module_from_spec(spec)
            try:
                spec.loader.exec_module(module)
            except ImportError:
                return False
            sys.modules[CYTHON_BLAS] = module
            return True
    return False


@contextlib.contextmanager
def cython_blas_alone() -> Iterator[None]:
    """Within the block, ``import scipy.linalg.cython_blas`` finds the module loaded alone."""
    loaded = _load_alone()
    try:
        yield
    finally:
        if loaded:
            del sys.modules[CYTHON_BLAS]

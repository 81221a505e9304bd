"""Environments for learning agents on the batch engine (the ``[rl]`` extra).

- :class:`BatchEnv` (``barbaron.env.core``, numpy only): many games at once, arrays in and out;
- :class:`SeatEnv` (``barbaron.env.seat``, gymnasium): one seat of one game, registered as
  ``barbaron/Seat-v0`` when this package is imported;
- :class:`TableEnv` (``barbaron.env.table``, pettingzoo): every seat an agent (AEC).

Actions, observations and masks are the same in all three: see ``barbaron.env.core``.
"""

from __future__ import annotations

from barbaron.env.core import (
    N_ACTIONS,
    BatchEnv,
    IllegalAction,
    field_names,
    obs_size,
)

__all__ = ["N_ACTIONS", "BatchEnv", "IllegalAction", "SeatEnv", "TableEnv", "field_names"]
__all__ += ["obs_size"]

SEAT_ENV_ID = "barbaron/Seat-v0"


def __getattr__(name: str):
    if name == "SeatEnv":
        from barbaron.env.seat import SeatEnv

        return SeatEnv
    if name == "TableEnv":
        from barbaron.env.table import TableEnv

        return TableEnv
    raise AttributeError(f"module 'barbaron.env' has no attribute {name!r}")


def _register() -> None:
    try:
        import gymnasium
    except ImportError:  # the [rl] extra is not installed: BatchEnv still works
        return
    if SEAT_ENV_ID not in gymnasium.registry:
        gymnasium.register(id=SEAT_ENV_ID, entry_point="barbaron.env.seat:SeatEnv")


_register()

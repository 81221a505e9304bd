"""Defaults and limits the library and the command line share (no heavy imports: the command
line reads them at start-up)."""

import contextvars

COMMAND_LINE: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "command_line", default=None
)  # the command being run (barbaron's, a study's), for manifests; None for a library call

DEFAULT_BATCH_SIZE = 16384  # games per unit of work: small enough for memory, big for speed
MAX_INDEX = 2**63  # seeds and game indices are whole numbers in [0, MAX_INDEX)
DEFAULT_GAMES = 20_000  # play's, seats' (per bonus) and sweep's (per value): rounded to deals
SOLVE_GAMES = 1_000_000  # seats --solve's search and confirmation: rounded to whole deals
TRIAL_GAMES = 40_000  # tune's games per trial: rounded to whole deals
MAX_GAMES = 10**10  # games per lineup: more would take days, and the streams allow no more deals
MAX_WORKERS = 256  # worker processes at the most (and never more than units of work)
MAX_POINTS = 1000  # values of a swept parameter or seat bonus at the most
PAIRED_ARMS = 100  # a sweep of at most this many values has paired differences from its best
CHECK_GAMES = 2000  # distinct games `barbaron check` plays by default
MAX_BATCH_SIZE = 1 << 20  # games per unit of work at the most (memory grows with it)
MAX_ROLLOUTS = 4096  # rollouts per option (mc) or per frame (replay --html) at the most
SPRT_LOOK = 4096  # games per arm (whole deals) from one look of compare's SPRT to the next
BACKENDS = ("local", "dask")  # where units are played: processes on this machine, a dask cluster
OLD_BACKEND_NAMES = {"loky": "local"}  # names of earlier versions, still taken


def backend_named(name: str) -> str:
    """The backend a name given by a user means (an earlier version's name is still taken)."""
    return OLD_BACKEND_NAMES.get(name, name)


RULES_OPTIONS = {  # a Rules field, as the command line sets it
    "rounds": "--rounds",
    "start_coins": "--start-coins",
    "seat_bonus": "--seat-bonus",
    "seat_coins": "--seat-coins",
}


def option_text(value: object) -> str:
    """A value as a command line writes it: ``none``, ``1000,1100`` for a list, else as is."""
    if value is None:
        return "none"
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    return str(value)


STUDY_FILE = "study.db"  # barbaron tune's optuna storage (SQLite) in its results folder

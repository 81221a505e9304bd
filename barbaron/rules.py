"""The rules of Bar Baron as constants and small money formulas, shared by every engine.

Sources: ``shared/spec/bar-baron-rules.txt`` (the authority) and the numbered decisions in
``shared/spec/RULES-CLARIFIED.md`` (cited as ``# Rn``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from barbaron.params import counted, listed, whole

# --- The board (R1) -------------------------------------------------------------------------
SPACE_NAMES: tuple[str, ...] = (
    "Payday",
    "Lecture Hall 3",
    "Semester Bar",
    "The Mortarboard",
    "Jukebox",
    "The Jug",
    "Golden Rooster",
    "Town Cellar",
    "Curfew",
    "The Anchor",
    "Lighthouse",
    "The Galley",
    "Regulars' Table",
    "Neon Light",
    "Night Moth",
    "Golden Mile",
)
N_SPACES = 16
PAYDAY, JUKEBOX, CURFEW, REGULARS_TABLE = 0, 4, 8, 12
CARD_SPACES = (JUKEBOX, REGULARS_TABLE)
NEON_LIGHT = 13  # Taxi's destination (R18)
PUB_CRAWL_STEPS = 3  # R18
WAGES = 150  # R8

# --- The bars (R2) ----------------------------------------------------------------------------
N_BARS = 12
BAR_SPACES: tuple[int, ...] = (1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15)
BAR_NAMES: tuple[str, ...] = tuple(SPACE_NAMES[s] for s in BAR_SPACES)
PRICES: tuple[int, ...] = (80, 80, 100, 120, 120, 140, 160, 160, 180, 200, 200, 240)
BASE_TABS: tuple[int, ...] = (20, 20, 25, 30, 30, 35, 40, 40, 45, 50, 50, 60)
DISTRICT_NAMES: tuple[str, ...] = ("Campus", "Old Town", "Harbour", "The Strip")
BARS_PER_DISTRICT = 3
N_DISTRICTS = 4
MAX_LEVEL = 2  # 0 plain, 1 Happy Hour, 2 Draught Tap
LEVEL_NAMES: tuple[str, ...] = ("no upgrade", "Happy Hour", "Draught Tap")
UPGRADE_MULTIPLIER: tuple[int, ...] = (1, 3, 6)  # R11, by level
# R11: the district bonus as twice the factor (1, 1.5, 2), indexed by bars the owner holds there.
DISTRICT_BONUS_X2: tuple[int, ...] = (0, 2, 3, 4)

# space index -> bar index, -1 for the corners
SPACE_TO_BAR: tuple[int, ...] = tuple(
    BAR_SPACES.index(s) if s in BAR_SPACES else -1 for s in range(N_SPACES)
)


def district_of(bar: int) -> int:
    """District index of a bar (R2: bar // 3)."""
    return bar // BARS_PER_DISTRICT


# --- The cards (R3) ---------------------------------------------------------------------------
CARDS: tuple[str, ...] = (
    "round_on_the_house",
    "regulars",
    "bouncer",
    "birthday",
    "health_inspection",
    "pub_crawl",
    "police_check",
    "lottery_ticket",
    "broken_glass",
    "tax_audit",
    "taxi",
    "free_keg",
    "influencer_video",
    "burst_pipe",
)
N_CARDS = len(CARDS)
CARD_INDEX: dict[str, int] = {name: i for i, name in enumerate(CARDS)}
CARD_TITLES: tuple[str, ...] = (
    "Round on the house!",
    "Regulars",
    "Bouncer",
    "Birthday at the bar",
    "Health inspection",
    "Pub crawl",
    "Police check",
    "Lottery ticket",
    "Broken glass",
    "Tax audit",
    "Taxi to The Strip",
    "Free keg",
    "Influencer video",
    "Burst pipe",
)
ROUND_ON_THE_HOUSE_EACH = 30  # R13
BIRTHDAY_EACH = 25  # R13
REGULARS_GAIN = 100
LOTTERY_GAIN = 150
BROKEN_GLASS_COST = 60
HEALTH_INSPECTION_PER_LEVEL = 25  # R18
FREE_KEG_FALLBACK = 50  # R18
INFLUENCER_PER_BAR = 20
BURST_PIPE_PER_BAR = 20


# --- Money formulas (R9-R12) ------------------------------------------------------------------
def round_half_up(x2: int, step: int) -> int:
    """Round x2 / 2 to the nearest multiple of ``step``, halves up (R9); x2 is twice the value."""
    return (x2 + step) // (2 * step) * step


def tab(bar: int, level: int, owner_bars_in_district: int) -> int:
    """The tab a visitor pays on ``bar`` (R11): base x (1, 3, 6) x (1, 1.5, 2), nearest 5 (R9)."""
    x2 = BASE_TABS[bar] * UPGRADE_MULTIPLIER[level] * DISTRICT_BONUS_X2[owner_bars_in_district]
    return round_half_up(x2, 5)


def bar_value(bar: int, level: int) -> int:
    """A bar's value (R10): price plus half the price per level."""
    return PRICES[bar] + int(level) * PRICES[bar] // 2


def upgrade_cost(bar: int) -> int:
    """The cost of one upgrade level (R16): half the bar's price."""
    return PRICES[bar] // 2


def takeover_cost(value: int) -> int:
    """What a takeover costs (R9, R15): 1.5 x the bar's value, rounded half up to 10."""
    return round_half_up(3 * value, 10)


def sale_price(value: int) -> int:
    """What the bank pays for a bar in a forced sale (R12): half its value."""
    return value // 2


def tax_audit_amount(coins: int) -> int:
    """Tax audit (R9, R18): 10 % of the coins, rounded half up to 5."""
    return (coins + 25) // 50 * 5


def liquidation_order(bars: list[int], levels: list[int]) -> list[int]:
    """The order in which the bank sells a debtor's bars (R12): lowest value, then bar index."""
    return sorted(bars, key=lambda b: (bar_value(b, levels[b]), b))


# --- Rules of one game (R4, R5) ---------------------------------------------------------------
MAX_START_COINS = 1_000_000
MAX_ROUNDS = 1000  # rounds per game at the most


@dataclass(frozen=True)
class Rules:
    """The table of one game: players, rounds, and every seat's start coins (R4, R5).

    The start coins follow R4's flat schedule, ``start_coins + seat_bonus * seat``, unless
    ``seat_coins`` gives every seat its own (one value per seat, a house rule for a shaped
    compensation): then ``start_coins`` and ``seat_bonus`` are not used. A list is kept as a
    tuple, so that rules stay hashable.
    """

    players: int = 4
    rounds: int = 10
    start_coins: int = 1000
    seat_bonus: int = 100
    seat_coins: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("players", "rounds", "start_coins", "seat_bonus"):
            value = whole(getattr(self, name))
            object.__setattr__(self, name, value)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"rules: {name} must be a whole number, got {value!r}")
        if not 2 <= self.players <= 4:
            raise ValueError(f"rules: players must be 2, 3 or 4, got {self.players}")
        if not 1 <= self.rounds <= MAX_ROUNDS:
            raise ValueError(f"rules: rounds must be between 1 and {MAX_ROUNDS}, got {self.rounds}")
        if self.seat_coins is not None:  # first: the flat fields may be copied from it
            coins = listed(self.seat_coins)  # a numpy array too
            if isinstance(coins, tuple | list):
                coins = [whole(c) for c in coins]
            if not isinstance(coins, tuple | list) or not all(
                isinstance(c, int) and not isinstance(c, bool) for c in coins
            ):
                raise ValueError(
                    f"rules: seat_coins must be whole numbers, one per seat, got {coins!r}"
                )
            if len(coins) != self.players:
                values = counted(len(coins), "value")
                raise ValueError(
                    f"rules: seat_coins has {values} for a table of {self.players} players: "
                    "give one per seat"
                )
            for seat, value in enumerate(coins):
                _check_coins(f"seat_coins (seat {seat})", value)
            object.__setattr__(self, "seat_coins", tuple(coins))
        for name in ("start_coins", "seat_bonus"):
            _check_coins(name, getattr(self, name))

    def seat_start_coins(self, seat: int) -> int:
        """Coins seat ``seat`` starts with (R4): its own ``seat_coins``, if given."""
        if self.seat_coins is not None:
            return self.seat_coins[seat]  # R4, per seat
        return self.start_coins + self.seat_bonus * seat  # R4

    def record(self) -> dict:
        """The rules as summaries and manifests hold them (JSON's kinds: seat_coins a list)."""
        coins = None if self.seat_coins is None else list(self.seat_coins)
        return dataclasses.asdict(self) | {"seat_coins": coins}  # (every field, in order)

    @property
    def turn_slots(self) -> int:
        """Turn slots in a game: one per seat per round (R5)."""
        return self.rounds * self.players

    @classmethod
    def from_dict(cls, data: dict) -> Rules:
        """Rules from a scenario's ``rules`` object; missing keys take the defaults."""
        if not isinstance(data, dict):
            raise ValueError('rules: must be an object like {"players": 4, "rounds": 10}')
        unknown = sorted(set(data) - {"players", "rounds", "start_coins", "seat_bonus"})
        if unknown:
            raise ValueError(
                f"rules: unknown key {unknown[0]!r} "
                "(valid: players, rounds, start_coins, seat_bonus)"
            )
        return cls(**data)


def _check_coins(name: str, value: int) -> None:
    """A number of start coins: non-negative, in 5s (R9), small enough for 32-bit coins."""
    if value < 0 or value % 5:
        raise ValueError(
            f"rules: {name} must be a non-negative multiple of 5 (coins come in 5s, R9), "
            f"got {value}"
        )
    if value > MAX_START_COINS:  # the array engines keep coins in 32 bits (a seat starts
        # with at most start + 3 x bonus = 4,000,000: room for MAX_ROUNDS rounds' income)
        raise ValueError(f"rules: {name} must be at most {MAX_START_COINS:,}, got {value}")


# --- Lookup tables for the array engines, computed from the formulas above --------------------
def _table(formula: Callable[..., int], *shape: int) -> np.ndarray:
    table = np.empty(shape, dtype=np.int32)
    for index in np.ndindex(*shape):
        table[index] = formula(*index)
    table.flags.writeable = False
    return table


PRICE_TABLE = _table(lambda b: PRICES[b], N_BARS)  # (12,) price per bar
UPGRADE_COST_TABLE = _table(upgrade_cost, N_BARS)  # (12,) one level, R16
VALUE_TABLE = _table(bar_value, N_BARS, MAX_LEVEL + 1)  # (12, 3) value by bar and level, R10
SALE_TABLE = _table(lambda b, lv: sale_price(bar_value(b, lv)), N_BARS, MAX_LEVEL + 1)  # R12
TAKEOVER_TABLE = _table(lambda b, lv: takeover_cost(bar_value(b, lv)), N_BARS, MAX_LEVEL + 1)
TAB_TABLE = _table(tab, N_BARS, MAX_LEVEL + 1, BARS_PER_DISTRICT + 1)  # (12, 3, 4) by holding
BAR_OF_SPACE = np.array(SPACE_TO_BAR, dtype=np.int8)  # (16,) bar index or -1
BAR_OF_SPACE.flags.writeable = False  # (as every table here: compiled kernels keep their values)

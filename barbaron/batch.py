"""The batch engine: many games advanced together, turn slot by turn slot, as numpy arrays.

Every game of a batch is at the same turn slot (lockstep). A slot is three compiled kernels with
the strategies' decisions between them, asked for all open games at once:

1. ``_start_turn``: skip flags (R6), and which games may upgrade (R16);
   -> the seat's strategy chooses upgrades;
2. ``_play_turn``: upgrade, roll, move, wages, and the space (tabs, cards, Curfew) up to the
   one decision a landing can open (buy, R14, or take over, R15);
   -> the strategy answers buy and takeover questions;
3. ``_finish_turn``: the answers take effect.

The kernels are compiled with numba. Several rules are sequential within a game (forced sales
lowest value first, R12; payments one player at a time, each with its own forced sales, R13;
card moves that land on a bar again), which numpy would have to loop over in small groups; the
kernels keep the reference engine's control flow for them. They loop over games in compiled
code and take the state as one record, ``KernelState``; state and strategy interface stay numpy
arrays. The money formulas come from ``barbaron.rules`` as lookup tables, and the random streams
from ``barbaron.streams``, the same code the reference engine uses. The reference engine is the
specification; this engine is tested against it game for game.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

import numba as nb
import numpy as np

from barbaron import interrupts, streams
from barbaron import rules as R
from barbaron.rules import Rules
from barbaron.strategy import (
    BatchView,
    Decision,
    IllegalDecision,
    Strategy,
    ask,
    describe,
    is_strategy,
    read_only,
    rules_kept,
)

NO_DECISION = -1  # pending decision of a game whose landing opened none
BUY, TAKEOVER = int(Decision.BUY), int(Decision.TAKEOVER)  # the kernels' pending decisions
# the questions after the roll, in the order asked, with their codes (an enum member read
# in the per-slot loop costs microseconds; so does np.flatnonzero's ravel of a 1-d array)
_AFTER_THE_ROLL = ((Decision.BUY, BUY), (Decision.TAKEOVER, TAKEOVER))
_UPGRADE = Decision.UPGRADE

_PRICE = R.PRICE_TABLE
_UPGRADE_COST = R.UPGRADE_COST_TABLE
_VALUE = R.VALUE_TABLE
_SALE = R.SALE_TABLE
_TAKEOVER = R.TAKEOVER_TABLE
_TAB = R.TAB_TABLE
_BAR_OF_SPACE = R.BAR_OF_SPACE
_C = R.CARD_INDEX
ROUND_ON_THE_HOUSE, REGULARS, BOUNCER, BIRTHDAY = (
    _C["round_on_the_house"],
    _C["regulars"],
    _C["bouncer"],
    _C["birthday"],
)
HEALTH_INSPECTION, PUB_CRAWL, POLICE_CHECK, LOTTERY_TICKET = (
    _C["health_inspection"],
    _C["pub_crawl"],
    _C["police_check"],
    _C["lottery_ticket"],
)
BROKEN_GLASS, TAX_AUDIT, TAXI, FREE_KEG = (
    _C["broken_glass"],
    _C["tax_audit"],
    _C["taxi"],
    _C["free_keg"],
)
INFLUENCER_VIDEO, BURST_PIPE = _C["influencer_video"], _C["burst_pipe"]
_tax_audit_amount = nb.njit(cache=True, nogil=True)(
    R.tax_audit_amount
)  # R9, the very function the reference engine uses


@dataclass
class BatchState:
    """Every game of a batch at one moment; axis 0 is the game."""

    game: np.ndarray  # (n,) int64: global game index, selects the game's random streams
    coins: np.ndarray  # (n, players) int32
    position: np.ndarray  # (n, players) int8: space index 0..15 (R1)
    skip: np.ndarray  # (n, players) bool: the seat's next turn slot is skipped (R6)
    owner: np.ndarray  # (n, 12) int8: owning seat per bar (R2), -1 free
    level: np.ndarray  # (n, 12) int8: 0 plain, 1 Happy Hour, 2 Draught Tap; 0 when free
    deck: np.ndarray  # (n, 14) int8: card indices (R3) of the current shuffle, in draw order
    drawn: np.ndarray  # (n,) int32: cards drawn so far; the next is deck[drawn % 14] (R17)
    rolls: np.ndarray  # (n,) int32: dice rolls so far (the dice stream's counter)
    round: int = 0  # 1-based round being played; 0 before the first

    @classmethod
    def start(cls, rules: Rules, game: np.ndarray) -> BatchState:
        """Every game at the start: everyone on Payday with their seat's coins (R4)."""
        n, players = len(game), rules.players
        return cls(
            game=np.asarray(game, dtype=np.int64),
            coins=np.tile(
                np.array([rules.seat_start_coins(s) for s in range(players)], dtype=np.int32),
                (n, 1),
            ),
            position=np.zeros((n, players), dtype=np.int8),
            skip=np.zeros((n, players), dtype=bool),
            owner=np.full((n, R.N_BARS), -1, dtype=np.int8),
            level=np.zeros((n, R.N_BARS), dtype=np.int8),
            deck=np.zeros((n, R.N_CARDS), dtype=np.int8),
            drawn=np.zeros(n, dtype=np.int32),
            rolls=np.zeros(n, dtype=np.int32),
        )


@dataclass(frozen=True)
class Script:
    """Scripted randomness for a batch: each row's dice and card orders, padded."""

    dice: np.ndarray  # (n, max rolls, 2) int8
    n_dice: np.ndarray  # (n,) int32: rolls available per game
    deck: np.ndarray  # (n, max shuffles, 14) int8
    n_shuffles: np.ndarray  # (n,) int32: shuffles available per game

    @classmethod
    def from_lists(cls, dice: list, decks: list) -> Script:
        """From per-game lists of (d1, d2) pairs and of card indices (blocks of 14)."""
        n = len(dice)
        n_dice = np.array([len(d) for d in dice], dtype=np.int32)
        n_shuffles = np.array([len(d) // R.N_CARDS for d in decks], dtype=np.int32)
        dice_a = np.ones((n, max(n_dice.max(initial=0), 1), 2), dtype=np.int8)
        deck_a = np.zeros((n, max(n_shuffles.max(initial=0), 1), R.N_CARDS), dtype=np.int8)
        for g in range(n):
            if n_dice[g]:
                dice_a[g, : n_dice[g]] = dice[g]
            if n_shuffles[g]:
                deck_a[g, : n_shuffles[g]] = np.reshape(decks[g], (-1, R.N_CARDS))
        return cls(dice_a, n_dice, deck_a, n_shuffles)


_NO_SCRIPT = Script(
    np.ones((1, 1, 2), np.int8),
    np.zeros(1, np.int32),
    np.zeros((1, 1, R.N_CARDS), np.int8),
    np.zeros(1, np.int32),
)


class KernelState(NamedTuple):
    """What the kernels read and write, as one record: the batch state's arrays (the same
    objects, changed in place), the turn slot's work arrays and the script. Axis 0 is the game.

    A kernel unpacks the fields it uses once, before its loop over games: in compiled code,
    reading a field, or passing the record to a function that is not inlined, increfs and
    decrefs the arrays involved, which in the per-game loop costs a good part of the speed."""

    game: np.ndarray  # (n,) int64: BatchState.game
    coins: np.ndarray  # (n, players) int32: BatchState.coins
    position: np.ndarray  # (n, players) int8: BatchState.position
    skip: np.ndarray  # (n, players) bool: BatchState.skip
    owner: np.ndarray  # (n, 12) int8: BatchState.owner
    level: np.ndarray  # (n, 12) int8: BatchState.level
    deck: np.ndarray  # (n, 14) int8: BatchState.deck
    drawn: np.ndarray  # (n,) int32: BatchState.drawn
    rolls: np.ndarray  # (n,) int32: BatchState.rolls
    active: np.ndarray  # (n,) bool: the seat plays this slot (not skipped, R6)
    may_upgrade: np.ndarray  # (n,) bool: the seat has a bar it may upgrade (R16)
    upgrade: np.ndarray  # (n,) int8: the bar the strategy upgrades (R16), -1 none
    pending: np.ndarray  # (n,) int8: the landing's open decision, BUY, TAKEOVER or NO_DECISION
    pending_bar: np.ndarray  # (n,) int8: the bar that decision is about
    answer: np.ndarray  # (n,) bool: the strategy's yes to the pending decision
    short: np.ndarray  # (n,) int8: 1 out of scripted dice, 2 out of scripted cards, else 0
    scripted: bool  # dice and cards come from the script, not the game's streams
    script_dice: np.ndarray  # (n or 1, max rolls, 2) int8: Script.dice
    n_dice: np.ndarray  # (n or 1,) int32: Script.n_dice
    script_deck: np.ndarray  # (n or 1, max shuffles, 14) int8: Script.deck
    n_shuffles: np.ndarray  # (n or 1,) int32: Script.n_shuffles


class ScriptExhausted(RuntimeError):
    """A scripted game needed more dice or cards than its script holds."""

    def __init__(self, row: int, message: str) -> None:
        super().__init__(message)
        self.row = row  # the batch row of the game


@dataclass(frozen=True)
class BatchOutcome:
    """A finished batch: the final state, worths (R19), and optionally the coins trace."""

    state: BatchState
    worth: np.ndarray  # (n, players) int32
    bars: np.ndarray  # (n, players) int8: bars each seat owns at the end
    trace: np.ndarray | None  # (n, turn slots, players) int32 coins after every slot, or None

    @property
    def winners(self) -> np.ndarray:
        """(n, players) bool: the seats with the highest worth (R19: ties share)."""
        return self.worth == self.worth.max(axis=1, keepdims=True)

    @property
    def win_share(self) -> np.ndarray:
        """(n, players) float: 1/k for each of k sharing winners, else 0 (R19)."""
        w = self.winners
        return w / w.sum(axis=1, keepdims=True)


def holdings(state: BatchState, players: int) -> tuple[np.ndarray, np.ndarray]:
    """(worth, bars), each (n, players): coins plus the value of every bar owned (R19, R10),
    and how many bars each seat owns."""
    return _holdings(state.coins, state.owner, state.level, players)


def worth(state: BatchState, players: int) -> np.ndarray:
    """(n, players) worth: coins plus the value of every bar owned (R19, R10)."""
    return holdings(state, players)[0]


def play_batch(
    rules: Rules,
    strategies: list[Strategy],
    seed: int,
    games: np.ndarray,
    *,
    script: Script | None = None,
    trace: bool = False,
) -> BatchOutcome:
    """Play games ``games`` (global indices) under ``seed`` with one strategy per seat.

    Dice and cards come from each game's stream (``barbaron.streams``) or, with ``script``,
    from scripted arrays. ``trace`` records every seat's coins after every turn slot.
    """
    if len(strategies) != rules.players:
        raise ValueError(
            f"{rules.players} players need {rules.players} strategies, got {len(strategies)}"
        )
    seed, games = checked_streams(strategies, seed, games)
    state = BatchState.start(rules, games)
    n, players = len(state.game), rules.players
    coins_trace = np.empty((n, rules.turn_slots, players), np.int32) if trace else None
    st = kernel_state(state, script)
    before = dataclasses.replace(rules)
    for round_number in range(1, rules.rounds + 1):
        for seat in range(players):
            play_slot(rules, strategies[seat], seed, state, st, round_number, seat)
            rules_kept(rules, before, strategies[seat])
            if coins_trace is not None:
                coins_trace[:, (round_number - 1) * players + seat] = state.coins
    return BatchOutcome(state, *holdings(state, players), coins_trace)


def checked_streams(strategies: list, seed: object, games: object) -> tuple[int, np.ndarray]:
    """The seed and the game numbers as the streams take them (a whole number each, from 0 to
    2**63 - 1), else a ValueError; and strategies, not specs, else a TypeError (what a library
    user passes by mistake: a spec, a float, a negative number)."""
    from barbaron.config import MAX_INDEX
    from barbaron.params import whole

    for s in strategies:
        if not is_strategy(s):
            raise TypeError(
                f"strategies are Strategy objects, one per seat, got {s!r} (build one from a "
                "spec with barbaron.registry.make_bot)"
            )
    seed = whole(seed)
    if not isinstance(seed, int) or not 0 <= seed < MAX_INDEX:
        raise ValueError(f"seed must be a whole number from 0 to 2**63 - 1, got {seed!r}")
    numbers = np.asarray(games)
    if numbers.dtype.kind not in "iu" or (
        numbers.size and not (0 <= numbers.min() and numbers.max() < MAX_INDEX)
    ):
        raise ValueError("games must be whole numbers from 0 to 2**63 - 1 (game indices)")
    return seed, numbers


def kernel_state(state: BatchState, script: Script | None = None) -> KernelState:
    """The kernels' record over ``state``'s arrays (the same objects) with fresh work arrays."""
    n = len(state.game)
    s = script or _NO_SCRIPT
    return KernelState(
        game=state.game,
        coins=state.coins,
        position=state.position,
        skip=state.skip,
        owner=state.owner,
        level=state.level,
        deck=state.deck,
        drawn=state.drawn,
        rolls=state.rolls,
        active=np.empty(n, dtype=bool),
        may_upgrade=np.empty(n, dtype=bool),
        upgrade=np.full(n, -1, dtype=np.int8),
        pending=np.empty(n, dtype=np.int8),
        pending_bar=np.empty(n, dtype=np.int8),
        answer=np.zeros(n, dtype=bool),
        short=np.zeros(n, dtype=np.int8),
        scripted=script is not None,
        script_dice=s.dice,
        n_dice=s.n_dice,
        script_deck=s.deck,
        n_shuffles=s.n_shuffles,
    )


def play_slot(
    rules: Rules,
    strategy: Strategy,
    seed: int,
    state: BatchState,
    st: KernelState,
    round_number: int,
    seat: int,
) -> None:
    """One turn slot of every game of the batch: ``seat``'s turn in round ``round_number``.
    A Ctrl-C noted while a run plays is raised here, between slots (``barbaron.interrupts``)."""
    interrupts.check()
    state.round = round_number
    slot = (round_number - 1) * rules.players + seat
    _start_turn(seat, st)
    st.upgrade.fill(-1)
    asked = st.may_upgrade.nonzero()[0]
    if asked.size:
        view = _view(rules, state, seed, seat, slot, _UPGRADE)
        with _read_only(state):
            choice = _checked_upgrades(strategy, view, asked)
        st.upgrade[asked] = choice
    play_rest_of_turn(rules, strategy, seed, state, st, round_number, seat)


def play_rest_of_turn(
    rules: Rules,
    strategy: Strategy,
    seed: int,
    state: BatchState,
    st: KernelState,
    round_number: int,
    seat: int,
) -> None:
    """The slot from the upgrade on (``st.active`` and ``st.upgrade`` set): roll, move, the
    space, the strategy's buy and takeover answers, and their effect."""
    slot = (round_number - 1) * rules.players + seat
    _play_turn(seat, rules.players, seed, st)
    if st.scripted and st.short.any():
        g = int(np.flatnonzero(st.short)[0])
        what = "dice" if st.short[g] == 1 else "cards"
        raise ScriptExhausted(g, f"too few {what} (ran out in round {round_number})")
    st.answer.fill(False)
    for decision, code in _AFTER_THE_ROLL:
        asked = (st.pending == code).nonzero()[0]
        if asked.size:
            view = _view(rules, state, seed, seat, slot, decision)
            with _read_only(state):
                answer = ask(strategy, decision, view, asked, st.pending_bar[asked])
            st.answer[asked] = answer
    _finish_turn(seat, st)


@contextlib.contextmanager
def _read_only(state: BatchState) -> Iterator[None]:
    """The state's arrays, and every array their memory hangs from, read-only while a strategy
    decides: its read-only views of them cannot be made writable again (numpy refuses
    ``setflags(write=True)``) and their ``base`` cannot be written, so no strategy can change
    a game."""
    chain = []
    arrays = (state.game, state.coins, state.position, state.skip, state.owner, state.level)
    for array in (*arrays, state.deck, state.drawn):
        while isinstance(array, np.ndarray):
            chain.append((array, array.flags.writeable))
            array = array.base
    for array, _ in chain:
        array.setflags(write=False)  # (twice as fast as setting array.flags.writeable)
    try:
        yield
    finally:
        for array, writeable in reversed(chain):  # owners first: a view may then follow
            array.setflags(write=writeable)


def _view(
    rules: Rules, state: BatchState, seed: int, seat: int, slot: int, decision: Decision
) -> BatchView:
    return BatchView(
        rules=rules,
        seat=seat,
        round=state.round,
        slot=slot,
        decision=decision,
        seed=seed,
        game=read_only(state.game),
        coins=read_only(state.coins),
        position=read_only(state.position),
        skip=read_only(state.skip),
        owner=read_only(state.owner),
        level=read_only(state.level),
        _deck=read_only(state.deck),
        _drawn=read_only(state.drawn),
    )


def _checked_upgrades(strategy: Strategy, view: BatchView, games: np.ndarray) -> np.ndarray:
    """The strategy's upgrade choices, each -1 or a bar the rules allow (R16)."""
    choice = ask(strategy, _UPGRADE, view, games)
    bad = first_illegal_upgrade(view, games, choice)
    if bad is not None:
        i, why = bad
        raise IllegalDecision(
            f"{describe(strategy)} in seat {view.seat} chose to upgrade bar {int(choice[i])}, "
            + why,
            game=int(view.game[games[i]]),
        )
    return choice


def first_illegal_upgrade(
    view: BatchView, games: np.ndarray, choice: np.ndarray
) -> tuple[int, str] | None:
    """(index, why) of the first upgrade choice the rules do not allow (R16), or None: the
    engine's check and ``barbaron check``'s, one piece of code."""
    i = _first_illegal_upgrade(
        view.coins, view.owner, view.level, games, view.seat, choice.astype(np.int64)
    )
    return None if i < 0 else (int(i), _why_not_upgrade(view, int(games[i]), int(choice[i])))


def _why_not_upgrade(view: BatchView, row: int, bar: int) -> str:
    """Why the deciding seat may not upgrade ``bar`` in row ``row`` (R16), as the end of a
    sentence about its choice."""
    seat = view.seat
    if not 0 <= bar < R.N_BARS:
        return "which is not a bar (0-11, or -1 for none)"
    owner, level = int(view.owner[row, bar]), int(view.level[row, bar])
    coins, cost = int(view.coins[row, seat]), int(R.UPGRADE_COST_TABLE[bar])
    if owner != seat:
        whose = "free" if owner < 0 else f"owned by seat {owner}"
        return f"which seat {seat} may not upgrade: it is {whose}"
    if level >= R.MAX_LEVEL:
        return f"which seat {seat} may not upgrade: it is at Draught Tap already"
    return f"which seat {seat} may not upgrade: it costs {cost} and the seat has {coins}"


# --- kernels -------------------------------------------------------------------------------
@nb.njit(cache=True, nogil=True)
def _holdings(coins, owner, level, players):
    """:func:`holdings` in one pass over the games."""
    n = coins.shape[0]
    worth = np.empty((n, players), dtype=np.int32)
    bars = np.zeros((n, players), dtype=np.int8)
    for g in range(n):
        for s in range(players):
            worth[g, s] = coins[g, s]
        for b in range(R.N_BARS):
            holder = owner[g, b]
            if holder >= 0:
                worth[g, holder] += _VALUE[b, level[g, b]]
                bars[g, holder] += 1
    return worth, bars


@nb.njit(cache=True, nogil=True)
def _first_illegal_upgrade(coins, owner, level, games, seat, choice):
    """Index of the first choice that is neither -1 nor a legal upgrade (R16), else -1."""
    for i in range(games.size):
        b = choice[i]
        if b == -1:
            continue
        g = games[i]
        if not (
            0 <= b < R.N_BARS
            and owner[g, b] == seat
            and level[g, b] < R.MAX_LEVEL
            and coins[g, seat] >= _UPGRADE_COST[b]
        ):
            return i
    return -1


@nb.njit(cache=True, nogil=True)
def _start_turn(seat, st):
    """R6: a skipped slot does nothing; else may the seat upgrade (R16)?"""
    coins, skip, owner, level = st.coins, st.skip, st.owner, st.level
    active, may_upgrade = st.active, st.may_upgrade
    for g in range(coins.shape[0]):
        if skip[g, seat]:
            skip[g, seat] = False
            active[g] = False
            may_upgrade[g] = False
            continue
        active[g] = True
        can = False
        for b in range(R.N_BARS):
            if (
                owner[g, b] == seat
                and level[g, b] < R.MAX_LEVEL
                and coins[g, seat] >= _UPGRADE_COST[b]
            ):
                can = True
                break
        may_upgrade[g] = can


@nb.njit(cache=True, nogil=True)
def _play_turn(seat, players, seed, st):
    """R7: upgrade, roll, move (R8 wages), resolve the space up to an open decision."""
    game, coins, position, skip = st.game, st.coins, st.position, st.skip
    owner, level, rolls, upgrade = st.owner, st.level, st.rolls, st.upgrade
    active, pending, pending_bar = st.active, st.pending, st.pending_bar
    scripted, script_dice, n_dice, short = st.scripted, st.script_dice, st.n_dice, st.short
    for g in range(coins.shape[0]):
        pending[g] = NO_DECISION
        if not active[g]:
            continue
        b = upgrade[g]
        if b >= 0:  # R16
            coins[g, seat] -= _UPGRADE_COST[b]
            level[g, b] += 1
        k = rolls[g]
        if scripted:
            if k >= n_dice[g]:
                short[g] = 1
                continue
            d1, d2 = script_dice[g, k, 0], script_dice[g, k, 1]
        else:
            d1, d2 = streams.roll(seed, game[g], k)
        rolls[g] = k + 1
        target = position[g, seat] + d1 + d2
        if target >= R.N_SPACES:  # R8
            coins[g, seat] += R.WAGES
        space = target % R.N_SPACES
        position[g, seat] = space
        bar = _BAR_OF_SPACE[space]
        if bar >= 0:
            _land(g, seat, bar, coins, owner, level, pending, pending_bar)
        elif space == R.JUKEBOX or space == R.REGULARS_TABLE:
            _draw_card(g, seat, players, seed, st)
        elif space == R.CURFEW:
            skip[g, seat] = True  # R6


# _land and _pay run once per landing or payment, so they take just the arrays they touch (a
# compiled call with the record would incref and decref all of its arrays); _draw_card takes the
# record but is inlined into _play_turn.
@nb.njit(cache=True, nogil=True)
def _land(g, seat, bar, coins, owner, level, pending, pending_bar):
    """A bar: a free one may be bought (R14); someone else's costs a tab (R11), then maybe
    a takeover (R15)."""
    holder = owner[g, bar]
    if holder == -1:
        if coins[g, seat] >= _PRICE[bar]:
            pending[g] = BUY
            pending_bar[g] = bar
    elif holder != seat:
        first = bar // R.BARS_PER_DISTRICT * R.BARS_PER_DISTRICT
        held = 0
        for b in range(first, first + R.BARS_PER_DISTRICT):
            if owner[g, b] == holder:
                held += 1
        due = _TAB[bar, level[g, bar], held]
        if coins[g, seat] >= due:  # the common case of R12, without the call
            coins[g, seat] -= due
            coins[g, holder] += due
        else:
            _pay(g, seat, due, holder, coins, owner, level)
        if coins[g, seat] >= _TAKEOVER[bar, level[g, bar]]:
            pending[g] = TAKEOVER
            pending_bar[g] = bar


@nb.njit(cache=True, nogil=True)
def _pay(g, payer, amount, receiver, coins, owner, level):
    """R12: sell bars lowest value first (ties: lowest index) for half value until the amount
    can be paid; else pay everything (broke). ``receiver`` -1 is the bank."""
    have = coins[g, payer]
    while have < amount:
        cheapest, cheapest_value = -1, 1 << 30
        for b in range(R.N_BARS):
            if owner[g, b] == payer and _VALUE[b, level[g, b]] < cheapest_value:
                cheapest, cheapest_value = b, _VALUE[b, level[g, b]]
        if cheapest < 0:
            break
        have += _SALE[cheapest, level[g, cheapest]]
        owner[g, cheapest] = -1
        level[g, cheapest] = 0
    paid = min(have, amount)
    coins[g, payer] = have - paid
    if receiver >= 0:
        coins[g, receiver] += paid


@nb.njit(cache=True, nogil=True, inline="always")
def _draw_card(g, seat, players, seed, st):
    """R17: draw the next card of the game's deck (reshuffled every 14), then R13/R18."""
    coins, position, owner, level, deck = st.coins, st.position, st.owner, st.level, st.deck
    shuffle, index = divmod(st.drawn[g], R.N_CARDS)
    if index == 0:
        if st.scripted:
            if shuffle >= st.n_shuffles[g]:
                st.short[g] = 2
                return
            deck[g, :] = st.script_deck[g, shuffle, :]
        else:
            streams.shuffle_into(seed, st.game[g], shuffle, deck[g])
    card = deck[g, index]
    st.drawn[g] += 1
    if card == ROUND_ON_THE_HOUSE:  # R13
        for k in range(1, players):
            _pay(g, seat, R.ROUND_ON_THE_HOUSE_EACH, (seat + k) % players, coins, owner, level)
    elif card == REGULARS:
        coins[g, seat] += R.REGULARS_GAIN
    elif card == BOUNCER:  # R8
        position[g, seat] = R.PAYDAY
        coins[g, seat] += R.WAGES
    elif card == BIRTHDAY:  # R13
        for k in range(1, players):
            _pay(g, (seat + k) % players, R.BIRTHDAY_EACH, seat, coins, owner, level)
    elif card == HEALTH_INSPECTION:  # R18
        levels = 0
        for b in range(R.N_BARS):
            if owner[g, b] == seat:
                levels += level[g, b]
        _pay(g, seat, R.HEALTH_INSPECTION_PER_LEVEL * levels, -1, coins, owner, level)
    elif card == PUB_CRAWL or card == TAXI:  # R18: no wages, resolve the bar
        space = position[g, seat] + R.PUB_CRAWL_STEPS if card == PUB_CRAWL else R.NEON_LIGHT
        position[g, seat] = space
        _land(g, seat, _BAR_OF_SPACE[space], coins, owner, level, st.pending, st.pending_bar)
    elif card == POLICE_CHECK:  # R6, R8
        position[g, seat] = R.CURFEW
        st.skip[g, seat] = True
    elif card == LOTTERY_TICKET:
        coins[g, seat] += R.LOTTERY_GAIN
    elif card == BROKEN_GLASS:
        _pay(g, seat, R.BROKEN_GLASS_COST, -1, coins, owner, level)
    elif card == TAX_AUDIT:  # R9, R18
        _pay(g, seat, _tax_audit_amount(coins[g, seat]), -1, coins, owner, level)
    elif card == FREE_KEG:  # R18: cheapest plain bar, ties by index
        best, best_price = -1, 1 << 30
        for b in range(R.N_BARS):
            if owner[g, b] == seat and level[g, b] == 0 and _PRICE[b] < best_price:
                best, best_price = b, _PRICE[b]
        if best >= 0:
            level[g, best] = 1
        else:
            coins[g, seat] += R.FREE_KEG_FALLBACK
    else:  # INFLUENCER_VIDEO or BURST_PIPE
        bars = 0
        for b in range(R.N_BARS):
            if owner[g, b] == seat:
                bars += 1
        if card == INFLUENCER_VIDEO:
            coins[g, seat] += R.INFLUENCER_PER_BAR * bars
        else:
            _pay(g, seat, R.BURST_PIPE_PER_BAR * bars, -1, coins, owner, level)


@nb.njit(cache=True, nogil=True)
def _finish_turn(seat, st):
    """The strategy's answers take effect: buy (R14) or take over (R15)."""
    coins, owner, level = st.coins, st.owner, st.level
    pending, pending_bar, answer = st.pending, st.pending_bar, st.answer
    for g in range(coins.shape[0]):
        if not answer[g]:
            continue
        bar = pending_bar[g]
        if pending[g] == BUY:
            coins[g, seat] -= _PRICE[bar]
        else:
            cost = _TAKEOVER[bar, level[g, bar]]
            coins[g, seat] -= cost
            coins[g, owner[g, bar]] += cost
        owner[g, bar] = seat

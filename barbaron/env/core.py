"""The engine side of the environments: games that stop at the agents' decisions, observations,
action masks, and :class:`BatchEnv`. Needs numpy and numba only (no gymnasium, no pettingzoo),
so the ``policy`` bot can use the observations in every command.

How it works: :class:`Table` plays ``n`` games in lockstep exactly as
:func:`barbaron.batch.play_slot` does (the same kernels, in the same order), but a seat marked
as an agent's in a game is not asked through a strategy: the table stops there (a Python
generator ``yield``) and resumes with the agent's actions. Bots answer their games first; the
agents' games wait. Every game's dice, cards and bot draws come from its deal's streams
(``barbaron.streams``), so a game's outcome depends only on (seed, game, lineup, the agent's
actions): the same game as ``barbaron play`` and ``barbaron replay`` when the agent answers as a
bot would. Game numbers are the harness's: with the agent's seat drawn by rotation, game g is
deal g // players with the agent in seat g % players (game g of ``barbaron play --seed S``, the
``game`` column of its ``games.parquet``, unless every bot of that lineup is the same: ``play``
deals those games once, game g = deal g, seat 0); with a fixed seat, game g is deal g.

**Actions** (``Discrete(14)``): 0 = no (do not upgrade; do not buy; do not take over),
1 = yes (buy, R14, or take over, R15), 2 + b = upgrade bar b (R16).

**Observation** (float32, ``obs_size(players) = 3 * players + 30`` numbers; seats are numbered
*relative to the observing agent*: relative seat k is the seat k places after it in turn order,
k = 0 being the agent itself):

====================  =============================================================
index                 field
====================  =============================================================
[0, P)                coins of relative seat k, in thousands
[P, 2P)               position (space 0..15, R1) of relative seat k
[2P, 3P)              skip flag (R6) of relative seat k: 1 if its next slot is skipped
[3P, 3P + 12)         owner of bar b (R2) as a relative seat, -1 if free
[3P + 12, 3P + 24)    level of bar b: 0 plain, 1 Happy Hour, 2 Draught Tap
3P + 24               round, 1-based
3P + 25               the agent's own (absolute) seat, 0..P-1
3P + 26 .. 3P + 28    the decision asked, one-hot: upgrade, buy, take over (all 0: none)
3P + 29               the bar in question (buy or take over), else -1
====================  =============================================================

**Mask** (int8, 14): 1 for each legal action. An upgrade question allows 0 and 2 + b for every
own bar below Draught Tap whose level the agent can pay (R16); a buy or takeover question allows
0 and 1. A game (or agent) that is not being asked allows only 0.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numba as nb
import numpy as np

from barbaron import batch
from barbaron import rules as R
from barbaron.batch import BatchState, kernel_state
from barbaron.config import MAX_INDEX
from barbaron.params import counted, is_whole
from barbaron.rules import Rules
from barbaron.strategy import Decision, IllegalDecision, Strategy, ask, is_strategy, rules_kept

N_ACTIONS = 2 + R.N_BARS  # 0 no, 1 yes, 2 + b upgrade bar b
NO, YES, UPGRADE_BASE = 0, 1, 2
NONE = -1  # the decision kind of a game with nothing asked
REWARDS = ("win", "worth")


class IllegalAction(ValueError):
    """An action the environment cannot take: wrong shape or type, outside the action space,
    masked out (illegal in the game), or a step when no step is possible."""


def obs_size(players: int) -> int:
    """The length of an observation vector for ``players`` players."""
    return 3 * players + 30


def most_coins(rules: Rules) -> int:
    """More coins than any seat can hold: all seats' start coins (R4) and, for every turn, the
    most the bank pays in one (wages, R8, and the best card: Influencer video with all 12
    bars). Coins only pass between seats otherwise, and a bar sold to the bank (R12) brings at
    most the price it was bought from the bank for."""
    best_card = max(
        R.REGULARS_GAIN,
        R.LOTTERY_GAIN,
        R.WAGES,
        R.FREE_KEG_FALLBACK,
        R.INFLUENCER_PER_BAR * R.N_BARS,
    )
    start = sum(rules.seat_start_coins(seat) for seat in range(rules.players))
    return start + rules.turn_slots * (R.WAGES + best_card)


def obs_bounds(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of every observation field (see the module docstring)."""
    p = rules.players
    low = np.zeros(obs_size(p), dtype=np.float32)
    high = np.zeros(obs_size(p), dtype=np.float32)
    high[:p] = most_coins(rules) / 1000.0
    high[p : 2 * p] = R.N_SPACES - 1
    high[2 * p : 3 * p] = 1
    low[3 * p : 3 * p + 12] = -1
    high[3 * p : 3 * p + 12] = p - 1
    high[3 * p + 12 : 3 * p + 24] = R.MAX_LEVEL
    # (a one-round game's round from 0: a Box whose bounds are equal warns; the others keep 1,
    # so that a model saved with the space of Seat-v0 still loads)
    low[3 * p + 24], high[3 * p + 24] = min(1, rules.rounds - 1), rules.rounds
    high[3 * p + 25] = p - 1
    high[3 * p + 26 : 3 * p + 29] = 1
    low[3 * p + 29], high[3 * p + 29] = -1, R.N_BARS - 1
    return low, high


RENDER_MODES = ["human", "ansi"]  # render(): the board as text, printed or returned


def check_render_mode(mode: str | None) -> str | None:
    """``mode`` if it is None or one of :data:`RENDER_MODES`; else a ValueError."""
    if mode is not None and mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {mode!r}")
    return mode


def render(mode: str | None, table: Table | None, heading: str, agent: str = "agent") -> str | None:
    """An environment's render(): :func:`board`, printed (``"human"``, then None) or returned
    (``"ansi"``); None without a render mode."""
    if mode is None:
        return None
    text = board(table, heading, agent)
    if mode == "human":
        print(text, flush=True)
        return None
    return text


def board(table: Table | None, heading: str, agent: str = "agent") -> str:
    """Row 0 of ``table`` as text: ``heading``, the question open, then the board (as ``barbaron
    duel`` shows it), a bot's seat named by its spec, an agent's by ``agent`` (formatted with
    its ``seat``)."""
    from types import SimpleNamespace

    from barbaron.duel import board_text
    from barbaron.strategy import describe

    if table is None:
        return "no game: call reset()"
    names = [
        agent.format(seat=seat) if w < 0 else describe(table.bots[w])
        for seat, w in enumerate(table.which[0].tolist())
    ]
    s, stop = table.state, table.stop
    if stop is None:
        question = "the game is over"
    else:
        kind, bar = int(stop.kind[0]), int(stop.bar[0])
        question = f"seat {stop.seat} is asked " + {
            Decision.UPGRADE: "which bar to upgrade, if any",
            Decision.BUY: f"whether to buy {R.BAR_NAMES[bar] if bar >= 0 else ''}",
            Decision.TAKEOVER: f"whether to take over {R.BAR_NAMES[bar] if bar >= 0 else ''}",
        }.get(kind, "nothing")
    row = SimpleNamespace(
        rules=table.rules,
        **{f: getattr(s, f)[0].tolist() for f in ("coins", "position", "skip", "owner", "level")},
    )
    rounds = table.rules.rounds
    return f"{heading}, round {s.round} of {rounds}: {question}\n{board_text(row, names)}"


def field_names(players: int) -> list[str]:
    """A name for every observation index, e.g. ``coins[1]``, ``owner[11]``, ``bar``."""
    names = [f"coins[{k}]" for k in range(players)]
    names += [f"position[{k}]" for k in range(players)]
    names += [f"skip[{k}]" for k in range(players)]
    names += [f"owner[{b}]" for b in range(R.N_BARS)] + [f"level[{b}]" for b in range(R.N_BARS)]
    return names + ["round", "seat", "is_upgrade", "is_buy", "is_takeover", "bar"]


@nb.njit(cache=True, nogil=True)
def observe(coins, position, skip, owner, level, round_, me, kind, bar):
    """(n, obs_size) observations of every game: row g from seat ``me[g]``'s view, asked
    ``kind[g]`` (a Decision, or -1) about ``bar[g]``."""
    n, p = coins.shape
    out = np.zeros((n, 3 * p + 30), dtype=np.float32)
    for g in range(n):
        m = me[g]
        for k in range(p):
            s = (m + k) % p
            out[g, k] = coins[g, s] / 1000.0
            out[g, p + k] = position[g, s]
            out[g, 2 * p + k] = 1.0 if skip[g, s] else 0.0
        for b in range(R.N_BARS):
            o = owner[g, b]
            out[g, 3 * p + b] = -1.0 if o < 0 else (o - m) % p
            out[g, 3 * p + 12 + b] = level[g, b]
        out[g, 3 * p + 24] = round_
        out[g, 3 * p + 25] = m
        if kind[g] >= 0:
            out[g, 3 * p + 26 + kind[g]] = 1.0
        out[g, 3 * p + 29] = bar[g] if kind[g] > 0 else -1
    return out


@nb.njit(cache=True, nogil=True)
def action_masks(coins, owner, level, me, kind):
    """(n, 14) int8 legal actions of every game (see the module docstring)."""
    n = coins.shape[0]
    out = np.zeros((n, 2 + R.N_BARS), dtype=np.int8)
    for g in range(n):
        out[g, 0] = 1
        if kind[g] > 0:
            out[g, 1] = 1
        elif kind[g] == 0:
            m = me[g]
            for b in range(R.N_BARS):
                if (
                    owner[g, b] == m
                    and level[g, b] < R.MAX_LEVEL
                    and coins[g, m] >= R.UPGRADE_COST_TABLE[b]
                ):
                    out[g, 2 + b] = 1
    return out


def check_actions(actions: object, mask: np.ndarray, games: np.ndarray) -> np.ndarray:
    """``actions`` as an int64 array, one per row of ``mask``, each legal; else IllegalAction
    naming the first problem (``games``: the rows' game indices, for the message)."""
    a = np.asarray(actions)
    if a.shape != (mask.shape[0],):
        raise IllegalAction(
            f"expected {mask.shape[0]} actions (one per game), got an array of shape {a.shape}"
        )
    if a.dtype.kind not in "iu":
        raise IllegalAction(f"actions must be integers, got {a.dtype}")
    outside = np.flatnonzero((a < 0) | (a >= N_ACTIONS))  # (before the cast: uint64 wraps)
    if outside.size:
        i = int(outside[0])
        raise IllegalAction(
            f"action {a[i].item()} for game {int(games[i])} (row {i}) is outside the action "
            f"space 0..{N_ACTIONS - 1}"
        )
    a = a.astype(np.int64)
    illegal = np.flatnonzero(mask[np.arange(a.size), a] == 0)
    if illegal.size:
        i = int(illegal[0])
        legal = np.flatnonzero(mask[i]).tolist()
        raise IllegalAction(
            f"action {int(a[i])} ({describe_action(int(a[i]))}) for game {int(games[i])} "
            f"(row {i}) is masked out: the legal actions there are {legal}"
        )
    return a


def check_seed(seed: object) -> int:
    """A reset's seed as an int; a ValueError unless it is a whole number 0 .. 2**63 - 1."""
    if not is_whole(seed) or not 0 <= seed < MAX_INDEX:
        raise ValueError(f"seed must be a whole number from 0 to 2**63 - 1, got {seed!r}")
    return int(seed)


def check_rules(rules: object) -> Rules | None:
    """An environment's ``rules``: a :class:`~barbaron.rules.Rules` or None (the defaults);
    a TypeError for anything else."""
    if rules is not None and not isinstance(rules, Rules):
        raise TypeError(
            f"rules must be a barbaron.rules.Rules (e.g. Rules(players=3)), got {rules!r}"
        )
    return rules


def next_game(
    run_seed: int | None, game: int, seed: int | None, chosen: object, draw_seed
) -> tuple[int, int]:
    """The (seed, game) a reset plays: ``seed`` starts a run at its game 0 (or ``chosen``),
    without a seed the run goes on with its next game; a first reset with no seed draws one
    (``draw_seed()``)."""
    if seed is not None:
        run_seed, game = check_seed(seed), -1
    elif run_seed is None:
        run_seed = int(draw_seed())
    if chosen is None:
        if game + 1 >= MAX_INDEX:
            raise ValueError("the run has played its last game (2**63 - 1): reset with a seed")
        return run_seed, game + 1
    if not is_whole(chosen):
        raise ValueError(f"options['game'] must be a whole number >= 0, got {chosen!r}")
    if not 0 <= chosen < MAX_INDEX:
        raise ValueError(f"options['game'] must be from 0 to 2**63 - 1, got {chosen!r}")
    return run_seed, int(chosen)


def one_action(action: object) -> np.ndarray:
    """A single agent's action (a whole number, numpy's too) as the (1,) array a step takes."""
    if not is_whole(action):
        a = np.asarray(action)
        if a.shape != () or a.dtype.kind not in "iu":
            raise IllegalAction(f"an action is one integer 0..{N_ACTIONS - 1}, got {action!r}")
    return np.array([int(action)])


def describe_action(action: int) -> str:
    """An action in words."""
    if action == NO:
        return "no"
    if action == YES:
        return "yes"
    return f"upgrade bar {action - UPGRADE_BASE}"


def make_opponents(opponents: Sequence[str | Strategy], players: int) -> list[Strategy]:
    """The opponents' strategies from bot specs (or strategies), one per other seat."""
    from barbaron.registry import make_bot

    if isinstance(opponents, str | Strategy):
        raise TypeError("opponents must be a list of bot specs, one per other seat")
    opponents = list(opponents)
    if len(opponents) != players - 1:
        raise ValueError(
            f"{players} players need {counted(players - 1, 'opponent')}, got {len(opponents)}: "
            f"{opponents}"
        )
    out = []
    for i, spec in enumerate(opponents):
        if isinstance(spec, Strategy):
            out.append(spec)
        elif isinstance(spec, str):
            try:
                out.append(make_bot(spec))
            except ValueError as e:
                raise ValueError(f"opponent {i + 1} ({spec!r}): {e}") from e
        else:
            raise TypeError(f"opponent {i + 1} must be a bot spec (text), got {spec!r}")
    return out


@dataclass
class Stop:
    """Where a table waits: seat ``seat``'s ``stage`` (UPGRADE, or BUY for a landing's buy or
    takeover questions) in ``round``, for the agents of games ``rows``; ``kind`` (n,) is each
    game's open decision (-1: none), ``bar`` (n,) the bar in question."""

    round: int
    seat: int
    stage: Decision
    rows: np.ndarray
    kind: np.ndarray
    bar: np.ndarray


class Table:
    """``n`` games under ``seed`` (their deals, i.e. stream indices: ``games``), in lockstep;
    in row g the seats with ``which[g, s] == -1`` are agents, the others play
    ``bots[which[g, s]]``. ``numbers``: each row's game as the caller numbers them (an env's
    game, which is not its deal when seats rotate), for error messages; default the deals.

    ``stop`` is where it waits (a :class:`Stop`), or None once the games are over; ``answer``
    gives the agents' actions for ``stop.rows`` (checked by the caller) and moves on. It pickles
    and copies mid-game (a search agent's snapshot): the copy deals the same games again and
    replays the answers given so far, which the engine turns into the same state.
    """

    def __init__(
        self,
        rules: Rules,
        seed: int,
        games: np.ndarray,
        bots: list[Strategy],
        which: np.ndarray,
        numbers: np.ndarray | None = None,
    ) -> None:
        # its own copy of the rules, which the bots' views show: one that writes them spoils
        # only these games (which then fail), never the caller's, which they must still equal
        self.rules, self.seed, self.bots = dataclasses.replace(rules), int(seed), bots
        self._rules_given = rules
        self.which = np.asarray(which, dtype=np.int64)
        self.state = BatchState.start(rules, np.asarray(games, dtype=np.int64))
        self.numbers = self.state.game.copy() if numbers is None else np.asarray(numbers)
        self.st = kernel_state(self.state)
        n = len(self.state.game)
        self._kind = np.full(n, NONE, dtype=np.int8)
        self._bar = np.full(n, -1, dtype=np.int8)
        self._games = self.state.game.copy()
        self._answers: list[np.ndarray] = []  # every answer so far, to replay in a copy
        self._failed = False  # an exception stopped the play mid-turn
        self._run = self._play()
        self.stop: Stop | None = next(self._run, None)  # None: games that never ask an agent

    def __reduce__(self) -> tuple:
        """A copy is this table dealt again with the same answers (its play is a generator,
        which does not pickle)."""
        args = (self.rules, self.seed, self._games, self.bots, self.which, self._answers)
        return (_replayed, (*args, self.numbers))

    @property
    def n(self) -> int:
        return len(self.state.game)

    def answer(self, actions: np.ndarray) -> Stop | None:
        """The agents' actions (int, one per row of ``stop.rows``): play on to the next stop."""
        if self.stop is None:
            raise IllegalAction("the games are over")
        if self._failed:
            raise IllegalAction(
                "an error stopped these games part-way (a bot raised, or Ctrl-C): their state "
                "is not a position of the game; call reset() to start new ones"
            )
        try:
            self.stop = self._run.send(actions)
        except StopIteration:
            self.stop = None
        except BaseException:
            self._failed = True  # the play's generator is dead: never read its end as the game's
            raise
        self._answers.append(np.array(actions))
        return self.stop

    def worth(self) -> np.ndarray:
        return batch.worth(self.state, self.rules.players)

    def _bot_answer(self, seat, decision, view, rows, bars=None):
        """The bots' answers for ``rows``, each bot asked about its own rows (in the order of
        ``bots``); an illegal answer names the bot and the game by the caller's number."""
        out = np.empty(rows.size, dtype=np.int64 if decision is Decision.UPGRADE else bool)
        who = self.which[rows, seat]
        with batch._read_only(self.state):
            for k in np.unique(who):
                mine = np.flatnonzero(who == k)
                strategy, asked = self.bots[k], rows[mine]
                try:
                    if decision is Decision.UPGRADE:
                        out[mine] = batch._checked_upgrades(strategy, view, asked)
                    else:
                        out[mine] = ask(strategy, decision, view, asked, bars[mine])
                except IllegalDecision as e:
                    raise self._numbered(e, asked) from None
                rules_kept(self.rules, self._rules_given, strategy)
        return out

    def _numbered(self, error: IllegalDecision, rows: np.ndarray) -> IllegalDecision:
        """``error`` saying its game as the caller numbers it, beside the deal (``.game``, the
        engine's, as everywhere): the one row of ``rows`` on that deal (one bot in one seat: a
        deal's rotations seat it apart). One about no row of these is left as it is."""
        on_deal = rows[self.state.game[rows] == error.game] if error.game is not None else rows[:0]
        if on_deal.size == 0:
            return error
        named = IllegalDecision(
            f"{error.message} (game {self.numbers[on_deal[0]]}, deal {error.game})"
        )
        named.game = error.game
        return named

    def _play(self) -> Iterator[Stop]:
        rules, state, st, seed = self.rules, self.state, self.st, self.seed
        kind, bar = self._kind, self._bar
        players = rules.players
        for round_ in range(1, rules.rounds + 1):
            for seat in range(players):
                state.round = round_
                slot = (round_ - 1) * players + seat
                agent = self.which[:, seat] < 0
                batch._start_turn(seat, st)
                st.upgrade.fill(-1)
                asked = np.flatnonzero(st.may_upgrade)
                if asked.size:
                    mine = asked[agent[asked]]
                    theirs = asked[~agent[asked]]
                    if theirs.size:
                        view = batch._view(rules, state, seed, seat, slot, Decision.UPGRADE)
                        st.upgrade[theirs] = self._bot_answer(seat, Decision.UPGRADE, view, theirs)
                    if mine.size:
                        kind.fill(NONE)
                        kind[mine] = Decision.UPGRADE
                        bar.fill(-1)
                        actions = yield Stop(round_, seat, Decision.UPGRADE, mine, kind, bar)
                        st.upgrade[mine] = np.where(actions >= UPGRADE_BASE, actions - 2, -1)
                batch._play_turn(seat, players, seed, st)
                st.answer.fill(False)
                landing = np.flatnonzero(st.pending != batch.NO_DECISION)
                if landing.size:
                    mine = landing[agent[landing]]
                    for decision in (Decision.BUY, Decision.TAKEOVER):
                        theirs = landing[~agent[landing] & (st.pending[landing] == decision)]
                        if theirs.size:
                            view = batch._view(rules, state, seed, seat, slot, decision)
                            st.answer[theirs] = self._bot_answer(
                                seat, decision, view, theirs, st.pending_bar[theirs]
                            )
                    if mine.size:
                        kind.fill(NONE)
                        kind[mine] = st.pending[mine]
                        bar.fill(-1)
                        bar[mine] = st.pending_bar[mine]
                        actions = yield Stop(round_, seat, Decision.BUY, mine, kind, bar)
                        st.answer[mine] = actions == YES
                batch._finish_turn(seat, st)


def _replayed(
    rules: Rules,
    seed: int,
    games: np.ndarray,
    bots: list[Strategy],
    which: np.ndarray,
    answers: list[np.ndarray],
    numbers: np.ndarray,
) -> Table:
    """A :class:`Table` dealt anew and given ``answers``: a copy (:meth:`Table.__reduce__`)."""
    table = Table(rules, seed, games, bots, which, numbers)
    for actions in answers:
        table.answer(actions)
    return table


def seats_of(games: np.ndarray, seat: int | None, players: int) -> tuple[np.ndarray, np.ndarray]:
    """(deal, agent's seat) of each game: with ``seat`` None the harness's rotation, game g =
    deal * players + rotation with the agent (lineup position 0) in seat rotation, as in
    ``barbaron play``; with a fixed ``seat``, game g is deal g."""
    games = np.asarray(games, dtype=np.int64)
    if seat is None:
        return games // players, games % players
    if not is_whole(seat) or not 0 <= seat < players:
        raise ValueError(f"seat must be 0..{players - 1} or None, got {seat!r}")
    return games.copy(), np.full(len(games), int(seat), dtype=np.int64)


def lineup_which(agent_seat: np.ndarray, players: int) -> np.ndarray:
    """(n, players): -1 at the agent's seat, opponent j - 1 at the seat j places after it."""
    n = agent_seat.size
    which = np.empty((n, players), dtype=np.int64)
    for j in range(players):
        which[np.arange(n), (agent_seat + j) % players] = j - 1
    return which


def final_rewards(worth: np.ndarray, seat: np.ndarray, reward: str) -> np.ndarray:
    """(n,) the agent's reward at the end: win share (R19) or worth share."""
    rows = np.arange(worth.shape[0])
    if reward == "win":
        winners = worth == worth.max(axis=1, keepdims=True)
        return winners[rows, seat] / winners.sum(axis=1)
    total = worth.sum(axis=1).astype(np.float64)
    return np.where(total > 0, worth[rows, seat] / np.maximum(total, 1), 1.0 / worth.shape[1])


def check_reward(reward: str) -> str:
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
    return reward


class BatchEnv:
    """Many games at once on the batch engine: one agent seat per game, bots in the others.

    ``opponents``: bot specs (or strategies) for the other seats, in turn order after the
    agent's (default Normal in every other seat of ``rules``' table, three without rules);
    ``seat``: the agent's seat, or None for the
    harness's rotation (game g: deal g // players, the agent in seat g % players, as lineup
    position 0 in game g of ``barbaron play``; with a fixed seat, game g is deal g);
    ``reward``: ``"win"`` (final win share, R19) or ``"worth"`` (final worth share).

    ``reset(seed, n)`` starts games ``first_game .. first_game + n - 1`` under ``seed``.
    The games are in lockstep, so every ``step`` answers one stage of one turn slot: the agent's
    upgrade question, or its buy / takeover question after landing, in every game that has it
    (``info["active"]``); the other games answer 0 (their mask allows only 0). The bots'
    decisions, and slots without agent decisions, are played inside the engine between steps.
    All games end together; the step that ends them returns ``done`` all True and the rewards
    (0 before), and with ``autoreset`` the next ``n`` games (``first_game + n`` on) have
    already started: the returned observations and ``info["game"]`` and ``["seat"]`` are theirs
    (``info["final_worth"]``, ``["final_game"]`` and ``["final_seat"]`` hold the finished
    games'). Without ``autoreset`` a step after the end raises.

    Observations ``(n, obs_size)``, masks ``(n, 14)`` int8, rewards ``(n,)`` float, done
    ``(n,)`` bool; ``info``: ``active`` (n,) bool, ``game``, ``deal`` and ``seat`` (n,) int64.
    """

    def __init__(
        self,
        opponents: Sequence[str | Strategy] | None = None,
        *,
        rules: Rules | None = None,
        seat: int | None = None,
        reward: str = "win",
        autoreset: bool = True,
    ) -> None:
        rules = check_rules(rules)
        if opponents is None:  # Normal in every other seat of the table
            opponents = ["normal"] * ((rules.players if rules else 4) - 1)
        players = len(opponents) + 1 if not isinstance(opponents, str | Strategy) else 0
        if rules is None and players and not 2 <= players <= 4:  # (QA: "rules: players must
            # be 2, 3 or 4, got 5"; and none: "2 players need 1 opponents, got 0")
            raise ValueError(f"opponents: 1 to 3 bot specs (a table of 2 to 4), got {players - 1}")
        self.rules = rules or Rules(players=max(players, 2))
        self.opponents = make_opponents(opponents, self.rules.players)
        seats_of(np.zeros(1, dtype=np.int64), seat, self.rules.players)  # checks seat
        self.seat, self.reward_kind, self.autoreset = seat, check_reward(reward), autoreset
        self.table: Table | None = None
        self._unstarted = "before reset"  # why there is no table: what a call without one says
        self.over = False  # the games ended (without autoreset)
        self.decisions = 0  # agent decisions answered so far
        self.games_played = 0  # games finished so far

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def obs_size(self) -> int:
        return obs_size(self.players)

    def reset(self, seed: int, n: int, first_game: int = 0):
        """Start ``n`` games (``first_game`` on) under ``seed``: (observations, masks, info)."""
        check_seed(seed)
        if not is_whole(n) or n < 1:
            raise ValueError(f"n must be a positive whole number of games, got {n!r}")
        if not is_whole(first_game) or first_game < 0:
            raise ValueError(f"first_game must be a whole number >= 0, got {first_game!r}")
        if first_game + n > MAX_INDEX:
            raise ValueError(
                f"games {first_game} .. {first_game + n - 1} go past the last game number, "
                "2**63 - 1: reset with a smaller first_game or n"
            )
        self.seed, self.n, self.next_game = int(seed), int(n), int(first_game)
        self.over = False
        self._start()
        obs, mask, info = self._observe()
        return obs, mask, info

    def _start(self) -> None:
        games = np.arange(self.next_game, self.next_game + self.n, dtype=np.int64)
        self.next_game += self.n
        self.games = games
        deals, self.agent_seat = seats_of(games, self.seat, self.players)
        which = lineup_which(self.agent_seat, self.players)
        self.table = None  # until the new games have started (a bot may raise at their start)
        self._unstarted = "after new games failed to start (a bot raised, or Ctrl-C)"
        self.table = Table(self.rules, self.seed, deals, self.opponents, which, games)

    def _observe(self):
        t = self.table
        s, stop = t.state, t.stop
        if stop is None:
            kind = np.full(t.n, NONE, dtype=np.int8)
            bar, round_, active = kind, self.rules.rounds, np.zeros(t.n, dtype=bool)
        else:
            kind, bar, round_ = stop.kind, stop.bar, stop.round
            active = kind >= 0
        obs = observe(
            s.coins, s.position, s.skip, s.owner, s.level, round_, self.agent_seat, kind, bar
        )
        self.mask = action_masks(s.coins, s.owner, s.level, self.agent_seat, kind)
        info = {
            "active": active,
            "game": self.games.copy(),
            "deal": s.game.copy(),
            "seat": self.agent_seat.copy(),
        }
        return obs, self.mask.copy(), info

    def step(self, actions):
        """Answer every game's open question (0 where none): (obs, masks, rewards, done, info)."""
        t = self.table
        if t is None:
            raise IllegalAction(f"step {self._unstarted}: call reset(seed, n) first")
        if self.over:
            raise IllegalAction("step after the end: the games are over; call reset(seed, n)")
        a = check_actions(actions, self.mask, self.games)
        stop = t.stop
        if stop is not None:
            self.decisions += stop.rows.size
            t.answer(a[stop.rows])
        n = t.n
        reward, done, final = np.zeros(n), np.zeros(n, dtype=bool), None
        if t.stop is None:  # played out (answering an end-of-game stop too: see below)
            # (the finished games' numbers and seats too: autoreset replaces them in info)
            final = {
                "final_worth": t.worth(),
                "final_game": self.games.copy(),  # (copies, as info's game and seat: review)
                "final_seat": self.agent_seat.copy(),
            }
            reward = final_rewards(final["final_worth"], self.agent_seat, self.reward_kind)
            done[:] = True
            self.games_played += n
            if self.autoreset and self.next_game + self.n <= MAX_INDEX:
                self._start()
            else:  # (autoreset ends at the last game number, 2**63 - 1)
                self.over = True
        obs, mask, info = self._observe()
        return obs, mask, reward, done, info | (final or {})

    def view(self):
        """The batch view of the open question (a :class:`~barbaron.strategy.BatchView`) and the
        rows it is open in, or None when nothing is asked."""
        t = self.table
        if t is None or t.stop is None:
            return None
        stop = t.stop
        return _views(t, stop)

    def actions_of(self, strategy: Strategy | str) -> np.ndarray:
        """(n,) the actions ``strategy`` (a bot or a spec) would choose in the agent's seat now
        (0 where nothing is asked): for imitation, and to check that the environment plays the
        harness's game."""
        if self.table is None:
            raise IllegalAction(f"actions_of {self._unstarted}: call reset(seed, n) first")
        return strategy_actions(self.table, strategy)


def strategy_actions(t: Table, strategy: Strategy | str) -> np.ndarray:
    """(n,) the actions ``strategy`` (or the bot a spec names) would choose at table ``t``'s
    stop (0 where not asked)."""
    if isinstance(strategy, str):
        from barbaron.registry import make_bot

        strategy = make_bot(strategy)
    elif isinstance(strategy, type) or not is_strategy(strategy):
        raise TypeError(f"a strategy instance or a bot spec is needed, got {strategy!r}")
    out = np.zeros(t.n, dtype=np.int64)
    if t.stop is None:
        return out
    for decision, view, rows in _views(t, t.stop):
        with batch._read_only(t.state):
            if decision is Decision.UPGRADE:
                choice = batch._checked_upgrades(strategy, view, rows).astype(np.int64)
                out[rows] = np.where(choice >= 0, choice + UPGRADE_BASE, NO)
            else:
                yes = ask(strategy, decision, view, rows, t.stop.bar[rows])
                out[rows] = np.where(yes, YES, NO)
    return out


def _views(t: Table, stop: Stop):
    """[(decision, view, rows)] of a stop: one for an upgrade, one per kind for a landing."""
    slot = (stop.round - 1) * t.rules.players + stop.seat
    out = []
    for decision in (Decision.UPGRADE, Decision.BUY, Decision.TAKEOVER):
        rows = stop.rows[stop.kind[stop.rows] == decision]
        if rows.size:
            view = batch._view(t.rules, t.state, t.seed, stop.seat, slot, decision)
            out.append((decision, view, rows))
    return out

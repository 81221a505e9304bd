"""One game against the Homies in the terminal: the board as text, the turn's story, prompts.

The user's seat is a :class:`HumanSeat` strategy: the reference engine asks it exactly where a
choice is legal, as it asks the bots; it prompts on the console, reads one answer per line
(a pipe works as well as a terminal), plays the default when input ends and, with a timer, lets
the autopilot answer a decision not made in time (as the online game does). Every seat's
decisions, the dice and the card orders are recorded, so that the game can be saved as a
scenario file with a ``decisions`` list (:func:`barbaron.scenario.load_scenario` replays it).
"""

from __future__ import annotations

import io
import itertools
import os
import select
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from barbaron import rules as R
from barbaron.errors import UsageError
from barbaron.reference import Event, Game, Outcome, worths
from barbaron.rules import Rules
from barbaron.strategy import (
    SPEC_ATTRIBUTE,
    AnswersInOne,
    BatchView,
    Decision,
    GameView,
    InOneGame,
    ScalarStrategy,
    Strategy,
    StrategyError,
    ask,
    describe,
)


class LineReader:
    """Lines from a stream, one answer each; with a file descriptor, a timeout per line."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        try:
            self.fd: int | None = stream.fileno()
        except (AttributeError, OSError, io.UnsupportedOperation, ValueError):
            self.fd = None
        self.buffer = b""
        self.eof = False

    def readline(self, timeout: float | None = None) -> str | None:
        """The next line without its end, None at the end of input; TimeoutError if no full
        line came within ``timeout`` seconds (None waits for ever)."""
        if self.stream is None:  # no standard input at all (closed): its end
            return None
        if self.fd is None:
            line = self.stream.readline()
            return None if line == "" else line.rstrip("\r\n")
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.buffer and not self.eof:
            if deadline is not None:
                left = deadline - time.monotonic()
                ready = select.select([self.fd], [], [], max(left, 0))[0] if left > 0 else []
                if not ready:
                    self._discard_typed()
                    raise TimeoutError
            chunk = os.read(self.fd, 4096)
            if chunk:
                self.buffer += chunk
            else:
                self.eof = True
        if b"\n" in self.buffer:
            line, self.buffer = self.buffer.split(b"\n", 1)
        elif self.buffer:
            line, self.buffer = self.buffer, b""
        else:
            return None
        return line.decode(errors="replace").rstrip("\r")

    def _discard_typed(self) -> None:
        """After a timeout on a terminal, drop a half-typed answer (it was for that question)."""
        self.buffer = b""
        if self.fd is not None and os.isatty(self.fd):
            try:
                import termios

                termios.tcflush(self.fd, termios.TCIFLUSH)
            except (ImportError, OSError):
                pass


PIPED_REFUSALS = 5  # piped answers in a row that are not choices before the duel gives up
HELP_WORDS = ("?", "h", "help")  # an answer that shows ANSWER_HELP and asks again
ANSWER_HELP = (
    "  answer with a choice the question shows: y or n, or an option's number (0: none); Enter "
    "takes the one in brackets (a capital Y or N: the autopilot's choice); Ctrl-C ends the "
    "game and saves nothing"
)


class Console:
    """Where the duel prints and reads: asks a question until the answer is one of the choices."""

    def __init__(self, stdin: TextIO, stdout: TextIO, timer: float | None = None) -> None:
        self.reader = LineReader(stdin)
        self.out = stdout
        self.timer = timer
        self.echo = not (self.reader.fd is not None and os.isatty(self.reader.fd))

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str, parse: Callable[[str], object], default: object) -> object:
        """Ask until ``parse`` accepts the line (it raises ValueError with a hint otherwise);
        Enter or the end of input gives ``default``; TimeoutError when the timer runs out."""
        deadline = None if self.timer is None else time.monotonic() + self.timer
        refused = 0
        while True:
            print(prompt, end=" ", file=self.out, flush=True)
            left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            line = self.reader.readline(left)
            if line is None:
                self.say("(end of input: the default)")
                return default
            if self.echo:
                self.say(line)
            if not line.strip():
                return default
            answer = line.strip()
            helping = answer.lower() in HELP_WORDS
            problem = f"{answer!r} asks for help"
            if not helping:
                try:
                    return parse(answer)
                except ValueError as e:
                    problem = str(e)
            refused += 1  # (help too: `yes '?' | barbaron duel` asked for ever, review)
            if self.echo and refused == PIPED_REFUSALS:  # (`yes | barbaron duel` looped)
                raise UsageError(
                    f"{refused} piped answers in a row are not choices here (the last: "
                    f"{problem}); give one answer per line, as the prompts ask"
                )
            self.say(ANSWER_HELP if helping else f"  {problem}; please answer again (? for help)")


def _yes_no(text: str) -> bool:
    word = text.lower()
    if word in ("y", "yes", "j", "ja"):
        return True
    if word in ("n", "no", "nein"):
        return False
    raise ValueError(f"{text!r} is not y or n")


def district_holding(owner: Sequence[int], seat: int, bar: int) -> int:
    first = R.district_of(bar) * R.BARS_PER_DISTRICT
    return sum(owner[b] == seat for b in range(first, first + R.BARS_PER_DISTRICT))


class HumanSeat(ScalarStrategy):
    """The user's seat: every decision is a prompt on the console (or, when the timer runs
    out, the autopilot's answer). Defaults on Enter are the autopilot's answers."""

    def __init__(self, console: Console | None = None, autopilot: Strategy | None = None) -> None:
        from barbaron.registry import make_bot

        self.console = console
        self.autopilot = autopilot if autopilot is not None else make_bot("autopilot")

    def __repr__(self) -> str:
        return "human"

    def _autopilot(self, game: GameView, bar: int = -1) -> int | bool:
        return InOneGame(self.autopilot).answer(game, bar)

    def _ask(self, game: GameView, prompt: str, parse, default, describe) -> object:
        assert self.console is not None
        try:
            return self.console.ask(prompt, parse, default)
        except TimeoutError:
            answer = self._autopilot(game, getattr(self, "_bar", -1))
            if game.decision is Decision.UPGRADE:
                answer = None if answer == -1 else answer
            self.console.say(
                f"\n  time is up ({self.console.timer:g} s): the autopilot plays this decision: "
                f"{describe(answer)}"
            )
            return answer

    def upgrade_one(self, game: GameView) -> int | None:
        me, coins = game.seat, game.coins[game.seat]
        allowed = [
            b
            for b in range(R.N_BARS)
            if game.owner[b] == me and game.level[b] < R.MAX_LEVEL and coins >= R.upgrade_cost(b)
        ]
        lines = ["", f"  Before your roll (you have {coins} coins), upgrade one bar?"]
        lines.append("    0) no upgrade")
        for k, b in enumerate(allowed, 1):
            held = district_holding(game.owner, me, b)
            lv = game.level[b]
            lines.append(
                f"    {k}) {R.BAR_NAMES[b]}: {R.LEVEL_NAMES[lv]} -> {R.LEVEL_NAMES[lv + 1]} for "
                f"{R.upgrade_cost(b)} ({coins - R.upgrade_cost(b)} left); tab "
                f"{R.tab(b, lv, held)} -> {R.tab(b, lv + 1, held)}"
            )
        self.console.say("\n".join(lines))
        self._bar = -1

        def parse(text: str) -> int | None:
            if text.lower() in ("0", "n", "no", "none"):
                return None
            if text.isdigit() and 1 <= int(text) <= len(allowed):
                return allowed[int(text) - 1]
            raise ValueError(f"{text!r} is not one of 0..{len(allowed)}")

        def describe(answer: int | None) -> str:
            return "no upgrade" if answer is None else f"upgrade {R.BAR_NAMES[answer]}"

        return self._ask(game, "  Your choice [0]:", parse, None, describe)

    def buy_one(self, game: GameView, bar: int) -> bool:
        me, coins, price = game.seat, game.coins[game.seat], R.PRICES[bar]
        held = district_holding(game.owner, me, bar) + 1
        default = bool(self._autopilot(game, bar))
        district = R.DISTRICT_NAMES[R.district_of(bar)]
        prompt = (
            f"\n  Buy {R.BAR_NAMES[bar]} for {price}? You would keep {coins - price} coins; its "
            f"tab would be {R.tab(bar, 0, held)} (you would hold {held} of {district}) "
            f"[{'Y/n' if default else 'y/N'}]:"
        )
        self._bar = bar
        return self._ask(game, prompt, _yes_no, default, lambda a: "buy" if a else "do not buy")

    def takeover_one(self, game: GameView, bar: int) -> bool:
        me, coins = game.seat, game.coins[game.seat]
        owner, level = game.owner[bar], game.level[bar]
        value = R.bar_value(bar, level)
        cost = R.takeover_cost(value)
        mine = district_holding(game.owner, me, bar) + 1
        theirs = district_holding(game.owner, owner, bar)
        default = bool(self._autopilot(game, bar))
        prompt = (
            f"\n  Take over {R.BAR_NAMES[bar]} ({R.LEVEL_NAMES[level]}, value {value}) from seat "
            f"{owner} for {cost}? You would keep {coins - cost} coins; its tab would be "
            f"{R.tab(bar, level, mine)} for you (now {R.tab(bar, level, theirs)} for seat "
            f"{owner}) [{'Y/n' if default else 'y/N'}]:"
        )
        self._bar = bar
        return self._ask(
            game, prompt, _yes_no, default, lambda a: "take over" if a else "do not take over"
        )


class Recorder(AnswersInOne):
    """Asks ``inner`` and records every answer as ``[slot, kind, answer]`` in ``log``."""

    def __init__(self, inner: Strategy, log: list) -> None:
        self.inner, self.log = inner, log
        setattr(self, SPEC_ATTRIBUTE, describe(inner))  # errors name the bot, not this (QA)

    def __repr__(self) -> str:
        return repr(self.inner)

    def _decide(self, view: BatchView, games: np.ndarray, bars: np.ndarray | None):
        decision = view.decision
        answer = ask(self.inner, decision, view, games, bars)
        for value in answer.tolist():
            value = int(value) if decision is Decision.UPGRADE else bool(value)
            self.log.append([int(view.slot), decision.method, value])
        return answer


class RecordingChance:
    """A chance source that remembers every roll and every card order it gave."""

    def __init__(self, chance) -> None:
        self.chance = chance
        self.dice: list[tuple[int, int]] = []
        self.deck: list[int] = []

    def roll(self) -> tuple[int, int]:
        pair = tuple(int(d) for d in self.chance.roll())
        self.dice.append(pair)
        return pair

    def deck_order(self, shuffle: int) -> list[int]:
        order = [int(c) for c in self.chance.deck_order(shuffle)]
        if len(self.deck) == shuffle * R.N_CARDS:
            self.deck.extend(order)
        return order


def board_text(game: Game, names: Sequence[str]) -> str:
    """The board: the 16 spaces in order with who stands where, owners and levels; then each
    player's coins and worth."""
    players = game.rules.players
    lines = [f"  {'#':>2}  {'space':<16} {'district':<10} {'owner':<13} {'level':<12} here"]
    for space in range(R.N_SPACES):
        bar = R.SPACE_TO_BAR[space]
        owner = level = ""
        if bar >= 0:
            if game.owner[bar] >= 0:
                owner = f"seat {game.owner[bar]}"
                level = R.LEVEL_NAMES[game.level[bar]] if game.level[bar] else "plain"
            else:
                owner = f"free ({R.PRICES[bar]})"
            district = R.DISTRICT_NAMES[R.district_of(bar)]
            label = f"{R.SPACE_NAMES[space]:<16} {district:<10} {owner:<13} {level:<12}"
        else:
            label = f"{R.SPACE_NAMES[space]:<16} {'':<10} {'':<13} {'':<12}"
        here = ", ".join(
            f"S{s}" + ("*" if game.skip[s] else "")
            for s in range(players)
            if game.position[s] == space
        )
        lines.append(f"  {space:>2}  {label} {here}".rstrip())
    worth = worths(game.coins, game.owner, game.level)
    lines.append("")
    w, p = _column_width([*game.coins, *worth]), _name_width(names)
    lines.append(f"  {'seat':<6}{'player':<{p}}{'coins':>{w}}{'worth':>{w}}  bars")
    for s in range(players):
        bars = sum(o == s for o in game.owner)
        lines.append(f"  S{s:<5}{names[s]:<{p}}{game.coins[s]:>{w}}{worth[s]:>{w}}  {bars}")
    lines.append("  (* sits out the next turn: Curfew)")
    return "\n".join(lines)


class LiveGame(Game):
    """The reference engine, telling the game as it goes: the board at every turn start and
    each event of the story as it happens."""

    console: Console
    names: Sequence[str]
    human: int

    def _turn(self, seat: int) -> None:
        who = "your" if seat == self.human else f"seat {seat}'s ({self.names[seat]})"
        self.console.say("")
        self.console.say(f"=== Round {self.round}/{self.rules.rounds}, {who} turn ===")
        self.console.say(board_text(self, shown_names(self.names, self.human)))
        super()._turn(seat)

    def _log(self, seat: int, kind: str, text: str, amount: int = 0, to: int = -1, bar: int = -1):
        super()._log(seat, kind, text, amount, to, bar)
        if kind == "round":
            return
        who = "  " if seat < 0 else f"  seat {seat} " + ("(you) " if seat == self.human else "")
        self.console.say(f"{who}{text}")


@dataclass
class DuelResult:
    rules: Rules
    names: list[str]  # per seat
    human: int
    seed: int
    outcome: Outcome
    events: list[Event]
    dice: list[tuple[int, int]]
    deck: list[int]
    decisions: list[list]  # [slot, kind, answer] in play order

    def scenario(self) -> dict:
        """The game as a scenario file (SCENARIO-FORMAT.md) with ``decisions`` and ``bots``."""
        return {
            "name": f"duel-seed-{self.seed}",
            "rules": {
                "players": self.rules.players,
                "rounds": self.rules.rounds,
                "start_coins": self.rules.start_coins,
                "seat_bonus": self.rules.seat_bonus,
            },
            "policies": [{"buy": None, "takeover": None, "upgrade": None}] * self.rules.players,
            "decisions": self.decisions,
            "bots": self.names,
            "dice": [list(p) for p in self.dice],
            "deck": [R.CARDS[c] for c in self.deck],
            "expect": self.outcome.to_dict(),
        }


def default_seat(seed: int, players: int) -> int:
    """The user's seat drawn from the seed: who goes first changes from game to game."""
    from barbaron import streams

    return int(streams.uniform(seed, 0, streams.BOTS - 1, 0) * players)


def play_duel(
    homies: Sequence[str],
    *,
    seat: int | None,
    seed: int,
    timer: float | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    rules: Rules | None = None,
) -> DuelResult:
    """Play one game: the user in ``seat`` against the bots ``homies`` (specs), on the dice and
    cards of ``seed``. Raises KeyboardInterrupt if the user presses Ctrl-C."""
    from barbaron.registry import make_bot
    from barbaron.streams import SeededChance

    players = len(homies) + 1
    rules = rules or Rules(players=players)
    if seat is None:
        seat = default_seat(seed, players)
    console = Console(stdin or sys.stdin, stdout or sys.stdout, timer)
    bots = [make_bot(spec) for spec in homies]
    names: list[str] = []
    strategies: list[Strategy] = []
    decisions: list[list] = []
    others = iter(zip(homies, bots, strict=True))
    for s in range(players):
        if s == seat:
            names.append("human")
            strategies.append(Recorder(HumanSeat(console), decisions))
        else:
            spec, bot = next(others)
            names.append(spec)
            strategies.append(Recorder(bot, decisions))
    chance = RecordingChance(SeededChance(seed, 0))
    game = LiveGame(rules, strategies, chance, seed=seed, game=0)
    game.console, game.names, game.human = console, names, seat
    lineup = ", ".join(f"S{s} {n}" for s, n in enumerate(shown_names(names, seat)))
    console.say(f"Bar Baron, seed {seed}: {lineup}")
    if timer:
        console.say(
            f"{timer:g} second{'' if timer == 1 else 's'} per decision; then the autopilot plays it"
        )
    try:
        outcome = game.play()
    except StrategyError as e:  # the console failed (output closed by | head, input refused)
        if isinstance(e.__cause__, BrokenPipeError | UsageError):  # not the user's seat
            raise e.__cause__ from None
        raise
    console.say("")
    console.say(board_text(game, shown_names(names, seat)))
    return DuelResult(
        rules, names, seat, seed, outcome, game.events, chance.dice, chance.deck, decisions
    )


def shown_names(names: Sequence[str], human: int) -> list[str]:
    """The players as the console shows them: "you" for the human's seat."""
    return ["you" if s == human else name for s, name in enumerate(names)]


def _column_width(numbers: list[int]) -> int:
    """Width of a right-aligned column of coins: 7, or wider for the millions rules allow."""
    return max(7, 2 + max(len(str(int(n))) for n in numbers))


def _name_width(names: list[str]) -> int:
    """Width of the players' column: 22, or wider for a long bot spec."""
    return max(22, 2 + max(len(n) for n in names))


def final_table(result: DuelResult) -> str:
    """Final worths, best first (an equal worth, an equal place), and the winner."""
    o = result.outcome
    names = shown_names(result.names, result.human)
    order = sorted(range(len(o.worth)), key=lambda s: (-o.worth[s], s))
    w, p = _column_width([*o.coins, *o.worth]), _name_width(names)
    lines = [f"{'place':<6}{'seat':<6}{'player':<{p}}{'coins':>{w}}{'bars':>{w}}{'worth':>{w}}"]
    for s in order:
        place = 1 + sum(x > o.worth[s] for x in o.worth)
        lines.append(
            f"{place:<6}S{s:<5}{names[s]:<{p}}{o.coins[s]:>{w}}{o.worth[s] - o.coins[s]:>{w}}"
            f"{o.worth[s]:>{w}}"
        )
    crown = [("you" if s == result.human else f"seat {s} ({names[s]})") for s in o.winners]
    if len(crown) > 1:
        verb = "share the win"
    else:
        verb = "win" if o.winners[0] == result.human else "wins"
    lines.append(f"{' and '.join(crown)} {verb} with a worth of {max(o.worth)}")
    return "\n".join(lines)


def check_writable(path: str, option: str, force: bool = False) -> None:
    """A UsageError unless a file can be written at ``path`` (checked before any work): a file
    already there only with ``force``, and never something that is not a regular file."""
    from pathlib import Path

    if not str(path).strip():
        raise UsageError(f"{option} needs a file name")
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise UsageError(f"{option} {path}: is a folder, not a file")
    if str(path).endswith(("/", os.sep)):  # (Path() drops the slash)
        raise UsageError(f"{option} {path}: names a folder (it ends in /); give a file name")
    if p.exists() or p.is_symlink():
        if not p.is_file():
            raise UsageError(f"{option} {path}: is not a regular file; choose another name")
        if not force:
            raise UsageError(
                f"{option} {path}: exists; add --force to replace it, or choose another name"
            )
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise UsageError(f"{option} {path}: not writable")


def write_text(path: str, text: str, *, replace: bool = True) -> str:
    """Write ``text`` to ``path`` whole (a temporary file renamed into place); the path written.
    Without ``replace`` a file that appeared at ``path`` meanwhile is kept, and the text goes
    to the first free ``NAME-2.EXT``, ``NAME-3.EXT`` ... A failure names the path (a full disk
    said only "No space left on device")."""
    tmp = f"{path}.tmp{os.getpid()}"
    target = path
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        if replace:
            os.replace(tmp, path)
            return path
        stem, suffix = os.path.splitext(path)
        for n in itertools.count(2):
            try:
                _create_new(tmp, target, text)  # fails, never replaces, when the name is taken
                return target
            except FileExistsError:
                target = f"{stem}-{n}{suffix}"
    except OSError as e:
        raise OSError(e.errno, e.strerror or str(e), target) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _create_new(tmp: str, target: str, text: str) -> None:
    """``target`` made as a new file holding ``text`` (the whole of ``tmp``), never replacing
    one: a hard link of ``tmp``, or where the file system has none (FAT, many network and
    FUSE mounts) a file opened to be created; FileExistsError when the name is taken."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise
    except OSError:  # no hard links here: create it exclusively and write it
        with open(target, "x", encoding="utf-8") as f:
            try:
                f.write(text)
            except BaseException:
                os.unlink(target)  # no half-written game under its name
                raise

"""The reference engine: one game at a time, in plain Python, every rule in the order it is stated.

This is the project's executable specification. It is slow on purpose: each rule is one small
method that cites its decision in ``RULES-CLARIFIED.md`` (``# Rn``). Randomness (dice and card
order) comes from a :class:`Chance` object and every decision from the seats' strategies (the
same :class:`~barbaron.strategy.Strategy` objects the batch engine plays, asked one game at a
time), so a game is a pure function of (rules, strategies, chance).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from barbaron import rules as R
from barbaron.params import counted
from barbaron.rules import Rules
from barbaron.strategy import (
    Decision,
    GameView,
    IllegalDecision,
    InOneGame,
    Strategy,
    describe,
    rules_kept,
)

__all__ = ["Game", "GameView", "IllegalDecision", "Outcome", "Event", "format_log", "worths"]

BANK = -1  # the receiver of payments that go to no player


class ChanceExhausted(RuntimeError):
    """A scripted source of dice or cards ran out before the game ended."""


class Chance(Protocol):
    """Where a game's randomness comes from: the dice and the order of every shuffle (R17)."""

    def roll(self) -> tuple[int, int]:
        """The next roll of two dice, each 1..6."""

    def deck_order(self, shuffle: int) -> Sequence[int]:
        """Card indices (R3) in draw order after shuffle number ``shuffle`` (0 = the first)."""


@dataclass(frozen=True)
class Event:
    """One line of a game's story."""

    slot: int  # turn slot (0-based, in play order); -1 for the set-up, turn_slots for closing time
    round: int  # 1-based; 0 for the set-up, rounds + 1 for closing time
    seat: int  # the seat it happens to, -1 for the whole table
    kind: str  # e.g. roll, wages, buy, pay, sale, broke, takeover, card, skip (see Game._log calls)
    text: str  # the sentence a person reads
    amount: int = 0  # coins involved, where there are any
    to: int = -1  # for payments and takeovers: the receiving seat, -1 (BANK) for the bank
    bar: int = -1  # the bar (R2) a buy, upgrade, tab, takeover, sale or free keg concerns


@dataclass(frozen=True)
class Outcome:
    """The end of a game, in the keys of a scenario's ``expect`` object."""

    coins: tuple[int, ...]
    position: tuple[int, ...]
    owner: tuple[int, ...]
    level: tuple[int, ...]
    worth: tuple[int, ...]
    winners: tuple[int, ...]
    trace: tuple[tuple[int, ...], ...]  # coins of every seat after every turn slot

    KEYS = ("coins", "position", "owner", "level", "worth", "winners", "trace")

    def to_dict(self) -> dict[str, list]:
        """The outcome as JSON-ready lists."""
        return {
            key: [list(row) for row in value] if key == "trace" else list(value)
            for key in self.KEYS
            for value in [getattr(self, key)]
        }


def worths(coins: Sequence[int], owner: Sequence[int], level: Sequence[int]) -> list[int]:
    """Worth per seat (R19): coins plus the value (R10) of every bar owned."""
    result = list(coins)
    for bar, seat in enumerate(owner):
        if seat >= 0:
            result[seat] += R.bar_value(bar, level[bar])
    return result


def winners(worth: Sequence[int]) -> tuple[int, ...]:
    """The seats with the highest worth, ascending; equal worths share the crown (R19)."""
    best = max(worth)
    return tuple(seat for seat, w in enumerate(worth) if w == best)


@dataclass
class Game:
    """One game of Bar Baron. Build it, call :meth:`play`, read :attr:`events` for the story."""

    rules: Rules
    strategies: Sequence[Strategy]
    chance: Chance
    seed: int | None = None  # the run's seed and the game's index in it: the strategies'
    game: int | None = None  # random draws (view.uniform) come from these; None in scenarios
    events: list[Event] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.strategies) != self.rules.players:
            raise ValueError(
                f"{self.rules.players} players need {self.rules.players} strategies, "
                f"got {len(self.strategies)}"
            )
        self._seats = [InOneGame(strategy) for strategy in self.strategies]
        players = self.rules.players
        self.coins = [self.rules.seat_start_coins(s) for s in range(players)]  # R4
        self.position = [R.PAYDAY] * players
        self.skip = [False] * players
        self.owner = [-1] * R.N_BARS
        self.level = [0] * R.N_BARS
        self.round = 0
        self.slot = -1
        self.cards_drawn = 0
        self._order: Sequence[int] = ()
        self.trace: list[tuple[int, ...]] = []

    # --- the game ---------------------------------------------------------------------------
    def play(self) -> Outcome:
        """Play every round (R5) and return the outcome at closing time (R19)."""
        starts = ", ".join(f"seat {s} {c}" for s, c in enumerate(self.coins))
        self._log(
            -1,
            "start",
            f"{self.rules.players} players, {counted(self.rules.rounds, 'round')}; "
            f"everyone on Payday with {starts} coins (R4)",
        )
        before = dataclasses.replace(self.rules)
        for round_number in range(1, self.rules.rounds + 1):
            self.round = round_number
            self._log(
                -1,
                "round",
                "coins: " + ", ".join(f"seat {s} {c}" for s, c in enumerate(self.coins)),
            )
            for seat in range(self.rules.players):  # R4: seat 0 first in every round
                self.slot += 1
                self._turn(seat)
                rules_kept(self.rules, before, self.strategies[seat])
                self.trace.append(tuple(self.coins))
        self.round = self.rules.rounds + 1
        self.slot += 1
        worth = worths(self.coins, self.owner, self.level)
        for seat, w in enumerate(worth):
            self._log(
                seat,
                "worth",
                f"worth {w} = {self.coins[seat]} coins + bars {w - self.coins[seat]}",
                w,
            )
        crown = winners(worth)
        names = " and ".join(f"seat {s}" for s in crown)
        self._log(
            -1,
            "end",
            f"{names} {'is' if len(crown) == 1 else 'share'} the Bar Baron with {max(worth)}",
        )
        return Outcome(
            coins=tuple(self.coins),
            position=tuple(self.position),
            owner=tuple(self.owner),
            level=tuple(self.level),
            worth=tuple(worth),
            winners=crown,
            trace=tuple(self.trace),
        )

    def _turn(self, seat: int) -> None:
        """One turn slot (R6, R7): skip, or upgrade, roll, move, resolve."""
        if self.skip[seat]:  # R6: the slot does nothing at all
            self.skip[seat] = False
            self._log(seat, "skip", "sits out this turn (Curfew)")
            return
        self._offer_upgrade(seat)
        d1, d2 = self.chance.roll()
        start = self.position[seat]
        target = start + d1 + d2
        self.position[seat] = target % R.N_SPACES
        self._log(
            seat,
            "roll",
            f"rolls {d1}+{d2}={d1 + d2}: {R.SPACE_NAMES[start]} -> "
            f"{R.SPACE_NAMES[self.position[seat]]}",
            d1 + d2,
        )
        if target >= R.N_SPACES:  # R8: passed or landed on Payday
            self._gain(seat, R.WAGES, "wages", "collects 150 wages on Payday")
        self._resolve(seat)

    def _resolve(self, seat: int) -> None:
        """Deal with the space the seat stopped on (R14, R15, cards, Curfew)."""
        space = self.position[seat]
        bar = R.SPACE_TO_BAR[space]
        if bar >= 0:
            self._land_on_bar(seat, bar)
        elif space in R.CARD_SPACES:
            self._draw_card(seat)
        elif space == R.CURFEW:
            self._send_to_curfew(seat, "lands on Curfew")

    # --- decisions ----------------------------------------------------------------------------
    def _view(self, seat: int, decision: Decision) -> GameView:
        return GameView(
            rules=self.rules,
            seat=seat,
            round=self.round,
            coins=tuple(self.coins),
            position=tuple(self.position),
            skip=tuple(self.skip),
            owner=tuple(self.owner),
            level=tuple(self.level),
            seed=self.seed,
            game=self.game,
            decision=decision,
            cards_drawn=self.cards_drawn,
            cards_seen=tuple(int(c) for c in self._order[: self.cards_drawn % R.N_CARDS]),
        )

    def _upgradable(self, seat: int) -> list[int]:
        """Bars the seat may raise a level now (R16): owned, below Draught Tap, affordable."""
        return [
            bar
            for bar in range(R.N_BARS)
            if self.owner[bar] == seat
            and self.level[bar] < R.MAX_LEVEL
            and self.coins[seat] >= R.upgrade_cost(bar)
        ]

    def _offer_upgrade(self, seat: int) -> None:
        """R7 (1), R16: at most one level on one owned bar, before the roll."""
        allowed = self._upgradable(seat)
        if not allowed:
            return
        bar = self._seats[seat].answer(self._view(seat, Decision.UPGRADE))
        if bar == -1:
            return
        if bar not in allowed:
            raise IllegalDecision(
                f"{describe(self.strategies[seat])} in seat {seat} chose to upgrade bar {bar} "
                f"in round {self.round}; allowed: -1 (none) or one of {allowed}",
                game=self.game,
            )
        cost = R.upgrade_cost(bar)
        self.coins[seat] -= cost
        self.level[bar] += 1
        self._log(
            seat,
            "upgrade",
            f"upgrades {R.BAR_NAMES[bar]} to {R.LEVEL_NAMES[self.level[bar]]} "
            f"for {cost} ({self.coins[seat]} left)",
            cost,
            bar=bar,
        )

    def _decide(self, seat: int, decision: Decision, bar: int) -> bool:
        return bool(self._seats[seat].answer(self._view(seat, decision), bar))

    # --- bars -------------------------------------------------------------------------------
    def _district_holding(self, seat: int, bar: int) -> int:
        """How many bars of ``bar``'s district ``seat`` owns."""
        first = R.district_of(bar) * R.BARS_PER_DISTRICT
        return sum(self.owner[b] == seat for b in range(first, first + R.BARS_PER_DISTRICT))

    def _land_on_bar(self, seat: int, bar: int) -> None:
        owner = self.owner[bar]
        name = R.BAR_NAMES[bar]
        if owner == -1:  # R14
            price = R.PRICES[bar]
            if self.coins[seat] < price:
                self._log(seat, "pass", f"cannot afford {name} (price {price})")
            elif self._decide(seat, Decision.BUY, bar):
                self.coins[seat] -= price
                self.owner[bar] = seat
                self._log(
                    seat,
                    "buy",
                    f"buys {name} for {price} ({self.coins[seat]} left)",
                    price,
                    bar=bar,
                )
            else:
                self._log(seat, "pass", f"does not buy {name} (price {price})")
        elif owner != seat:  # R15
            level = self.level[bar]
            held = self._district_holding(owner, bar)
            due = R.tab(bar, level, held)
            district = R.DISTRICT_NAMES[R.district_of(bar)]
            why = (
                f"{R.BASE_TABS[bar]} x {R.UPGRADE_MULTIPLIER[level]} x "
                f"{R.DISTRICT_BONUS_X2[held] / 2:g}: {R.LEVEL_NAMES[level]}, "
                f"owner holds {held} of {district}"
            )
            self._pay(seat, due, owner, f"a tab of {due} on {name} ({why})", bar)
            value = R.bar_value(bar, self.level[bar])
            cost = R.takeover_cost(value)
            if self.coins[seat] < cost:
                return
            if self._decide(seat, Decision.TAKEOVER, bar):
                self.coins[seat] -= cost
                self.coins[owner] += cost
                self.owner[bar] = seat
                self._log(
                    seat,
                    "takeover",
                    f"takes over {name} (value {value}) from seat {owner} "
                    f"for {cost} ({self.coins[seat]} left)",
                    cost,
                    owner,
                    bar,
                )
            else:
                self._log(seat, "pass", f"could take over {name} for {cost} but does not")

    # --- money --------------------------------------------------------------------------------
    def _gain(self, seat: int, amount: int, kind: str, text: str) -> None:
        self.coins[seat] += amount
        self._log(seat, kind, f"{text} ({self.coins[seat]} coins)", amount)

    def _pay(self, payer: int, amount: int, receiver: int, what: str, tab_bar: int = -1) -> None:
        """R12: sell bars, lowest value first, until the amount can be paid; else pay all, broke.

        ``receiver`` is a seat or BANK; ``what`` names the debt for the log ("a tab of 45 on ...");
        ``tab_bar`` the bar whose tab it is, if it is one.
        """
        to = "the bank" if receiver == BANK else f"seat {receiver}"
        if self.coins[payer] < amount:
            self._log(
                payer,
                "owe",
                f"owes {to} {what} but has only {self.coins[payer]}",
                amount,
                receiver,
                tab_bar,
            )
            mine = [b for b in range(R.N_BARS) if self.owner[b] == payer]
            for bar in R.liquidation_order(mine, self.level):
                if self.coins[payer] >= amount:
                    break
                value = R.bar_value(bar, self.level[bar])
                proceeds = R.sale_price(value)
                self.coins[payer] += proceeds
                self.owner[bar] = -1
                self.level[bar] = 0
                self._log(
                    payer,
                    "sale",
                    f"must sell {R.BAR_NAMES[bar]} (value {value}) to the bank "
                    f"for {proceeds} ({self.coins[payer]} coins)",
                    proceeds,
                    bar=bar,
                )
        paid = min(amount, self.coins[payer])
        self.coins[payer] -= paid
        if receiver != BANK:
            self.coins[receiver] += paid
        if paid < amount:
            self._log(
                payer,
                "broke",
                f"is broke: pays {to} all {paid} coins for {what}"
                if paid
                else f"is broke: has no coins to pay {to} {what}",
                paid,
                receiver,
                tab_bar,
            )
        else:
            self._log(
                payer,
                "pay",
                f"pays {to} {what} ({self.coins[payer]} left)",
                paid,
                receiver,
                tab_bar,
            )

    # --- cards (R17, R18) ----------------------------------------------------------------------
    def _draw_card(self, seat: int) -> None:
        shuffle, index = divmod(self.cards_drawn, R.N_CARDS)
        if index == 0:  # R17: a fresh shuffle at the start and whenever all 14 have been drawn
            self._order = self.chance.deck_order(shuffle)
        card = self._order[index]
        self.cards_drawn += 1
        self._log(seat, "card", f"draws a bar card: {R.CARD_TITLES[card]}")
        getattr(self, "_card_" + R.CARDS[card])(seat)

    def _others(self, seat: int) -> list[int]:
        """The other seats clockwise from ``seat``'s left (R13)."""
        players = self.rules.players
        return [(seat + k) % players for k in range(1, players)]

    def _owned(self, seat: int) -> list[int]:
        return [b for b in range(R.N_BARS) if self.owner[b] == seat]

    def _card_round_on_the_house(self, seat: int) -> None:
        for other in self._others(seat):  # R13: one R12 payment per player
            self._pay(seat, R.ROUND_ON_THE_HOUSE_EACH, other, "30 for the round")

    def _card_regulars(self, seat: int) -> None:
        self._gain(seat, R.REGULARS_GAIN, "gain", "the regulars tip +100")

    def _card_bouncer(self, seat: int) -> None:
        self.position[seat] = R.PAYDAY  # R8: wages once
        self._gain(seat, R.WAGES, "wages", "is thrown out to Payday and collects 150 wages")

    def _card_birthday(self, seat: int) -> None:
        for other in self._others(seat):  # R13
            self._pay(other, R.BIRTHDAY_EACH, seat, "25 for the birthday")

    def _card_health_inspection(self, seat: int) -> None:
        levels = sum(self.level[b] for b in self._owned(seat))  # R18: Draught Tap counts 2
        amount = R.HEALTH_INSPECTION_PER_LEVEL * levels
        what = (
            f"{amount} for {counted(levels, 'upgrade level')}" if levels else "nothing: no upgrades"
        )
        self._pay(seat, amount, BANK, what)

    def _card_pub_crawl(self, seat: int) -> None:
        self._move_by_card(seat, self.position[seat] + R.PUB_CRAWL_STEPS)  # R18

    def _card_police_check(self, seat: int) -> None:
        self.position[seat] = R.CURFEW  # no wages (R8)
        self._send_to_curfew(seat, "is taken straight to Curfew")

    def _card_lottery_ticket(self, seat: int) -> None:
        self._gain(seat, R.LOTTERY_GAIN, "gain", "wins the lottery +150")

    def _card_broken_glass(self, seat: int) -> None:
        self._pay(seat, R.BROKEN_GLASS_COST, BANK, "60 for the glasses")

    def _card_tax_audit(self, seat: int) -> None:
        amount = R.tax_audit_amount(self.coins[seat])  # R18: fixed when drawn
        coins = self.coins[seat]
        what = f"{amount} tax (10% of {coins})" if amount else f"no tax: 10% of {coins} rounds to 0"
        self._pay(seat, amount, BANK, what)  # (review: "pays the bank 0 tax")

    def _card_taxi(self, seat: int) -> None:
        self._move_by_card(seat, R.NEON_LIGHT)

    def _card_free_keg(self, seat: int) -> None:
        plain = [b for b in self._owned(seat) if self.level[b] == 0]
        if plain:  # R18: the cheapest plain bar, ties by lowest index
            bar = min(plain, key=lambda b: (R.PRICES[b], b))
            self.level[bar] = 1
            self._log(seat, "keg", f"gets Happy Hour on {R.BAR_NAMES[bar]} for free", bar=bar)
        else:
            self._gain(seat, R.FREE_KEG_FALLBACK, "gain", "has no plain bar and gets +50")

    def _card_influencer_video(self, seat: int) -> None:
        bars = len(self._owned(seat))
        self._gain(seat, R.INFLUENCER_PER_BAR * bars, "gain", f"+20 for each of {bars} bars")

    def _card_burst_pipe(self, seat: int) -> None:
        bars = len(self._owned(seat))
        self._pay(
            seat,
            R.BURST_PIPE_PER_BAR * bars,
            BANK,
            f"{R.BURST_PIPE_PER_BAR * bars} for the pipes of {bars} bars",
        )

    def _move_by_card(self, seat: int, space: int) -> None:
        """Pub crawl and Taxi: move without passing Payday (R8), then resolve the space (R18)."""
        self.position[seat] = space
        self._log(seat, "move", f"moves to {R.SPACE_NAMES[space]}")
        self._resolve(seat)

    def _send_to_curfew(self, seat: int, how: str) -> None:
        self.skip[seat] = True  # R6
        self._log(seat, "curfew", f"{how} and will skip the next turn")

    def _log(
        self, seat: int, kind: str, text: str, amount: int = 0, to: int = BANK, bar: int = -1
    ) -> None:
        self.events.append(Event(self.slot, self.round, seat, kind, text, amount, to, bar))


def format_log(events: Sequence[Event], rounds: int) -> str:
    """The event log as a story: one heading per round, one line per event."""
    lines: list[str] = []
    current = None
    for event in events:
        if event.round != current:
            current = event.round
            heading = (
                "Set-up"
                if current == 0
                else "Closing time"
                if current > rounds
                else f"Round {current}"
            )
            lines.append(heading)
        who = "  " if event.seat < 0 else f"  seat {event.seat} "
        lines.append(f"{who}{event.text}")
    return "\n".join(lines)

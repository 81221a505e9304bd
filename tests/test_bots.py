"""The bots: legal and deterministic; the scalar adapter plays the same games as the vector form;
the strategy helpers agree with the rules and with theory; the compiled decisions of Hard and
the threshold bot agree with their plain numpy statements."""

from dataclasses import replace

import numpy as np
import pytest
from barbaron.bots.common import coins, pick, row_scores, upgradable
from barbaron.bots.easy import Easy
from barbaron.bots.hard import Hard
from barbaron.bots.normal import Normal
from barbaron.bots.threshold import upgrade_choice

from barbaron import odds
from barbaron import rules as R
from barbaron.batch import BatchState, play_batch
from barbaron.registry import bot_entries, make_bot
from barbaron.rules import Rules
from barbaron.strategy import BatchView, Decision, ScalarStrategy

SEARCHING = {"mc": "mc:rollouts=2"}  # a searching bot's defaults cost seconds per game here


@pytest.mark.parametrize("name", sorted(bot_entries()))
def test_every_registered_bot_plays_legal_deterministic_games(name):
    spec = SEARCHING.get(name, name)
    games = np.arange(300 if name in SEARCHING else 3000)
    rules = Rules(start_coins=200)  # tight money: forced sales, broke seats, takeovers
    lineup = [make_bot(spec), make_bot("greedy"), make_bot(spec), make_bot("easy")]
    a = play_batch(rules, lineup, 7, games)  # the engine rejects illegal decisions
    b = play_batch(rules, [make_bot(s) for s in (spec, "greedy", spec, "easy")], 7, games)
    assert np.array_equal(a.state.coins, b.state.coins)
    assert np.array_equal(a.state.owner, b.state.owner)
    c = play_batch(rules, lineup, 8, games)
    assert not np.array_equal(a.state.coins, c.state.coins)


CHUNKS = (1, 2, 5, 17, 75, 100, 400)  # uneven batches: every game at another place in its batch


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("name", sorted(bot_entries()))
def test_every_registered_bot_plays_the_same_games_in_any_batch(name, players):
    spec = SEARCHING.get(name, name)
    games = np.arange(60 if name in SEARCHING else sum(CHUNKS))
    rules = Rules(players=players, start_coins=400)
    lineup = [make_bot(spec if seat % 2 == 0 else "normal") for seat in range(players)]
    whole = play_batch(rules, lineup, 1, games)
    chunks = [chunk for chunk in np.split(games, np.cumsum(CHUNKS)[:-1]) if chunk.size]
    parts = [play_batch(rules, lineup, 1, chunk) for chunk in chunks]
    for field in ("coins", "owner", "level"):
        chunked = np.concatenate([getattr(part.state, field) for part in parts])
        assert np.array_equal(getattr(whole.state, field), chunked), field
    assert np.array_equal(whole.worth, np.concatenate([part.worth for part in parts]))


def test_hard_takes_a_reserve_of_any_size():
    """A whole reserve of 10**30 went into the compiled kernels as a Python int (review: a
    typing error mid-game); the kernels take it as a float, as before."""
    bots = [make_bot(f"hard:reserve={10**30}"), make_bot("easy")]
    out = play_batch(Rules(players=2), bots, seed=1, games=np.arange(4))
    assert out.worth.shape == (4, 2)


def test_a_rows_score_does_not_depend_on_the_rows_batched_with_it():
    x = np.random.default_rng(0).normal(size=(1000, 18))
    w = np.random.default_rng(1).normal(size=18)
    batched = row_scores(x, w)
    alone = np.array([row_scores(x[i : i + 1], w)[0] for i in range(len(x))])
    assert np.array_equal(batched, alone)  # x @ w: 543 rows of 1000 differed in the last bits
    assert np.array_equal(batched[1:], row_scores(x[1:], w))
    assert np.allclose(batched, x @ w, rtol=1e-12, atol=1e-12)


def test_policy_breaks_an_exact_tie_the_same_way_in_any_batch():
    """Found by a QA fuzz: in game 484 two upgrades tie exactly, and the matrix product's noise
    chose one of them in a batch of 600 games, the other in a batch of 5."""
    rules, lineup = Rules(players=2), [make_bot("policy"), make_bot("policy")]
    whole = play_batch(rules, lineup, 1, np.arange(600))
    alone = play_batch(rules, lineup, 1, np.arange(480, 485))
    assert np.array_equal(whole.state.level[480:485], alone.state.level)
    assert np.array_equal(whole.worth[480:485], alone.worth)


class ScalarNormal(ScalarStrategy):
    """Normal written one game at a time, as a strategy author would first write it."""

    def __init__(self, cushion=250):
        self.cushion = cushion

    def upgrade_one(self, game):
        me = game.seat
        for bar in reversed(range(R.N_BARS)):  # dearest first
            if (
                game.owner[bar] == me
                and game.level[bar] < R.MAX_LEVEL
                and game.coins[me] - R.upgrade_cost(bar) >= self.cushion
            ):
                return bar
        return None

    def buy_one(self, game, bar):
        return game.coins[game.seat] - R.PRICES[bar] >= self.cushion

    def takeover_one(self, game, bar):
        first = R.district_of(bar) * R.BARS_PER_DISTRICT
        mine = sum(game.owner[b] == game.seat for b in range(first, first + 3))
        cost = R.takeover_cost(R.bar_value(bar, game.level[bar]))
        return mine == 2 and game.coins[game.seat] - cost >= self.cushion


class ScalarEasy(ScalarStrategy):
    """Easy written one game at a time, drawing from the same per-game stream."""

    def upgrade_one(self, game):
        options = [
            b
            for b in range(R.N_BARS)
            if game.owner[b] == game.seat
            and game.level[b] < R.MAX_LEVEL
            and R.upgrade_cost(b) <= game.coins[game.seat]
        ]
        pick = options[int(game.uniform(1) * len(options))]
        return pick if game.uniform(0) < 0.1 else None

    def buy_one(self, game, bar):
        return game.uniform() < 0.6

    def takeover_one(self, game, bar):
        return game.uniform() < 0.05


@pytest.mark.parametrize(
    "scalar, vector", [(ScalarNormal, lambda: Normal(cushion=250)), (ScalarEasy, Easy)]
)
def test_the_scalar_adapter_plays_the_same_games_as_the_vector_form(scalar, vector):
    rules = Rules(start_coins=300)
    games = np.arange(400)
    a = play_batch(rules, [scalar(), make_bot("hard"), scalar(), make_bot("greedy")], 3, games)
    b = play_batch(rules, [vector(), make_bot("hard"), vector(), make_bot("greedy")], 3, games)
    for field in ("coins", "position", "owner", "level"):
        assert np.array_equal(getattr(a.state, field), getattr(b.state, field)), field


class HardWithANote(Hard):
    """A plugin's subclass with a constructor of its own that leaves Hard's parameters be."""

    def __init__(self, note: str = "mine") -> None:
        super().__init__()
        self.note = note


def test_a_subclass_of_hard_plays_as_hard_with_hards_defaults():
    """Its shortfall price included: it was dropped for any subclass whose constructor did not
    take ``shortfall`` (experiments/train_sage.py's labeller played without it). Shark keeps
    playing without the price, as it did before Hard had one."""
    games = np.arange(2000)

    def play(first):
        lineup = [make_bot(first) if isinstance(first, str) else first, make_bot("greedy")] * 2
        return play_batch(Rules(), lineup, 9, games).state.coins

    hard = play("hard")
    assert np.array_equal(play(HardWithANote()), hard)
    assert not np.array_equal(play("hard:shortfall=0"), hard)  # the price decides games here
    assert np.array_equal(play("shark"), play("hard:rival=2,shortfall=0"))


def test_a_cushion_counts_in_steps_of_five_coins():
    """Every coin amount is a multiple of 5, so the cushion the preset's tune found, 879
    (results/homie_ladder/tune.json), plays exactly as Normal's registered default, 880."""
    games = np.arange(3000)

    def play(spec):
        lineup = [make_bot(s) for s in (spec, "hard", "easy", "greedy")]
        return play_batch(Rules(), lineup, 5, games).state

    tuned, default, other = play("normal:cushion=879"), play("normal"), play("normal:cushion=875")
    assert make_bot("normal").cushion == 880
    for field in ("coins", "owner", "level"):
        assert np.array_equal(getattr(tuned, field), getattr(default, field)), field
    assert not np.array_equal(other.coins, default.coins)


def view_of(state, rules, seat=0, round_=1):
    return BatchView(
        rules=rules,
        seat=seat,
        round=round_,
        slot=seat,
        decision=Decision.BUY,
        seed=0,
        game=state.game,
        coins=state.coins,
        position=state.position,
        skip=state.skip,
        owner=state.owner,
        level=state.level,
    )


@pytest.mark.parametrize(
    "method, extra",
    [
        ("tabs", None),
        ("tab_gain_of_upgrade", None),
        ("uniform", None),
        ("cards_seen", None),
        ("district_holdings", "seat"),
        ("visits_by_others", "seat"),
        ("worst_tab_next_roll", "seat"),
        ("landing_probabilities", "seat"),
        ("expected_bar_visits", "seat"),
        ("bar_value", "bars"),
        ("takeover_cost", "bars"),
    ],
)
def test_the_views_helpers_refuse_rows_seats_and_bars_not_of_the_batch(method, extra):
    """The compiled ones check no index themselves: a deal number where a row belongs read
    memory beyond the arrays (garbage answers, or a crash without a word: QA); the numpy ones
    read another game's row for a -1 (QA). Now it is an IndexError, which the run reports in
    one line naming the bot."""
    rules = Rules(players=3)
    view = view_of(BatchState.start(rules, np.arange(10)), rules)

    def call(rows, seat=0, bar=0):
        arguments = {"seat": (seat,), "bars": (np.full(len(rows), bar),), None: ()}[extra]
        return getattr(view, method)(rows, *arguments)

    assert len(call([0, 9])) == 2 and len(call([])) == 0  # lists of rows are fine
    for rows in (np.array([3, 10]), np.array([-1]), np.array([10**7])):
        with pytest.raises(IndexError, match="not a row of this batch of 10"):
            call(rows)
    for rows in (np.array([0.0]), np.ones(10, dtype=bool)):  # a mask is not rows
        with pytest.raises(TypeError, match="row indices"):
            call(rows)
    if extra == "seat":
        for bad in (3, -1):
            with pytest.raises(IndexError, match="seat must be 0..2"):
                call(np.arange(2), seat=bad)
    if extra == "bars":
        for bad in (12, -1):
            with pytest.raises(IndexError, match=f"bars holds {bad}, not a bar"):
                call(np.arange(2), bar=bad)


def test_the_numpy_helpers_still_broadcast_rows_of_any_shape():
    """The checks added for a -1 row must not refuse what numpy indexing took (review): a
    scalar row, or rows against every bar at once."""
    rules = Rules(players=3)
    view = view_of(BatchState.start(rules, np.arange(10)), rules)
    rows = np.array([1, 4])
    assert view.bar_value(rows[:, None], np.arange(12)).shape == (2, 12)
    assert view.takeover_cost(3, 5) == R.TAKEOVER_TABLE[5, 0]
    assert view.landing_probabilities(np.int64(2), 0).shape == (16,)
    with pytest.raises(IndexError, match="games holds -1"):
        view.bar_value(np.array([[0], [-1]]), np.arange(12))


@pytest.mark.parametrize("spec", ["hard", "shark", "homie:skill=1"])
def test_nobody_takes_over_in_the_games_last_turn_slot(spec):
    """Nobody rolls after it, so a takeover only hands half the bar's value to its owner; Hard's
    margin (-150) let it take over a bar of value 80 (score -100) there all the same (QA)."""
    rules = Rules(players=3, rounds=10)
    state = BatchState.start(rules, np.arange(1))
    state.owner[0, 0] = 0  # Lecture Hall 3 (value 80), seat 0's
    state.coins[:] = 5000
    bars = np.array([0])

    def takes_over(seat: int) -> bool:
        view = view_of(state, rules, seat=seat, round_=10)
        view = replace(view, decision=Decision.TAKEOVER, slot=9 * 3 + seat)
        return bool(make_bot(spec).takeover(view, np.arange(1), bars)[0])

    assert takes_over(1)  # seat 2 still rolls: the margin allows it
    assert not takes_over(2)
    state.skip[0, 2] = True  # seat 2 sits out its last turn (R6): nobody rolls after seat 1
    assert not takes_over(1)


def test_helpers_agree_with_the_rules_formulas():
    rules = Rules()
    state = BatchState.start(rules, np.arange(300))
    rng = np.random.default_rng(0)
    state.owner[:] = rng.integers(-1, 4, state.owner.shape)
    state.level[:] = np.where(state.owner >= 0, rng.integers(0, 3, state.owner.shape), 0)
    view = view_of(state, rules)
    games = np.arange(300)
    tabs, gain = view.tabs(games), view.tab_gain_of_upgrade(games)
    for g in range(0, 300, 7):
        owner, level = state.owner[g].tolist(), state.level[g].tolist()
        for bar in range(R.N_BARS):
            if owner[bar] < 0:
                assert tabs[g, bar] == 0 and gain[g, bar] == 0
                continue
            first = R.district_of(bar) * 3
            held = sum(owner[b] == owner[bar] for b in range(first, first + 3))
            assert tabs[g, bar] == R.tab(bar, level[bar], held)
            up = (
                R.tab(bar, level[bar] + 1, held) - R.tab(bar, level[bar], held)
                if level[bar] < 2
                else 0
            )
            assert gain[g, bar] == up
    bars = rng.integers(0, 12, 300)
    assert np.array_equal(
        view.bar_value(games, bars),
        [R.bar_value(b, state.level[g, b]) for g, b in zip(games, bars, strict=True)],
    )
    assert view.district_holdings(games, 1).sum() == (state.owner == 1).sum()


def test_landing_odds_are_exact():
    assert np.allclose(odds.TURN.sum(axis=1), 1)
    p = odds.TURN[R.PAYDAY]
    pub_crawl = 1 / 14
    assert p[7] == pytest.approx(6 / 36 + 3 / 36 * pub_crawl)  # sum 7, or Jukebox + Pub crawl
    assert p[R.JUKEBOX] == pytest.approx(3 / 36 * 10 / 14)  # stays unless a moving card
    card_space = (3 + 1) / 36  # Jukebox (sum 4) or Regulars' Table (sum 12)
    assert p[R.PAYDAY] == pytest.approx(card_space / 14)  # only by Bouncer
    assert p[R.NEON_LIGHT] == pytest.approx(card_space / 14)  # only by Taxi
    assert p[1] == 0  # one space ahead cannot be reached
    assert np.allclose(odds.EXPECTED_LANDINGS[1], odds.TURN)
    assert np.allclose(odds.EXPECTED_LANDINGS[10].sum(axis=1), 10)
    pi = odds.stationary()
    assert np.allclose(pi @ odds.TURN, pi) and pi.sum() == pytest.approx(1)


def test_turns_left_and_visits():
    rules = Rules(rounds=10)
    state = BatchState.start(rules, np.arange(5))
    view = view_of(state, rules, seat=1, round_=10)
    assert [view.turns_left(s) for s in range(4)] == [0, 0, 1, 1]  # after seat 1's landing
    others = view.visits_by_others(np.arange(5), 1)
    assert np.allclose(others, 2 * odds.TURN[0, list(R.BAR_SPACES)])  # seats 2, 3: one roll


# --- compiled decisions against their numpy statements -----------------------------------------


def random_views(players: int, rng: np.random.Generator, n: int = 400):
    """Views of ``n`` random positions (owners, levels, coins, places) at every seat, round
    (the last two too) and decision: the states where a bot's answers can differ."""
    rules = Rules(players=players, rounds=6)
    for round_ in (1, 3, 5, 6):
        for seat in range(players):
            for decision in Decision:
                owner = rng.integers(-1, players, (n, R.N_BARS)).astype(np.int8)
                level = np.where(owner >= 0, rng.integers(0, 3, owner.shape), 0).astype(np.int8)
                yield BatchView(
                    rules=rules,
                    seat=seat,
                    round=round_,
                    slot=(round_ - 1) * players + seat,
                    decision=decision,
                    seed=0,
                    game=np.arange(n),
                    coins=rng.integers(0, 1400, (n, players)).astype(np.int32),
                    position=rng.integers(0, R.N_SPACES, (n, players)).astype(np.int8),
                    skip=np.zeros((n, players), dtype=bool),
                    owner=owner,
                    level=level,
                )


def numpy_takeover_score(view: BatchView, g: int, bar: int, turns: np.ndarray, rival: float):
    """Hard's takeover score of one game, in Python, its operations in the kernel's order."""
    me, owner, level, position = view.seat, view.owner[g], view.level[g], view.position[g]
    victim, first = owner[bar], bar // 3 * 3
    to_me, to_victim = np.zeros(3), np.zeros(3)
    for j in range(3):
        for s in range(turns.size):
            v = odds.EXPECTED_BAR_VISITS[turns[s], position[s], first + j]
            if s != me:
                to_me[j] += v
            if s != victim:
                to_victim[j] += v

    def income(holder, skip_bar, add_bar, payers):
        bars = [
            b
            for b in range(first, first + 3)
            if (owner[b] == holder and b != skip_bar) or b == add_bar
        ]
        total = 0.0
        for b in bars:
            total += R.TAB_TABLE[b, level[b], len(bars)] * payers[b - first]
        return total

    gain = income(me, -1, bar, to_me) - income(me, -1, -1, to_me)
    held = int((owner[first : first + 3] == victim).sum())
    avoided = (
        odds.EXPECTED_BAR_VISITS[turns[me], position[me], bar] * R.TAB_TABLE[bar, level[bar], held]
    )
    loss = income(victim, -1, -1, to_victim) - income(victim, bar, -1, to_victim)
    half = R.VALUE_TABLE[bar, level[bar]] / 2
    return gain + avoided - half + rival * (loss - half)


def python_shortfall(view: BatchView, g: int, left: int) -> float:
    """The expected amount by which the tab of the deciding seat's next roll exceeds ``left``
    coins (0 after its last roll), one game, in plain Python."""
    me = view.seat
    if view.turns_left(me) == 0:
        return 0.0
    total = 0.0
    for b in range(R.N_BARS):
        holder = int(view.owner[g, b])
        if holder < 0 or holder == me:
            continue
        first = b // 3 * 3
        held = sum(int(view.owner[g, c]) == holder for c in range(first, first + 3))
        tab = R.tab(b, int(view.level[g, b]), held)
        land = odds.TURN[view.position[g, me], R.BAR_SPACES[b]]
        total += land * max(tab - left, 0)
    return total


def numpy_hard(bot: Hard, view: BatchView, games: np.ndarray, bars: np.ndarray) -> np.ndarray:
    """Hard's answer, written as numpy passes over the view's helpers (its first version), with
    the shortfall term of its takeovers (none for Shark, whose constructor does not take it)."""
    buffer = bot.buffer(view, games)
    if view.decision is Decision.UPGRADE:
        allowed = upgradable(view, games, coins(view, games) - buffer)
        gain = view.visits_by_others(games, view.seat) * view.tab_gain_of_upgrade(games)
        return pick(allowed & (gain > 0), gain)
    if view.decision is Decision.BUY:
        return coins(view, games) - R.PRICE_TABLE[bars] >= buffer
    turns = np.array([min(view.turns_left(s), odds.MAX_TURNS) for s in range(view.rules.players)])
    if view.rounds_left == 0:  # nobody rolls again: no takeover (later seats may sit out)
        last = view.skip[games, view.seat + 1 :].all(axis=1)
        if last.any():
            answer = np.zeros(games.size, dtype=bool)
            answer[~last] = numpy_hard(bot, view, games[~last], bars[~last])
            return answer
    score = [
        numpy_takeover_score(view, g, b, turns, bot.rival) for g, b in zip(games, bars, strict=True)
    ]
    left = coins(view, games) - view.takeover_cost(games, bars)
    weight = bot.shortfall if "shortfall" in bot.params else 0.0
    if weight:
        have = coins(view, games)
        risen = [
            python_shortfall(view, g, x) - python_shortfall(view, g, h)
            for g, x, h in zip(games, left, have, strict=True)
        ]
        score = np.array(score) - weight * np.array(risen)
    return (left >= buffer) & (np.array(score) > bot.margin)


class CautiousHard(Hard):
    """Hard with a buffer of its own (twice Hard's): its decisions take the numpy path."""

    def buffer(self, view, games):
        return 2 * super().buffer(view, games) + 1


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize(
    "spec",
    [
        "hard",
        "shark",
        "hard:risk=0.4,reserve=35,rival=0,margin=25",
        "hard:risk=3",
        "hard:risk=1,reserve=60,rival=1,margin=0,shortfall=0",  # Hard before the issue
        "cautious",
    ],
)
def test_hards_compiled_decisions_are_its_numpy_formulas(spec, players):
    bot = CautiousHard() if spec == "cautious" else make_bot(spec)
    rng = np.random.default_rng(players)
    for view in random_views(players, rng):
        if view.decision is Decision.TAKEOVER:  # asked about a rival's bar only
            games = np.flatnonzero(((view.owner >= 0) & (view.owner != view.seat)).any(axis=1))
            mine = np.where((view.owner[games] >= 0) & (view.owner[games] != view.seat), 1.0, 0)
            bars = (mine * rng.random(mine.shape)).argmax(axis=1).astype(np.int8)
        else:
            games = np.flatnonzero(rng.random(view.game.size) < 0.8)
            bars = rng.integers(0, R.N_BARS, games.size).astype(np.int8)
        method = getattr(bot, view.decision.method)
        answer = (
            method(view, games) if view.decision is Decision.UPGRADE else method(view, games, bars)
        )
        expected = numpy_hard(bot, view, games, bars)
        assert answer.dtype == expected.dtype and np.array_equal(answer, expected), view.decision


def test_the_threshold_upgrade_is_the_lowest_affordable_bar():
    rng = np.random.default_rng(5)
    for view in random_views(4, rng):
        games = np.flatnonzero(rng.random(view.game.size) < 0.7)
        cushions = rng.integers(0, 600, games.size)
        for cushion in (np.int64(150), cushions, np.array(150)):
            allowed = upgradable(view, games, coins(view, games) - cushion)
            expected = np.where(allowed.any(axis=1), allowed.argmax(axis=1), -1)
            got = upgrade_choice(view, games, cushion)
            assert got.dtype == np.int8 and np.array_equal(got, expected)

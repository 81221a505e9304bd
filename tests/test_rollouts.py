"""Rollouts: a game continued from a decision point plays as the batch engine plays it; copies
draw fresh luck keyed by (seed, game, slot, decision, rollout), reshuffle only unseen cards,
and do not depend on their batch; a searching bot cannot see the dice it will roll."""

import numpy as np
import pytest

from barbaron import rollouts as ro
from barbaron import rules as R
from barbaron import streams
from barbaron.batch import (
    BatchState,
    Script,
    _start_turn,
    kernel_state,
    play_batch,
    play_slot,
)
from barbaron.registry import make_bot
from barbaron.rules import Rules
from barbaron.strategy import Decision, Strategy


def test_rollout_keys_are_fresh_and_distinct():
    games = np.array([0, 0, 0, 1, 1], dtype=np.int64)
    rollout = np.array([0, 1, 2, 0, 1], dtype=np.int64)
    keys = streams.rollout_keys(7, games, 5, 1, rollout)
    assert (keys >= 1 << 62).all() and len(set(keys.tolist())) == 5
    assert np.array_equal(keys, streams.rollout_keys(7, games, 5, 1, rollout))
    for other in (
        streams.rollout_keys(8, games, 5, 1, rollout),  # seed
        streams.rollout_keys(7, games, 6, 1, rollout),  # slot
        streams.rollout_keys(7, games, 5, 2, rollout),  # decision
    ):
        assert not np.intersect1d(keys, other).size


def mid_game(rules, lineup, seed, games, slots):
    """The batch after ``slots`` turn slots, with its kernel record."""
    state = BatchState.start(rules, games)
    st = kernel_state(state)
    for slot in range(slots):
        round_, seat = divmod(slot, rules.players)
        play_slot(rules, lineup[seat], seed, state, st, round_ + 1, seat)
    return state, st


def test_fork_reshuffles_only_the_unseen_cards():
    rules = Rules()
    state, _ = mid_game(rules, [make_bot("greedy")] * 4, 3, np.arange(400), 13)
    rows = np.flatnonzero(state.drawn % R.N_CARDS > 0)[:50]
    assert rows.size > 10
    point = ro.DecisionPoint(13, 1, Decision.UPGRADE)
    a = ro.fork(state, rows, np.zeros(rows.size, np.int64), 3, point)
    b = ro.fork(state, rows, np.ones(rows.size, np.int64), 3, point)
    moved = 0
    for i, g in enumerate(rows):
        seen = state.drawn[g] % R.N_CARDS
        for copy in (a, b):
            assert np.array_equal(copy.deck[i, :seen], state.deck[g, :seen])  # public
            assert sorted(copy.deck[i, seen:]) == sorted(state.deck[g, seen:])
        moved += not np.array_equal(a.deck[i], b.deck[i])
    assert moved > rows.size // 2  # each rollout its own order of the unseen cards
    assert np.array_equal(a.coins, state.coins[rows]) and not np.intersect1d(a.game, b.game).size


@pytest.mark.parametrize("decision", [Decision.UPGRADE, Decision.BUY])
def test_play_from_continues_a_game_exactly_as_the_engine_plays_it(decision):
    """Stop a batch at an open decision, answer it as the seat's strategy does, and continue
    with the games' own streams (no fork): the same final worth as play_batch."""
    rules, seed, games = Rules(), 11, np.arange(600)
    lineup = [make_bot(s) for s in ("hard", "greedy", "normal", "shark")]
    whole = play_batch(rules, lineup, seed, games)
    slot = 17
    round_, seat = divmod(slot, rules.players)
    state, st = mid_game(rules, lineup, seed, games, slot)
    state.round = round_ + 1
    _start_turn(seat, st)
    if decision is Decision.UPGRADE:
        rows = np.flatnonzero(st.may_upgrade)
        view = ro_view(rules, state, seed, seat, slot, decision)
        choice, bars = lineup[seat].upgrade(view, rows), None
    else:
        from barbaron.batch import _play_turn

        st.upgrade.fill(-1)
        asked = np.flatnonzero(st.may_upgrade)  # the upgrade, as the engine asks it
        view = ro_view(rules, state, seed, seat, slot, Decision.UPGRADE)
        st.upgrade[asked] = lineup[seat].upgrade(view, asked)
        _play_turn(seat, rules.players, seed, st)
        rows = np.flatnonzero(st.pending == int(Decision.BUY))
        bars = st.pending_bar[rows]
        view = ro_view(rules, state, seed, seat, slot, decision)
        choice = lineup[seat].buy(view, rows, bars)
    assert rows.size > 20
    part = ro.take(state, rows)
    final = ro.play_from(
        rules, lineup, seed, part, ro.DecisionPoint(slot, seat, decision), choice, bars
    )
    assert np.array_equal(final, whole.worth[rows])


def ro_view(rules, state, seed, seat, slot, decision):
    from barbaron.batch import _view

    return _view(rules, state, seed, seat, slot, decision)


def test_a_position_from_a_view_forks_as_the_true_state_does():
    """A strategy's view shows the cards drawn from the current shuffle (public) and not the
    order of the rest; the rollouts from it are exactly those of the engine's true state (the
    unseen cards are reshuffled from card order, not from their hidden order)."""
    rules, seed = Rules(), 8
    lineup = [make_bot("greedy")] * 4
    for slot in (13, 38, 61):  # cards drawn in the first, second and later shuffles
        state, _ = mid_game(rules, lineup, seed, np.arange(300), slot)
        rows = np.arange(0, 300, 2)
        assert (state.drawn[rows] % R.N_CARDS > 0).sum() > 50
        view = ro_view(rules, state, seed, slot % 4, slot, Decision.UPGRADE)
        seen = view.cards_seen(rows)
        count = state.drawn[rows] % R.N_CARDS
        for i, g in enumerate(rows):
            assert seen[i, : count[i]].tolist() == state.deck[g, : count[i]].tolist()
            assert (seen[i, count[i] :] == -1).all()
        point = ro.DecisionPoint.of(view)
        rollout = np.arange(rows.size, dtype=np.int64) % 5
        true = ro.fork(state, rows, rollout, seed, point)
        shown = ro.fork(ro.position_of(view, rows), np.arange(rows.size), rollout, seed, point)
        for f in ("game", "coins", "position", "skip", "owner", "level", "drawn", "rolls"):
            assert np.array_equal(getattr(true, f), getattr(shown, f)), f
        live = count > 0  # (at 0 the next draw reshuffles: what the deck holds is never used)
        assert np.array_equal(true.deck[live], shown.deck[live])
        played = [
            ro.play_from(rules, lineup, seed, copy, point, np.full(rows.size, -1))
            for copy in (true, shown)
        ]
        assert np.array_equal(*played)  # the same futures, to the last coin


def test_evaluate_is_the_same_alone_in_a_batch_and_in_chunks():
    rules, seed = Rules(), 5
    lineup = [make_bot("greedy")] * 4
    state, _ = mid_game(rules, lineup, seed, np.arange(40), 22)
    point = ro.DecisionPoint(22, 2, Decision.BUY)
    bars = np.arange(40, dtype=np.int8) % R.N_BARS
    options = np.tile([False, True], (40, 1))
    valid = np.ones((40, 2), bool)
    valid[::3, 1] = False
    full = ro.evaluate(rules, lineup, seed, state, point, options, valid, 6, bars=bars)
    chunked = ro.evaluate(
        rules, lineup, seed, state, point, options, valid, 6, bars=bars, max_copies=7
    )
    for f in ("win", "worth_share", "played"):
        assert np.array_equal(getattr(full, f), getattr(chunked, f))
    for g in (0, 1, 17):
        alone = ro.evaluate(
            rules,
            lineup,
            seed,
            ro.take(state, [g]),
            point,
            options[[g]],
            valid[[g]],
            6,
            bars=bars[[g]],
        )
        assert np.array_equal(alone.win[0], full.win[g])
        assert np.array_equal(alone.worth_share[0], full.worth_share[g])
    assert (full.rollouts[valid] == 6).all() and (full.rollouts[~valid] == 0).all()
    assert ((full.win >= 0) & (full.win <= ro.WIN_UNITS)).all()


class Logged(Strategy):
    """A strategy that notes every answer with the public view it was given."""

    def __init__(self, bot, log):
        self.bot, self.log = bot, log

    def _note(self, view, games, answer):
        for i, g in enumerate(games):
            public = (
                view.coins[g].tobytes()
                + view.position[g].tobytes()
                + view.skip[g].tobytes()
                + view.owner[g].tobytes()
                + view.level[g].tobytes()
                + view.cards_seen(np.array([g])).tobytes()
                + view.cards_drawn(np.array([g])).tobytes()
            )
            self.log[(int(view.game[g]), view.slot, int(view.decision))] = (public, int(answer[i]))
        return answer

    def upgrade(self, view, games):
        return self._note(view, games, self.bot.upgrade(view, games))

    def buy(self, view, games, bars):
        return self._note(view, games, self.bot.buy(view, games, bars))

    def takeover(self, view, games, bars):
        return self._note(view, games, self.bot.takeover(view, games, bars))


def test_mc_does_not_peek_at_the_dice_it_will_roll():
    """Change a deal's dice from roll 12 on: every decision mc took in the same public position
    (everything before that roll) gets the same answer."""
    rng = np.random.default_rng(3)
    n = 12
    dice = rng.integers(1, 7, (n, 60, 2))
    decks = [np.concatenate([rng.permutation(14) for _ in range(8)]) for _ in range(n)]
    changed = dice.copy()
    changed[:, 12:] = rng.integers(1, 7, (n, 48, 2))
    logs = []
    for d in (dice, changed):
        log = {}
        bot = Logged(make_bot("mc:rollouts=3"), log)
        lineup = [bot, make_bot("greedy"), make_bot("greedy"), make_bot("greedy")]
        play_batch(Rules(), lineup, 9, np.arange(n), script=Script.from_lists(list(d), decks))
        logs.append(log)
    a, b = logs
    same_position = [k for k in a if k in b and a[k][0] == b[k][0]]
    assert len(same_position) >= 3 * n  # every game's first turns at least
    assert all(a[k][1] == b[k][1] for k in same_position)
    assert any(k in b and a[k][0] != b[k][0] for k in a)  # the games did part


def test_mc_does_not_peek_at_the_cards_still_to_come():
    """Change the order of cards not drawn yet (all but the first two of every shuffle): every
    decision mc took in the same public position (cards seen so far included) gets the same
    answer."""
    rng = np.random.default_rng(4)
    n = 12
    dice = list(rng.integers(1, 7, (n, 60, 2)))
    decks = np.array([[rng.permutation(14) for _ in range(8)] for _ in range(n)])
    changed = decks.copy()
    changed[:, :, 2:] = rng.permuted(changed[:, :, 2:], axis=2)
    logs = []
    for d in (decks, changed):
        log = {}
        bot = Logged(make_bot("mc:rollouts=3"), log)
        lineup = [bot, make_bot("greedy"), make_bot("greedy"), make_bot("greedy")]
        script = Script.from_lists(dice, [deck.reshape(-1) for deck in d])
        play_batch(Rules(), lineup, 9, np.arange(n), script=script)
        logs.append(log)
    a, b = logs
    same_position = [k for k in a if k in b and a[k][0] == b[k][0]]
    assert len(same_position) >= 3 * n
    assert all(a[k][1] == b[k][1] for k in same_position)
    assert any(k in b and a[k][0] != b[k][0] for k in a)  # the cards drawn did differ

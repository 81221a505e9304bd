"""The environments for learning agents: API conformance, the harness's games, bad input."""

import re
import warnings

import gymnasium
import numpy as np
import pandas as pd
import pytest
from barbaron.bots.policy import Policy, choose, load_weights, save_weights
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test

from barbaron.batch import play_batch
from barbaron.env import BatchEnv, IllegalAction, field_names, obs_size
from barbaron.env.seat import SeatEnv
from barbaron.env.table import TableEnv
from barbaron.harness import rotated
from barbaron.registry import make_bot
from barbaron.replay import replay_game
from barbaron.rules import Rules
from barbaron.strategy import IllegalDecision, Strategy, StrategyError

LINEUP = ("easy", "normal", "hard", "shark")  # the agent imitates lineup position 0
SEED = 20261130


def lineup_outcome(lineup, seed, games, rules=None):
    """Worths and win shares of games under ``seed`` played by the batch engine in the
    harness's rotation (game g: deal g // players, rotation g % players), as ``barbaron play``
    plays them."""
    rules = rules or Rules(players=len(lineup))
    bots = [make_bot(s) for s in lineup]
    games = np.asarray(games)
    worth = np.empty((games.size, rules.players), dtype=np.int64)
    share = np.empty((games.size, rules.players))
    for r in range(rules.players):
        sel = np.flatnonzero(games % rules.players == r)
        if sel.size:
            deals = games[sel] // rules.players
            out = play_batch(rules, [bots[i] for i in rotated(lineup, r)], seed, deals)
            worth[sel], share[sel] = out.worth, out.win_share
    return worth, share


def test_seat_env_passes_gymnasiums_env_checker():
    env = gymnasium.make("barbaron/Seat-v0")
    check_env(env.unwrapped)
    check_env(SeatEnv(["normal", "easy"], seat=1, reward="worth"))


def test_observations_of_the_richest_tables_lie_in_the_space():
    rules = Rules(players=4, start_coins=1_000_000, seat_bonus=1_000_000)  # seat 3: 4 million
    env = SeatEnv(["easy", "easy", "easy"], seat=3, rules=rules)
    observation, _ = env.reset(seed=0)
    assert observation["observation"][0] > 3000  # coins in thousands, the first question asked
    assert env.observation_space.contains(observation)


def test_a_reset_out_of_the_streams_range_is_a_value_error():
    env = SeatEnv(["easy"])
    for seed, options in ((1, {"game": 2**70}), (2**70, None), (1, {"game": -1})):
        with pytest.raises(ValueError, match="must be"):
            env.reset(seed=seed, options=options)


def test_running_environments_copy_and_pickle_mid_game():
    """A snapshot mid-episode (a search agent's) plays on exactly as the original; the game's
    generator made any environment that had been reset refuse to copy (QA)."""
    import copy
    import pickle

    def play_on(env, moves):
        """Every step's observation and reward from here on, with legal actions from a rng."""
        rng, seen = np.random.default_rng(moves), []
        if isinstance(env, SeatEnv):
            mask, done = env._current_mask(), False
            while not done:
                obs, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
                mask = info["action_mask"]
                seen.append((obs["observation"].tolist(), reward))
            return seen
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            seen.append((agent, obs["observation"].tolist(), reward))
            legal = np.flatnonzero(obs["action_mask"])
            env.step(None if terminated or truncated else int(rng.choice(legal)))
        return seen

    for env in (SeatEnv(["hard", "easy"], seat=1), TableEnv(rules=Rules(players=3))):
        env.reset(seed=3, options={"game": 4})
        for _ in range(4):  # a few decisions into the game (yes to each)
            if isinstance(env, SeatEnv):
                env.step(int(np.flatnonzero(env._current_mask())[-1]))
            else:
                agent_obs = env.observe(env.agent_selection)
                env.step(int(np.flatnonzero(agent_obs["action_mask"])[-1]))
        copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
        expected = play_on(env, 7)
        assert len(expected) > 5
        for twin in copies:
            assert play_on(twin, 7) == expected


def test_a_table_game_over_at_reset_still_pays_its_rewards():
    """With no coins and one round nobody is ever asked anything: the game ended inside reset,
    and last() gave every agent 0 where R19 gives each half (QA)."""
    rules = Rules(players=2, rounds=1, start_coins=0, seat_bonus=0)
    env = TableEnv(rules=rules)
    env.reset(seed=5, options={"game": 0})
    assert not any(env.terminations.values())  # (PettingZoo: none terminated after reset)
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        total[agent] += reward
        env.step(None if terminated or truncated else 0)
    assert total == {"seat_0": 0.5, "seat_1": 0.5}
    api_test(TableEnv(rules=rules), num_cycles=10)


def test_default_opponents_fill_the_rules_table():
    """SeatEnv(rules=Rules(players=2)) refused its own default of three Normal (library QA)."""
    assert SeatEnv(rules=Rules(players=2)).batch.opponents[0].__class__.__name__ == "Normal"
    assert len(SeatEnv(rules=Rules(players=3)).batch.opponents) == 2
    assert SeatEnv().rules.players == 4


def test_the_table_envs_action_space_samples_legal_actions():
    import copy
    import pickle

    pickle.loads(pickle.dumps(TableEnv()))  # a lambda in its spaces could not be pickled
    env = copy.deepcopy(TableEnv(rules=Rules(players=3)))  # a copy's spaces ask the copy
    for game in range(10):  # a plain Discrete(14) drew illegal upgrades within two steps
        env.reset(seed=1, options={"game": game})
        for agent in env.agent_iter():
            _, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else env.action_space(agent).sample())


def test_actions_of_takes_a_spec_as_the_opponents_do():
    env = BatchEnv(["normal"] * 3)
    env.reset(1, 8)
    assert np.array_equal(env.actions_of("hard"), env.actions_of(make_bot("hard")))
    seat = SeatEnv()
    seat.reset(seed=1)
    assert seat.actions_of("hard:margin=-100") == seat.actions_of(make_bot("hard:margin=-100"))


def test_table_env_passes_pettingzoos_api_test():
    api_test(TableEnv(), num_cycles=200)
    api_test(TableEnv(rules=Rules(players=2)), num_cycles=100)
    api_test(TableEnv(render_mode="ansi"), num_cycles=20)
    render_test(lambda render_mode=None: TableEnv(render_mode=render_mode))


def test_the_envs_render_the_board_as_text(capsys):
    """They took no render_mode (QA): "ansi" returns the board as duel shows it, "human"
    prints it; the question open and every seat's player are named."""
    env = gymnasium.make("barbaron/Seat-v0", opponents=["easy", "hard"], render_mode="ansi")
    env.reset(seed=1, options={"game": 4})  # the agent in seat 1 (game 4 % 3)
    text = env.render()
    assert text.startswith("game 4 of seed 1, the agent in seat 1, round ")
    assert " is asked " in text.splitlines()[0] and "Golden Mile" in text
    players = [
        line.split()[:2] for line in text.splitlines() if line.strip()[:2] in ("S0", "S1", "S2")
    ]
    assert players[-3:] == [["S0", "hard"], ["S1", "agent"], ["S2", "easy"]]
    human = SeatEnv(["easy", "hard"], render_mode="human")
    human.reset(seed=1, options={"game": 4})  # ("human" draws at every reset and step)
    assert capsys.readouterr().out.strip() == text
    assert human.render() is None and capsys.readouterr().out.strip() == text
    human.step(0)
    assert capsys.readouterr().out.startswith("game 4 of seed 1, the agent in seat 1, round ")
    assert SeatEnv().render() is None  # no render mode: nothing
    table = TableEnv(render_mode="ansi")
    table.reset(seed=2)
    assert "seat_3" in table.render() and "seat 0 is asked" in table.render()
    with pytest.raises(ValueError, match="render_mode must be None or one of"):
        SeatEnv(render_mode="rgb_array")


def test_observation_fields_are_named():
    assert len(field_names(4)) == obs_size(4) == 42
    assert len(field_names(2)) == obs_size(2)


def test_seat_env_answering_as_a_bot_plays_the_harness_game():
    bot = make_bot(LINEUP[0])
    env = SeatEnv(LINEUP[1:])
    games = list(range(8))
    worth, share = lineup_outcome(LINEUP, SEED, games)
    for g in games:
        obs, info = env.reset(seed=SEED, options={"game": g})
        assert info["seat"] == g % 4 and info["game"] == g
        steps, done = 0, False
        while not done:
            assert obs["action_mask"][0] == 1
            obs, reward, done, truncated, info = env.step(env.actions_of(bot))
            steps += 1
            assert not truncated
            if not done:
                assert reward == 0
        assert steps >= 1
        assert info["worth"] == worth[g].tolist()
        assert reward == share[g, g % 4]
    # and the reference engine (barbaron replay) agrees on the last one
    bots = [make_bot(s) for s in LINEUP]
    ref, _ = replay_game(Rules(), [bots[i] for i in rotated(LINEUP, g % 4)], SEED, g // 4)
    assert list(ref.worth) == info["worth"]


def test_seat_env_plays_the_games_of_barbaron_play(tmp_path):
    from barbaron import api

    api.play(LINEUP, games=16, seed=SEED, out=tmp_path / "run", workers=1, progress=False)
    games = pd.read_parquet(tmp_path / "run" / "games.parquet")
    mine = games[games.bot == LINEUP[0]].sort_values("game")
    bot = make_bot(LINEUP[0])
    env = SeatEnv(LINEUP[1:])
    for row in mine.itertuples():
        obs, info = env.reset(seed=SEED, options={"game": row.game})
        assert (info["deal"], info["seat"]) == (row.deal, row.seat)
        done = False
        while not done:
            obs, reward, done, _, info = env.step(env.actions_of(bot))
        assert info["worth"][row.seat] == row.worth and reward == row.win_share


def test_a_lineup_of_one_bot_is_played_unrotated_and_seat_0_env_has_its_games(tmp_path):
    """``play`` deals such a lineup's games once: its game g is deal g, not g // players (QA);
    the README sends such an agent to ``seat=0``."""
    from barbaron import api

    api.play(["normal"] * 3, games=6, seed=SEED, out=tmp_path / "run", workers=1, progress=False)
    games = pd.read_parquet(tmp_path / "run" / "games.parquet")
    assert (games.game == games.deal).all()
    bot, env = make_bot("normal"), SeatEnv(["normal"] * 2, seat=0)
    for row in games[games.seat == 0].itertuples():
        env.reset(seed=SEED, options={"game": row.game})
        done = False
        while not done:
            _, reward, done, _, info = env.step(env.actions_of(bot))
        assert info["worth"][0] == row.worth and reward == row.win_share


def test_seat_env_reset_without_seed_deals_the_next_game_reproducibly():
    env = SeatEnv()

    def episode(**reset):
        obs, info = env.reset(**reset)
        rng = np.random.default_rng(5)
        trail, done = [obs["observation"]], False
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            obs, reward, done, _, info = env.step(int(rng.choice(legal)))
            trail.append(obs["observation"])
        return info["game"], np.array(trail), reward

    g0, a, ra = episode(seed=3)
    g1, _, _ = episode()
    assert (g0, g1) == (0, 1)
    g, b, rb = episode(seed=3, options={"game": 0})
    assert g == 0 and np.array_equal(a, b) and ra == rb


def test_batch_env_answering_as_a_bot_plays_the_harness_games_and_restarts():
    bot = make_bot(LINEUP[0])
    n = 64
    env = BatchEnv(LINEUP[1:])
    obs, mask, info = env.reset(SEED, n)
    assert obs.shape == (n, obs_size(4)) and mask.shape == (n, 14) and mask.dtype == np.int8
    assert (mask[~info["active"]].sum(axis=1) == 1).all()
    for batch in range(2):
        done = np.zeros(n, dtype=bool)
        while not done.any():
            obs, mask, reward, done, info = env.step(env.actions_of(bot))
            assert done.all() or (reward == 0).all()
        assert done.all()
        games = np.arange(batch * n, (batch + 1) * n)
        worth, share = lineup_outcome(LINEUP, SEED, games)
        assert np.array_equal(info["final_worth"], worth)
        assert np.allclose(reward, share[np.arange(n), games % 4])
        assert np.array_equal(info["game"], games + n)  # the next games have started
    assert env.games_played == 2 * n and env.decisions > 10 * n


def test_table_env_with_every_seat_answering_as_its_bot_plays_the_harness_game():
    bots = [make_bot(s) for s in LINEUP]
    env = TableEnv()
    g = 5
    env.reset(seed=SEED, options={"game": g})
    order = rotated(LINEUP, g % 4)  # seat s plays lineup position order[s]
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated:
            env.step(None)
            continue
        seat = int(agent.removeprefix("seat_"))
        env.step(env.actions_of(bots[order[seat]]))
    out = play_batch(Rules(), [bots[i] for i in order], SEED, np.array([g]))  # deal g
    assert info["worth"] == out.worth[0].tolist()


def test_worth_share_reward():
    env = BatchEnv(["normal", "normal"], reward="worth", autoreset=False)
    obs, mask, info = env.reset(1, 16)
    done = np.zeros(16, dtype=bool)
    while not done.all():
        obs, mask, reward, done, info = env.step(np.zeros(16, dtype=np.int64))
    w = info["final_worth"]
    assert np.allclose(reward, w[np.arange(16), info["seat"]] / w.sum(axis=1))


def test_bad_input_raises_clear_errors():
    env = BatchEnv(autoreset=False)
    with pytest.raises(IllegalAction, match="before reset"):
        env.step(np.zeros(4, dtype=np.int64))
    obs, mask, info = env.reset(0, 4)
    with pytest.raises(IllegalAction, match="expected 4 actions"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(IllegalAction, match="integers"):
        env.step(np.zeros(4))
    with pytest.raises(IllegalAction, match="outside the action space"):
        env.step(np.array([0, 0, 14, 0]))
    with pytest.raises(IllegalAction, match="action 18446744073709551615 for game 2 .* outside"):
        env.step(np.array([0, 0, 2**64 - 1, 0], dtype=np.uint64))  # (it was shown as -1)
    row = int(np.flatnonzero(mask[:, 13] == 0)[0])
    bad = np.zeros(4, dtype=np.int64)
    bad[row] = 13
    with pytest.raises(IllegalAction, match="masked out"):
        env.step(bad)
    done = np.zeros(4, dtype=bool)
    while not done.all():
        obs, mask, reward, done, info = env.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(IllegalAction, match="after the end"):
        env.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(ValueError, match="opponent 2 .*nosuchbot"):
        BatchEnv(["normal", "nosuchbot", "normal"])
    with pytest.raises(ValueError, match="need 3 opponents"):
        BatchEnv(["normal", "normal"], rules=Rules(players=4))
    with pytest.raises(
        ValueError, match=r"opponents: 1 to 3 bot specs \(a table of 2 to 4\), got 4"
    ):
        BatchEnv(["normal"] * 4)
    with pytest.raises(ValueError, match=r"opponents: 1 to 3 bot specs .*, got 0"):
        SeatEnv(opponents=[])  # (QA: "2 players need 1 opponents, got 0")
    with pytest.raises(ValueError, match="2 players need 1 opponent, got 0"):
        SeatEnv(opponents=[], rules=Rules(players=2))
    with pytest.raises(ValueError, match="seat"):
        BatchEnv(seat=4)
    with pytest.raises(ValueError, match="reward"):
        BatchEnv(reward="coins")
    with pytest.raises(ValueError, match="n must be"):
        env.reset(0, 0)

    seat = SeatEnv()
    with pytest.raises(IllegalAction, match="reset"):
        seat.step(0)
    obs, info = seat.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalAction, match="masked out"):
        seat.step(illegal)
    with pytest.raises(IllegalAction, match="one integer"):
        seat.step(np.array([0, 1]))
    with pytest.raises(ValueError, match="unknown reset options"):
        seat.reset(seed=0, options={"gmae": 1})
    done = False
    while not done:
        obs, reward, done, _, info = seat.step(0)
    with pytest.raises(IllegalAction, match="^step after the end of the episode: call reset"):
        seat.step(0)

    table = TableEnv()
    table.reset(seed=0)
    mask = table.observe(table.agent_selection)["action_mask"]
    with pytest.raises(IllegalAction, match="masked out"):
        table.step(int(np.flatnonzero(mask == 0)[0]))


def test_policy_bot_plays_as_the_policy_in_the_environment():
    weights = load_weights()
    env = BatchEnv(["normal", "normal", "normal"], autoreset=False)
    n = 48
    obs, mask, info = env.reset(SEED, n)
    done = np.zeros(n, dtype=bool)
    while not done.all():
        obs, mask, reward, done, info = env.step(choose(obs, mask, weights, env.rules))
    worth, _ = lineup_outcome(("policy", "normal", "normal", "normal"), SEED, np.arange(n))
    assert np.array_equal(info["final_worth"], worth)
    assert repr(Policy()) == "policy:weights=none"


def test_policy_weights_errors(tmp_path):
    with pytest.raises(ValueError, match="not found"):
        load_weights(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(ValueError, match="not readable JSON"):
        load_weights(bad)


def test_saving_weights_through_a_symlink_keeps_the_link(tmp_path):
    """The atomic write replaced a symlinked weights file by a regular one."""
    target, link = tmp_path / "store" / "weights.json", tmp_path / "weights.json"
    target.parent.mkdir()
    save_weights(np.zeros(len(load_weights())), target)
    link.symlink_to(target)
    weights = np.arange(len(load_weights()), dtype=float)
    save_weights(weights, link)
    assert link.is_symlink() and np.array_equal(load_weights(target), weights)


def test_a_game_that_never_asks_the_agent_starts_already_decided():
    """One round in which the agent's seat lands on nothing to decide (these deals): reset
    works, and the one step ends the game (it raised StopIteration)."""
    env = SeatEnv(rules=Rules(rounds=1))
    _, info = env.reset(seed=1)
    assert not info["action_mask"][1:].any()
    _, _, terminated, truncated, _ = env.step(0)
    assert terminated and not truncated
    with warnings.catch_warnings():  # its round's Box had equal bounds: a warning (QA)
        warnings.simplefilter("error")
        check_env(gymnasium.make("barbaron/Seat-v0", rules=Rules(rounds=1)).unwrapped)
    round_low = [
        SeatEnv(rules=Rules(rounds=r)).observation_space["observation"].low[36] for r in (1, 10)
    ]
    assert round_low == [0, 1]  # (the standard game's space as it was: saved models still load)
    batch = BatchEnv(["normal"], rules=Rules(rounds=1, players=2))
    batch.reset(1, 1)
    assert batch.step(np.zeros(1, dtype=np.int64))[3].all()
    table = TableEnv(rules=Rules(rounds=1, players=2))
    table.reset(seed=10)  # seat_0 is asked once, for action 0, as SeatEnv's agent
    assert not any(table.terminations.values()) and table.agent_selection == "seat_0"
    table.step(0)
    assert all(table.terminations.values())


class _FailsOnce(Strategy):
    """Buys everything, but raises at its ``fail_at``-th buy question (a flaky plugin)."""

    def __init__(self, fail_at: int = 3) -> None:
        self.fail_at, self.calls = fail_at, 0

    def upgrade(self, view, games):
        return np.full(games.size, -1, dtype=np.int8)

    def buy(self, view, games, bars):
        self.calls += 1
        if self.calls == self.fail_at:
            raise RuntimeError("transient")
        return np.ones(games.size, dtype=bool)

    def takeover(self, view, games, bars):
        return np.zeros(games.size, dtype=bool)


def _give_coins_through_the_base(view) -> None:
    """What a cheating bot tries: write the coins through the memory its view hangs from."""
    base = view.coins
    while base.base is not None:
        base = base.base
    base[...] += 100_000


def test_after_an_error_mid_game_the_env_refuses_to_step_instead_of_ending_the_game():
    """A bot that raised inside a step left the play's generator dead, and the next step took
    that for the end of the game: done, with the rewards and worths of a half-played game
    (QA). The next step now refuses and says to reset; a reset starts afresh."""
    env = BatchEnv([_FailsOnce(), "normal", "normal"], seat=1)
    env.reset(1, 8)
    with pytest.raises(StrategyError, match="transient"):
        for _ in range(200):
            env.step(np.zeros(8, dtype=np.int64))
    with pytest.raises(IllegalAction, match="call reset"):
        env.step(np.zeros(8, dtype=np.int64))
    env.reset(1, 8)
    for _ in range(400):
        *_, done, info = env.step(np.zeros(8, dtype=np.int64))
        if done.all():
            break
    assert done.all() and (info["final_worth"].sum(axis=1) > 0).all()


def test_an_illegal_answer_of_a_bot_in_the_env_names_the_bot_and_the_envs_game():
    """It named an internal wrapper (Mixed([...])) and the game's deal, which is not the env's
    game number when seats rotate (QA)."""
    from pathlib import Path

    bot = f"{Path(__file__).parent / 'fixtures' / 'bad_bots.py'}:UpgradesBarZero"
    env = BatchEnv([bot, "normal", "normal"])  # 4 seats, rotating: env game g is deal g // 4
    env.reset(3, 256, first_game=1000)
    with pytest.raises(IllegalDecision) as caught:
        for _ in range(400):
            env.step(np.zeros(256, dtype=np.int64))
    message = str(caught.value)
    assert "Mixed" not in message and "UpgradesBarZero in seat" in message, message
    found = re.search(r"in seat (\d+) .*\(game (\d+), deal (\d+)\)$", message)
    seat, game, deal = map(int, found.groups())
    assert 1000 <= game < 1256 and deal == game // 4 == caught.value.game  # .game: the deal
    assert seat == (game % 4 + 1) % 4  # the bot sits one place after the agent, in seat g % 4


def test_an_opponent_that_writes_the_rules_fails_and_the_envs_rules_stay_as_they_were():
    from pathlib import Path

    bot = f"{Path(__file__).parent / 'fixtures' / 'bad_bots.py'}:ShortensTheNight"
    env = BatchEnv([bot, "normal", "normal"], rules=Rules(players=4))
    with pytest.raises(StrategyError, match=r"ShortensTheNight changed the rules .*\(rounds\)"):
        env.reset(3, 64)  # (the opponents play up to the agent's first question)
        for _ in range(400):
            env.step(np.zeros(64, dtype=np.int64))
    assert env.rules == Rules(players=4)  # the next games are ten rounds again


def test_a_reset_that_fails_leaves_no_game_to_step():
    """A bot raising as the new games start left the old table in place: stepping played on
    the game before the failed reset."""
    bot = _FailsOnce(fail_at=0)  # never fails until told to
    env = BatchEnv([bot, "normal", "normal"], seat=0)
    env.reset(1, 1)
    bot.calls, bot.fail_at = 0, 1
    with pytest.raises(StrategyError):
        for game in range(50):  # until a buy question comes before the agent's first
            env.reset(1, 1, first_game=game)
    with pytest.raises(IllegalAction, match="step after new games failed to start .*call reset"):
        env.step(np.zeros(1, dtype=np.int64))  # (it said "before reset", after one)
    with pytest.raises(IllegalAction, match="actions_of after new games failed to start"):
        env.actions_of("normal")


def test_a_seat_env_whose_reset_failed_says_so_at_the_next_step():
    """It said "step after the end of the episode (or before reset)" (QA)."""
    bot = _FailsOnce(fail_at=0)
    env = SeatEnv([bot, "normal", "normal"], seat=0)
    with pytest.raises(IllegalAction, match="step before reset: call reset"):
        env.step(0)
    env.reset(seed=1)
    bot.calls, bot.fail_at = 0, 1
    with pytest.raises(StrategyError):
        for game in range(50):  # until a buy question comes before the agent's first
            env.reset(seed=1, options={"game": game})
    with pytest.raises(IllegalAction, match="step after a reset that failed .*call reset"):
        env.step(0)


def test_bots_inside_the_env_cannot_write_the_game_state():
    """barbaron play made the state read-only while a bot decides; the env did not, and a bot
    could give itself coins through its view's base array (QA)."""

    class Cheat(_FailsOnce):
        def buy(self, view, games, bars):
            _give_coins_through_the_base(view)
            return np.ones(games.size, dtype=bool)

    env = SeatEnv(["normal", Cheat(), "normal"], seat=0)
    env.reset(seed=3)
    with pytest.raises(StrategyError, match="read-only"):
        for _ in range(200):
            env.step(env.actions_of("normal"))


def test_game_numbers_stay_below_2_to_the_63():
    """Games past 2**63 - 1 wrapped to negative deals, and the next reset crashed (QA)."""
    last = 2**63 - 1
    with pytest.raises(ValueError, match="past the last game number"):
        BatchEnv().reset(0, 4, first_game=last - 2)
    with pytest.raises(ValueError, match="past the last game number"):
        BatchEnv().reset(0, 1, first_game=2**64)
    with pytest.raises(ValueError, match="seed must be"):
        BatchEnv().reset(True, 1)
    env = BatchEnv(seat=0)
    env.reset(0, 1, first_game=last)  # the very last game plays; autoreset stops after it
    for _ in range(400):
        *_, done, _ = env.step(np.zeros(1, dtype=np.int64))
        if done.all():
            break
    assert done.all()
    with pytest.raises(IllegalAction, match="games are over"):
        env.step(np.zeros(1, dtype=np.int64))
    seat_env = SeatEnv()
    seat_env.reset(seed=0, options={"game": last})
    with pytest.raises(ValueError, match="last game"):
        seat_env.reset()
    with pytest.raises(ValueError, match="seed must be"):
        SeatEnv().reset(seed=True)
    with pytest.raises(IllegalAction, match="observe before reset"):
        TableEnv().observe("seat_0")
    with pytest.raises(IllegalAction, match="last before reset"):
        TableEnv().last()  # (an AttributeError before)


def test_arguments_of_the_wrong_kind_are_clear_errors():
    """A dict for rules was an AttributeError, a negative seed gymnasium's own error, a class
    given to actions_of a missing-argument error from inside (QA)."""
    for make in (lambda: SeatEnv(rules={"players": 3}), lambda: TableEnv(rules=4)):
        with pytest.raises(TypeError, match="rules must be a barbaron.rules.Rules"):
            make()
    for seed in (-1, 1.5):
        with pytest.raises(ValueError, match="seed must be a whole number from 0"):
            SeatEnv().reset(seed=seed)
    env = SeatEnv()
    env.reset(seed=1)
    for strategy in (Policy, None):
        with pytest.raises(TypeError, match="a strategy instance or a bot spec is needed"):
            env.actions_of(strategy)


def test_a_refused_reset_changes_nothing():
    """A reset refused for its game numbers had already taken the new seed and size, and the
    old games played on under them (review)."""
    env = BatchEnv(seat=0)
    env.reset(2, 4)
    with pytest.raises(ValueError, match="past the last game number"):
        env.reset(5, 8, first_game=2**63 - 4)
    assert (env.seed, env.n) == (2, 4)
    *_, info = env.step(np.zeros(4, dtype=np.int64))
    assert info["game"].tolist() == [0, 1, 2, 3]


def test_a_strategy_asked_for_its_actions_cannot_write_the_game_state():
    class Cheat(_FailsOnce):
        def buy(self, view, games, bars):
            _give_coins_through_the_base(view)
            return np.ones(games.size, dtype=bool)

    env = BatchEnv(seat=0)
    env.reset(2, 4)
    while not env.view():
        env.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(StrategyError, match="read-only"):
        for _ in range(100):
            env.actions_of(Cheat())
            env.step(np.zeros(4, dtype=np.int64))


def test_after_an_autoreset_info_names_the_finished_games_apart_from_the_new():
    """At the step that ends the games, info's game and seat were already the new games' (5
    games of 4 seats: seats 1 2 3 0 1 where the finished ones sat in 0 1 2 3 0), and nothing
    said where the finished ones' agent sat (QA)."""
    env = BatchEnv(["normal"] * 3)
    obs, mask, info = env.reset(1, 5)
    assert info["seat"].tolist() == [0, 1, 2, 3, 0]
    done = np.zeros(5, dtype=bool)
    while not done.all():
        obs, mask, reward, done, info = env.step(np.zeros(5, dtype=np.int64))
    assert info["final_game"].tolist() == [0, 1, 2, 3, 4]
    assert info["final_seat"].tolist() == [0, 1, 2, 3, 0]
    assert info["game"].tolist() == [5, 6, 7, 8, 9] and info["seat"].tolist() == [1, 2, 3, 0, 1]
    w = info["final_worth"]
    wins = w[np.arange(5), info["final_seat"]] == w.max(axis=1)
    assert np.allclose(reward > 0, wins)  # the rewards are the finished seats'


def test_observing_an_agent_not_at_the_table_names_the_tables_agents():
    table = TableEnv(rules=Rules(players=2))
    table.reset(seed=0)
    with pytest.raises(ValueError, match="^no agent 'seat_9' at this table; its agents: seat_0, "):
        table.observe("seat_9")  # (QA: "'seat_9' is not in list")

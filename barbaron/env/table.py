"""``TableEnv``: one game with every seat an agent, as a PettingZoo AEC environment."""

from __future__ import annotations

import functools

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from barbaron.env import core
from barbaron.env.seat import LegalDiscrete, observation_space
from barbaron.rules import Rules


class TableEnv(AECEnv):
    """Every seat of one game is an agent (``seat_0`` .. ``seat_{P-1}``); the agent selected is
    the one the game asks (upgrade before its roll, buy or take over after it).

    Spaces, observations (from each agent's own view: seats relative to it) and masks are those
    of :class:`~barbaron.env.seat.SeatEnv`; an agent that is not being asked observes the
    position with no decision and a mask allowing only 0. Rewards: every agent's final win
    share (R19; ``reward="worth"``: worth share) when the game ends, 0 before; then every agent
    is terminated. A game that nobody is asked anything in (possible with unusual rules) asks
    ``seat_0`` once for action 0 and then ends, as SeatEnv's does, so that the rewards reach the
    agents through ``last()``. ``reset(seed=S, options={"game": G})`` deals game G (the deal, the
    stream index) under seed S, as ``barbaron replay --seed S --game G``; without a seed, the
    next game. Other keys of ``options`` are ignored (PettingZoo's ``api_test`` passes one);
    SeatEnv refuses them.
    """

    metadata = {
        "render_modes": core.RENDER_MODES,
        "name": "barbaron_table_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self, *, rules: Rules | None = None, reward: str = "win", render_mode: str | None = None
    ) -> None:
        super().__init__()
        self.render_mode = core.check_render_mode(render_mode)
        self.rules = core.check_rules(rules) or Rules()
        self.reward_kind = core.check_reward(reward)
        players = self.rules.players
        self.possible_agents = [f"seat_{s}" for s in range(players)]
        self._space = observation_space(self.rules)
        self.observation_spaces = {a: self._space for a in self.possible_agents}
        self.action_spaces = {  # sample() draws a legal action for the agent, as SeatEnv's
            a: LegalDiscrete(core.N_ACTIONS, functools.partial(self._legal, s))
            for s, a in enumerate(self.possible_agents)
        }
        self._run_seed: int | None = None
        self._game = -1
        self.table: core.Table | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        game = (options or {}).get("game")  # other keys are ignored (PettingZoo's api_test)
        self._run_seed, self._game = core.next_game(
            self._run_seed, self._game, seed, game, lambda: np.random.default_rng().integers(2**62)
        )
        players = self.rules.players
        which = np.full((1, players), -1, dtype=np.int64)
        games = np.array([self._game], dtype=np.int64)
        self.table = core.Table(self.rules, self._run_seed, games, [], which)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._after_move(end=False)
        if self.render_mode == "human":  # (PettingZoo's way: "human" draws as it goes)
            self.render()

    def _legal(self, seat: int) -> np.ndarray | None:
        """The seat's current mask, or None before the first reset."""
        return None if self.table is None else self._mask(seat)

    def _mask(self, seat: int) -> np.ndarray:
        s, stop = self.table.state, self.table.stop
        kind = np.array([stop.kind[0] if stop and stop.seat == seat else core.NONE], np.int8)
        return core.action_masks(s.coins, s.owner, s.level, np.array([seat]), kind)[0]

    def observe(self, agent: str) -> dict:
        if self.table is None:
            raise core.IllegalAction("observe before reset: call reset() first")
        if agent not in self.possible_agents:  # (QA: "'seat_9' is not in list")
            raise ValueError(
                f"no agent {agent!r} at this table; its agents: {', '.join(self.possible_agents)}"
            )
        seat = self.possible_agents.index(agent)
        s, stop = self.table.state, self.table.stop
        asked = stop is not None and stop.seat == seat
        kind = np.array([stop.kind[0] if asked else core.NONE], dtype=np.int8)
        bar = np.array([stop.bar[0] if asked else -1], dtype=np.int8)
        round_ = stop.round if stop else self.rules.rounds
        obs = core.observe(
            s.coins, s.position, s.skip, s.owner, s.level, round_, np.array([seat]), kind, bar
        )[0]
        return {"observation": obs, "action_mask": self._mask(seat)}

    def last(self, observe: bool = True):
        if self.table is None:
            raise core.IllegalAction("last before reset: call reset() first")
        return super().last(observe)

    def _after_move(self, end: bool = True) -> None:
        """Select the agent asked next, or end the game: rewards, terminations (not at reset:
        a game already over there asks seat_0 for its one action 0 first)."""
        t = self.table
        if t.stop is not None or not end:
            self.agent_selection = f"seat_{t.stop.seat}" if t.stop else self.possible_agents[0]
            for a in self.agents:
                self.infos[a] = {"action_mask": self._mask(self.possible_agents.index(a))}
            return
        worth = t.worth()
        players = self.rules.players
        for seat, a in enumerate(self.possible_agents):
            share = core.final_rewards(worth, np.array([seat]), self.reward_kind)[0]
            self.rewards[a] = float(share)
            self.terminations[a] = True
            self.infos[a] = {"action_mask": self._mask(seat), "worth": worth[0].tolist()}
        self.agent_selection = self.possible_agents[0] if players else None

    def step(self, action) -> None:
        if self.table is None:
            raise core.IllegalAction("step before reset: call reset() first")
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            self._was_dead_step(action)
            return
        seat = self.possible_agents.index(agent)
        a = core.check_actions(
            core.one_action(action), self._mask(seat)[None], self.table.state.game
        )
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self.table.stop is not None:  # (else the game was over at reset: this ends it)
            self.table.answer(a)
        self._after_move()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The game as text, the question open and the board: returned with
        ``render_mode="ansi"``; printed with ``"human"``, as every reset and step does then."""
        heading = f"game {self._game} of seed {self._run_seed}"
        return core.render(self.render_mode, self.table, heading, "seat_{seat}")

    def close(self) -> None:
        """Nothing to release: the board is drawn as text."""

    def actions_of(self, strategy) -> int:
        """The action ``strategy`` (a :class:`~barbaron.strategy.Strategy`, or a spec) would
        choose for the selected agent now (0 if it is not being asked)."""
        if self.table is None:
            raise core.IllegalAction("actions_of before reset: call reset() first")
        return int(core.strategy_actions(self.table, strategy)[0])

"""``SeatEnv``: one seat of one game as a gymnasium environment (``barbaron/Seat-v0``)."""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from barbaron.env import core
from barbaron.rules import Rules
from barbaron.strategy import Strategy


def observation_space(rules: Rules) -> spaces.Dict:
    """The observation space of every environment: the vector and the action mask."""
    low, high = core.obs_bounds(rules)
    return spaces.Dict(
        {
            "observation": spaces.Box(low, high, dtype=np.float32),
            "action_mask": spaces.MultiBinary(core.N_ACTIONS),
        }
    )


class LegalDiscrete(spaces.Discrete):
    """``Discrete(14)`` whose ``sample()`` without a mask draws a legal action of the
    environment's current question (a masked-out action is an error, never a no-op)."""

    def __init__(self, n: int, legal) -> None:
        super().__init__(n)
        self._legal = legal  # () -> the current mask (int8, n) or None

    def sample(self, mask=None, probability=None):
        if mask is None and probability is None:
            current = self._legal()
            if current is not None:
                mask = current.astype(np.int8)
        return super().sample(mask=mask, probability=probability)


class SeatEnv(gymnasium.Env):
    """The agent plays one seat of a game against bots; one step is one decision.

    ``opponents``: bot specs for the other seats in turn order after the agent's (default Normal
    in every other seat of the rules' table: three at the standard game); ``seat``: the agent's
    seat, or None for the harness's rotation (``game % players``: the agent sits where lineup
    position 0 sits in ``barbaron play``); ``rules``: the rules
    (default: the standard game for that many players); ``reward``: ``"win"``, the final win
    share (R19), or ``"worth"``, the final worth share; 0 before the end.

    Actions ``Discrete(14)``: 0 no / do not upgrade, 1 yes (buy or take over), 2 + b upgrade
    bar b (``action_space.sample()`` draws a legal one). Observation: a dict,
    ``"observation"`` (float32 vector) and ``"action_mask"`` (int8, 14), the vector as
    documented in ``barbaron.env.core`` (coins, positions, skip flags, owners relative to the
    agent, levels, round, the agent's seat, the decision and the bar in
    question); ``info["action_mask"]`` is the same mask. An illegal action raises
    :class:`~barbaron.env.core.IllegalAction`.

    ``reset(seed=S, options={"game": G})`` starts game G of a run under seed S (default G = 0):
    with ``seat`` None, game G of ``barbaron play --seed S --bots AGENT OPPONENTS...`` (deal
    G // players, the agent in seat G % players; but where AGENT is the same bot as every
    opponent, ``play`` deals each game once, so its game G is deal G with the agent in seat 0,
    this env's ``seat=0``); with a fixed seat, deal G. Replay it with
    ``barbaron replay --seed S --game DEAL --bots ...`` (the bots in seat order). ``reset()``
    without a seed starts the next game of the same run. ``info`` holds ``seed``, ``game``,
    ``deal`` and ``seat``. A game in which the agent is never asked anything (possible only
    with unusual rules) starts already decided: its one step takes action 0 and ends it.
    """

    metadata = {"render_modes": core.RENDER_MODES, "render_fps": 1}

    def __init__(
        self,
        opponents: Sequence[str | Strategy] | None = None,
        *,
        seat: int | None = None,
        rules: Rules | None = None,
        reward: str = "win",
        render_mode: str | None = None,
    ) -> None:
        self.render_mode = core.check_render_mode(render_mode)
        self.batch = core.BatchEnv(opponents, rules=rules, seat=seat, reward=reward)
        self.batch.autoreset = False
        self.rules = self.batch.rules
        self.action_space = LegalDiscrete(core.N_ACTIONS, self._current_mask)
        self.observation_space = observation_space(self.rules)
        self._run_seed: int | None = None
        self._game = -1
        self._ended: str | None = "before reset"  # why no game is live (None while one is)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=None if seed is None else core.check_seed(seed))
        options = dict(options or {})
        game = options.pop("game", None)
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}; the only one is 'game'")
        self._run_seed, self._game = core.next_game(
            self._run_seed, self._game, seed, game, lambda: self.np_random.integers(0, 2**62)
        )
        self._ended = "after a reset that failed (a bot raised, or Ctrl-C, as the game began)"
        obs, mask, info = self.batch.reset(self._run_seed, 1, first_game=self._game)
        self._ended = None
        if self.render_mode == "human":  # (Gymnasium's way: "human" draws as it goes)
            self.render()
        return self._obs(obs, mask), self._info(mask, info)

    def _current_mask(self) -> np.ndarray | None:
        return None if self._ended else self.batch.mask[0]

    def _obs(self, obs: np.ndarray, mask: np.ndarray) -> dict:
        return {"observation": obs[0], "action_mask": mask[0]}

    def _info(self, mask: np.ndarray, info: dict) -> dict:
        return {
            "action_mask": mask[0],
            "seed": self._run_seed,
            "game": int(info["game"][0]),
            "deal": int(info["deal"][0]),
            "seat": int(info["seat"][0]),
        }

    def step(self, action):
        if self._ended:
            raise core.IllegalAction(f"step {self._ended}: call reset()")
        obs, mask, reward, done, info = self.batch.step(core.one_action(action))
        out = self._info(mask, info)
        if done[0]:
            self._ended = "after the end of the episode"
            out["worth"] = info["final_worth"][0].tolist()
        if self.render_mode == "human":
            self.render()
        return self._obs(obs, mask), float(reward[0]), bool(done[0]), False, out

    def render(self) -> str | None:
        """The game as text, the question open and the board (the agent's seat named "agent"):
        returned with ``render_mode="ansi"``; printed with ``"human"``, as every reset and step
        does then."""
        seat = None if self.batch.table is None else int(self.batch.agent_seat[0])
        heading = f"game {self._game} of seed {self._run_seed}, the agent in seat {seat}"
        return core.render(self.render_mode, self.batch.table, heading)

    def actions_of(self, strategy: Strategy | str) -> int:
        """The action ``strategy`` (a bot or a spec) would choose in the agent's seat now (0 if
        nothing is asked)."""
        return int(self.batch.actions_of(strategy)[0])

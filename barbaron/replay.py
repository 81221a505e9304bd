"""Any game of a seeded batch run, replayed alone on the reference engine with its story, and
checked against the batch engine."""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from barbaron.errors import UsageError
from barbaron.reference import Event, Game, Outcome
from barbaron.rules import Rules
from barbaron.strategy import Strategy


def replay_game(
    rules: Rules, strategies: Sequence[Strategy], seed: int, game: int
) -> tuple[Outcome, list[Event]]:
    """Game ``game`` of a run under ``seed``: the same dice, cards and bot draws as the batch."""
    played = seeded_game(rules, strategies, seed, game)
    return played.play(), played.events


def seeded_game(rules: Rules, strategies: Sequence[Strategy], seed: int, game: int) -> Game:
    """Game ``game`` of a run under ``seed`` on the reference engine, ready to play."""
    from barbaron.streams import SeededChance  # (numba: not for a run's folder that is wrong)

    return Game(rules, strategies, SeededChance(seed, game), seed=seed, game=game)


def batch_outcome(rules: Rules, strategies: Sequence[Strategy], seed: int, game: int) -> dict:
    """The same game played by the batch engine, in the keys of ``Outcome.to_dict``."""
    from barbaron.batch import play_batch

    out = play_batch(rules, list(strategies), seed, np.array([game]), trace=True)
    st = out.state
    return {
        "coins": st.coins[0].tolist(),
        "position": st.position[0].tolist(),
        "owner": st.owner[0].tolist(),
        "level": st.level[0].tolist(),
        "worth": out.worth[0].tolist(),
        "winners": np.flatnonzero(out.winners[0]).tolist(),
        "trace": out.trace[0].tolist(),
    }


def compare_outcome(expect: dict, got: dict, players: int) -> str:
    """'' if every expected key matches, else the keys that differ and the first diverging slot."""
    wrong = [key for key in expect if expect[key] != got[key]]
    if not wrong:
        return ""
    text = "keys " + ", ".join(wrong)
    trace = expect.get("trace")
    if trace is not None:
        for slot, (want, have) in enumerate(zip(trace, got["trace"], strict=False)):
            if want != have:
                round_, seat = divmod(slot, players)
                return (
                    f"{text}; coins first diverge after turn slot {slot} (round {round_ + 1}, "
                    f"seat {seat}): expected {want}, got {have}"
                )
        if len(trace) != len(got["trace"]):
            return f"{text}; trace has {len(got['trace'])} slots, expected {len(trace)}"
    return text


@dataclass(frozen=True)
class RunGame:
    """Where game ``game`` of a results folder comes from: seed, deal, seats' bots, rules."""

    game: int  # the 'game' column of games.parquet
    seed: int
    deal: int  # the stream index of its dice and cards
    rotation: int
    bots: tuple[str, ...]  # in seat order
    rules: dict  # the Rules fields
    code_changed: bool  # barbaron's code differs from the run's (a bot's defaults may too)
    arm: str  # the label of its lineup
    several_arms: bool  # whether the run has other lineups (games.parquet has an 'arm' column)

    def command(self) -> str:
        """The stand-alone seeded replay of this game, ready to paste: ``barbaron replay --seed S
        --game DEAL --bots ...`` with the rules options that differ from the defaults."""
        import shlex

        from barbaron.config import RULES_OPTIONS, option_text
        from barbaron.rules import Rules

        rules = dict(self.rules)
        if rules.get("seat_coins") is not None:  # (the flat options then say nothing)
            rules["start_coins"] = rules["seat_bonus"] = None
        given = []
        for name, option in RULES_OPTIONS.items():
            value = rules.get(name)
            if value is not None and value != getattr(Rules, name):
                given += [option, option_text(value)]
        seeded = ["--seed", str(self.seed), "--game", str(self.deal), "--bots", *self.bots]
        return shlex.join(["barbaron", "replay", *seeded, *given])

    def recorded(self, run_dir: str | Path) -> dict | None:
        """What the run recorded of this game: each seat's ``coins`` and ``worth`` (seat order)
        from its games.parquet, or None where that cannot be read."""
        import pandas as pd

        from barbaron.results import GAMES

        columns = ["seat", "coins", "worth"] + (["arm"] if self.several_arms else [])
        try:
            rows = pd.read_parquet(
                Path(run_dir) / GAMES, columns=columns, filters=[("game", "==", self.game)]
            )
        except (OSError, ValueError, KeyError, TypeError, ImportError):
            return None
        if self.several_arms:
            rows = rows[rows["arm"].astype(str) == self.arm]
        rows = rows.sort_values("seat")
        if rows["seat"].tolist() != list(range(len(self.bots))):
            return None
        return {"coins": rows["coins"].tolist(), "worth": rows["worth"].tolist()}


def _check_played(run_dir: Path, manifest: dict, unit: int) -> None:
    """A UsageError unless the run kept the games of ``unit``: a run that stopped early (an
    SPRT), an interrupted one, or a tuning (it keeps no games) did not play them all."""
    from barbaron.results import GAMES, shard_path

    games = run_dir / GAMES
    if not games.exists():
        raise UsageError(f"{run_dir} keeps no games ({GAMES}): a {manifest.get('command')} run")
    if games.is_dir() and not shard_path(games, unit).exists():
        played = sorted(int(p.stem.partition("-")[2]) for p in games.glob("unit-*.parquet"))
        kept = f"units {played[0]}..{played[-1]}" if played else "none"
        raise UsageError(
            f"{run_dir} did not keep that game: it is in unit {unit} of its games.parquet, "
            f"which holds {kept} (a run stopped early or interrupted plays fewer)"
        )


def game_of_run(run_dir: str | Path, game: int, arm: str | None = None) -> RunGame:
    """Look up game ``game`` of the results folder ``run_dir`` (lineup ``arm`` of a run with
    several), from its manifest."""
    from barbaron.harness import rotated

    try:
        manifest = json.loads((Path(run_dir) / "manifest.json").read_text())
        job = manifest["job"]
        arms = {a["label"]: {key: a[key] for key in ("bots", "rules")} for a in job["arms"]}
        deals, rotations, seed = job["deals"], job["rotations"], job["seed"]
        whole = [isinstance(v, int) and not isinstance(v, bool) for v in (deals, rotations, seed)]
        if not all(whole) or rotations < 1:
            raise ValueError("its job's deals, rotations and seed must be whole numbers")
        for a in arms.values():
            bots_ok = isinstance(a["bots"], list) and all(isinstance(b, str) for b in a["bots"])
            if not bots_ok or not isinstance(a["rules"], dict):
                raise ValueError("an arm's bots must be a list of specs and its rules a mapping")
    except KeyError as e:  # (its text alone is the key's name: QA)
        raise UsageError(
            f"{run_dir}/manifest.json lacks {e.args[0]!r}: not a manifest barbaron wrote"
        ) from None
    except (OSError, ValueError, TypeError) as e:
        raise UsageError(f"{run_dir} is not a results folder with a manifest.json: {e}") from None
    if not arms:
        raise UsageError(f"{run_dir}/manifest.json lists no lineup (its job's arms are empty)")
    label = arm or (next(iter(arms)) if len(arms) == 1 else None)
    if label is None:  # (QA: "--arm must be one of" read as if a wrong --arm was given)
        raise UsageError(f"this run has {len(arms)} lineups: give --arm, one of {', '.join(arms)}")
    if label not in arms:
        raise UsageError(f"--arm must be one of {', '.join(arms)} for this run")
    deal, rotation = divmod(game, rotations)
    if not 0 <= deal < deals:
        raise UsageError(f"--game must be 0..{deals * rotations - 1} for this run")
    batch = manifest.get("batch_size")
    if isinstance(batch, int) and batch >= 1:  # (a damaged manifest: the shards decide nothing)
        _check_played(Path(run_dir), manifest, deal // max(1, batch // rotations))
    lineup = tuple(arms[label]["bots"])
    from barbaron.results import code_hash

    bots = tuple(lineup[i] for i in rotated(lineup, rotation))
    changed = manifest.get("code") not in (None, code_hash())
    rules = dict(arms[label]["rules"])
    found = RunGame(game, seed, deal, rotation, bots, rules, changed, label, len(arms) > 1)
    recorded = manifest.get("plugins")
    if isinstance(recorded, dict):  # a changed plugin would replay another game
        from barbaron.plugins import names_in, plugin_change, plugin_hashes, same_folder

        now = plugin_hashes(list(lineup))  # this arm's files: another arm's may differ
        named = names_in(lineup)  # (also those gone since)
        mine = {name: value for name, value in recorded.items() if name in named}
        what = plugin_change(mine, now, "it was played", manifest.get("cwd"))
        if what is not None:  # (QA: it left out the seeded replay, the way to play it anyway)
            command = found.command()
            cwd = manifest.get("cwd")
            if isinstance(cwd, str) and os.path.isdir(cwd) and not same_folder(cwd, "."):
                command = f"cd {shlex.quote(cwd)} && {command}"  # its relative paths (QA)
            raise UsageError(
                f"cannot replay a game of {run_dir}: {what} (its deal with the files as they "
                f"are now: {command})"
            )
    return found

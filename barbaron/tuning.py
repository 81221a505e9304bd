"""Tuning a bot's parameters automatically: ``barbaron tune``.

The bot plays against a fixed field; an optuna study (its TPE sampler, multivariate) proposes
parameter values, one trial after another, to maximise the bot's win share, or with a target
to bring it as close as possible to that share (difficulty calibration). Integer parameters
(those whose default is a whole number) stay integers; others are rounded to four significant
digits of their range, so that the spec a trial reports is exactly the bot it played.

- **Common random numbers.** Every trial plays the same deals (the run's seed), each in every
  rotation: trials differ by their parameters, not by their luck. A trial's win share comes
  from the exact tallies, so it is the same for any number of workers or batch size.
- **Reproducible and resumable.** The sampler of trial k is seeded from (seed, k), so the
  study depends only on the seed and the trials before it; an interrupted study continues
  with ``resume`` exactly as if it had never stopped. In a results folder the study lives in
  optuna's SQLite storage, ``study.db``, which optuna's own tools open
  (``optuna-dashboard sqlite:///OUT/study.db``, ``optuna.load_study(study_name="barbaron-tune",
  storage=...)``). The first trial plays the bot as given, when its values lie in the ranges.
- **Confirmation.** The best trial's score is biased upward: it is the best of many on the
  same deals. The best setting therefore plays again on fresh deals (another seed), paired
  with the bot as given on those same deals (or against the target), and that is the result.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Unpack

import numpy as np

from barbaron import interrupts
from barbaron.config import MAX_GAMES, STUDY_FILE, TRIAL_GAMES
from barbaron.errors import RunFailed, UsageError
from barbaron.params import counted, is_whole, listed, nearest_deals, number_text, whole_deals
from barbaron.runs import (
    Execution,
    RunOptions,
    RunResult,
    check_magnitude,
    frame,
    games_or_default,
)

if TYPE_CHECKING:
    import optuna
    import pandas as pd

    from barbaron.harness import Job, Totals, UnitResult

STUDY = STUDY_FILE  # optuna's SQLite storage in the results folder
STUDY_NAME = "barbaron-tune"
MAX_TRIALS = 10_000
MAX_PARAMS = 20
SAMPLERS = ("tpe", "random")
SAMPLER_NAMES = {
    "tpe": "optuna TPESampler (multivariate), seeded per trial from the seed",
    "random": "optuna RandomSampler, seeded per trial from the seed",
}
STARTUP_TRIALS = 10  # TPE's random trials before it models (fewer for short studies)


# --- the search space --------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    """One tuned parameter and its range (both ends included)."""

    name: str
    low: float
    high: float
    integer: bool

    @property
    def decimals(self) -> int:
        """Decimals a float value keeps: four significant digits of the range."""
        return max(0, 3 - math.floor(math.log10(self.high - self.low)))

    def suggest(self, trial: optuna.Trial) -> int | float:
        """The trial's value of this parameter (an int, or a float rounded to the grid)."""
        if self.integer:
            return trial.suggest_int(self.name, int(self.low), int(self.high))
        value = trial.suggest_float(self.name, self.low, self.high)
        return min(max(round(value, self.decimals), self.low), self.high)

    def record(self) -> dict:
        return {"name": self.name, "low": self.low, "high": self.high, "integer": self.integer}


def parse_params(bot: str, params: Sequence[str] | Mapping[str, Sequence[float]]) -> list[Param]:
    """The search space from ``NAME=LOW:HIGH`` texts (or a mapping NAME -> (LOW, HIGH)),
    checked against the bot's constructor: known names, each once, LOW below HIGH, finite
    numbers, whole numbers for integer parameters, and a bot that builds at both ends."""
    import inspect

    from barbaron.registry import with_param
    from barbaron.runs import build_bots, checked, shown
    from barbaron.strategy import constructor_parameters

    bot = checked(bot, "--bot", "spec")
    if isinstance(params, str):
        params = [params]
    if not isinstance(params, Mapping | Sequence):
        raise UsageError(
            "params must be NAME=LOW:HIGH texts or a mapping NAME -> (LOW, HIGH), "
            f"got {shown(params)}"
        )
    if isinstance(params, Mapping):
        items = [(str(k), v, f"{k}={v}") for k, v in params.items()]
    else:
        items = []
        for text in params:
            name, eq, bounds = str(text).partition("=")
            if not eq or not name.strip():
                raise UsageError(
                    f"--param must look like NAME=LOW:HIGH (e.g. risk=0:2), got {text!r}"
                )
            items.append((name.strip(), bounds, text))
    if not 1 <= len(items) <= MAX_PARAMS:
        raise UsageError(f"give 1 to {MAX_PARAMS} --param NAME=LOW:HIGH, got {len(items)}")
    (built,) = build_bots([bot])
    defaults = {p.name: p.default for p in constructor_parameters(type(built))}
    space, names = [], set()
    for name, bounds, text in items:
        if name not in defaults:
            valid = ", ".join(defaults) or "none"
            raise UsageError(f"--param {text!r}: {bot} has no parameter {name!r} (valid: {valid})")
        if name in names:
            raise UsageError(f"--param {name} given twice")
        names.add(name)
        default = defaults[name]
        if isinstance(default, bool):
            raise UsageError(f"--param {text!r}: {name} is not a number (default {default})")
        if isinstance(default, str):
            raise UsageError(
                f"--param {text!r}: {name} is text (default {default!r}), not a number to tune"
            )
        bounds = listed(bounds)  # (numpy's arrays too, as sweep takes them; QA)
        if isinstance(bounds, str):
            parts = bounds.split(":")
        else:  # (a pair; bytes and ranges are no pair of bounds: range(0, 2) is 0 and 1)
            parts = list(bounds) if isinstance(bounds, list | tuple) else [bounds]
        try:
            if len(parts) != 2 or any(isinstance(x, bool | np.bool_) for x in parts):
                raise ValueError  # ((False, True) ran as 0:1, QA)
            low, high = (number_text(x) for x in parts)
            if not (math.isfinite(low) and math.isfinite(high)):
                raise ValueError
        except (TypeError, ValueError):
            raise UsageError(
                f"--param {text!r}: LOW:HIGH must be two finite numbers (e.g. {name}=0:2)"
            ) from None
        for end in (low, high):  # (1e300 was taken: 300-digit cushions, optuna's warnings)
            check_magnitude(end, f"--param {text!r}:")
        if not low < high:
            raise UsageError(
                f"--param {text!r}: the range is {'empty' if low == high else 'reversed'}; "
                "LOW must be below HIGH"
            )
        whole_text = all("." not in str(x) and "e" not in str(x).lower() for x in parts)
        if default is None or default is inspect.Parameter.empty:
            integer = whole_text and low.is_integer() and high.is_integer()
        else:
            integer = isinstance(default, numbers.Integral)  # (numpy's whole numbers too)
        if integer and not (low.is_integer() and high.is_integer()):
            raise UsageError(f"--param {text!r}: {name} takes whole numbers; give whole bounds")
        if integer:
            low, high = int(low), int(high)
        space.append(Param(name, low, high, integer))
    for end in ("low", "high"):  # a value the bot refuses fails now, not in trial 37
        spec = bot
        for p in space:
            spec = with_param(spec, p.name, getattr(p, end))
        build_bots([spec])
    return space


def _takes_beyond(spec: str, p: Param, end: float) -> bool:
    """Whether the bot of ``spec`` takes a value of ``p`` beyond ``end``, an end of its range:
    if not, a best there lies at the bot's own limit, and no wider range can help."""
    from barbaron.registry import BotSpecError, make_bot, with_param

    step = 1 if p.integer else (p.high - p.low) / 100
    beyond = end - step if end == p.low else end + step
    try:
        make_bot(with_param(spec, p.name, beyond))
    except BotSpecError:
        return False
    return True


def spec_of(bot: str, values: Mapping[str, object]) -> str:
    """``bot`` with the given parameter values: a ready bot spec."""
    from barbaron.registry import with_param

    for name, value in values.items():
        bot = with_param(bot, name, value)
    return bot


# --- the study ---------------------------------------------------------------------------------
def sampler_for(kind: str, seed: int, trial: int, trials: int) -> optuna.samplers.BaseSampler:
    """The sampler that proposes trial number ``trial``: seeded from (seed, trial), so that a
    study depends only on its seed and its finished trials (and resumes exactly)."""
    import warnings

    import optuna

    state = int(np.random.SeedSequence([seed % 2**63, trial]).generate_state(1)[0])
    if kind == "random":
        return optuna.samplers.RandomSampler(seed=state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return optuna.samplers.TPESampler(
            seed=state,
            multivariate=True,
            n_startup_trials=min(STARTUP_TRIALS, max(2, trials // 5)),
        )


def run_study(
    study: optuna.Study,
    space: list[Param],
    objective: Callable[[dict], tuple[float, dict]],
    trials: int,
    *,
    seed: int,
    sampler: str = "tpe",
    first: Mapping[str, object] | None = None,
    on_trial: Callable[[int, dict, float, dict], None] | None = None,
    saved: optuna.Study | None = None,
) -> int:
    """Ask and tell until ``study`` has ``trials`` complete trials; returns how many ran now.

    ``objective(values) -> (value, user attributes)``. ``first``: the values of trial 0, if
    any (the bot as given). ``saved``: a study that receives each trial once it is complete
    (the results folder's storage; ``study`` then works in memory), so that an interruption
    leaves no running or failed trial there, and its trial k is barbaron's trial k."""
    from optuna.trial import TrialState

    done = len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
    ran = 0
    while done < trials:
        study.sampler = sampler_for(sampler, seed, done, trials)
        if done == 0 and first is not None:
            if not study.get_trials(deepcopy=False, states=(TrialState.WAITING,)):
                study.enqueue_trial(dict(first))
        trial = study.ask()
        values = {p.name: p.suggest(trial) for p in space}
        if done == 0 and first is not None:  # the bot as given, not rounded to the grid
            values.update({name: first[name] for name in values if name in first})
        value, attrs = objective(values)
        for key, attr in attrs.items():
            trial.set_user_attr(key, attr)
        complete = study.tell(trial, value)
        if saved is not None:
            saved.add_trial(complete)
        ran += 1
        if on_trial is not None:
            on_trial(done, values, value, attrs)
        done += 1
    return ran


def in_memory(saved: optuna.Study) -> optuna.Study:
    """A study in memory holding ``saved``'s complete trials, in order, to ask and tell in (with
    ``run_study(..., saved=saved)``)."""
    import optuna

    study = optuna.create_study(study_name=saved.study_name, direction=saved.direction)
    study.add_trials(complete_trials(saved))
    return study


def complete_trials(study: optuna.Study) -> list:
    """The study's complete trials, in order."""
    from optuna.trial import TrialState

    return sorted(
        study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)), key=lambda t: t.number
    )


# --- playing -----------------------------------------------------------------------------------
def _play_tallies(job: Job, unit: int, strategies: dict | None = None) -> UnitResult:
    """Play a unit and send back only its tallies (a trial keeps no games)."""
    from barbaron.harness import play_unit

    result = play_unit(job, unit, strategies)
    result.rows = []
    return result


class _Tallies:
    """Where a trial's or a confirmation's units go: nowhere but the totals."""

    def done_units(self) -> list[int]:
        return []

    def add(self, result: UnitResult) -> None:
        pass

    def drop(self, units: list[int]) -> None:
        pass

    def unit_task(self) -> Callable[..., UnitResult]:
        return _play_tallies

    own_task = unit_task


def play_totals(job: Job, quiet: bool, on_unit=None) -> list[Totals]:
    """Play ``job`` keeping only its exact totals, no games (a trial, a confirmation, a search
    iteration of ``seats --solve``)."""
    from barbaron.run import execute

    return execute(job, _Tallies(), quiet=quiet, on_unit=on_unit).totals


class _Paired:
    """Per-deal sums of arm 0's win share minus arm 1's at the first lineup position."""

    def __init__(self) -> None:
        self.total, self.squares, self.deals, self.differing = 0, 0, 0, 0

    def __call__(self, result: UnitResult, totals: list[Totals]) -> bool:
        v = result.tallies[0].position_share[:, 0] - result.tallies[1].position_share[:, 0]
        self.differing += int(np.count_nonzero(v))
        v = v.astype(object)
        self.total += int(v.sum())
        self.squares += int((v * v).sum())
        self.deals += len(v)
        return False


# --- the results folder ----------------------------------------------------------------------
class _Study:
    """A tuning run's study and where it lives: optuna's SQLite storage in the results folder
    (``OUT.partial/study.db`` while it runs), or memory. Used as a context manager: Ctrl-C or a
    fault keeps the finished trials for ``resume`` (or leaves nothing if none finished) and
    lets go of the folder's lock."""

    def __init__(self, execution: Execution, job: Job, settings: dict, direction: str) -> None:
        import optuna

        # no line per study and trial while it runs; the caller's own setting back after it
        self._verbosity = optuna.logging.get_verbosity()
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        try:
            self._open(execution, job, settings, direction)
        except BaseException:
            optuna.logging.set_verbosity(self._verbosity)
            raise

    def _open(self, execution: Execution, job: Job, settings: dict, direction: str) -> None:
        import optuna

        from barbaron.results import ResultsError, RunFolder

        self.execution, self.folder, self.storage, self.saved = execution, None, None, None
        if execution.out is None:
            self.study = optuna.create_study(study_name=STUDY_NAME, direction=direction)
            return
        try:
            folder = RunFolder(
                execution.out,
                job,
                "tune",
                force=execution.force,
                resume=execution.resume,
                settings=settings,
            )
        except ResultsError as e:
            raise UsageError(str(e)) from None
        self.folder = folder
        try:
            self.storage = optuna.storages.RDBStorage(f"sqlite:///{folder.partial / STUDY}")
            self.saved = optuna.create_study(
                study_name=STUDY_NAME,
                direction=direction,
                storage=self.storage,
                load_if_exists=True,
            )
            self.saved.set_user_attr("barbaron", settings)
            self.study = in_memory(self.saved)  # asks and tells; complete trials go to saved
        except BaseException as e:
            failure = self._storage_failure(e)
            if failure is not None and not execution.resume:  # (the folder is this run's own)
                folder.discard()
            self._close()
            if failure is not None:
                kept = "the interrupted run is kept" if execution.resume else "nothing was written"
                raise RunFailed(f"{failure}; {kept}") from None
            raise

    def __enter__(self) -> _Study:
        return self

    def _close(self) -> None:
        if self.storage is not None:
            self.storage.engine.dispose()
        if self.folder is not None:
            self.folder.close()

    def __exit__(self, kind, error, traceback) -> None:
        import optuna

        optuna.logging.set_verbosity(self._verbosity)
        if error is None:
            return
        from barbaron.runs import raise_stopped, raise_when_complete

        if self.folder is not None and self.folder.complete:  # (its study.db moved with it)
            self._close()
            raise_when_complete(self.folder, error)
        error = self._storage_failure(error) or error
        finished = len(complete_trials(self.study if self.saved is None else self.saved))
        if self.storage is not None:
            self.storage.engine.dispose()
            self.storage = None
        kept = None
        if self.folder is not None:
            if not finished and not self.execution.resume:
                self.folder.discard()  # nothing finished: leave nothing behind (still locked)
            kept = self.folder.partial.exists()
        self._close()
        partial = None if self.folder is None else self.folder.partial
        trials = counted(finished, "finished trial")
        raise_stopped(error, kept, f"{trials} kept in {partial}", "trial", "study")

    def _storage_failure(self, error: BaseException) -> RunFailed | None:
        """optuna's SQLite storage failing (a full disk: "database or disk is full") as one
        line naming study.db; None for any other error."""
        import optuna
        from sqlalchemy.exc import SQLAlchemyError

        if not isinstance(error, SQLAlchemyError | optuna.exceptions.StorageInternalError):
            return None
        cause = getattr(error, "orig", None) or error.__cause__ or error
        where = STUDY if self.folder is None else self.folder.partial / STUDY
        return RunFailed(f"{where}: {str(cause).splitlines()[0]}")

    def finish(self, summary: dict, table: list[dict], seconds: float, games: int) -> Path | None:
        """Write the results folder (summary, trials table, history plot, the study)."""
        if self.folder is None:
            return None
        from barbaron.commands.tune import figures

        self.storage.engine.dispose()
        plots = figures(summary, []) if self.execution.plots else []
        out = self.folder.finish(summary, table, plots, seconds=seconds, games_played=games)
        self.storage = None
        return out


# --- the result ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class TuneResult(RunResult):
    """The result of :func:`tune`: the trials, the best setting as a spec, and its
    confirmation on fresh deals."""

    @property
    def trials(self) -> pd.DataFrame:
        """One row per trial: its values, spec, win share and objective."""
        return frame([{"trial": r["trial"], **r["values"]} | r for r in self.summary["trials"]])

    @property
    def best_spec(self) -> str:
        """The best setting, as a ready bot spec."""
        return self.summary["best_spec"]

    @property
    def confirmation(self) -> dict:
        """The best setting on fresh deals: its win share and interval, and the paired
        difference against the bot as given (or against the target)."""
        return self.summary["confirmation"]

    def games(self) -> pd.DataFrame:
        """A tuning keeps no games (its trials keep only their tallies): raises ValueError."""
        raise ValueError("a tuning run keeps no games (its trials keep only their tallies)")


# --- the function --------------------------------------------------------------------------------
@interrupts.deferring
def tune(
    bot: str,
    params: Sequence[str] | Mapping[str, Sequence[float]],
    *,
    field: str | Sequence[str] | None = None,
    players: int | None = None,
    target: float | None = None,
    trials: int = 50,
    games_per_trial: int | None = None,
    confirm_games: int | None = None,
    confirm_seed: int | None = None,
    sampler: str = "tpe",
    **options: Unpack[RunOptions],
) -> TuneResult:
    """Tune ``params`` of ``bot`` (``["risk=0:2", "reserve=0:200"]``, or a mapping
    ``{"risk": (0, 2)}``) against ``field`` (default: the bot with its default parameters):
    maximise its win share, or with ``target`` bring it as close as possible to that share.
    ``trials`` trials of ``games_per_trial`` games each (default 40,000, rounded down to whole
    deals), all on the same deals; the best is
    then confirmed with ``confirm_games`` games (default: ``games_per_trial``) on fresh deals
    (``confirm_seed``, default: the seed + 1)."""
    import time

    from barbaron.config import MAX_INDEX
    from barbaron.harness import Arm
    from barbaron.registry import bot_arguments
    from barbaron.runs import build_bots, checked, execution_of, field_or_own

    execution = execution_of(options)
    bot = checked(bot, "--bot", "spec")
    if sampler not in SAMPLERS:
        raise UsageError(f"--sampler must be one of {', '.join(SAMPLERS)}, got {sampler!r}")
    trials = checked(trials, "--trials", "whole")
    games_per_trial = checked(games_per_trial, "--games-per-trial", "whole", optional=True)
    confirm_games = checked(confirm_games, "--confirm-games", "whole", optional=True)
    confirm_seed = checked(confirm_seed, "--confirm-seed", "whole", optional=True)
    if not 1 <= trials <= MAX_TRIALS:
        raise UsageError(f"--trials must be from 1 to {MAX_TRIALS:,}, got {trials}")
    if target is not None:
        if isinstance(target, numbers.Real) and not isinstance(target, bool):
            target = float(target)  # numpy's floats too
        if isinstance(target, bool) or not isinstance(target, int | float):
            raise UsageError(f"--target must be a win share above 0 and below 1, got {target!r}")
        if not 0 < target < 1:  # NaN fails too
            raise UsageError(f"--target must be a win share above 0 and below 1, got {target}")
        target = float(target)
    field = field_or_own(field, bot, players)
    build_bots([bot, *field])
    space = parse_params(bot, params)
    rules = execution.rules(len(field) + 1)
    rotations = len(field) + 1 if execution.rotate else 1
    games_per_trial = games_or_default(games_per_trial, TRIAL_GAMES, rotations, "games_per_trial")
    confirm_games = games_per_trial if confirm_games is None else confirm_games
    for option, count in (
        ("--games-per-trial", games_per_trial),
        ("--confirm-games", confirm_games),
    ):
        if isinstance(count, bool) or not isinstance(count, int) or count < 1 or count % rotations:
            near = (
                f": {nearest_deals(count, rotations)}"
                if is_whole(count) and 0 < count < MAX_GAMES
                else ""
            )
            raise UsageError(f"{option} must be {whole_deals(rotations)}, got {count}{near}")
        if count > MAX_GAMES:
            raise UsageError(f"{option} must be at most {MAX_GAMES:,}, got {count}")
    confirm_seed = (execution.seed + 1) % MAX_INDEX if confirm_seed is None else confirm_seed
    if isinstance(confirm_seed, bool) or not isinstance(confirm_seed, int):
        raise UsageError(f"--confirm-seed must be a whole number, got {confirm_seed!r}")
    if not 0 <= confirm_seed < MAX_INDEX:
        raise UsageError(f"--confirm-seed must be from 0 to 2**63 - 1, got {confirm_seed}")
    if confirm_seed == execution.seed:  # its deals would be the tuning's, bias and all
        raise UsageError(
            f"--confirm-seed must differ from --seed ({confirm_seed}): the confirmation plays "
            "fresh deals, not the ones the trials were chosen on; leave it out for --seed + 1"
        )
    template = execution.job([Arm("trial", (bot, *field), rules, studied=True)], games_per_trial)
    confirm = execution.job([Arm("best", (bot, *field), rules)], confirm_games)  # checks it
    settings = {
        "bot": bot,
        "field": list(field),
        "params": [p.record() for p in space],
        "target": target,
        "trials": trials,
        "games_per_trial": games_per_trial,
        "sampler": sampler,
        "confirm_games": confirm_games,
        "confirm_seed": confirm_seed,
    }
    given = bot_arguments(build_bots([bot])[0]) or {}
    first = {p.name: given.get(p.name) for p in space}
    if not all(
        isinstance(v, int | float) and not isinstance(v, bool) and p.low <= v <= p.high
        for p, v in zip(space, first.values(), strict=True)
    ):
        first = None  # the bot as given lies outside the ranges: no trial of it
    direction = "maximize" if target is None else "minimize"
    quiet = not execution.progress
    started = time.perf_counter()

    played: dict[str, tuple[float, dict]] = {}  # spec -> its trial's (value, attributes)

    def objective(values: dict) -> tuple[float, dict]:
        spec = spec_of(bot, values)
        if spec in played:  # the same bot on the same deals: the same result (QA: an integer
            return played[spec]  # space replayed reserve=0 three times in five trials)
        job = execution.job([Arm("trial", (spec, *field), rules, studied=True)], games_per_trial)
        est = play_totals(job, quiet=True)[0].position_estimate(0)
        value = est.mean if target is None else abs(est.mean - target)
        attrs = {"values": values, "spec": spec, "win_share": est.mean}
        played[spec] = (value, attrs | {"win_share_ci": est.share_ci})
        return played[spec]

    with _Study(execution, template, settings, direction) as run:
        for trial in complete_trials(run.study):  # (a resumed study's trials played before)
            played.setdefault(trial.user_attrs["spec"], (trial.value, dict(trial.user_attrs)))
        before = len(played)
        bar = None
        if not quiet:
            from tqdm import tqdm

            bar = tqdm(
                total=trials, initial=len(complete_trials(run.study)), desc="trials", unit=" trial"
            )

        def on_trial(k: int, values: dict, value: float, attrs: dict) -> None:
            if bar is not None:
                bar.update(1)
                bar.write(f"  trial {k:>4}: {attrs['spec']}: win share {attrs['win_share']:.4f}")

        try:
            run_study(
                run.study,
                space,
                objective,
                trials,
                seed=execution.seed,
                sampler=sampler,
                first=first,
                on_trial=on_trial,
                saved=run.saved,
            )
        finally:
            if bar is not None:
                bar.close()
        rows = _trial_rows(run.study, space, direction)
        best = _best(rows, direction)
        ends = [p for p in space if best["values"][p.name] in (p.low, p.high)]
        wider = {p.name: _takes_beyond(best["spec"], p, best["values"][p.name]) for p in ends}
        best["at_bounds"] = [name for name, beyond in wider.items() if beyond]
        best["at_limits"] = [name for name, beyond in wider.items() if not beyond]
        arms = [Arm("best", (best["spec"], *field), rules, studied=True)]
        if target is None:
            arms.append(Arm("base", (bot, *field), rules, studied=True))
        job = dataclasses.replace(confirm, arms=tuple(arms), seed=confirm_seed)
        paired = _Paired() if target is None else None
        totals = play_totals(job, quiet=quiet, on_unit=paired)
        confirmation = _confirmation(totals, paired, target, job, bot)
        summary = {  # (games: each bot played once, however many trials repeat it)
            "games": len(played) * games_per_trial + len(arms) * confirm_games,
            "bot": bot,
            "field": list(field),
            "params": [p.record() for p in space],
            "target": target,
            "objective": "maximise the win share"
            if target is None
            else f"minimise |win share - {target}|",
            "sampler": SAMPLER_NAMES[sampler],
            "seed": execution.seed,
            "rules": rules.record(),
            "games_per_trial": games_per_trial,
            "trials": rows,
            "best": best,
            "best_spec": best["spec"],
            "tuning_share": best["win_share"],
            "confirmed_share": confirmation["best"]["win_share"],
            "confirmed_ci": confirmation["best"]["win_share_ci"],
            "confirmation": confirmation,
            "bots": [
                confirmation[k] | {"games": confirm_games}
                for k in ("best", "base")
                if k in confirmation
            ],
            "seats": confirmation["seats"],
        }
        seconds = time.perf_counter() - started
        games_now = (len(played) - before) * games_per_trial + len(arms) * confirm_games
        table = [
            {
                "trial": r["trial"],
                **r["values"],
                **{k: r[k] for k in ("spec", "win_share", "win_share_ci", "objective")},
            }
            for r in rows
        ]
        out = run.finish(summary, table, seconds, games_now)
        return TuneResult(
            summary=summary,
            out=out,
            games_total=summary["games"],
            games_now=games_now,
            seconds=seconds,
        )


def _trial_rows(study: optuna.Study, space: list[Param], direction: str) -> list[dict]:
    rows, best = [], None
    for k, t in enumerate(complete_trials(study)):
        value = float(t.value)
        if best is None or (value > best if direction == "maximize" else value < best):
            best = value
        rows.append(
            {
                "trial": k,
                "values": {p.name: t.user_attrs["values"][p.name] for p in space},
                "spec": t.user_attrs["spec"],
                "win_share": t.user_attrs["win_share"],
                "win_share_ci": t.user_attrs["win_share_ci"],
                "objective": value,
                "best_so_far": best,
            }
        )
    return rows


def _best(rows: list[dict], direction: str) -> dict:
    sign = 1 if direction == "maximize" else -1
    best = max(rows, key=lambda r: (sign * r["objective"], -r["trial"]))
    return {
        k: best[k] for k in ("trial", "values", "spec", "win_share", "win_share_ci", "objective")
    }


def _confirmation(totals, paired, target, job, bot) -> dict:
    from barbaron.harness import SHARE_SCALE
    from barbaron.stats import Estimate, Span, estimate

    def own(total) -> dict:
        est = total.position_estimate(0)
        return {"bot": total.arm.bots[0], "win_share": est.mean, "win_share_ci": est.share_ci}

    result = {
        "seed": job.seed,
        "games": job.games,
        "deals": job.deals,
        "best": own(totals[0]),
        "seats": totals[0].summary()["seats"],
    }
    if paired is not None:
        result["base"] = own(totals[1])
        diff = estimate(
            paired.total,
            paired.squares,
            paired.deals,
            SHARE_SCALE * job.rotations,
            Span(-1.0, 1.0, job.rotations, paired=True),
        )
        result["against"] = bot
        result["difference"] = {
            "win_share": diff.mean,
            "win_share_ci": list(diff.ci),
            "deals": diff.deals,
            "differing_deals": paired.differing,
        }
    else:
        est = totals[0].position_estimate(0)
        diff = Estimate(
            est.mean - target, est.se, est.deals, Span(-target, 1 - target, job.rotations)
        )
        result["against"] = f"target {target}"
        result["difference"] = {
            "win_share": diff.mean,
            "win_share_ci": list(diff.ci),
            "deals": diff.deals,
        }
    return result

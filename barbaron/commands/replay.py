"""Play scripted scenarios (shared/spec/SCENARIO-FORMAT.md) on the reference engine and print one
JSON outcome per file, with the keys of the file's 'expect' object (all keys if it has none); or
replay one game of a seeded run (--seed/--game/--bots, or --run DIR --game G)."""

from __future__ import annotations

import argparse
import json
import sys

from barbaron.commands._shared import Once, add_rules_options, rules_options
from barbaron.config import MAX_INDEX, MAX_ROLLOUTS
from barbaron.errors import UsageError

ROLLOUTS = 200  # --html's rollouts from each turn start by default
HELP = "replay scripted scenarios or any game of a run, with its story"
EPILOG = """examples:
  barbaron replay ../shared/conformance/case-0000.json
  barbaron replay --log ../shared/conformance/case-0000.json
  barbaron replay --check ../shared/conformance/*.json
  barbaron replay --seed 3 --game 12 --bots hard normal normal normal --log
  barbaron replay --run results/hard-vs-normal --game 1234 --check
  barbaron replay --seed 3 --game 12 --bots hard normal normal normal --html game.html
  barbaron replay my-duel.json --html my-duel.html --rollouts 500"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", metavar="FILE", help="scenario JSON files")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--log",
        action="store_true",
        help="print each game's readable event log instead of the outcome",
    )
    mode.add_argument(
        "--check",
        action="store_true",
        help="files: compare each outcome with the file's 'expect', report the "
        "first turn slot where coins diverge; --seed/--run: compare the "
        "reference engine with the batch engine (--run: and with the run's own record of the "
        "game); exit 1 if anything differs",
    )
    page = parser.add_argument_group("HTML replay")
    page.add_argument(
        "--html",
        metavar="FILE.html",
        help="write one game (one FILE, or --seed/--run) as a self-contained HTML page: board, "
        "turn slider, coins and worth, the turn's story, win probabilities",
    )
    page.add_argument(
        "--force", action="store_true", help="with --html: replace a file already there"
    )
    page.add_argument(
        "--rollouts",
        type=int,
        metavar="K",
        help="with --html: games continued from each turn start, with the game's bots, to "
        f"estimate win probabilities (default {ROLLOUTS}; 0: none)",
    )
    seeded = parser.add_argument_group(
        "one game of a seeded run (instead of FILEs)",
        "replays a game on the reference engine with the same dice, cards and bot draws",
    )
    seeded.add_argument(
        "--run",
        dest="run_dir",
        metavar="DIR",
        help="a results folder: take seed, bots, rules and rotation from its manifest",
    )
    seeded.add_argument("--arm", help="with --run: which lineup, for runs with several")
    seeded.add_argument("--seed", type=int, help="the run's seed")
    seeded.add_argument(
        "--game",
        type=int,
        help="with --seed: the deal (stream) index; with --run: the 'game' column of games.parquet",
    )
    seeded.add_argument(
        "--bots",
        nargs="+",
        action=Once,
        metavar="BOT",
        help="one bot spec per seat, in seat order (see 'barbaron bots')",
    )
    add_rules_options(parser)
    parser.set_defaults(rounds=None)  # None: not given (a run or a file brings its own)


def run(args: argparse.Namespace) -> int:
    present = {"--html": args.html is not None, "--run": args.run_dir is not None}
    for given, option, needs in (
        (args.force, "--force", "--html"),
        (args.rollouts is not None, "--rollouts", "--html"),
        (args.arm is not None, "--arm", "--run"),
    ):
        if given and not present[needs]:
            raise UsageError(f"{option} goes with {needs}: give it with {needs}, or leave it out")
    if args.rollouts is None:
        args.rollouts = ROLLOUTS
    if args.html is not None:
        from barbaron.duel import check_writable

        if args.log or args.check:
            raise UsageError("--html writes a page; give it without --log or --check")
        if not 0 <= args.rollouts <= MAX_ROLLOUTS:
            raise UsageError(f"--rollouts must be from 0 to {MAX_ROLLOUTS:,}, got {args.rollouts}")
        check_writable(args.html, "--html", args.force)
    seeded = args.seed is not None or args.game is not None or args.bots is not None
    if (args.run_dir is not None or seeded) and args.files:
        raise UsageError("give scenario FILEs or --seed/--game/--bots (or --run), not both")
    _refuse_rules_options_of_others(args, seeded)
    if args.run_dir is not None or seeded:
        if args.run_dir is not None:
            _take_game_of_run(args)
        return _replay_seeded(args)
    if not args.files:
        raise UsageError("give scenario FILEs, or --seed S --game G --bots A B [C D]")
    return _replay_files(args)


def _refuse_rules_options_of_others(args: argparse.Namespace, seeded: bool) -> None:
    """Scenario files and a run's games bring their own rules: no rules options with them."""
    from barbaron.rules import Rules

    given = any(
        v is not None for v in (args.rounds, args.start_coins, args.seat_bonus, args.seat_coins)
    )
    if args.rounds is None:
        args.rounds = Rules.rounds
    if not given or (seeded and args.run_dir is None):
        return
    if args.run_dir is not None:
        source = "--run DIR replays a game with the run's own rules"
    else:
        source = "scenario files carry their own rules"
    raise UsageError(f"{source}: give no --rounds, --start-coins, --seat-bonus or --seat-coins")


def _replay_files(args: argparse.Namespace) -> int:
    from barbaron.reference import format_log
    from barbaron.replay import compare_outcome
    from barbaron.scenario import ScenarioError, load_scenario

    scenarios = [load_scenario(path) for path in args.files]
    if args.html is not None:
        if len(scenarios) != 1:
            raise UsageError(f"--html draws one game; got {len(scenarios)} files")
        return _html_of_scenario(args, scenarios[0])
    if args.check:
        for s in scenarios:
            if s.expect is None:
                raise ScenarioError(f"{s.path}: has no 'expect' object to check against")
    played = [_played(s) for s in scenarios]
    if args.log:
        for s, (_, events) in zip(scenarios, played, strict=True):
            print(f"== {s.name} ({s.path})")
            print(format_log(events, s.rules.rounds))
        return 0
    if not args.check:
        for s, (outcome, _) in zip(scenarios, played, strict=True):
            result = outcome.to_dict()
            keys = list(s.expect) if s.expect else list(result)
            print(json.dumps({key: result[key] for key in keys}))
        return 0
    differ = 0
    for s, (outcome, _) in zip(scenarios, played, strict=True):
        problems = compare_outcome(s.expect, outcome.to_dict(), s.rules.players)
        if problems:
            differ += 1
            print(f"{s.name} ({s.path}): DIFFERS: {problems}")
    print(f"{len(scenarios)} cases checked: {len(scenarios) - differ} equal, {differ} differ")
    return 1 if differ else 0


def _played(scenario):
    """``play_scenario(scenario)``; a file whose recorded decisions or dice the game cannot
    take is bad input that names the file."""
    from barbaron.reference import ChanceExhausted
    from barbaron.scenario import ScenarioError, play_scenario
    from barbaron.strategy import IllegalDecision

    try:
        return play_scenario(scenario)
    except (IllegalDecision, ChanceExhausted) as e:
        raise ScenarioError(f"{scenario.path}: {e}") from None


def _take_game_of_run(args: argparse.Namespace) -> None:
    """Fill seed, deal, lineup and rules of game --game of the results folder --run."""
    from barbaron.replay import game_of_run

    if args.game is None or args.seed is not None or args.bots is not None:
        raise UsageError(
            "--run DIR takes --game G (the 'game' column of its games.parquet) "
            "and no --seed or --bots"
        )
    found = game_of_run(args.run_dir, args.game, args.arm)
    args.run_game = found  # (--check compares the replay with what the run recorded)
    args.seed, args.game, args.bots = found.seed, found.deal, list(found.bots)
    rules = found.rules
    args.rounds, args.seat_coins = rules["rounds"], rules.get("seat_coins")  # None: flat
    flat = (rules["start_coins"], rules["seat_bonus"])
    args.start_coins, args.seat_bonus = (None, None) if args.seat_coins is not None else flat
    print(
        f"# game {found.game} of {args.run_dir} = deal {found.deal}, rotation "
        f"{found.rotation}, the same as: {found.command()}",
        file=sys.stderr,
    )
    if found.code_changed:
        print(
            f"# warning: barbaron's code has changed since {args.run_dir} was played; if a "
            "bot's defaults or a rule changed, this is not the recorded game (compare its "
            "worths with the run's games.parquet)",
            file=sys.stderr,
        )


def _replay_seeded(args: argparse.Namespace) -> int:
    """One game of a seeded batch run, on the reference engine (and --check: the batch too)."""
    from barbaron.api import Execution, lineup_bots
    from barbaron.reference import format_log

    if args.seed is None or args.game is None or args.bots is None:
        raise UsageError("a seeded replay needs all of --seed S --game G --bots A B [C D]")
    if not (0 <= args.seed < MAX_INDEX and 0 <= args.game < MAX_INDEX):
        raise UsageError("--seed and --game must be whole numbers from 0 to 2**63 - 1")
    strategies = lineup_bots(args.bots)
    rules = Execution(**rules_options(args)).rules(len(strategies))
    from barbaron.replay import batch_outcome, compare_outcome, replay_game

    title = f"game {args.game} of seed {args.seed}"
    found = getattr(args, "run_game", None)
    if found is not None:  # (a run's game: its own number, the run and the arm; QA: --log
        arm = f", {args.arm}" if args.arm else ""  # named the deal as if it were the game)
        title = f"game {found.game} of {args.run_dir}{arm} (deal {args.game}, seed {args.seed})"
    if args.html is not None:
        from barbaron.streams import SeededChance

        names = list(args.bots)
        return _write_html(
            args,
            rules,
            strategies,
            SeededChance(args.seed, args.game),
            args.seed,
            args.game,
            names,
            lineup_bots(args.bots),
            names,
            title,
        )
    outcome, events = replay_game(rules, strategies, args.seed, args.game)
    if args.log:
        seats = ", ".join(f"seat {s} {spec}" for s, spec in enumerate(args.bots))
        print(f"== {title}: {seats}")
        print(format_log(events, rules.rounds))
        return 0
    result = outcome.to_dict()
    if not args.check:
        print(json.dumps(result))
        return 0
    batch = batch_outcome(rules, strategies, args.seed, args.game)
    problems = compare_outcome(result, batch, rules.players)
    verdict = f"DIFFER: {problems}" if problems else "agree"
    game = f"game {args.game}" if found is None else f"game {found.game} of {args.run_dir}"
    print(f"{game}: reference and batch engine {verdict}")
    if found is None:
        return 1 if problems else 0
    recorded = found.recorded(args.run_dir)
    if recorded is None:
        print(f"{game}: its row in games.parquet could not be read")
        return 1
    if differ := compare_outcome(recorded, result, rules.players):
        key = next(k for k in recorded if recorded[k] != result[k])  # (QA: it showed worths)
        print(
            f"{game}: the replay DIFFERS from the run's record ({differ}): the run recorded "
            f"{key} {recorded[key]}, the replay gives {result[key]}; a bot whose games "
            "depend on their batch or on state it keeps (barbaron check SPEC), or code changed "
            "since the run"
        )
        return 1
    print(f"{game}: the replay equals the run's record")
    return 1 if problems else 0


def _html_of_scenario(args: argparse.Namespace, scenario) -> int:
    """The page of a scenario file: rollouts with its bots (a duel's human seat as Hard) or,
    for a plain scenario, its threshold policies."""
    from barbaron.scenario import ScriptedChance

    if scenario.bots is not None:
        names = list(scenario.bots)
        rollout_specs = ["hard" if b == "human" else b for b in names]
        rollout_bots = _scenario_bots(scenario, rollout_specs) if args.rollouts else []
    else:
        names = [repr(p) for p in scenario.policies]
        rollout_specs, rollout_bots = names, list(scenario.policies)
    chance = ScriptedChance(scenario.dice, scenario.deck)
    return _write_html(
        args,
        scenario.rules,
        list(scenario.seats()),
        chance,
        0,
        0,
        names,
        rollout_bots,
        rollout_specs,
        f"{scenario.name} ({scenario.path})",
        seeded=False,
    )


def _scenario_bots(scenario, specs: list[str]) -> list:
    """The bots of a scenario's rollouts, ``specs`` (changed in place where a seat plays as
    hard): none built from plugin code the file names, since a data file must not run code that
    came with it (QA: a duel file's FILE.py was imported). Such a seat plays as Hard, and so does
    a name no bot has once a plugin was refused (the plugin may register it); a note says
    which. Any other fault of a spec is the file's, said as such."""
    from barbaron.registry import known_names, plugins_refused, split_spec
    from barbaron.runs import build_bots

    built: list = []
    refused_seats: list[int] = []
    failed: dict[int, UsageError] = {}
    with plugins_refused() as refused:
        for seat, spec in enumerate(specs):
            before = len(refused)
            try:
                built.extend(build_bots([spec]))
                continue
            except UsageError as e:
                failed[seat] = e
            built.append(None)
            if len(refused) > before:
                refused_seats.append(seat)
    unknown = [s for s in failed if split_spec(specs[s])[0] not in known_names()]
    hard = sorted({*refused_seats, *(unknown if refused_seats else [])})
    if other := [s for s in failed if s not in hard]:  # a bot the file names: say which file
        raise UsageError(f"{scenario.path}: its bots: {failed[other[0]]}")
    for seat in hard:
        specs[seat] = "hard"
        built[seat] = build_bots(["hard"])[0]
    if hard:
        print(
            f"note: the win chart plays seat{'s' * (len(hard) > 1)} {', '.join(map(str, hard))} "
            f"as hard: {scenario.path} names plugin code, or names only a plugin registers "
            f"({', '.join(scenario.bots[seat] for seat in hard)}), which a replay does not run",
            file=sys.stderr,
        )
    return built


def _write_html(
    args,
    rules,
    strategies,
    chance,
    seed,
    game,
    names,
    rollout_bots,
    rollout_specs,
    title,
    seeded=True,
) -> int:
    import time

    from barbaron.duel import write_text
    from barbaron.html_replay import record, render, win_probabilities
    from barbaron.reference import ChanceExhausted
    from barbaron.scenario import DecisionMismatch, ScenarioError
    from barbaron.strategy import IllegalDecision

    began = time.perf_counter()
    try:
        recorded = record(rules, strategies, chance, *((seed, game) if seeded else (None, None)))
    except (ChanceExhausted, DecisionMismatch) as e:
        raise ScenarioError(f"{title}: {e}") from None
    except IllegalDecision as e:  # a file's recorded answer the game refuses: the file's fault
        if seeded:
            raise
        raise ScenarioError(f"{title}: {e}") from None
    winprob = win_probabilities(recorded, rollout_bots, seed, game, args.rollouts)
    page = render(
        recorded, names, winprob, title=title, rollouts=args.rollouts, rollout_bots=rollout_specs
    )
    write_text(args.html, page)
    print(
        f"wrote {args.html}: {len(recorded.snapshots)} frames, {args.rollouts} rollouts per "
        f"turn start, in {time.perf_counter() - began:.1f} s"
    )
    return 0

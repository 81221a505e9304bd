"""The ``barbaron`` command line: subcommands that present what the library computes."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from barbaron import __version__
from barbaron.reference import format_log
from barbaron.registry import REGISTRY, BotSpecError, make_bot
from barbaron.rules import Rules
from barbaron.scenario import ScenarioError, load_scenario, play_scenario


class UsageError(Exception):
    """Bad input from the user: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message} (see '{self.prog} --help')")


def _rules(args: argparse.Namespace, players: int) -> Rules:
    """The Rules of the rules options, or a UsageError that says which value is wrong."""
    try:
        return Rules(
            players=players,
            rounds=args.rounds,
            start_coins=args.start_coins,
            seat_bonus=args.seat_bonus,
        )
    except ValueError as e:
        raise UsageError(str(e)) from None


def _add_rules_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("rules (the number of players is the number of bots)")
    group.add_argument("--rounds", type=int, default=10, help="rounds per game (default 10)")
    group.add_argument(
        "--start-coins", type=int, default=1000, help="coins of seat 0 at the start (default 1000)"
    )
    group.add_argument(
        "--seat-bonus", type=int, default=100, help="extra start coins per later seat (default 100)"
    )


def _bots(specs: list[str]) -> list:
    if not 2 <= len(specs) <= 4:
        raise UsageError(f"--bots takes 2 to 4 bot specs, one per seat; got {len(specs)}")
    try:
        return [make_bot(spec) for spec in specs]
    except BotSpecError as e:
        raise UsageError(str(e)) from None


def _replay(args: argparse.Namespace) -> int:
    seeded = args.seed is not None or args.game is not None or args.bots is not None
    if seeded:
        if args.files:
            raise UsageError("give scenario FILEs or --seed/--game/--bots, not both")
        return _replay_seeded(args)
    if not args.files:
        raise UsageError("give scenario FILEs, or --seed S --game G --bots A B [C D]")
    scenarios = [load_scenario(path) for path in args.files]
    if args.check:
        for s in scenarios:
            if s.expect is None:
                raise ScenarioError(f"{s.path}: has no 'expect' object to check against")
    played = [play_scenario(s) for s in scenarios]
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


def _replay_seeded(args: argparse.Namespace) -> int:
    """One game of a seeded batch run, on the reference engine (and --check: the batch too)."""
    import numpy as np

    from barbaron.batch import play_batch
    from barbaron.replay import replay_game

    if args.seed is None or args.game is None or args.bots is None:
        raise UsageError("a seeded replay needs all of --seed S --game G --bots A B [C D]")
    if args.seed < 0 or args.game < 0:
        raise UsageError("--seed and --game must be whole numbers >= 0")
    strategies = _bots(args.bots)
    rules = _rules(args, len(strategies))
    outcome, events = replay_game(rules, strategies, args.seed, args.game)
    if args.log:
        print(
            f"== game {args.game} of seed {args.seed}: "
            + ", ".join(f"seat {s} {spec}" for s, spec in enumerate(args.bots))
        )
        print(format_log(events, rules.rounds))
        return 0
    result = outcome.to_dict()
    if not args.check:
        print(json.dumps(result))
        return 0
    out = play_batch(rules, strategies, args.seed, np.array([args.game]), trace=True)
    st = out.state
    batch = {
        "coins": st.coins[0].tolist(),
        "position": st.position[0].tolist(),
        "owner": st.owner[0].tolist(),
        "level": st.level[0].tolist(),
        "worth": out.worth[0].tolist(),
        "winners": np.flatnonzero(out.winners[0]).tolist(),
        "trace": out.trace[0].tolist(),
    }
    problems = compare_outcome(result, batch, rules.players)
    print(
        f"game {args.game}: reference and batch engine "
        + (f"DIFFER: {problems}" if problems else "agree")
    )
    return 1 if problems else 0


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


def _list_bots(args: argparse.Namespace) -> int:
    width = max(map(len, REGISTRY))
    for name, entry in sorted(REGISTRY.items()):
        print(f"{name:<{width}}  {entry.description}")
    return 0


DEFAULT_BATCH = 16384
BENCH_LINEUPS = {
    "threshold-4p": ["threshold:buy=0,takeover=none,upgrade=0"] * 4,
    "threshold-eager-4p": ["threshold:buy=0,takeover=0,upgrade=0"] * 4,
    "threshold-2p": ["threshold:buy=0,takeover=none,upgrade=0"] * 2,
    "easy-4p": ["easy"] * 4,
    "normal-4p": ["normal"] * 4,
    "hard-4p": ["hard"] * 4,
}


def _bench(args: argparse.Namespace) -> int:
    from barbaron.bench import bench_lineup

    if args.games < 1 or args.batch_size < 1:
        raise UsageError("--games and --batch-size must be at least 1")
    names = args.lineup or list(BENCH_LINEUPS)
    unknown = [n for n in names if n not in BENCH_LINEUPS]
    if unknown:
        raise UsageError(f"unknown lineup {unknown[0]!r} (known: {', '.join(BENCH_LINEUPS)})")
    print(f"{'lineup':<20} {'games':>9} {'seconds':>8} {'games/s/core':>13} {'peak MB':>8}")
    for name in names:
        specs = BENCH_LINEUPS[name]
        rules = Rules(players=len(specs))
        r = bench_lineup(rules, [make_bot(s) for s in specs], args.games, args.batch_size)
        print(
            f"{name:<20} {r.games:>9} {r.seconds:>8.2f} {r.games_per_second:>13,.0f} "
            f"{r.peak_mb:>8.0f}"
        )
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = _Parser(
        prog="barbaron",
        description="Research and tournament harness for Bar Baron, Tavern Jack's ten-round "
        "bar-trading board game: simulate games, test strategies, measure fairness.",
    )
    parser.add_argument("--version", action="version", version=f"barbaron {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    replay = sub.add_parser(
        "replay",
        help="play scripted scenario files on the reference engine",
        description="Play scripted scenarios (shared/spec/SCENARIO-FORMAT.md) on the reference "
        "engine and print one JSON outcome per file, with the keys of the file's "
        "'expect' object (all keys if it has none).",
        epilog="examples:\n  barbaron replay ../shared/conformance/case-0000.json\n"
        "  barbaron replay --log ../shared/conformance/case-0000.json\n"
        "  barbaron replay --check ../shared/conformance/*.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    replay.add_argument("files", nargs="*", metavar="FILE", help="scenario JSON files")
    mode = replay.add_mutually_exclusive_group()
    mode.add_argument(
        "--log",
        action="store_true",
        help="print each game's readable event log instead of the outcome",
    )
    mode.add_argument(
        "--check",
        action="store_true",
        help="files: compare each outcome with the file's 'expect', report the "
        "first turn slot where coins diverge; --seed: compare the reference "
        "engine with the batch engine; exit 1 if anything differs",
    )
    seeded = replay.add_argument_group(
        "one game of a seeded run (instead of FILEs)",
        "replays game G of a batch run with seed S on the reference engine: same dice, cards "
        "and bot draws",
    )
    seeded.add_argument("--seed", type=int, help="the run's seed")
    seeded.add_argument("--game", type=int, help="the global game index within the run")
    seeded.add_argument(
        "--bots",
        nargs="+",
        metavar="BOT",
        help="one bot spec per seat, in seat order (see 'barbaron bots')",
    )
    _add_rules_options(replay)
    replay.set_defaults(run=_replay)

    bots = sub.add_parser(
        "bots",
        help="list the registered bots and how to name your own",
        description="List the registered bots. A bot spec is NAME, NAME:key=value,key=value, "
        "path/to/file.py:ClassName[:key=value,...] or "
        "package.module:ClassName[:key=value,...]; 'none' means never.",
    )
    bots.set_defaults(run=_list_bots)

    bench = sub.add_parser(
        "bench",
        help="measure the batch engine's games per second and peak memory",
        description="Play standard lineups on one core (one process, no workers) and print "
        "games per second and the process's peak memory. Compilation is warmed up "
        "first and not timed.",
    )
    bench.add_argument(
        "--games", type=int, default=262144, help="games per lineup (default 262144)"
    )
    bench.add_argument(
        "--batch-size",
        type=int,
        default=DEFAULT_BATCH,
        help=f"games per batch (default {DEFAULT_BATCH})",
    )
    bench.add_argument(
        "--lineup",
        action="append",
        metavar="NAME",
        help="only this lineup (repeatable); default all: " + ", ".join(BENCH_LINEUPS),
    )
    bench.set_defaults(run=_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``barbaron`` console script; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        return args.run(args)
    except (UsageError, ScenarioError, BotSpecError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

"""The ``barbaron`` command line: subcommands that present what the library computes."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from barbaron import __version__
from barbaron.commands import legacy as commands
from barbaron.commands.legacy import (
    UsageError,
    add_field_options,
    add_rules_options,
    add_run_options,
    build_bots,
    lineup_bots,
    rules_of,
)
from barbaron.harness import DEFAULT_BATCH_SIZE
from barbaron.reference import IllegalDecision, format_log
from barbaron.registry import REGISTRY, BotSpecError
from barbaron.rules import Rules
from barbaron.scenario import ScenarioError, load_scenario, play_scenario
from barbaron.streams import MAX_INDEX


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message} (see '{self.prog} --help')")


def _replay(args: argparse.Namespace) -> int:
    seeded = args.seed is not None or args.game is not None or args.bots is not None
    if args.run_dir is not None or seeded:
        if args.files:
            raise UsageError("give scenario FILEs or --seed/--game/--bots (or --run), not both")
        if args.run_dir is not None:
            _game_of_run(args)
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


def _game_of_run(args: argparse.Namespace) -> None:
    """Fill seed, deal, lineup and rules of game --game of the results folder --run."""
    from pathlib import Path

    from barbaron.harness import rotated

    if args.game is None or args.seed is not None or args.bots is not None:
        raise UsageError(
            "--run DIR takes --game G (the 'game' column of its games.parquet) "
            "and no --seed or --bots"
        )
    try:
        manifest = json.loads((Path(args.run_dir) / "manifest.json").read_text())
        job = manifest["job"]
    except (OSError, ValueError, KeyError) as e:
        raise UsageError(
            f"{args.run_dir} is not a results folder with a manifest.json: {e}"
        ) from None
    arms = {a["label"]: a for a in job["arms"]}
    label = args.arm or (next(iter(arms)) if len(arms) == 1 else None)
    if label not in arms:
        raise UsageError(f"--arm must be one of {', '.join(arms)} for this run")
    arm = arms[label]
    deals, rotations = job["deals"], job["rotations"]
    deal, rotation = divmod(args.game, rotations)
    if not 0 <= deal < deals:
        raise UsageError(f"--game must be 0..{deals * rotations - 1} for this run")
    args.seed, args.game = job["seed"], deal
    args.bots = [arm["bots"][i] for i in rotated(tuple(arm["bots"]), rotation)]
    for key, value in arm["rules"].items():
        setattr(args, key, value)
    print(
        f"# game {deal * rotations + rotation} of {args.run_dir} = deal {deal}, rotation "
        f"{rotation}: replaying with --seed {args.seed} --game {deal} --bots "
        f"{' '.join(args.bots)}",
        file=sys.stderr,
    )


def _replay_seeded(args: argparse.Namespace) -> int:
    """One game of a seeded batch run, on the reference engine (and --check: the batch too)."""
    import numpy as np

    from barbaron.batch import play_batch
    from barbaron.replay import replay_game

    if args.seed is None or args.game is None or args.bots is None:
        raise UsageError("a seeded replay needs all of --seed S --game G --bots A B [C D]")
    if not (0 <= args.seed < MAX_INDEX and 0 <= args.game < MAX_INDEX):
        raise UsageError("--seed and --game must be whole numbers from 0 to 2**63 - 1")
    strategies = lineup_bots(args.bots)
    rules = rules_of(args, len(strategies))
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
        r = bench_lineup(rules, build_bots(specs), args.games, args.batch_size)
        print(
            f"{name:<20} {r.games:>9} {r.seconds:>8.2f} {r.games_per_second:>13,.0f} "
            f"{r.peak_mb:>8.0f}"
        )
    return 0


EPILOG_PLAY = """examples:
  barbaron play --bots hard normal normal normal --games 100000 --out results/hard-vs-normal
  barbaron play --bots shark:margin=-100 hard hard hard --games 40000 --seed 7 --out runs/x
  barbaron play --bots my_bot.py:MyBot normal normal --no-rotate --games 3000 --out runs/y

Every deal (one game's dice and cards) is played once per rotation of the lineup, so each bot
sits in every seat equally often with the same luck. Intervals are 95% and computed over deals.
Writes OUT/manifest.json, games.parquet, summary.json, summary.csv and PNG plots."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    raw = argparse.RawDescriptionHelpFormatter
    parser = _Parser(
        prog="barbaron",
        formatter_class=raw,
        description="Research and tournament harness for Bar Baron, Tavern Jack's ten-round "
        "bar-trading board game: simulate games, test strategies, measure fairness.",
        epilog="Run 'barbaron COMMAND --help' for each command's options.",
    )
    parser.add_argument("--version", action="version", version=f"barbaron {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    play = sub.add_parser(
        "play",
        help="play a lineup many times; win shares, seat balance, files and plots",
        description="Play a lineup of 2 to 4 bots (one spec per seat) and report each bot's "
        "and each seat's win share with 95% intervals, mean worth, share of the "
        "table's worth, and a seat-balance test.",
        epilog=EPILOG_PLAY,
        formatter_class=raw,
    )
    play.add_argument(
        "--bots",
        nargs="+",
        required=True,
        metavar="BOT",
        help="one bot spec per seat (see 'barbaron bots')",
    )
    add_run_options(play, games=20000)
    add_rules_options(play)
    play.set_defaults(run=commands.play)

    compare = sub.add_parser(
        "compare",
        help="is NEW stronger than BASE? paired games, interval, SPRT",
        description="Play NEW and BASE from the same deals in the same seats against the same "
        "field, so luck cancels pair by pair; report the win-share difference "
        "NEW - BASE with its 95% interval. With --elo0/--elo1 a sequential "
        "probability ratio test (as in chess engine testing) stops as soon as the "
        "answer is clear, printing the log-likelihood ratio and its bounds; the "
        "paired score per deal is 1/2 + (NEW's - BASE's win share) / 2, read as "
        "an Elo-style expected score.",
        epilog="examples:\n  barbaron compare shark hard --out runs/shark-vs-hard\n"
        "  barbaron compare hard:risk=0.5 hard --field normal --elo0 0 --elo1 10 "
        "--out runs/sprt",
        formatter_class=raw,
    )
    compare.add_argument("new", metavar="NEW", help="the candidate bot spec")
    compare.add_argument("base", metavar="BASE", help="the baseline bot spec")
    add_field_options(compare, "normal")
    compare.add_argument("--elo0", type=float, help="SPRT: H0 Elo difference (default 0)")
    compare.add_argument("--elo1", type=float, help="SPRT: H1 Elo difference (default 10)")
    compare.add_argument(
        "--max-games",
        type=int,
        default=100000,
        help="games per arm at most (default 100,000); without --elo0/--elo1 exactly this many",
    )
    add_run_options(compare, games=None, batch=4096)  # the SPRT looks after every unit
    add_rules_options(compare)
    compare.set_defaults(run=commands.compare)

    seats = sub.add_parser(
        "seats",
        help="fairness study: seat win shares against the seat bonus",
        description="For each seat bonus, the seats' win shares with 95% intervals, and the "
        "bonus at which the seats come out even: where the least-squares slope of "
        "win share over seat index crosses zero (interpolated; the interval from "
        "where the slope's 95% band crosses zero).",
        epilog="examples:\n  barbaron seats --bots normal --bonus 0:200:25 --out runs/seats\n"
        "  barbaron seats --bots easy normal hard hard --games 40000 --out runs/mixed",
        formatter_class=raw,
    )
    seats.add_argument(
        "--bots",
        nargs="+",
        required=True,
        metavar="BOT",
        help="one spec for the same bot in every seat, or 2-4 specs for a "
        "mixed table (played in rotation)",
    )
    seats.add_argument(
        "--players", type=int, default=4, help="table size with a single --bots spec (default 4)"
    )
    seats.add_argument(
        "--bonus",
        default="0:200:25",
        help="seat bonuses START:STOP:STEP or a comma list (default 0:200:25)",
    )
    add_run_options(seats, games=20000)
    add_rules_options(seats)
    seats.set_defaults(run=commands.seats)

    sweep = sub.add_parser(
        "sweep",
        help="tune one parameter of a bot against a fixed field",
        description="Play BOT with each value of one parameter against a fixed field; a table "
        "and a plot of its win share (95% interval) against the parameter.",
        epilog="example:\n  barbaron sweep --bot normal --param cushion=0:600:50 --field normal "
        "--out runs/cushion",
        formatter_class=raw,
    )
    sweep.add_argument("--bot", required=True, help="the bot to tune (a spec)")
    sweep.add_argument(
        "--param",
        required=True,
        help="NAME=START:STOP:STEP or NAME=V1,V2,... (e.g. cushion=0:600:50)",
    )
    add_field_options(sweep, "the bot with its default parameters")
    add_run_options(sweep, games=20000)
    add_rules_options(sweep)
    sweep.set_defaults(run=commands.sweep)

    report = sub.add_parser(
        "report",
        help="(re)draw the PNG plots of a results folder",
        description="Draw the plots of a finished results folder into it: win shares per bot, "
        "seat win shares and worth distributions (play), the seat-bonus curve "
        "(seats), the sweep curve (sweep), the SPRT trace (compare).",
    )
    report.add_argument("dir", metavar="DIR", help="a results folder")
    report.set_defaults(run=commands.report)

    replay = sub.add_parser(
        "replay",
        help="replay scripted scenarios or any game of a run, with its story",
        description="Play scripted scenarios (shared/spec/SCENARIO-FORMAT.md) on the reference "
        "engine and print one JSON outcome per file, with the keys of the file's "
        "'expect' object (all keys if it has none); or replay one game of a seeded "
        "run (--seed/--game/--bots, or --run DIR --game G).",
        epilog="examples:\n  barbaron replay ../shared/conformance/case-0000.json\n"
        "  barbaron replay --log ../shared/conformance/case-0000.json\n"
        "  barbaron replay --check ../shared/conformance/*.json\n"
        "  barbaron replay --seed 3 --game 12 --bots hard normal normal normal --log\n"
        "  barbaron replay --run results/hard-vs-normal --game 1234 --check",
        formatter_class=raw,
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
        "first turn slot where coins diverge; --seed/--run: compare the "
        "reference engine with the batch engine; exit 1 if anything differs",
    )
    seeded = replay.add_argument_group(
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
        metavar="BOT",
        help="one bot spec per seat, in seat order (see 'barbaron bots')",
    )
    add_rules_options(replay)
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
        default=DEFAULT_BATCH_SIZE,
        help=f"games per batch (default {DEFAULT_BATCH_SIZE})",
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
    except IllegalDecision as e:  # a bot broke the strategy contract: a bug in that bot
        print(f"error: illegal decision: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

"""The ``barbaron`` command line: subcommands that present what the library computes."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from barbaron import __version__
from barbaron.reference import format_log
from barbaron.scenario import ScenarioError, load_scenario, play_scenario


class UsageError(Exception):
    """Bad input from the user: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message} (see '{self.prog} --help')")


def _replay(args: argparse.Namespace) -> int:
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
    replay.add_argument("files", nargs="+", metavar="FILE", help="scenario JSON files")
    mode = replay.add_mutually_exclusive_group()
    mode.add_argument(
        "--log",
        action="store_true",
        help="print each game's readable event log instead of the outcome",
    )
    mode.add_argument(
        "--check",
        action="store_true",
        help="compare each outcome with the file's 'expect'; report the first turn "
        "slot where coins diverge; exit 1 if any case differs",
    )
    replay.set_defaults(run=_replay)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``barbaron`` console script; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        return args.run(args)
    except (UsageError, ScenarioError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

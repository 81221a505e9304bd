"""The ``barbaron`` command line: it parses, calls the library and prints. The parser is built
from the command modules listed in ``barbaron.commands.COMMANDS``."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from barbaron import __version__
from barbaron.commands import COMMANDS
from barbaron.errors import UsageError


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
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
    for name in COMMANDS:
        module = importlib.import_module(f"barbaron.commands.{name}")
        command = sub.add_parser(
            name,
            help=module.HELP,
            description=" ".join(module.__doc__.split()),
            epilog=getattr(module, "EPILOG", None),
            formatter_class=raw,
        )
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``barbaron`` console script; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        return args.run(args)
    except UsageError as e:  # bad input of any kind: one line, exit 2
        print(f"error: {e}", file=sys.stderr)
        return 2
    except Exception as e:
        return _known_failure(e)


def _known_failure(e: Exception) -> int:
    """One line and exit 2 for the library's own errors; anything else is a bug: re-raised."""
    from barbaron.api import RunInterrupted
    from barbaron.registry import BotSpecError
    from barbaron.scenario import ScenarioError
    from barbaron.strategy import IllegalDecision

    if isinstance(e, BrokenPipeError):
        return 0
    if isinstance(e, RunInterrupted | ScenarioError | BotSpecError):
        print(f"error: {e}", file=sys.stderr)
        return 2
    if isinstance(e, IllegalDecision):  # a bot broke the strategy contract: a bug in that bot
        print(f"error: illegal decision: {e}", file=sys.stderr)
        return 2
    raise e


if __name__ == "__main__":
    sys.exit(main())

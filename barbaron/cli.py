"""The ``barbaron`` command line: it parses, calls the library and prints. The parser is built
from the command modules listed in ``barbaron.commands.COMMANDS``."""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import re
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from barbaron import __version__
from barbaron.commands import COMMANDS
from barbaron.errors import RunInterrupted, UsageError
from barbaron.params import closest_name


class OneLineParser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit status 2 (the study scripts use it
    too)."""

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        self.given = list(sys.argv[1:] if args is None else args)  # (for error's hint)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> None:  # type: ignore[override]
        found = re.fullmatch(r"argument (--[\w-]+)(?:/-\w)?: expected one argument", message)
        given = getattr(self, "given", [])
        after = [given[i + 1] for i, a in enumerate(given[:-1]) if found and a == found[1]]
        if after and after[-1].startswith("-"):  # (e.g. --bonus -50,0: argparse takes it for
            message += f"; a value that starts with '-' is written {found[1]}=VALUE"  # an option)
        if wrong := re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message):
            choices = [c.strip("'") for c in wrong[2].split(", ")]  # (quoted up to Python 3.11)
            if close := closest_name(wrong[1], choices):  # (a misspelt command: as bots say)
                message = message.replace(
                    f"'{wrong[1]}'", f"'{wrong[1]}' (did you mean {close!r}?)", 1
                )
        raise UsageError(f"{self.prog}: {message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
    raw = argparse.RawDescriptionHelpFormatter
    parser = OneLineParser(
        prog="barbaron",
        formatter_class=raw,
        description="Research and tournament harness for Bar Baron, Tavern Jack's ten-round "
        "bar-trading board game: simulate games, test strategies, measure fairness.",
        epilog="Run 'barbaron COMMAND --help' for each command's options.",
    )
    parser.add_argument("--version", action="version", version=f"barbaron {__version__}")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="show the traceback behind an error (also BARBARON_DEBUG=1)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
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
    """Entry point of the ``barbaron`` console script; returns the exit status.

    Every failure is one line on stderr: bad input exits 2, a failed run or a strategy's own
    exception 1, an interrupt (Ctrl-C or SIGTERM) 130. ``--debug`` (or ``BARBARON_DEBUG=1``)
    shows the traceback behind the line.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]

    def command() -> int:
        args, extra = build_parser().parse_known_args(argv)
        if extra:  # (argparse would point to 'barbaron --help', not the command's own)
            prog = f"barbaron {args.command}"
            raise UsageError(
                f"{prog}: unrecognized arguments: {' '.join(extra)} (see '{prog} --help')"
            )
        try:
            return args.run(args)
        except KeyboardInterrupt as e:
            if type(e) is KeyboardInterrupt and (kept := _partial_kept(args)):
                from barbaron.runs import RESUME_ADVICE

                raise RunInterrupted(f"interrupted: {kept} is kept; {RESUME_ADVICE}") from None
            raise

    with running_command(["barbaron", *argv]):
        return with_one_line_failures(command, debug)


def _partial_kept(args: argparse.Namespace) -> Path | None:
    """The command's ``OUT.partial`` if a run left one: where a second Ctrl-C cut the run's own
    account of what it kept short, the line still says it (QA: tune said only "interrupted")."""
    from barbaron.results import ResultsError, _target

    out = getattr(args, "out", None)
    try:  # (the run's own naming: "~" expanded, "x/" and "a/.." as it read them)
        partial = _target(out)[1] if out else None
    except (ResultsError, UsageError):
        return None
    return partial if partial is not None and (partial / "manifest.json").is_file() else None


@contextlib.contextmanager
def running_command(line: list[str]) -> Iterator[None]:
    """Within the block, the manifests of runs record ``line`` as their command line."""
    from barbaron.config import COMMAND_LINE

    token = COMMAND_LINE.set(line)
    try:
        yield
    finally:
        COMMAND_LINE.reset(token)


def with_one_line_failures(command: Callable[[], int], debug: bool = False) -> int:
    """``command()``'s exit status, with every failure one line on stderr, as :func:`main`
    says (the study scripts run this way too); a bug in barbaron itself is raised. ``debug``
    (or ``BARBARON_DEBUG=1``) prints the traceback behind the line."""
    debug = debug or os.environ.get("BARBARON_DEBUG", "") not in ("", "0")
    from barbaron import end_while_starting, interrupts

    main_thread = threading.current_thread() is threading.main_thread()
    # SIGTERM ends a run as Ctrl-C does: what is finished is kept for --resume
    previous = signal.signal(signal.SIGTERM, interrupts.raise_interrupt) if main_thread else None
    try:
        if previous is end_while_starting:  # (quiet while it imported: barbaron/__init__.py)
            previous = signal.SIG_DFL
        interrupts.started()  # Ctrl-C raises from here on, and becomes this one line
        return command()
    except SystemExit:  # argparse's --help or its usage error: said already, and no failure
        raise
    except BaseException as e:  # every failure becomes one line (or, for a bug, re-raised)
        status, line = _failure(e)
        if status is None:
            raise
        if debug:
            traceback.print_exception(e)
        if line:
            print(f"error: {line}", file=sys.stderr)
        return status
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)


def _failure(e: BaseException) -> tuple[int | None, str]:
    """The exit status and the line for a failure; (None, '') for a bug in barbaron itself."""
    from barbaron.errors import RunFailed

    if isinstance(e, BrokenPipeError):
        return 0, ""
    if isinstance(e, UsageError) or _is(e, "scenario", "ScenarioError", "registry", "BotSpecError"):
        return 2, str(e)
    if _is(e, "strategy", "IllegalDecision"):  # it broke the strategy contract as it played
        return 1, f"illegal decision: {e}"
    if _is(e, "strategy", "StrategyError"):  # it raised while it played: the run failed
        return 1, f"a strategy failed: {e}"
    if isinstance(e, RunFailed) or _is(e, "results", "ResultsError"):  # (a file not written)
        return 1, str(e)
    if isinstance(e, RunInterrupted):
        return 130, str(e)
    if isinstance(e, KeyboardInterrupt):
        return 130, "interrupted"
    if isinstance(e, MemoryError):
        return 1, "out of memory: try a smaller --batch-size (or fewer --workers)"
    if isinstance(e, OSError):
        where = f"{e.filename}: " if e.filename else ""
        return 1, f"{where}{e.strerror or e}"
    from barbaron import interrupts

    if interrupts.landed():  # a Ctrl-C that C code turned into another error (an import's)
        # (its type, in case it was not that; its text alarmed: numpy's import said "IMPORTANT:
        # PLEASE READ THIS FOR ADVICE", QA; BARBARON_DEBUG=1 shows it all)
        return 130, f"interrupted (it came out as {type(e).__name__})"
    return None, ""


def _is(e: BaseException, *where: str) -> bool:
    """Whether ``e`` is one of the classes named by (barbaron module, class) pairs in ``where``.
    An exception of a class exists only once its module is loaded: a module not loaded is not
    imported to tell (a usage error stays as light as ``--help``)."""
    pairs = zip(where[::2], where[1::2], strict=True)
    return any(
        (module := sys.modules.get(f"barbaron.{name}")) is not None
        and isinstance(e, getattr(module, cls))
        for name, cls in pairs
    )


def entry() -> None:
    """The ``barbaron`` console script: :func:`main`, then exit without listening to another
    Ctrl-C (a second one while the interpreter shuts down would only print a traceback).

    Before exiting, every live object is frozen out of the garbage collector: the interpreter's
    last collection would otherwise walk all of them (numba's, matplotlib's, pandas'), which
    took 0.35 s of every command. Exit handlers still run and files are closed as usual."""
    status = main()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()
    sys.exit(status)


if __name__ == "__main__":
    entry()

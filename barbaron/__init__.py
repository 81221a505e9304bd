"""barbaron: research and tournament harness for the board game Bar Baron."""

import os
import signal
import sys

__version__ = "0.1.0"


def end_while_starting(signum: int, frame: object) -> None:
    """Ctrl-C or SIGTERM while the command (or a study script) still imports: one line and exit
    130 at once, nothing being written yet (a ``KeyboardInterrupt`` raised inside an import
    would print a traceback). ``barbaron.interrupts`` installs and removes it."""
    os.write(2, b"error: interrupted\n")
    os._exit(130)


def _is_the_command_starting() -> bool:
    """Whether this process is the ``barbaron`` command (its console script, or ``python -m
    barbaron`` while the package imports): not a program that uses the library."""
    argv = getattr(sys, "orig_argv", [])
    if "--multiprocessing-fork" in argv:  # a spawned helper of the command: its pool's own
        return False
    if sys.argv[:1] == ["-m"] and "-m" in argv:
        return argv[argv.index("-m") + 1 : argv.index("-m") + 2] == ["barbaron"]
    return os.path.basename(sys.argv[0]) in ("barbaron", "barbaron.exe") if sys.argv else False


def quiet_while_starting() -> None:
    """Until ``barbaron.interrupts.started``, Ctrl-C and SIGTERM end the process at once with
    one line and exit status 130 (:func:`end_while_starting`): for the command or a script that
    is still importing, with nothing written yet."""
    for s in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(s) is not signal.SIG_IGN:
            signal.signal(s, end_while_starting)


if _is_the_command_starting():  # (first thing: with_one_line_failures hands them back)
    quiet_while_starting()

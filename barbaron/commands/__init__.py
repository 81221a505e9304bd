"""The command line's commands, one module each (its options, its run function, its plots).

``cli.py`` builds the parser from :data:`COMMANDS`; adding a command is one new module here
and one name in this list. A command module defines ``HELP`` (one line for ``barbaron --help``),
a docstring (its ``--help`` description), ``add_arguments(parser)``, ``run(args) -> int`` and,
if it writes a results folder, ``figures(summary, parquet_files)``; optionally ``EPILOG``.
Modules import heavy libraries inside their functions, so that start-up stays fast.
"""

COMMANDS = (
    "play",
    "compare",
    "seats",
    "sweep",
    "tournament",
    "tune",
    "report",
    "replay",
    "duel",
    "bots",
    "bench",
    "check",
)

"""List the registered bots with their parameters and defaults. A bot spec is NAME,
NAME:key=value,key=value, path/to/file.py:ClassName[:key=value,...] or
package.module:ClassName[:key=value,...]; 'none' is no value, read as each bot says (never
for threshold's cushions, the same as cushion for Normal's takeover_cushion). Check your own with
'barbaron check SPEC'."""

from __future__ import annotations

import argparse

HELP = "list the registered bots and how to name your own"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options."""


def run(args: argparse.Namespace) -> int:
    from barbaron.registry import listing

    for line in listing():
        print(line)
    print(
        "\nA spec is NAME or NAME:key=value,... ('none' = no value, read as each bot says: "
        "never for threshold's cushions); your own strategy is "
        "path/to/file.py:ClassName[:key=value,...] or [package.]module:ClassName[:...]. "
        "Check it with 'barbaron check SPEC'."
    )
    return 0

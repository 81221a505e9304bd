"""The studies, each run as ``python -m experiments.NAME`` (see experiments/README.md)."""

import sys

if sys.argv[:1] == ["-m"]:  # (Python's argv[0] while ``-m`` imports the study's package)
    from barbaron import quiet_while_starting

    quiet_while_starting()  # a Ctrl-C while the study imports: one line, not a traceback

"""``python -m barbaron``: the same as the ``barbaron`` command."""

from barbaron.cli import entry

entry()

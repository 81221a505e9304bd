"""Errors the library raises for bad input; the command line prints them as one line, exit 2."""


class UsageError(ValueError):
    """Bad input from the user (an argument, a folder, a spec): says what is wrong and how to
    fix it, in one line."""

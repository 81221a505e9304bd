"""The command line's commands, one module each; ``cli.py`` builds the parser from this list."""

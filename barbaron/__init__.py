"""barbaron: research and tournament harness for the board game Bar Baron."""

__version__ = "0.1.0"

"""Strategies for Bar Baron, one module per family."""

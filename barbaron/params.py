"""Checks for bot parameters, shared by every bot so that one kind of value has one rule and one
message; :func:`whole`, :func:`flag` and :func:`listed`, which let the library take numpy's
integers, bools and arrays wherever it takes Python's; and :func:`read_number` for numbers read
back from a summary.json.

Each function takes the parameter's name and value and returns the value in its checked form, or
raises ``ValueError`` naming the parameter and the value given (``make_bot`` turns that into a
one-line ``BotSpecError``). None of them accepts a bool (``true`` is not a number of coins), NaN
or an infinity.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Sequence


def is_whole(value: object) -> bool:
    """Whether ``value`` is a whole number of any integer type (numpy's too), never a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def whole(value: object) -> object:
    """``value`` as an ``int`` if it is a whole number (:func:`is_whole`), else unchanged for
    the caller's own check to refuse."""
    return int(value) if is_whole(value) else value


def listed(value: object) -> object:
    """A numpy array as a list of Python numbers, else unchanged."""
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.ndarray):
        return value.tolist()
    return value


def flag(value: object) -> object:
    """``value`` as a ``bool`` if it is Python's or numpy's bool, else unchanged."""
    numpy = sys.modules.get("numpy")  # loaded if the value is numpy's
    if numpy is not None and isinstance(value, numpy.bool_):
        return bool(value)
    return value


def number_text(text: object, kind: type = float) -> float:
    """``kind(text)``, a number as an option or a bot spec writes it: never with ``_`` between
    digits, which Python reads (``1_0`` as 10) and a user did not mean (QA); ValueError then."""
    if isinstance(text, str) and "_" in text:
        raise ValueError(f"{text!r} is not a number")
    return kind(text)


def read_number(value: float | None) -> float:
    """A number of a summary read back from summary.json, where null stands for one that is not
    finite: None as nan."""
    return math.nan if value is None else float(value)


def counted(n: int, word: str) -> str:
    """``n`` and ``word``, plural unless ``n`` is 1: '1 lineup', '3 rotations'."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def whole_deals(rotations: int) -> str:
    """What a count of games must be, in words: whole deals, each played in every rotation."""
    if rotations == 1:
        return "a whole number of games >= 1"
    return (
        f"a positive multiple of the {rotations} rotations (each deal is played in every rotation)"
    )


def closest_name(name: str, known: Sequence[str]) -> str | None:
    """The known name ``name`` is most likely a slip for (the same letters in another case
    first: HARD for hard), or None: for a "did you mean"."""
    import difflib

    same_letters = [k for k in known if k.lower() == name.lower()]
    close = same_letters or difflib.get_close_matches(name, known, n=1)
    return close[0] if close else None


def nearest_deals(count: int, rotations: int) -> str:
    """The whole-deal counts either side of ``count`` as advice: 'use 4000 or 4004'."""
    lower = count // rotations * rotations
    return "use " + " or ".join(map(str, filter(None, (lower, lower + rotations))))


def p_text(p: float) -> str:
    """A p-value in three figures; below 1e-300 (where doubles lose their precision and then
    underflow to 0) as ``<1e-300``."""
    return "<1e-300" if 0 <= p < 1e-300 else f"{p:.3g}"


def p_phrase(p: float) -> str:
    """``p = 0.539``, or ``p < 1e-300`` (see :func:`p_text`)."""
    text = p_text(p)
    return f"p {text[0]} {text[1:]}" if text.startswith("<") else f"p = {text}"


def _is_real(value: object) -> bool:
    """A real number that is not a bool (numpy numbers count; numpy bools are not Real)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def cushion(
    name: str, value: object, *, allow_none: bool = False, none_means: str = "never"
) -> int | None:
    """A whole number of coins >= 0 (``None`` only with ``allow_none``: what it means to the
    bot, ``none_means``, the error says)."""
    if value is None and allow_none:
        return None
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 0:
        never = f" (or none for {none_means})" if allow_none else ""
        written = (  # (QA: cushion=1e9 said "got 1000000000.0", which reads as whole)
            f" (a float: write it without a point or exponent, {int(value)})"
            if isinstance(value, float) and value.is_integer() and 0 <= value < 2**53
            else ""
        )
        raise ValueError(
            f"{name} must be a whole number of coins >= 0{never}, got {value!r}{written}"
        )
    return int(value)


def probability(name: str, value: object) -> float:
    """A probability: a real number from 0 to 1."""
    if not _is_real(value) or not 0 <= value <= 1:  # NaN fails the comparison
        raise ValueError(f"{name} must be a probability from 0 to 1, got {value!r}")
    return float(value)


def number(name: str, value: object, low: float | None = None, high: float | None = None) -> float:
    """A finite real number, from ``low`` to ``high`` where given."""
    if (
        not _is_real(value)
        or not math.isfinite(value)
        or (low is not None and value < low)
        or (high is not None and value > high)
    ):
        if low is not None and high is not None:
            bound = f" from {low:g} to {high:g}"
        elif low is not None:
            bound = f" >= {low:g}"
        else:
            bound = "" if high is None else f" <= {high:g}"
        raise ValueError(f"{name} must be a finite number{bound}, got {value!r}")
    return float(value)


def fixed(x: float, digits: int = 4, sign: bool = False, keep_minus: bool = False) -> str:
    """``x`` with ``digits`` decimals (and its sign, with ``sign``); one that rounds to zero is
    0, never -0 (-0.0 read as a loss of a hair), unless ``keep_minus`` (an interval's bound:
    [-0.0000, 0.0006] holds zero, [0.0000, 0.0006] would read as if it did not, QA); +inf,
    -inf and nan as such."""
    if not math.isfinite(x):
        return "nan" if math.isnan(x) else ("+inf" if x > 0 else "-inf")
    text = f"{x:+.{digits}f}"
    if float(text) == 0 and not (keep_minus and x < 0) or not sign and text[0] == "+":
        text = text[1:]
    return f"+{text}" if sign and text[0] not in "+-" else text


def interval(ci: list[float | None], digits: int = 4, sign: bool = False) -> str:
    """``[low, high]`` with four decimals (or ``digits``, signed with ``sign``); ``-`` where
    there is none (too few deals: summary.json's nulls)."""
    low, high = map(read_number, ci)
    if math.isnan(low) and math.isnan(high):
        return "-"
    # a bound below zero that rounds to 0 keeps its minus, unless both do: [0.0000, 0.0000]
    shown = max(abs(low), abs(high)) >= 0.5 * 10**-digits  # (an end shows a digit)
    return f"[{fixed(low, digits, sign, shown)}, {fixed(high, digits, sign, shown)}]"

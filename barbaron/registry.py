"""Bot specs: short registry names with parameters, or a user's own class.

A spec is ``NAME``, ``NAME:key=value,key=value``, ``path/to/file.py:ClassName[:key=value,...]``
or ``package.module:ClassName[:key=value,...]``. Values: whole numbers, decimals, ``none``,
``true``/``false``, or text.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path

from barbaron.bots.autopilot import Autopilot
from barbaron.bots.easy import Easy
from barbaron.bots.greedy import Greedy
from barbaron.bots.hard import Hard
from barbaron.bots.miser import Miser
from barbaron.bots.normal import Normal
from barbaron.bots.shark import Shark
from barbaron.bots.threshold import ThresholdBot
from barbaron.strategy import Strategy


class BotSpecError(ValueError):
    """A bot spec that names no bot, or gives it parameters it does not take."""


@dataclass(frozen=True)
class BotEntry:
    """A registered bot family: its class and a one-line description."""

    cls: type
    description: str


REGISTRY: dict[str, BotEntry] = {
    "easy": BotEntry(
        Easy,
        "Homie Easy: buys on a whim (buy=0.6), rare random upgrades "
        "(upgrade=0.1) and takeovers (takeover=0.05)",
    ),
    "normal": BotEntry(
        Normal,
        "Homie Normal: keeps a cash cushion (cushion=250); takes over only to complete a district",
    ),
    "hard": BotEntry(
        Hard,
        "Homie Hard: expected tabs from everyone's dice odds, districts, a "
        "risk-sized cash buffer (risk=1, reserve=60, rival=1, margin=0)",
    ),
    "autopilot": BotEntry(
        Autopilot,
        "plays a timed-out human's turn: buys if 300 coins stay "
        "(cushion=300), never upgrades or takes over",
    ),
    "greedy": BotEntry(Greedy, "buys, upgrades and takes over whenever the rules allow"),
    "miser": BotEntry(Miser, "never buys, upgrades or takes over"),
    "shark": BotEntry(
        Shark,
        "experimental: Hard's judgement tuned to beat Hard (no cash buffer, "
        "eager takeovers; risk=0, reserve=0, rival=2, margin=-150)",
    ),
    "threshold": BotEntry(
        ThresholdBot,
        "cash cushions: buy/take over/upgrade iff coins left >= cushion "
        "(buy=0, takeover=none, upgrade=0)",
    ),
}


def parse_value(text: str) -> object:
    """A parameter value from its text: none, true/false, int, float, else the text."""
    low = text.strip().lower()
    if low in ("none", "null", "never"):
        return None
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _params(spec: str, text: str) -> dict[str, object]:
    params: dict[str, object] = {}
    for item in filter(None, text.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise BotSpecError(f"bot {spec!r}: parameter {item!r} is not key=value")
        params[key.strip()] = parse_value(value)
    return params


def _load_class(spec: str, where: str, name: str) -> type:
    try:
        if where.endswith(".py") or "/" in where:
            path = Path(where)
            if not path.is_file():
                raise BotSpecError(f"bot {spec!r}: no file {where}")
            module_name = f"barbaron_plugin_{abs(hash(str(path.resolve())))}"
            loader = importlib.util.spec_from_file_location(module_name, path)
            module = importlib.util.module_from_spec(loader)
            sys.modules[module_name] = module  # dataclasses and pickling look modules up here
            loader.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
    except BotSpecError:
        raise
    except Exception as e:  # the user's module failed to import: say so on one line
        raise BotSpecError(
            f"bot {spec!r}: cannot import {where}: {type(e).__name__}: {e}"
        ) from None
    cls = getattr(module, name, None)
    if not isinstance(cls, type):
        classes = sorted(
            k
            for k, v in vars(module).items()
            if isinstance(v, type) and issubclass(v, Strategy) and v is not Strategy
        )
        raise BotSpecError(
            f"bot {spec!r}: {where} has no class {name!r} "
            f"(strategy classes there: {', '.join(classes) or 'none'})"
        )
    return cls


def split_spec(spec: str) -> tuple[str, str]:
    """(the bot, its parameter text): ``'normal:cushion=5'`` -> ``('normal', 'cushion=5')``,
    ``'my.py:Bot:x=1'`` -> ``('my.py:Bot', 'x=1')``."""
    head, _, rest = spec.partition(":")
    if head.endswith(".py") or "/" in head or "." in head:  # a plugin: FILE:Class[:params]
        name, _, params = rest.partition(":")
        return f"{head}:{name}", params
    return head, rest


def with_param(spec: str, key: str, value: object) -> str:
    """``spec`` with one more parameter (or a new value for it)."""
    bot, params = split_spec(spec)
    kept = [p for p in params.split(",") if p and p.partition("=")[0].strip() != key]
    return f"{bot}:{','.join([*kept, f'{key}={value}'])}"


def make_bot(spec: str) -> Strategy:
    """The strategy a spec names, built with its parameters; BotSpecError says what is wrong."""
    bot, param_text = split_spec(spec)
    head, _, name = bot.partition(":")
    if name or head.endswith(".py") or "/" in head or "." in head:
        if not name:
            raise BotSpecError(
                f"bot {spec!r}: a plugin is FILE.py:ClassName or package.module:ClassName"
            )
        cls = _load_class(spec, head, name)
    else:
        entry = REGISTRY.get(head)
        if entry is None:
            raise BotSpecError(
                f"unknown bot {head!r} (known: {', '.join(sorted(REGISTRY))}; "
                "or a plugin FILE.py:ClassName)"
            )
        cls = entry.cls
    params = _params(spec, param_text)
    accepted = [p for p in inspect.signature(cls).parameters if p not in ("self", "args", "kwargs")]
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise BotSpecError(
            f"bot {spec!r}: unknown parameter {unknown[0]!r} "
            f"(valid: {', '.join(accepted) or 'none'})"
        )
    try:
        bot = cls(**params)
    except (ValueError, TypeError) as e:
        raise BotSpecError(f"bot {spec!r}: {e}") from None
    if not all(callable(getattr(bot, m, None)) for m in ("upgrade", "buy", "takeover")):
        raise BotSpecError(
            f"bot {spec!r}: {cls.__name__} is not a strategy (it needs upgrade, "
            "buy and takeover methods; subclass barbaron.strategy.Strategy)"
        )
    return bot

"""Check that a strategy keeps the strategy contract, as Gymnasium's check_env checks an
environment. It plays a few thousand seeded games on eleven tables (2, 3 and 4 players, the usual
money, tight money and millions of coins, a one-round game, the bot X in every seat, alone and
with built-in bots) and checks: legal
answers (shape, dtype, legal upgrades, no exception); determinism (the same games again with the
same instance, with fresh instances, and in a fresh process); batch independence (a game played
alone or in a shuffled batch is the same game); order independence (lineups mixed row by row in
one batch, asked in either order); no use of the global random generators of random or
numpy.random. With --twin, the two specs (e.g. a scalar and a vectorized form of one bot) must
play identical games. One line per check, PASS or FAIL with the first game that shows it; exit
status 0 if every check passes, 1 if one fails, 2 for a bad spec."""

from __future__ import annotations

import argparse

from barbaron.config import CHECK_GAMES

HELP = "check that a strategy keeps the contract (legal, deterministic, batch-independent)"
EPILOG = """examples:
  barbaron check normal
  barbaron check my_bot.py:MyBot:cushion=300
  barbaron check my_bot.py:MyBotScalar --twin my_bot.py:MyBot
  barbaron check hard --games 4000 --seed 7"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "spec",
        metavar="SPEC",
        help="the bot to check: NAME[:key=value,...], FILE.py:Class[:key=value,...] or "
        "[package.]module:Class[:...] (a module on the import path)",
    )
    parser.add_argument(
        "--twin",
        metavar="SPEC",
        help="another spec that must play identical games (e.g. the vectorized form of a "
        "scalar bot)",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=CHECK_GAMES,
        help=f"distinct games to play, split over the tables (default {CHECK_GAMES})",
    )
    parser.add_argument("--seed", type=int, default=0, help="the games' seed (default 0)")


def run(args: argparse.Namespace) -> int:
    from barbaron.testing import check_strategy

    report = check_strategy(
        args.spec,
        twin=args.twin,
        games=args.games,
        seed=args.seed,
        echo=lambda line: print(line, flush=True),
    )
    return 0 if report.passed else 1

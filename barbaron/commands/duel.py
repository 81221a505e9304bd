"""Play one game of Bar Baron in the terminal against the Homies (1 to 3 bots, default three
Hard). Every turn shows the board and the turn's story; your decisions are prompts with the
legal choices and a default on Enter ('?' explains them). Answers may be piped in, one per
line (the defaults are played when input ends; five answers in a row that are not choices end
the game, exit 2). Ctrl-C ends the game, saving nothing (exit 130). --save writes the game as
a scenario file that 'barbaron replay' retells (--log), confirms (--check) and draws (--html)."""

from __future__ import annotations

import argparse
import json
import sys

from barbaron.commands._shared import Once, add_rules_options, rules_options
from barbaron.config import MAX_INDEX
from barbaron.errors import UsageError

HELP = "play one game in the terminal against the Homies"
EPILOG = """examples:
  barbaron duel
  barbaron duel --homies easy normal --seat 0 --seed 7
  barbaron duel --timer 40 --save my-game.json
  yes '' | barbaron duel --seed 3 --save game.json && barbaron replay --check game.json"""


MAX_TIMER = 3600  # seconds per decision at the most (an hour)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--homies",
        nargs="+",
        action=Once,
        metavar="SPEC",
        default=["hard", "hard", "hard"],
        help="1 to 3 bot specs, your opponents in seat order (default: hard hard hard)",
    )
    parser.add_argument(
        "--seat",
        type=int,
        help="your seat, 0 (first to play) .. number of bots (default: drawn from the seed)",
    )
    parser.add_argument(
        "--seed", type=int, help="the dice and cards (default: a random seed, printed)"
    )
    parser.add_argument(
        "--timer",
        type=float,
        metavar="SECONDS",
        help="seconds per decision; when they run out the autopilot plays it (default: none)",
    )
    parser.add_argument(
        "--save", metavar="FILE.json", help="write the game as a scenario file at the end"
    )
    parser.add_argument(
        "--force", action="store_true", help="with --save: replace a file already there"
    )
    add_rules_options(parser)


def run(args: argparse.Namespace) -> int:
    from barbaron.duel import check_writable, final_table, play_duel, write_text
    from barbaron.runs import Execution, build_bots

    if not 1 <= len(args.homies) <= 3:
        raise UsageError(f"--homies takes 1 to 3 bot specs; got {len(args.homies)}")
    build_bots(args.homies)  # an unknown spec fails here, before the game
    players = len(args.homies) + 1
    if args.seat is not None and not 0 <= args.seat < players:
        raise UsageError(f"--seat must be 0..{players - 1} at a table of {players}")
    if args.timer is not None and not 0 < args.timer <= MAX_TIMER:
        raise UsageError(
            f"--timer must be a positive number of seconds, at most {MAX_TIMER:,}, "
            f"got {args.timer:g}"
        )
    if args.seed is None:
        import secrets

        args.seed = secrets.randbelow(10**6)
    if not 0 <= args.seed < MAX_INDEX:
        raise UsageError("--seed must be a whole number from 0 to 2**63 - 1")
    if args.force and args.save is None:
        raise UsageError("--force replaces the file --save writes: give it with --save")
    if args.save is not None:
        if args.seat_coins is not None:
            raise UsageError(
                "--save writes a scenario file, whose rules have no per-seat coins: give "
                "--start-coins/--seat-bonus, or leave out --save"
            )
        check_writable(args.save, "--save", args.force)
    rules = Execution(**rules_options(args)).rules(players)
    try:
        result = play_duel(
            args.homies, seat=args.seat, seed=args.seed, timer=args.timer, rules=rules
        )
    except KeyboardInterrupt:
        print(flush=True)
        print("error: game interrupted (Ctrl-C or SIGTERM); nothing saved", file=sys.stderr)
        return 130
    print()
    print(final_table(result))
    if args.save is not None:
        saved = write_text(args.save, json.dumps(result.scenario()) + "\n", replace=args.force)
        if saved != args.save:
            print(f"{args.save} appeared during the game and is kept (no --force)")
        import shlex

        print(f"saved to {saved}; retell it with: barbaron replay --log {shlex.quote(str(saved))}")
    sys.stdout.flush()
    return 0

"""`barbaron check` and `barbaron.testing.check_strategy`: every registered bot passes, each bad
fixture fails exactly the check it breaks, twins, and the command line."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from barbaron import testing
from barbaron.cli import main
from barbaron.registry import BotSpecError, bot_entries, make_bot
from barbaron.strategy import Strategy
from barbaron.testing import (
    BATCH,
    CHECKS,
    DETERMINISM,
    GLOBAL_RANDOM,
    LEGAL,
    ORDER,
    TWIN,
    CheckReport,
    check_strategy,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "bad_bots.py"
GAMES = 440  # 40 per table: small enough to be quick, large enough to catch every fixture
TESTING_MIN = testing.TABLES  # one game per table
README = Path(__file__).resolve().parents[1] / "README.md"


def fixture(name: str) -> str:
    return f"{FIXTURES}:{name}"


RAISES_AT = next(  # the line of RaisesOnGoldenMile's raise
    n for n, line in enumerate(FIXTURES.read_text().splitlines(), 1) if "Golden Mile is" in line
)
# what each bad bot must fail (exactly these checks) and words its first failure must show
BAD = {
    "GlobalNumpyRandom": ({GLOBAL_RANDOM}, ["numpy.random.random", "bad_bots.py:"]),
    "GlobalPythonRandom": ({GLOBAL_RANDOM}, ["random.random", "GlobalPythonRandom.buy"]),
    "CompiledRandom": ({GLOBAL_RANDOM}, ["changed numba's np.random state"]),
    "UnseededGenerator": ({GLOBAL_RANDOM}, ["default_rng() without a seed", "UnseededGenerator"]),
    "MedianBuyer": ({BATCH, ORDER}, ["played alone", "coins ["]),
    "BuysInLargeBatches": ({BATCH}, ["in one batch of 440 games"]),
    "EveryOtherCall": ({DETERMINISM, BATCH, ORDER}, ["fresh instance", "first different answer"]),
    "HashDependent": ({DETERMINISM}, ["fresh Python process", "a set's order or hash() of text"]),
    "RemembersByGameNumber": (
        {DETERMINISM},
        [
            "when the instance first played the same game numbers with 50 coins more",
            "state between",
        ],
    ),
    "UpgradesBarZero": ({LEGAL}, ["UpgradesBarZero.upgrade answered bar 0", "may not upgrade"]),
    "WrongCount": ({LEGAL}, ["WrongCount.buy must return", "got shape ("]),
    "WrongDtype": ({LEGAL}, ["booleans", "of int64"]),
    "RaisesOnGoldenMile": (
        {LEGAL},  # where it raised, as a traceback's last line (QA)
        [
            "RaisesOnGoldenMile.takeover raised ZeroDivisionError",
            "(at ",
            f"bad_bots.py:{RAISES_AT} in RaisesOnGoldenMile.takeover)",
        ],
    ),
    "WritesItsView": ({LEGAL}, ["WritesItsView.buy_one raised TypeError", "is read-only"]),
    "ChangesGames": ({LEGAL}, ["ChangesGames.buy changed its games argument in place"]),
    "PaysItselfTen": ({BATCH}, ["on the reference engine", "coins ["]),
    "ShortensTheNight": ({LEGAL}, ["ShortensTheNight.buy changed the rules it was shown (rounds)"]),
    # found only at the tables of millions of coins and of one round
    "LookupByThousands": ({LEGAL}, ["bad_bots.py:LookupByThousands.buy raised IndexError"]),
    "PlansTheRoundsAfterTheFirst": ({LEGAL}, ["PlansTheRoundsAfterTheFirst.buy raised ValueError"]),
}
GAME = re.compile(r"game \d+ \(seed 0, lineup [X a-z]+, [234] players, ")


def failed(report: CheckReport) -> set[str]:
    return {r.name for r in report.failed}


SEARCHING = {"mc": "mc:rollouts=2,upgrades=1"}  # its defaults pass too, in 30 s


@pytest.mark.parametrize("name", sorted(bot_entries()))
def test_every_registered_bot_passes(name):
    # mc's games alone at batch size 1 are its slowest check: 10 per table (test_search_bots
    # checks two more of its settings)
    games = GAMES // 4 if name in SEARCHING else GAMES
    report = check_strategy(SEARCHING.get(name, name), games=games)
    assert report.passed, str(report)
    assert [r.name for r in report.results] == [LEGAL, DETERMINISM, BATCH, ORDER, GLOBAL_RANDOM]
    assert "fresh process" in report.result(DETERMINISM).detail


@pytest.mark.parametrize("name", sorted(BAD))
def test_each_bad_bot_fails_exactly_the_check_it_breaks(name):
    expected, words = BAD[name]
    report = check_strategy(fixture(name), games=GAMES)
    assert not report.passed and report.spec == fixture(name)
    assert failed(report) == expected, str(report)
    first = next(r for r in report.results if r.name in expected)
    for word in words:
        assert word in first.detail, first.detail
    if GLOBAL_RANDOM not in expected:  # a failure names the first game that shows it
        assert GAME.search(first.detail), first.detail
    if expected == {LEGAL}:  # nothing to compare: the other game checks are skipped, not failed
        skipped = {r.name for r in report.results if r.skipped}
        assert skipped == {DETERMINISM, BATCH, ORDER}
        assert report.result(GLOBAL_RANDOM).passed


def test_a_fair_fixture_passes_so_the_failures_above_are_the_flaws():
    assert check_strategy(fixture("Cushion"), games=GAMES, fresh_process=False).passed


def test_a_class_or_an_instance_is_checked_too():
    class Buyer(Strategy):  # as a notebook defines one: no other process can import it
        def __init__(self, cushion: int = 0) -> None:
            self.cushion = cushion

        def buy(self, view, games, bars):
            return view.coins[games, view.seat] >= 200 + self.cushion

    for bot in (Buyer, Buyer(cushion=100)):
        report = check_strategy(bot, games=GAMES)
        assert report.passed, str(report)
        assert "no fresh process" in report.result(DETERMINISM).detail
    loaded = type(make_bot(fixture("HashDependent")))  # a plugin's class: imported from its file
    report = check_strategy(loaded, games=GAMES)
    assert failed(report) == {DETERMINISM} and report.spec.endswith("bad_bots.py:HashDependent")
    assert "fresh Python process" in report.result(DETERMINISM).detail
    # an instance of a class other processes import: rebuilt there from its parameters (QA)
    report = check_strategy(make_bot(fixture("HashDependent")), games=GAMES)
    assert failed(report) == {DETERMINISM}
    assert "fresh Python process" in report.result(DETERMINISM).detail
    report = check_strategy(make_bot("normal:cushion=300"), games=GAMES)
    assert report.passed and "and in a fresh process" in report.result(DETERMINISM).detail
    changed = make_bot("normal")
    changed.cushion = 300  # changed after it was built (trained): its spec builds another bot
    report = check_strategy(changed, games=GAMES)
    assert report.passed and "no fresh process: another process cannot build it as it is" in (
        report.result(DETERMINISM).detail
    )
    with pytest.raises(BotSpecError, match="RuntimeError: boom"):
        check_strategy(_Explodes)


def test_a_spec_of_a_notebooks_class_skips_the_fresh_process(monkeypatch):
    """'__main__:Buyer', the spec the library takes for a notebook's class, failed the
    determinism check: no fresh process has __main__'s classes (QA)."""

    class Buyer(Strategy):
        def buy(self, view, games, bars):
            return view.coins[games, view.seat] >= 300

    Buyer.__module__ = "__main__"
    monkeypatch.setattr(sys.modules["__main__"], "Buyer", Buyer, raising=False)
    for spec in ("__main__:Buyer", "mc:rollouts=2,own=__main__:Buyer,playout=__main__:Buyer"):
        report = check_strategy(spec, games=GAMES // 8 if spec.startswith("mc") else GAMES)
        assert report.passed, str(report)
        assert f"no fresh process: another process cannot import {spec}" in (
            report.result(DETERMINISM).detail
        )


class _Explodes(Strategy):
    def __init__(self) -> None:
        raise RuntimeError("boom")


def test_a_generator_made_while_a_module_loads_is_not_the_bots_draw():
    report = check_strategy(fixture("ImportsAModuleThatMakesAGenerator"), games=GAMES)
    assert report.passed, str(report)


def test_the_watch_leaves_the_random_modules_as_they_were():
    before = (np.random.random, np.random.seed, np.random.default_rng, random.random)
    state = np.random.get_state()[1].copy(), random.getstate()
    report = check_strategy(fixture("GlobalNumpyRandom"), games=TESTING_MIN, fresh_process=False)
    assert failed(report) == {GLOBAL_RANDOM}
    assert (np.random.random, np.random.seed, np.random.default_rng, random.random) == before
    assert random.getstate() == state[1]
    assert not np.array_equal(np.random.get_state()[1], state[0])  # the bot did draw


def test_twins_play_identical_games():
    report = check_strategy(
        fixture("CushionScalar"), twin=fixture("CushionVector"), games=GAMES, fresh_process=False
    )
    assert report.passed, str(report)
    assert report.results[-1].name == TWIN
    assert f"plays the same {GAMES} games" in report.result(TWIN).detail


def test_a_mismatched_twin_names_the_first_game_and_answer_that_differ():
    report = check_strategy(
        fixture("CushionScalar"),
        twin=fixture("CushionVectorWrongDraw"),
        games=GAMES,
        fresh_process=False,
    )
    assert failed(report) == {TWIN}
    detail = report.result(TWIN).detail
    assert GAME.search(detail), detail
    assert "CushionVectorWrongDraw" in detail
    assert re.search(r"first different answer: round \d+, seat \d, takeover bar \d+", detail)


def test_the_readme_twins_pass_as_the_readme_says(tmp_path, monkeypatch, capsys):
    text = README.read_text()
    section = text[text.index("## Write your own strategy") : text.index("## Engines")]
    scalar, vector = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    command = re.search(r"\$ barbaron (check .*)", section).group(1).split()
    monkeypatch.chdir(tmp_path)
    Path("my_bot.py").write_text(scalar + "\n" + vector)
    status, out, err = run(capsys, *command, "--games", "180")
    assert status == 0, out + err
    assert "PASS twin: my_bot.py:FastCollector plays the same 180 games" in out


def test_a_twin_of_an_illegal_bot_is_skipped():
    report = check_strategy(
        fixture("WrongCount"), twin=fixture("Cushion"), games=TESTING_MIN, fresh_process=False
    )
    assert report.result(TWIN).skipped and failed(report) == {LEGAL}


def test_bad_input_raises_before_anything_is_played():
    with pytest.raises(BotSpecError, match="unknown bot"):
        check_strategy("no-such-bot")
    with pytest.raises(BotSpecError, match="NoSuchClass"):
        check_strategy(fixture("NoSuchClass"))
    with pytest.raises(BotSpecError, match="RuntimeError: boom"):
        check_strategy(fixture("ExplodesOnBuild"))
    with pytest.raises(BotSpecError, match="unknown bot"):
        check_strategy("normal", twin="no-such-bot")
    with pytest.raises(ValueError, match="games"):
        check_strategy("normal", games=3)
    with pytest.raises(ValueError, match="seed"):
        check_strategy("normal", seed=-1)
    with pytest.raises(ValueError, match="bot spec"):
        check_strategy(object())


def test_the_report():
    lines = []
    report = check_strategy("normal", games=TESTING_MIN, seed=5, echo=lines.append)
    assert report.passed and report.failed == [] and report.seed == 5
    assert lines[0].startswith(f"checking X = normal: {TESTING_MIN} games, seed 5")
    assert [line.split()[0] for line in lines[1:-1]] == ["PASS"] * 5
    assert lines[-1] == report.summary() and lines[-1].startswith("all 5 checks passed")
    assert str(report).splitlines() == report.lines()
    assert str(report.result(LEGAL)).startswith("PASS legal answers: ")
    assert set(CHECKS) == {LEGAL, DETERMINISM, BATCH, ORDER, GLOBAL_RANDOM, TWIN}


def test_the_fresh_process_prints_the_games_digests(capsys):
    assert testing.main(["normal", "--games", str(TESTING_MIN), "--seed", "3"]) == 0
    out = capsys.readouterr().out.split("\n")
    assert len(out) == TESTING_MIN + 1 and out[-1] == ""
    assert all(re.fullmatch(r"digest \d+ [0-9a-f]{16}", line) for line in out[:-1])


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_a_plugin_named_like_a_module_passes_in_the_fresh_process(tmp_path, monkeypatch, capsys):
    """The fresh process was ``python -m``, which put the current folder first on the import
    path: a plugin saved as random.py (or numpy.py beside it) stood for the real module there,
    and a correct bot failed "determinism" with an ImportError from a companion bot (QA)."""
    monkeypatch.chdir(tmp_path)
    Path("random.py").write_text(
        "from barbaron.strategy import Strategy\n\n\n"
        "class RandomBot(Strategy):\n"
        "    def buy(self, view, games, bars):\n"
        "        return view.uniform(games) < 0.5\n"
    )
    status, out, err = run(capsys, "check", "random.py:RandomBot", "--games", "120")
    assert status == 0, out + err
    assert "PASS determinism" in out and "in a fresh process" in out
    # a notebook's path starts with '' (its current folder): the fresh process appends that
    # after its own standard library, where the plugin is still found (review)
    monkeypatch.syspath_prepend("")
    assert check_strategy("random.py:RandomBot", games=120).passed


def test_cli_passes_a_good_bot(capsys):
    status, out, err = run(capsys, "check", "normal", "--games", str(GAMES))
    assert status == 0, out + err
    lines = out.splitlines()
    assert [line.split(" ", 1)[0] for line in lines[1:-1]] == ["PASS"] * 5
    assert lines[-1].startswith(f"all 5 checks passed for normal ({GAMES} games, seed 0")
    assert err == ""


def test_cli_fails_a_bad_bot_with_one_line_per_check(capsys):
    status, out, err = run(capsys, "check", fixture("MedianBuyer"), "--games", str(GAMES))
    assert status == 1
    lines = out.splitlines()
    assert len(lines) == 7  # header, five checks, closing line
    assert lines[3].startswith("FAIL batch independence: game ")
    assert lines[4].startswith("FAIL order independence: game ")
    assert "2 of 5 checks failed" in lines[-1]
    assert "Traceback" not in out + err


def test_cli_reports_an_exception_in_the_bot_as_a_failed_check(capsys):
    status, out, err = run(capsys, "check", fixture("RaisesOnGoldenMile"), "--games", "90")
    assert status == 1 and "Traceback" not in out + err
    assert "FAIL legal answers: game " in out
    assert "RaisesOnGoldenMile.takeover raised ZeroDivisionError" in out


def test_cli_twin(capsys):
    status, out, _ = run(
        capsys,
        "check",
        fixture("CushionScalar"),
        "--twin",
        fixture("CushionVectorWrongDraw"),
        "--games",
        "90",
    )
    assert status == 1
    assert out.splitlines()[-2].startswith("FAIL twin: game ")


@pytest.mark.parametrize(
    "argv",
    [
        ["no-such-bot"],
        [f"{FIXTURES}:NoSuchClass"],
        [f"{FIXTURES}:ExplodesOnBuild"],
        ["normal:cushion=-5"],
        ["normal", "--twin", "no-such-bot"],
        ["normal", "--games", "3"],
        ["normal", "--games", "200001"],
        ["normal", "--seed", "-1"],
        ["normal", "--games", "many"],
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(capsys, argv):
    status, out, err = run(capsys, "check", *argv)
    assert status == 2
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1
    if "--twin" in argv:  # it says which bot of the check it is (QA)
        assert err.startswith("error: the twin (--twin): unknown bot 'no-such-bot'"), err

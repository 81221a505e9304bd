"""`barbaron replay --seed`, `barbaron bots`, `barbaron bench`, and bot specs."""

import json

import numpy as np
import pytest
from barbaron.bots.threshold import ThresholdBot

from barbaron.batch import play_batch
from barbaron.cli import main
from barbaron.registry import BotSpecError, make_bot, parse_value
from barbaron.rules import Rules

SPECS = ["threshold", "threshold:takeover=0", "threshold:buy=100,upgrade=none", "threshold"]


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_seeded_replay_equals_that_game_of_the_batch_run(capsys):
    status, out, _ = run(
        capsys, "replay", "--seed", "42", "--game", "1234", "--bots", *SPECS, "--start-coins", "200"
    )
    assert status == 0
    replayed = json.loads(out)
    batch = play_batch(
        Rules(start_coins=200), [make_bot(s) for s in SPECS], 42, np.arange(1200, 1300)
    )
    row = 34
    assert replayed["coins"] == batch.state.coins[row].tolist()
    assert replayed["owner"] == batch.state.owner[row].tolist()
    assert replayed["worth"] == batch.worth[row].tolist()


def test_seeded_replay_check_and_log(capsys):
    status, out, _ = run(
        capsys,
        "replay",
        "--seed",
        "1",
        "--game",
        "7",
        "--bots",
        *SPECS[:3],
        "--rounds",
        "15",
        "--check",
    )
    assert status == 0 and out.strip() == "game 7: reference and batch engine agree"
    status, out, _ = run(
        capsys, "replay", "--seed", "1", "--game", "7", "--bots", *SPECS[:2], "--log"
    )
    assert status == 0 and out.startswith("== game 7 of seed 1: seat 0 threshold")
    assert "Closing time" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--seed", "1", "--game", "2"], "needs all of --seed S --game G --bots"),
        (["--seed", "-1", "--game", "2", "--bots", "threshold", "threshold"], "from 0 to 2**63"),
        (["--seed", "1", "--game", "2", "--bots", "threshold"], "2 to 4 bot specs"),
        (["--seed", "1", "--game", "2", "--bots", *["threshold"] * 5], "2 to 4 bot specs"),
        (["--seed", "1", "--game", "2", "--bots", "threshold", "nobot"], "unknown bot 'nobot'"),
        (
            ["--seed", "1", "--game", "2", "--bots", "threshold", "threshold:cushion=3"],
            "unknown parameter 'cushion' (valid: buy, takeover, upgrade)",
        ),
        (
            ["--seed", "1", "--game", "2", "--bots", "threshold", "threshold:buy=lots"],
            "buy must be a whole number of coins >= 0 (or none for never), got 'lots'",
        ),
        (
            ["--seed", "1", "--game", "2", "--bots", "threshold", "threshold", "--rounds", "0"],
            "rounds must be between 1 and 1000",
        ),
        (
            ["--seed", "1", "--game", "2", "--bots", "threshold", "threshold", "--seat-bonus", "3"],
            "--seat-bonus must be a non-negative multiple of 5",
        ),
        (["x.json", "--seed", "1"], "not both"),
        ([], "give scenario FILEs"),
    ],
)
def test_seeded_replay_bad_input(capsys, argv, message):
    status, out, err = run(capsys, "replay", *argv)
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert message in err


def test_bots_lists_the_registry_and_how_to_name_your_own(capsys):
    status, out, _ = run(capsys, "bots")
    listing, _, footer = out.partition("\n\n")
    names = [line.split()[0] for line in listing.splitlines()]
    assert status == 0 and names == sorted(names)
    assert {"easy", "normal", "hard", "autopilot", "threshold", "greedy", "miser"} <= set(names)
    assert "path/to/file.py:ClassName" in footer and "barbaron check SPEC" in footer


def test_python_dash_m_barbaron_is_the_command():
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "barbaron", "bots"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout.startswith("autopilot "), done.stderr


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--scale", "0.05"], "--scale goes with --end-to-end"),
        (["--end-to-end", "--lineup", "hard-4p"], "--lineup is the engine bench's"),
        (["--end-to-end", "--games", "1000"], "--games is the engine bench's"),  # (ignored, QA)
        (["--end-to-end", "--batch-size", "100"], "--batch-size is the engine bench's"),
        (["--repeat", "3"], "--repeat goes with --end-to-end"),
        (["--end-to-end", "--repeat", "0"], "--repeat must be a whole number from 1 to 20"),
        (["--games", "0"], "--games must be from 1 to 100,000,000, got 0"),
        (["--batch-size", "9999999"], "--batch-size must be from 1 to 1,048,576, got 9,999,999"),
    ],
)
def test_bench_refuses_options_it_would_ignore(capsys, argv, message):
    status, _, err = run(capsys, "bench", *argv)
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("scale", ["1", "0.05"])
def test_end_to_end_table_says_when_its_goals_do_not_apply(capsys, monkeypatch, scale):
    from barbaron import bench

    figure = bench.Target("2 workers / 1 worker", 1.2, 1.7, True, "barbaron play ...")
    monkeypatch.setattr(bench, "end_to_end", lambda scale, repeat: [figure])
    status, out, _ = run(capsys, "bench", "--end-to-end", "--scale", scale)
    assert status == 0 and "2 workers / 1 worker" in out and "NO" in out
    assert ("goals are set for full-size runs" in out) == (scale != "1")


def test_bench_reports_throughput_and_memory(capsys):
    status, out, _ = run(
        capsys, "bench", "--games", "500", "--batch-size", "128", "--lineup", "threshold-2p"
    )
    lines = out.splitlines()
    assert status == 0 and lines[0].split() == [
        "lineup",
        "games",
        "seconds",
        "games/s/core",
        "peak",
        "MB",
    ]
    name, games, seconds, rate, peak = lines[1].split()
    assert name == "threshold-2p" and games == "500" and float(rate.replace(",", "")) > 0
    status, _, err = run(capsys, "bench", "--lineup", "nope")
    assert status == 2 and "unknown lineup 'nope'" in err


def test_plugin_bots_load_from_a_file_and_a_module(tmp_path, monkeypatch):
    plugin = tmp_path / "mybot.py"
    plugin.write_text(
        "from barbaron.bots.threshold import ThresholdBot\n"
        "class Careful(ThresholdBot):\n"
        "    def __init__(self, cushion=300):\n"
        "        super().__init__(buy=cushion, takeover=None, upgrade=cushion)\n"
    )
    bot = make_bot(f"{plugin}:Careful:cushion=500")
    assert bot.params == {"cushion": 500} and repr(bot) == "Careful:cushion=500"
    assert (bot._buy, bot._upgrade) == (500, 500)
    assert isinstance(make_bot("barbaron.bots.threshold:ThresholdBot:buy=5"), ThresholdBot)
    with pytest.raises(BotSpecError, match="has no class 'Nope'"):
        make_bot(f"{plugin}:Nope")
    (tmp_path / "scalar.py").write_text(
        "import numpy as np\n"
        "from barbaron.strategy import ScalarStrategy, Strategy\n"
        "class Mine(ScalarStrategy):\n"
        "    pass\n"
        "X = np.array([1, 2])\n"
    )
    with pytest.raises(
        BotSpecError, match=r"has no class 'X' \(strategy classes defined there: Mine"
    ):
        make_bot(f"{tmp_path / 'scalar.py'}:X")  # (an array's == is no answer: review)
    for spec in (f"{tmp_path / 'scalar.py'}:Strategy", "barbaron.strategy:ScalarStrategy"):
        # a base class, imported where the bot is, played silently as a bot that never acts
        with pytest.raises(BotSpecError, match="is barbaron's base class, not a bot: name your"):
            make_bot(spec)
    with pytest.raises(BotSpecError, match=r"defined in .*scalar.py: Mine\)"):
        make_bot(f"{tmp_path / 'scalar.py'}:ScalarStrategy")
    with pytest.raises(BotSpecError, match="no file"):
        make_bot("missing.py:Careful")
    with pytest.raises(BotSpecError, match=r"after a ':', as in .*scalar.py:Mine:cushion=5$"):
        make_bot(f"mc:own={tmp_path / 'scalar.py'}:Mine;cushion=5")  # (QA: ';' for ':')
    with pytest.raises(BotSpecError, match=r"Mine:a=5,b=7 \(.*Mine:a=5;b=7 inside another bot"):
        make_bot(f"mc:own={tmp_path / 'scalar.py'}:Mine;a=5;b=7")  # (review: two of them)
    with pytest.raises(BotSpecError, match="cannot import no_such_module") as error:
        make_bot("no_such_module.sub:Careful")
    assert str(error.value).endswith(  # (QA: a module not on the path said no more)
        "(put the folder that holds it on PYTHONPATH, or name the file: "
        "no_such_module/sub.py:Careful)"
    )
    (tmp_path / "notes.txt").write_text("class Careful: ...\n")  # (QA: "name the file:
    monkeypatch.chdir(tmp_path)  # notes/txt.py:Careful")
    with pytest.raises(BotSpecError, match="notes.txt is not a Python file: a plugin is a file"):
        make_bot("notes.txt:Careful")
    with pytest.raises(BotSpecError, match="notes.txt is not a Python file: a plugin is a file"):
        make_bot("./notes.txt:Careful")  # (the same words by either path: review)
    with pytest.raises(BotSpecError, match=r"\(nor is there a file gone.txt here, and a plugin"):
        make_bot("gone.txt:Careful")  # (review: "name the file: gone/txt.py")
    with pytest.raises(BotSpecError, match=r"\(did you mean the file scalar.py:Mine\?\)$"):
        make_bot("scalar.pyy:Mine")  # (QA: "'scalar' is not a package", or no module 'scalar')
    (tmp_path / "again.py").write_text("from scalar import Mine\n")  # a module beside it (QA)
    with pytest.raises(BotSpecError, match=r"scalar lies beside .*again.py: a plugin's own imp"):
        make_bot(f"{tmp_path / 'again.py'}:Mine")


def test_parameter_values():
    assert [parse_value(v) for v in ("none", "3", "2.5", "true", "abc")] == [
        None,
        3,
        2.5,
        True,
        "abc",
    ]
    assert parse_value("1_0") == "1_0"  # not 10, as Python would read it (QA)
    with pytest.raises(BotSpecError, match="hard:risk=1_0"):
        make_bot("hard:risk=1_0")


def test_end_to_end_figures_are_the_median_of_their_rounds(capsys, monkeypatch):
    """On a shared machine one round's ratio moves by a quarter: each figure is the median of
    --repeat rounds, with their range beside it."""
    from barbaron import bench

    asked = []

    def rounds(scale, repeat):
        asked.append(repeat)
        values = [1.75, 1.33, 1.46][:repeat]
        return [bench.Target.of_rounds("2 workers / 1 worker", values, 1.7, True, "play")]

    monkeypatch.setattr(bench, "end_to_end", rounds)
    status, out, _ = run(capsys, "bench", "--end-to-end", "--repeat", "3")
    row = next(line for line in out.splitlines() if line.startswith("2 workers"))
    assert status == 0 and row.split()[5:] == ["1.46", ">=1.70", "NO", "1.33-1.75"]
    status, out, _ = run(capsys, "bench", "--end-to-end", "--repeat", "1")
    row = next(line for line in out.splitlines() if line.startswith("2 workers"))
    assert status == 0 and row.split()[5:] == ["1.75", ">=1.70", "yes"]  # no range of one
    assert asked == [3, 1]

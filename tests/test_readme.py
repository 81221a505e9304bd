"""The README's "Write your own strategy" example runs as shown, and its two forms agree."""

import re
from pathlib import Path

import numpy as np

from barbaron.batch import play_batch
from barbaron.cli import main
from barbaron.registry import make_bot
from barbaron.rules import Rules

README = Path(__file__).resolve().parents[1] / "README.md"


def example_blocks() -> list[str]:
    text = README.read_text()
    section = text[text.index("## Write your own strategy") : text.index("## Engines")]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_the_strategy_example_runs_as_shown(tmp_path, monkeypatch):
    scalar, vector = example_blocks()
    monkeypatch.chdir(tmp_path)
    Path("my_bot.py").write_text(scalar + "\n" + vector)
    assert (
        main(
            [
                "play",
                "--bots",
                "my_bot.py:Collector",
                "normal",
                "normal",
                "normal",
                "--games",
                "400",
                "--out",
                "runs/mine",
                "--quiet",
                "--workers",
                "1",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "play",
                "--bots",
                "my_bot.py:Collector:cushion=300",
                "hard",
                "hard",
                "hard",
                "--games",
                "400",
                "--out",
                "runs/mine2",
                "--quiet",
                "--workers",
                "1",
            ]
        )
        == 0
    )
    assert (tmp_path / "runs" / "mine" / "games.parquet").exists()
    slow = play_batch(
        Rules(), [make_bot("my_bot.py:Collector"), *[make_bot("hard")] * 3], 1, np.arange(500)
    )
    fast = play_batch(
        Rules(), [make_bot("my_bot.py:FastCollector"), *[make_bot("hard")] * 3], 1, np.arange(500)
    )
    assert np.array_equal(slow.state.coins, fast.state.coins)
    assert np.array_equal(slow.state.owner, fast.state.owner)


def test_the_library_example_runs_as_shown(capsys):
    text = README.read_text()
    section = text[text.index("## The library") : text.index("## Results folder")]
    (example,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(example.strip().splitlines()) <= 6
    exec(compile(example, "README.md", "exec"), {})
    line = capsys.readouterr().out.strip()
    assert re.fullmatch(r"shark - hard: [+-]0\.\d{4} \[[+-]0\.\d{4}, [+-]0\.\d{4}\]", line)

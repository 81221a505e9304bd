"""How a study reuses, refuses, replays and continues its sub-runs (experiments.common.run)."""

import json

import pandas as pd
import pytest

from barbaron import api
from barbaron import run as run_module
from barbaron.errors import RunInterrupted, UsageError
from experiments import common

BOTS = ["easy", "hard"]


def play(out, capsys, **changes):
    """A small api.play through common.run, and what it printed."""
    arguments = {"bots": BOTS, "games": 400, "seed": 3} | changes
    summary = common.run(api.play, out, workers=1, **arguments)
    return summary, capsys.readouterr().out


def test_a_finished_run_with_the_same_arguments_is_reused_as_it_is(tmp_path, capsys):
    out = tmp_path / "run"
    first, said = play(out, capsys)
    assert ">>> api.play(" in said
    assert json.loads((out / common.RECORD).read_text()) == {
        "function": "play",
        "bots": BOTS,
        "games": 400,
        "seed": 3,
    }
    started = json.loads((out / "manifest.json").read_text())["started"]
    again, said = play(out, capsys)
    assert again == first and "reusing" in said
    assert json.loads((out / "manifest.json").read_text())["started"] == started


def test_a_run_played_with_other_arguments_is_refused_unless_forced(tmp_path, capsys):
    """A study that found a folder of other arguments reused it silently: its tables then
    mixed seeds (homie_dial) or failed on the number of games (QA). It now names what
    differs; --force plays it again."""
    out = tmp_path / "run"
    play(out, capsys)
    with pytest.raises(UsageError, match=r"played with seed=3 \(now 4\): add --force"):
        play(out, capsys, seed=4)
    (out / common.RECORD).unlink()  # a folder from before the record, or not a study's
    with pytest.raises(UsageError, match="no readable arguments.json"):
        play(out, capsys)
    summary = common.run(api.play, out, workers=1, force=True, bots=BOTS, games=400, seed=4)
    assert json.loads((out / "manifest.json").read_text())["job"]["seed"] == 4 and summary
    assert json.loads((out / common.RECORD).read_text())["seed"] == 4


def test_an_interrupted_run_is_continued_by_running_the_study_again(tmp_path, capsys, monkeypatch):
    """An interrupted sub-run said 'run the same command with --resume', which a study does
    not take, and the study played it again from the start (QA): it now says to run the
    study again, and that continues the kept units to the uninterrupted result."""
    out = tmp_path / "run"
    real = run_module.execute

    def execute(job, folder, *, on_unit=None, **options):
        def stop(result, totals):
            if result.unit == 1:
                raise KeyboardInterrupt
            return False

        return real(job, folder, on_unit=stop, **options)

    monkeypatch.setattr(run_module, "execute", execute)
    with pytest.raises(RunInterrupted) as stopped:
        play(out, capsys, batch_size=50)
    assert "run the same study command again (without --force)" in str(stopped.value)
    assert "--resume" not in str(stopped.value)
    capsys.readouterr()
    monkeypatch.setattr(run_module, "execute", real)
    summary, said = play(out, capsys, batch_size=50)
    assert said.startswith(">>> continuing api.play(")
    whole, _ = play(tmp_path / "whole", capsys, batch_size=50)
    assert summary == whole
    kept, alone = (
        pd.read_parquet(folder / "games.parquet").sort_values(["game", "seat"], ignore_index=True)
        for folder in (out, tmp_path / "whole")
    )
    assert kept["game"].nunique() == 400 and kept.equals(alone)


def test_study_tables_are_written_whole(tmp_path, monkeypatch):
    """A study's CSV is written through a temporary file: a failure leaves the old one."""
    path = tmp_path / "table.csv"
    common.write_csv(pd.DataFrame({"a": [1]}), path)

    def broken(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", broken)
    with pytest.raises(Exception, match="cannot write .*table.csv: No space left"):
        common.write_csv(pd.DataFrame({"a": [2]}), path)
    monkeypatch.undo()
    assert pd.read_csv(path)["a"].tolist() == [1] and list(tmp_path.iterdir()) == [path]

"""The library under the command line: barbaron.api returns typed results equal to what the
command line writes, in memory or in a results folder."""

import json

import pandas as pd
import pytest

from barbaron import api
from barbaron.cli import main
from barbaron.errors import UsageError

LINEUP = ["hard", "normal", "easy"]
COMMON = {"seed": 3, "batch_size": 500}


@pytest.fixture(scope="module")
def folder_run(tmp_path_factory):
    """The same play as a command line, into a results folder."""
    out = tmp_path_factory.mktemp("api") / "cli"
    argv = ["play", "--bots", *LINEUP, "--games", "1500", "--seed", "3", "--batch-size", "500"]
    assert main([*argv, "--workers", "1", "--quiet", "--out", str(out)]) == 0
    return out


def test_play_summary_equals_the_summary_json_of_the_same_command_line(folder_run, tmp_path):
    result = api.play(LINEUP, games=1500, out=tmp_path / "api", **COMMON)
    on_disk = json.loads((folder_run / "summary.json").read_text())
    assert isinstance(result, api.PlayResult) and result.out == (tmp_path / "api").resolve()
    assert json.loads(json.dumps(result.summary)) == on_disk
    assert json.loads((result.out / "summary.json").read_text()) == on_disk
    assert result.games().equals(pd.read_parquet(folder_run / "games.parquet"))
    assert result.games_total == result.games_now == 1500


def test_play_in_memory_writes_nothing_and_keeps_the_games(folder_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = api.play(LINEUP, games=1500, workers=2, **COMMON)
    assert result.out is None and list(tmp_path.iterdir()) == []
    assert result.summary == json.loads((folder_run / "summary.json").read_text())
    assert result.games().equals(pd.read_parquet(folder_run / "games.parquet"))
    bots = result.bots
    assert list(bots["bot"]) == LINEUP
    assert {"win_share", "win_share_ci_low", "win_share_ci_high", "mean_worth"} <= set(bots)
    assert bots["win_share"].sum() == pytest.approx(1.0)
    assert list(result.seats["seat"]) == [0, 1, 2]


def test_compare_of_a_bot_with_itself_is_exactly_even():
    result = api.compare("normal", "normal:cushion=250", max_games=2000, **COMMON)
    assert isinstance(result, api.CompareResult)
    assert result.difference["win_share"] == 0 and result.sprt is None
    assert result.summary["own"][0] == result.summary["own"][1]


def test_compare_sprt_stops_early_when_the_answer_is_clear():
    result = api.compare("hard", "miser", elo0=0, elo1=10, max_games=200_000, **COMMON)
    assert result.sprt["decision"] == "H1" and result.games_total < 2 * 200_000
    assert result.difference["win_share_ci"][0] > 0
    played = [t["games"] for t in result.sprt["trace"]]
    assert played == sorted(played) and played[-1] * 2 == result.games_total


def test_seats_takes_bonuses_as_text_or_a_list():
    text = api.seats("threshold", players=2, bonus="0:400:200", games=1000, **COMMON)
    listed = api.seats(["threshold"], players=2, bonus=[400, 0, 200], games=1000, **COMMON)
    assert text.summary == listed.summary
    points = text.points
    assert list(points["seat_bonus"]) == [0, 0, 200, 200, 400, 400]
    slopes = [p["slope"] for p in text.summary["points"]]
    assert slopes == sorted(slopes) and 0 < text.even["bonus"] < 400


def test_sweep_points_and_best():
    result = api.sweep("easy", "buy", [0, 1], games=900, **COMMON)
    points = result.points
    assert list(points["value"]) == [0, 1] and list(points["bot"]) == ["easy:buy=0", "easy:buy=1"]
    assert result.best["value"] == 1 and result.best["win_share"] == points["win_share"].max()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: api.play(["easy"]), "--bots takes 2 to 4 bot specs"),
        (lambda: api.play(["easy", "nrmal"]), "did you mean 'normal'"),
        (lambda: api.play(["easy", "easy"], games=0), "--games must be from 1 to"),
        (lambda: api.play(["easy", "easy"], seat_bonus=3), "--seat-bonus must be"),
        (lambda: api.play(["easy", "easy"], force=True), "need a results folder"),
        (lambda: api.seats("easy", bonus="1:0:5"), "--bonus must look like"),
        (lambda: api.sweep("easy", "buy", []), "give 1 to 1000 values of buy"),
        (lambda: api.compare("easy", "easy", max_games=3), "--max-games must be at least 4"),
    ],
)
def test_bad_input_raises_a_usage_error(call, message):
    with pytest.raises(UsageError, match=message):
        call()


def test_an_unknown_run_option_is_a_type_error():
    with pytest.raises(TypeError, match="unknown run option"):
        api.play(["easy", "easy"], wokers=2)

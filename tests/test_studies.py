"""The studies run from the command line on a tiny scale, and every notebook executes on them."""

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from nbclient import NotebookClient

from barbaron.errors import UsageError
from barbaron.registry import make_bot
from experiments import game_rewards, homie_ladder, seat_compensation

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"


TINY_TUNE = ["--tune-games", "400", "--tune-trials", "2"]  # (the ladder's --tune, in its mark)


@pytest.fixture(scope="module")
def tiny_results(tmp_path_factory):
    results = tmp_path_factory.mktemp("results")
    assert (
        seat_compensation.main(
            [
                "--games",
                "600",
                "--tables",
                "normal-old-2p,mixed-old-2p,hard-2p",
                "--solves",
                "hard-2p",
                "--search-games",
                "800",
                "--workers",
                "1",
                "--quiet",
                "--out",
                str(results / "seat_compensation"),
            ]
        )
        == 0
    )
    assert (
        homie_ladder.main(
            [
                "--games",
                "400",
                "--sweep-games",
                "200",
                "--ladder-games",
                "4000",
                "--grid-games",
                "880",
                "--mc-games",
                "320",
                "--mc",
                "mc:rollouts=2",
                *TINY_TUNE,
                "--workers",
                "1",
                "--out",
                str(results / "homie_ladder"),
            ]
        )
        == 0
    )
    assert game_rewards.main(["--games", "40", "--out", str(results / "game_rewards")]) == 0
    return results


def test_seat_compensation_takes_the_long_night(tmp_path, capsys):
    """--rounds plays every table under that many rounds, recorded so that a folder of other
    rounds is never reused (the Long night was not covered, QA)."""
    argv = ["--tables", "hard-2p", "--solves", "none", "--games", "600", "--workers", "1"]
    assert seat_compensation.main([*argv, "--rounds", "3", "--out", str(tmp_path)]) == 0
    folder = tmp_path / "hard-2p"
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["points"][0]["arm"]["rules"]["rounds"] == 3
    assert json.loads((folder / "arguments.json").read_text())["rounds"] == 3
    with pytest.raises(UsageError, match=r"played with rounds=3 \(now 10\)"):
        seat_compensation.main([*argv, "--out", str(tmp_path)])  # 10 rounds now


def test_seat_compensation_solves_a_table_of_its_own_choosing(tmp_path, monkeypatch):
    """--solves named a table without a search size of its own: a KeyError, a traceback (QA)."""
    monkeypatch.setattr(seat_compensation, "OTHER_SEARCH", 400)  # (500,000 in a real study)
    argv = ["--tables", "normal-old-2p", "--solves", "normal-old-2p", "--games", "400"]
    assert seat_compensation.main([*argv, "--workers", "1", "--quiet", "--out", str(tmp_path)]) == 0
    solved = json.loads((tmp_path / "solved" / "normal-old-2p" / "summary.json").read_text())
    assert solved["search"]["games"] == 400


def test_a_studys_sub_runs_in_runs_draw_no_plots_and_the_rest_do(tiny_results):
    """Nobody keeps runs/ (git ignores it): its PNGs cost a study a second each for nothing;
    seat_compensation's table folders, which are kept, keep theirs."""
    runs = list((tiny_results / "homie_ladder" / "runs").iterdir())
    assert runs and not [p for run in runs for p in run.glob("*.png")]
    assert (tiny_results / "seat_compensation" / "hard-2p" / "seat_bonus.png").exists()


def test_studies_write_their_tables(tiny_results):
    even = pd.read_csv(tiny_results / "seat_compensation" / "even.csv")
    assert list(even["table"]) == ["normal-old-2p", "mixed-old-2p", "hard-2p"]
    assert {"even_bonus", "even_ci_low", "fair_at_100", "seat1_needs"} <= set(even.columns)
    solved = pd.read_csv(tiny_results / "seat_compensation" / "solved.csv")
    assert list(solved["seat"]) == [0, 1] and solved["start_coins"].iloc[0] == 1000
    assert (solved["start_coins"] % 5 == 0).all() and (solved["confirmation_games"] == 600).all()
    tables = json.loads((tiny_results / "seat_compensation" / "tables.json").read_text())
    assert tables["normal-old-2p"]["resolved"][0].startswith("normal:cushion=250,")
    ones = pd.read_csv(tiny_results / "homie_ladder" / "one_vs_three.csv")
    assert len(ones) == 5 * 4
    ratings = pd.read_csv(tiny_results / "homie_ladder" / "ratings.csv")
    assert set(ratings["bot"]) == set(homie_ladder.ladder_pool()) | {"mc:rollouts=2"}
    assert ratings.set_index("bot").loc["hard", ["rating", "ci_low", "ci_high"]].eq(0).all()
    assert list(ratings["rated_in"]).count("gauntlet") == 1
    grid = pd.read_csv(tiny_results / "homie_ladder" / "policies.csv")
    assert len(grid) == 48 and grid["bot"].is_unique and "greedy" in set(grid["bot"])
    assert (grid["hard_above"] == (grid["ci_high"] < 0)).all()
    presets = json.loads((tiny_results / "homie_ladder" / "presets.json").read_text())
    gaps = presets["gaps"]
    low, high = gaps["normal - easy"]["value"], gaps["hard - normal"]["value"]
    assert gaps["(hard - normal) - (normal - easy)"]["value"] == pytest.approx(high - low)
    rating = ratings.set_index("bot")["rating"]
    assert low == pytest.approx(rating["normal"] - rating["easy"])
    assert presets["presets"]["hard"] == repr(make_bot("hard"))
    spells = pd.read_parquet(tiny_results / "game_rewards" / "spells.parquet")
    assert (spells["tabs"] >= 0).all() and set(spells["how"]) <= {"buy", "takeover"}
    landings = pd.read_csv(tiny_results / "game_rewards" / "landings.csv")
    assert landings.groupby("turn")["exact"].sum().round(9).eq(1).all()


def test_the_landing_test_takes_its_variance_from_the_spread_between_games(tiny_results):
    """A game's turn ends are not independent draws (one player's turns follow one another):
    z uses the spread of each game's difference from the chain, not a binomial variance."""
    import numpy as np

    from barbaron import odds
    from barbaron import rules as R

    test = pd.read_csv(tiny_results / "game_rewards" / "landing_test.csv")
    per_game = []
    for game in range(40):
        played = game_rewards.play_game(game, game_rewards.SEED)
        difference = np.zeros(R.N_SPACES)
        for _, k, space in played.turn_ends:
            difference[space] += 1
            difference -= np.linalg.matrix_power(odds.TURN, k)[R.PAYDAY]
        per_game.append(difference)
    per_game = np.array(per_game)
    z = per_game.sum(axis=0) / np.sqrt(len(per_game) * per_game.var(axis=0, ddof=1))
    assert np.allclose(test["z"], z)
    assert test["observed"].sum() == pytest.approx(1) and test["exact"].sum() == pytest.approx(1)
    one = game_rewards.landing_test(np.ones((1, R.N_SPACES)), np.eye(1, R.N_SPACES),
                                    per_game[0], per_game[0] ** 2, 1)  # fmt: skip
    assert one["z"].isna().all()  # one game has no spread to measure z by (it said 0.0, QA)


def test_a_rerun_reproduces_the_numbers_exactly(tiny_results, tmp_path):
    again = tmp_path / "again"
    assert (
        seat_compensation.main(
            [
                "--games",
                "600",
                "--tables",
                "normal-old-2p",
                "--workers",
                "2",
                "--quiet",
                "--out",
                str(again),
            ]
        )
        == 0
    )
    first = pd.read_csv(tiny_results / "seat_compensation" / "seats.csv")
    second = pd.read_csv(again / "seats.csv")
    pd.testing.assert_frame_equal(
        first[first["table"] == "normal-old-2p"].reset_index(drop=True), second
    )


def test_a_folder_played_with_other_arguments_is_replaced_only_with_force(tmp_path, capsys):
    """A table of an hour's play was replaced without --force when the study was run again
    with other arguments (QA): it is now refused in one line (by the folder's mark, before its
    sub-run's own record: test_study_runs), and --force plays it again."""
    out = tmp_path / "seats"
    argv = ["--tables", "hard-2p", "--solves", "none", "--workers", "1", "--quiet"]
    assert seat_compensation.main([*argv, "--games", "300", "--out", str(out)]) == 0
    record = json.loads((out / "hard-2p" / "arguments.json").read_text())
    assert record["games"] == 300 and record["resolved"][0] == repr(make_bot("hard"))
    status = subprocess.run(
        [sys.executable, "-m", "experiments.seat_compensation", *argv, "--games", "200"]
        + ["--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert status.returncode == 2 and status.stderr.count("\n") == 1, status.stderr
    assert "results played with games=300 (now 200): give another --out" in status.stderr
    assert pd.read_csv(out / "even.csv")["games_per_point"].tolist() == [300]
    assert seat_compensation.main([*argv, "--games", "200", "--force", "--out", str(out)]) == 0
    assert pd.read_csv(out / "even.csv")["games_per_point"].tolist() == [200]


@pytest.mark.parametrize("name", ["seat_compensation", "homie_ladder", "game_rewards"])
def test_notebook_executes(tiny_results, name, monkeypatch):
    monkeypatch.setenv("BARBARON_RESULTS", str(tiny_results))
    book = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    NotebookClient(
        book, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()
    errors = [
        o
        for c in book.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "error"
    ]
    assert not errors


def shown_text(book) -> list[str]:
    """Per code cell, the text its outputs show, in order (images, which differ in their bytes,
    left out; a stream comes in as many pieces as the kernel flushed)."""
    return [
        "".join(
            o.text if o.output_type == "stream" else o.get("data", {}).get("text/plain", "")
            for o in cell.outputs
        )
        for cell in book.cells
        if cell.cell_type == "code"
    ]


@pytest.mark.parametrize("name", ["seat_compensation", "homie_ladder", "game_rewards"])
def test_a_notebooks_stored_outputs_are_those_of_the_committed_results(name, monkeypatch):
    """A notebook showed the old Hard's tables beside results/ of the new (QA): its stored
    outputs must be what it shows when run on the committed results (rerun it and save)."""
    monkeypatch.delenv("BARBARON_RESULTS", raising=False)
    stored = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    fresh = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    NotebookClient(
        fresh, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()
    assert shown_text(fresh) == shown_text(stored)


SCRIPTS = sorted(
    p.stem
    for p in (Path(__file__).resolve().parents[1] / "experiments").glob("*.py")
    if p.stem not in ("__init__", "common")
)


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("bad", [["--games", "0"], ["--seed", "-1"], ["--bogus"]])
def test_a_study_refuses_bad_arguments_in_one_line(script, bad):
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", f"experiments.{script}", *bad],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
        timeout=120,
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr  # no usage dump either
    assert bad[0] in lines[0] or "unrecognized arguments" in lines[0], done.stderr


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_studys_help_names_its_defaults_as_a_user_gives_them(script):
    """--help named the default folders by this checkout's absolute path, and the studies'
    --workers defaulted to 1 or 2 where barbaron's commands take all cores (QA)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-m", f"experiments.{script}", "--help"],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
    )
    assert done.returncode == 0 and str(root) not in done.stdout, done.stdout
    if "--workers" in done.stdout:
        assert f"(default: all cores, here {os.cpu_count()})" in " ".join(done.stdout.split())


def test_the_sage_training_refuses_too_few_games_as_a_usage_error():
    from barbaron.errors import UsageError
    from experiments import train_sage

    with pytest.raises(UsageError, match="--games must be at least 12"):
        train_sage.main(["--games", "5", "--out", "/nonexistent/never-written.json"])


@pytest.mark.parametrize(
    "bad",
    [
        ["--generations", "0"],  # wrote the untrained start over the shipped weights
        ["--popsize", "1"],
        ["--sigma", "0"],
        ["--sigma", "-1"],
        ["--validate-every", "0"],
        ["--validation-games", "0"],
    ],
)
def test_the_policy_training_refuses_numbers_it_cannot_train_with(bad, capsys):
    from barbaron.errors import UsageError
    from experiments import train_policy

    with pytest.raises(UsageError, match=bad[0]):
        train_policy.main(bad)


@pytest.mark.parametrize(
    "bad, message",
    [
        (["--sweep-games", "10"], "not a multiple of the sweeps' 4 rotations"),
        (["--grid-games", "200"], "each policy gauntlet needs at least 352"),
        (["--games", "2"], "--games 2 is too few"),
        (["--tune-games", "4"], "--tune-games 4 must be a multiple .* at least 400"),
    ],
)
def test_the_ladder_refuses_game_counts_a_stage_cannot_play_before_playing(bad, message, tmp_path):
    from barbaron.errors import UsageError
    from experiments import homie_ladder

    with pytest.raises(UsageError, match=message):  # they failed hours into the study
        homie_ladder.main([*bad, "--out", str(tmp_path / "l")])
    assert not (tmp_path / "l").exists()


def test_the_ladders_notes_come_only_when_it_plays(tmp_path, capsys):
    """A note on one deal per lineup came before a refusal (two lines of bad input), and with
    --tune, which plays no such stage (QA)."""
    import argparse

    from barbaron.errors import UsageError
    from experiments import homie_ladder

    with pytest.raises(UsageError, match="--tune-games 4 must be"):  # checked after mc's size
        homie_ladder.main(["--mc-games", "400", "--tune-games", "4", "--out", str(tmp_path / "l")])
    assert ">>> note" not in capsys.readouterr().out
    notes = homie_ladder.check_game_counts(argparse.Namespace(
        games=4000, ladder_games=10**6, grid_games=10**6, mc="mc:rollouts=16", mc_games=400,
        tune_games=4000, tune_trials=4, sweep_games=4000,
    ))  # fmt: skip
    assert len(notes) == 1 and notes[0].startswith(">>> note: --mc-games 400 plays one deal")


def test_the_ladders_tune_takes_its_sizes_and_needs_a_ladder_first(tiny_results, tmp_path):
    """--tune without a ladder ended with exit 1 and no "error:", and its sizes could not be
    chosen (QA). Its tune.json says the command that runs it again, which the folder takes."""
    import shlex
    import shutil

    from barbaron.errors import UsageError

    with pytest.raises(UsageError, match="has no ratings.csv or presets.json: run the ladder"):
        homie_ladder.main(["--tune", "--out", str(tmp_path / "none")])
    out = tmp_path / "ladder"
    shutil.copytree(tiny_results / "homie_ladder", out)
    with pytest.raises(
        UsageError, match=r"no complete results .*were played with games=400 \(now 200000\)"
    ):
        homie_ladder.main(["--tune", "--out", str(out)])  # (other arguments: another folder)
    rerun = shlex.split(json.loads((tiny_results / "homie_ladder" / "summary.json").read_text())
                        ["command"])[3:]  # fmt: skip
    assert homie_ladder.main([*rerun, "--tune", "--workers", "1", "--out", str(out)]) == 0
    tune = json.loads((out / "tune.json").read_text())
    assert len(tune["trials"]) == 2 and tune["confirmation"]["games"] == 400
    assert tune["derivation"]["probe"].split("--games ")[1].startswith("400 ")
    said = shlex.split(tune["rerun"])
    assert said[3:-3] == rerun[:-2] and said[-3:] == ["--out", str(out), "--tune"]


def test_the_ladder_takes_in_only_a_tune_of_its_own_arguments(tmp_path, capsys):
    """A --force ladder of other sizes took in the tune.json of the ladder before it (QA): a
    tune is this ladder's when its "rerun" names the same options, in any order."""
    path = tmp_path / "tune.json"
    assert homie_ladder.this_ladders_tune(path, "python -m experiments.homie_ladder") is None
    rerun = "python -m experiments.homie_ladder --tune --rounds 15 --out /elsewhere"
    path.write_text(json.dumps({"rerun": rerun, "trials": [1], "best_spec": "normal"}))
    command = "python -m experiments.homie_ladder --rounds 15"
    assert homie_ladder.this_ladders_tune(path, command) == {"rerun": rerun, "best_spec": "normal"}
    assert homie_ladder.this_ladders_tune(path, command + " --games 8000") is None
    assert "tune.json is of other arguments" in capsys.readouterr().out


def test_the_ladder_refuses_a_bad_mc_spec_before_playing(tmp_path):
    from barbaron.errors import UsageError
    from experiments import homie_ladder

    with pytest.raises(UsageError, match="unknown bot 'bogus'"):
        homie_ladder.main(["--mc", "bogus", "--games", "40", "--out", str(tmp_path / "l")])
    assert not (tmp_path / "l").exists()


def test_a_training_script_makes_its_out_folder_and_refuses_a_bad_out_before_training(
    tmp_path,
):
    from barbaron.errors import UsageError
    from experiments import train_value

    weights = tmp_path / "new" / "folder" / "w.json"
    assert train_value.main(["--games", "20", "--out", str(weights)]) == 0
    # the games played: 20 asked rounds up to a lineup of 500 at each table size (it said 20, QA)
    assert json.loads(weights.read_text())["trained"]["games"] == 1500
    with pytest.raises(UsageError, match="is a folder: give the file to write"):
        train_value.main(["--games", "20", "--out", str(tmp_path)])


def test_the_ladder_takes_the_long_night(tmp_path, monkeypatch):
    """--rounds reaches every run of the ladder, whose folder is then named after it (only
    the seat and dial studies took the Long night, QA)."""
    calls = []

    class Stop(Exception):
        pass

    def first_run(function, out, **arguments):
        calls.append((out, arguments))
        raise Stop

    monkeypatch.setattr(homie_ladder, "run", first_run)
    monkeypatch.setattr(homie_ladder.common, "ROOT", tmp_path)
    with pytest.raises(Stop):
        homie_ladder.main(["--rounds", "15", "--mc", "none"])
    ((out, arguments),) = calls
    assert arguments["rounds"] == 15 and out.is_relative_to(
        tmp_path / "results" / "homie_ladder-15-rounds"
    )


def test_a_run_that_solves_nothing_leaves_no_earlier_solved_tables(tmp_path):
    """solved.csv and solved.png of an earlier run stayed beside a run with --solves none, as
    if they were its own (QA)."""
    argv = ["--tables", "hard-2p", "--games", "600", "--search-games", "800", "--workers", "1"]
    argv += ["--quiet", "--out", str(tmp_path)]
    assert seat_compensation.main(argv) == 0 and (tmp_path / "solved.csv").exists()
    with pytest.raises(UsageError, match=r"played with solves=\['hard-2p'\] \(now \[\]\)"):
        seat_compensation.main([*argv, "--solves", "none"])  # other solves: other arguments
    assert seat_compensation.main([*argv, "--solves", "none", "--force"]) == 0
    assert not (tmp_path / "solved.csv").exists() and not (tmp_path / "solved.png").exists()
    assert (tmp_path / "solved" / "hard-2p" / "summary.json").exists()  # its run is kept

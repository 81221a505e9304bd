"""The studies run from the command line on a tiny scale, and every notebook executes on them."""

from pathlib import Path

import nbformat
import pandas as pd
import pytest
from nbclient import NotebookClient

from experiments import game_rewards, homie_ladder, seat_compensation

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


@pytest.fixture(scope="module")
def tiny_results(tmp_path_factory):
    results = tmp_path_factory.mktemp("results")
    assert (
        seat_compensation.main(
            [
                "--games",
                "600",
                "--tables",
                "normal-2p,mixed-2p",
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


def test_studies_write_their_tables(tiny_results):
    even = pd.read_csv(tiny_results / "seat_compensation" / "even.csv")
    assert list(even["table"]) == ["normal-2p", "mixed-2p"]
    assert {"even_bonus", "even_ci_low", "fair_at_100", "seat1_needs"} <= set(even.columns)
    ones = pd.read_csv(tiny_results / "homie_ladder" / "one_vs_three.csv")
    assert len(ones) == 5 * 4
    spells = pd.read_parquet(tiny_results / "game_rewards" / "spells.parquet")
    assert (spells["tabs"] >= 0).all() and set(spells["how"]) <= {"buy", "takeover"}
    landings = pd.read_csv(tiny_results / "game_rewards" / "landings.csv")
    assert landings.groupby("turn")["exact"].sum().round(9).eq(1).all()


def test_a_rerun_reproduces_the_numbers_exactly(tiny_results, tmp_path):
    again = tmp_path / "again"
    assert (
        seat_compensation.main(
            [
                "--games",
                "600",
                "--tables",
                "normal-2p",
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
        first[first["table"] == "normal-2p"].reset_index(drop=True), second
    )


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

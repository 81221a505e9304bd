"""barbaron tournament: the Luce rating fit recovers known ratings (and its sandwich intervals
cover them), the designs are balanced, and the command plays, resumes and refuses bad input."""

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from barbaron import api
from barbaron.cli import main
from barbaron.errors import UsageError
from barbaron.stats import t_quantile
from barbaron.tournament import balanced_design, design, fit_luce, luce_shares

TRUE = np.array([0.0, 120.0, -150.0, 260.0, 40.0, -60.0])  # Elo points, bot 0 the anchor
LINEUPS = np.array(list(itertools.combinations(range(6), 4)))


def simulate(rng, deals, rotations=4):
    """Luce outcomes where every game of a deal shares one uniform number per rotation (as the
    lineups of a deal share its dice): each lineup is exactly Luce, but a deal's games are
    correlated, as in a real tournament. Returns the fit's inputs."""
    p = np.array([luce_shares(TRUE, lineup) for lineup in LINEUPS])  # (L, P)
    edges = np.cumsum(p, axis=1)
    u = rng.random((deals, rotations))
    winner = (u[:, :, None, None] >= edges[None, None, :, :]).sum(axis=3)  # (D, R, L)
    counts = np.zeros((deals, len(LINEUPS), 4))
    for position in range(4):
        counts[:, :, position] = (winner == position).sum(axis=1)
    per_bot = np.zeros((deals, len(TRUE)))
    for position in range(4):
        np.add.at(per_bot.T, LINEUPS[:, position], counts[:, :, position].T)
    return {
        "lineups": LINEUPS,
        "wins": counts.sum(axis=0),
        "games": np.full(len(LINEUPS), float(deals * rotations)),
        "bots": len(TRUE),
        "deals": deals,
        "deal_sum": per_bot.sum(axis=0),
        "deal_cross": per_bot.T @ per_bot,
        "plays": np.full(len(LINEUPS), float(rotations)),
    }


def test_two_bots_get_the_elo_curve():
    assert luce_shares([0, 200], [1, 0])[0] == pytest.approx(1 / (1 + 10 ** (-200 / 400)))
    shares = luce_shares([0, 100], [1, 0, 0, 0])  # one bot against three copies of another
    assert shares.sum() == pytest.approx(1) and shares[0] == pytest.approx(1 / (1 + 3 / 10**0.25))


def test_the_fit_returns_the_ratings_whose_predictions_are_the_observations():
    games = np.full(len(LINEUPS), 1000.0)
    wins = games[:, None] * np.array([luce_shares(TRUE, lineup) for lineup in LINEUPS])
    fit = fit_luce(LINEUPS, wins, games, len(TRUE), anchor=0)  # fractional wins, exactly Luce
    assert np.allclose(fit.ratings, TRUE, atol=1e-6)
    shifted = fit_luce(LINEUPS, wins, games, len(TRUE), anchor=3)
    assert np.allclose(shifted.ratings, TRUE - TRUE[3], atol=1e-6)


def test_the_fit_recovers_known_ratings_from_simulated_outcomes():
    rng = np.random.default_rng(7)
    fit = fit_luce(**simulate(rng, deals=20_000), anchor=0)
    assert fit.se[0] == 0 and np.all(fit.se[1:] < 12)
    assert np.all(np.abs(fit.ratings - TRUE) < 4 * np.maximum(fit.se, 1e-9))


def covered(fit: object) -> int:
    """How many of the bots other than the anchor have their true rating in their interval."""
    return sum(fit.ci(b)[0] <= TRUE[b] <= fit.ci(b)[1] for b in range(1, len(TRUE)))


def test_the_sandwich_intervals_cover_and_the_naive_ones_do_not():
    rng = np.random.default_rng(11)
    hits, naive, runs = 0, 0, 200
    for _ in range(runs):
        fit = fit_luce(**simulate(rng, deals=300), anchor=0)
        hits += covered(fit)
        naive += int((np.abs(fit.ratings - TRUE)[1:] <= 1.96 * fit.se_model[1:]).sum())
    assert 0.91 <= hits / (5 * runs) <= 0.99
    assert naive < hits  # games of one deal are not independent: the plain interval is short


def test_the_intervals_of_a_few_deals_still_cover():
    """With 10 deals (10 clusters) the normal sandwich covered 92% here (QA: 88-92% in a real
    tournament); scaled by deals/(deals-1), with Student's t on deals-1, it covers 95%."""
    rng = np.random.default_rng(3)
    fits = [fit_luce(**simulate(rng, deals=10), anchor=0) for _ in range(400)]
    fits = [fit for fit in fits if np.isfinite(fit.ratings).all()]  # (a bot that never won)
    assert len(fits) > 350 and fits[0].dof == 9
    assert 0.935 <= sum(map(covered, fits)) / (5 * len(fits)) <= 0.985


def test_a_bot_that_never_wins_is_at_minus_infinity_and_the_others_still_fit():
    games = np.full(len(LINEUPS), 1000.0)
    true = TRUE.copy()
    true[5] = -np.inf
    wins = games[:, None] * np.array([luce_shares(true, lineup) for lineup in LINEUPS])
    fit = fit_luce(LINEUPS, wins, games, len(TRUE), anchor=0)
    assert fit.ratings[5] == -np.inf and math.isnan(fit.se[5])
    assert np.allclose(fit.ratings[:5], TRUE[:5], atol=1e-6)
    with pytest.raises(ValueError, match="anchor"):
        fit_luce(LINEUPS, wins, games, len(TRUE), anchor=5)


def pair_counts(lineups, bots):
    count = np.zeros((bots, bots), dtype=int)
    for lineup in lineups:
        for a, b in itertools.combinations(lineup, 2):
            count[a, b] += 1
            count[b, a] += 1
    return count


@pytest.mark.parametrize("bots, size", [(9, 4), (12, 4), (10, 3), (16, 3), (13, 2)])
def test_designs_beyond_70_combinations_meet_every_pair_equally_often(bots, size):
    lineups = balanced_design(bots, size)
    assert len(lineups) <= math.comb(bots, size) and len(set(lineups)) == len(lineups)
    assert all(len(set(lineup)) == size for lineup in lineups)
    count = pair_counts(lineups, bots)
    assert len({count[a, b] for a, b in itertools.combinations(range(bots), 2)}) == 1
    if (bots, size) == (9, 4):
        assert len(lineups) == 18  # the (9, 4, 3) block design, not all 126 combinations


def test_small_pools_play_every_combination_and_a_gauntlet_only_its_lineups():
    assert design(6, 4) == list(itertools.combinations(range(6), 4))
    gauntlet = design(12, 4, gauntlet=3)
    assert all(3 in lineup for lineup in gauntlet)
    others = [b for b in range(12) if b != 3]
    count = pair_counts(gauntlet, 12)
    assert len({count[a, b] for a, b in itertools.combinations(others, 2)}) == 1
    assert len({count[3, b] for b in others}) == 1


# --- the command ----------------------------------------------------------------------------
POOL = ["easy", "normal", "greedy", "autopilot"]
ARGS = {"players": 3, "games": 4 * 1500, "seed": 5, "batch_size": 300}
ARGV = ["tournament", "--bots", *POOL, "--players", "3", "--games", "6000", "--seed", "5"]
ARGV += ["--batch-size", "300", "--quiet", "--workers", "1"]


@pytest.fixture(scope="module")
def in_memory():
    return api.tournament(POOL, **ARGS)


def test_tournament_in_memory(in_memory):
    result = in_memory
    s = result.summary
    assert isinstance(result, api.TournamentResult) and result.out is None
    assert len(s["design"]["lineups"]) == 4 and s["games"] == 6000 and result.games_total == 6000
    assert s["anchor"] == "easy" and s["ratings"][-1]["bot"] in POOL
    rating = {r["bot"]: r for r in s["ratings"]}
    assert rating["easy"]["rating"] == 0 and rating["easy"]["rating_ci"] == [0, 0]
    assert all(r["games"] == 4500 for r in s["ratings"])  # 3 of the 4 lineups
    assert set(result.ratings.columns) >= {"bot", "rating", "rating_ci_low", "rating_ci_high"}
    h2h = result.head_to_head
    assert np.allclose((h2h + h2h.T).to_numpy()[~np.eye(4, dtype=bool)], 1.0)
    assert np.isnan(h2h.to_numpy().diagonal()).all()
    calibration = result.calibration
    assert len(calibration) == 12 and s["calibration_mae"] == pytest.approx(
        calibration["error"].abs().mean()
    )
    for _, rows in calibration.groupby("lineup"):  # win shares of a lineup add up to 1
        assert rows["observed"].sum() == pytest.approx(1) == rows["predicted"].sum()
    shares = result.predict(["greedy", "easy", "easy", "easy"])  # never played: 4 players
    assert shares[0] > 0.5 and sum(shares) == pytest.approx(1)
    # a pool bot spelt otherwise is that bot, as --anchor takes it (QA: refused)
    assert result.predict(["greedy", "easy:buy=0.6", "easy", "easy"]) == shares
    with pytest.raises(UsageError, match="not a bot of this tournament"):
        result.predict(["hard", "easy"])
    for lineup in ([], ["easy"], ["easy"] * 5):
        with pytest.raises(UsageError, match="2, 3 or 4 players"):
            result.predict(lineup)


def test_the_command_line_writes_what_the_library_returns(in_memory, tmp_path, capsys):
    out = tmp_path / "t"
    assert main([*ARGV[:-1], "2", "--out", str(out)]) == 0  # two workers, shards on disk
    printed = capsys.readouterr().out
    assert "head to head" in printed and "mean absolute error" in printed
    on_disk = json.loads((out / "summary.json").read_text())
    assert on_disk == json.loads(json.dumps(in_memory.summary))  # head-to-head from the shards
    manifest = json.loads((out / "manifest.json").read_text())
    assert {"ratings.png", "calibration.png"} <= set(manifest["files"])
    assert (out / "summary.csv").read_text().startswith("bot,rating,rating_ci_low")
    assert main([*ARGV, "--out", str(out), "--force"]) == 0  # its own folder: replaced
    capsys.readouterr()
    assert main(["report", str(out)]) == 0


def test_ctrl_c_keeps_finished_units_and_resume_equals_an_uninterrupted_run(
    in_memory, tmp_path, capsys, monkeypatch
):
    from barbaron import run as run_module

    real = run_module.execute

    def execute(job, folder, *, on_unit=None, **options):
        def stop(result, totals):
            on_unit(result, totals)
            if result.unit == 2:
                raise KeyboardInterrupt
            return False

        return real(job, folder, on_unit=stop, **options)

    out = tmp_path / "r"
    monkeypatch.setattr(run_module, "execute", execute)
    assert main([*ARGV, "--out", str(out)]) == 130
    monkeypatch.setattr(run_module, "execute", real)
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--resume" in err
    assert Path(f"{out}.partial", "tallies").is_dir() and not out.exists()
    assert main([*ARGV, "--out", str(out), "--resume"]) == 0
    resumed = json.loads((out / "summary.json").read_text())
    assert resumed == json.loads(json.dumps(in_memory.summary))


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--bots", "easy"], "a pool of at least 2"),
        (["--bots", "easy", "normal", "easy"], "the same bot twice"),
        (["--bots", "normal", "normal:cushion=880"], "the same bot twice"),
        (
            ["--bots", "easy", "normal", "greedy", "--players", "4"],
            "--players 4 is more than the 3",
        ),
        (["--bots", "easy", "normal", "--players", "5"], "--players must be 2, 3 or 4"),
        (["--bots", "easy", "nrmal"], "did you mean 'normal'"),
        (["--bots", "easy", "normal", "--anchor", "hard", "--players", "2"], "--anchor 'hard'"),
        (["--bots", "easy", "normal", "--anchor", "nrmal"], "--anchor 'nrmal': unknown bot"),
        (["--bots", "easy", "normal", "--gauntlet", "NORMAL"], "--gauntlet 'NORMAL': unknown"),
        (
            ["--bots", "easy", "normal", "--players", "2", "--games", "1"],
            "too few for 1 lineup of 2 rotations each",
        ),
        (
            ["--bots", "easy", "normal", "--players", "2", "--games", "99999999999"],
            "--games 99,999,999,999 gives each of 1 lineup 99,999,999,998 games: at most",
        ),
    ],
)
def test_bad_input_is_one_line_exit_2_and_leaves_nothing(argv, message, tmp_path, capsys):
    out = tmp_path / "bad"
    assert main(["tournament", *argv, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err
    assert list(tmp_path.iterdir()) == []


def test_the_anchor_may_be_written_as_another_spec_of_a_pool_bot():
    """--anchor normal found no normal:cushion=880 in the pool, though the pool check calls
    them the same bot (QA)."""
    result = api.tournament(["easy", "normal:cushion=880"], anchor="normal", games=200, seed=1)
    assert result.summary["anchor"] == "normal:cushion=880"
    rating = {r["bot"]: r["rating"] for r in result.summary["ratings"]}
    assert rating["normal:cushion=880"] == 0 and rating["easy"] < 0
    # --gauntlet likewise: it was added as a second Normal, "the same bot twice" (QA)
    pool = ["normal", "hard", "greedy"]
    result = api.tournament(pool, gauntlet="normal:cushion=880", players=2, games=240, seed=1)
    assert result.summary["design"]["lineups"] == [["normal", "hard"], ["normal", "greedy"]]


def test_a_pool_smaller_than_four_plays_all_its_bots_at_each_table(tmp_path, capsys):
    """--players defaulted to 4 and refused the natural pool easy normal hard (QA); with one
    lineup the calibration says why it has nothing to say."""
    out = tmp_path / "t"
    argv = ["tournament", "--bots", "easy", "normal", "hard", "--games", "600", "--quiet"]
    assert main([*argv, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    assert {c["lineup"] for c in summary["calibration"]} == {"easy + normal + hard"}
    assert "nothing to calibrate" in printed and "mean absolute error" not in printed
    assert "--no-rotate" not in printed
    assert main([*argv, "--no-rotate", "--out", str(tmp_path / "fixed")]) == 0
    assert (
        "seats: --no-rotate played each lineup in the order given" in capsys.readouterr().out
    )  # (QA)


def test_gaps_between_neighbours_equal_the_ratings_anchored_at_the_lower_one():
    """Hard - Normal with its interval, without a second tournament anchored at Normal (QA):
    the gap from the covariance equals Hard's rating and interval there, on the same deals."""
    args = {"games": 6000, "seed": 5, "progress": False}
    at_easy = api.tournament(["easy", "normal", "hard"], **args).summary
    at_normal = api.tournament(["easy", "normal", "hard"], anchor="normal", **args).summary
    gap = next(g for g in at_easy["gaps"] if g["gap"] == "hard - normal")
    hard = next(r for r in at_normal["ratings"] if r["bot"] == "hard")
    assert [g["gap"] for g in at_easy["gaps"]] == ["normal - easy", "hard - normal"]
    assert gap["value"] == pytest.approx(hard["rating"], abs=1e-6)
    assert gap["ci"] == pytest.approx(hard["rating_ci"], abs=1e-4)
    assert at_easy["rating_covariance"]["bots"] == ["easy", "normal", "hard"]
    (spacing,) = at_easy["gap_differences"]  # (hard - normal) - (normal - easy), its interval
    rating = {r["bot"]: r["rating"] for r in at_easy["ratings"]}
    cov, w = np.array(at_easy["rating_covariance"]["matrix"]), np.array([1.0, -2.0, 1.0])
    value = rating["hard"] - 2 * rating["normal"] + rating["easy"]
    half = t_quantile(0.025, at_easy["deals"] - 1) * math.sqrt(w @ cov @ w)  # as "interval" says
    assert spacing["value"] == pytest.approx(value)
    assert spacing["ci"] == pytest.approx([value - half, value + half])


def test_infinite_gaps_read_back_as_printed(tmp_path, capsys):
    """summary.json keeps an infinite gap as null: report printed -inf or nan (review)."""
    out = tmp_path / "t"
    argv = ["tournament", "--bots", "miser", "hard", "shark", "--players", "3", "--games", "60"]
    assert main([*argv, "--quiet", "--out", str(out)]) == 0
    printed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  ")]
    assert main(["report", str(out)]) == 0
    again = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  ")]
    assert printed == again and any("+inf" in line for line in printed)
    assert any(line.endswith("-inf -") for line in printed)  # a gap difference


def strict(text: str):
    """JSON as a strict reader takes it: NaN and Infinity are not JSON."""
    return json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in summary.json"))


def test_an_anchor_that_never_won_hands_over_to_the_first_rated_bot(tmp_path, capsys):
    out = tmp_path / "t"
    argv = ["tournament", "--bots", "miser", "hard", "shark", "--players", "3", "--games", "60"]
    assert main([*argv, "--workers", "1", "--quiet", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "anchor: miser has no finite rating (it never won): hard is at 0 instead" in printed
    summary = strict((out / "summary.json").read_text())
    rating = {r["bot"]: r["rating"] for r in summary["ratings"]}
    assert summary["anchor"] == "hard" and rating["hard"] == 0 and rating["miser"] is None
    assert main(["report", str(out)]) == 0  # the nulls read back
    assert (out / "ratings.png").stat().st_size > 0
    from barbaron.plots import ratings_chart

    figure = ratings_chart(summary)  # miser is left out of the plot, and said to be (QA)
    label = figure.axes[0].get_xlabel()
    assert "not shown, never or always winning (rating -inf or +inf): miser" in label
    assert figure.axes[0].get_title().endswith("1 lineup of 3")


def test_without_any_finite_rating_the_fit_needs_no_anchor():
    lineups, games = np.array([[0, 1]]), np.array([10.0])
    fit = fit_luce(lineups, np.array([[10.0, 0.0]]), games, 2, anchor=None)
    assert list(fit.ratings) == [math.inf, -math.inf]
    with pytest.raises(ValueError, match="an anchor is needed"):
        fit_luce(lineups, np.array([[6.0, 4.0]]), games, 2, anchor=None)
    with pytest.raises(ValueError, match="the anchor has no finite rating"):
        fit_luce(lineups, np.array([[10.0, 0.0]]), games, 2, anchor=1)


def test_a_tournament_of_one_lineup_says_so_in_the_singular():
    """'1 lineups (every combination of 3 of the 3 bots), 30 games each' (QA)."""
    from barbaron.commands.tournament import tables

    result = api.tournament(["easy", "normal", "hard"], games=30, seed=1)
    assert (
        "\n1 lineup (every combination of 3 of the 3 bots), 30 games\n"
        in f"\n{tables(result.summary)}"
    )


CTRL_C_IN_SCIPYS_IMPORT = """
import os, signal, sys
import numpy as np
from barbaron.tournament import fit_luce

class CtrlCWhileLoading:  # a Ctrl-C that lands half-way through scipy.optimize's import
    def find_spec(self, name, path=None, target=None):
        if name == "scipy.optimize._minimize":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, CtrlCWhileLoading())
try:
    fit_luce(np.array([[0, 1]]), np.array([[3.0, 1.0]]), np.array([4.0]), 2)
except KeyboardInterrupt:  # raised once the import was whole
    print("interrupted", "scipy.optimize" in sys.modules)
"""


def test_a_ctrl_c_during_the_fits_scipy_import_leaves_scipy_whole():
    """Once, a Ctrl-C landing in scipy's import (a study's first fit) ended the run with
    "ImportError: initialization failed", exit 1: the import is now made with the signal held."""
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-c", CTRL_C_IN_SCIPYS_IMPORT], capture_output=True, text=True
    )
    assert run.stdout.split() == ["interrupted", "True"], run.stderr


def test_one_deal_gives_no_interval():
    """With one deal the sandwich has no spread between deals to measure: the intervals were
    of zero width (+262.8 [+262.8, +262.8], QA); now none, as play's interval of one deal."""
    result = api.tournament(["easy", "normal", "hard"], players=2, games=6, seed=1)
    assert result.summary["deals"] == 1
    for row in result.summary["ratings"]:
        if row["bot"] != "easy":  # (the anchor's 0 is exact)
            assert math.isnan(row["rating_se"])
            assert all(math.isnan(x) for x in row["rating_ci"])
    for gap in result.summary["gaps"]:
        assert all(math.isnan(x) for x in gap["ci"])
    more = api.tournament(["easy", "normal", "hard"], players=2, games=60, seed=1)
    assert more.summary["deals"] == 10
    assert all(r["rating_se"] > 0 for r in more.summary["ratings"] if r["bot"] != "easy")

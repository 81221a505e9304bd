"""The plots draw what their data holds: an interval where there is one point, checkpoints
where the SPRT's ratio was not taken, histogram bins of whole worth steps (QA findings)."""

import numpy as np
import pytest
from matplotlib.container import ErrorbarContainer

from barbaron import plots


def _seats(shares, half=0.01):
    return [{"win_share": s, "win_share_ci": [s - half, s + half]} for s in shares]


def test_one_seat_bonus_shows_every_seats_interval_side_by_side():
    figure = plots.seat_bonus_curve(
        [{"seat_bonus": 100, "seats": _seats([0.32, 0.33, 0.35])}], {"bonus": None}
    )
    ax = figure.axes[0]
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 3  # (a band of one point drew nothing: bare dots)
    xs = [bar.lines[0].get_xdata()[0] for bar in bars]
    assert xs == sorted(set(xs)) and list(ax.get_xticks()) == [100]


def test_a_sweep_of_one_number_shows_its_interval():
    point = {"value": 5, "win_share": 0.3, "win_share_ci": [0.28, 0.32]}
    ax = plots.sweep_curve([point], "cushion", "normal", ["greedy"]).axes[0]
    (bar,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    low, high = bar.lines[2][0].get_segments()[0][:, 1]
    assert (low, high) == pytest.approx((0.28, 0.32))


def test_an_sprt_ratio_not_taken_yet_marks_every_checkpoint():
    trace = [{"games": 4096 * (i + 1), "llr": None} for i in range(25)]
    ax = plots.sprt_trace(trace, (-2.94, 2.94)).axes[0]
    marked = ax.lines[1].get_xdata()
    assert len(marked) == 25 and ax.get_xlim()[1] >= 25 * 4096  # (one dot at 0 before)
    assert "not taken yet" in ax.get_legend().get_texts()[0].get_text()


def test_worth_bins_hold_whole_steps_of_worth():
    rng = np.random.default_rng(0)
    worth = {"a": 5 * rng.integers(0, 400, 5000), "b": 5 * rng.integers(100, 300, 5000)}
    ax = plots.worth_distribution(worth).axes[0]
    edges = np.unique(np.concatenate([p.get_xy()[:, 0] for p in ax.patches]))
    widths = np.diff(edges)
    assert np.allclose(widths % 5, 0) and widths.min() >= 5  # (32.5 wide: a saw-tooth)
    assert np.allclose((edges + 2.5) % 5, 0)  # centred on the values worths take


@pytest.mark.parametrize(
    "worth",
    [np.array([1000]), np.array([0, 0]), np.array([-20, 40, 1000]), np.array([0.5, 1700.25])],
)
def test_worth_histograms_of_odd_worths_span_them(worth):
    """One value, all zero, below zero, or not whole (a library caller's): the bins reach from
    the least worth to the 99.5th percentile (the longest tail is cut)."""
    ax = plots.worth_distribution({"a": worth}).axes[0]
    (patch,) = ax.patches
    edges = patch.get_xy()[:, 0]
    assert edges.min() <= worth.min() and np.percentile(worth, 99.5) <= edges.max()

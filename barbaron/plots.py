"""Plots of results: each function takes a summary (or games) and returns a matplotlib figure.

Figures are made without pyplot (no global figure manager, nothing to close, no GUI backend):
``figure.savefig(path)`` writes the PNG. A summary read back from ``summary.json`` (``barbaron
report``) holds None where a number is not finite: every number goes through :func:`_floats`.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from barbaron.params import fixed, interval, p_phrase, read_number
from barbaron.strategy import format_value


def _floats(values) -> np.ndarray:
    """``values`` (a number or nested lists of them) as a float array, None as nan."""
    return np.array(values, dtype=float)


def _axes(width: float, height: float):
    figure = Figure(figsize=(width, height))
    return figure, figure.subplots()


def _bars_with_intervals(ax, labels, rows, fair: float | None) -> None:
    means = _floats([r["win_share"] for r in rows])
    low, high = (means - _floats([r["win_share_ci"] for r in rows]).T) * [[1], [-1]]
    ax.bar(range(len(rows)), means, yerr=[low, high], capsize=6, color="#4c72b0")
    ax.set_xticks(range(len(rows)), labels, rotation=15, ha="right")
    if fair is not None:
        ax.axhline(fair, color="grey", linestyle="--", linewidth=1, label=f"fair share {fair:.3f}")
        ax.legend()
    ax.set_ylabel("win share (95% interval)")


def _line_with_band(ax, x, mean, low, high, **style) -> None:
    """Points joined by a line with their 95% intervals as a band, or as error bars where
    there is one point (a band of one point is not drawn at all: QA)."""
    if len(x) > 1:
        ax.plot(x, mean, marker="o", **style)
        ax.fill_between(x, low, high, alpha=0.2, color=ax.lines[-1].get_color())
    else:
        _error_bars(ax, x, mean, low, high, **style)


def _error_bars(ax, x, mean, low, high, **style) -> None:
    """Points with their 95% intervals as error bars (``low``, ``high``: the interval's ends)."""
    ax.errorbar(x, mean, yerr=[mean - low, high - mean], fmt="o", capsize=6, **style)


def bot_win_shares(arm: dict):
    """Bar chart: each row of the per-bot table (a studied bot apart from its field), win share
    with its interval."""
    fig, ax = _axes(7, 4)
    players = len(arm["seats"])
    labels = [b["bot"] + (f" ({b['role']})" if "role" in b else "") for b in arm["bots"]]
    _bars_with_intervals(ax, labels, arm["bots"], 1 / players)
    ax.set_title(f"Win share per bot ({arm['games']:,} games)")
    return fig


def compare_sides(summary: dict):
    """Bar chart: NEW's and BASE's own win shares (each in its own seat, against the same field
    on the same deals) with their intervals; the paired difference in the title."""
    fig, ax = _axes(7, 4)
    players = len(summary["seats"])
    labels = [f"NEW {summary['new']}", f"BASE {summary['base']}"]
    _bars_with_intervals(ax, labels, summary["own"], 1 / players)
    diff = summary["difference"]
    shown = f"{fixed(read_number(diff['win_share']), sign=True)} {interval(diff['win_share_ci'])}"
    ax.set_title(
        f"NEW - BASE: {shown}"
        f" ({summary['games']:,} games per side; field: {', '.join(summary['field'])})",
        fontsize=9,
    )
    return fig


def seat_win_shares(arm: dict):
    """Bar chart: each seat's win share with its interval."""
    fig, ax = _axes(6, 4)
    players = len(arm["seats"])
    _bars_with_intervals(ax, [f"seat {s['seat']}" for s in arm["seats"]], arm["seats"], 1 / players)
    p = _floats(arm["seat_balance"]["p_value"])
    rules = arm["rules"]
    coins = rules.get("seat_coins")  # None in the flat schedule (and in runs before it)
    flat = f"start coins {rules.get('start_coins', 1000)}, +{rules['seat_bonus']} per later seat"
    start = f"start coins {'/'.join(map(str, coins))}" if coins else flat
    ax.set_title(f"Win share per seat ({start}; balance test {p_phrase(float(p))})")
    return fig


def worth_distribution(worth_by_bot: dict[str, np.ndarray]):
    """Histograms of final worth, one per bot."""
    fig, ax = _axes(7, 4)
    values = np.concatenate(list(worth_by_bot.values()))
    low = min(0, values.min())
    top = max(max(np.percentile(w, 99.5) for w in worth_by_bot.values()), low + 1)
    # bins of a whole number of the steps worths come in (5 coins in the standard game), each
    # centred on those values: other widths held one value more or less in turn (a saw-tooth)
    whole = np.array_equal(values, np.round(values))
    step = int(np.gcd.reduce(np.abs(values).astype(np.int64))) if whole else 0
    if step:
        width = step * math.ceil((top - low) / 60 / step)
        bins = np.arange(low - step / 2, top + width, width)
    else:  # (worths of a library caller's own that are not whole: even bins)
        bins = np.linspace(low, top, 60)
    for bot, worth in worth_by_bot.items():
        ax.hist(worth, bins=bins, histtype="step", density=True, linewidth=1.5, label=bot)
    ax.set_xlabel("final worth")
    ax.set_ylabel("density")
    ax.legend()
    ax.set_title("Distribution of final worth")
    return fig


def seat_bonus_curve(points: list[dict], even: dict):
    """Seat win share against seat bonus: a line per seat, bands for the 95% intervals."""
    fig, ax = _axes(7, 4.5)
    bonus = np.array([p["seat_bonus"] for p in points])
    players = len(points[0]["seats"])
    for seat in range(players):
        mean = _floats([p["seats"][seat]["win_share"] for p in points])
        low, high = _floats([p["seats"][seat]["win_share_ci"] for p in points]).T
        beside = (seat - (players - 1) / 2) * (len(bonus) == 1)  # (one bonus: bars side by side)
        _line_with_band(ax, bonus + beside, mean, low, high, label=f"seat {seat}")
    if len(bonus) == 1:
        ax.set_xticks(bonus)
        ax.set_xlim(bonus[0] - players / 2 - 1, bonus[0] + players / 2 + 1)
    ax.axhline(1 / players, color="grey", linestyle="--", linewidth=1)
    if np.isfinite(_floats(even["bonus"])):
        ax.axvline(
            even["bonus"], color="black", linestyle=":", label=f"even at {even['bonus']:.0f}"
        )
    ax.set_xlabel("seat bonus (coins per later seat)")
    ax.set_ylabel("win share (95% interval)")
    ax.legend()
    ax.set_title("Seat win share against the seat bonus")
    return fig


def seat_coins_search(summary: dict):
    """``seats --solve``: each seat's win share (on the search's deals) and start coins at
    every iteration, and the solution's win shares on fresh deals with their 95% intervals."""
    figure = Figure(figsize=(11, 4.5))
    shares, coins = figure.subplots(1, 2)
    rows = summary["iterations"]
    x = np.array([r["iteration"] for r in rows])
    players = len(summary["seat_coins"])
    confirmed = summary["confirmation"]["seats"]
    for seat in range(players):
        (line,) = shares.plot(
            x,
            _floats([r["seats"][seat]["win_share"] for r in rows]),
            marker="o",
            label=f"seat {seat}",
        )
        share = _floats(confirmed[seat]["win_share"])
        low, high = _floats(confirmed[seat]["win_share_ci"])
        shares.errorbar(
            [x[-1] + 1 + 0.08 * (seat - (players - 1) / 2)],  # side by side
            [share],
            yerr=[[share - low], [high - share]],
            fmt="s",
            color=line.get_color(),
            capsize=5,
        )
        coins.plot(x, [r["seat_coins"][seat] for r in rows], marker="o", color=line.get_color())
    shares.axhline(1 / players, color="grey", linestyle="--", linewidth=1)
    shares.set_xticks([*x, x[-1] + 1], [*(str(i) for i in x), "fresh\ndeals"], fontsize=8)
    shares.set_xlabel("iteration (search deals), then the solution on fresh deals")
    shares.set_ylabel("win share (95% interval on fresh deals)")
    shares.legend(fontsize=8)
    shares.set_title(
        f"Win share per seat: largest deviation "
        f"{summary['confirmation']['largest_deviation_pp']:.2f} points on fresh deals"
    )
    coins.set_xticks(x)
    coins.set_xlabel("iteration")
    coins.set_ylabel("start coins")
    coins.set_title(f"Start coins: solution {'/'.join(map(str, summary['seat_coins']))}")
    return figure


def sweep_curve(points: list[dict], param: str, bot: str, field: list[str]):
    """Win share of the swept bot against the parameter, with its 95% band."""
    fig, ax = _axes(7, 4)
    values = [p["value"] for p in points]
    mean = _floats([p["win_share"] for p in points])
    low, high = _floats([p["win_share_ci"] for p in points]).T
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        _line_with_band(ax, np.array(values, dtype=float), mean, low, high, color="#4c72b0")
    else:  # values that are not all numbers (none, true, a bot spec): one place each
        x = np.arange(len(values))
        _error_bars(ax, x, mean, low, high, color="#4c72b0")
        ax.set_xticks(x, [format_value(v) for v in values], rotation=15, ha="right")
    ax.set_xlabel(f"{bot}: {param}")
    ax.set_ylabel("win share (95% interval)")
    ax.set_title(f"Sweep of {param} against {', '.join(field)}", fontsize=10)
    return fig


def sprt_trace(trace: list[dict], bounds: tuple[float, float]):
    """The SPRT's log-likelihood ratio as games accumulate, with its decision bounds."""
    fig, ax = _axes(7, 4)
    games, llr = np.array([t["games"] for t in trace]), _floats([t["llr"] for t in trace])
    ax.plot([0, *games], [0, *llr], marker=".")
    if (untaken := np.isnan(llr)).any():  # (QA: one dot at 0 on an axis of +-0.04 games)
        ax.plot(games[untaken], np.zeros(untaken.sum()), "x", color="grey",
                label="not taken yet: too few deals came out differently")  # fmt: skip
        ax.legend(loc="lower right", fontsize="small")
    for bound, name, side in zip(
        bounds, ("accept H0", "accept H1"), ("top", "bottom"), strict=True
    ):
        ax.axhline(bound, color="grey", linestyle="--", linewidth=1)  # H0's name below its line
        ax.text(0.01, bound, name, transform=ax.get_yaxis_transform(), va=side)
    ax.set_xlabel("games per arm")
    ax.set_ylabel("log-likelihood ratio")
    ax.set_title("SPRT trace")
    return fig


def ratings_chart(summary: dict):
    """A tournament's ratings, best at the top, with their 95% intervals."""
    rows = [r for r in summary["ratings"] if np.isfinite(_floats(r["rating"]))][::-1]
    unrated = [r["bot"] for r in summary["ratings"] if not np.isfinite(_floats(r["rating"]))]
    fig, ax = _axes(7, 0.9 + 0.45 * max(len(rows), 2) + 0.3 * bool(unrated))
    y = np.arange(len(rows))
    rating = _floats([r["rating"] for r in rows])
    low, high = (rating - _floats([r["rating_ci"] for r in rows]).reshape(-1, 2).T) * [[1], [-1]]
    ax.errorbar(rating, y, xerr=[low, high], fmt="o", color="#4c72b0", capsize=5)
    for yi, r in zip(y, rows, strict=True):
        ax.annotate(
            f"{r['rating']:+.0f}",
            (r["rating"], yi),
            textcoords="offset points",
            xytext=(0, 7),
            ha="center",
            fontsize=8,
        )
    ax.set_yticks(y, [r["bot"] for r in rows])
    ax.axvline(0, color="grey", linestyle="--", linewidth=1)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    at_zero = f"{summary['anchor']} = 0" if summary["anchor"] else "no bot has a finite rating"
    unrated_text = (
        f"\nnot shown, never or always winning (rating -inf or +inf): {', '.join(unrated)}"
        if unrated
        else ""
    )
    ax.set_xlabel(f"rating (Elo-like, {at_zero}; 95% interval){unrated_text}")
    lineups = len(summary["design"]["lineups"])
    ax.set_title(
        f"Ratings: {summary['games']:,} games, {lineups} lineup{'s' * (lineups != 1)} "
        f"of {summary['players']}"
    )
    return fig


def calibration_chart(summary: dict):
    """Every lineup played: observed win share (95% interval) against the ratings' prediction,
    one colour per bot."""
    fig, ax = _axes(6, 6)
    rows = summary["calibration"]
    bots = list(dict.fromkeys(r["bot"] for r in rows))
    for bot in bots:
        mine = [r for r in rows if r["bot"] == bot]
        predicted = _floats([r["predicted"] for r in mine])
        observed = _floats([r["observed"] for r in mine])
        low, high = (observed - _floats([r["observed_ci"] for r in mine]).T) * [[1], [-1]]
        ax.errorbar(predicted, observed, yerr=[low, high], fmt="o", markersize=4, label=bot)
    top = np.nanmax(_floats([[r["predicted"], r["observed"], 0.01] for r in rows])) * 1.05
    ax.plot([0, top], [0, top], color="grey", linestyle="--", linewidth=1)
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_xlabel("predicted win share (from the ratings)")
    ax.set_ylabel("observed win share (95% interval)")
    ax.set_title(
        f"Calibration: mean absolute error {summary['calibration_mae']:.4f} "
        f"(max {summary['calibration_max']:.4f})"
    )
    ax.legend(fontsize=8)
    return fig


def tuning_history(summary: dict):
    """A tuning run: each trial's win share on the tuning deals, the best so far, the target
    (if any) and the best setting's confirmation on fresh deals."""
    fig, ax = _axes(7, 4)
    rows = summary["trials"]
    trial = np.array([r["trial"] for r in rows])
    share = _floats([r["win_share"] for r in rows])
    ax.plot(trial, share, "o", color="#4c72b0", markersize=4, label="trial (tuning deals)")
    best, best_share = None, []
    for r in rows:
        if best is None or r["best_so_far"] != best["best_so_far"]:
            best = r
        best_share.append(_floats(best["win_share"]))
    ax.step(trial, best_share, where="post", color="#dd8452", label="best so far")
    if summary.get("target") is not None:
        ax.axhline(summary["target"], color="grey", linestyle="--", linewidth=1, label="target")
    confirmed = _floats(summary["confirmation"]["best"]["win_share"])
    low, high = _floats(summary["confirmation"]["best"]["win_share_ci"])
    ax.errorbar(
        [trial[-1] + 1.5],
        [confirmed],
        yerr=[[confirmed - low], [high - confirmed]],
        fmt="s",
        color="#55a868",
        capsize=5,
        label="best, fresh deals",
    )
    if "base" in summary["confirmation"]:
        ax.axhline(
            _floats(summary["confirmation"]["base"]["win_share"]),
            color="#c44e52",
            linestyle=":",
            linewidth=1,
            label="as given, fresh deals",
        )
    ax.set_xlabel("trial")
    ax.set_ylabel("win share")
    ax.set_title(f"Tuning {summary['bot']} against {', '.join(summary['field'])}")
    ax.legend(fontsize=8)
    return fig

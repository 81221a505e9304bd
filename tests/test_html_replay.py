"""`barbaron replay --html`: a self-contained page whose last turn shows the engine's worths
(checked in headless Chromium when one is installed), win probabilities, bad input."""

import json
import os
import re
import shutil
import subprocess
import time

import numpy as np
import pytest
from conftest import CONFORMANCE_FILES

from barbaron.cli import main
from barbaron.registry import make_bot
from barbaron.replay import replay_game
from barbaron.rules import Rules

BOTS = ["hard", "normal", "easy", "hard"]


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def page_data(path):
    text = path.read_text()
    found = re.search(r'<script id="game-data" type="application/json">(.*?)</script>', text, re.S)
    return json.loads(found.group(1))


def engine_worth(seed=3, game=12):
    outcome, _ = replay_game(Rules(), [make_bot(b) for b in BOTS], seed, game)
    return list(outcome.worth)


@pytest.fixture(scope="module")
def seeded_page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("html")
    argv = ["replay", "--seed", "3", "--game", "12", "--bots", *BOTS, "--html"]
    assert main([*argv, str(folder / "warm.html")]) == 0  # mc's kernels compiled (a cold cache)
    path = folder / "game.html"
    began = time.perf_counter()
    assert main([*argv, str(path)]) == 0
    return path, time.perf_counter() - began


def test_the_page_is_self_contained_and_holds_the_game(seeded_page):
    path, seconds = seeded_page
    assert seconds < 20  # the default 200 rollouts per turn start, 4 players
    text = path.read_text()
    assert not re.search(r'(src|href)="(https?:)?//', text)  # no network
    assert "<svg" in text and 'id="slider"' in text
    data = page_data(path)
    frames = data["frames"]
    assert len(frames) == 41  # 40 turn starts and closing time
    assert frames[-1]["worth"] == engine_worth()
    for s, w in enumerate(engine_worth()):  # the result is visible without stepping
        assert f'id="final-worth-{s}">{w}<' in text
    probs = np.array([f["winprob"] for f in frames], dtype=float)
    assert np.allclose(probs.sum(axis=1), 1) and (probs >= 0).all()
    assert probs[-1].tolist() == [float(w == max(engine_worth())) for w in engine_worth()]
    assert probs[0, 0] > probs[0, 2]  # Hard in the first seat is likelier to win than Easy


def test_a_scenario_file_and_a_run_game_make_pages_too(tmp_path, capsys):
    page = tmp_path / "case.html"
    status, out, err = run(capsys, "replay", str(CONFORMANCE_FILES[1]), "--html", str(page),
                           "--rollouts", "20")  # fmt: skip
    assert status == 0, err
    expect = json.loads(CONFORMANCE_FILES[1].read_text())["expect"]
    assert page_data(page)["frames"][-1]["worth"] == expect["worth"]
    again = ["replay", str(CONFORMANCE_FILES[1]), "--html", str(page), "--rollouts", "0"]
    status, out, err = run(capsys, *again)
    assert status == 2 and "exists; add --force" in err  # the page is kept
    assert page_data(page)["frames"][0]["winprob"][0] is not None
    status, out, err = run(capsys, *again, "--force")
    assert status == 0 and page_data(page)["frames"][0]["winprob"][0] is None


def test_a_name_holding_a_placeholder_is_shown_as_it_is(tmp_path, capsys):
    data = json.loads(CONFORMANCE_FILES[1].read_text()) | {"name": "evil __DATA__ __NOTE__"}
    scenario, page = tmp_path / "evil.json", tmp_path / "evil.html"
    scenario.write_text(json.dumps(data))
    assert run(capsys, "replay", str(scenario), "--html", str(page), "--rollouts", "0")[0] == 0
    title = re.search(r"<title>(.*?)</title>", page.read_text()).group(1)
    assert "evil __DATA__ __NOTE__" in title and "{" not in title  # not the game's JSON
    assert page_data(page)["frames"][-1]["worth"] == data["expect"]["worth"]


def test_a_page_or_a_saved_game_never_replaces_what_is_not_a_regular_file(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for argv in (
        ["replay", str(CONFORMANCE_FILES[1]), "--html", str(fifo), "--force"],
        ["duel", "--homies", "easy", "--save", str(fifo), "--force"],
    ):
        status, _, err = run(capsys, *argv)
        assert status == 2 and "not a regular file" in err, err
        assert fifo.is_fifo()
    for argv in (  # a name ending in / failed with exit 1 once the page was drawn (QA)
        ["replay", str(CONFORMANCE_FILES[1]), "--html", f"{tmp_path / 'page.html'}/"],
        ["duel", "--homies", "easy", "--save", f"{tmp_path / 'game.json'}/"],
    ):
        status, _, err = run(capsys, *argv)
        assert status == 2 and "names a folder (it ends in /)" in err, err


def test_a_scenario_naming_an_unknown_bot_names_the_file(tmp_path, capsys):
    data = json.loads(CONFORMANCE_FILES[1].read_text())
    players = data["rules"].get("players", len(data["policies"]))
    scenario = tmp_path / "duel.json"
    scenario.write_text(json.dumps(data | {"bots": ["human", *["nobody"] * (players - 1)]}))
    status, _, err = run(capsys, "replay", str(scenario), "--html", str(tmp_path / "d.html"))
    assert status == 2 and err.startswith(f"error: {scenario}: its bots: unknown bot 'nobody'")


def test_a_scenarios_plugins_are_not_run_their_seats_roll_out_as_hard(tmp_path, capsys):
    """A file you were sent must not run code that came with it (QA: the page imported it)."""
    plugin = tmp_path / "evil.py"
    marker = tmp_path / "ran"
    plugin.write_text(
        f"open({str(marker)!r}, 'w').close()\n"
        "from barbaron.bots.greedy import Greedy\n"
        "class Evil(Greedy):\n    pass\n"
    )
    data = json.loads(CONFORMANCE_FILES[1].read_text())
    players = data["rules"].get("players", len(data["policies"]))
    assert players == 4
    # a file, a file inside another bot, a class of a module imported already (review: it built
    # ctypes.CDLL), and a name the refused file might have registered
    bots = [f"{plugin}:Evil", f"mc:own={plugin}:Evil;rollouts=2", "ctypes:CDLL:name=x", "evil"]
    scenario = tmp_path / "sent.json"
    scenario.write_text(json.dumps(data | {"bots": bots}))
    page = tmp_path / "sent.html"
    status, _, err = run(capsys, "replay", str(scenario), "--html", str(page), "--rollouts", "8")
    assert status == 0 and not marker.exists(), err
    assert err.startswith(f"note: the win chart plays seats 0, 1, 2, 3 as hard: {scenario} names")
    assert "seats played by hard, hard, hard, hard" in page.read_text()
    status, _, err = run(capsys, "replay", str(scenario), "--html", str(page), "--force",
                         "--rollouts", "0")  # fmt: skip
    assert status == 0 and err == "" and not marker.exists()  # (no bots built, nothing to say)
    scenario.write_text(json.dumps(data | {"bots": [bots[0], "hard:risk=banana", *bots[2:]]}))
    status, _, err = run(capsys, "replay", str(scenario), "--html", str(page), "--force")
    assert status == 2 and err.startswith(f"error: {scenario}: its bots: bot 'hard:risk=banana'")
    assert not marker.exists()  # (review: a built-in's bad parameter was played as hard too)


def find_browser():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def browser_dom(path, profile, turn="last"):
    """The page's DOM opened at ``turn``, as a headless browser's script leaves it."""
    browser = find_browser()
    if browser is None:
        pytest.skip("no headless browser: install Debian's 'chromium' package to run this test")
    return subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
         "--dump-dom", f"{path.as_uri()}#turn={turn}"],
        capture_output=True, text=True, timeout=50,
    ).stdout  # fmt: skip


def test_in_a_real_browser_the_last_turn_shows_the_engines_worths(seeded_page, tmp_path):
    path, _ = seeded_page
    dom = browser_dom(path, tmp_path)
    shown = dict(re.findall(r'id="worth-(\d)"[^>]*>(-?\d+)<', dom))
    assert shown, "the page's script did not fill the players' table"
    assert [int(shown[str(s)]) for s in range(len(BOTS))] == engine_worth()
    assert 'data-frame="40"' in dom  # the script stepped to the last turn


def test_in_a_real_browser_an_arrow_key_on_the_slider_moves_one_turn(seeded_page, tmp_path):
    """With the slider focused, its own arrow-key step came on top of the page's: every key
    skipped a turn (QA). The page's handler takes the key (preventDefault), as a script can
    see: a browser's default action follows only a real key, not a scripted one."""
    path, _ = seeded_page
    probe = tmp_path / "probe.html"
    script = (
        "<script>const probed = document.getElementById('slider'); probed.focus();"
        "const press = (alt) => {const key = new KeyboardEvent('keydown', {key: 'ArrowRight', "
        "altKey: alt, bubbles: true, cancelable: true}); probed.dispatchEvent(key); "
        "return key.defaultPrevented;};"
        "document.body.setAttribute('data-taken', press(false) + ',' + press(true));</script>"
    )
    probe.write_text(path.read_text().replace("</body>", script + "</body>"))
    dom = browser_dom(probe, tmp_path / "profile", turn=0)
    assert 'data-taken="true,false"' in dom  # taken from the slider; Alt+arrow left to the browser
    assert 'data-frame="1"' in dom  # one turn on (Alt+Right moved nothing)


def test_in_a_real_browser_the_coins_axis_fits_a_million(tmp_path, capsys):
    """Its labels were whole numbers: 1050299 ran off the chart's left edge (QA)."""
    page = tmp_path / "rich.html"
    argv = ["replay", "--seed", "1", "--game", "0", "--bots", "hard", "normal", "easy"]
    argv += ["--seat-coins", "0,5,1000000", "--html", str(page)]
    assert run(capsys, *argv)[0] == 0
    dom = browser_dom(page, tmp_path / "profile")
    chart = re.search(r'<svg id="moneychart".*?</svg>', dom, re.S)
    assert chart, "the page's script drew no coins chart"
    labels = re.findall(r'text-anchor="end"[^>]*>([^<]+)<', chart.group(0))
    assert any(label.endswith("M") for label in labels), labels
    assert all(len(label) <= 6 for label in labels if label[0].isdigit()), labels


def test_in_a_real_browser_without_rollouts_no_win_chart_and_round_ticks(tmp_path, capsys):
    """--rollouts 0 drew a win chart with no lines; the coins axis was ticked at 579, 1158,
    1736, 2315; 'slot 5 of 39' read as 39 slots where there are 40 (QA)."""
    page = tmp_path / "plain.html"
    argv = ["replay", "--seed", "3", "--game", "12", "--bots", *BOTS, "--rollouts", "0"]
    assert run(capsys, *argv, "--html", str(page))[0] == 0
    dom = browser_dom(page, tmp_path / "profile", turn=5)
    assert re.search(r'<div id="wins" style="display: none;">', dom), "a win chart is shown"
    assert re.search(r'id="frame-label">slot 5 \(of 0 to 39\)<', dom)
    chart = re.search(r'<svg id="moneychart".*?</svg>', dom, re.S).group(0)
    ticks = [int(t) for t in re.findall(r'text-anchor="end"[^>]*>(\d+)<', chart)]
    assert ticks == [i * ticks[1] for i in range(5)] and ticks[1] % 50 == 0, ticks
    worth = engine_worth()
    assert max(worth) <= ticks[-1] < 1.5 * max(worth), (ticks, worth)  # (the top near the most)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--html", "/nonexistent-folder/x.html"], "does not exist"),
        (["--html", "/"], "is a folder"),
        (["--html", "x.html", "--rollouts", "-1"], "--rollouts must be from 0 to 4,096, got -1"),
        (["--html", "x.html", "--rollouts", "100000000"], "--rollouts must be from 0 to 4,096"),
        (["--html", "x.html", "--log"], "without --log"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, "replay", "--seed", "1", "--game", "0", "--bots", "hard",
                           "hard", *argv)  # fmt: skip
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())


def test_html_draws_one_file(capsys, tmp_path):
    files = [str(f) for f in CONFORMANCE_FILES[:2]]
    status, _, err = run(capsys, "replay", *files, "--html", str(tmp_path / "x.html"))
    assert status == 2 and "one game" in err


def test_a_runs_game_is_titled_with_its_own_number_and_slots_count_from_0(tmp_path, capsys):
    """A run's game 199 was titled 'game 99 of seed 0' (its deal), and the turn title said
    slot N + 1 where files and errors say N (QA)."""
    out, page = tmp_path / "r", tmp_path / "g.html"
    argv = ["play", "--bots", "easy", "hard", "--games", "8", "--quiet", "--out", str(out)]
    assert run(capsys, *argv)[0] == 0
    status, _, err = run(
        capsys, "replay", "--run", str(out), "--game", "5", "--html", str(page), "--rollouts", "0"
    )
    assert status == 0, err
    title = re.search(r"<title>(.*?)</title>", page.read_text()).group(1)
    assert f"game 5 of {out} (deal 2, seed 0)" in title
    frames = page_data(page)["frames"]
    assert frames[3]["title"].endswith("(slot 3)") and frames[0]["title"].endswith("(slot 0)")

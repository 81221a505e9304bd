"""The tournament harness: statistics against independent computations, determinism across
workers, batch sizes and backends, resume, results folders, and bad input."""

import dataclasses
import json
import math
import os
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import adjusted_interval, ctrl_c_after_unit, interrupted_at

from barbaron import harness
from barbaron.cli import main
from barbaron.harness import Arm, Job, run_units
from barbaron.results import RunFolder
from barbaron.rules import Rules
from barbaron.run import execute
from barbaron.stats import (
    Z95,
    bent_crossing,
    estimate,
    even_point,
    hotelling_sf,
    seat_balance,
    zero_crossing,
)
from barbaron.strategy import Strategy

LINEUP = ["hard", "normal", "normal", "easy"]


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """One small rotated run, shared by several tests."""
    out = tmp_path_factory.mktemp("runs") / "play"
    assert (
        main(
            [
                "play",
                "--bots",
                *LINEUP,
                "--games",
                "4000",
                "--seed",
                "5",
                "--out",
                str(out),
                "--workers",
                "1",
                "--batch-size",
                "1000",
                "--quiet",
            ]
        )
        == 0
    )
    return out


def test_play_writes_the_results_folder(played):
    assert sorted(p.name for p in played.iterdir()) == [
        "games.parquet",
        "manifest.json",
        "seats.png",
        "summary.csv",
        "summary.json",
        "win_shares.png",
        "worth.png",
    ]
    manifest = json.loads((played / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["job"]["seed"] == 5
    assert manifest["job"]["arms"][0]["bots"] == LINEUP and manifest["games_per_second"] > 0
    games = pd.read_parquet(played / "games.parquet")
    assert list(games.columns) == [
        "game",
        "deal",
        "rotation",
        "seat",
        "bot",
        "start_coins",
        "coins",
        "worth",
        "win_share",
        "bars",
    ]
    assert len(games) == 4000 * 4 and games["game"].nunique() == 4000
    assert (games["game"] == games["deal"] * 4 + games["rotation"]).all()
    per_game = games.groupby("game")["win_share"].sum()
    assert np.allclose(per_game, 1)  # R19: shared wins are split
    # every bot sits in every seat equally often (normal fills two places in the lineup)
    counts = games.groupby(["bot", "seat"], observed=True).size().unstack()
    assert (counts.loc["normal"] == 2 * counts.loc["hard"]).all()
    assert counts.loc["hard"].nunique() == 1


def test_summary_matches_an_independent_computation(played):
    summary = json.loads((played / "summary.json").read_text())
    games = pd.read_parquet(played / "games.parquet")
    for bot in summary["bots"]:
        rows = games[games["bot"] == bot["bot"]]
        per_deal = rows.groupby("deal")["win_share"].mean()  # pairing: average within a deal
        mean = per_deal.mean()
        assert bot["win_share"] == pytest.approx(mean, abs=1e-12)
        copies = LINEUP.count(bot["bot"])  # (their mean: one game's win at most)
        expected = adjusted_interval(per_deal.to_numpy(), 0.0, 1 / copies, 4, 0.025)
        assert bot["win_share_ci"] == pytest.approx(expected, abs=1e-12)
        half = Z95 * per_deal.std(ddof=1) / math.sqrt(len(per_deal))  # the plain interval's
        if 0.1 < mean * copies < 0.9:  # a common share at 1,000 deals: about the plain one
            assert expected[1] - expected[0] == pytest.approx(2 * half, rel=0.02)
        assert bot["mean_worth"] == pytest.approx(rows["worth"].mean())
        share = rows["worth"] / games.groupby("game")["worth"].transform("sum")[rows.index]
        assert bot["worth_share"] == pytest.approx(share.mean(), abs=1e-8)
    for seat in summary["seats"]:
        per_deal = games[games["seat"] == seat["seat"]].groupby("deal")["win_share"].mean()
        assert seat["win_share"] == pytest.approx(per_deal.mean(), abs=1e-12)
    csv = pd.read_csv(played / "summary.csv")
    assert list(csv["bot"]) == ["hard", "normal", "easy"]


def test_replay_run_game_equals_its_row(played, capsys):
    games = pd.read_parquet(played / "games.parquet")
    g = 1234
    status, out, err = run(capsys, "replay", "--run", played, "--game", g)
    assert status == 0 and "deal 308, rotation 2" in err
    assert json.loads(out)["coins"] == games[games["game"] == g]["coins"].tolist()
    assert "warning" not in err  # the same code: the recorded game
    status, out, _ = run(capsys, "replay", "--run", played, "--game", g, "--check")
    assert status == 0 and "agree" in out and "the replay equals the run's record" in out


def test_replay_check_compares_the_replay_with_the_runs_record(tmp_path, capsys):
    """A bot whose answers depend on its row's place in the batch plays another game alone:
    both engines agree on the replay, and --check said nothing was wrong (QA)."""
    plugin = tmp_path / "rows.py"
    plugin.write_text(
        "import numpy as np\nfrom barbaron import rules as R\n"
        "from barbaron.strategy import Strategy\n"
        "class EvenRowBuys(Strategy):\n"
        "    def buy(self, view, games, bars):\n"
        "        ok = view.coins[games, view.seat] >= R.PRICE_TABLE[bars]\n"
        "        return ok & (np.arange(games.size) % 2 == 0)\n"
    )
    out = tmp_path / "r"
    bots = [f"{plugin}:EvenRowBuys", "greedy"]
    assert run(capsys, "play", "--bots", *bots, "--games", 400, "--seed", 5, "--out", out)[0] == 0
    verdicts = []
    for g in range(0, 40, 2):
        status, text, _ = run(capsys, "replay", "--run", out, "--game", g, "--check")
        verdicts.append((status, "the replay DIFFERS from the run's record" in text))
    assert (1, True) in verdicts  # (a game whose rows fell the same way still equals)
    assert all(v in ((0, False), (1, True)) for v in verdicts)


def test_replay_check_shows_what_differs(played, tmp_path, capsys):
    """It printed the worths whatever differed: two equal lists where coins did (QA)."""
    edited = tmp_path / "edited"
    shutil.copytree(played, edited)
    shard = sorted((edited / "games.parquet").glob("*.parquet"))[0]
    rows = pd.read_parquet(shard)
    game = int(rows["game"].iloc[0])
    first = rows.index[(rows["game"] == game) & (rows["seat"] == 0)][0]
    rows.loc[first, "coins"] = 12345
    rows.to_parquet(shard)
    status, text, _ = run(capsys, "replay", "--run", edited, "--game", game, "--check")
    assert status == 1 and "the run recorded coins [12345, " in text
    assert "the replay gives [" in text and "worths" not in text


def test_replay_of_a_damaged_manifest_says_what_it_lacks(played, tmp_path, capsys):
    """A missing key ended the line in a bare 'seed', and no arms in '--arm must be one of  for
    this run' (QA)."""
    damaged = tmp_path / "damaged"
    shutil.copytree(played, damaged)
    recorded = json.loads((damaged / "manifest.json").read_text())
    job = recorded["job"]
    for change, words in [
        ({k: v for k, v in job.items() if k != "seed"}, "manifest.json lacks 'seed'"),
        (job | {"arms": []}, "manifest.json lists no lineup"),
        (job | {"arms": [{"label": "play", "rules": {}}]}, "manifest.json lacks 'bots'"),
        (job | {"seed": "x"}, "deals, rotations and seed must be whole numbers"),
        (job | {"arms": [{"label": "play", "bots": 3, "rules": {}}]}, "bots must be a list"),
    ]:
        (damaged / "manifest.json").write_text(json.dumps(recorded | {"job": change}))
        status, _, err = run(capsys, "replay", "--run", damaged, "--game", 0)
        assert status == 2 and words in err and len(err.strip().splitlines()) == 1, err


def test_replay_run_prints_a_command_that_replays_the_same_game(tmp_path, capsys):
    """With the run's rules and a nested spec quoted for the shell: the printed command alone
    plays the recorded game."""
    import shlex

    out = tmp_path / "r"
    nested = "hard:margin=-100;risk=0"
    bots = ["normal", f"mc:rollouts=2,own={nested}", "easy"]
    rules = ["--rounds", "4", "--seat-coins", "300,5,0"]
    assert run(capsys, "play", "--bots", *bots, "--games", 12, *rules, "--out", out)[0] == 0
    status, recorded, err = run(capsys, "replay", "--run", out, "--game", 5)
    printed = shlex.split(err.splitlines()[0].partition("the same as: ")[2])
    assert status == 0 and printed[printed.index("--seat-coins") + 1] == "300,5,0"
    assert printed[:2] == ["barbaron", "replay"]  # ready to paste
    status, alone, _ = run(capsys, *printed[1:])
    assert status == 0 and json.loads(alone) == json.loads(recorded)
    worths = pd.read_parquet(out / "games.parquet").query("game == 5")["worth"].tolist()
    assert json.loads(alone)["worth"] == worths


def test_replay_run_warns_when_the_code_has_changed(played, tmp_path, capsys):
    copy = tmp_path / "older"
    shutil.copytree(played, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["code"] = "0" * len(manifest["code"])  # played by another version of barbaron
    (copy / "manifest.json").write_text(json.dumps(manifest))
    status, _, err = run(capsys, "replay", "--run", copy, "--game", 7)
    assert status == 0 and "warning: barbaron's code has changed" in err


def test_identical_bots_get_equal_win_shares(tmp_path, capsys):
    out = tmp_path / "same"
    status, _, _ = run(
        capsys,
        "play",
        "--bots",
        "normal",
        "normal:cushion=880",
        "normal",
        "normal:cushion=880",
        "--games",
        "4000",
        "--out",
        out,
        "--quiet",
    )
    summary = json.loads((out / "summary.json").read_text())
    a, b = summary["bots"]
    assert status == 0 and a["win_share"] == pytest.approx(0.25) == b["win_share"]
    # rounded to nearest, not down (a bias of 1.2e-10 a game, library QA)
    assert abs(a["worth_share"] - 0.25) < 1e-11 and abs(b["worth_share"] - 0.25) < 1e-11


def test_the_same_bot_in_every_seat_plays_each_deal_once(tmp_path, capsys):
    """Its rotations would repeat identical games: 8,000 games were 2,000 deals played four
    times (QA), as seats already knew."""
    out = tmp_path / "one"
    status, printed, _ = run(capsys, "play", "--bots", *["easy"] * 4, "--games", 400, "--out", out)
    games = pd.read_parquet(out / "games.parquet")
    assert status == 0 and "each deal was played once" in printed
    assert (games["rotation"] == 0).all() and games["deal"].nunique() == 400
    assert json.loads((out / "summary.json").read_text())["deals"] == 400
    argv = ["play", "--bots", "normal", "normal:cushion=880", "--games", 40, "--quiet"]
    status, printed, _ = run(capsys, *argv, "--out", tmp_path / "aa")  # spelt two ways: A/A
    assert status == 0 and "normal and normal:cushion=880 are the same bot" in printed
    # report prints the tables again, with the note (it left it out: QA)
    assert "each deal was played once" in run(capsys, "report", out)[1]
    assert (
        "normal and normal:cushion=880 are the same bot"
        in run(capsys, "report", tmp_path / "aa")[1]
    )
    status, printed, _ = run(capsys, *argv, "--no-rotate", "--out", tmp_path / "asked")
    assert status == 0 and "same bot" not in printed  # no rotation asked for: nothing repeated


DUCK = """import numpy as np
class Duck:
    def __init__(self, cushion=0):
        self.cushion = cushion
    def upgrade(self, view, games):
        return np.full(games.size, -1, dtype=np.int8)
    def buy(self, view, games, bars):
        return view.coins[games, view.seat] >= 80 + self.cushion
    def takeover(self, view, games, bars):
        return np.zeros(games.size, dtype=bool)
"""  # a plugin class of its own, not a Strategy


def test_a_plugin_class_of_its_own_is_the_same_bot_only_with_the_same_arguments(tmp_path, capsys):
    """A strategy that does not subclass Strategy has no ``params``: two cushions of it were
    "the same bot" (the note, and summary.json, said so of 76% against 24%; a tournament would
    have refused the pool), QA. Its arguments are read from its spec instead."""
    plugin = tmp_path / "duck.py"
    plugin.write_text(DUCK)
    duck = f"{plugin}:Duck"
    argv = ["play", "--bots", duck, f"{duck}:cushion=100000", "--games", 40, "--quiet"]
    status, printed, _ = run(capsys, *argv, "--out", tmp_path / "two")
    summary = json.loads((tmp_path / "two" / "summary.json").read_text())
    assert status == 0 and "same bot" not in printed and summary["identical_seats"] is None
    argv = ["play", "--bots", duck, f"{duck}:cushion=0", "--games", 40, "--quiet"]
    status, printed, _ = run(capsys, *argv, "--out", tmp_path / "one")
    assert status == 0 and f"{duck} and {duck}:cushion=0 are the same bot" in printed
    argv = ["tournament", "--bots", duck, f"{duck}:cushion=100000", "greedy", "--games", 120]
    assert run(capsys, *argv, "--quiet", "--out", tmp_path / "t")[0] == 0


OWN_PARAMS = """
import numpy as np
from barbaron import rules as R
from barbaron.strategy import Strategy


class Net(Strategy):
    \"\"\"Keeps its weights in params.\"\"\"

    def __init__(self, scale=1.0):
        self.params = {"w": np.full(12, scale), "b": np.zeros(1)}

    def buy(self, view, games, bars):
        return self.params["w"][bars] * 100 <= view.coins[games, view.seat]


class Config(Strategy):
    \"\"\"Keeps a config of its own in params.\"\"\"

    def __init__(self, cushion=100):
        self.cushion = cushion
        self.params = [cushion, "v1"]

    def buy(self, view, games, bars):
        return view.coins[games, view.seat] - R.PRICE_TABLE[bars] >= self.cushion
"""


def test_a_strategy_may_keep_its_own_params(tmp_path, capsys):
    """``params`` is a common name for a bot's weights or config; barbaron read the constructor's
    arguments from it: weights made play, seats and tournament end in a traceback (an array
    compared), one config for two cushions made them "the same bot", and a list broke tune
    and the checker (QA). The arguments now come from barbaron's own copy."""
    from barbaron.testing import check_strategy

    plugin = tmp_path / "own_params.py"
    plugin.write_text(OWN_PARAMS)
    net, config = f"{plugin}:Net", f"{plugin}:Config"
    argv = ["play", "--bots", net, f"{net}:scale=2", "--games", 40, "--quiet"]
    status, printed, err = run(capsys, *argv, "--out", tmp_path / "net")
    assert status == 0 and "same bot" not in printed and "Traceback" not in err
    argv = ["play", "--bots", f"{config}:cushion=0", f"{config}:cushion=1200", "--games", 40]
    status, printed, _ = run(capsys, *argv, "--quiet", "--out", tmp_path / "config")
    summary = json.loads((tmp_path / "config" / "summary.json").read_text())
    assert status == 0 and "same bot" not in printed and summary["identical_seats"] is None
    argv = ["play", "--bots", config, f"{config}:cushion=100", "--games", 40, "--quiet"]
    status, printed, _ = run(capsys, *argv, "--out", tmp_path / "same")
    assert status == 0 and f"{config} and {config}:cushion=100 are the same bot" in printed
    argv = ["tournament", "--bots", f"{config}:cushion=0", f"{config}:cushion=1200", "greedy"]
    assert run(capsys, *argv, "--games", 120, "--quiet", "--out", tmp_path / "t")[0] == 0
    argv = ["tune", "--bot", f"{config}:cushion=250", "--param", "cushion=0:500", "--field"]
    argv += ["greedy", "--trials", 2, "--games-per-trial", 40, "--quiet", "--workers", 1]
    assert run(capsys, *argv, "--out", tmp_path / "tune")[0] == 0
    trials = json.loads((tmp_path / "tune" / "summary.json").read_text())["trials"]
    assert trials[0]["values"] == {"cushion": 250}  # the bot as given comes first
    module = {}
    exec(compile(OWN_PARAMS, str(plugin), "exec"), module)
    assert repr(module["Config"](7)) == "Config:cushion=7"
    assert check_strategy(module["Config"](7), games=200).passed


def test_a_frozen_dataclass_or_a_params_property_builds(tmp_path, capsys):
    """Strategy.__new__ set ``params`` on every bot: a frozen dataclass and a class with a
    read-only ``params`` property could not be built at all (QA)."""
    plugin = tmp_path / "odd.py"
    plugin.write_text(
        "from dataclasses import dataclass\n"
        "from barbaron.strategy import Strategy\n"
        "@dataclass(frozen=True)\n"
        "class Frozen(Strategy):\n"
        "    cushion: int = 100\n"
        "    def buy(self, view, games, bars):\n"
        "        return view.coins[games, view.seat] >= 80 + self.cushion\n"
        "class Prop(Strategy):\n"
        "    params = property(lambda self: {'weights': [1, 2]})\n"
        "    def __init__(self, cushion=100):\n"
        "        self.cushion = cushion\n"
        "    def buy(self, view, games, bars):\n"
        "        return view.coins[games, view.seat] >= 80 + self.cushion\n"
    )
    frozen, prop = f"{plugin}:Frozen", f"{plugin}:Prop"
    argv = ["play", "--bots", f"{frozen}:cushion=0", f"{prop}:cushion=0", "--games", 40]
    assert run(capsys, *argv, "--quiet", "--out", tmp_path / "odd")[0] == 0
    argv = ["play", "--bots", prop, f"{prop}:cushion=900", "--games", 40, "--quiet"]
    status, printed, _ = run(capsys, *argv, "--out", tmp_path / "two")
    assert status == 0 and "same bot" not in printed


def test_an_illegal_decision_names_its_game_as_games_parquet_does(tmp_path, capsys):
    """The engine knows the deal only: "game 3" was deal 3, game 6 or 7 of the file (QA)."""
    plugin = tmp_path / "bad.py"
    plugin.write_text(
        "import numpy as np\n"
        "from barbaron.strategy import Strategy\n"
        "class RivalsBarInDeal3(Strategy):\n"
        "    def buy(self, view, games, bars):\n"
        "        return np.ones(games.size, dtype=bool)\n"
        "    def upgrade(self, view, games):\n"
        "        rival = (view.owner[games] >= 0) & (view.owner[games] != view.seat)\n"
        "        bad = (view.game[games] == 3) & rival.any(axis=1)\n"
        "        return np.where(bad, rival.argmax(axis=1), -1)\n"
    )
    argv = ["play", "--bots", f"{plugin}:RivalsBarInDeal3", "greedy", "--games", 20]
    status, _, err = run(capsys, *argv, "--quiet", "--out", tmp_path / "bad")
    found = re.search(r"\(deal 3, rotation (\d): game (\d+), as games.parquet numbers games\)", err)
    assert status == 1 and found, err
    assert int(found[2]) == 3 * 2 + int(found[1])
    # with workers, deal 0 is played first to load the bots and kernels: named alike (QA)
    plugin.write_text(plugin.read_text().replace("== 3", "== 0"))
    argv = [*argv, "--workers", 2, "--batch-size", 5, "--quiet", "--out", tmp_path / "bad2"]
    status, _, err = run(capsys, *argv)
    assert status == 1 and "(deal 0, rotation 0: game 0, as games.parquet numbers games)" in err


def test_a_dataclass_fields_default_factory_is_not_an_argument():
    """Its signature's default is dataclasses' sentinel: params and repr showed '<factory>'
    (QA). The field is left out; its spec builds the same bot."""

    @dataclasses.dataclass(repr=False)
    class Cushions(Strategy):
        cushions: list = dataclasses.field(default_factory=lambda: [100, 200])
        extra: int = 3

    bot = Cushions()
    assert bot.params == {"extra": 3} and repr(bot) == "Cushions:extra=3"
    assert Cushions(cushions=[5]).params == {"cushions": [5], "extra": 3}


def test_tune_starts_from_a_plugin_class_of_its_own_as_given(tmp_path, capsys):
    """Its first trial read the arguments from ``params``, which such a class has not (QA)."""
    plugin = tmp_path / "duck.py"
    plugin.write_text(DUCK)
    argv = ["tune", "--bot", f"{plugin}:Duck:cushion=100", "--param", "cushion=0:500"]
    argv += ["--field", "greedy", "--trials", 2, "--games-per-trial", 40, "--quiet"]
    assert run(capsys, *argv, "--workers", 1, "--out", tmp_path / "tune")[0] == 0
    trials = json.loads((tmp_path / "tune" / "summary.json").read_text())["trials"]
    assert trials[0]["values"] == {"cushion": 100}


def test_results_do_not_depend_on_workers_batch_size_or_backend(played, tmp_path, capsys):
    other = tmp_path / "two-workers"
    status, _, _ = run(
        capsys,
        "play",
        "--bots",
        *LINEUP,
        "--games",
        "4000",
        "--seed",
        "5",
        "--out",
        other,
        "--workers",
        "2",
        "--batch-size",
        "333",
        "--quiet",
    )
    assert status == 0
    assert pd.read_parquet(other / "games.parquet").equals(
        pd.read_parquet(played / "games.parquet")
    )
    assert json.loads((other / "summary.json").read_text()) == json.loads(
        (played / "summary.json").read_text()
    )


def test_dask_backend_gives_the_same_games(played, tmp_path, capsys):
    distributed = pytest.importorskip("distributed")  # the [dev] and [dask] extras install it
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        out = tmp_path / "dask"
        status, _, err = run(
            capsys,
            "play",
            "--bots",
            *LINEUP,
            "--games",
            "4000",
            "--seed",
            "5",
            "--out",
            out,
            "--backend",
            "dask",
            "--scheduler",
            cluster.scheduler_address,
            "--batch-size",
            "1000",
            "--quiet",
        )
        worker = next(iter(cluster.scheduler_info["workers"]))  # given for the scheduler's (QA)
        refused = run(capsys, "play", "--bots", *LINEUP, "--out", tmp_path / "w",
                      "--backend", "dask", "--scheduler", worker)  # fmt: skip
    assert status == 0, err
    assert pd.read_parquet(out / "games.parquet").equals(pd.read_parquet(played / "games.parquet"))
    assert refused[0] == 2 and refused[2] == (
        f"error: cannot reach the dask scheduler at {worker}: it answers as a dask worker: give "
        "its scheduler's address\n"
    )


ENDS_ITS_WORKER = """
import os
from barbaron.bots.greedy import Greedy


class EndsItsWorker(Greedy):
    def buy(self, view, games, bars):
        if ((view.game[games] >= 8) & (view.game[games] < 16)).any():  # unit 1's deals
            os._exit(3)
        return super().buy(view, games, bars)
"""


def test_a_unit_that_ends_its_dask_workers_ends_the_run_in_one_line(tmp_path, capsys):
    """With joblib's dask backend a unit that killed its worker left the run waiting for ever
    (QA): dask runs it again on another worker, allowed-failures times, then the run ends in
    one line naming the unit, and keeps the units that finished."""
    distributed = pytest.importorskip("distributed")  # the [dev] and [dask] extras install it
    import dask

    (tmp_path / "ends.py").write_text(ENDS_ITS_WORKER)
    bots = [f"{tmp_path / 'ends.py'}:EndsItsWorker", "greedy"]
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 1}),
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
    ):
        argv = ["--games", "64", "--batch-size", "16", "--quiet", "--out", tmp_path / "d"]
        argv += ["--backend", "dask", "--scheduler", cluster.scheduler_address]
        status, _, err = run(capsys, "play", "--bots", *bots, *argv)
    assert status == 1 and err.count("\n") == 1, err
    assert "unit 1 (deals 8..15) ended the process of each of the 2 dask workers" in err
    kept = sorted(int(f.stem[5:]) for f in (tmp_path / "d.partial" / "tallies").glob("*.npz"))
    assert kept[0] == 0 and 1 not in kept, kept  # (and any after it that finished in time)
    assert "--resume" in err


SLEEPS_THEN_ENDS = """
import os, time
from barbaron.bots.greedy import Greedy


class SleepsThenEnds(Greedy):
    def buy(self, view, games, bars):
        if (view.game[games] < 8).any():  # unit 0's deals
            time.sleep(2)  # while the worker's other threads finish units
            os._exit(3)
        return super().buy(view, games, bars)
"""


def test_units_a_dying_dask_worker_finished_are_kept(tmp_path, capsys):
    """Results are fetched as units finish, not in unit order: the one worker, of four
    threads, that held units 1.. when unit 0 killed it lost them all (QA)."""
    distributed = pytest.importorskip("distributed")
    import dask

    (tmp_path / "ends.py").write_text(SLEEPS_THEN_ENDS)
    bots = [f"{tmp_path / 'ends.py'}:SleepsThenEnds", "greedy"]
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=4, processes=True, dashboard_address=None
        ) as cluster,
    ):
        argv = ["--games", "64", "--batch-size", "16", "--quiet", "--out", tmp_path / "d"]
        argv += ["--backend", "dask", "--scheduler", cluster.scheduler_address]
        status, _, err = run(capsys, "play", "--bots", *bots, *argv)
    assert status == 1 and "unit 0 (deals 0..7) ended the process of the dask worker" in err, err
    kept = sorted(int(f.stem[5:]) for f in (tmp_path / "d.partial" / "tallies").glob("*.npz"))
    assert kept and 0 not in kept, kept


HOLDS_MEMORY = """
import numpy as np
from barbaron.bots.greedy import Greedy

HELD = []


class HoldsMemory(Greedy):
    def buy(self, view, games, bars):
        if not HELD:  # most of the worker's limit, for good
            HELD.append(np.ones(300 * 2**20 // 8))
        return super().buy(view, games, bars)
"""


def test_a_run_whose_dask_workers_all_stay_paused_ends_in_one_line(tmp_path, capsys, monkeypatch):
    """dask gives a worker paused for its memory no work: the run waited for ever (QA)."""
    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr(harness, "DASK_CHECK_SECONDS", 0.5)
    monkeypatch.setattr(harness, "DASK_PAUSED_SECONDS", 3.0)
    (tmp_path / "holds.py").write_text(HOLDS_MEMORY)
    bots = [f"{tmp_path / 'holds.py'}:HoldsMemory", "greedy"]
    import dask

    memory = {"target": False, "spill": False, "pause": 0.45, "terminate": False}
    with (
        dask.config.set({f"distributed.worker.memory.{k}": v for k, v in memory.items()}),
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
            memory_limit="1GB",  # paused at 450 MB: the bot holds 300 beside the worker's own
        ) as cluster,
    ):  # fmt: skip
        argv = ["--games", "400", "--batch-size", "100", "--quiet", "--out", tmp_path / "d"]
        argv += ["--backend", "dask", "--scheduler", cluster.scheduler_address]
        status, _, err = run(capsys, "play", "--bots", *bots, *argv)
    assert status == 1 and err.count("\n") == 1, err
    assert "every dask worker has been paused for 3 s, its memory above" in err
    assert "--resume" in err


def test_a_dask_worker_of_other_code_or_other_plugin_files_plays_nothing(tmp_path, monkeypatch):
    """A worker of modified rules, or one whose folder held another file of a relative
    plugin's name, played other games under the run's name, exit 0 (QA): each unit on a dask
    worker first compares the worker's code and plugin files with the run's own."""
    from barbaron import harness
    from barbaron.errors import RunFailed
    from barbaron.results import code_hash, job_plugin_hashes

    plugin = tmp_path / "mine.py"
    plugin.write_text("from barbaron.bots.greedy import Greedy\nclass Mine(Greedy):\n    pass\n")
    monkeypatch.chdir(tmp_path)
    job = Job(
        arms=(Arm("play", ("mine.py:Mine", "easy"), Rules(players=2)),),
        games=8,
        seed=0,
        batch_size=8,
    )
    here = (code_hash(), job_plugin_hashes(job))
    assert harness._as_here(harness.play_unit, here, job, 0).deals.size == 4  # the same: plays
    with pytest.raises(RunFailed, match=r"^the dask worker on .* runs other barbaron code"):
        harness._as_here(harness.play_unit, ("0" * 64, here[1]), job, 0)
    plugin.write_text(plugin.read_text() + "# another file of that name\n")
    with pytest.raises(RunFailed, match=r"reads other plugin files than this process \(mine.py"):
        harness._as_here(harness.play_unit, here, job, 0)


def test_an_interrupted_run_resumes_to_the_same_result(played, tmp_path, capsys):
    out = tmp_path / "resumed"
    job = Job(arms=(Arm("play", tuple(LINEUP), Rules()),), games=4000, seed=5, batch_size=1000)
    interrupted_at(out, job, 1)
    partial = tmp_path / "resumed.partial"
    assert json.loads((partial / "manifest.json").read_text())["status"] == "partial"
    assert not out.exists()
    status, _, err = run(capsys, "report", partial)  # (it printed a raw [Errno 2], QA)
    assert status == 2 and err.startswith(f"error: {partial} holds an interrupted run"), err
    assert "--resume" in err and len(err.strip().splitlines()) == 1
    status, _, err = run(
        capsys,
        "play",
        "--bots",
        *LINEUP,
        "--games",
        "4000",
        "--seed",
        "5",
        "--out",
        out,
        "--batch-size",
        "1000",
        "--quiet",
    )
    assert status == 2 and "--resume" in err  # a partial run is never silently overwritten
    status, stdout, _ = run(
        capsys,
        "play",
        "--bots",
        *LINEUP,
        "--games",
        "4000",
        "--seed",
        "5",
        "--out",
        out,
        "--batch-size",
        "1000",
        "--quiet",
        "--resume",
    )
    assert status == 0 and "from before the resume" in stdout
    assert pd.read_parquet(out / "games.parquet").equals(pd.read_parquet(played / "games.parquet"))
    assert not partial.exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--bots", "hard"], "--bots takes 2 to 4 bot specs"),
        (["--bots", *["hard"] * 5], "--bots takes 2 to 4 bot specs"),
        (["--bots", "hard", "nobody"], "unknown bot 'nobody'"),
        (["--bots", "hard", "normal:cushin=3"], "unknown parameter 'cushin'"),
        (["--bots", "hard", "normal", "--games", "0"], "--games must be from 1 to"),
        (["--bots", "hard", "normal", "--games", "7"], "not a multiple of the 2 rotations"),
        (["--bots", "hard", "normal", "--seed", "-1"], "--seed must be a whole number from 0"),
        (["--bots", "hard", "normal", "--rounds", "0"], "rounds must be between 1 and 1000"),
        (["--bots", "hard", "normal", "--start-coins", "-5"], "--start-coins must be"),
        (
            ["--bots", "hard", "normal", "--players", "3"],
            "unrecognized arguments: --players 3 (see 'barbaron play --help')",
        ),
        (["--bots", "hard", "normal", "--backend", "dask"], "needs --scheduler"),
        (
            ["--bots", "hard", "normal", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1"],
            # at once (it waited dask's 10 s of retries first)
            "cannot reach the dask scheduler at tcp://127.0.0.1:1: connection refused",
        ),
        (
            ["--bots", "hard", "normal", "--backend", "dask", "--scheduler", "tcp://no.invalid:1"],
            "cannot reach the dask scheduler at tcp://no.invalid:1: unknown host 'no.invalid'",
        ),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys, argv, message):
    out = tmp_path / "out"
    status, stdout, err = run(capsys, "play", *argv, "--out", out, "--quiet")
    assert status == 2 and len(err.splitlines()) == 1 and message in err, err
    assert not out.exists() and not (tmp_path / "out.partial").exists()


def test_a_port_that_never_answers_as_a_dask_scheduler_is_one_line(tmp_path, capsys, monkeypatch):
    """It accepts the connection and says nothing (a web server waiting for a request): the
    run ends in one line instead of waiting for ever, and draws no progress bar before it
    (it drew one at 0% for as long as it waited, QA)."""
    import socket

    from barbaron import harness

    pytest.importorskip("distributed")  # the [dev] and [dask] extras install it
    monkeypatch.setattr(harness, "SCHEDULER_ANSWER_SECONDS", 2.0)
    with socket.create_server(("127.0.0.1", 0)) as silent:
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        argv = ["--bots", "hard", "normal", "--backend", "dask", "--scheduler", address]
        status, _, err = run(capsys, "play", *argv, "--out", tmp_path / "out")
    assert status == 2 and len(err.splitlines()) == 1 and "playing" not in err, err
    assert f"cannot reach the dask scheduler at {address}: no dask scheduler answered" in err


def test_an_existing_out_is_refused_unless_force(played, capsys):
    status, _, err = run(capsys, "play", "--bots", *LINEUP, "--out", played, "--quiet")
    assert status == 2 and "exists" in err and "--force" in err


def test_compare_of_a_bot_with_itself_is_exactly_even(tmp_path, capsys):
    out = tmp_path / "cmp"
    status, stdout, _ = run(
        capsys,
        "compare",
        "normal",
        "normal:cushion=880",
        "--max-games",
        "2000",
        "--out",
        out,
        "--quiet",
    )
    summary = json.loads((out / "summary.json").read_text())
    assert status == 0 and summary["difference"]["win_share"] == 0
    assert "no significant difference" in stdout


def test_compare_sprt_stops_early_when_the_answer_is_clear(tmp_path, capsys):
    out = tmp_path / "sprt"
    status, stdout, _ = run(
        capsys,
        "compare",
        "hard",
        "miser",
        "--elo0",
        "0",
        "--elo1",
        "10",
        "--max-games",
        "200000",
        "--out",
        out,
    )
    summary = json.loads((out / "summary.json").read_text())
    assert status == 0 and summary["sprt"]["decision"] == "H1"
    assert summary["games"] < 200000 and "LLR" in stdout
    assert summary["difference"]["win_share_ci"][0] > 0
    assert (out / "sprt.png").exists()


def test_seats_finds_where_the_seats_come_out_even(tmp_path, capsys):
    out = tmp_path / "seats"
    status, stdout, _ = run(
        capsys,
        "seats",
        "--bots",
        "threshold",
        "--players",
        "2",
        "--bonus",
        "0:400:100",
        "--games",
        "3000",
        "--out",
        out,
        "--quiet",
    )
    summary = json.loads((out / "summary.json").read_text())
    slopes = [p["slope"] for p in summary["points"]]
    assert status == 0
    assert slopes == sorted(slopes)  # more bonus, more wins for the later seats
    even = summary["even"]["bonus"]
    assert even == pytest.approx(zero_crossing(np.array([0, 100, 200, 300, 400]), np.array(slopes)))
    assert (out / "seat_bonus.png").exists() and "come out even" in stdout
    csv = pd.read_csv(out / "summary.csv")
    assert len(csv) == 5 * 2 and set(csv.columns) >= {"seat_bonus", "seat", "win_share"}
    assert "would win about" not in stdout  # two seats: a slope of 0 is even


def test_seats_says_when_a_bonus_leaves_the_balance_untestable(tmp_path, capsys):
    """A million coins a seat: the last seat always wins, no variation to test; the table
    printed 'nan' (QA). Its p is now the most a balanced table's chance of that can be: the
    other three never win in 10 deals, 14 x (1/4)^10 (review)."""
    argv = ["seats", "--bots", "greedy", "easy", "hard", "normal", "--bonus", "0,1000000"]
    status, out, _ = run(capsys, *argv, "--games", 40, "--quiet", "--out", tmp_path / "s")
    row = next(line for line in out.splitlines() if line.startswith("1000000"))
    assert status == 0 and "nan" not in out and row.split()[-2] == f"{14 * 0.25**10:.2e}", out
    argv = ["seats", "--bots", "greedy", "--bonus", "0,50"]  # one bot: 4 deals, too few
    status, out, _ = run(capsys, *argv, "--games", 4, "--quiet", "--out", tmp_path / "t")
    assert status == 0 and "(balance p '-': not testable, too few deals or no variation)" in out


def test_seats_within_half_a_point_of_fair_are_not_called_uneven():
    """Significance alone flagged 13 of the study's tables, 4 Hard among them at 0.09 points from
    25% (review): the warning needs half a point too."""
    from barbaron.commands.seats import _uneven_at_even

    def point(bonus, shares, half):
        seats = [{"win_share": x, "win_share_ci": [x - half, x + half]} for x in shares]
        return {"seat_bonus": bonus, "seats": seats}

    close = [point(50, [0.2508, 0.2491, 0.2493, 0.2508], 0.0004)] * 2  # beyond, by 0.08 points
    assert _uneven_at_even(50, close) == []
    far = [point(50, [0.2440, 0.2560, 0.2500, 0.2500], 0.0004)] * 2  # by 0.6 points
    assert "seats 0, 1 are beyond" in _uneven_at_even(50, far)[0]


def test_an_even_slope_with_uneven_seats_says_no_flat_bonus_evens_them(tmp_path, capsys):
    """Easy, Normal and Hard: the slope crosses 0 near 42 coins, but seat 1 wins 2 points more
    than the others there; "seats come out even" alone misled (QA)."""
    argv = ["seats", "--bots", "easy", "normal", "hard", "--bonus", "40,45", "--games", "30000"]
    status, stdout, _ = run(capsys, *argv, "--quiet", "--out", tmp_path / "s")
    assert status == 0 and "seats come out even at a bonus of 4" in stdout
    assert "but there the seats would win about 0.3" in stdout and "seats --solve" in stdout
    assert "seats 0, 1, 2 are beyond their 95% interval of 1/3" in stdout


def strict_json(path: Path):
    """A file as a strict JSON reader takes it: NaN and Infinity are not JSON."""
    return json.loads(path.read_text(), parse_constant=lambda c: pytest.fail(f"{c} in {path}"))


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--bots", "hard", "easy", "--games", "2"],  # one deal: no intervals, no test
        ["sweep", "--bot", "normal", "--param", "cushion=0,500", "--players", "2", "--games", "2"],
        ["seats", "--bots", "hard", "--players", "2", "--bonus", "0:100:100", "--games", "2"],
    ],
)
def test_numbers_that_are_not_finite_are_null_in_summary_json_and_report_reads_them(
    argv, tmp_path, capsys
):
    out = tmp_path / "r"
    assert main([*argv, "--workers", "1", "--quiet", "--out", str(out)]) == 0
    text = (out / "summary.json").read_text()
    assert "null" in text and strict_json(out / "summary.json")
    capsys.readouterr()
    for png in out.glob("*.png"):
        png.unlink()
    assert main(["report", str(out)]) == 0 and list(out.glob("*.png"))


def test_the_even_bonus_interval_opens_on_the_side_where_the_crossing_lies():
    def points(slopes, lows, highs):
        return [
            {"seat_bonus": b, "slope": m, "slope_ci": [lo, hi]}
            for b, m, lo, hi in zip((75, 100), slopes, lows, highs, strict=True)
        ]

    # mean below zero, nearing it at the top: even lies above; the band's top edge crosses at 80
    above = even_point(points([-0.03, -0.01], [-0.05, -0.03], [-0.01, 0.0025]))
    assert (
        math.isnan(above["bonus"])
        and above["ci"][0] == pytest.approx(95)
        and math.isnan(above["ci"][1])
    )
    # mean above zero, growing: even lies below the grid; the band's bottom edge crosses
    below = even_point(points([0.001, 0.015], [-0.0025, 0.01], [0.004, 0.02]))
    assert math.isnan(below["ci"][0]) and 75 < below["ci"][1] < 100
    # the mean crosses: the one edge found is on its side of the crossing
    crossing = even_point(points([-0.01, 0.01], [-0.02, -0.005], [0.0, 0.02]))
    assert crossing["bonus"] == pytest.approx(87.5) and crossing["ci"][0] == 75
    assert math.isnan(crossing["ci"][1])


def test_a_bending_slope_is_checked_by_a_parabola_through_the_bonuses_around_the_crossing():
    xs = np.array([0.0, 50.0, 100.0, 150.0, 200.0])
    line = 0.001 * (xs - 30)  # a straight line: the parabola is the line, crossing where it does
    assert bent_crossing(xs, line, zero_crossing(xs, line)) == pytest.approx(30)
    curve = 0.16 * (1 - np.exp(-xs / 40)) - 0.06  # steep, then flat: crosses at 18.8
    truth = -40 * math.log(1 - 0.06 / 0.16)
    linear = zero_crossing(xs, curve)
    bent = bent_crossing(xs, curve, linear)
    assert xs[0] < bent < xs[1] and abs(bent - truth) < abs(linear - truth) / 2
    assert math.isnan(bent_crossing(xs[:2], curve[:2], zero_crossing(xs[:2], curve[:2])))
    # between two interior points: the mean of the parabolas through either outer neighbour
    shifted = 0.16 * (1 - np.exp(-(xs - 100) / 40)) - 0.06  # crosses at 118.8
    inner = bent_crossing(xs, shifted, zero_crossing(xs, shifted))
    assert 100 < inner < 150 and abs(inner - (100 + truth)) < 5
    on_grid = np.array([-0.02, -0.01, 0.0, 0.01, 0.03])  # zero measured at 100: no line assumed
    assert bent_crossing(xs, on_grid, zero_crossing(xs, on_grid)) == 100
    unknown = curve.copy()
    unknown[2] = math.nan  # a slope that is not finite (a single deal): no check, no failure
    assert math.isnan(bent_crossing(xs, unknown, zero_crossing(xs, curve)))
    assert math.isnan(bent_crossing(xs, curve, math.nan))


def _seats_summary(bonuses, slopes, halves, shares) -> dict:
    """A seats summary of four seats with these points (shares' intervals +-0.004)."""
    points = [
        {
            "seat_bonus": b,
            "slope": m,
            "slope_ci": [m - h, m + h],
            "seats": [{"win_share": x, "win_share_ci": [x - 0.004, x + 0.004]} for x in row],
            "seat_balance": {"p_value": 1e-9},
            "arm": {"rules": {}},
        }
        for b, m, h, row in zip(bonuses, slopes, halves, shares, strict=True)
    ]
    return {"points": points, "even": even_point(points)}


def test_the_seats_table_warns_when_the_slope_bends_between_the_bonuses_played():
    """Today's Normal over 0:200:50 (QA): the straight line between 0 and 50 put the even bonus
    at 24.7 [23.6, 25.7]; a finer grid found 19.1. The numbers are that run's."""
    from barbaron.commands.seats import tables

    shares = [[0.33, 0.27, 0.22, 0.18], [0.16, 0.23, 0.29, 0.32]] + [[0.1, 0.2, 0.3, 0.4]] * 3
    bending = _seats_summary(
        [0, 50, 100, 150, 200],
        [-0.0509, 0.05234, 0.10142, 0.12683, 0.14117],
        [0.00215, 0.00209, 0.0019, 0.00176, 0.00165],
        shares,
    )
    text = tables(bending)
    assert "seats come out even at a bonus of 24.7 coins (95% interval 23.6 .. 25.7)" in text
    assert "the slope bends between the bonuses 0 and 50" in text
    assert "cross zero at 21.4" in text and "--bonus 0:50:5" in text
    straight = _seats_summary(  # the README's run (the Normal before the presets): no warning
        [0, 50, 100, 150, 200],
        [-0.06721, -0.0449, -0.02469, -0.00556, 0.01371],
        [0.00212, 0.00216, 0.00218, 0.00219, 0.00218],
        shares,
    )
    assert "bends" not in tables(straight) and "bonus of 164.4" in tables(straight)
    del straight["even"]["bent"]  # a summary from before the check: read, not checked
    assert "bends" not in tables(straight)


def test_an_even_bonus_whose_band_leaves_the_grid_says_so(tmp_path, capsys):
    out = tmp_path / "seats"
    argv = ["seats", "--bots", "hard", "--players", "2", "--bonus", "0:200:100", "--games", "200"]
    status, stdout, _ = run(capsys, *argv, "--workers", "1", "--quiet", "--out", out)
    even = strict_json(out / "summary.json")["even"]
    assert status == 0 and 0 < even["bonus"] < 100
    assert even["ci"][0] is None and even["bonus"] < even["ci"][1] < 200
    assert f"(95% interval below 0 .. {even['ci'][1]:.1f}: widen --bonus)" in stdout


def test_sweep_and_report(tmp_path, capsys):
    out = tmp_path / "sweep"
    status, stdout, _ = run(
        capsys,
        "sweep",
        "--bot",
        "easy",
        "--param",
        "buy=0,0.5,1",
        "--games",
        "2000",
        "--out",
        out,
        "--quiet",
    )
    summary = json.loads((out / "summary.json").read_text())
    assert status == 0 and [p["value"] for p in summary["points"]] == [0, 0.5, 1]
    assert summary["points"][0]["win_share"] < summary["points"][2]["win_share"]
    (out / "sweep.png").unlink()
    status, stdout, _ = run(capsys, "report", out)
    assert status == 0 and (out / "sweep.png").exists()
    assert "sweep run of 6,000 games (3 points of 2,000 games each)" in stdout
    status, _, err = run(capsys, "report", tmp_path / "nothing")
    assert status == 2 and "not a finished results folder" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "hard", "normal", "--field", "greedy", "--max-games", "60"],
        ["tune", "--bot", "hard", "--param", "margin=-200:0", "--field", "greedy"]
        + ["--trials", "2", "--games-per-trial", "80"],
    ],
)
def test_report_counts_the_games_the_run_counted(tmp_path, capsys, argv):
    """compare's summary counts each side's games, tune's all of them (no 'confirmation')."""
    out = tmp_path / "r"
    status, stdout, _ = run(capsys, *argv, "--out", out, "--quiet", "--workers", 1)
    played = stdout.strip().splitlines()[-1].split(" games;")[0]
    status, stdout, _ = run(capsys, "report", out)
    assert status == 0 and f"{argv[0]} run of {played} games" in stdout, (played, stdout)
    assert "confirmation" not in stdout


def test_the_seat_test_of_two_players_is_the_t_test_of_seat_0s_share():
    """With one dimension Hotelling's T^2 is the square of the one-sample t statistic, and its
    F(1, n - 1) p-value the two-sided t-test's: scipy's, on the same per-deal shares."""
    from scipy import stats as scipy_stats

    rng = np.random.default_rng(7)
    for deals, p0 in ((12, 0.5), (40, 0.6), (300, 0.53)):
        first = (rng.random(deals) < p0) * 12
        test = _balance_of(np.stack([first, 12 - first], axis=1))
        t = scipy_stats.ttest_1samp(first / 12, 0.5)
        assert test.statistic == pytest.approx(t.statistic**2, rel=1e-9)
        assert test.p_value == pytest.approx(t.pvalue, rel=1e-9)
    assert hotelling_sf(math.inf, 2, 10) == 0.0 and hotelling_sf(0.0, 3, 10) == 1.0


def _balance_of(shares: np.ndarray, scale: int = 12):
    """seat_balance of per-deal seat shares (deals, seats), given in twelfths."""
    v = np.asarray(shares, dtype=np.int64)
    return seat_balance(v.sum(axis=0), v.T @ v, len(v), scale)


def test_seat_balance_is_the_wald_statistic_of_the_per_deal_shares():
    from scipy import stats as scipy_stats

    rng = np.random.default_rng(4)
    shares = np.zeros((400, 3), dtype=np.int64)
    shares[np.arange(400), rng.choice(3, 400, p=[0.4, 0.35, 0.25])] = 12
    test = _balance_of(shares)
    x = shares[:, :2] / 12
    d = x.mean(axis=0) - 1 / 3
    sigma = np.cov(x, rowvar=False) / len(x)
    assert test.dof == 2
    assert test.statistic == pytest.approx(d @ np.linalg.solve(sigma, d), rel=1e-9)
    f = test.statistic * (400 - 2) / (2 * (400 - 1))  # Hotelling: F(2, 398)
    assert test.p_value == pytest.approx(scipy_stats.f.sf(f, 2, 398), rel=1e-9)


def test_a_background_thread_kept_from_starting_is_still_waited_for_safely(monkeypatch):
    """A Ctrl-C within the start of the plots' import thread (on dask its start is no longer
    deferred) left a running thread unlisted, and the next run forked beside it (review): the
    thread is listed before it starts, and one that never started is not joined."""
    import threading

    def interrupted_start(self):
        raise KeyboardInterrupt

    harness._background_done()  # (those of earlier runs in this process)
    monkeypatch.setattr(threading.Thread, "start", interrupted_start)
    with pytest.raises(KeyboardInterrupt):
        harness.in_background(lambda: None, "never-started")
    monkeypatch.undo()
    assert [t.name for t in harness._background] == ["never-started"]
    harness._background_done()  # (joining a thread never started would raise RuntimeError)
    assert harness._background == []


def test_seat_balance_and_estimate_take_numpy_integers_as_exact_integers():
    """Given numpy int64 sums (as the docs' own example does), the exact fractions kept int64
    numerators and overflowed from about 500 deals: T^2 = -0.99 where it is 21.2 (QA). They
    are read as Python integers now: the same answers as from Python's own."""
    from scipy import stats as scipy_stats

    rng = np.random.default_rng(6)
    deals = 3000
    shares = np.zeros((deals, 4), dtype=np.int64)  # four rotations' wins, in 48ths of a deal
    for _ in range(4):
        shares[np.arange(deals), rng.choice(4, deals, p=[0.28, 0.25, 0.24, 0.23])] += 12
    test = _balance_of(shares, scale=48)
    as_python = shares.astype(object)
    assert test == seat_balance(as_python.sum(axis=0), as_python.T @ as_python, deals, 48)
    x = shares[:, :3] / 48
    d = x.mean(axis=0) - 1 / 4
    t2 = d @ np.linalg.solve(np.cov(x, rowvar=False) / deals, d)
    assert test.statistic == pytest.approx(t2, rel=1e-9)
    f = t2 * (deals - 3) / (3 * (deals - 1))
    assert test.p_value == pytest.approx(scipy_stats.f.sf(f, 3, deals - 3), rel=1e-6)
    deals = 10**8  # every deal the same (48): no spread at all; total**2 is past int64's range
    total, squares = np.int64(48 * deals), np.int64(48 * 48 * deals)
    assert estimate(total, squares, deals, 48).se == 0.0


def test_a_seat_that_never_wins_is_never_balanced():
    """In floating point the singular covariance gave chi2 = -5e17, p = 1, 'balanced'."""
    rng = np.random.default_rng(5)
    first = rng.random(300) < 0.6
    two_share_all = np.stack([first * 12, ~first * 12, np.zeros(300)], axis=1)  # seat 2 never
    always_first = np.tile([12, 0], (50, 1))  # two players, seat 0 wins every deal
    # p: the most a balanced table's chance of the same share in every deal can be (Markov's
    # inequality), times 2 sides and the 2^(P-1) - 1 groups of seats: 6 (2/3)^300 and
    # 2 (1/2)^50 (QA: p = 0 before, printed "p < 1e-300")
    for shares, p in ((two_share_all, 6 * (2 / 3) ** 300), (always_first, 2 * 0.5**50)):
        test = _balance_of(shares)
        assert test.statistic == math.inf and not test.balanced
        assert test.p_value == pytest.approx(p, rel=1e-9)
    four = np.zeros((30, 4), dtype=np.int64)
    four[np.arange(30), np.arange(30) % 3] = 12  # seat 3 never wins in 30 deals
    assert _balance_of(four).p_value == pytest.approx(14 * 0.75**30, rel=1e-9)
    a, b = rng.integers(0, 9, 40), rng.integers(0, 5, 40)  # each seat varies, but seats 0 and 1
    pairs = np.stack([a, 8 - a, b, 4 - b], axis=1)  # always take 8/12 between them (review: p
    assert _balance_of(pairs).p_value == pytest.approx(14 * 0.75**40, rel=1e-9)  # was 0 here)
    assert math.isnan(_balance_of(np.tile([6, 6], (50, 1))).p_value)  # shared every time
    few = _balance_of(always_first[:4])  # 4 deals: 2 (1/2)^4, which chance explains
    assert few.statistic == math.inf and few.p_value == 0.125 and few.balanced
    dead_heats = np.tile([4, 4, 4], (50, 1))
    dead_heats[::2] = [6, 6, 0]  # seats 0 and 1 always alike: one direction of no spread
    test = _balance_of(dead_heats)
    assert test.dof == 1 and test.statistic >= 0 and not test.balanced


def test_the_command_says_a_seat_that_never_wins_is_not_balanced(tmp_path, capsys):
    argv = ["play", "--bots", "greedy", "greedy", "greedy", "--seat-coins", "3000,3000,0"]
    status, stdout, _ = run(capsys, *argv, "--no-rotate", "--games", "300", "--out", tmp_path / "o")
    assert status == 0 and "T2 = inf" in stdout and "NOT balanced" in stdout, stdout
    status, stdout, err = run(capsys, "report", tmp_path / "o")  # summary.json: null, p = 0
    assert (
        status == 0 and "T2 = inf (a seat's share, or a group's, never varied: p bounds" in stdout
    )
    assert "-> seats NOT balanced" in stdout and "p < 1e-300" not in stdout, stdout


def test_an_empty_folder_is_used_and_one_of_your_files_never_advised_force(tmp_path, capsys):
    """An empty --out folder was refused with "add --force", and --force then refused it as
    not barbaron's; so was a folder of your own files (QA). An empty folder holds nothing to
    lose: the results go there. Yours is refused without advising --force."""
    empty, mine = tmp_path / "empty", tmp_path / "mine"
    empty.mkdir()
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    argv = ["play", "--bots", "easy", "normal", "--games", 20, "--quiet", "--out"]
    assert run(capsys, *argv, empty)[0] == 0 and (empty / "summary.json").exists()
    status, _, err = run(capsys, *argv, mine)
    assert status == 2 and "is not a barbaron results folder" in err and "add --force" not in err
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]


def test_a_folder_filled_while_the_games_play_is_never_replaced(tmp_path, capsys, monkeypatch):
    """It was empty when the run began (or barbaron's, with --force); at the end it holds a
    file of yours: the results stay complete in OUT.partial, your file where it was."""
    out = tmp_path / "out"
    out.mkdir()
    finish = RunFolder.finish

    def yours_arrives(self, *args, **kwargs):
        (out / "notes.txt").write_text("mine")
        return finish(self, *args, **kwargs)

    monkeypatch.setattr(RunFolder, "finish", yours_arrives)
    argv = ["play", "--bots", "easy", "normal", "--games", 20, "--quiet", "--out", out]
    status, _, err = run(capsys, *argv)
    assert status == 1 and len(err.splitlines()) == 1, err
    assert "the results are complete in" in err and "--resume" not in err, err  # (QA)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert (tmp_path / "out.partial" / "summary.json").exists()
    monkeypatch.undo()  # and --resume there is refused as not barbaron's, not told to --force
    status, _, err = run(capsys, *argv, "--resume")
    assert status == 2 and "is not a barbaron results folder" in err and "add --force" not in err


def test_paths_that_are_not_results_folders_are_never_replaced(tmp_path, capsys, monkeypatch):
    keep = tmp_path / "keep"
    (keep / "sub").mkdir(parents=True)
    (keep / "precious.txt").write_text("mine")
    a_file = tmp_path / "afile"
    a_file.write_text("x")
    for out, message in (
        (keep / "sub" / "..", "not a barbaron results folder"),
        (a_file / "x", "is a file, not a folder"),
        (keep, "not a barbaron results folder"),
    ):
        status, _, err = run(
            capsys,
            "play",
            "--bots",
            "easy",
            "easy",
            "--games",
            "20",
            "--out",
            out,
            "--force",
            "--quiet",
        )
        assert status == 2 and message in err and len(err.splitlines()) == 1, err
    assert (keep / "precious.txt").read_text() == "mine"
    monkeypatch.chdir(keep)
    status, _, err = run(capsys, "play", "--bots", "easy", "easy", "--out", ".", "--force")
    assert status == 2 and "is the current folder or holds it" in err
    empty = tmp_path / "empty"  # (an empty --out is used; not the shell's own folder, QA)
    empty.mkdir()
    monkeypatch.chdir(empty)
    status, _, err = run(capsys, "play", "--bots", "easy", "easy", "--out", ".", "--quiet")
    assert status == 2 and "is the current folder or holds it" in err and empty.is_dir()


def test_an_out_inside_a_results_folder_is_refused(tmp_path, capsys):
    """A run inside another's results folder made that folder no longer barbaron's: --force
    could not replace it any more (QA)."""
    argv = ["play", "--bots", "easy", "easy", "--games", "20", "--quiet", "--no-plots"]
    assert run(capsys, *argv, "--out", tmp_path / "a")[0] == 0
    before = sorted(p.name for p in (tmp_path / "a").iterdir())
    for inner in ("a/sub", "a/games.parquet/x"):
        status, _, err = run(capsys, *argv, "--out", tmp_path / inner)
        assert status == 2 and f"lies inside the results folder {tmp_path / 'a'}" in err, err
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == before
    assert run(capsys, *argv, "--out", tmp_path / "a", "--force")[0] == 0


def test_huge_seeds_and_coins_are_refused(tmp_path, capsys):
    for argv, message in (
        (["--seed", str(2**64)], "from 0 to 2**63 - 1"),
        (["--start-coins", "3000000000"], "at most 1,000,000"),
    ):
        status, _, err = run(
            capsys, "play", "--bots", "easy", "easy", *argv, "--out", tmp_path / "x", "--quiet"
        )
        assert status == 2 and message in err, err
    status, _, err = run(
        capsys, "replay", "--seed", str(2**63), "--game", "1", "--bots", "easy", "easy"
    )
    assert status == 2 and "from 0 to 2**63 - 1" in err


def test_a_plugin_answering_the_wrong_type_gets_one_line(tmp_path, capsys):
    plugin = tmp_path / "wrong.py"
    plugin.write_text(
        "import numpy as np\n"
        "from barbaron.strategy import Strategy\n"
        "class Sloppy(Strategy):\n"
        "    def buy(self, view, games, bars):\n"
        "        return np.ones(games.size, dtype=np.int8)\n"
    )
    status, _, err = run(
        capsys,
        "play",
        "--bots",
        f"{plugin}:Sloppy",
        "easy",
        "--games",
        "20",
        "--out",
        tmp_path / "x",
        "--quiet",
        "--workers",
        "1",
    )
    assert status == 1 and len(err.splitlines()) == 1
    assert "Sloppy" in err and "must return" in err and "booleans" in err
    status, _, err = run(
        capsys, "replay", "--seed", "1", "--game", "0", "--bots", f"{plugin}:Sloppy", "easy"
    )
    assert status == 1 and "Sloppy" in err


def test_sweep_of_a_plugin_bot(tmp_path, capsys):
    plugin = tmp_path / "mine.py"
    plugin.write_text(
        "from barbaron.bots.threshold import ThresholdBot\n"
        "class Mine(ThresholdBot):\n"
        "    def __init__(self, buy=0):\n"
        "        super().__init__(buy=buy, takeover=None, upgrade=0)\n"
    )
    out = tmp_path / "sweep"
    status, _, err = run(
        capsys,
        "sweep",
        "--bot",
        f"{plugin}:Mine",
        "--param",
        "buy=0,300",
        "--games",
        "400",
        "--out",
        out,
        "--quiet",
    )
    assert status == 0, err
    summary = json.loads((out / "summary.json").read_text())
    assert [p["bot"] for p in summary["points"]] == [
        f"{plugin}:Mine:buy=0",
        f"{plugin}:Mine:buy=300",
    ]
    assert summary["field"] == [f"{plugin}:Mine"] * 3


SMALL_JOB = Job(
    arms=(Arm("play", ("easy", "normal"), Rules(players=2)),), games=4000, seed=1, batch_size=500
)


def test_an_interrupted_forced_run_resumes_with_force_and_replaces_the_old_one(tmp_path, capsys):
    out = tmp_path / "r"
    argv = ["play", "--bots", "easy", "normal", "--games", "4000", "--seed", "1"]
    argv += ["--batch-size", "500", "--out", out, "--quiet"]
    assert run(capsys, *argv[:-3], "--seed", "2", "--out", out, "--quiet")[0] == 0  # the old run
    interrupted_at(out, SMALL_JOB, 2, force=True)  # the same job, beside it
    status, _, err = run(capsys, *argv, "--resume")
    assert status == 2 and "resume with --force too" in err and len(err.splitlines()) == 1
    assert json.loads((out / "manifest.json").read_text())["job"]["seed"] == 2  # left alone
    status, _, err = run(capsys, *argv, "--resume", "--force")
    assert status == 0, err
    assert not (tmp_path / "r.partial").exists()
    status, _, err = run(capsys, *argv[:-3], "--out", tmp_path / "whole", "--quiet")
    assert status == 0, err
    assert pd.read_parquet(out / "games.parquet").equals(
        pd.read_parquet(tmp_path / "whole" / "games.parquet")
    )


def test_a_resumed_run_replays_its_units_through_the_stopping_rule(tmp_path):
    job = SMALL_JOB
    interrupted_at(tmp_path / "r", SMALL_JOB, 2)
    seen = []

    def stop_at_first(result, totals):
        seen.append(result.unit)
        return True

    outcome = execute(
        job, RunFolder(tmp_path / "r", job, "play", resume=True), quiet=True, on_unit=stop_at_first
    )
    assert seen == [0] and outcome.games_now == 0 and outcome.stopped_early


def test_compare_rounds_its_maximum_to_whole_deals(tmp_path, capsys):
    status, stdout, err = run(
        capsys,
        "compare",
        "hard",
        "normal",
        "--players",
        "3",
        "--max-games",
        "1000",
        "--out",
        tmp_path / "c",
        "--quiet",
    )
    assert status == 0, err
    assert json.loads((tmp_path / "c" / "summary.json").read_text())["games"] == 999


def slow_unit_and_pid(job, unit, strategies=None):
    """A stand-in for playing a unit slowly: (unit, the process that played it)."""
    import time as clock

    clock.sleep(0.1)
    return unit, os.getpid()


def timed_unit(job, unit, strategies=None, *, seconds=0.0):
    """A stand-in for playing a unit: (the process that played it, when it began and ended)."""
    import time as clock

    began = clock.monotonic()
    clock.sleep(seconds)
    return os.getpid(), began, clock.monotonic()


@pytest.mark.skipif(harness.START_METHOD != "fork", reason="forked helpers are ready at once")
def test_forked_helpers_play_while_this_process_plays_its_first_unit():
    """A forked helper is ready at once: its first units are handed over before this process
    starts its own, not once that one is done (then a slow first unit, say with an import
    running beside it, left the helper idle)."""
    import functools

    job = Job(arms=small_job(2).arms, games=20 * 6, seed=0, batch_size=20, workers=2)
    slow = functools.partial(timed_unit, seconds=0.5)
    played = list(run_units(job, range(6), timed_unit, own_task=slow))
    mine = [(began, ended) for pid, began, ended in played if pid == os.getpid()]
    helper_began = min(began for pid, began, _ in played if pid != os.getpid())
    assert helper_began < mine[0][1]


def unit_number(job, unit, strategies=None):
    """A stand-in for playing a unit: its number, slowly for some units, in any process."""
    import time as clock

    clock.sleep(0.02 if unit % 3 == 0 else 0.0)
    return unit


@pytest.mark.parametrize("workers", [2, 3])
@pytest.mark.parametrize("units", [1, 2, 5, 37])
def test_run_units_yields_every_unit_once_in_order(workers, units):
    job = Job(
        arms=(Arm("play", ("easy", "easy"), Rules(players=2)),),
        games=2 * 10 * units,
        seed=0,
        batch_size=20,
        workers=workers,
    )
    assert job.units == units
    assert list(run_units(job, range(units), unit_number)) == list(range(units))
    assert list(run_units(job, [u for u in range(units) if u % 2], unit_number)) == [
        u for u in range(units) if u % 2
    ]


def small_job(workers: int) -> Job:
    return Job(
        arms=(Arm("play", ("easy", "easy"), Rules(players=2)),),
        games=2 * 10 * 6,
        seed=0,
        batch_size=20,
        workers=workers,
    )


def test_a_failure_while_the_helpers_start_leaves_none_behind():
    """Helpers are not daemons: one left running would keep the process from ever exiting."""
    import multiprocessing

    def cannot_start():
        raise RuntimeError("can't start new thread")

    with pytest.raises(RuntimeError, match="can't start"):
        list(run_units(small_job(3), range(6), unit_number, on_start=cannot_start))
    assert multiprocessing.active_children() == []


def test_helpers_fork_only_once_background_work_has_ended():
    """A fork copies a thread's locks: one half-way through an import would hold its lock."""
    import threading
    import time

    from barbaron.harness import in_background

    ended = threading.Event()
    in_background(lambda: (time.sleep(0.3), ended.set()), "test-sleeper")
    at_fork = []
    units = run_units(
        small_job(2), range(6), unit_number, on_start=lambda: at_fork.append(ended.is_set())
    )
    assert list(units) == list(range(6)) and at_fork == [True]


def sleeper(seconds: float) -> tuple[Callable[[], None], list[float]]:
    """An ``on_start`` that starts background work of ``seconds`` (as the plots' import), and
    the list that gets the monotonic time it ended."""
    import functools
    import time

    from barbaron.harness import in_background

    ended: list[float] = []
    work = lambda: (time.sleep(seconds), ended.append(time.monotonic()))  # noqa: E731
    return functools.partial(in_background, work, "sleeper"), ended


@pytest.mark.skipif(harness.START_METHOD != "fork", reason="forked helpers are ready at once")
def test_with_helpers_this_process_plays_no_unit_while_its_background_work_runs():
    """Beside the plots' import a unit takes several times as long: the helpers play on
    meanwhile, and this process starts its own units once the import is done."""
    import functools

    on_start, ended = sleeper(0.4)
    job = Job(arms=small_job(2).arms, games=20 * 30, seed=0, batch_size=20, workers=2)
    slow = functools.partial(timed_unit, seconds=0.05)
    played = list(run_units(job, range(30), slow, own_task=timed_unit, on_start=on_start))
    mine = [began for pid, began, _ in played if pid == os.getpid()]
    assert mine and min(mine) >= ended[0]
    assert sum(pid != os.getpid() for pid, _, _ in played) >= 4  # played during the 0.4 s


def alternating(job, unit, strategies=None):
    """A unit of 0.3 s or 0.02 s: helpers finish them out of order."""
    return timed_unit(job, unit, seconds=0.3 if unit % 2 else 0.02)


def test_waiting_for_helpers_and_background_work_takes_no_cpu():
    """While it waits (helpers playing, the background import running) this process sleeps:
    it spun on a unit finished out of order, and took the import's GIL and a helper's core."""
    import time

    on_start, _ = sleeper(1.0)
    job = Job(arms=small_job(3).arms, games=20 * 16, seed=0, batch_size=20, workers=3)
    before = time.process_time()
    played = list(run_units(job, range(16), alternating, on_start=on_start))
    assert len(played) == 16 and time.process_time() - before < 0.4


def test_spawned_helpers_still_starting_leave_this_process_playing(monkeypatch):
    """A spawned helper takes about a second to start: meanwhile this process plays, background
    import or not (nobody played, and it spun, until the helper was ready)."""
    import functools

    monkeypatch.setattr(harness, "START_METHOD", "spawn")
    on_start, ended = sleeper(1.0)
    job = Job(arms=small_job(2).arms, games=20 * 12, seed=0, batch_size=20, workers=2)
    quick = functools.partial(timed_unit, seconds=0.01)
    try:
        played = list(run_units(job, range(12), quick, on_start=on_start))
        still_busy = not ended  # the whole run played during the background work
    finally:
        harness._background_done()
        for _, pool in harness._kept:
            pool.shutdown()
        harness._kept.clear()
    assert len(played) == 12 and still_busy
    assert any(pid == os.getpid() for pid, _, _ in played)


def test_spawned_helpers_play_the_same_games_and_are_kept_for_the_next_run(monkeypatch, tmp_path):
    """The start method of macOS and Windows, here on Linux: the same tallies as one worker,
    and the second run reuses the first one's helper (a spawned one takes a second to start),
    but not once this process has changed folder (a relative plugin path would name another
    file) or the helper has died."""
    import multiprocessing

    from barbaron import harness

    def kept() -> list:
        return [p for _, pool in harness._kept for p in pool._processes.values()]

    def shares(workers: int) -> list:
        job = small_job(workers)
        units = run_units(job, range(job.units))
        return [r.tallies[0].position_share.tolist() for r in units]

    def players(units: int) -> set[int]:
        job = Job(arms=small_job(2).arms, games=20 * units, seed=0, batch_size=20, workers=2)
        return {pid for _, pid in run_units(job, range(units), slow_unit_and_pid)}

    one = shares(1)
    monkeypatch.setattr(harness, "START_METHOD", "spawn")
    try:
        assert shares(2) == one
        helper = [p.pid for p in multiprocessing.active_children()]
        assert len(helper) == 1 and shares(2) == one
        assert players(8) == {os.getpid(), *helper}  # the kept helper, ready at once, played
        monkeypatch.chdir(tmp_path)
        assert shares(2) == one and [p.pid for p in kept()] not in ([], helper)
        (dead,) = kept()
        dead.kill()
        dead.join()
        assert shares(2) == one and [p.pid for p in kept()] not in ([], [dead.pid])
    finally:
        for _, pool in harness._kept:
            pool.shutdown()
        harness._kept.clear()


def test_the_old_backend_name_is_still_taken():
    assert Job(arms=small_job(1).arms, games=20, seed=0, backend="loky").backend == "local"


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_on_start_is_called_once_every_helper_exists(workers):
    """A thread started then (the plots' background import) is never copied by a fork."""
    import multiprocessing

    job = small_job(workers)
    helpers = []
    units = run_units(
        job,
        range(job.units),
        unit_number,
        on_start=lambda: helpers.append(len(multiprocessing.active_children())),
    )
    assert list(units) == list(range(job.units)) and helpers == [workers - 1]


def test_a_stopping_rule_sees_the_units_of_a_resumed_run_in_order(tmp_path):
    job = SMALL_JOB
    interrupted_at(tmp_path / "r", SMALL_JOB, 4)
    (tmp_path / "r.partial" / "tallies" / "unit-0000002.npz").unlink()  # a gap: 0, 1, 3, 4 done
    seen = []

    def record(result, totals):
        seen.append(result.unit)
        return False

    resumed = RunFolder(tmp_path / "r", job, "play", resume=True)
    outcome = execute(job, resumed, quiet=True, on_unit=record)
    resumed.close()
    assert seen == list(range(job.units))
    assert sum(t.deals for t in outcome.totals) == job.deals


def test_a_ctrl_c_while_games_play_is_raised_at_the_next_safe_point():
    """barbaron.interrupts: inside deferred() a SIGINT only notes; check() raises it once, and
    the handler in force before comes back."""
    import signal

    from barbaron import interrupts

    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt), interrupts.deferred():
        with interrupts.deferred():  # nested: one handler, one note
            signal.raise_signal(signal.SIGINT)
            noted = True  # not raised where it landed
        assert noted
        interrupts.check()
        raise AssertionError("check() did not raise")
    assert signal.getsignal(signal.SIGINT) is before
    with interrupts.deferred():
        interrupts.check()  # nothing came: nothing raised
    with pytest.raises(KeyboardInterrupt), interrupts.deferred():
        signal.raise_signal(signal.SIGINT)  # came after the last check: raised at the end
    with pytest.raises(KeyboardInterrupt), interrupts.deferred():
        signal.raise_signal(signal.SIGINT)
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)  # a second one before a check: at once
        interrupts.check()  # and kept, should that raise have been swallowed
    with pytest.raises(KeyboardInterrupt), interrupts.deferred(), interrupts.immediate():
        signal.raise_signal(signal.SIGINT)  # within immediate(): where it lands
        raise AssertionError("not raised at once")
    interrupts.check()  # outside a run nothing is noted or raised


def test_a_run_leaves_an_ignored_ctrl_c_ignored():
    """A shell's background job starts with SIGINT ignored: a run must not start hearing it."""
    import signal

    from barbaron import interrupts

    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with interrupts.deferred():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            signal.raise_signal(signal.SIGINT)
            interrupts.check()
    finally:
        signal.signal(signal.SIGINT, before)


class _EndedHelper:
    """A helper process that has ended, as the pool's manager thread leaves it while it reaps
    it: the exit code reads as None ``unread`` more times before it is there."""

    def __init__(self, sentinel: int, code: int | None, unread: int) -> None:
        self.sentinel, self.code, self.unread = sentinel, code, unread

    @property
    def exitcode(self) -> int | None:
        self.unread -= 1
        return None if self.unread >= 0 else self.code


def test_a_dead_helpers_exit_code_is_read_even_while_the_pool_reaps_it():
    ended_read, ended_write = os.pipe()
    running_read, running_write = os.pipe()
    os.close(ended_write)  # an ended process's sentinel is ready; a running one's is not
    try:
        helpers = [
            _EndedHelper(ended_read, -9, unread=3),
            _EndedHelper(running_read, None, unread=0),
        ]
        pool = type("Pool", (), {"_processes": dict(enumerate(helpers))})()
        started = time.monotonic()
        assert harness._exit_codes(pool) == [-9]
        assert time.monotonic() - started < harness.EXIT_CODE_SECONDS  # no wait for the other
    finally:
        for fd in (ended_read, running_read, running_write):
            os.close(fd)


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--bots", "easy", "hard", "--games", "40"],
        ["compare", "hard", "easy", "--max-games", "40"],
        ["compare", "hard", "easy", "--elo0", "0", "--elo1", "20", "--max-games", "8192"],
        ["seats", "--bots", "easy", "hard", "--bonus", "0,100", "--games", "40"],
        ["seats", "--bots", "easy", "hard", "--solve", "--search-games", "400", "--games", "40",
         "--iterations", "2"],
        ["sweep", "--bot", "normal", "--param", "takeover_cushion=none,0", "--games", "40"],
        ["tournament", "--bots", "easy", "normal", "hard", "--players", "2", "--games", "120"],
        ["tune", "--bot", "easy", "--param", "buy=0:1", "--trials", "2",
         "--games-per-trial", "40"],
    ],
)  # fmt: skip
def test_report_prints_the_tables_the_command_printed(argv, tmp_path, capsys):
    import importlib

    out = tmp_path / "r"
    status, printed, err = run(capsys, *argv, "--out", out, "--quiet")
    assert status == 0, err
    summary = json.loads((out / "summary.json").read_text())
    tables = importlib.import_module(f"barbaron.commands.{argv[0]}").tables(summary)
    status, reported, err = run(capsys, "report", out)
    assert status == 0 and tables in printed and tables in reported, (tables, reported)


def test_the_f_tail_equals_scipys_far_into_the_tails():
    """hotelling_sf's own incomplete beta (no scipy import on every command) against scipy's F
    distribution, from p near 1 to p near 1e-200, for 1 to 3 dimensions and 3 to 1e6 deals."""
    from scipy import stats as scipy_stats

    for k in (1, 2, 3):
        for n in (k + 2, 12, 40, 300, 10_000, 1_000_000):
            for t2 in (1e-6, 0.5, 2.0, 10.0, 50.0, 966.07, 3000.0):
                expected = scipy_stats.f.sf(t2 * (n - k) / (k * (n - 1)), k, n - k)
                assert hotelling_sf(t2, k, n) == pytest.approx(expected, rel=1e-7, abs=1e-300)


def test_the_seat_test_keeps_its_level_better_with_few_deals():
    """Balanced seats (a uniform winner), four players: the chi-square reference rejected 8.2%
    of 40-deal runs at the 5% level (QA measured 9.8% with Hard); Hotelling's F rejects 6.5%
    there (exact for normal shares, not for these 0/1 ones) and 5% with 300 deals."""
    from scipy import stats as scipy_stats

    runs = 3000
    band = 3.3 * math.sqrt(0.05 * 0.95 / runs)
    for deals in (40, 300):
        rng = np.random.default_rng(11)
        f_rejected = chi2_rejected = 0
        for _ in range(runs):
            shares = np.zeros((deals, 4), dtype=np.int64)
            shares[np.arange(deals), rng.integers(0, 4, deals)] = 12
            test = _balance_of(shares)
            f_rejected += test.balanced is False
            chi2_rejected += scipy_stats.chi2.sf(test.statistic, test.dof) < 0.05
        if deals == 40:
            assert f_rejected / runs < min(0.075, chi2_rejected / runs - band), f_rejected
        else:
            assert abs(f_rejected / runs - 0.05) < band, f_rejected / runs


def test_a_seat_test_that_cannot_be_made_is_neither_balanced_nor_not():
    """Too few deals: summary.json said "balanced": false beside a p-value of null (review)."""
    test = _balance_of([[12, 0, 0], [0, 12, 0]])  # 2 deals of three players
    assert math.isnan(test.p_value) and test.balanced is None
    assert test.record()["balanced"] is None


def test_a_resumed_sweep_keeps_every_finished_unit(tmp_path, monkeypatch):
    """The sweep adds up its paired differences as units come, but does not stop early: an
    interrupted sweep with a gap among its finished units (two workers) replays the gap alone,
    not every unit after it, and comes out as an uninterrupted one (review)."""
    from barbaron import api

    arguments = dict(field="greedy", games=2000, seed=6, batch_size=200, progress=False)
    whole = api.sweep("threshold", "buy", [0, 300], out=tmp_path / "whole", **arguments)
    ctrl_c_after_unit(monkeypatch, 3)
    out = tmp_path / "cut"
    with pytest.raises(KeyboardInterrupt):
        api.sweep("threshold", "buy", [0, 300], out=out, **arguments)
    monkeypatch.undo()
    partial = tmp_path / "cut.partial"
    (partial / "tallies" / "unit-0000001.npz").unlink()  # a gap: unit 1 is played again
    resumed = api.sweep("threshold", "buy", [0, 300], out=out, resume=True, **arguments)
    unit = 2 * 200  # a unit plays 200 games of each value
    assert resumed.games_now == 4000 - 3 * unit  # units 0, 2 and 3 kept: not replayed
    assert resumed.summary == whole.summary


@pytest.mark.parametrize(
    "argv, message",
    [
        (["seats", "--bots", "hard", "--bonus", "-50,0"], "is written --bonus=VALUE"),
        (["report", ""], "barbaron report needs a results folder, got an empty name"),
        (["play", "--bots", "hard", "easy", "--backend", "dask", "--scheduler", ""],
         "--scheduler must be non-empty text, got ''"),
        (["sweep", "--bot", "", "--param", "buy=0,1"], "--bot must be non-empty"),
    ],
)  # fmt: skip
def test_usage_errors_name_the_option_and_the_way_out(argv, message, tmp_path, capsys):
    """They said "expected one argument" (a negative value), read '' as the current folder, or
    named the library's argument ("scheduler ... or None") (QA)."""
    if argv[0] != "report":
        argv = [*argv, "--out", tmp_path / "x"]
    status, _, err = run(capsys, *argv)
    assert status == 2 and message in err and len(err.splitlines()) == 1, err


def test_no_plots_writes_no_png_and_report_draws_them_later(tmp_path, capsys):
    """--no-plots (``plots=False``) saves a run the PNGs' time (a study's sub-runs, which git
    does not keep); ``barbaron report`` draws them, and the folder stays barbaron's own."""
    from barbaron import api

    out = tmp_path / "run"
    argv = ["play", "--bots", "easy", "normal", "--games", 40, "--quiet", "--out", out]
    assert run(capsys, *argv, "--no-plots")[0] == 0
    assert not list(out.glob("*.png"))
    assert run(capsys, "report", out)[0] == 0
    assert sorted(p.name for p in out.glob("*.png")) == ["seats.png", "win_shares.png", "worth.png"]
    assert run(capsys, *argv, "--force")[0] == 0  # (report's PNGs are barbaron's)
    api.play(["easy", "normal"], games=40, out=tmp_path / "lib", plots=False)
    assert not list((tmp_path / "lib").glob("*.png"))


def test_every_png_a_command_draws_is_known_as_barbarons():
    """A folder holding a PNG barbaron does not know is refused as not barbaron's: the names
    the commands draw and results.PLOT_NAMES must agree."""
    import re as regex

    from barbaron.results import PLOT_NAMES

    root = Path(__file__).resolve().parents[1] / "barbaron" / "commands"
    drawn = {n for f in root.glob("*.py") for n in regex.findall(r'"(\w+\.png)"', f.read_text())}
    assert drawn and drawn <= PLOT_NAMES, drawn - PLOT_NAMES


def test_one_bot_spelt_differently_has_exact_shares_only_where_every_deal_confirms_them():
    """``hard hard:risk=0 hard hard`` in rotation repeats one game four times: each position
    wins exactly 1/4 of every deal, a point and no interval (QA: intervals around 0.25); where a
    deal did not give 1/4 (a bot whose rotations differ), the interval stays."""
    arm = Arm(label="a", bots=("hard", "hard:risk=0", "hard", "hard"), rules=Rules(players=4))
    scale = harness.SHARE_SCALE  # a deal's sum over its 4 rotations of SHARE_SCALE x win share

    def summary(positions: list[list[int]]) -> dict:
        totals = harness.Totals(arm, rotations=4)
        shares = np.array(positions, dtype=np.int64)
        zeros = np.zeros(4, dtype=np.int64)
        totals.add(harness.ArmTally(shares, shares, zeros, zeros, zeros))
        return totals.summary()

    even = summary([[scale] * 4] * 30)
    assert [b["win_share_ci"] for b in even["bots"]] == [[0.25, 0.25]] * 2
    assert harness.Totals(arm, 4).position_estimate(0).deals == 0  # (no deals: no shortcut)
    uneven = summary([[scale] * 4] * 29 + [[2 * scale, 0, scale, scale]])
    low, high = uneven["bots"][1]["win_share_ci"]  # hard:risk=0, position 1
    assert low < uneven["bots"][1]["win_share"] < high
    other = Arm(label="b", bots=("hard", "shark", "hard", "hard"), rules=Rules(players=4))
    totals = harness.Totals(other, rotations=4)
    shares = np.full((30, 4), scale, dtype=np.int64)  # even by chance: two bots, no shortcut
    totals.add(harness.ArmTally(shares, shares, *[np.zeros(4, dtype=np.int64)] * 3))
    assert totals.position_estimate(1).ci[0] < 0.25

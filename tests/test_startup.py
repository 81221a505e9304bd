"""Start-up: the strategy contract and every bot import without numba (or pandas, pyarrow,
matplotlib, joblib), so that ``barbaron bots``, which imports every bot to list it, starts fast;
the bots' numba kernels compile on first use (``barbaron.bots.common.lazy_njit``)."""

import subprocess
import sys
import textwrap

import pytest

HEAVY = ("numba", "pandas", "pyarrow", "matplotlib", "joblib")


def run(code: str, *args: str) -> None:
    """Run ``code`` in a fresh interpreter (nothing imported yet); fail if it fails."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_importing_the_strategy_contract_imports_no_numba():
    run(
        f"""
        import sys
        import barbaron.strategy
        heavy = [m for m in {HEAVY!r} if m in sys.modules]
        assert not heavy, heavy
        assert 'barbaron.streams' not in sys.modules and 'barbaron.view_kernels' not in sys.modules
        """
    )


def test_listing_the_bots_imports_every_bot_and_no_numba():
    run(
        f"""
        import pkgutil, sys
        import barbaron.bots
        from barbaron.registry import listing
        lines = listing()
        assert any(line.startswith('hard ') for line in lines), lines
        modules = [m.name for m in pkgutil.iter_modules(barbaron.bots.__path__, 'barbaron.bots.')]
        assert 'barbaron.bots.hard' in modules and 'barbaron.bots.threshold' in modules
        missing = [m for m in modules if m not in sys.modules]
        assert not missing, missing  # every bot module was imported, kernels and all
        heavy = [m for m in {HEAVY!r} if m in sys.modules]
        assert not heavy, heavy
        """
    )


def test_the_bots_kernels_compile_when_first_used():
    run(
        """
        import sys
        import numpy as np
        from barbaron.registry import make_bot
        from barbaron.rules import Rules
        from barbaron.strategy import BatchView, Decision
        import barbaron.bots.hard as hard
        early = hard._takeover_scores  # a reference taken before the first use
        assert 'numba' not in sys.modules
        rules, n = Rules(), 3
        view = BatchView(
            rules=rules, seat=0, round=5, slot=16, decision=Decision.UPGRADE, seed=0,
            game=np.arange(n), coins=np.full((n, 4), 900, np.int32),
            position=np.zeros((n, 4), np.int8), skip=np.zeros((n, 4), bool),
            owner=np.array([[0, 0, 0, 1, 1, 1, -1, -1, -1, 2, 2, 2]] * n, np.int8),
            level=np.zeros((n, 12), np.int8),
        )
        games = np.arange(n)
        choice = make_bot('hard').upgrade(view, games)
        assert 'numba' in sys.modules
        assert choice.dtype == np.int8 and ((choice >= 0) & (choice < 3)).all(), choice
        assert type(hard._upgrades).__module__.startswith('numba')  # the global is compiled now
        scores = early(view.coins, view.owner, view.level, view.position, games,
                       np.full(n, 3), 0, np.array([5, 5, 5, 5]), 1.0, 1.0)
        assert scores.shape == (n,) and np.isfinite(scores).all()
        """
    )


def test_a_lazy_kernel_calls_another_and_is_cached(tmp_path):
    (tmp_path / "lazy_kernels.py").write_text(
        textwrap.dedent(
            """
            from barbaron.bots.common import lazy_njit

            @lazy_njit
            def double(x):
                return 2 * x

            @lazy_njit
            def double_plus_one(x):
                return double(x) + 1
            """
        )
    )
    code = """
        import sys
        sys.path.insert(0, sys.argv[1])
        from lazy_kernels import double_plus_one
        import lazy_kernels
        assert 'numba' not in sys.modules
        assert double_plus_one(20) == 41
        assert type(lazy_kernels.double).__module__.startswith('numba')
        assert lazy_kernels.double_plus_one(1) == 3
        """
    run(code, str(tmp_path))
    assert list((tmp_path / "__pycache__").glob("lazy_kernels.double_plus_one-*.nbi"))
    run(code, str(tmp_path))  # again, from numba's cache


def test_numba_starts_without_the_scipy_linalg_package_and_leaves_it_importable():
    run(
        """
        import sys
        import numba, numpy as np
        import barbaron.streams  # sets numba's CPU target up (barbaron.numba_start)
        import numba.np.arraymath
        assert numba.np.arraymath._HAVE_BLAS  # numba's BLAS check found cython_blas
        assert 'scipy.linalg' not in sys.modules
        assert 'scipy.linalg.cython_blas' not in sys.modules  # taken out again
        import scipy.linalg.cython_blas
        import scipy.linalg
        assert scipy.linalg.cython_blas is sys.modules['scipy.linalg.cython_blas']
        assert scipy.linalg.solve([[2.0]], [1.0])[0] == 0.5
        square = numba.njit(lambda a: np.dot(a, a))  # a kernel that does call BLAS
        assert square(np.ones((2, 2)))[0, 0] == 2.0
        """
    )


def test_help_and_usage_errors_import_no_bot_and_no_numpy():
    """``barbaron --help`` and argparse's usage errors end the command with SystemExit before
    anything heavy is needed: nothing is imported to word them (a failure's line is)."""
    run(
        """
        import contextlib, io, sys
        from barbaron.cli import main
        said = io.StringIO()
        for argv in (['--help'], ['play', '--help'], ['play', '--bots'], ['plya']):
            with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
                with contextlib.suppress(SystemExit):
                    assert main(argv) == 2  # the usage error (--help exits 0 by SystemExit)
        heavy = ('numpy', 'barbaron.scenario', 'barbaron.registry')
        loaded = [m for m in heavy if m in sys.modules]
        assert not loaded, loaded
        assert 'usage:' in said.getvalue() and 'expected at least one argument' in said.getvalue()
        assert "invalid choice: 'plya' (did you mean 'play'?)" in said.getvalue()
        from barbaron.cli import OneLineParser
        from barbaron.errors import UsageError
        unquoted = "argument C: invalid choice: 'PLAY' (choose from play, x)"  # (Python 3.12)
        try:
            OneLineParser(prog='x').error(unquoted)
            raise AssertionError('no usage error')
        except UsageError as e:
            assert "'PLAY' (did you mean 'play'?)" in str(e), e
        """
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--bots", "nope", "greedy"],
        ["play", "--bots", "greedy", "greedy", "--games", "-5"],
        ["compare", "hard", "normal", "--field", "nope"],
        ["seats", "--bots", "nope", "--players", "4", "--bonus", "0:100:50"],
        ["sweep", "--bot", "nope", "--param", "risk=0:1:0.5"],
        ["tournament", "--bots", "nope", "hard"],
        ["tune", "--bot", "nope", "--param", "risk=0:1"],
        ["check", "nope"],
        ["replay", "--seed", "0", "--game", "0", "--bots", "nope", "greedy"],
        ["replay", "--run", "no-such-folder", "--game", "0"],
        ["bench", "--games", "-3"],
    ],
    ids=lambda argv: " ".join(argv[:3]),
)
def test_a_usage_error_found_by_the_library_loads_no_engine(tmp_path, argv):
    """Issue 9: any usage error within 0.4 s. Those found past argparse (a bad spec, a number
    out of range, no results folder) are found before numba (a third of a second or more),
    pandas, pyarrow, matplotlib or joblib load: play, tournament and the rest checked them
    after."""
    out = [] if argv[0] in ("check", "replay", "bench") else ["--out", str(tmp_path / "out")]
    run(
        f"""
        import contextlib, io, sys
        from barbaron.cli import main
        said = io.StringIO()
        with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
            status = main(sys.argv[1:])
        assert status == 2 and said.getvalue().startswith("error: "), (status, said.getvalue())
        loaded = [m for m in {HEAVY!r} if m in sys.modules]
        assert not loaded, loaded
        """,
        *argv,
        *out,
    )


@pytest.mark.parametrize(
    "started_as, quiet",
    [
        ('sys.argv[0] = "/venv/bin/barbaron"', True),  # the console script
        ('sys.argv[0] = "-m"; sys.orig_argv = [sys.executable, "-m", "barbaron"]', True),
        ('sys.argv[0] = "-m"; sys.orig_argv = [sys.executable, "-m", "mine"]', False),  # a user's
        ('sys.argv[0] = "mine.py"', False),
        # a helper spawned by the command (macOS, Windows): argv copied, its pool handles it
        ('sys.argv[0] = "/venv/bin/barbaron"; sys.orig_argv += ["--multiprocessing-fork"]', False),
    ],
)
@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_the_command_interrupted_while_it_imports_says_one_line(started_as, quiet, signal_name):
    """A Ctrl-C in its first tenths of a second printed a KeyboardInterrupt traceback, and a
    SIGTERM ended it without a word (exit 143, QA). Once barbaron's package runs, either is one
    line and exit 130; a program that only uses the library keeps Python's handling."""
    code = f"""
import os, signal, sys, time
{started_as}
import barbaron.cli
os.kill(os.getpid(), signal.{signal_name})
time.sleep(30)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    if quiet:
        assert (done.returncode, done.stderr) == (130, "error: interrupted\n")
    else:
        assert done.returncode != 130 and "error: interrupted" not in done.stderr

"""Results folders: written as a run goes (shards), finished atomically, resumable after Ctrl-C.

A run writes into ``OUT.partial/``: ``manifest.json`` (status "partial"), and per finished unit
of work a shard of rows and a tally file. Finishing joins the shards into ``games.parquet``,
writes ``summary.json``, ``summary.csv`` and the plots, marks the manifest "complete" and renames
the folder to ``OUT``. An interrupted run leaves ``OUT.partial/``, which ``--resume`` continues.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from barbaron import __version__
from barbaron.harness import ArmRows, ArmTally, Job, UnitResult, play_unit


class ResultsError(RuntimeError):
    """The results folder cannot be used as asked (exists, partial, mismatched)."""


def job_record(job: Job) -> dict:
    """The job as JSON: everything needed to play it again."""
    return {
        "arms": [
            {"label": a.label, "bots": list(a.bots), "rules": dataclasses.asdict(a.rules)}
            for a in job.arms
        ],
        "games": job.games,
        "seed": job.seed,
        "rotate": job.rotate,
        "rotations": job.rotations,
        "deals": job.deals,
    }


def _git_commit() -> str | None:
    try:
        here = Path(__file__).resolve().parent
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5
        )
        return done.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def write_json(path: Path, data: object) -> None:
    """Write JSON atomically (temporary file, then rename)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=_jsonable) + "\n")
    os.replace(tmp, path)


def _jsonable(value: object) -> object:
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def shard_path(shards: Path, unit: int) -> Path:
    """Where unit ``unit``'s rows are written."""
    return shards / f"unit-{unit:07d}.parquet"


def rows_table(job: Job, rows: list[ArmRows]) -> pa.Table:
    """The games.parquet rows of one unit (all arms), as an Arrow table."""
    tables = []
    for arm_index, (arm, arm_rows) in enumerate(zip(job.arms, rows, strict=True)):
        n = len(arm_rows.game)
        columns = {}
        if len(job.arms) > 1:
            columns["arm"] = pa.DictionaryArray.from_arrays(
                np.full(n, arm_index, dtype=np.int8), [a.label for a in job.arms]
            )
        columns.update(
            {
                "game": arm_rows.game,
                "deal": arm_rows.deal,
                "rotation": arm_rows.rotation,
                "seat": arm_rows.seat,
                "bot": pa.DictionaryArray.from_arrays(arm_rows.bot, list(arm.distinct_bots)),
                "start_coins": arm_rows.start_coins,
                "coins": arm_rows.coins,
                "worth": arm_rows.worth,
                "win_share": arm_rows.win_share,
                "bars": arm_rows.bars,
            }
        )
        tables.append(pa.table(columns))
    return pa.concat_tables(tables)


def write_shard(job: Job, result: UnitResult, path: Path) -> None:
    """Write a unit's rows to ``path`` atomically (uncompressed: shards are temporary, and
    joining them into games.parquet compresses)."""
    tmp = path.with_suffix(".tmp")
    pq.write_table(rows_table(job, result.rows), tmp, compression="none")
    os.replace(tmp, path)


def play_and_write(
    job: Job, unit: int, strategies: dict | None = None, *, shards: Path
) -> UnitResult:
    """Play a unit and write its shard in the worker; return only what the parent needs."""
    result = play_unit(job, unit, strategies)
    write_shard(job, result, shard_path(shards, unit))
    result.rows = []
    return result


class RunFolder:
    """The folder of one run: create or resume it, add units, finish it."""

    def __init__(
        self, out: str | Path, job: Job, command: str, *, force: bool = False, resume: bool = False
    ) -> None:
        self.out = Path(out).resolve()  # so that "a/.." never names a parent to replace
        if self.out.parent == self.out or not self.out.name:
            raise ResultsError(f"--out {out!r} names no folder to create")
        self.partial = self.out.with_name(self.out.name + ".partial")
        self.job, self.force = job, force
        self.record = job_record(job)
        if self.out.exists() and not force:
            raise ResultsError(
                f"{self.out} exists: choose another --out or add --force to replace it"
            )
        if self.out.exists() and not (self.out / "manifest.json").is_file():
            raise ResultsError(
                f"{self.out} exists and is not a barbaron results folder (no "
                "manifest.json): --force replaces only results folders"
            )
        if self.partial.exists():
            if resume:
                self._check_resumable()
            elif force:
                shutil.rmtree(self.partial)
            else:
                raise ResultsError(
                    f"{self.partial} holds an interrupted run: add --resume to "
                    "continue it or --force to start over"
                )
        elif resume:
            raise ResultsError(f"nothing to resume: {self.partial} does not exist")
        try:
            (self.partial / "shards").mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ResultsError(f"cannot create {self.partial}: {e.strerror or e}") from None
        self.manifest = (
            self._read_manifest()
            if resume
            else {
                "status": "partial",
                "command": command,
                "argv": sys.argv,
                "job": self.record,
                "workers": job.workers,
                "backend": job.backend,
                "batch_size": job.batch_size,
                "barbaron": __version__,
                "git_commit": _git_commit(),
                "python": sys.version.split()[0],
                "host": socket.gethostname(),
                "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            }
        )
        write_json(self.partial / "manifest.json", self.manifest)

    def _read_manifest(self) -> dict:
        try:
            return json.loads((self.partial / "manifest.json").read_text())
        except (OSError, ValueError) as e:
            raise ResultsError(
                f"cannot resume {self.partial}: no readable manifest ({e})"
            ) from None

    def _check_resumable(self) -> None:
        manifest = self._read_manifest()
        if manifest.get("job") != self.record:
            raise ResultsError(
                f"cannot resume {self.partial}: it was started with other bots, "
                "rules, games, seed or rotation; repeat its command exactly "
                "(see its manifest.json) or use --force to start over"
            )
        if manifest.get("batch_size") != self.job.batch_size:
            raise ResultsError(
                f"cannot resume {self.partial}: it used --batch-size "
                f"{manifest.get('batch_size')}; resume with the same"
            )

    # --- units --------------------------------------------------------------------------
    def _shard(self, unit: int) -> Path:
        return shard_path(self.partial / "shards", unit)

    def _tally(self, unit: int) -> Path:
        return self.partial / "shards" / f"unit-{unit:07d}.npz"

    def done_units(self) -> list[int]:
        """Units whose shard and tally were both written completely."""
        return sorted(
            u for u in range(self.job.units) if self._shard(u).exists() and self._tally(u).exists()
        )

    def load_tallies(self, unit: int) -> list[ArmTally]:
        """The tallies of a finished unit (for a resumed run's summary)."""
        with np.load(self._tally(unit)) as data:
            return [
                ArmTally(**{f.name: data[f"{i}.{f.name}"] for f in dataclasses.fields(ArmTally)})
                for i in range(len(self.job.arms))
            ]

    def add(self, result: UnitResult) -> None:
        """Record a finished unit: its rows as a Parquet shard (unless its worker wrote it
        already), then its tallies, each atomically; the tally file marks the unit done."""
        if result.rows:
            write_shard(self.job, result, self._shard(result.unit))
        arrays = {
            f"{i}.{f.name}": getattr(t, f.name)
            for i, t in enumerate(result.tallies)
            for f in dataclasses.fields(ArmTally)
        }
        tmp = self._tally(result.unit).with_name(f"unit-{result.unit:07d}.tmp.npz")
        np.savez(tmp, **arrays)
        os.replace(tmp, self._tally(result.unit))

    def unit_task(self) -> Callable[..., UnitResult]:
        """What a worker runs per unit: on this machine it also writes its own shard (the
        parent only adds tallies); on a dask cluster the rows come back to be written here."""
        if self.job.backend == "dask":
            return play_unit
        return functools.partial(play_and_write, shards=self.partial / "shards")

    def shard_files(self) -> list[Path]:
        """The Parquet shards of the finished units, in unit order."""
        return [self._shard(u) for u in self.done_units()]

    # --- the end ------------------------------------------------------------------------
    def finish(
        self,
        summary: dict,
        table: list[dict],
        plots: list[tuple[str, object]],
        *,
        seconds: float,
        games_played: int,
    ) -> Path:
        """Join the shards, write summary.json, ``table`` as summary.csv, and the plots, then
        move the folder into place. ``seconds`` and ``games_played`` are this session's."""
        shards = self.shard_files()
        writer = None
        try:
            for shard in shards:
                rows = pq.read_table(shard)
                if writer is None:
                    writer = pq.ParquetWriter(
                        self.partial / "games.parquet", rows.schema, compression="zstd"
                    )
                writer.write_table(rows)
        finally:
            if writer is not None:
                writer.close()
        write_json(self.partial / "summary.json", summary)
        _write_csv(self.partial / "summary.csv", table)
        for name, figure in plots:
            figure.savefig(self.partial / name, dpi=110, bbox_inches="tight")
        self.manifest.update(
            {
                "status": "complete",
                "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "seconds": round(seconds, 3),
                "games_per_second": round(games_played / max(seconds, 1e-9)),
            }
        )
        write_json(self.partial / "manifest.json", self.manifest)
        shutil.rmtree(self.partial / "shards")
        if self.out.exists():  # only with --force
            shutil.rmtree(self.out)
        os.replace(self.partial, self.out)
        return self.out


class InMemory:
    """Where a run without a results folder keeps its games: in memory, as Arrow tables."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self._tables: list[pa.Table] = []

    def done_units(self) -> list[int]:
        """None: a run in memory starts from nothing."""
        return []

    def add(self, result: UnitResult) -> None:
        """Keep a finished unit's rows."""
        self._tables.append(rows_table(self.job, result.rows))

    def unit_task(self) -> Callable[..., UnitResult]:
        """What a worker runs per unit: play it and send the rows back."""
        return play_unit

    def table(self) -> pa.Table:
        """Every game played, one row per game and seat, in unit order."""
        return pa.concat_tables(self._tables)


def flat_rows(rows: list[dict]) -> list[dict]:
    """Table rows with each interval ``X_ci`` as two columns ``X_ci_low``, ``X_ci_high`` and
    nested values left out: what summary.csv and the results' DataFrames hold."""
    flat = []
    for row in rows:
        out = {}
        for key, value in row.items():
            if key.endswith("_ci"):
                out[f"{key}_low"], out[f"{key}_high"] = value
            elif not isinstance(value, dict | list):
                out[key] = value
        flat.append(out)
    return flat


def _write_csv(path: Path, rows: list[dict]) -> None:
    """summary.csv: the command's main table, one row per line, intervals as two columns."""
    import pandas as pd

    tmp = path.with_name(path.name + ".tmp")
    pd.DataFrame(flat_rows(rows)).to_csv(tmp, index=False)
    os.replace(tmp, path)

"""Helpers the study scripts share: run a barbaron command once, reuse its finished folder."""

from __future__ import annotations

import json
from pathlib import Path

from barbaron.cli import main as barbaron

ROOT = Path(__file__).resolve().parents[1]


def run(
    command: str,
    argv: list[str],
    out: Path,
    *,
    workers: int,
    force: bool = False,
    quiet: bool = True,
) -> dict:
    """``barbaron COMMAND ARGV --out OUT`` unless OUT already holds a finished run (or
    ``force``); return its summary.json."""
    if force or not (out / "summary.json").exists():
        full = [command, *argv, "--out", str(out), "--workers", str(workers), "--force"]
        if quiet:
            full.append("--quiet")
        print("$ barbaron " + " ".join(full[:-2] if quiet else full), flush=True)
        if barbaron(full) != 0:
            raise SystemExit(f"barbaron {command} failed for {out}")
    return json.loads((out / "summary.json").read_text())

"""Shared fixtures: the CLI binary (HEXSIGHT_BIN, default the release build) and the maps."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAPS = sorted((ROOT / "maps").glob("*.json"))


def _target_dir() -> Path:
    return Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))


@pytest.fixture(scope="session")
def cli():
    """Runs the `hexsight` CLI; returns stdout, or the CompletedProcess with check=False."""
    binary = os.environ.get("HEXSIGHT_BIN") or str(_target_dir() / "release" / "hexsight")
    if not Path(binary).exists():
        pytest.fail(f"no hexsight binary at {binary}: run cargo build --release or set HEXSIGHT_BIN")

    def run(*args, check=True):
        p = subprocess.run([binary, *map(str, args)], capture_output=True, text=True)
        if check:
            assert p.returncode == 0, p.stderr
            return p.stdout
        return p

    return run


@pytest.fixture(scope="session")
def cli_json(cli):
    return lambda *args: json.loads(cli(*args))

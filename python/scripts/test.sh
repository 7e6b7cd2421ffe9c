#!/usr/bin/env bash
# Builds the `hexsight` Python package as a wheel with maturin, installs it into a
# fresh virtual environment and runs the pytest suite (python/tests) against the
# release CLI. Run from anywhere; needs python3 with venv, pip access, cargo.
#   PYTHON=python3.12 python/scripts/test.sh   # another interpreter
#   python/scripts/test.sh -k dask              # arguments go to pytest
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
venv="${HEXSIGHT_VENV:-${TMPDIR:-/tmp}/hexsight-python-test-venv}"

# The CLI the tests compare against (already built by `cargo test --workspace --release`).
cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p hexsight

rm -rf "$venv"
"${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/pip" install --quiet --upgrade pip
"$venv/bin/pip" install --quiet "maturin>=1.7,<2" numpy pytest dask distributed

wheels="${HEXSIGHT_WHEELS:-$target/wheels}"  # kept: the wheel CI builds
"$venv/bin/maturin" build --release --quiet --manifest-path "$root/python/Cargo.toml" --out "$wheels"
"$venv/bin/pip" install --quiet --force-reinstall --no-deps "$(ls -t "$wheels"/hexsight-*.whl | head -1)"

cd "$root/python/tests"
HEXSIGHT_BIN="$target/release/hexsight" "$venv/bin/python" -m pytest -q "$@"

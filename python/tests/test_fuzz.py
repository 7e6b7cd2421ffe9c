"""The map fuzzer's mutants (tests/fuzz.rs, HEXSIGHT_FUZZ_WRITE) through the bindings:
each mutated map either loads and answers ``los`` or raises ``HexsightError``; none
aborts the interpreter or raises anything else (a Rust panic would be pyo3's
PanicException). The mutants run in one child interpreter, so an abort fails this test
with the last mutant it reached instead of killing pytest."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

CASES = 300

# Runs in the child: one JSON line per mutant, written before and after each so the
# last line names the mutant an abort stopped at.
CHILD = r"""
import json, random, sys
from pathlib import Path
import hexsight

for path in sorted(Path(sys.argv[1]).glob("fuzz-*.json")):
    if path.name.endswith("-rules.json"):
        continue
    print(json.dumps({"start": path.name}), flush=True)
    try:
        m = hexsight.load(path)
    except hexsight.HexsightError as e:
        print(json.dumps({"file": path.name, "outcome": "refused", "lines": len(str(e).splitlines())}), flush=True)
        continue
    except BaseException as e:
        print(json.dumps({"file": path.name, "outcome": "load raised " + type(e).__name__ + ": " + str(e)[:300]}), flush=True)
        continue
    rng = random.Random(path.name)
    labels = m.labels
    outcome = "loaded"
    for _ in range(8):
        a, b = rng.choice(labels), rng.choice(labels)
        try:
            r = m.los(a, b)
            assert r["verdict"] in ("clear", "hindered", "blocked"), r
        except hexsight.HexsightError:
            pass
        except BaseException as e:
            outcome = f"los {a} {b} raised {type(e).__name__}: {str(e)[:300]}"
            break
    print(json.dumps({"file": path.name, "outcome": outcome}), flush=True)
"""


@pytest.fixture(scope="module")
def mutants(tmp_path_factory):
    """The fuzzer's first CASES cases' files, written by the Rust test itself."""
    out = tmp_path_factory.mktemp("mutants")
    env = dict(os.environ, HEXSIGHT_FUZZ_WRITE=str(out), HEXSIGHT_FUZZ_CASES=str(CASES))
    p = subprocess.run(
        ["cargo", "test", "--workspace", "--release", "--quiet", "--manifest-path", str(ROOT / "Cargo.toml"),
         "--test", "fuzz"],
        env=env, capture_output=True, text=True,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return out


def test_every_mutant_loads_and_answers_or_raises_the_package_error(mutants):
    maps = [p for p in mutants.glob("fuzz-*.json") if not p.name.endswith("-rules.json")]
    assert len(maps) == CASES
    p = subprocess.run([sys.executable, "-c", CHILD, str(mutants)], capture_output=True, text=True)
    lines = [json.loads(l) for l in p.stdout.splitlines()]
    last = next((l["start"] for l in reversed(lines) if "start" in l), None)
    assert p.returncode == 0, f"the interpreter died (code {p.returncode}) at {last}: {p.stderr[-2000:]}"
    done = [l for l in lines if "outcome" in l]
    assert len(done) == CASES
    bad = [l for l in done if l["outcome"] not in ("loaded", "refused")]
    assert not bad, bad[:10]
    assert all(l["lines"] == 1 for l in done if l["outcome"] == "refused")
    loaded = sum(l["outcome"] == "loaded" for l in done)
    # Enough of both to test both ways (the Rust fuzzer asks the same of its cases).
    assert loaded * 10 > CASES and (CASES - loaded) * 10 > CASES, loaded

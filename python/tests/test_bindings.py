"""The bindings agree with the CLI's JSON on every bundled map; errors are exceptions."""

import random

import numpy as np
import pytest

import hexsight
from conftest import MAPS

CODES = {"clear": 0, "hindered": 1, "blocked": 2}


@pytest.mark.parametrize("path", MAPS, ids=lambda p: p.name)
def test_map_attributes(path, cli_json):
    m = hexsight.load(path)
    e = cli_json("exposure", path, "--json")
    assert m.name == e["map"]
    assert m.ruleset == e["ruleset"]
    assert m.labels == list(e["hexes"])
    cols, rows = m.shape
    assert cols * rows == len(m) == len(m.labels)


@pytest.mark.parametrize("path", MAPS, ids=lambda p: p.name)
def test_los_on_sampled_pairs(path, cli_json):
    m = hexsight.load(path)
    rng = random.Random(14)
    for _ in range(12):
        a, b = rng.choice(m.labels), rng.choice(m.labels)
        assert m.los(a, b) == cli_json("los", path, a, b, "--json"), (a, b)
    a, b = m.labels[0], m.labels[-1]
    assert m.los(a, b, range="3") == cli_json("los", path, a, b, "--json", "--range", "3")


def viewshed_hexes(v):
    """Each hex of `viewshed --json` (labels listed by class) as {verdict, hindrance, blind}."""
    out = {l: {"verdict": "clear", "hindrance": 0, "blind": False} for l in v["clear"]}
    out.update({l: {"verdict": "hindered", "hindrance": h, "blind": False} for l, h in v["hindered"].items()})
    blind = set(v["blind"])
    out.update({l: {"verdict": "blocked", "hindrance": 0, "blind": l in blind} for l in v["blocked"]})
    return out


@pytest.mark.parametrize("path", MAPS, ids=lambda p: p.name)
def test_viewshed(path, cli_json):
    m = hexsight.load(path)
    for hex in random.Random(7).sample(m.labels, 3):
        v = m.viewshed(hex)
        want = viewshed_hexes(cli_json("viewshed", path, "--from", hex, "--json"))
        assert v["verdict"].dtype == np.uint8 and v["blind"].dtype == np.bool_
        assert v["verdict"].tolist() == [CODES[want[l]["verdict"]] for l in m.labels]
        assert v["hindrance"].tolist() == [want[l]["hindrance"] for l in m.labels]
        assert v["blind"].tolist() == [want[l]["blind"] for l in m.labels]


def test_viewsheds_from_threads_share_one_map():
    """A map lays out its engine at its first viewshed and keeps it: viewsheds asked from
    several threads at once, the engine not yet laid out, equal those of a map each."""
    from concurrent.futures import ThreadPoolExecutor

    path = MAPS[0]
    m = hexsight.load(path)
    hexes = random.Random(3).sample(m.labels, 8)
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(m.viewshed, hexes))
    for hex, v in zip(hexes, got):
        want = hexsight.load(path).viewshed(hex)
        for key in ("verdict", "hindrance", "blind"):
            assert v[key].tolist() == want[key].tolist(), (hex, key)


@pytest.mark.parametrize("path", MAPS, ids=lambda p: p.name)
# Zones that lie on every bundled map (the smallest, napoleonic-flank.json, is 9x9).
@pytest.mark.parametrize("zones", [(), ("A1:F8",), ("A1:E5", "C3:I9")])
def test_exposure(path, zones, cli_json):
    m = hexsight.load(path)
    sees, seen_by = m.exposure(*zones)
    assert sees.dtype == np.uint32 and seen_by.dtype == np.uint32
    args = [a for opt, z in zip(["--from", "--to"], zones) for a in (opt, z)]
    want = cli_json("exposure", path, "--json", *args)["hexes"]
    assert sees.tolist() == [want[l]["sees"] for l in m.labels]
    assert seen_by.tolist() == [want[l]["seen_by"] for l in m.labels]
    parts = [m.exposure(*zones, shard=(k, 3)) for k in range(3)]
    assert (sum(p[0] for p in parts) == sees).all()
    assert (sum(p[1] for p in parts) == seen_by).all()


@pytest.mark.parametrize("path", MAPS, ids=lambda p: p.name)
def test_matrix(path, tmp_path, cli):
    m = hexsight.load(path)
    bits = m.matrix()
    n = len(m)
    assert bits.dtype == np.uint64 and bits.shape == (n, (n + 63) // 64)
    out = tmp_path / "m.npy"
    cli("matrix", path, "--out", out)
    assert (hexsight.unpack(bits, n) == np.load(out).astype(bool)).all()
    sees, _ = m.exposure()
    assert (hexsight.unpack(bits, n).sum(axis=1) == sees).all()
    zoned = m.matrix("A1:C4", "B2:F6")
    rows, cols = len(m.zone("A1:C4")), len(m.zone("B2:F6"))
    full = hexsight.unpack(bits, n)
    want = full[np.ix_(m.zone("A1:C4"), m.zone("B2:F6"))]
    assert (hexsight.unpack(zoned, cols) == want).all() and want.shape == (rows, cols)


def test_generate_matches_the_cli(tmp_path, cli):
    out = tmp_path / "cli.json"
    cli("generate", "--cols", 12, "--rows", 9, "--seed", 5, "--ruleset", "asl", "--out", out)
    g = hexsight.generate(cols=12, rows=9, seed=5, ruleset="asl", out=tmp_path / "py.json")
    assert (tmp_path / "py.json").read_text() == out.read_text()
    assert g.labels == hexsight.load(out).labels
    assert (g.exposure()[0] == hexsight.load(out).exposure()[0]).all()


def test_errors_are_exceptions_with_the_cli_message(tmp_path, cli):
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1, "cols": 3,')
    p = cli("validate", bad, check=False)
    with pytest.raises(hexsight.HexsightError) as e:
        hexsight.load(bad)
    assert p.returncode == 2
    assert p.stderr.strip() == f"hexsight: {e.value}"
    assert "\n" not in str(e.value)
    m = hexsight.load(MAPS[0])
    with pytest.raises(hexsight.HexsightError, match="not a hex of this"):
        m.los("A1", "ZZ99")
    with pytest.raises(hexsight.HexsightError, match="not a hex of this"):
        m.viewshed("Q0")
    with pytest.raises(hexsight.HexsightError, match="from_zone"):
        m.exposure("A1:ZZ9")
    with pytest.raises(hexsight.HexsightError, match="to_zone"):
        m.matrix(None, "nowhere-zone")
    with pytest.raises(hexsight.HexsightError, match="shard"):
        m.exposure(shard=(3, 3))
    with pytest.raises(hexsight.HexsightError):
        hexsight.generate(cols=5, rows=5, ruleset="no-such-rules")
    with pytest.raises(hexsight.HexsightError):
        hexsight.load(tmp_path / "missing.json")
    with pytest.raises(ValueError):
        hexsight.unpack(m.matrix(), 10_000)


def test_refusals_for_memory_have_their_own_class():
    # A 1000x1000 map's matrix needs about 116 GiB of bits: refused before any work.
    big = hexsight.generate(cols=1000, rows=1000, seed=1)
    with pytest.raises(hexsight.TooLargeError, match="MiB") as e:
        big.matrix()
    assert isinstance(e.value, hexsight.HexsightError)
    assert not issubclass(hexsight.CancelledError, hexsight.TooLargeError)
    assert issubclass(hexsight.CancelledError, hexsight.HexsightError)


def test_the_gil_is_released_while_the_engine_runs():
    import threading
    import time

    m = hexsight.generate(cols=120, rows=120, seed=3)
    span = []

    def run():
        span.append(time.perf_counter())  # with the GIL held
        m.exposure()
        span.append(time.perf_counter())

    worker = threading.Thread(target=run)
    ticks = []
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
    worker.join()
    # This thread ran while the engine did: it could only if the call let go of the GIL.
    assert sum(span[0] < t < span[1] for t in ticks) > 100

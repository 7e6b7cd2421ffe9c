"""What-if through the bindings: layers, diff and lowest visible heights agree with
the CLI's --layer, diff --json and viewshed --min-height --json; errors are the
package's exceptions."""

import json

import numpy as np
import pytest

import hexsight
from conftest import ROOT

MAP = ROOT / "maps" / "asl-stream-crest.json"
BT = ROOT / "maps" / "battletech-ridge.json"
NAP = ROOT / "maps" / "napoleonic-ridge.json"


@pytest.fixture
def layer(tmp_path):
    """Woods and smoke where the ASL map has open ground (as tests/what_if.rs)."""
    p = tmp_path / "layer.json"
    p.write_text(json.dumps({
        "hexsight_layer": 1,
        "hexes": {"F6": {"terrain": "woods"}, "G6": {"terrain": "woods", "level": 1}},
        "add": {"markers": [{"hex": "H7", "kind": "smoke"}]},
    }))
    return p


def test_a_layered_map_answers_as_the_cli_with_layer(layer, cli_json):
    m = hexsight.load(MAP, layers=[layer])
    plain = hexsight.load(MAP)
    assert m.labels == plain.labels
    assert hexsight.load(MAP).with_layers([layer]).los("C5", "J7") == m.los("C5", "J7")
    changed = 0
    for a, b in [("C5", "J7"), ("C5", "H7"), ("G6", "C5"), ("A1", "J7")]:
        want = cli_json("los", MAP, a, b, "--json", "--layer", layer)
        assert m.los(a, b) == want, (a, b)
        changed += m.los(a, b) != plain.los(a, b)
    assert changed > 0
    sees, seen_by = m.exposure()
    want = cli_json("exposure", MAP, "--json", "--layer", layer)["hexes"]
    assert sees.tolist() == [want[l]["sees"] for l in m.labels]
    assert seen_by.tolist() == [want[l]["seen_by"] for l in m.labels]


def test_diff_equals_the_cli_diff_against_the_layer(layer, cli_json):
    before, after = hexsight.load(MAP), hexsight.load(MAP, layers=[layer])
    d = before.diff(after, views=["C5", "G6"])
    want = cli_json("diff", MAP, "--json", "--against-layer", layer, "--view", "C5,G6")
    assert (d["gained"], d["lost"]) == (want["counts"]["gained"], want["counts"]["lost"])
    assert d["gained"] + d["lost"] > 0
    assert [list(p) for p in d["first_gained"]] == want["first_gained"]
    assert [list(p) for p in d["first_lost"]] == want["first_lost"]
    labels = before.labels
    for ours, theirs in [("sees", "sees_change"), ("seen_by", "seen_by_change")]:
        assert d[ours].dtype == np.int64 and len(d[ours]) == len(before)
        assert {labels[i]: int(x) for i, x in enumerate(d[ours]) if x} == want[theirs]
    assert list(d["views"]) == [v["from"] for v in want["views"]]
    for v in want["views"]:
        mine = d["views"][v["from"]]
        for k in ("gained", "lost"):
            assert mine[k].dtype == np.bool_
            assert [labels[j] for j in np.flatnonzero(mine[k])] == v[k]
    # The per-hex change is the difference of two exposure runs.
    assert (d["seen_by"] == after.exposure()[1].astype(np.int64) - before.exposure()[1]).all()
    same = before.diff(hexsight.load(MAP), from_zone="A1:E5")
    assert (same["gained"], same["lost"]) == (0, 0) and not same["seen_by"].any()


def heights(answer, labels):
    return [hexsight.NOT_SEEN if answer["heights"][l] is None else answer["heights"][l] for l in labels]


@pytest.mark.parametrize("path, hex, kinds", [
    (MAP, "C5", []),
    (BT, "E5", []),
    (BT, "E5", ["--kind", "vehicle"]),
    (BT, "E5", ["--kind", "infantry", "--observer-kind", "mech:prone"]),
    (NAP, "J9", ["--kind", "infantry:prone"]),
])
def test_min_height_equals_the_cli(path, hex, kinds, cli_json):
    m = hexsight.load(path)
    names = dict(zip(kinds[::2], kinds[1::2]))
    got = m.min_height(hex, kind=names.get("--kind"), observer_kind=names.get("--observer-kind"), up_to=4)
    assert got.dtype == np.int32 and len(got) == len(m)
    want = cli_json("viewshed", path, "--from", hex, "--min-height", "4", "--json", *kinds)
    assert got.tolist() == heights(want, m.labels)
    # Height 0 is the viewshed as it is (without a kind).
    if not kinds:
        assert ((got == 0) == (m.viewshed(hex)["verdict"] < 2)).all()


def test_kinds_change_the_lowest_heights_and_taller_is_never_worse():
    m = hexsight.load(BT)
    mech = m.min_height("E5", kind="mech", observer_kind="mech")
    vehicle = m.min_height("E5", kind="vehicle", observer_kind="mech")
    assert (mech != vehicle).any()
    # On dry land a 'Mech is a level taller than a vehicle: seen wherever the vehicle
    # is, as low. In deep water the 'Mech is submerged and the vehicle floats.
    hexes = json.loads(BT.read_text())["hexes"]
    dry = np.array([not hexes.get(l, {}).get("terrain", "").startswith("water") for l in m.labels])
    seen = (vehicle != hexsight.NOT_SEEN) & dry
    assert (mech[seen] != hexsight.NOT_SEEN).all() and (mech[seen] <= vehicle[seen]).all()
    assert ((mech == hexsight.NOT_SEEN) & (vehicle != hexsight.NOT_SEEN) & ~dry).any()


def test_what_if_errors_are_the_package_exceptions(layer, tmp_path, cli):
    bad = tmp_path / "bad.json"
    bad.write_text('{"hexsight_layer": 1, "add": {"markers": [{"hex": "ZZ99", "kind": "smoke"}]}}')
    with pytest.raises(hexsight.HexsightError) as e:
        hexsight.load(MAP, layers=[bad])
    p = cli("los", MAP, "C5", "J7", "--layer", bad, check=False)
    assert p.stderr.strip() == f"hexsight: {e.value}"
    with pytest.raises(hexsight.HexsightError, match="bad.json"):
        hexsight.load(MAP).with_layers([bad])
    with pytest.raises(hexsight.HexsightError, match="not one grid"):
        hexsight.load(MAP).diff(hexsight.load(BT))
    with pytest.raises(hexsight.HexsightError, match="not a hex"):
        hexsight.load(MAP).diff(hexsight.load(MAP), views=["ZZ99"])
    with pytest.raises(hexsight.HexsightError, match="unknown unit kind `tank`"):
        hexsight.load(BT).min_height("E5", kind="tank")
    with pytest.raises(hexsight.HexsightError, match="observer_kind"):
        hexsight.load(BT).min_height("E5", kind="mech", observer_kind="mech:flying")
    with pytest.raises(hexsight.HexsightError, match="no unit kinds"):
        hexsight.load(ROOT / "maps" / "hill-112.json").min_height("A1", kind="squad")
    with pytest.raises(hexsight.HexsightError, match="up_to"):
        hexsight.load(MAP).min_height("C5", up_to=10_000)
    big = hexsight.generate(cols=1000, rows=1000, seed=1)
    with pytest.raises(hexsight.TooLargeError):
        big.diff(big)

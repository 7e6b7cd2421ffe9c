"""Exposure over a Dask LocalCluster, and CLI shards merged, equal the single-machine run."""

import json

import numpy as np
import pytest

import hexsight
import hexsight.dask

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    path = tmp_path_factory.mktemp("maps") / "gen-40x30.json"
    hexsight.generate(cols=40, rows=30, seed=1, ruleset="combat-commander", out=path)
    return path


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.mark.parametrize("zones", [(None, None), ("A1:J12", None), ("A1:P20", "K5:AN30")])
def test_dask_equals_single_machine(generated, client, zones):
    want = hexsight.load(generated).exposure(*zones)
    for shards in (1, 2, 7, 0):
        got = hexsight.dask.exposure(generated, client, shards=shards, from_zone=zones[0], to_zone=zones[1])
        assert got[0].dtype == np.uint32 and got[1].dtype == np.uint32
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1]), shards


def test_dask_errors_surface_locally(generated, client):
    with pytest.raises(hexsight.HexsightError, match="not a hex"):
        hexsight.dask.exposure(generated, client, shards=2, from_zone="A1:ZZ99")


def test_cli_shards_merged_equal_the_bindings(generated, tmp_path, cli):
    parts = []
    for k in range(3):
        out = tmp_path / f"part-{k}.npz"
        cli("exposure", generated, "--shard", f"{k}/3", "--out", out)
        parts.append(out)
        z = np.load(out)
        assert z["sees"].dtype == np.uint32 and json.loads(z["meta.json"])["shard"] == k
    merged = tmp_path / "exposure.json"
    cli("merge", *parts, "--out", merged)
    m = hexsight.load(generated)
    sees, seen_by = m.exposure()
    hexes = json.loads(merged.read_text())["hexes"]
    assert [hexes[l]["sees"] for l in m.labels] == sees.tolist()
    assert [hexes[l]["seen_by"] for l in m.labels] == seen_by.tolist()
    partial = np.load(parts[1])
    assert np.array_equal(partial["sees"], m.exposure(shard=(1, 3))[0])

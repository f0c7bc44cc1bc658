"""Import cost and memory of the binding, measured in child processes."""

import footprint
import twl_writer


def test_import_brings_nothing_heavy_beyond_numpy(mlp_path):
    result = footprint.measure(mlp_path, repeats=1)
    foreign = [m for m in result["new_modules"] if not m.startswith("tensorweave_lite")]
    assert foreign == [], f"importing tensorweave_lite also imported {foreign}"


import pytest


@pytest.mark.parametrize("sizes", [(64, 32, 10), (784, 512, 512, 10)], ids=["small", "784-512-512-10"])
def test_rss_above_numpy_is_small(tmp_path, sizes):
    # The large MLP has 2.6 MB of weights: the packed copy stays, the mapped
    # file pages are dropped after packing (Model::DropPages).
    path = tmp_path / "mlp.twl"
    path.write_bytes(twl_writer.mlp(sizes)[0])
    result = footprint.measure(str(path))
    print(result)
    # Goal: < 5 MiB above `import numpy` for load + one inference.
    assert result["rss_delta_kib"] < 5 * 1024, result
    assert result["current_rss_delta_kib"] < 5 * 1024, result

"""tools/api_coverage.py: its report's arithmetic, its exit status and its
stub marker, checked against an independent recount from the stored TF lists."""

import importlib.util
import json
import os
import subprocess
import sys
import types

import pytest
import tensorweave as tw

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, "tools", "api_coverage.py")


def _load_tool():
    spec = importlib.util.spec_from_file_location("api_coverage", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


coverage = _load_tool()


def _run(*args):
    return subprocess.run([sys.executable, TOOL, *args], check=False, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def stored_report():
    proc = _run("--json", "--stored")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_stored_report_says_listed_not_live(stored_report):
    assert "listed, not live" in stored_report["source"]


def test_cli_report_adds_up(stored_report):
    rows = stored_report["modules"]
    for r in rows:
        assert r["in_scope"] == r["tf_names"] - r["excluded"]
        assert r["have"] + len(r["missing"]) == r["in_scope"]
    total = stored_report["total"]
    for key in ("tf_names", "excluded", "in_scope", "have"):
        assert total[key] == sum(r[key] for r in rows)
    assert total["percent"] == round(100.0 * total["have"] / total["in_scope"], 1)


def test_report_arithmetic():
    # In this process, so that the recount sees the same tensorweave as the tool.
    with open(coverage.STORED) as f:
        stored = json.load(f)
    tf_lists = stored["modules"]
    rows, totals = coverage.measure(stored)
    stored_report = {"modules": rows, "total": totals}
    assert [r["module"] for r in rows] == coverage.MODULES
    for r in rows:
        names = tf_lists[r["module"]]
        excluded = coverage.EXCLUDED.get(r["module"], {})
        assert r["tf_names"] == len(names)
        assert r["excluded"] == len([n for n in names if n in excluded])
        assert r["in_scope"] == r["tf_names"] - r["excluded"]
        assert r["have"] + len(r["missing"]) == r["in_scope"]
        # An independent recount of what tensorweave has.
        module = tw
        if r["module"] != coverage.TOP:
            module = getattr(tw, r["module"], None)
        have = 0
        for n in names:
            if n in excluded or module is None or not hasattr(module, n):
                continue
            if n in getattr(module, "_UNSUPPORTED", ()) or getattr(getattr(module, n), "_tw_unsupported", False):
                continue
            have += 1
        assert r["have"] == have, r["module"]
        assert not set(r["missing"]) & set(excluded)
    total = stored_report["total"]
    for key in ("tf_names", "excluded", "in_scope", "have"):
        assert total[key] == sum(r[key] for r in rows)
    assert total["percent"] == round(100.0 * total["have"] / total["in_scope"], 1)


def test_every_exclusion_names_a_tf_name_and_gives_a_reason():
    with open(coverage.STORED) as f:
        tf_lists = json.load(f)["modules"]
    for module, names in coverage.EXCLUDED.items():
        for name, reason in names.items():
            assert name in tf_lists[module], f"{module}.{name} is not a TF name"
            assert len(reason) > 10


def test_table_and_min_percent_exit_status(stored_report):
    pct = stored_report["total"]["percent"]
    proc = _run("--stored", "--min-percent", str(max(pct - 1, 0)))
    assert proc.returncode == 0, proc.stderr
    assert f"{pct:.1f}%" in proc.stdout
    assert "listed, not live" in proc.stdout
    proc = _run("--stored", "--min-percent", str(pct + 0.5))
    assert proc.returncode == 1
    assert "below --min-percent" in proc.stderr


def test_stub_marker_does_not_count(monkeypatch):
    fake = types.ModuleType("tensorweave.fake")
    fake.real = lambda: 1
    fake.stub = lambda: 1
    fake.tagged = lambda: 1
    fake.tagged._tw_unsupported = True
    fake._UNSUPPORTED = frozenset({"stub"})
    assert coverage.has_name(fake, "real")
    assert not coverage.has_name(fake, "stub")
    assert not coverage.has_name(fake, "tagged")
    assert not coverage.has_name(fake, "absent")
    assert not coverage.has_name(None, "real")
    monkeypatch.setattr(coverage, "tensorweave_module", lambda name: fake)
    lists = {"modules": {m: ["real", "stub", "tagged", "absent"] for m in coverage.MODULES}}
    monkeypatch.setattr(coverage, "EXCLUDED", {coverage.TOP: {"absent": "a reason for the test"}})
    rows, total = coverage.measure(lists)
    assert rows[0]["in_scope"] == 3 and rows[0]["have"] == 1
    assert rows[1]["in_scope"] == 4 and rows[1]["have"] == 1
    assert total["have"] == len(coverage.MODULES)
    assert total["in_scope"] == 4 * len(coverage.MODULES) - 1

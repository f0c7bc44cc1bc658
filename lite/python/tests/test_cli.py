"""The tensorweave-lite command."""

import numpy as np
import pytest

from tensorweave_lite._src import cli
import twl_writer


def test_inspect(mlp_path, capsys):
    assert cli.main(["inspect", mlp_path]) == 0
    out = capsys.readouterr().out
    for text in (
        "FULLY_CONNECTED v1",
        "SOFTMAX v1",
        "0:input, 1:dense0/w",
        "dense0/w float32 [3,4]",
        "constant bytes: 92 in 4 tensors",
        "arena size:",
        "signature 'serving_default'",
        "metadata: producer = tensorweave-lite tests",
    ):
        assert text in out, text


def test_inspect_arena_follows_batch(mlp_path, capsys):
    sizes = []
    for batch in (1, 32):
        cli.main(["inspect", mlp_path, "--batch", str(batch)])
        line = [l for l in capsys.readouterr().out.splitlines() if l.startswith("arena size:")][0]
        sizes.append(int(line.split()[2]))
    assert sizes[1] > sizes[0] > 0


def test_run_by_signature_name(mlp_path, mlp_model, tmp_path):
    x = np.random.default_rng(0).random((3, 4), dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out.npz"
    assert cli.main(["run", mlp_path, "--input", f"x={tmp_path / 'x.npy'}", "--output", str(out)]) == 0
    with np.load(out) as result:
        np.testing.assert_allclose(result["probs"], twl_writer.mlp_reference(x, mlp_model[1]), rtol=1e-5, atol=1e-6)


def test_run_by_tensor_name(tmp_path):
    path = tmp_path / "two.twl"
    path.write_bytes(twl_writer.two_outputs(np.int32))
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", a * 2)
    out = tmp_path / "out.npz"
    assert (
        cli.main(
            [
                "run",
                str(path),
                "--input",
                f"a={tmp_path / 'a.npy'}",
                "--input",
                f"b={tmp_path / 'b.npy'}",
                "--output",
                str(out),
            ]
        )
        == 0
    )
    with np.load(out) as result:
        assert sorted(result.files) == ["diff", "sum_relu"]
        np.testing.assert_array_equal(result["sum_relu"], a * 3)
        np.testing.assert_array_equal(result["diff"], -a)


def test_run_errors(tmp_path, mlp_path, capsys):
    np.save(tmp_path / "bad.npy", np.zeros((1, 4)))  # float64
    assert cli.main(["run", mlp_path, "--input", f"x={tmp_path / 'bad.npy'}"]) == 1
    assert "float64" in capsys.readouterr().err
    assert cli.main(["inspect", str(tmp_path / "none.twl")]) == 1
    assert cli.main(["run", mlp_path, "--input", "novalue"]) == 1
    assert "--input expects NAME=FILE.npy, got 'novalue'" in capsys.readouterr().err


def test_benchmark(mlp_path, capsys):
    assert cli.main(["benchmark", mlp_path, "--runs", "50", "--num_threads", "2", "--batch", "4"]) == 0
    out = capsys.readouterr().out
    assert "mean" in out and "median" in out and "p90" in out


def test_benchmark_profile(mlp_path, capsys):
    assert cli.main(["benchmark", mlp_path, "--runs", "20", "--profile"]) == 0
    out = capsys.readouterr().out
    assert "op profile" in out
    rows = [
        l.split() for l in out.splitlines() if l.startswith("  ") and l.split()[0] in ("FULLY_CONNECTED", "SOFTMAX")
    ]
    counts = {r[0]: int(r[1]) for r in rows}
    assert counts == {"FULLY_CONNECTED": 2, "SOFTMAX": 1}
    assert abs(sum(float(r[3].rstrip("%")) for r in rows) - 100) < 0.1


def test_profile_ops_counts_every_node(mlp_path):
    from tensorweave_lite import Interpreter

    interpreter = Interpreter(model_path=mlp_path)
    interpreter.allocate_tensors()
    rows = interpreter.profile_ops(5)
    assert sorted((r["op"], r["count"]) for r in rows) == [("FULLY_CONNECTED", 2), ("SOFTMAX", 1)]
    assert all(r["us"] >= 0 for r in rows) and abs(sum(r["share"] for r in rows) - 1) < 1e-9
    with pytest.raises(ValueError):
        interpreter.profile_ops(0)


@pytest.mark.parametrize(
    "argv,fragment", [(["--runs", "0"], "must be at least 1, got 0"), (["--warmup", "-1"], "got -1")]
)
def test_benchmark_bad_counts_are_usage_errors(mlp_path, capsys, argv, fragment):
    # --runs 0 was a numpy IndexError traceback after the runs.
    with pytest.raises(SystemExit) as info:
        cli.main(["benchmark", mlp_path] + argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert fragment in err and "Traceback" not in err


def test_run_input_that_is_not_npy_names_the_input_and_file(tmp_path, mlp_path, capsys):
    bad = tmp_path / "garbage.npy"
    bad.write_bytes(b"garbage")
    assert cli.main(["run", mlp_path, "--input", f"x={bad}"]) == 1
    err = capsys.readouterr().err
    assert f"--input x: '{bad}' is not a .npy file" in err
    assert cli.main(["run", mlp_path, "--input", f"x={tmp_path / 'none.npy'}"]) == 1
    assert "--input x: cannot read" in capsys.readouterr().err


def test_truncated_and_garbage_models(tmp_path, mlp_model, capsys):
    for name, data, fragment in (
        ("trunc.twl", mlp_model[0][: len(mlp_model[0]) // 2], "trunc.twl"),
        ("garbage.twl", b"\0" * 100, "not a .twl model"),
        ("empty.twl", b"", "is empty"),
    ):
        path = tmp_path / name
        path.write_bytes(data)
        for command in (["inspect", str(path)], ["benchmark", str(path), "--runs", "1"]):
            assert cli.main(command) == 1
            err = capsys.readouterr().err
            assert fragment in err and "Traceback" not in err, err

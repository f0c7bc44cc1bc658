"""Hostile sizes never crash: a shape, padding, multiple, depth, segment count
or range length fed at run time that asks for an impossible tensor is an error
of TensorFlow's class naming the node, never a wrapped byte size (SIGSEGV,
heap garbage) or an uncaught std::bad_alloc. Thread pools that cannot start
are errors too, never a hang or std::terminate.

The error classes are what TensorFlow 1 (compat.v1) raises for the same
programs: InvalidArgumentError for a negative size or an element count beyond
int64, ResourceExhaustedError ("OOM when allocating tensor with shape ...")
for a byte size beyond int64 or the machine's memory. The cases that set
process limits run in a subprocess with a timeout, so none can hang the suite.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorweave as tw

I64 = tw.int64
OOM = tw.errors.ResourceExhaustedError
INVALID = tw.errors.InvalidArgumentError


def _run_error(sess, fetch, feeds, error_class, node_name, *fragments):
    """Runs `fetch`, asserting `error_class` whose message names the node and
    holds each fragment."""
    with pytest.raises(error_class) as info:
        sess.run(fetch, feeds)
    msg = str(info.value)
    assert type(info.value) is error_class, msg
    assert f"[[node {node_name}" in msg, msg
    for fragment in fragments:
        assert fragment in msg, msg
    return msg


# --- fill, zeros, ones --------------------------------------------------------


@pytest.mark.parametrize("make", [tw.zeros, tw.ones, lambda s, name: tw.fill(s, 2.0, name=name)])
def test_fill_byte_size_overflow_is_oom_naming_node_shape_dtype(sess, make):
    s = tw.placeholder(I64, [None])
    out = make(s, name="huge")
    # 2^62 float32 elements: 2^64 bytes, which wrapped to 0 (SIGSEGV).
    _run_error(sess, out, {s: [2**31, 2**31]}, OOM, "huge", "[2147483648,2147483648]", "float32")
    # The session is still usable afterwards.
    np.testing.assert_array_equal(sess.run(out, {s: [2, 3]}), np.full([2, 3], sess.run(out, {s: [1]})[0]))


def test_fill_element_count_overflow_is_invalid_argument(sess):
    s = tw.placeholder(I64, [None])
    out = tw.fill(s, 1.0, name="too_many")
    _run_error(sess, out, {s: [2**62, 4]}, INVALID, "too_many", "too many elements")


def test_fill_negative_dim_is_invalid_argument(sess):
    s = tw.placeholder(I64, [None])
    out = tw.fill(s, 1.0, name="negative")
    _run_error(sess, out, {s: [-1, 2]}, INVALID, "negative", "-1")


def test_beyond_machine_memory_is_oom(sess):
    s = tw.placeholder(I64, [None])
    out = tw.fill(s, 1.0, name="petabytes")
    # 2^50 floats: no overflow, but 4 PiB is more than any machine here.
    _run_error(sess, out, {s: [2**40, 2**10]}, OOM, "petabytes", "[1099511627776,1024]", "limit")


# --- range -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [tw.int64, tw.float32])
def test_range_of_2_pow_61_is_oom(sess, dtype):
    n = tw.placeholder(dtype, [])
    out = tw.range(n, name="long_range")
    _run_error(sess, out, {n: 2**61}, OOM, "long_range", "[2305843009213693952]")


def test_range_whose_length_does_not_fit_int64_is_invalid(sess):
    start = tw.placeholder(I64, [])
    limit = tw.placeholder(I64, [])
    out = tw.range(start, limit, name="span")
    # limit - start overflows int64 (it was computed in int64).
    _run_error(sess, out, {start: -(2**63), limit: 2**63 - 1}, INVALID, "span", "too large")
    np.testing.assert_array_equal(sess.run(out, {start: -2, limit: 3}), np.arange(-2, 3))


# --- pad, mirror pad, tile -------------------------------------------------------


def test_pad_huge_is_oom(sess):
    p = tw.placeholder(I64, [1, 2])
    out = tw.pad(tw.constant([1.0]), p, name="wide_pad")
    _run_error(sess, out, {p: [[2**61, 2**61]]}, OOM, "wide_pad", "[4611686018427387905]")


def test_pad_dim_overflow_is_invalid(sess):
    p = tw.placeholder(I64, [1, 2])
    out = tw.pad(tw.constant([1.0]), p, name="wrapping_pad")
    _run_error(sess, out, {p: [[2**62, 2**62]]}, INVALID, "wrapping_pad", "does not fit in int64")
    np.testing.assert_array_equal(sess.run(out, {p: [[1, 2]]}), [0.0, 1.0, 0.0, 0.0])


def test_tile_huge_is_oom_not_bad_alloc(sess):
    m = tw.placeholder(I64, [2])
    out = tw.tile(tw.constant([[1.0]]), m, name="big_tile")
    msg = _run_error(sess, out, {m: [2**31, 2**31]}, OOM, "big_tile", "[2147483648,2147483648]")
    assert "std::bad_alloc" not in msg and "_M_default_append" not in msg


def test_tile_dim_overflow_is_invalid(sess):
    m = tw.placeholder(I64, [2])
    out = tw.tile(tw.constant([[1.0, 2.0]]), m, name="wrapping_tile")
    _run_error(sess, out, {m: [2**62, 2**62]}, INVALID, "wrapping_tile", "does not fit in int64")


# --- one_hot, segments, gather --------------------------------------------------


def test_one_hot_huge_depth_is_oom(sess):
    d = tw.placeholder(tw.int32, [])
    out = tw.one_hot(tw.constant([[0, 1]] * 4), d, name="deep_one_hot")
    msg = _run_error(sess, out, {d: 2**31 - 1}, OOM, "deep_one_hot", "[4,2,2147483647]")
    assert "_M_default_append" not in msg


def test_unsorted_segment_sum_huge_then_gather_errors_not_garbage(sess):
    n = tw.placeholder(I64, [])
    i = tw.placeholder(I64, [None])
    seg = tw.unsorted_segment_sum(tw.constant([1.0, 1.0]), [0, 1], n, name="seg")
    out = tw.gather(seg, i, name="gathered")
    _run_error(sess, out, {n: 2**62, i: [0, 1, 2, 3, 1000]}, OOM, "seg", "[4611686018427387904]")
    # With a sane count the gather itself rejects the out-of-range index.
    _run_error(sess, out, {n: 4, i: [0, 1, 2, 3, 1000]}, INVALID, "gathered", "1000")
    np.testing.assert_array_equal(sess.run(out, {n: 4, i: [0, 1, 2, 3]}), [1.0, 1.0, 0.0, 0.0])


# --- random -------------------------------------------------------------------


@pytest.mark.parametrize("make", [tw.random_uniform, tw.random_normal, tw.truncated_normal])
def test_random_ops_huge_shape_is_oom(sess, make):
    s = tw.placeholder(I64, [None])
    out = make(s, name="noise")
    # The failing node is the sampler inside the name scope "noise".
    _run_error(
        sess,
        out,
        {s: [2**62]},
        OOM,
        "noise/Random" if make is not tw.truncated_normal else "noise",
        "[4611686018427387904]",
    )
    assert sess.run(out, {s: [3]}).shape == (3,)


# --- slice, reshape, concat -----------------------------------------------------


def test_slice_size_overflowing_begin_plus_size_is_invalid(sess):
    b = tw.placeholder(I64, [1])
    z = tw.placeholder(I64, [1])
    out = tw.slice(tw.constant([1.0, 2.0]), b, z, name="sl")
    # begin + size wrapped negative and passed the bounds check.
    _run_error(sess, out, {b: [1], z: [2**63 - 1]}, INVALID, "sl", "size[0]")
    np.testing.assert_array_equal(sess.run(out, {b: [1], z: [1]}), [2.0])


@pytest.mark.parametrize("shape", [[-1, 2**33, 2**31 + 1], [2**32, 2**32, 16]], ids=["with_unknown", "fully_given"])
def test_reshape_to_overflowing_shape_is_invalid(sess, shape):
    s = tw.placeholder(I64, [None])
    out = tw.reshape(tw.constant([1.0] * 16), s, name="rs")
    # The product wrapped to a divisor of 16: a view with a wrong shape.
    _run_error(sess, out, {s: shape}, INVALID, "rs", "2**63 - 1")
    assert sess.run(out, {s: [-1, 4]}).shape == (4, 4)


def test_concat_of_empty_tensors_with_huge_dims_is_invalid(sess):
    s = tw.placeholder(I64, [None])
    empty = tw.zeros(s)  # [2^62, 0]: no elements, a legal tensor
    out = tw.concat([empty, empty, empty], 0, name="cat")
    _run_error(sess, out, {s: [2**62, 0]}, INVALID, "cat", "does not fit in int64")
    assert sess.run(out, {s: [2**20, 0]}).shape == (3 * 2**20, 0)


# --- limits and failed allocations (subprocesses) ----------------------------------


def _python(code, env=None, timeout=120):
    """Runs `code` in a fresh interpreter; returns (returncode, stdout+stderr)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
    )
    return proc.returncode, proc.stdout + proc.stderr


def test_tensor_byte_limit_is_configurable():
    rc, out = _python(
        """
        import tensorweave as tw
        s = tw.placeholder(tw.int64, [None])
        z = tw.zeros(s, name="limited")
        with tw.Session() as sess:
            print(sess.run(z, {s: [250]}).shape)
            try:
                sess.run(z, {s: [251]})
            except tw.errors.ResourceExhaustedError as e:
                print("OOM", "[[node limited " in str(e), "1004 bytes" in str(e))
        """,
        env={"TW_MAX_TENSOR_BYTES": "1000"},
    )
    assert rc == 0, out
    assert "(250,)" in out and "OOM True True" in out, out


def test_failed_allocation_under_address_space_limit_is_oom():
    # 4 GiB under a limit of the process's size + 1.5 GB: the malloc fails.
    # Tile's 2 GiB offset table then fails after its 1 GiB output succeeded:
    # the executor's last line of defence names the node.
    rc, out = _python(
        """
        import resource
        import tensorweave as tw
        s = tw.placeholder(tw.int64, [None])
        z = tw.zeros(s, name="too_big_here")
        m = tw.placeholder(tw.int64, [2])
        t = tw.tile(tw.constant([[1.0]]), m, name="tile_tables")
        with tw.Session() as sess:
            sess.run(tw.constant(1.0))
            size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size + 1_500_000_000, resource.RLIM_INFINITY))
            for fetch, feed in ((z, {s: [2**29, 2]}), (t, {m: [2**28, 1]})):
                try:
                    sess.run(fetch, feed)
                    print("no error")
                except tw.errors.ResourceExhaustedError as e:
                    print("OOM", fetch.op.name, f"[[node {fetch.op.name} " in str(e))
            print(sess.run(tw.constant(2.0) * 3.0))
        """
    )
    assert rc == 0, out
    assert "OOM too_big_here True" in out, out
    assert "OOM tile_tables True" in out, out
    assert "6.0" in out, out


# --- thread pools -----------------------------------------------------------------


def test_session_with_unstartable_threads_raises_instead_of_hanging():
    # 1000 threads of 8 MiB stacks do not fit in 4 GB of address space: the
    # pool creation used to hang in the ThreadPool constructor.
    rc, out = _python(
        """
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (4_000_000_000, resource.RLIM_INFINITY))
        import tensorweave as tw
        try:
            tw.Session(config=tw.ConfigProto(inter_op_parallelism_threads=1000))
            print("created")
        except tw.errors.ResourceExhaustedError as e:
            print("ERR", e)
        with tw.Session(config=tw.ConfigProto(inter_op_parallelism_threads=2)) as sess:
            print("still works", sess.run(tw.constant(3.0) + 1.0))
        """,
        timeout=60,
    )
    assert rc == 0, out
    assert "ERR cannot create thread pool 'inter_op' of 1000 threads" in out, out
    assert "still works 4.0" in out, out


def test_thread_cap_names_the_cap_and_the_request():
    rc, out = _python(
        """
        import tensorweave as tw
        try:
            tw.Session(config=tw.ConfigProto(inter_op_parallelism_threads=64))
        except tw.errors.ResourceExhaustedError as e:
            print("ERR", e)
        """,
        env={"TW_MAX_THREADS": "32"},
        timeout=60,
    )
    assert rc == 0, out
    assert "of 64 threads" in out and "the cap is 32" in out and "TW_MAX_THREADS" in out, out


def test_many_open_sessions_work():
    # 500 open sessions aborted with "terminate called without an active
    # exception"; sessions with the same thread counts now share the pools.
    rc, out = _python(
        """
        import threading
        import tensorweave as tw
        x = tw.constant(2.0) * 3.0
        sessions = [tw.Session() for _ in range(500)]
        sessions += [tw.Session(config=tw.ConfigProto(inter_op_parallelism_threads=i % 5 + 1))
                     for i in range(500)]
        print("sum", sum(s.run(x) for s in sessions))
        for s in sessions:
            s.close()
        """,
        timeout=120,
    )
    assert rc == 0, out
    assert "sum 6000.0" in out, out


# --- static shapes from constant values (shape functions) --------------------------


@pytest.mark.parametrize(
    "build",
    [
        lambda: tw.tile(tw.zeros([2, 2]), [2**62, 2**62], name="static_op"),
        lambda: tw.pad(tw.zeros([2]), [[2**62, 2**62]], name="static_op"),
        lambda: tw.concat([tw.placeholder(tw.float32, [2**62, 0])] * 3, 0, name="static_op"),
        lambda: tw.slice(tw.zeros([2]), [1], [2**63 - 1], name="static_op"),
    ],
    ids=["tile", "pad", "concat", "slice"],
)
def test_static_shape_overflow_is_an_error_at_construction(graph, build):
    # As TensorFlow: a plain ValueError naming the node, raised while the
    # graph is built (the shape function no longer wraps the dimension).
    with pytest.raises(ValueError) as info:
        build()
    assert "static_op" in str(info.value), str(info.value)

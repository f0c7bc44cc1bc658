"""What the GPU tests share: skip without a GPU, run one graph on /cpu:0 and on /gpu:0, and
check that the GPU ran the ops under test (soft placement must not quietly compare the CPU with
itself) and agrees with the CPU kernels, forward and gradient."""

import atexit
import os

import numpy as np
import pytest
import tensorweave as tw

HAS_GPU = tw.test.is_gpu_available()
requires_gpu = pytest.mark.skipif(not HAS_GPU, reason="no GPU on this machine")

# The op types seen on a GPU by gpu_node_types in this process. With TW_GPU_OPS_RAN_DIR set
# (tools/gpu_check.sh sets it) they are written there at exit, and the check lists the GPU kernels
# that no test ran.
RAN_ON_GPU = set()


@atexit.register
def _write_ops_ran():
    out = os.environ.get("TW_GPU_OPS_RAN_DIR")
    if out and RAN_ON_GPU:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, f"{os.getpid()}.txt"), "w") as f:
            f.write("\n".join(sorted(RAN_ON_GPU)) + "\n")


def gpu_node_types(graph_defs):
    """The op types of the nodes the step ran on a GPU, from RunMetadata.partition_graphs."""
    types = set()
    for g in graph_defs:
        for node in g.node:
            if "GPU" in node.device.upper():
                types.add(node.op)
    RAN_ON_GPU.update(types)
    return types


def run_recorded(sess, fetches, feed_dict=None):
    """sess.run(fetches, feed_dict), and the op types the step ran on a GPU."""
    metadata = tw.RunMetadata()
    value = sess.run(
        fetches, feed_dict=feed_dict, options=tw.RunOptions(output_partition_graphs=True), run_metadata=metadata
    )
    return value, gpu_node_types(metadata.partition_graphs)


def run_on(device, build, inputs, grads=True, seed=0):
    """Builds `build(*placeholders)` under `tw.device(device)`, feeds `inputs` (numpy arrays), and
    returns (outputs, gradients of a random projection of the float outputs wrt the float inputs,
    the op types run on a GPU)."""
    graph = tw.Graph()
    with graph.as_default():
        tw.set_random_seed(seed)
        with tw.device(device):
            phs = [tw.placeholder(tw.as_dtype(x.dtype), x.shape) for x in inputs]
            outs = build(*phs)
            if not isinstance(outs, (list, tuple)):
                outs = [outs]
            grad_ts = []
            if grads:
                rng = np.random.default_rng(seed + 1)
                float_outs = [o for o in outs if o.dtype.is_floating]
                float_ins = [p for p in phs if p.dtype.is_floating]
                if float_outs and float_ins:
                    loss = tw.add_n(
                        [
                            tw.reduce_sum(
                                o * tw.constant(rng.standard_normal(o.shape.as_list()).astype(o.dtype.as_numpy_dtype))
                            )
                            for o in float_outs
                        ]
                    )
                    # Sparse gradients (gathers) are compared densified.
                    grad_ts = [tw.convert_to_tensor(g) for g in tw.gradients(loss, float_ins) if g is not None]
        config = tw.ConfigProto(allow_soft_placement=True)
        with tw.Session(graph=graph, config=config) as sess:
            values, ran = run_recorded(sess, list(outs) + grad_ts, dict(zip(phs, inputs)))
    return values[: len(outs)], values[len(outs) :], ran


def assert_gpu_matches_cpu(build, inputs, ops, rtol=1e-5, atol=1e-5, grads=True, atol_of_max=0.0):
    """Runs `build` on the CPU and on the GPU: every op type in `ops` must have run on the GPU, and
    the outputs (and gradients) must agree to rtol/atol. `atol_of_max` raises each array's atol to
    that fraction of its largest magnitude: a float32 sum of many terms is off by an amount that
    grows with its terms, not with its own (possibly tiny) value."""
    cpu_out, cpu_grads, _ = run_on("/cpu:0", build, inputs, grads)
    gpu_out, gpu_grads, gpu_ops = run_on("/gpu:0", build, inputs, grads)
    missing = set(ops) - gpu_ops
    assert not missing, f"not run on the GPU: {sorted(missing)} (GPU ran {sorted(gpu_ops)})"
    for c, g in zip(cpu_out + cpu_grads, gpu_out + gpu_grads):
        c, g = np.asarray(c), np.asarray(g)
        assert c.shape == g.shape and c.dtype == g.dtype, (c.shape, g.shape, c.dtype, g.dtype)
        if c.dtype.kind in "fc":
            scale = float(np.max(np.abs(c))) if c.size else 0.0
            np.testing.assert_allclose(g, c, rtol=rtol, atol=max(atol, atol_of_max * scale))
        else:
            np.testing.assert_array_equal(g, c)


def error_class(device, build, inputs, soft_placement=False):
    """The exception class that running `build(*placeholders of unknown shape)` on `device` with `inputs`
    fed raises (None when it runs): the GPU must fail a bad input as the CPU does."""
    with tw.Graph().as_default() as g:
        with tw.device(device):
            phs = [tw.placeholder(tw.as_dtype(x.dtype)) for x in inputs]
            out = build(*phs)
        config = tw.ConfigProto(allow_soft_placement=soft_placement)
        with tw.Session(graph=g, config=config) as sess:
            try:
                sess.run(out, feed_dict=dict(zip(phs, inputs)))
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                return type(e)
    return None

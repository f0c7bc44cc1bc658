"""replica_device_setter's ps strategies: GreedyLoadBalancingStrategy with byte_size_load_fn (oracle: the greedy
assignment computed here from the variables' byte sizes; TF1's placement of a whole model is compared in
tests/fidelity/cases_ps_placement.py)."""

import pytest
import tensorweave as tw


def test_greedy_by_byte_size_places_each_variable_on_the_least_loaded_task():
    shapes = [([100], tw.float32), ([10], tw.float64), ([30, 2], tw.float32), ([], tw.int32), ([50], tw.float32)]
    loads = [0, 0, 0]
    want = []
    for shape, dtype in shapes:
        task = loads.index(min(loads))
        want.append(f"/job:ps/task:{task}")
        size = 1
        for d in shape:
            size *= d
        loads[task] += size * dtype.size
    with tw.Graph().as_default():
        greedy = tw.train.GreedyLoadBalancingStrategy(3, tw.train.byte_size_load_fn)
        with tw.device(tw.train.replica_device_setter(ps_tasks=3, ps_strategy=greedy)):
            made = [tw.Variable(tw.zeros(shape, dtype)) for shape, dtype in shapes]
            y = made[0] * 2.0
    assert [v.device for v in made] == want
    assert y.device == "/job:worker"


def test_partitioned_variable_spreads_over_ps_tasks():
    with tw.Graph().as_default():
        greedy = tw.train.GreedyLoadBalancingStrategy(2, tw.train.byte_size_load_fn)
        with tw.device(tw.train.replica_device_setter(ps_tasks=2, ps_strategy=greedy)):
            emb = tw.get_variable("emb", [10, 4], partitioner=tw.fixed_size_partitioner(4))
        parts = list(emb)
    # Rows 3, 3, 2, 2 of 16 bytes: tasks 0, 1, then the least loaded.
    assert [p.device for p in parts] == ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0", "/job:ps/task:1"]


def test_byte_size_load_fn_errors():
    with tw.Graph().as_default():
        two_outputs = tw.split(tw.zeros([4]), 2)[0].op
        with pytest.raises(ValueError, match="must have a single output"):
            tw.train.byte_size_load_fn(two_outputs)
        unknown = tw.placeholder(tw.float32, [None]).op
        with pytest.raises(ValueError):
            tw.train.byte_size_load_fn(unknown)

"""tw.sets against Python's set (an independent oracle): dense and sparse inputs, sorted SparseTensor results,
set sizes, validate_indices, and hostile inputs (out-of-range and unsorted indices, mismatched shapes)."""

import itertools

import numpy as np
import pytest
import tensorweave as tw


def run(fetch, feed=None):
    with tw.Session() as sess:
        return sess.run(fetch, feed)


@pytest.fixture(autouse=True)
def fresh_graph():
    with tw.Graph().as_default():
        yield


def dense_groups(x):
    x = np.asarray(x)
    return {idx: set(x[idx].tolist()) for idx in itertools.product(*[range(d) for d in x.shape[:-1]])}


def sparse_groups(indices, values):
    groups = {}
    for idx, v in zip(indices, values):
        groups.setdefault(tuple(idx[:-1]), set()).add(v)
    return groups


def expected(ga, gb, op, group_shape):
    fns = {
        "a-b": lambda a, b: a - b,
        "b-a": lambda a, b: b - a,
        "intersection": lambda a, b: a & b,
        "union": lambda a, b: a | b,
    }
    indices, values, width = [], [], 0
    for key in itertools.product(*[range(d) for d in group_shape]):
        result = sorted(fns[op](ga.get(key, set()), gb.get(key, set())))
        width = max(width, len(result))
        for k, v in enumerate(result):
            indices.append(list(key) + [k])
            values.append(v)
    return indices, values, list(group_shape) + [width]


def check(sp_value, want):
    indices, values, shape = want
    assert sp_value.indices.reshape(-1, len(shape)).tolist() == indices
    assert sp_value.values.tolist() == values
    assert sp_value.dense_shape.tolist() == shape


@pytest.mark.parametrize("seed", range(4))
def test_dense_dense_all_operations_match_python_sets(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 6, size=(3, 2, 5)).astype(np.int32)
    b = rng.integers(0, 6, size=(3, 2, 4)).astype(np.int32)
    ga, gb = dense_groups(a), dense_groups(b)
    results = run(
        [
            tw.sets.intersection(a, b),
            tw.sets.union(a, b),
            tw.sets.difference(a, b),
            tw.sets.difference(a, b, aminusb=False),
        ]
    )
    for value, op in zip(results, ["intersection", "union", "a-b", "b-a"]):
        check(value, expected(ga, gb, op, (3, 2)))


def test_sparse_inputs_and_flipping():
    indices = [[0, 0], [0, 1], [2, 0], [2, 3]]
    values = [2, 5, 1, 1]
    sp = tw.SparseTensor(indices, values, [3, 4])
    dense = np.array([[2, 3], [6, 6], [0, 1]], np.int64)
    sp_i = tw.SparseTensor(indices, np.array(values, np.int64), [3, 4])
    ga, gd = sparse_groups(indices, values), dense_groups(dense)
    got = run([tw.sets.union(sp, sp), tw.sets.difference(sp_i, dense), tw.sets.intersection(dense, sp_i)])
    check(got[0], expected(ga, ga, "union", (3,)))
    # A sparse `a` with a dense `b` is flipped, and so is the difference.
    check(got[1], expected(ga, gd, "a-b", (3,)))
    check(got[2], expected(gd, ga, "intersection", (3,)))
    assert got[1].values.dtype == np.int64


def test_set_size_strings_and_validate_indices():
    sp = tw.SparseTensor([[0, 0], [0, 1], [0, 2], [2, 0]], ["a", "b", "a", ""], [3, 5])
    assert run(tw.sets.size(sp)).tolist() == [2, 0, 1]
    assert run(tw.sets.set_size(sp)).dtype == np.int32
    unordered = tw.SparseTensor([[1, 0], [0, 0]], [2, 5], [3, 4])
    assert run(tw.sets.size(unordered, validate_indices=False)).tolist() == [1, 1, 0]
    with pytest.raises(tw.errors.InvalidArgumentError, match="out of order"):
        run(tw.sets.size(unordered))


@pytest.mark.parametrize(
    "indices, shape, match",
    [
        ([[0, 9]], [3, 4], "out of bounds"),
        ([[-1, 0]], [3, 4], "out of bounds"),
        ([[0]], [3], "rank"),
        ([[0, 0]], [3, -4], "negative"),
    ],
)
def test_hostile_sparse_sets_are_invalid_argument(indices, shape, match):
    sp = tw.SparseTensor(tw.constant(indices, tw.int64), tw.constant([1] * len(indices)), tw.constant(shape, tw.int64))
    with pytest.raises(tw.errors.InvalidArgumentError, match=match):
        run(tw.sets.size(sp))
    with pytest.raises(tw.errors.InvalidArgumentError, match=match):
        run(tw.sets.union(sp, sp))


def test_huge_set_shape_is_rejected_not_allocated():
    sp = tw.SparseTensor(tw.constant([[0, 0]], tw.int64), tw.constant([1]), tw.constant([2**40, 2**20], tw.int64))
    with pytest.raises(tw.errors.InvalidArgumentError, match="too many sets"):
        run(tw.sets.size(sp))
    # An operation's result only holds the non-empty sets: fine.
    assert run(tw.sets.union(sp, sp)).dense_shape.tolist() == [2**40, 1]


def test_errors_at_construction():
    with pytest.raises(TypeError, match="Expected `SparseTensor`"):
        tw.sets.size(tw.constant([[1]]))
    with pytest.raises(TypeError, match="invalid dtype"):
        tw.sets.union([[1.0]], [[2.0]])
    with pytest.raises(TypeError, match="Types don't match"):
        tw.sets.union(tw.constant([[1]]), tw.constant([[1]], tw.int64))
    with pytest.raises(ValueError):
        tw.sets.union(tw.constant([1, 2]), tw.constant([2]))
    with pytest.raises(ValueError):
        tw.sets.union(tw.constant([[1, 2], [3, 4]]), tw.constant([[1]]))
    mismatched = tw.sets.union(tw.SparseTensor([[0, 0]], [1], [3, 4]), tw.SparseTensor([[0, 0]], [1], [2, 4]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="Mismatched shapes"):
        run(mismatched)


def test_not_differentiable():
    a = tw.constant([[1, 2]])
    assert tw.gradients(tw.cast(tw.sets.union(a, a).values, tw.float32), [a]) == [None]


def test_op_types():
    a = tw.constant([[1, 2]])
    sp = tw.SparseTensor([[0, 0]], [1], [1, 2])
    assert tw.sets.size(sp).op.type == "SetSize"
    assert tw.sets.union(a, a).values.op.type == "DenseToDenseSetOperation"
    assert tw.sets.union(a, sp).values.op.type == "DenseToSparseSetOperation"
    assert tw.sets.union(sp, sp).values.op.type == "SparseToSparseSetOperation"

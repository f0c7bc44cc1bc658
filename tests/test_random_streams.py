"""Seeded random ops draw TensorFlow's values: the same (graph seed, op seed) gives the same numbers, run after
run, in RandomUniform, "RandomUniformInt", RandomStandardNormal, TruncatedNormal, RandomShuffle, RandomGamma and
RandomPoissonV2 (and their stateless forms), and so in the
initializers and dropout built on them. TF1 programs set seeds to get reproducible runs; with the import
changed they now start from the same weights as under TensorFlow."""

import numpy as np
import pytest

import tensorweave as tw

tf = pytest.importorskip("tensorflow")
v1 = tf.compat.v1


def _draws(t, build, runs=2, graph_seed=7):
    """`runs` runs of the tensors `build(t)` returns, in a fresh graph with `graph_seed`."""
    graph = t.Graph()
    with graph.as_default():
        if graph_seed is not None:
            (t.set_random_seed if t is tw else v1.set_random_seed)(graph_seed)
        fetches = build(t if t is tw else v1)
        session = (t.Session if t is tw else v1.Session)(graph=graph)
        with session:
            inits = [v for v in graph.get_collection("variables")]
            if inits:
                session.run((t if t is tw else v1).variables_initializer(inits))
            return [session.run(fetches) for _ in range(runs)]


def _same(build, graph_seed=7, rtol=0.0, atol=0.0):
    got, want = _draws(tw, build, graph_seed=graph_seed), _draws(tf, build, graph_seed=graph_seed)
    for g_run, w_run in zip(got, want):
        for g, w in zip(g_run, w_run):
            assert g.dtype == w.dtype
            if rtol or atol:
                np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
            else:
                np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform_normal_truncated(dtype):
    _same(
        lambda t: [
            t.random_uniform([7, 3], dtype=dtype, seed=1),
            t.random_uniform([5], -2.5, 4.0, dtype=dtype, seed=2),
            t.random_normal([9], 1.5, 0.25, dtype=dtype, seed=3),
            t.truncated_normal([3, 5], dtype=dtype, seed=4),
            t.truncated_normal([1001], -1.0, 3.0, dtype=dtype, seed=5),
        ],
        # Box-Muller's log/sin/cos: libm's, within an ulp of TensorFlow's build
        rtol=2e-7 if dtype == "float32" else 1e-15,
    )


# TF's half and bfloat16 draws: the float ones rounded (normal, truncated normal: within a unit in the last place,
# where libm's float draw is an ulp off TF's), and the low 10 / 7 bits of each float draw's word (uniform: exact).
_HALF_ULP = {"float16": 1e-3, "bfloat16": 8e-3}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_and_bfloat16_draws(dtype):
    def as_float(t, x):
        return t.cast(x, t.float32)

    _same(
        lambda t: [
            as_float(t, t.random_uniform([7, 3], dtype=dtype, seed=1)),
            as_float(t, t.random_uniform([5], -2.5, 4.0, dtype=dtype, seed=2)),
            as_float(t, t.random.stateless_uniform([9], seed=[1, 2], dtype=dtype)),
        ]
    )
    _same(
        lambda t: [
            as_float(t, t.random_normal([9], 1.5, 0.25, dtype=dtype, seed=3)),
            as_float(t, t.truncated_normal([1001], -1.0, 3.0, dtype=dtype, seed=5)),
            as_float(t, t.random.stateless_normal([9], seed=[3, 4], mean=1.0, stddev=2.0, dtype=dtype)),
            as_float(t, t.random.stateless_truncated_normal([2, 5], seed=[5, 6], dtype=dtype)),
        ],
        rtol=_HALF_ULP[dtype],
    )


def test_half_initializers_and_dtypes():
    _same(
        lambda t: [
            t.cast(t.glorot_uniform_initializer(seed=1)([4, 5], dtype=t.float16), t.float32),
            t.cast(t.truncated_normal_initializer(stddev=0.1, seed=2)([6], dtype=t.float16), t.float32),
        ],
        rtol=1e-3,
    )
    with tw.Graph().as_default():
        assert tw.random_normal([2], dtype=tw.bfloat16).dtype == tw.bfloat16
        with pytest.raises(TypeError, match="Expected int32, but got 0.0"):  # TF's error
            tw.random_normal([2], dtype=tw.int32)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_uniform_int(dtype):
    _same(
        lambda t: [
            t.random_uniform([11], 0, 10, dtype=dtype, seed=1),
            t.random_uniform([4, 3], -1000, 7, dtype=dtype, seed=2),
            t.random_uniform([6], -(2**31) + 1, 2**31 - 1, dtype=dtype, seed=3),
        ]
    )


@pytest.mark.parametrize("graph_seed", [None, 0, 123456789])
def test_seed_combinations(graph_seed):
    if graph_seed is None:
        _same(lambda t: [t.random_uniform([4], seed=5), t.random_uniform([4], seed=6)], graph_seed=None)
    else:
        _same(lambda t: [t.random_uniform([4]), t.random_uniform([4]), t.random_uniform([4], seed=9)], graph_seed)


def test_shuffle():
    _same(
        lambda t: [
            t.random_shuffle(t.range(10), seed=1),
            t.random_shuffle(t.reshape(t.range(21), [7, 3]), seed=2),
            t.random_shuffle(t.constant([3.0]), seed=3),
        ]
    )


def test_initializers_layers_and_dropout():
    def build(t):
        x = t.constant(np.arange(24, dtype=np.float32).reshape(4, 6))
        return [
            t.matmul(x, t.get_variable("kernel", [6, 5], initializer=t.glorot_uniform_initializer())),
            t.get_variable("a", [3, 4], initializer=t.glorot_normal_initializer(seed=1)),
            t.get_variable("b", [5, 2], initializer=t.variance_scaling_initializer(2.0, seed=2)),
            t.get_variable("c", [2, 3], initializer=t.random_normal_initializer(0.5, 2.0, seed=3)),
            t.get_variable("e", [4, 2], initializer=t.truncated_normal_initializer(stddev=0.1, seed=4)),
            t.get_variable("f", [3, 3], initializer=t.random_uniform_initializer(-0.1, 0.1, seed=5)),
            t.nn.dropout(x, rate=0.5, seed=6),
        ]

    _same(build, rtol=3e-7, atol=1e-7)


def test_uniform_int_errors():
    with tw.Graph().as_default():
        r = tw.random_uniform([3], 5, 5, dtype=tw.int32, seed=1)
        with tw.Session() as sess:
            with pytest.raises(tw.errors.InvalidArgumentError, match="Need minval < maxval: 5 >= 5"):
                sess.run(r)
        with pytest.raises(ValueError):
            tw.random_uniform([3], [0, 1], 5, dtype=tw.int32)
        assert tw.random_uniform([0], 5, 5, dtype=tw.int64).shape.as_list() == [0]


def test_multinomial():
    logits = np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.25, 0.125, 0.125], [1.0, 1e-3, 1e-3, 1e-3]]))
    _same(
        lambda t: [
            t.multinomial(logits.astype(np.float32), 7, seed=1),
            t.random.categorical(logits, 5, seed=2, dtype=t.int32),
            t.multinomial([[0.0, -np.inf, 1.0]], 9, seed=3),
        ]
    )


def test_candidate_samplers():
    true = np.array([[1, 7], [3, 3], [0, 9]], np.int64)
    _same(
        lambda t: [
            *t.nn.log_uniform_candidate_sampler(true, 2, 6, True, 50, seed=1),
            *t.nn.uniform_candidate_sampler(true, 2, 5, True, 20, seed=2),
            *t.nn.log_uniform_candidate_sampler(true, 2, 8, False, 1000, seed=3),
            *t.nn.uniform_candidate_sampler(true % 7, 2, 4, False, 7, seed=4),
        ]
    )
    with tw.Graph().as_default():
        sampled = tw.nn.uniform_candidate_sampler(true, 2, 4, False, 7, seed=4)
        with tw.Session() as sess:
            with pytest.raises(
                tw.errors.InvalidArgumentError, match=r"`true_candidate` out of range \[0, 7\), received 7"
            ):
                sess.run(sampled)


@pytest.mark.parametrize("reshuffle", [True, False])
def test_dataset_shuffle(reshuffle):
    def pipelines(t):
        data = t.data
        ds = [
            data.Dataset.range(10).shuffle(4, seed=1, reshuffle_each_iteration=reshuffle).repeat(3),
            data.Dataset.range(8).shuffle(100, seed=7, reshuffle_each_iteration=reshuffle).repeat(2).batch(4),
            data.Dataset.range(6).repeat(2).shuffle(5, seed=3, reshuffle_each_iteration=reshuffle),
            data.Dataset.range(9).shuffle(3, reshuffle_each_iteration=reshuffle),  # the graph seed's offset
        ]
        return [data.make_one_shot_iterator(d).get_next() for d in ds]

    def drain(t, build):
        graph = t.Graph()
        with graph.as_default():
            (t.set_random_seed if t is tw else v1.set_random_seed)(11)
            nexts = build(t if t is tw else v1)
            with (t.Session if t is tw else v1.Session)(graph=graph) as sess:
                out = []
                for n in nexts:
                    values = []
                    while True:
                        try:
                            values.append(sess.run(n).tolist())
                        except (tw.errors.OutOfRangeError, tf.errors.OutOfRangeError):
                            break
                    out.append(values)
                return out

    assert drain(tw, pipelines) == drain(tf, pipelines)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_stateless(dtype):
    _same(
        lambda t: [
            t.random.stateless_uniform([7], seed=[1, 2], dtype=dtype),
            t.random.stateless_uniform([3, 2], seed=[-5, 2**40], minval=-2.0, maxval=3.0, dtype=dtype),
            t.random.stateless_normal([9], seed=[3, 4], mean=1.0, stddev=2.0, dtype=dtype),
            t.random.stateless_truncated_normal([2, 5], seed=[5, 6], dtype=dtype),
            t.random.stateless_uniform([6], seed=[7, 8], minval=-3, maxval=10, dtype="int32"),
            t.random.stateless_uniform([5], seed=[9, 1], minval=0, maxval=2**40, dtype="int64"),
        ],
        rtol=2e-7 if dtype == "float32" else 1e-15,
    )


def test_gamma_and_poisson():
    # TF's per-output 256-block streams, its Marsaglia-Tsang (alpha < 1 and alpha == 1 forms), Knuth below rate
    # 10 and Hormann's rejection above; a negative rate draws 0 as in TF. libm's log/pow/lgamma: 1e-6.
    _same(
        lambda t: [
            t.random.gamma([3, 2], [0.5, 1.0, 2.0, 30.0], seed=3),
            t.random.gamma([4], np.array([0.2, 5.0]), dtype="float64", seed=7),
            t.random.poisson([0.5, 3.0, 12.0, 200.0, -1.0], [3], seed=4),
            t.random.poisson([4.0, 50.0], [5], dtype="int64", seed=9),
            t.random.stateless_gamma([3, 2], seed=[1, 2], alpha=[0.7, 4.0]),
            t.random.stateless_poisson([3, 2], seed=[3, 4], lam=[2.0, 40.0]),
        ],
        rtol=1e-6,
    )


def test_stateless_and_half_categorical():
    logits = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]))
    _same(
        lambda t: [
            t.random.stateless_categorical(logits.astype(np.float32), 7, seed=[3, 4]),
            t.random.stateless_categorical(logits, 5, seed=[-1, 9], dtype="int32"),
            t.random.stateless_categorical(logits.astype(np.float16), 6, seed=[5, 6]),
            t.random.categorical(logits.astype(np.float16), 6, seed=2),
        ]
    )

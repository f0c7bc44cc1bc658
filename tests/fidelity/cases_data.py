"""tf.data in TF1 programs: static structures (output types, shapes, classes), op types and names, the four kinds
of iterators, transformations' values, from_generator, file datasets, and the errors a TF1 program catches."""

import collections
import os
import tempfile

import numpy as np

from tests.fidelity.harness import case

Point = collections.namedtuple("Point", ["x", "y"])


def _drain(tf, sess, nxt, limit=100):
    """Every element until OutOfRangeError, then the class of one more get_next past the end."""
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(nxt))
        except tf.errors.OutOfRangeError:
            break
    try:
        sess.run(nxt)
        again = None
    except tf.errors.OpError as e:
        again = type(e).__name__
    return out, again


def _error(tf, fn):
    try:
        fn()
    except tf.errors.OpError as e:
        return type(e).__name__
    except (TypeError, ValueError, RuntimeError) as e:
        return type(e).__name__
    return None


def _shapes(s):
    if isinstance(s, dict):
        return {k: _shapes(v) for k, v in s.items()}
    if isinstance(s, tuple):
        return [_shapes(v) for v in s]
    return s.as_list() if s.ndims is not None else None


def _types(t):
    if isinstance(t, dict):
        return {k: _types(v) for k, v in t.items()}
    if isinstance(t, tuple):
        return [_types(v) for v in t]
    return t.name


@case
def static_structures_of_sources(tf, sess):
    Dataset = tf.data.Dataset
    datasets = [
        Dataset.from_tensor_slices([1, 2]),
        Dataset.from_tensor_slices(np.arange(4, dtype=np.int64)),
        Dataset.from_tensor_slices((np.zeros((4, 3), np.float64), [1.0, 2.0, 3.0, 4.0])),
        Dataset.from_tensor_slices({"b": [1.0, 2.0], "a": [[1], [2]]}),
        Dataset.from_tensor_slices(["a", "b"]),
        Dataset.from_tensor_slices([[1, 2], [3, 4]]),
        Dataset.from_tensors([1, 2]),
        Dataset.from_tensors((1, "x", 2.5)),
        Dataset.range(5),
        Dataset.range(1, 7, 2),
    ]
    out = [(_types(d.output_types), _shapes(d.output_shapes)) for d in datasets]
    p = Dataset.from_tensor_slices(Point([1, 2], [3.0, 4.0]))
    out.append((type(p.output_types).__name__, _types(tuple(p.output_types)), p.output_types.x.name))
    out.append(tf.data.get_output_types(datasets[0]).name)
    out.append(_shapes(tf.data.get_output_shapes(datasets[2])))
    out.append(tf.data.get_output_classes(datasets[0]) is tf.Tensor)
    out.append(list(datasets[3].output_types.keys()))
    return out


@case
def iterator_op_types_and_names(tf, sess):
    r = tf.data.Dataset.range(5)
    one = r.make_one_shot_iterator()
    n1 = one.get_next()
    init = r.make_initializable_iterator()
    n2 = init.get_next(name="nxt")
    fs = tf.data.Iterator.from_structure(tf.int64, tf.TensorShape([]))
    mk = fs.make_initializer(r)
    mk2 = fs.make_initializer(r, name="again")
    h = tf.placeholder(tf.string, [])
    fh = tf.data.Iterator.from_string_handle(h, tf.int64, [])
    sh = one.string_handle()
    return {
        "types": [
            one._iterator_resource.op.type,
            init._iterator_resource.op.type,
            fs._iterator_resource.op.type,
            fh._iterator_resource.op.type,
            n1.op.type,
            init.initializer.type,
            mk.type,
            sh.op.type,
        ],
        "names": [
            n1.op.name,
            n2.op.name,
            init.initializer.name,
            mk.name,
            mk2.name,
            fh.get_next().op.name,
            init._iterator_resource.op.name,
            fh._iterator_resource.op.name,
        ],
        "sh_dtype": sh.dtype.name,
        "collections": [
            len(tf.get_collection(k))
            for k in ("table_initializer", tf.GraphKeys.LOCAL_VARIABLES, tf.GraphKeys.GLOBAL_VARIABLES)
        ],
        "shapes": [n1.shape.as_list(), fh.get_next().shape.as_list()],
        "classes": one.output_classes is tf.Tensor,
    }


@case
def one_shot_iterator_over_numpy_tuples(tf, sess):
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    y = np.arange(6, dtype=np.int64)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
    a, b = ds.make_one_shot_iterator().get_next()
    first = sess.run([a, b])
    second = sess.run({"a": a, "b": b})
    end = _error(tf, lambda: sess.run(a))
    return first, second, end, a.shape.as_list(), b.dtype.name


@case
def initializable_iterator_fed_placeholders(tf, sess):
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.int32, [None])
    it = tf.data.Dataset.from_tensor_slices((x, y)).batch(2).make_initializable_iterator()
    fx, fy = it.get_next()
    sess.run(it.initializer, {x: np.ones((3, 2)), y: [1, 2, 3]})
    first = _drain(tf, sess, (fx, fy))
    sess.run(it.initializer, {x: np.zeros((1, 2)), y: [9]})
    second = _drain(tf, sess, (fx, fy))
    bad = _error(tf, lambda: sess.run(it.initializer, {x: np.ones((3, 2)), y: [1, 2]}))
    return first, second, bad, fx.shape.as_list(), fy.shape.as_list()


@case
def feedable_iterator_from_string_handle(tf, sess):
    a = tf.data.Dataset.range(100).repeat()
    b = tf.data.Dataset.range(100, 103)
    handle = tf.placeholder(tf.string, shape=[])
    it = tf.data.Iterator.from_string_handle(handle, a.output_types, a.output_shapes)
    nxt = it.get_next()
    ia = a.make_one_shot_iterator()
    ib = b.make_initializable_iterator()
    ha, hb = sess.run([ia.string_handle(), ib.string_handle()])
    sess.run(ib.initializer)
    out = [sess.run(nxt, {handle: ha}) for _ in range(3)]
    out += [sess.run(nxt, {handle: hb}) for _ in range(2)]
    out += [sess.run(nxt, {handle: ha})]
    out.append(sess.run(nxt, {handle: hb}))
    out.append(_error(tf, lambda: sess.run(nxt, {handle: hb})))
    out.append(sess.run(ia.get_next()))
    out.append(isinstance(ha, bytes))
    return out


@case
def uninitialized_iterator_message(tf, sess):
    it = tf.data.Dataset.range(3).make_initializable_iterator()
    try:
        sess.run(it.get_next())
        return None
    except tf.errors.FailedPreconditionError as e:
        return "GetNext() failed because the iterator has not been initialized" in e.message


@case
def static_shapes_of_transformations(tf, sess):
    d = tf.data.Dataset.from_tensor_slices((np.arange(4, dtype=np.int64), np.ones((4, 3))))
    v = tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]).map(lambda x: x[: x[0]])
    r = tf.data.Dataset.range(5)
    x = tf.placeholder(tf.int64, [])
    out = [
        _shapes(d.batch(2).output_shapes),
        _shapes(d.batch(2, drop_remainder=True).output_shapes),
        _shapes(d.batch(x, drop_remainder=True).output_shapes),
        _shapes(d.batch(2).batch(3, drop_remainder=True).output_shapes),
        _shapes(v.output_shapes),
        _shapes(v.padded_batch(2).output_shapes),
        _shapes(v.padded_batch(2, padded_shapes=[5]).output_shapes),
        _shapes(v.padded_batch(2, padded_shapes=[5], drop_remainder=True).output_shapes),
        _shapes(v.padded_batch(2, padded_shapes=[None]).output_shapes),
        _shapes(r.batch(2).unbatch().output_shapes),
        _shapes(r.concatenate(r.batch(2)).output_shapes),
        _shapes(tf.data.Dataset.zip((r, r.batch(2))).output_shapes),
        _types(tf.data.Dataset.zip({"a": r, "b": (r, d)}).output_types),
        _types(r.enumerate().output_types),
        _shapes(r.map(lambda x: (x, [1, 2])).output_shapes),
        _types(r.map(lambda x: [x, tf.cast(x, tf.float32)]).output_types),
        _types(d.map(lambda a, b: a + tf.cast(b[0], tf.int64)).output_types),
        _shapes(d.map(lambda a, b: {"s": b, "t": a}).output_shapes),
        _types(r.flat_map(lambda x: tf.data.Dataset.from_tensors((x, "s"))).output_types),
        _shapes(r.interleave(lambda x: tf.data.Dataset.from_tensors([x, x]), cycle_length=2).output_shapes),
        _shapes(r.shuffle(3).repeat(2).take(4).skip(1).shard(2, 0).prefetch(1).cache().output_shapes),
        _types(r.filter(lambda x: x > 2).output_types),
        _shapes(r.apply(lambda ds: ds.batch(4, drop_remainder=True)).output_shapes),
    ]
    return out


@case
def dataset_op_types_and_names(tf, sess):
    ds = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [4, 5, 6]))
    b = ds.batch(2)
    r = tf.data.Dataset.range(5)
    pieces = [
        ds,
        b,
        r,
        r.map(lambda x: x * 2),
        r.map(lambda x: x * 2, num_parallel_calls=2),
        r.repeat(),
        r.take(2),
        r.skip(1),
        r.shard(2, 1),
        r.prefetch(1),
        r.cache(),
        r.shuffle(3, seed=1),
        tf.data.Dataset.zip((r, r)),
        r.concatenate(r),
        r.batch(2).unbatch(),
        tf.data.Dataset.from_tensors(1),
        r.filter(lambda x: x > 1),
        r.flat_map(lambda x: tf.data.Dataset.from_tensors(x)),
    ]
    ops = [p._variant_tensor.op for p in pieces]
    return {
        "types": [op.type for op in ops],
        "names": [op.name for op in ops],
        "inputs": [[i.op.name for i in op.inputs] for op in ops[:12]],
        "input_dtypes": [[i.dtype.name for i in op.inputs[1:]] for op in ops[1:12]],
    }


@case
def one_shot_iterator_loop(tf, sess):
    ds = tf.data.Dataset.range(7).map(lambda x: x * 2).batch(3)
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    return _drain(tf, sess, nxt)


@case
def reinitializable_iterator_from_structure(tf, sess):
    train = tf.data.Dataset.range(10).map(lambda x: (tf.cast(x, tf.float32), x % 2)).batch(4)
    val = tf.data.Dataset.range(3).map(lambda x: (tf.cast(-x, tf.float32), x)).batch(4)
    it = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
    nxt = it.get_next()
    train_init, val_init = it.make_initializer(train), it.make_initializer(val)
    out = []
    sess.run(train_init)
    out.append(sess.run(nxt))
    sess.run(val_init)
    out.append(_drain(tf, sess, nxt))
    sess.run(train_init)
    out.append(sess.run(nxt))
    out.append(_shapes(it.output_shapes))
    out.append(_types(it.output_types))
    return out


@case
def map_batch_repeat_shuffle_seeded(tf, sess):
    tf.set_random_seed(7)
    ds = tf.data.Dataset.range(10).map(lambda x: x * x, num_parallel_calls=2).shuffle(10, seed=3).batch(5).repeat(2)
    nxt = ds.make_one_shot_iterator().get_next()
    got, end = _drain(tf, sess, nxt)
    epochs = [sorted(np.concatenate(got[:2]).tolist()), sorted(np.concatenate(got[2:]).tolist())]
    order = np.concatenate(got).tolist()
    with tf.Session() as other:
        again = np.concatenate(_drain(tf, other, nxt)[0]).tolist()
    return epochs, end, [len(g) for g in got], again == order, order[:10] != order[10:]


@case
def shuffle_without_reshuffle_keeps_order(tf, sess):
    ds = tf.data.Dataset.range(8).shuffle(8, seed=5, reshuffle_each_iteration=False).repeat(2)
    got = _drain(tf, sess, ds.make_one_shot_iterator().get_next())[0]
    return got[:8] == got[8:], sorted(got[:8])


@case
def padded_batch_values(tf, sess):
    ds = tf.data.Dataset.range(1, 6).map(lambda x: tf.fill([x], x))
    out = [_drain(tf, sess, ds.padded_batch(2).make_one_shot_iterator().get_next())[0]]
    out.append(
        sess.run(
            ds.padded_batch(3, padded_shapes=[6], padding_values=tf.constant(-1, tf.int64))
            .make_one_shot_iterator()
            .get_next()
        )
    )
    pairs = ds.map(lambda v: (v, tf.as_string(v)))
    out.append(
        sess.run(
            pairs.padded_batch(2, padded_shapes=([None], [None]), drop_remainder=True)
            .make_one_shot_iterator()
            .get_next()
        )
    )
    small = ds.padded_batch(2, padded_shapes=[2]).make_one_shot_iterator().get_next()
    out.append(sess.run(small))
    return out


@case
def dict_elements(tf, sess):
    ds = tf.data.Dataset.from_tensor_slices({"image": np.arange(6.0).reshape(3, 2), "label": [0, 1, 0]})
    ds = ds.map(lambda d: {"image": d["image"] * 2.0, "label": d["label"], "ok": d["label"] > 0})
    nxt = ds.batch(2).make_one_shot_iterator().get_next()
    return sess.run(nxt), sorted(nxt.keys()), _types(ds.output_types), _shapes(ds.output_shapes)


@case
def namedtuple_elements(tf, sess):
    ds = tf.data.Dataset.from_tensor_slices(Point([1, 2, 3], [4.0, 5.0, 6.0]))
    ds = ds.map(lambda p: Point(p.x * 10, p.y + 1.0))
    nxt = ds.make_one_shot_iterator().get_next()
    first = sess.run(nxt)
    return type(nxt).__name__, type(first).__name__, first.x, first.y


@case
def filter_flat_map_interleave_values(tf, sess):
    r = tf.data.Dataset.range(6)
    out = []
    out.append(_drain(tf, sess, r.filter(lambda x: tf.equal(x % 2, 0)).make_one_shot_iterator().get_next())[0])
    fm = r.take(3).flat_map(lambda x: tf.data.Dataset.from_tensors(x).repeat(x))
    out.append(_drain(tf, sess, fm.make_one_shot_iterator().get_next())[0])
    il = tf.data.Dataset.range(1, 4).interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(3), cycle_length=2, block_length=2
    )
    out.append(_drain(tf, sess, il.make_one_shot_iterator().get_next())[0])
    pil = tf.data.Dataset.range(1, 4).interleave(
        lambda x: tf.data.Dataset.range(x * 10, x * 10 + 3), cycle_length=3, num_parallel_calls=2
    )
    out.append(_drain(tf, sess, pil.make_one_shot_iterator().get_next())[0])
    return out


@case
def take_skip_shard_concat_zip_enumerate(tf, sess):
    r = tf.data.Dataset.range(10)
    dss = [
        r.take(3),
        r.skip(7),
        r.take(-1).skip(-1).concatenate(r.take(1)),
        r.shard(3, 1),
        r.take(2).concatenate(tf.data.Dataset.range(20, 22)),
        tf.data.Dataset.zip((r.take(3), r.skip(5).map(lambda x: tf.as_string(x)))),
        r.skip(4).take(3).enumerate(start=5),
        r.batch(4).unbatch().take(5),
        r.take(3).repeat(2),
        r.take(0).repeat(),
        r.take(4).cache().repeat(2),
        r.take(4).prefetch(2),
        r.take(4).prefetch(tf.data.experimental.AUTOTUNE),
        r.skip(12),
    ]
    return [_drain(tf, sess, d.make_one_shot_iterator().get_next())[0] for d in dss]


@case
def map_captures_outer_tensors(tf, sess):
    scale = tf.placeholder(tf.int64, [])
    v = tf.Variable(3, dtype=tf.int64)
    ds = tf.data.Dataset.range(4).map(lambda x: x * scale + v)
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    sess.run(tf.global_variables_initializer())
    sess.run(it.initializer, {scale: 10})
    first = _drain(tf, sess, nxt)[0]
    sess.run(it.initializer, {scale: 100})
    return first, sess.run(nxt)


@case
def from_generator_values_and_restart(tf, sess):
    def gen():
        for i in range(3):
            yield i, [float(i)] * i

    ds = tf.data.Dataset.from_generator(gen, (tf.int64, tf.float32), (tf.TensorShape([]), tf.TensorShape([None])))
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    sess.run(it.initializer)
    first = _drain(tf, sess, nxt)
    sess.run(it.initializer)
    again = sess.run(nxt)
    return first, again, _types(ds.output_types), _shapes(ds.output_shapes), [t.shape.as_list() for t in nxt]


@case
def from_generator_args_and_batch(tf, sess):
    def gen(n, word):
        for i in range(n):
            yield {"i": i, "w": word * (i + 1)}

    ds = tf.data.Dataset.from_generator(gen, {"i": tf.int32, "w": tf.string}, args=(4, "ab")).batch(3)
    return _drain(tf, sess, ds.make_one_shot_iterator().get_next())[0], _shapes(ds.output_shapes)


@case
def from_generator_errors(tf, sess):
    def bad_type():
        yield "x"

    def bad_shape():
        yield [1, 2]

    def bad_structure():
        yield 1

    out = [
        _error(tf, lambda: tf.data.Dataset.from_generator(42, tf.int64)),
        _error(tf, lambda: tf.data.Dataset.from_generator(bad_type, tf.int64, (tf.TensorShape([]), []))),
    ]
    for gen, types, shapes in (
        (bad_type, tf.int64, []),
        (bad_shape, tf.int64, []),
        (bad_structure, (tf.int64, tf.int64), None),
    ):
        nxt = tf.data.Dataset.from_generator(gen, types, shapes).make_one_shot_iterator().get_next()
        out.append(_error(tf, lambda nxt=nxt: sess.run(nxt)))
    return out


@case
def iterator_error_paths(tf, sess):
    r = tf.data.Dataset.range(3)
    it = tf.data.Iterator.from_structure(tf.int64, tf.TensorShape([]))
    out = [
        _error(tf, lambda: sess.run(r.make_initializable_iterator().get_next())),
        _error(tf, lambda: sess.run(it.get_next())),
        _error(tf, lambda: it.make_initializer(r.map(lambda x: tf.cast(x, tf.int32)))),
        _error(tf, lambda: it.make_initializer(r.batch(2))),
        _error(tf, lambda: it.make_initializer(r.map(lambda x: (x, x)))),
        _error(tf, lambda: it.initializer),
        _error(tf, lambda: r.make_one_shot_iterator().initializer),
        _error(tf, lambda: iter(r)),
        _error(tf, lambda: tf.data.Dataset.from_tensor_slices(([1, 2], [1, 2, 3]))),
        _error(tf, lambda: tf.data.Dataset.from_tensor_slices(1)),
        _error(tf, lambda: tf.data.Dataset.zip([r, r])),
        _error(tf, lambda: r.unbatch()),
        _error(tf, lambda: r.filter(lambda x: x)),
        _error(tf, lambda: r.concatenate(r.map(lambda x: tf.cast(x, tf.int32)))),
        _error(tf, lambda: sess.run(tf.data.Dataset.range(0, 5, 0).make_one_shot_iterator().get_next())),
        _error(tf, lambda: tf.data.Iterator.from_structure((tf.int64, tf.int32), [])),
        _error(tf, lambda: r.padded_batch(2, padded_shapes=[2])),
    ]
    v = tf.data.Dataset.from_tensor_slices([[1, 2]]).map(lambda x: x)
    out.append(_error(tf, lambda: v.padded_batch(2, padded_shapes=[1])))
    out.append(_error(tf, lambda: v.padded_batch(2, padded_shapes=[3], padding_values=-1.0)))
    out.append(_error(tf, lambda: v.padded_batch(2, padded_shapes=[3], padding_values=[1, 2])))
    return out


@case
def cardinality_values(tf, sess):
    r = tf.data.Dataset.range(10)
    card = tf.data.experimental.cardinality
    return [
        card(r),
        card(r.batch(3)),
        card(r.batch(3, drop_remainder=True)),
        card(r.repeat()),
        card(r.filter(lambda x: x > 3)),
        card(r.take(4).repeat(2)),
        tf.data.INFINITE_CARDINALITY,
        tf.data.UNKNOWN_CARDINALITY,
        tf.data.AUTOTUNE,
        tf.data.experimental.AUTOTUNE,
    ]


@case
def text_line_and_tfrecord_files(tf, sess):
    d = tempfile.mkdtemp()
    text = os.path.join(d, "a.txt")
    with open(text, "w") as f:
        f.write("first\nsecond line\n\nlast")
    rec = os.path.join(d, "r.tfrecord")
    with tf.io.TFRecordWriter(rec) as w:
        for s in (b"one", b"two", b"\x00three"):
            w.write(s)
    fixed = os.path.join(d, "f.bin")
    with open(fixed, "wb") as f:
        f.write(b"HHabcdefghTT")
    lines = tf.data.TextLineDataset(text)
    recs = tf.data.TFRecordDataset([rec, rec])
    fixed_ds = tf.data.FixedLengthRecordDataset(fixed, 4, header_bytes=2, footer_bytes=2)
    par = tf.data.TFRecordDataset([rec, rec], num_parallel_reads=2)
    out = [_drain(tf, sess, x.make_one_shot_iterator().get_next())[0] for x in (lines, recs, fixed_ds)]
    out.append(sorted(_drain(tf, sess, par.make_one_shot_iterator().get_next())[0]))
    out.append([_types(x.output_types) for x in (lines, recs, fixed_ds)])
    missing = tf.data.TextLineDataset(os.path.join(d, "missing.txt")).make_one_shot_iterator().get_next()
    out.append(_error(tf, lambda: sess.run(missing)))
    return out


@case
def list_files_sorted_and_missing(tf, sess):
    d = tempfile.mkdtemp()
    for n in ("b.txt", "a.txt", "c.csv"):
        open(os.path.join(d, n), "w").close()
    nxt = tf.data.Dataset.list_files(os.path.join(d, "*.txt"), shuffle=False).make_one_shot_iterator().get_next()
    got = [os.path.basename(x.decode()) for x in _drain(tf, sess, nxt)[0]]
    sh = tf.data.Dataset.list_files(os.path.join(d, "*"), seed=1).make_one_shot_iterator().get_next()
    shuffled = sorted(os.path.basename(x.decode()) for x in _drain(tf, sess, sh)[0])
    none = tf.data.Dataset.list_files(os.path.join(d, "*.zip")).make_one_shot_iterator().get_next()
    return got, shuffled, _error(tf, lambda: sess.run(none))

"""tf.data in TF1 programs: static structures (output types, shapes, classes), op types and names, the four kinds
of iterators, transformations' values, from_generator, file datasets, and the errors a TF1 program catches."""

import collections

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

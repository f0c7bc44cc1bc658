"""Static shapes: what graph construction knows of a tensor's shape, against TensorFlow 1.

TF1 programs read static shapes to size the next layer (`x.shape[1].value`, `x.get_shape().as_list()`), so a
dimension that TensorFlow knows and tensorweave loses breaks programs. Each case returns the shapes (and
Dimensions, strings) a program would read.
"""

import numpy as np

from tests.fidelity.harness import case


def _ph(tf, shape, dtype=None):
    return tf.placeholder(dtype or tf.float32, shape)


def _n(tf):
    return tf.placeholder(tf.int32, [])


# ---------------------------------------------------------------------------------------------------------------
# Partial constant values of shape tensors (TF: constant_value_as_shape, C++ shape inference).


@case
def reshape_with_shape_of_batch(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.reshape(x, [tf.shape(x)[0], 3, 1]).shape


@case
def reshape_with_stacked_shape(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.reshape(x, tf.stack([tf.shape(x)[0], 3, 1])).shape


@case
def reshape_minus_one_with_known_rest(tf, sess):
    x = _ph(tf, [None, 6])
    return tf.reshape(x, [-1, 2, 3]).shape


@case
def reshape_minus_one_fully_known_input(tf, sess):
    x = _ph(tf, [4, 6])
    return tf.reshape(x, [-1, 3]).shape


@case
def reshape_concat_of_shape_slices(tf, sess):
    x = _ph(tf, [None, 4, 5])
    s = tf.shape(x)
    return tf.reshape(x, tf.concat([s[:1], [20]], 0)).shape


@case
def reshape_shape_slice_of_known_dims(tf, sess):
    x = _ph(tf, [None, 4, 5])
    return tf.reshape(x, tf.concat([[-1], tf.shape(x)[1:]], axis=0)).shape


@case
def reshape_cast_shape(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.reshape(x, tf.cast(tf.shape(x, out_type=tf.int64), tf.int32)).shape


@case
def reshape_unknown_shape_tensor(tf, sess):
    x = _ph(tf, [None, 3])
    s = tf.placeholder(tf.int32, [3])
    return tf.reshape(x, s).shape


@case
def reshape_unknown_length_shape_tensor(tf, sess):
    x = _ph(tf, [None, 3])
    s = tf.placeholder(tf.int32, [None])
    return tf.reshape(x, s).shape


@case
def reshape_to_scalar(tf, sess):
    return tf.reshape(tf.constant([5.0]), []).shape


@case
def reshape_incompatible_raises(tf, sess):
    return tf.reshape(tf.zeros([2, 3]), [4, 2]).shape


@case
def zeros_of_shape_of(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.zeros(tf.shape(x)).shape


@case
def ones_of_stacked_placeholder(tf, sess):
    n = _n(tf)
    return tf.ones(tf.stack([n, 4])).shape


@case
def fill_with_stacked_placeholder(tf, sess):
    n = _n(tf)
    return tf.fill(tf.stack([2, n]), 1.0).shape


@case
def fill_with_list_mixing_tensor(tf, sess):
    n = _n(tf)
    return tf.fill([2, n], 1.0).shape


@case
def zeros_with_list_mixing_tensor(tf, sess):
    n = _n(tf)
    return tf.zeros([n, 4]).shape


@case
def tile_with_stacked_multiples(tf, sess):
    x = _ph(tf, [2, 3])
    n = _n(tf)
    return tf.tile(x, tf.stack([n, 2])).shape


@case
def tile_unknown_multiples(tf, sess):
    x = _ph(tf, [2, 3])
    return tf.tile(x, tf.placeholder(tf.int32, [2])).shape


@case
def tile_constant_multiples_unknown_dim(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.tile(x, [2, 2]).shape


@case
def random_normal_with_shape_of(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.random_normal(tf.shape(x)).shape


@case
def random_uniform_with_stacked_shape(tf, sess):
    n = _n(tf)
    return tf.random_uniform(tf.stack([n, 5])).shape


@case
def truncated_normal_with_shape_slice(tf, sess):
    x = _ph(tf, [None, 3, 4])
    return tf.truncated_normal(tf.shape(x)[1:]).shape


@case
def zeros_with_shape_arithmetic(tf, sess):
    x = _ph(tf, [2, 3])
    return tf.zeros(tf.stack([tf.shape(x)[0] * 2, tf.shape(x)[1] + 1])).shape


@case
def zeros_with_size_and_rank(tf, sess):
    x = _ph(tf, [2, 3])
    return tf.zeros(tf.stack([tf.size(x), tf.rank(x)])).shape


@case
def broadcast_reshape_with_expand_dims_of_shape(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.reshape(x, tf.concat([tf.shape(x), [1]], 0)).shape


# ---------------------------------------------------------------------------------------------------------------
# Indexing and slicing with tensors keeps the rank.


@case
def index_with_tensor(tf, sess):
    t = _ph(tf, [4, 5])
    return t[_n(tf)].shape


@case
def slice_with_tensor_bounds(tf, sess):
    x = _ph(tf, [4, 5])
    n = _n(tf)
    return x[:, n : n + 2].shape


@case
def strided_slice_placeholder_begin(tf, sess):
    x = _ph(tf, [4, 5])
    b = tf.placeholder(tf.int32, [2])
    return tf.strided_slice(x, b, [4, 5]).shape


@case
def strided_slice_placeholder_begin_shrink(tf, sess):
    x = _ph(tf, [4, 5, 6])
    b = tf.placeholder(tf.int32, [3])
    return tf.strided_slice(x, b, [1, 5, 6], shrink_axis_mask=1).shape


@case
def index_with_tensor_then_constant(tf, sess):
    x = _ph(tf, [4, 5, 6])
    return x[_n(tf), 2].shape


@case
def slice_with_tensor_and_ellipsis(tf, sess):
    x = _ph(tf, [4, 5, 6])
    return x[..., _n(tf)].shape


@case
def slice_with_tensor_newaxis(tf, sess):
    x = _ph(tf, [4, 5])
    return x[tf.newaxis, _n(tf)].shape


@case
def slice_op_with_tensor_begin(tf, sess):
    x = _ph(tf, [4, 5])
    return tf.slice(x, tf.stack([_n(tf), 0]), [2, 5]).shape


@case
def slice_op_with_unknown_size(tf, sess):
    x = _ph(tf, [4, 5])
    return tf.slice(x, [0, 0], tf.stack([_n(tf), -1])).shape


@case
def slice_op_minus_one_size(tf, sess):
    x = _ph(tf, [4, None])
    return tf.slice(x, [1, 1], [-1, -1]).shape


@case
def slice_of_unknown_rank(tf, sess):
    x = tf.placeholder(tf.float32)
    return x[1:3].shape


# ---------------------------------------------------------------------------------------------------------------
# Layers.


@case
def batch_normalization_keeps_shape(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.layers.batch_normalization(x, training=True).shape


@case
def batch_normalization_then_dense(tf, sess):
    x = _ph(tf, [None, 3])
    y = tf.layers.batch_normalization(x)
    return tf.layers.dense(y, 2).shape


@case
def batch_normalization_4d(tf, sess):
    x = _ph(tf, [None, 5, 5, 3])
    return tf.layers.batch_normalization(x, training=True).shape


@case
def dense_on_rank3(tf, sess):
    x = _ph(tf, [None, 4, 3])
    return tf.layers.dense(x, 2).shape


@case
def dense_on_unknown_batch(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.layers.dense(x, 7, activation=tf.nn.relu).shape


@case
def dense_unknown_last_dim_raises(tf, sess):
    x = _ph(tf, [None, None])
    return tf.layers.dense(x, 2).shape


@case
def flatten_unknown_inner(tf, sess):
    x = _ph(tf, [5, None])
    return tf.layers.flatten(x).shape


@case
def flatten_known_inner(tf, sess):
    x = _ph(tf, [None, 2, 3, 4])
    return tf.layers.flatten(x).shape


@case
def flatten_partly_unknown_inner(tf, sess):
    x = _ph(tf, [None, 2, None])
    return tf.layers.flatten(x).shape


@case
def flatten_rank1(tf, sess):
    x = _ph(tf, [None])
    return tf.layers.flatten(x).shape


@case
def conv2d_unknown_filter_same(tf, sess):
    x = _ph(tf, [2, 8, 8, 3])
    w = tf.placeholder(tf.float32)
    return tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME").shape


@case
def conv2d_unknown_filter_valid(tf, sess):
    x = _ph(tf, [2, 8, 8, 3])
    w = tf.placeholder(tf.float32)
    return tf.nn.conv2d(x, w, [1, 2, 2, 1], "VALID").shape


@case
def conv2d_unknown_input_rank(tf, sess):
    x = tf.placeholder(tf.float32)
    w = tf.zeros([3, 3, 3, 4])
    return tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME").shape


@case
def dropout_placeholder_keep_prob(tf, sess):
    x = _ph(tf, [None, 3])
    keep = tf.placeholder(tf.float32)
    return tf.nn.dropout(x, keep).shape


@case
def dropout_constant_keep_prob(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.nn.dropout(x, 0.5).shape


@case
def layers_dropout_keeps_shape(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.layers.dropout(x, 0.5, training=True).shape


@case
def layers_conv2d_same(tf, sess):
    x = _ph(tf, [None, 28, 28, 1])
    return tf.layers.conv2d(x, 8, 5, padding="same").shape


@case
def layers_conv2d_valid_strided(tf, sess):
    x = _ph(tf, [None, 28, 28, 1])
    return tf.layers.conv2d(x, 8, 5, strides=2).shape


@case
def layers_conv2d_unknown_spatial(tf, sess):
    x = _ph(tf, [None, None, None, 3])
    return tf.layers.conv2d(x, 4, 3).shape


@case
def layers_max_pooling2d(tf, sess):
    x = _ph(tf, [None, 28, 28, 8])
    return tf.layers.max_pooling2d(x, 2, 2).shape


@case
def layers_average_pooling2d_same(tf, sess):
    x = _ph(tf, [None, 7, 7, 8])
    return tf.layers.average_pooling2d(x, 2, 2, padding="same").shape


@case
def lenet_shapes(tf, sess):
    x = _ph(tf, [None, 28, 28, 1])
    c1 = tf.layers.conv2d(x, 6, 5, padding="same", activation=tf.nn.relu)
    p1 = tf.layers.max_pooling2d(c1, 2, 2)
    c2 = tf.layers.conv2d(p1, 16, 5, activation=tf.nn.relu)
    p2 = tf.layers.max_pooling2d(c2, 2, 2)
    f = tf.layers.flatten(p2)
    return [c1.shape, p1.shape, c2.shape, p2.shape, f.shape, tf.layers.dense(f, 10).shape]


# ---------------------------------------------------------------------------------------------------------------
# TensorShape and Dimension (TF1 semantics: items are Dimensions).


@case
def shape_item_value(tf, sess):
    x = _ph(tf, [None, 3])
    return [x.shape[1].value, x.shape[0].value, x.get_shape()[1].value]


@case
def shape_item_is_dimension(tf, sess):
    x = _ph(tf, [None, 3])
    return [x.shape[0], x.shape[1], x.get_shape()[-1]]


@case
def shape_str(tf, sess):
    return [
        str(tf.TensorShape([None, 3])),
        str(tf.TensorShape([4])),
        str(tf.TensorShape([])),
        str(tf.TensorShape(None)),
    ]


@case
def shape_repr(tf, sess):
    return [repr(tf.TensorShape([None, 3])), repr(tf.TensorShape(None)), repr(tf.TensorShape([]))]


@case
def dimension_str_and_repr(tf, sess):
    return [str(tf.Dimension(3)), str(tf.Dimension(None)), repr(tf.Dimension(3)), repr(tf.Dimension(None))]


@case
def dimension_arithmetic(tf, sess):
    a, u = tf.Dimension(6), tf.Dimension(None)
    return [a + 2, a - 1, a * 2, a // 4, a % 4, 2 + a, 3 * a, a + u, u * 2, a + tf.Dimension(1)]


@case
def dimension_comparisons(tf, sess):
    a, u = tf.Dimension(6), tf.Dimension(None)
    return [a == 6, a == tf.Dimension(6), a != 5, u == 6, u != 6, a < 7, a >= 6, u < 3, a == None]  # noqa: E711


@case
def dimension_int_and_index(tf, sess):
    a = tf.Dimension(4)
    return [int(a), list(range(a)), [1, 2, 3, 4, 5][a], np.zeros([a, 2]).shape]


@case
def dimension_int_of_unknown_raises(tf, sess):
    return int(tf.Dimension(None))


@case
def dimension_merge_with(tf, sess):
    return [tf.Dimension(None).merge_with(3), tf.Dimension(3).merge_with(None), tf.Dimension(3).merge_with(3)]


@case
def dimension_merge_incompatible_raises(tf, sess):
    return tf.Dimension(3).merge_with(4)


@case
def dimension_is_compatible_with(tf, sess):
    d = tf.Dimension(3)
    return [
        d.is_compatible_with(3),
        d.is_compatible_with(4),
        d.is_compatible_with(None),
        tf.Dimension(None).is_compatible_with(2),
    ]


@case
def dimension_value_function(tf, sess):
    x = _ph(tf, [None, 3])
    return [
        tf.dimension_value(x.shape[1]),
        tf.dimension_value(x.shape[0]),
        tf.dimension_value(5),
        tf.dimension_value(None),
    ]


@case
def dimension_negative_raises(tf, sess):
    return tf.Dimension(-2)


@case
def dimension_of_float_raises(tf, sess):
    return tf.Dimension(2.5)


@case
def dimension_hash_and_bool(tf, sess):
    return [len({tf.Dimension(3), tf.Dimension(3)}), tf.Dimension(3).value is not None]


@case
def shape_dims_are_dimensions(tf, sess):
    x = _ph(tf, [None, 3])
    return x.shape.dims


@case
def shape_as_list_and_ndims(tf, sess):
    x = _ph(tf, [None, 3, 4])
    return [x.shape.as_list(), x.shape.ndims, x.get_shape().ndims, len(x.shape)]


@case
def shape_rank_property(tf, sess):
    return [tf.TensorShape([1, None]).rank, tf.TensorShape(None).rank, tf.TensorShape(None).ndims]


@case
def shape_slices(tf, sess):
    s = tf.TensorShape([1, None, 3, 4])
    return [s[1:], s[:-1], s[::2], s[5:]]


@case
def shape_slice_of_unknown(tf, sess):
    return [tf.TensorShape(None)[1:], tf.TensorShape(None)[0]]


@case
def shape_iteration_gives_dimensions(tf, sess):
    return [d for d in tf.TensorShape([2, None])]


@case
def shape_equality(tf, sess):
    s = tf.TensorShape([None, 3])
    return [
        s == tf.TensorShape([None, 3]),
        s == [None, 3],
        tf.TensorShape([2, 3]) == [2, 3],
        tf.TensorShape([2, 3]) == (2, 3),
        s != tf.TensorShape([2, 3]),
        tf.TensorShape(None) == tf.TensorShape(None),
    ]


@case
def shape_concatenate(tf, sess):
    s = tf.TensorShape([None, 3])
    return [s.concatenate([4]), s.concatenate(tf.TensorShape(None)), s.concatenate(tf.TensorShape([]))]


@case
def shape_merge_with(tf, sess):
    return [tf.TensorShape([None, 3]).merge_with([2, None]), tf.TensorShape(None).merge_with([1, 2])]


@case
def shape_merge_incompatible_raises(tf, sess):
    return tf.TensorShape([None, 3]).merge_with([2, 4])


@case
def shape_num_elements(tf, sess):
    return [
        tf.TensorShape([2, 3]).num_elements(),
        tf.TensorShape([None, 3]).num_elements(),
        tf.TensorShape([]).num_elements(),
        tf.TensorShape(None).num_elements(),
    ]


@case
def shape_is_fully_defined(tf, sess):
    return [
        tf.TensorShape([2, 3]).is_fully_defined(),
        tf.TensorShape([None]).is_fully_defined(),
        tf.TensorShape(None).is_fully_defined(),
    ]


@case
def shape_with_rank_at_least(tf, sess):
    return [tf.TensorShape(None).with_rank_at_least(2), tf.TensorShape([1, 2, 3]).with_rank_at_least(2)]


@case
def shape_with_rank_at_least_raises(tf, sess):
    return tf.TensorShape([1]).with_rank_at_least(2)


@case
def shape_with_rank(tf, sess):
    return [tf.TensorShape(None).with_rank(2), tf.TensorShape([1, 2]).with_rank(2)]


@case
def shape_with_rank_raises(tf, sess):
    return tf.TensorShape([1]).with_rank(2)


@case
def shape_is_compatible_with(tf, sess):
    s = tf.TensorShape([None, 3])
    return [
        s.is_compatible_with([2, 3]),
        s.is_compatible_with([2, 4]),
        s.is_compatible_with([2]),
        s.is_compatible_with(tf.TensorShape(None)),
    ]


@case
def shape_unknown_as_list_raises(tf, sess):
    return tf.TensorShape(None).as_list()


@case
def shape_from_dimensions(tf, sess):
    return tf.TensorShape([tf.Dimension(2), tf.Dimension(None), 4])


@case
def shape_bool_and_len(tf, sess):
    return [bool(tf.TensorShape([])), bool(tf.TensorShape([1])), len(tf.TensorShape([1, 2]))]


@case
def shape_most_specific_compatible(tf, sess):
    return tf.TensorShape([2, 3]).most_specific_compatible_shape(tf.TensorShape([2, 4]))


@case
def unknown_shape_function(tf, sess):
    return [tf.TensorShape(None), tf.TensorShape([None] * 3)]


@case
def shape_of_placeholder_without_shape(tf, sess):
    x = tf.placeholder(tf.float32)
    return [x.shape, x.shape.ndims, str(x.shape)]


@case
def shape_dimension_used_in_layer_sizing(tf, sess):
    x = _ph(tf, [None, 7])
    w = tf.get_variable("w", [x.shape[1], 2])
    w2 = tf.get_variable("w2", [x.get_shape()[-1].value, 3])
    return [w.shape, w2.shape]


@case
def zeros_from_tensorshape(tf, sess):
    return tf.zeros(tf.TensorShape([2, 3])).shape


@case
def placeholder_with_tensorshape(tf, sess):
    return tf.placeholder(tf.float32, tf.TensorShape([None, 2])).shape


# ---------------------------------------------------------------------------------------------------------------
# set_shape refines what downstream ops see.


@case
def set_shape_refines_downstream(tf, sess):
    x = tf.placeholder(tf.float32)
    x.set_shape([None, 3])
    return [x.shape, (x * 2.0).shape, tf.layers.dense(x, 2).shape]


@case
def set_shape_incompatible_raises(tf, sess):
    x = _ph(tf, [None, 3])
    x.set_shape([2, 4])
    return x.shape


@case
def set_shape_merges(tf, sess):
    x = _ph(tf, [None, 3])
    x.set_shape([5, None])
    return [x.shape, tf.shape(x).shape, tf.reshape(x, [-1]).shape]


@case
def placeholder_shapes(tf, sess):
    return [
        tf.placeholder(tf.float32, []).shape,
        tf.placeholder(tf.float32, [None]).shape,
        tf.placeholder(tf.float32, (2, None, 3)).shape,
        tf.placeholder(tf.float32, None).shape,
        tf.placeholder_with_default([1.0, 2.0], [None]).shape,
    ]


# ---------------------------------------------------------------------------------------------------------------
# Array ops.


@case
def concat_unknown_dims(tf, sess):
    a, b = _ph(tf, [None, 3]), _ph(tf, [2, None])
    return [tf.concat([a, b], 0).shape, tf.concat([a, b], 1).shape, tf.concat([a, a], -1).shape]


@case
def concat_unknown_rank_input(tf, sess):
    a, b = _ph(tf, [None, 3]), tf.placeholder(tf.float32)
    return tf.concat([a, b], 1).shape


@case
def concat_tensor_axis(tf, sess):
    a = _ph(tf, [2, 3])
    return tf.concat([a, a], tf.placeholder(tf.int32, [])).shape


@case
def concat_mismatch_raises(tf, sess):
    return tf.concat([tf.zeros([2, 3]), tf.zeros([2, 4])], 0).shape


@case
def stack_and_unstack(tf, sess):
    a = _ph(tf, [None, 3])
    st = tf.stack([a, a, a], axis=1)
    return [st.shape, tf.stack([a, a], axis=-1).shape, [t.shape for t in tf.unstack(st, axis=1)]]


@case
def stack_mixed_unknown(tf, sess):
    return tf.stack([_ph(tf, [None, 3]), _ph(tf, [2, None])]).shape


@case
def unstack_unknown_num_raises(tf, sess):
    return len(tf.unstack(_ph(tf, [None, 3])))


@case
def split_shapes(tf, sess):
    x = _ph(tf, [None, 6])
    return [[t.shape for t in tf.split(x, 3, axis=1)], [t.shape for t in tf.split(x, [1, 5], axis=1)]]


@case
def split_unknown_axis_dim(tf, sess):
    x = _ph(tf, [None, 6])
    return [t.shape for t in tf.split(x, 2, axis=0)]


@case
def split_sizes_with_minus_one(tf, sess):
    x = _ph(tf, [4, 6])
    return [t.shape for t in tf.split(x, [1, -1, 2], axis=1)]


@case
def squeeze_shapes(tf, sess):
    x = _ph(tf, [None, 1, 3, 1])
    return [tf.squeeze(x).shape, tf.squeeze(x, [1]).shape, tf.squeeze(x, axis=-1).shape]


@case
def squeeze_unknown_dims(tf, sess):
    x = _ph(tf, [None, 1, None])
    return [tf.squeeze(x).shape, tf.squeeze(x, [0]).shape]


@case
def squeeze_non_one_raises(tf, sess):
    return tf.squeeze(_ph(tf, [2, 3]), [0]).shape


@case
def expand_dims_shapes(tf, sess):
    x = _ph(tf, [None, 3])
    return [tf.expand_dims(x, 0).shape, tf.expand_dims(x, -1).shape, tf.expand_dims(x, 1).shape]


@case
def expand_dims_tensor_axis(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.expand_dims(x, tf.placeholder(tf.int32, [])).shape


@case
def transpose_shapes(tf, sess):
    x = _ph(tf, [None, 3, 4])
    return [tf.transpose(x).shape, tf.transpose(x, [0, 2, 1]).shape]


@case
def transpose_tensor_perm(tf, sess):
    x = _ph(tf, [None, 3, 4])
    return tf.transpose(x, tf.placeholder(tf.int32, [3])).shape


@case
def transpose_unknown_rank(tf, sess):
    return tf.transpose(tf.placeholder(tf.float32), [1, 0]).shape


@case
def gather_shapes(tf, sess):
    p = _ph(tf, [None, 5, 6])
    i = tf.placeholder(tf.int32, [None, 2])
    return [
        tf.gather(p, i).shape,
        tf.gather(p, i, axis=1).shape,
        tf.gather(p, 3).shape,
        tf.gather(p, [1, 2], axis=-1).shape,
    ]


@case
def gather_tensor_axis(tf, sess):
    p = _ph(tf, [4, 5])
    return tf.gather(p, [1], axis=tf.placeholder(tf.int32, [])).shape


@case
def pad_shapes(tf, sess):
    x = _ph(tf, [None, 3])
    return [tf.pad(x, [[1, 1], [2, 0]]).shape, tf.pad(x, tf.placeholder(tf.int32, [2, 2])).shape]


@case
def pad_reflect(tf, sess):
    x = _ph(tf, [4, 3])
    return tf.pad(x, [[1, 1], [2, 2]], mode="REFLECT").shape


@case
def slice_op_shapes(tf, sess):
    x = _ph(tf, [None, 5])
    return [tf.slice(x, [0, 1], [2, 3]).shape, tf.slice(x, [0, 1], [-1, 3]).shape, tf.slice(x, [1, 1], [-1, -1]).shape]


@case
def strided_slice_masks(tf, sess):
    x = _ph(tf, [None, 5, 6])
    return [
        x[1:].shape,
        x[:, 1:4].shape,
        x[:, ::2].shape,
        x[:, ::-1].shape,
        x[0].shape,
        x[:, -1].shape,
        x[..., 1].shape,
        x[..., 1:3].shape,
        x[tf.newaxis].shape,
        x[:, tf.newaxis, 2].shape,
        x[0, ..., tf.newaxis].shape,
        x[:, 10:].shape,
        x[:, -2:].shape,
        x[:, 4:1:-1].shape,
    ]


@case
def strided_slice_op_masks(tf, sess):
    x = _ph(tf, [4, 5, 6])
    return [
        tf.strided_slice(x, [1, 0, 0], [3, 5, 6], begin_mask=0b110, end_mask=0b110).shape,
        tf.strided_slice(x, [0, 0], [1, 2], shrink_axis_mask=1).shape,
        tf.strided_slice(x, [0, 0], [1, 2], ellipsis_mask=1).shape,
        tf.strided_slice(x, [0, 0], [1, 2], new_axis_mask=2).shape,
        tf.strided_slice(x, [0], [1], strides=[-1]).shape,
    ]


@case
def strided_slice_unknown_dim_negative_index(tf, sess):
    x = _ph(tf, [None, 5])
    return [x[-1].shape, x[-3:].shape, x[:-1].shape, x[2:5].shape]


@case
def strided_slice_out_of_range_index_raises(tf, sess):
    return _ph(tf, [4, 5])[:, 7].shape


@case
def one_hot_shapes(tf, sess):
    i = tf.placeholder(tf.int32, [None, 3])
    return [tf.one_hot(i, 5).shape, tf.one_hot(i, 5, axis=0).shape, tf.one_hot(i, 5, axis=1).shape]


@case
def one_hot_tensor_depth(tf, sess):
    i = tf.placeholder(tf.int32, [None])
    return tf.one_hot(i, _n(tf)).shape


@case
def range_shapes(tf, sess):
    n = _n(tf)
    return [
        tf.range(5).shape,
        tf.range(2, 11, 3).shape,
        tf.range(n).shape,
        tf.range(5, 0, -2).shape,
        tf.range(0.0, 1.0, 0.25).shape,
    ]


@case
def shape_size_rank_shapes(tf, sess):
    x = _ph(tf, [None, 3])
    u = tf.placeholder(tf.float32)
    return [tf.shape(x).shape, tf.size(x).shape, tf.rank(x).shape, tf.shape(u).shape]


@case
def zeros_like_ones_like(tf, sess):
    x = _ph(tf, [None, 3])
    return [tf.zeros_like(x).shape, tf.ones_like(x, dtype=tf.int32).shape]


@case
def where_shapes(tf, sess):
    c = tf.placeholder(tf.bool, [None, 3])
    x = _ph(tf, [None, 3])
    return [tf.where(c).shape, tf.where(c, x, x).shape]


@case
def where_v2_broadcasts(tf, sess):
    c = tf.placeholder(tf.bool, [None, 1])
    return tf.where_v2(c, _ph(tf, [1, 3]), 0.0).shape


@case
def identity_and_stop_gradient(tf, sess):
    x = _ph(tf, [None, 3])
    return [tf.identity(x).shape, tf.stop_gradient(x).shape]


@case
def unsorted_segment_sum_shapes(tf, sess):
    d = _ph(tf, [None, 3])
    ids = tf.placeholder(tf.int32, [None])
    return [tf.unsorted_segment_sum(d, ids, 4).shape, tf.unsorted_segment_sum(d, ids, _n(tf)).shape]


@case
def invert_permutation_shape(tf, sess):
    return tf.invert_permutation(tf.placeholder(tf.int32, [None])).shape


@case
def random_shuffle_and_multinomial(tf, sess):
    x = _ph(tf, [None, 3])
    return [tf.random_shuffle(x).shape, tf.multinomial(_ph(tf, [None, 4]), 5).shape]


# ---------------------------------------------------------------------------------------------------------------
# Math ops.


@case
def broadcast_binary_unknown_dims(tf, sess):
    return [
        (_ph(tf, [None, 3]) + _ph(tf, [3])).shape,
        (_ph(tf, [None, 1]) * _ph(tf, [1, 4])).shape,
        (_ph(tf, [None, 3]) - _ph(tf, [None, 3])).shape,
        (_ph(tf, [None, None]) + _ph(tf, [2, 1])).shape,
        (_ph(tf, [None]) + tf.placeholder(tf.float32)).shape,
        (_ph(tf, [5, 1, 3]) + _ph(tf, [None, 1])).shape,
    ]


@case
def broadcast_unknown_vs_one(tf, sess):
    return [(_ph(tf, [None]) + _ph(tf, [1])).shape, (_ph(tf, [1]) + _ph(tf, [None])).shape]


@case
def broadcast_incompatible_raises(tf, sess):
    return (_ph(tf, [2, 3]) + _ph(tf, [4])).shape


@case
def matmul_shapes(tf, sess):
    a, b = _ph(tf, [None, 3]), _ph(tf, [3, 5])
    return [
        tf.matmul(a, b).shape,
        tf.matmul(b, a, transpose_a=True, transpose_b=True).shape,
        tf.matmul(a, tf.placeholder(tf.float32)).shape,
    ]


@case
def matmul_mismatch_raises(tf, sess):
    return tf.matmul(_ph(tf, [2, 3]), _ph(tf, [4, 5])).shape


@case
def reduce_shapes(tf, sess):
    x = _ph(tf, [None, 3, 4])
    return [
        tf.reduce_sum(x).shape,
        tf.reduce_sum(x, 1).shape,
        tf.reduce_mean(x, [0, 2]).shape,
        tf.reduce_max(x, -1, keepdims=True).shape,
        tf.reduce_min(x, [0, 1], keepdims=True).shape,
        tf.reduce_prod(x, axis=None, keepdims=True).shape,
        tf.reduce_any(tf.cast(x, tf.bool), 0).shape,
    ]


@case
def reduce_tensor_axis(tf, sess):
    x = _ph(tf, [None, 3, 4])
    a = tf.placeholder(tf.int32, [])
    return [
        tf.reduce_sum(x, a).shape,
        tf.reduce_sum(x, a, keepdims=True).shape,
        tf.reduce_sum(x, tf.placeholder(tf.int32, [None])).shape,
    ]


@case
def reduce_unknown_rank(tf, sess):
    x = tf.placeholder(tf.float32)
    return [tf.reduce_sum(x, 1).shape, tf.reduce_sum(x).shape, tf.reduce_sum(x, 1, keepdims=True).shape]


@case
def reduce_axis_out_of_range_raises(tf, sess):
    return tf.reduce_sum(_ph(tf, [2, 3]), 2).shape


@case
def argmax_shapes(tf, sess):
    x = _ph(tf, [None, 3, 4])
    return [tf.argmax(x, 1).shape, tf.argmin(x, -1).shape, tf.argmax(x, 0).shape]


@case
def cast_and_unary_keep_shape(tf, sess):
    x = _ph(tf, [None, 3])
    return [tf.cast(x, tf.int32).shape, tf.exp(x).shape, tf.sqrt(x).shape, tf.sign(x).shape, tf.nn.relu(x).shape]


@case
def add_n_shapes(tf, sess):
    return tf.add_n([_ph(tf, [None, 3]), _ph(tf, [2, None])]).shape


@case
def comparison_shapes(tf, sess):
    return [tf.equal(_ph(tf, [None, 3]), 1.0).shape, tf.less(_ph(tf, [2, 1]), _ph(tf, [3])).shape]


@case
def clip_by_value_shape(tf, sess):
    return tf.clip_by_value(_ph(tf, [None, 3]), 0.0, 1.0).shape


# ---------------------------------------------------------------------------------------------------------------
# nn ops.


@case
def conv2d_padding_and_strides(tf, sess):
    x = _ph(tf, [None, 9, 9, 3])
    w = tf.zeros([3, 3, 3, 4])
    return [
        tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME").shape,
        tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME").shape,
        tf.nn.conv2d(x, w, [1, 1, 1, 1], "VALID").shape,
        tf.nn.conv2d(x, w, [1, 2, 2, 1], "VALID").shape,
        tf.nn.conv2d(x, w, [1, 3, 2, 1], "VALID").shape,
    ]


@case
def conv2d_unknown_spatial(tf, sess):
    x = _ph(tf, [None, None, 9, 3])
    return tf.nn.conv2d(x, tf.zeros([3, 3, 3, 4]), [1, 2, 2, 1], "SAME").shape


@case
def conv2d_nchw_shapes(tf, sess):
    x = _ph(tf, [None, 3, 9, 9])
    return tf.nn.conv2d(x, tf.zeros([3, 3, 3, 4]), [1, 1, 2, 2], "VALID", data_format="NCHW").shape


@case
def conv2d_dilated(tf, sess):
    x = _ph(tf, [None, 9, 9, 3])
    return tf.nn.conv2d(x, tf.zeros([3, 3, 3, 4]), [1, 1, 1, 1], "VALID", dilations=[1, 2, 2, 1]).shape


@case
def conv2d_channel_mismatch_raises(tf, sess):
    return tf.nn.conv2d(_ph(tf, [1, 9, 9, 3]), tf.zeros([3, 3, 2, 4]), [1, 1, 1, 1], "SAME").shape


@case
def depthwise_conv2d_shapes(tf, sess):
    x = _ph(tf, [None, 8, 8, 3])
    return [
        tf.nn.depthwise_conv2d(x, tf.zeros([3, 3, 3, 2]), [1, 1, 1, 1], "SAME").shape,
        tf.nn.depthwise_conv2d(x, tf.zeros([3, 3, 3, 2]), [1, 2, 2, 1], "VALID").shape,
    ]


@case
def pool_shapes(tf, sess):
    x = _ph(tf, [None, 9, 9, 3])
    return [
        tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID").shape,
        tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME").shape,
        tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 1, 1, 1], "VALID").shape,
        tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME").shape,
    ]


@case
def pool_unknown_spatial(tf, sess):
    x = _ph(tf, [2, None, 9, None])
    return tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID").shape


@case
def conv2d_backprop_shapes(tf, sess):
    x = _ph(tf, [2, 8, 8, 3])
    dy = _ph(tf, [2, 8, 8, 4])
    w = tf.zeros([3, 3, 3, 4])
    return [
        tf.nn.conv2d_backprop_input([2, 8, 8, 3], w, dy, [1, 1, 1, 1], "SAME").shape,
        tf.nn.conv2d_backprop_filter(x, [3, 3, 3, 4], dy, [1, 1, 1, 1], "SAME").shape,
    ]


@case
def bias_add_shapes(tf, sess):
    return [
        tf.nn.bias_add(_ph(tf, [None, 4, 3]), tf.zeros([3])).shape,
        tf.nn.bias_add(_ph(tf, [None, 3, 4, 4]), tf.zeros([3]), data_format="NCHW").shape,
    ]


@case
def softmax_family_shapes(tf, sess):
    x = _ph(tf, [None, 5])
    return [tf.nn.softmax(x).shape, tf.nn.log_softmax(x).shape, tf.nn.l2_normalize(x, 1).shape]


@case
def cross_entropy_shapes(tf, sess):
    logits = _ph(tf, [None, 5])
    return [
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=_ph(tf, [None, 5]), logits=logits).shape,
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.placeholder(tf.int32, [None]), logits=logits).shape,
    ]


@case
def moments_shapes(tf, sess):
    x = _ph(tf, [None, 4, 4, 3])
    m, v = tf.nn.moments(x, [0, 1, 2])
    mk, vk = tf.nn.moments(x, [0], keep_dims=True)
    return [m.shape, v.shape, mk.shape, vk.shape]


@case
def fused_batch_norm_shapes(tf, sess):
    x = _ph(tf, [None, 4, 4, 3])
    y, mean, var = tf.nn.fused_batch_norm(x, tf.ones([3]), tf.zeros([3]))
    return [y.shape, mean.shape, var.shape]


@case
def l2_loss_shape(tf, sess):
    return tf.nn.l2_loss(_ph(tf, [None, 3])).shape


@case
def losses_shapes(tf, sess):
    y = _ph(tf, [None, 3])
    return [tf.losses.mean_squared_error(y, y).shape, tf.losses.softmax_cross_entropy(y, y).shape]


# ---------------------------------------------------------------------------------------------------------------
# Variables.


@case
def variable_shapes(tf, sess):
    v = tf.Variable(tf.zeros([2, 3]))
    g = tf.get_variable("g", [4, 5])
    return [v.shape, v.get_shape(), g.shape, v.initial_value.shape, tf.identity(v).shape, v.read_value().shape]


@case
def variable_shape_item_value(tf, sess):
    v = tf.get_variable("g", [4, 5])
    return [v.shape[0].value, v.get_shape()[1].value, v.shape.as_list()]


@case
def variable_from_unknown_shape_raises(tf, sess):
    return tf.Variable(tf.placeholder(tf.float32, [None, 3])).shape


@case
def variable_validate_shape_false(tf, sess):
    return tf.Variable(tf.placeholder_with_default([1.0, 2.0], [None]), validate_shape=False).shape


@case
def assign_shapes(tf, sess):
    v = tf.Variable(tf.zeros([2, 3]))
    return [tf.assign(v, tf.ones([2, 3])).shape, tf.assign_add(v, tf.ones([2, 3])).shape]


@case
def assign_mismatch_raises(tf, sess):
    v = tf.Variable(tf.zeros([2, 3]))
    return tf.assign(v, tf.ones([3, 2])).shape


@case
def gradient_shapes(tf, sess):
    x = _ph(tf, [None, 3])
    w = tf.Variable(tf.zeros([3, 2]))
    y = tf.reduce_sum(tf.matmul(x, w))
    gx, gw = tf.gradients(y, [x, w])
    return [gx.shape, gw.shape]


@case
def constant_shapes(tf, sess):
    return [
        tf.constant(1.0).shape,
        tf.constant([[1, 2]]).shape,
        tf.constant(0.0, shape=[2, 3]).shape,
        tf.constant([1.0, 2.0], shape=[2, 1]).shape,
    ]


@case
def convert_to_tensor_shapes(tf, sess):
    return [tf.convert_to_tensor(np.zeros([2, 0, 3])).shape, tf.convert_to_tensor([[1.0], [2.0]]).shape]


# ---------------------------------------------------------------------------------------------------------------
# Dimensions used where TF1 programs use them: in shape lists, arithmetic, numpy.


@case
def zeros_with_dimension_in_list(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.zeros([x.shape[1], 2]).shape


@case
def reshape_with_dimension_product(tf, sess):
    x = _ph(tf, [None, 2, 3])
    return tf.reshape(x, [-1, x.shape[1] * x.shape[2]]).shape


@case
def reshape_with_unknown_dimension_in_list(tf, sess):
    x = _ph(tf, [None, 6])
    return tf.reshape(x, [x.shape[0], 6]).shape


@case
def constant_of_dimension(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.constant(x.shape[1])


@case
def numpy_prod_of_shape_slice(tf, sess):
    x = _ph(tf, [None, 2, 3, 4])
    return [int(np.prod(x.shape[1:])), np.prod(x.shape.as_list()[1:])]


@case
def ones_of_shape_slice(tf, sess):
    x = _ph(tf, [None, 2, 3])
    return tf.ones(x.shape[1:]).shape


@case
def placeholder_with_dimension(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.placeholder(tf.float32, [None, x.shape[1]]).shape


@case
def dimension_in_range_and_format(tf, sess):
    x = _ph(tf, [None, 3])
    return [list(range(x.shape[1])), "%d" % x.shape[1].value, "{}".format(x.shape[0])]


@case
def shape_list_comparison_idioms(tf, sess):
    x = _ph(tf, [None, 3])
    return [x.shape[1] == 3, x.shape[0] == 3, x.shape[-1] > 2, x.shape.as_list() == [None, 3], x.shape[0].value is None]


@case
def get_shape_with_rank(tf, sess):
    return _ph(tf, [None, 3]).get_shape().with_rank(2).as_list()


@case
def tensor_shape_addition(tf, sess):
    return [tf.TensorShape([1]) + tf.TensorShape([None, 2]), tf.TensorShape([1]) + [3]]


@case
def partial_shape_through_shape_arithmetic(tf, sess):
    x = _ph(tf, [None, 4, 6])
    s = tf.shape(x)
    return tf.reshape(x, [s[0], s[1] * s[2]]).shape


@case
def partial_shape_through_floordiv(tf, sess):
    x = _ph(tf, [None, 8])
    return tf.reshape(x, [-1, tf.shape(x)[1] // 2, 2]).shape


@case
def partial_shape_through_int64_cast(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.zeros(tf.cast(tf.shape(x), tf.int64)).shape


@case
def partial_shape_of_unknown_rank_input(tf, sess):
    x = tf.placeholder(tf.float32)
    return [tf.zeros(tf.shape(x)).shape, tf.reshape(x, tf.shape(x)[:2]).shape]


@case
def shape_tensor_value_known_when_fully_defined(tf, sess):
    x = _ph(tf, [2, 3])
    return [
        sess.run(tf.shape(x), {x: np.zeros([2, 3])}),
        tf.zeros(tf.shape(x)[1:]).shape,
        tf.range(tf.shape(x)[1]).shape,
    ]


@case
def reshape_like_other_tensor(tf, sess):
    x = _ph(tf, [None, 6])
    y = _ph(tf, [None, 2, 3])
    return tf.reshape(x, tf.shape(y)).shape


@case
def fill_with_placeholder_shape_vector(tf, sess):
    return tf.fill(tf.placeholder(tf.int32, [3]), 0.0).shape


@case
def broadcast_to_like_via_tile_of_expand(tf, sess):
    x = _ph(tf, [None, 3])
    return tf.tile(tf.expand_dims(x, 1), [1, 4, 1]).shape


@case
def one_hot_of_argmax(tf, sess):
    x = _ph(tf, [None, 5])
    return tf.one_hot(tf.argmax(x, 1), 5).shape


@case
def set_shape_then_reshape_infers(tf, sess):
    x = tf.placeholder(tf.float32)
    x.set_shape([4, 6])
    return tf.reshape(x, [-1, 3]).shape


@case
def set_shape_on_int_vector_gives_shape_length(tf, sess):
    s = tf.placeholder(tf.int32)
    s.set_shape([2])
    return tf.zeros(s).shape

"""Raw ops (`tf.raw_ops.<Op>`, generated here from the op registry by `gen_ops`): keyword-only calls, the attr
checks of TF1's op builder (a value of the wrong kind or a dtype not allowed: TypeError; a string not allowed or
a list under its minimum length: ValueError), dtype inference from the inputs, output structure and the names of
constants made from Python values (`<op name>/<input name>`), against TensorFlow 1.

Only attrs both registries define are passed (TF's Conv2D also has `explicit_paddings`, which keeps its
default)."""

import numpy as np

from tests.fidelity.harness import case


def _image(tf):
    return tf.constant(np.arange(16, dtype=np.float32).reshape([1, 4, 4, 1]))


def _filter(tf):
    return tf.constant(np.ones([2, 2, 1, 1], np.float32))


def _conv(tf, **attrs):
    args = dict(input=_image(tf), filter=_filter(tf), strides=[1, 1, 1, 1], padding="VALID")
    args.update(attrs)
    return tf.raw_ops.Conv2D(**args)


@case
def conv2d_values_and_name(tf, sess):
    y = _conv(tf, name="conv")
    return [y, y.name, y.shape]


@case
def conv2d_padding_not_allowed(tf, sess):
    return _conv(tf, padding="FOO")


@case
def conv2d_padding_lower_case_not_allowed(tf, sess):
    return _conv(tf, padding="same")


@case
def conv2d_padding_not_a_string(tf, sess):
    return _conv(tf, padding=3)


@case
def conv2d_padding_bytes(tf, sess):
    return _conv(tf, padding=b"SAME").shape


@case
def conv2d_strides_not_a_list(tf, sess):
    return _conv(tf, strides=1)


@case
def conv2d_strides_tuple(tf, sess):
    return _conv(tf, strides=(1, 2, 2, 1)).shape


@case
def conv2d_use_cudnn_not_a_bool(tf, sess):
    return _conv(tf, use_cudnn_on_gpu=1)


@case
def conv2d_positional_arguments(tf, sess):
    return tf.raw_ops.Conv2D(_image(tf), _filter(tf), [1, 1, 1, 1], "VALID")


@case
def conv2d_missing_attr(tf, sess):
    return tf.raw_ops.Conv2D(input=_image(tf), filter=_filter(tf), padding="VALID")


@case
def conv2d_unknown_argument(tf, sess):
    return _conv(tf, foo=1)


@case
def conv2d_filter_of_another_dtype(tf, sess):
    return _conv(tf, filter=tf.constant(np.ones([2, 2, 1, 1])))


@case
def conv2d_int_input_not_allowed(tf, sess):
    return _conv(
        tf, input=tf.constant(np.ones([1, 4, 4, 1], np.int32)), filter=tf.constant(np.ones([2, 2, 1, 1], np.int64))
    )


@case
def conv2d_numpy_inputs_keep_their_dtype(tf, sess):
    y = _conv(tf, input=np.ones([1, 3, 3, 1]), filter=np.ones([2, 2, 1, 1]))
    return [y, sorted(o.name for o in tf.get_default_graph().get_operations())]


@case
def add_constants_named_by_input(tf, sess):
    s = tf.raw_ops.Add(x=1.0, y=2.0, name="s")
    return [s, sorted(o.name for o in tf.get_default_graph().get_operations())]


@case
def add_python_value_then_tensor_of_another_dtype(tf, sess):
    return tf.raw_ops.Add(x=1.0, y=tf.constant(2.0, tf.float64))


@case
def add_n_list(tf, sess):
    a = tf.constant([1.0, 2.0])
    return [tf.raw_ops.AddN(inputs=[a, a, a]), tf.raw_ops.AddN(inputs=[a, a]).name]


@case
def add_n_empty_list(tf, sess):
    return tf.raw_ops.AddN(inputs=[])


@case
def add_n_not_a_list(tf, sess):
    return tf.raw_ops.AddN(inputs=tf.constant([1.0]))


@case
def pack_python_values_follow_the_tensor(tf, sess):
    return tf.raw_ops.Pack(values=[1.0, tf.constant(2.0, tf.float64)])


@case
def pack_empty_list(tf, sess):
    return tf.raw_ops.Pack(values=[], axis=0)


@case
def unpack_list_output(tf, sess):
    parts = tf.raw_ops.Unpack(value=[[1.0, 2.0], [3.0, 4.0]], num=2, axis=1)
    return [type(parts).__name__, parts]


@case
def unpack_num_under_minimum(tf, sess):
    return tf.raw_ops.Unpack(value=[1.0, 2.0], num=-1)


@case
def leaky_relu_alpha_string(tf, sess):
    return tf.raw_ops.LeakyRelu(features=[1.0], alpha="a")


@case
def leaky_relu_alpha_int(tf, sess):
    y = tf.raw_ops.LeakyRelu(features=[-2.0, 1.0], alpha=1)
    return [y, y.op.get_attr("alpha")]


@case
def cast_dtype_by_name(tf, sess):
    return tf.raw_ops.Cast(x=[1.5, -2.5], DstT="int32")


@case
def cast_dtype_not_a_dtype(tf, sess):
    return tf.raw_ops.Cast(x=[1.5], DstT="foo")


@case
def mat_mul_bool_attr_string(tf, sess):
    return tf.raw_ops.MatMul(a=[[1.0]], b=[[1.0]], transpose_a="yes")


@case
def arg_max_output_type_not_allowed(tf, sess):
    return tf.raw_ops.ArgMax(input=[1.0, 2.0], dimension=0, output_type=tf.float32)


@case
def arg_max_default_output_type(tf, sess):
    return tf.raw_ops.ArgMax(input=[1.0, 3.0, 2.0], dimension=0)


@case
def relu_dtype_not_allowed(tf, sess):
    return tf.raw_ops.Relu(features=[True])


@case
def placeholder_shape_attr(tf, sess):
    return tf.raw_ops.Placeholder(dtype=tf.float32, shape=[None, 3]).shape


@case
def placeholder_without_dtype(tf, sess):
    return tf.raw_ops.Placeholder(shape=[None, 3])


@case
def fused_batch_norm_named_outputs(tf, sess):
    x = tf.constant(np.array([1.0, 3.0], np.float32).reshape([2, 1, 1, 1]))
    out = tf.raw_ops.FusedBatchNorm(x=x, scale=[1.0], offset=[0.0], mean=[], variance=[], epsilon=0.0)
    return [len(out), out.y, out.batch_mean, out.batch_variance]


@case
def no_op_returns_the_operation(tf, sess):
    op = tf.raw_ops.NoOp(name="nothing")
    return [type(op).__name__, op.name]

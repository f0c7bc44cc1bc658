"""tf.keras.layers.ConvLSTM1D/2D/3D (Keras 2): an LSTM whose input and recurrent transforms are convolutions, over
[batch, time, *spatial, channels] inputs (weights `kernel`, `recurrent_kernel`, `bias`, gates i, f, c, o)."""

import tensorweave as tw
from tensorweave._src.keras import activations, constraints, initializers, regularizers
from tensorweave._src.keras.layers import _Layer
from tensorweave._src.keras.layers_conv import _tuple

__all__ = ["ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"]


class _ConvLSTM(_Layer):
    rank = None

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation="tanh", recurrent_activation="hard_sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 return_sequences=False, return_state=False, go_backwards=False, stateful=False, dropout=0.0,
                 recurrent_dropout=0.0, **kwargs):  # fmt: skip
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if dropout or recurrent_dropout or stateful:
            raise NotImplementedError(f"{type(self).__name__} does not support dropout, recurrent_dropout or "
                                      "stateful=True here.")  # fmt: skip
        self.filters = filters
        self.kernel_size = _tuple(kernel_size, self.rank, "kernel_size")
        self.strides = _tuple(strides, self.rank, "strides")
        self.dilation_rate = _tuple(dilation_rate, self.rank, "dilation_rate")
        self.padding = padding.lower()
        if self.padding not in ("valid", "same"):
            raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. Received: {padding}")
        self.data_format = data_format or "channels_last"
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias, self.unit_forget_bias = use_bias, unit_forget_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.return_sequences, self.return_state, self.go_backwards = return_sequences, return_state, go_backwards
        self.stateful, self.dropout, self.recurrent_dropout = stateful, dropout, recurrent_dropout

    def build(self, input_shape):
        if input_shape.ndims != self.rank + 3:
            raise ValueError(f"Input 0 of layer \"{self.name}\" is incompatible with the layer: expected "
                             f"ndim={self.rank + 3}, found ndim={input_shape.ndims}. Full shape received: "
                             f"{tuple(input_shape.as_list())}")  # fmt: skip
        channels = input_shape[2 if self.data_format == "channels_first" else -1].value
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        f = self.filters
        self.kernel = self.add_weight("kernel", list(self.kernel_size) + [channels, 4 * f], None,
                                      self.kernel_initializer, self.kernel_regularizer,
                                      constraint=self.kernel_constraint)  # fmt: skip
        self.recurrent_kernel = self.add_weight("recurrent_kernel", list(self.kernel_size) + [f, 4 * f], None,
                                                self.recurrent_initializer, self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)  # fmt: skip
        self.bias = None
        if self.use_bias:
            initializer = self.bias_initializer
            if self.unit_forget_bias:
                base = self.bias_initializer

                def initializer(shape, dtype=None, **kwargs):
                    return tw.concat([base([f], dtype=dtype), tw.ones([f], dtype=dtype), base([2 * f], dtype=dtype)],
                                     axis=0)  # fmt: skip

            self.bias = self.add_weight("bias", [4 * f], None, initializer, self.bias_regularizer,
                                        constraint=self.bias_constraint)  # fmt: skip
        self.built = True

    def _conv(self, x, kernel, strides, padding, dilation):
        return tw.nn.convolution(x, kernel, padding.upper(), strides=list(strides), dilation_rate=list(dilation))

    def call(self, inputs, initial_state=None):
        x = tw.convert_to_tensor(inputs)
        r = self.rank
        if self.data_format == "channels_first":  # to [batch, time, *spatial, channels]
            x = tw.transpose(x, [0, 1] + list(range(3, r + 3)) + [2])
        if self.go_backwards:
            x = tw.reverse(x, [1])
        kernels = tw.split(self.kernel, 4, axis=r + 1)
        recurrent = tw.split(self.recurrent_kernel, 4, axis=r + 1)
        biases = tw.split(self.bias, 4) if self.bias is not None else [None] * 4
        if initial_state is None:
            zero = tw.zeros(list(self.kernel_size) + [x.shape[-1].value, self.filters], x.dtype)
            h0 = self._conv(tw.zeros_like(x[:, 0]), zero, self.strides, self.padding, self.dilation_rate)
            states = [h0, h0]
        else:
            states = [tw.convert_to_tensor(s, x.dtype) for s in initial_state]

        def step(x_t, h, c):
            xs = [self._conv(x_t, k, self.strides, self.padding, self.dilation_rate) for k in kernels]
            xs = [v if b is None else tw.nn.bias_add(v, b) for v, b in zip(xs, biases)]
            hs = [self._conv(h, k, [1] * r, "same", [1] * r) for k in recurrent]
            i = self.recurrent_activation(xs[0] + hs[0])
            f = self.recurrent_activation(xs[1] + hs[1])
            c = f * c + i * self.activation(xs[2] + hs[2])
            o = self.recurrent_activation(xs[3] + hs[3])
            return o * self.activation(c), c

        steps = tw.shape(x)[1]
        xs_ta = tw.TensorArray(x.dtype, size=steps).unstack(tw.transpose(x, [1, 0] + list(range(2, r + 3))))
        out_ta = tw.TensorArray(x.dtype, size=steps)

        def body(t, out_ta, h, c):
            h_new, c_new = step(xs_ta.read(t), h, c)
            h_new.set_shape(h.shape)
            c_new.set_shape(c.shape)
            return t + 1, out_ta.write(t, h_new), h_new, c_new

        _, out_ta, h, c = tw.while_loop(lambda t, *_: t < steps, body, [tw.constant(0), out_ta, *states])
        if self.return_sequences:
            output = tw.transpose(out_ta.stack(), [1, 0] + list(range(2, r + 3)))
            output.set_shape([x.shape[0].value, x.shape[1].value] + h.shape.as_list()[1:])
        else:
            output = h
        if self.data_format == "channels_first":
            output = tw.transpose(output, [0, output.shape.ndims - 1] + list(range(1, output.shape.ndims - 1)))
            h = tw.transpose(h, [0, r + 1] + list(range(1, r + 1)))
            c = tw.transpose(c, [0, r + 1] + list(range(1, r + 1)))
        return [output, h, c] if self.return_state else output


class ConvLSTM1D(_ConvLSTM):
    """ConvLSTM over [batch, time, steps, channels]."""

    rank = 1


class ConvLSTM2D(_ConvLSTM):
    """ConvLSTM over [batch, time, rows, cols, channels]."""

    rank = 2


class ConvLSTM3D(_ConvLSTM):
    """ConvLSTM over [batch, time, d1, d2, d3, channels]."""

    rank = 3

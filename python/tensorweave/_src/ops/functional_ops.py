"""TF1's higher-order functions map_fn, scan, foldl and foldr, built as TF1 builds them: the elements are
unstacked into TensorArrays, a `while_loop` reads element i in iteration i, and (map_fn, scan) the results are
written into TensorArrays that are stacked after the loop. Gradients flow through the loop and the arrays.
"""

from tensorweave._src.framework import dtypes, ops, tensor_shape
from tensorweave._src.ops import array_ops, control_flow_ops, tensor_array_ops

nest_flatten = control_flow_ops.flatten
nest_pack = control_flow_ops.pack_sequence_as
nest_map = control_flow_ops.map_structure
_is_sequence = control_flow_ops._is_sequence


def _leading_dim(elems_flat):
    """n: the static length of the first dimension when known, else a tensor. Where the elements' lengths
    are not all static, n waits for a run-time check that they are equal (an InvalidArgumentError, not
    zeros read from an element never written)."""
    dims = [tensor_shape.dimension_value(e.shape[0]) if e.shape.dims else None for e in elems_flat]
    n = dims[0] if dims[0] is not None else array_ops.shape(elems_flat[0])[0]
    if len(elems_flat) > 1 and None in dims:
        from tensorweave._src.ops import logging_ops, math_ops

        checks = [
            logging_ops.Assert(
                math_ops.equal(array_ops.shape(e)[0], n),
                [f"elems[{i}] has a first dimension other than elems[0]'s:", array_ops.shape(e)[0], n],
            )
            for i, e in enumerate(elems_flat[1:], 1)
        ]
        n = control_flow_ops.with_dependencies(checks, ops.convert_to_tensor(n, dtypes.int32))
    return n


def _set_static_length(results_flat, elems_flat):
    n_static = tensor_shape.Dimension(tensor_shape.dimension_value(elems_flat[0].get_shape().with_rank_at_least(1)[0]))
    for elem in elems_flat[1:]:
        n_static = n_static.merge_with(
            tensor_shape.Dimension(tensor_shape.dimension_value(elem.get_shape().with_rank_at_least(1)[0]))
        )
    for r in results_flat:
        shape = r.get_shape()
        rest = shape[1:] if shape.dims is not None else tensor_shape.unknown_shape()
        r.set_shape(tensor_shape.TensorShape([n_static]).concatenate(rest))


def _check_callable(fn):
    if not callable(fn):
        raise TypeError("fn must be callable.")


def _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, default_name, reverse):
    _check_callable(fn)
    with ops.name_scope(name, default_name, [elems]):
        elems_flat = [ops.convert_to_tensor(elem, name="elem") for elem in nest_flatten(elems)]
        n = _leading_dim(elems_flat)
        elems_ta = nest_pack(
            elems,
            [
                tensor_array_ops.TensorArray(dtype=elem.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(
                    elem
                )
                for elem in elems_flat
            ],
        )
        if reverse:
            if initializer is None:
                i = n - 1
                a = nest_map(lambda ta: ta.read(i), elems_ta)
            else:
                i = n
                a = initializer

            def compute(i, a):
                i -= 1
                elem = nest_map(lambda ta: ta.read(i), elems_ta)
                return [i, fn(a, elem)]

            def cond(i, a):
                return i > 0

        else:
            if initializer is None:
                a = nest_map(lambda ta: ta.read(0), elems_ta)
                i = ops.convert_to_tensor(1, dtype=dtypes.int32)
            else:
                a = initializer
                i = ops.convert_to_tensor(0, dtype=dtypes.int32)

            def compute(i, a):
                elem_i = nest_map(lambda ta: ta.read(i), elems_ta)
                return [i + 1, fn(a, elem_i)]

            def cond(i, a):
                return i < n

        i = ops.convert_to_tensor(i, dtype=dtypes.int32)
        _, r_a = control_flow_ops.while_loop(
            cond,
            compute,
            [i, a],
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=n,
        )
        return r_a


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """fn(...fn(fn(initializer, elems[0]), elems[1])..., elems[n-1]) (TF1's `tf.foldl`).

    Without an initializer, elems[0] is the first accumulator. `elems` and the accumulator may be nested.

    >>> import tensorweave as tw
    >>> with tw.Session() as sess:
    ...     print(sess.run(tw.foldl(lambda a, x: a + x, tw.constant([1, 2, 3, 4]))))
    10
    """
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, "foldl", False)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """fn(...fn(fn(initializer, elems[n-1]), elems[n-2])..., elems[0]) (TF1's `tf.foldr`).

    >>> import tensorweave as tw
    >>> with tw.Session() as sess:
    ...     print(sess.run(tw.foldr(lambda a, x: a * 10 + x, tw.constant([1, 2, 3]))))
    321
    """
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, "foldr", True)


def scan(
    fn,
    elems,
    initializer=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    infer_shape=True,
    reverse=False,
    name=None,
):
    """The sequence of accumulators a_i = fn(a_{i-1}, elems[i]), stacked (TF1's `tf.scan`).

    >>> import tensorweave as tw
    >>> with tw.Session() as sess:
    ...     print(sess.run(tw.scan(lambda a, x: a + x, tw.constant([1, 2, 3, 4]))).tolist())
    [1, 3, 6, 10]
    """
    _check_callable(fn)
    input_flatten = nest_flatten
    structure = elems if initializer is None else initializer

    def input_pack(x):
        return nest_pack(elems, x)

    def output_pack(x):
        return nest_pack(structure, x)

    elems_flat = input_flatten(elems)
    with ops.name_scope(name, "scan", elems_flat):
        elems_flat = [ops.convert_to_tensor(elem, name="elem") for elem in elems_flat]
        n = _leading_dim(elems_flat)
        elems_ta = [
            tensor_array_ops.TensorArray(
                dtype=elem.dtype,
                size=n,
                dynamic_size=False,
                element_shape=elem.shape[1:] if elem.shape.dims is not None else None,
                infer_shape=True,
            )
            for elem in elems_flat
        ]
        elems_ta = [ta.unstack(elem) for ta, elem in zip(elems_ta, elems_flat)]
        if initializer is None:
            a_flat = [elem.read(n - 1 if reverse else 0) for elem in elems_ta]
            i = 1
        else:
            a_flat = [ops.convert_to_tensor(init) for init in nest_flatten(initializer)]
            i = 0
        accs_ta = [
            tensor_array_ops.TensorArray(
                dtype=init.dtype,
                size=n,
                element_shape=init.shape if infer_shape else None,
                dynamic_size=False,
                infer_shape=infer_shape,
            )
            for init in a_flat
        ]
        if initializer is None:
            accs_ta = [acc.write(n - 1 if reverse else 0, a) for acc, a in zip(accs_ta, a_flat)]

        def compute(i, a_flat, tas):
            packed_elems = input_pack([ta.read(i) for ta in elems_ta])
            a_out = fn(output_pack(a_flat), packed_elems)
            control_flow_ops.assert_same_structure(structure, a_out)
            flat_a_out = nest_flatten(a_out)
            tas = [ta.write(i, value) for ta, value in zip(tas, flat_a_out)]
            return (i - 1 if reverse else i + 1, flat_a_out, tas)

        if reverse:
            initial_i = n - 1 - i

            def condition(i, _1, _2):
                return i >= 0

        else:
            initial_i = i

            def condition(i, _1, _2):
                return i < n

        initial_i = ops.convert_to_tensor(initial_i, dtype=dtypes.int32)
        _, _, r_a = control_flow_ops.while_loop(
            condition,
            compute,
            (initial_i, a_flat, accs_ta),
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=n,
        )
        results_flat = [r.stack() for r in r_a]
        _set_static_length(results_flat, elems_flat)
        return output_pack(results_flat)


def map_fn(
    fn,
    elems,
    dtype=None,
    parallel_iterations=None,
    back_prop=True,
    swap_memory=False,
    infer_shape=True,
    name=None,
):
    """[fn(elems[0]), fn(elems[1]), ...] stacked (TF1's `tf.map_fn`); `dtype` gives fn's output structure
    and dtypes when they differ from the elements'.

    >>> import tensorweave as tw
    >>> with tw.Session() as sess:
    ...     print(sess.run(tw.map_fn(lambda x: x * x, tw.constant([1, 2, 3]))).tolist())
    [1, 4, 9]
    """
    _check_callable(fn)
    if not parallel_iterations:
        parallel_iterations = 10
    input_is_sequence = _is_sequence(elems)

    def input_flatten(x):
        return nest_flatten(x) if input_is_sequence else [x]

    def input_pack(x):
        return nest_pack(elems, x) if input_is_sequence else x[0]

    if dtype is None:
        output_flatten = input_flatten
        output_pack = input_pack
    else:
        output_is_sequence = _is_sequence(dtype)

        def output_flatten(x):
            return nest_flatten(x) if output_is_sequence else [x]

        def output_pack(x):
            return nest_pack(dtype, x) if output_is_sequence else x[0]

    elems_flat = input_flatten(elems)
    with ops.name_scope(name, "map", elems_flat):
        elems_flat = [ops.convert_to_tensor(elem, name="elem") for elem in elems_flat]
        dtype = dtype or input_pack([elem.dtype for elem in elems_flat])
        dtype_flat = output_flatten(dtype)
        static_shape = elems_flat[0].shape
        if static_shape.ndims is not None and static_shape.ndims < 1:
            if len(elems_flat) == 1:
                raise ValueError("elems must be a 1+ dimensional Tensor, not a scalar")
            raise ValueError("elements in elems must be 1+ dimensional Tensors, not scalars")
        n = _leading_dim(elems_flat)
        elems_ta = [
            tensor_array_ops.TensorArray(dtype=elem.dtype, size=n, dynamic_size=False, infer_shape=True)
            for elem in elems_flat
        ]
        elems_ta = [ta.unstack(elem) for ta, elem in zip(elems_ta, elems_flat)]
        i = ops.convert_to_tensor(0, dtype=dtypes.int32)
        accs_ta = [
            tensor_array_ops.TensorArray(dtype=dtypes.as_dtype(dt), size=n, dynamic_size=False, infer_shape=infer_shape)
            for dt in dtype_flat
        ]

        def compute(i, tas):
            packed_values = input_pack([ta.read(i) for ta in elems_ta])
            packed_fn_values = fn(packed_values)
            control_flow_ops.assert_same_structure(dtype or elems, packed_fn_values)
            flat_fn_values = output_flatten(packed_fn_values)
            tas = [ta.write(i, value) for ta, value in zip(tas, flat_fn_values)]
            return (i + 1, tas)

        _, r_a = control_flow_ops.while_loop(
            lambda i, _: i < n,
            compute,
            (i, accs_ta),
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=n,
        )
        results_flat = [r.stack() for r in r_a]
        _set_static_length(results_flat, elems_flat)
        return output_pack(results_flat)

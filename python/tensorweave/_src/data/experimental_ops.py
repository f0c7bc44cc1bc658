"""The readers and transformations of TF1's `tf.data.experimental` built on the core datasets: CSV files
(`CsvDataset`, `make_csv_dataset`), tf.Example records (`parse_example_dataset`, `make_batched_features_dataset`),
`assert_cardinality`, `from_list`, `TFRecordWriter`, `group_by_reducer` and the tables and optionals over datasets.
"""

import collections
import csv
import gzip
import os

import numpy as np

from tensorweave._src.data import structure
from tensorweave._src.data.dataset_ops import (
    AUTOTUNE,
    DatasetV1,
    TextLineDatasetV1,
    TFRecordDatasetV1,
    _IteratorStates,
    _sentinel,
    _single_element,
    _with_state,
)
from tensorweave._src.framework import dtypes, errors, ops, tensor_shape
from tensorweave._src.ops import array_ops

_ACCEPTABLE_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)


# --- CSV ---------------------------------------------------------------------------------------------------------


def _csv_defaults(record_defaults, what="record_defaults"):
    """Tensors from `record_defaults`: a dtype stands for a required column (an empty default)."""
    defaults = []
    for i, d in enumerate(record_defaults):
        if not isinstance(d, ops.Tensor) and isinstance(d, dtypes.DType):
            if d not in _ACCEPTABLE_CSV_TYPES:
                raise TypeError(
                    f"Failed to convert elements of {d} to Tensor. Consider casting elements to a supported type."
                )
            d = ops.convert_to_tensor(np.zeros([0], d.as_numpy_dtype if d != dtypes.string else object), dtype=d)
        else:
            d = ops.convert_to_tensor(d, name=f"{what}_{i}")
        if d.dtype.base_dtype not in _ACCEPTABLE_CSV_TYPES:
            raise TypeError(
                f"{what}[{i}] has dtype {d.dtype.name}; a CSV column must be one of float32, float64, "
                "int32, int64, string."
            )
        if d.get_shape().rank is not None and (
            d.get_shape().rank > 1 or d.get_shape().num_elements() not in (0, 1, None)
        ):
            raise ValueError(
                f"Shape of a default must be a length-0 or length-1 vector, or a scalar: {what}[{i}] has shape "
                f"{d.get_shape()}."
            )
        defaults.append(d)
    return defaults


class CsvDatasetV1(DatasetV1):
    """The records of CSV files, each a tuple of scalars, one per column (TF1's
    `tf.data.experimental.CsvDataset`).

    `record_defaults` gives each column's dtype and default: a one-value tensor (used for an empty or `na_value`
    field), an empty one or a dtype for a required column. `select_cols` picks (strictly increasing) columns,
    `exclude_cols` leaves columns out. A quoted field may span lines.

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> path = os.path.join(tempfile.mkdtemp(), "a.csv")
      >>> _ = open(path, "w").write("x,y\\n1,2.5\\n2,\\n")
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     ds = tw.data.experimental.CsvDataset(path, [tw.int32, [0.0]], header=True)
      ...     nxt = tw.data.make_one_shot_iterator(ds).get_next()
      ...     print([[v.item() for v in sess.run(nxt)] for _ in range(2)])
      [[1, 2.5], [2, 0.0]]
    """

    def __init__(
        self,
        filenames,
        record_defaults,
        compression_type=None,
        buffer_size=None,
        header=False,
        field_delim=",",
        use_quote_delim=True,
        na_value="",
        select_cols=None,
        exclude_cols=None,
    ):
        from tensorweave._src.ops import io_extra_ops

        defaults = _csv_defaults(record_defaults)
        if select_cols is not None and exclude_cols is not None:
            raise ValueError("Either select_cols or exclude_cols should be empty")
        if exclude_cols is not None:
            exclude = sorted({int(c) for c in exclude_cols})
            if exclude and exclude[0] < 0:
                raise ValueError("exclude_cols contains negative values.")
            select_cols = [c for c in range(len(defaults) + len(exclude)) if c not in exclude]
        if select_cols is not None:
            select_cols = [int(c) for c in select_cols]
            if any(select_cols[i] >= select_cols[i + 1] for i in range(len(select_cols) - 1)):
                raise ValueError("select_cols is not strictly increasing.")
            if select_cols and select_cols[0] < 0:
                raise ValueError("select_cols contains negative values.")
            if len(select_cols) != len(defaults):
                raise ValueError(
                    f"Expect {len(select_cols)} fields but have {len(defaults)} in record_defaults (the length of "
                    "select_cols and record_defaults must match)."
                )
        header = bool(header)

        def per_file(filename):
            lines = TextLineDatasetV1(filename, compression_type=compression_type, buffer_size=buffer_size)
            records = _join_quoted_lines(lines) if use_quote_delim else lines
            return records.skip(1) if header else records

        files = DatasetV1.from_tensor_slices(_flat_filenames(filenames))
        lines = files.flat_map(per_file)

        def decode(line):
            columns = io_extra_ops.decode_csv(
                array_ops.reshape(line, [1]),
                defaults,
                field_delim=field_delim,
                use_quote_delim=use_quote_delim,
                na_value=na_value,
                select_cols=select_cols,
            )
            return tuple(array_ops.reshape(c, []) for c in columns)

        dataset = lines.map(decode)
        super().__init__(dataset._variant_tensor, dataset._output_types, dataset._output_shapes, (dataset,))


CsvDataset = CsvDatasetV1


class _QuotedLines:
    """The record being read while a quoted field spans lines (an odd number of quotes so far)."""

    def __init__(self):
        self.pending = None

    def join(self, lines):
        records = []
        for line in lines.tolist():
            self.pending = line if self.pending is None else self.pending + b"\n" + line
            if self.pending.count(b'"') % 2 == 0:
                records.append(self.pending)
                self.pending = None
        return np.array(records, dtype=object)

    def flush(self):
        pending, self.pending = self.pending, None
        return np.array([] if pending is None else [pending], dtype=object)


def _join_quoted_lines(lines, chunk=4096):
    """The CSV records of a dataset of lines: a line ending inside a quoted field is joined (with a newline)
    to the next, as TF's CSV reader reads the field on. Lines go through Python `chunk` at a time."""
    from tensorweave._src.ops import script_ops

    states = _IteratorStates(_QuotedLines)

    def vector(t):
        t.set_shape([None])
        return t

    def make(state_id):
        joined = lines.batch(chunk).map(
            lambda b: vector(
                script_ops.py_func(lambda i, x: states.get(i).join(x), [state_id, b], dtypes.string, stateful=True)
            )
        )
        tail = DatasetV1.from_tensors(state_id).map(
            lambda i: vector(script_ops.py_func(lambda j: states.get(j).flush(), [i], dtypes.string, stateful=True))
        )
        return joined.concatenate(tail).unbatch()

    return _with_state(states, [], make)


def _flat_filenames(filenames):
    t = ops.convert_to_tensor(filenames, dtype=dtypes.string, name="filenames")
    if t.get_shape().rank is not None and t.get_shape().rank > 1:
        raise TypeError("`filenames` must be a `tf.Tensor` of dimension 0 or 1.")
    return array_ops.reshape(t, [-1])


def _get_file_names(file_pattern, shuffle):
    from tensorweave._src.platform import gfile

    if isinstance(file_pattern, list):
        if not file_pattern:
            raise ValueError("Argument `file_pattern` should not be empty.")
        names = []
        for entry in file_pattern:
            names.extend(gfile.glob(entry))
    else:
        names = list(gfile.glob(file_pattern))
    if not names:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    return names if shuffle else sorted(names)


def _is_valid_int32(s):
    try:
        return np.int32(s) == np.int64(s)
    except (ValueError, OverflowError):
        return False


def _is_valid_int64(s):
    try:
        np.int64(s)
        return True
    except (ValueError, OverflowError):
        return False


def _is_valid_float(s, np_type):
    try:
        return np_type(s) < np.inf
    except ValueError:
        return False


def _infer_type(value, na_value, prev_type):
    """The least permissive CSV type for `value` that keeps the column's earlier values valid (TF's rule)."""
    if value in ("", na_value):
        return prev_type
    candidates = [
        (dtypes.int32, _is_valid_int32),
        (dtypes.int64, _is_valid_int64),
        (dtypes.float32, lambda s: _is_valid_float(s, np.float32)),
        (dtypes.float64, lambda s: _is_valid_float(s, np.float64)),
        (dtypes.string, lambda s: True),
    ]
    order = [t for t, _ in candidates]
    for i, (dtype, valid) in enumerate(candidates):
        if valid(value) and (prev_type is None or prev_type in order[: i + 1]):
            return dtype
    return dtypes.string


def _csv_reader(f, field_delim, use_quote_delim):
    return csv.reader(f, delimiter=field_delim, quoting=csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE)


def _infer_column_names(filenames, field_delim, use_quote_delim, open_fn):
    names = None
    for name in filenames:
        with open_fn(name) as f:
            try:
                row = next(_csv_reader(f, field_delim, use_quote_delim))
            except StopIteration:
                raise ValueError(f"Failed when reading the header line of {name}. Is it an empty file?") from None
        if names is None:
            names = row
        elif row != names:
            raise ValueError(
                "All input CSV files should have the same column names in the header row. File "
                f"{name} has different column names."
            )
    return names


def _infer_column_defaults(
    filenames, num_cols, field_delim, use_quote_delim, na_value, header, num_rows, select_columns, open_fn
):
    select_columns = range(num_cols) if select_columns is None else select_columns
    inferred = [None] * len(select_columns)
    count = 0
    for name in filenames:
        with open_fn(name) as f:
            reader = _csv_reader(f, field_delim, use_quote_delim)
            row_num = 1
            if header:
                next(reader, None)
                row_num += 1
            for row in reader:
                if num_rows is not None and count >= num_rows:
                    break
                if len(row) != num_cols:
                    raise ValueError(
                        f"Problem inferring types: CSV row {row_num} has {len(row)} number of fields. Expected: "
                        f"{num_cols}."
                    )
                for j, c in enumerate(select_columns):
                    inferred[j] = _infer_type(row[c], na_value, inferred[j])
                row_num += 1
                count += 1
    inferred = [t or dtypes.string for t in inferred]
    return [ops.convert_to_tensor([0 if t != dtypes.string else ""], dtype=t) for t in inferred]


def _sorted_col_indices(select_columns, column_names):
    index = {n: i for i, n in enumerate(column_names)}
    results = []
    for v in select_columns:
        if isinstance(v, int):
            if v < 0 or v >= len(column_names):
                raise ValueError(
                    f"Column index {v} specified in `select_columns` should be > 0  and <= {len(column_names)}, which "
                    "is the number of columns."
                )
            results.append(v)
        elif v not in index:
            raise ValueError(f"Column {v} specified in `select_columns` must be of one of the columns: {index.keys()}.")
        else:
            results.append(index[v])
    unique = sorted(set(results))
    if len(unique) != len(select_columns):
        ordered = sorted(results)
        duplicates = {a for a, b in zip(ordered[:-1], ordered[1:]) if a == b}
        raise ValueError(f"The `select_columns` argument contains duplicate columns: {duplicates}.")
    return unique


def _maybe_shuffle_and_repeat(dataset, num_epochs, shuffle, shuffle_buffer_size, shuffle_seed):
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    return dataset


def make_csv_dataset(
    file_pattern,
    batch_size,
    column_names=None,
    column_defaults=None,
    label_name=None,
    select_columns=None,
    field_delim=",",
    use_quote_delim=True,
    na_value="",
    header=True,
    num_epochs=None,
    shuffle=True,
    shuffle_buffer_size=10000,
    shuffle_seed=None,
    prefetch_buffer_size=None,
    num_parallel_reads=None,
    sloppy=False,
    num_rows_for_inference=100,
    compression_type=None,
    ignore_errors=False,
    encoding="utf-8",
):
    """Batches of CSV records as `(features, label)` (an OrderedDict of columns and the `label_name` column) or
    `features` alone (TF1's `tf.data.experimental.make_csv_dataset`).

    Column names come from the header of the first file when not given, dtypes from the first
    `num_rows_for_inference` rows when `column_defaults` is not given. `num_epochs=None` repeats forever (and
    drops the last partial batch).
    """
    if num_parallel_reads is None:
        num_parallel_reads = 1
    if prefetch_buffer_size is None:
        prefetch_buffer_size = AUTOTUNE
    filenames = _get_file_names(file_pattern, False)
    dataset = DatasetV1.from_tensor_slices(filenames)
    if shuffle:
        dataset = dataset.shuffle(len(filenames), shuffle_seed)

    def open_fn(name):
        return open(name, encoding=encoding, newline="")

    if (column_names is None or column_defaults is None) and compression_type is not None:
        value = array_ops.constant_value(ops.convert_to_tensor(compression_type, dtype=dtypes.string))
        value = None if value is None else value.item().decode() if isinstance(value.item(), bytes) else value.item()
        if value == "GZIP":

            def open_fn(name):
                return gzip.open(name, "rt", encoding=encoding, newline="")

        elif value == "ZLIB":
            raise ValueError(f"`compression_type` {compression_type} is not supported for probing columns.")
        elif value != "":
            raise ValueError(
                f"Received unknown `compression_type` {compression_type}. Expected: GZIP, ZLIB or  (empty string)."
            )
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is provided.")
        column_names = _infer_column_names(filenames, field_delim, use_quote_delim, open_fn)
    if len(column_names) != len(set(column_names)):
        ordered = sorted(column_names)
        duplicates = {a for a, b in zip(ordered[:-1], ordered[1:]) if a == b}
        raise ValueError(
            f"Either `column_names` argument or CSV header row contains duplicate column names: {duplicates}."
        )
    if select_columns is not None:
        select_columns = _sorted_col_indices(select_columns, column_names)
    if column_defaults is not None:
        column_defaults = _csv_defaults(column_defaults, "column_defaults")
    else:
        column_defaults = _infer_column_defaults(
            filenames,
            len(column_names),
            field_delim,
            use_quote_delim,
            na_value,
            header,
            num_rows_for_inference,
            select_columns,
            open_fn,
        )
    if select_columns is not None and len(column_defaults) != len(select_columns):
        raise ValueError(
            "If specified, `column_defaults` and `select_columns` must have the same length: `column_defaults` has "
            f"length {len(column_defaults)}, `select_columns` has length {len(select_columns)}."
        )
    if select_columns is not None and len(column_names) > len(select_columns):
        column_names = [column_names[i] for i in select_columns]
    if label_name is not None and label_name not in column_names:
        raise ValueError(f"`label_name` provided must be one of the columns: {column_names}. Received: {label_name}.")

    def filename_to_dataset(filename):
        ds = CsvDatasetV1(
            filename,
            record_defaults=column_defaults,
            field_delim=field_delim,
            use_quote_delim=use_quote_delim,
            na_value=na_value,
            select_cols=select_columns,
            header=header,
            compression_type=compression_type,
        )
        return ds.ignore_errors() if ignore_errors else ds

    def map_fn(*columns):
        features = collections.OrderedDict(zip(column_names, columns))
        if label_name is not None:
            label = features.pop(label_name)
            return features, label
        return features

    dataset = dataset.interleave(filename_to_dataset, cycle_length=num_parallel_reads, block_length=1)
    dataset = _maybe_shuffle_and_repeat(dataset, num_epochs, shuffle, shuffle_buffer_size, shuffle_seed)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)
    dataset = dataset.map(map_fn)
    return dataset if prefetch_buffer_size == 0 else dataset.prefetch(prefetch_buffer_size)


# --- SQL ---------------------------------------------------------------------------------------------------------

_SQL_TYPES = (
    dtypes.string,
    dtypes.int8,
    dtypes.int16,
    dtypes.int32,
    dtypes.int64,
    dtypes.uint8,
    dtypes.uint16,
    dtypes.bool,
    dtypes.float64,
)


def _sql_rows(driver_name, data_source_name, query, flat_types):
    """The rows of `query`, each column converted as SQLite's C API does for the requested dtype."""
    import sqlite3

    driver_name, data_source_name, query = (np.asarray(a).item() for a in (driver_name, data_source_name, query))
    driver_name = driver_name.decode() if isinstance(driver_name, bytes) else driver_name
    if driver_name != "sqlite":
        raise errors.InvalidArgumentError(
            None,
            None,
            f"The database type, {driver_name}, is not supported by SqlDataset. The set of supported databases is: "
            "{'sqlite'}.",
        )
    bad = [t for t in flat_types if t not in _SQL_TYPES]
    if bad:
        raise errors.InvalidArgumentError(
            None,
            None,
            "Each element of `output_types_` must be one of: DT_STRING, DT_INT8, DT_INT16, DT_INT32, DT_INT64, "
            "DT_UINT8, DT_UINT16, DT_BOOL, DT_DOUBLE ",
        )
    path = data_source_name.decode() if isinstance(data_source_name, bytes) else data_source_name
    conn = sqlite3.connect(path)
    conn.text_factory = bytes
    try:
        try:
            cursor = conn.execute(query.decode() if isinstance(query, bytes) else query)
        except sqlite3.Error as e:
            raise errors.UnknownError(None, None, f"Prepare() failed: {e}: {query}") from None
        if cursor.description is not None and len(cursor.description) != len(flat_types):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"The number of columns in query ({len(cursor.description)}) must match the number of elements in "
                f"output_types ({len(flat_types)}).",
            )
        for row in cursor:
            yield tuple(_sql_value(conn, v, t) for v, t in zip(row, flat_types))
    finally:
        conn.close()


def _sql_value(conn, value, dtype):
    if dtype == dtypes.string:
        if value is None:
            return b""
        return value if isinstance(value, bytes) else conn.execute("SELECT CAST(? AS TEXT)", (value,)).fetchone()[0]
    if dtype == dtypes.float64:
        return 0.0 if value is None else float(conn.execute("SELECT CAST(? AS REAL)", (value,)).fetchone()[0])
    number = 0 if value is None else int(conn.execute("SELECT CAST(? AS INTEGER)", (value,)).fetchone()[0])
    return number != 0 if dtype == dtypes.bool else np.array(number).astype(dtype.as_numpy_dtype)


def SqlDataset(driver_name, data_source_name, query, output_types):
    """The rows a SQL query returns (TF1's `tf.data.experimental.SqlDataset`; the driver is "sqlite"), each a
    nest of scalars of `output_types` (a NULL is 0 or "")."""
    types = structure.types_from_structure(output_types)
    flat_types = structure.flatten(types)
    shapes = structure.map_structure(lambda _: tensor_shape.TensorShape([]), types)

    def rows(driver, source, text):
        for row in _sql_rows(driver, source, text, flat_types):
            yield structure.pack_sequence_as(types, list(row))

    args = [
        ops.convert_to_tensor(a, dtype=dtypes.string, name=n)
        for a, n in ((driver_name, "driver_name"), (data_source_name, "data_source_name"), (query, "query"))
    ]
    return DatasetV1.from_generator(rows, types, shapes, args=args)


# --- tf.Example ----------------------------------------------------------------------------------------------------


def parse_example_dataset(features, num_parallel_calls=1, deterministic=None):
    """A transformation (for `Dataset.apply`) parsing batches of serialized tf.Examples (string vectors) into
    dicts of `features` (FixedLenFeature, FixedLenSequenceFeature with allow_missing=True, VarLenFeature and
    SparseFeature, the last two as SparseTensors)."""
    from tensorweave._src.ops import parsing_ops

    if features is None:
        raise ValueError("Argument `features` is required, but not specified.")

    def transform(dataset):
        types = dataset.output_types
        if types != dtypes.string or structure.is_sequence(types) or dataset.output_shapes.rank not in (None, 1):
            raise TypeError(
                f"Input dataset should be a dataset of vectors of strings. Instead it is `{dataset.element_spec}`."
            )
        parallel = None if num_parallel_calls == 1 else num_parallel_calls
        return dataset.map(lambda s: parsing_ops.parse_example(s, features), parallel, deterministic)

    return transform


def make_batched_features_dataset(
    file_pattern,
    batch_size,
    features,
    reader=None,
    label_key=None,
    reader_args=None,
    num_epochs=None,
    shuffle=True,
    shuffle_buffer_size=10000,
    shuffle_seed=None,
    prefetch_buffer_size=None,
    reader_num_threads=None,
    parser_num_threads=None,
    sloppy_ordering=False,
    drop_final_batch=False,
):
    """Batches of tf.Examples read from the files of `file_pattern` (TFRecord by default) parsed into dicts of
    `features` (and `(features, label)` with `label_key`) (TF1's
    `tf.data.experimental.make_batched_features_dataset`)."""
    from tensorweave._src.ops import reader_ops

    if reader is None:
        reader = TFRecordDatasetV1
    if reader_num_threads is None:
        reader_num_threads = 1
    if prefetch_buffer_size is None:
        prefetch_buffer_size = AUTOTUNE
    if isinstance(reader, type) and issubclass(reader, reader_ops.ReaderBase):
        raise TypeError(
            "The `reader` argument must return a `Dataset` object. `tf.ReaderBase` subclasses are not supported. "
            "For example, pass `tf.data.TFRecordDataset` instead of `tf.TFRecordReader`."
        )
    if label_key and label_key not in features:
        raise ValueError(
            f"The `label_key` provided ({label_key}) must be one of the `features` keys: {features.keys()}."
        )
    transform = parse_example_dataset(features, num_parallel_calls=parser_num_threads or 2)
    dataset = DatasetV1.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    reader_args = reader_args or []
    dataset = dataset.interleave(
        lambda filename: reader(filename, *reader_args), cycle_length=reader_num_threads, block_length=1
    )
    if dataset.output_types == (dtypes.string, dtypes.string):
        dataset = dataset.map(lambda _, v: v)
    dataset = _maybe_shuffle_and_repeat(dataset, num_epochs, shuffle, shuffle_buffer_size, shuffle_seed)
    dataset = dataset.batch(batch_size, drop_remainder=drop_final_batch or num_epochs is None)
    dataset = dataset.apply(transform)
    if label_key:
        dataset = dataset.map(lambda x: (x, x.pop(label_key)))
    return dataset.prefetch(prefetch_buffer_size)


# --- cardinality, sources, writer ----------------------------------------------------------------------------------


class _AssertedCardinalityDataset(DatasetV1):
    def __init__(self, dataset, expected):
        super().__init__(dataset._variant_tensor, dataset._output_types, dataset._output_shapes, (dataset,))
        self._expected = expected

    def cardinality(self):
        return array_ops.identity(self._expected, name="cardinality")


def _passthrough(dataset, check):
    """`dataset` with `check(element)` (an op or tensor) run before each element is produced."""

    def body(*args):
        element = args[0] if len(args) == 1 else args
        with ops.control_dependencies([check()]):
            return structure.map_structure(array_ops.identity, structure.normalize_element(element))

    ds = dataset.map(body)
    return dataset._copy(ds._variant_tensor, (ds,))


def assert_cardinality(expected_cardinality):
    """A transformation (for `Dataset.apply`) asserting that the dataset has `expected_cardinality` elements:
    iterating fails with FailedPreconditionError as soon as it has more, or at its end when it had fewer; the
    result's `cardinality()` is `expected_cardinality`."""
    from tensorweave._src.ops import script_ops

    def transform(dataset):
        expected = ops.convert_to_tensor(expected_cardinality, dtype=dtypes.int64, name="expected_cardinality")
        states = _IteratorStates(lambda: [0])

        def count(state_id, want):
            seen = states.get(state_id)
            seen[0] += 1
            if 0 <= want < seen[0]:
                raise errors.FailedPreconditionError(
                    None,
                    None,
                    f"Input dataset was expected to contain {_elements(want)} but contained at least "
                    f"{_elements(seen[0])}.",
                )
            return np.array(True)

        def finish(state_id, want):
            seen = states.get(state_id)[0]
            if want == -1:
                raise errors.FailedPreconditionError(
                    None,
                    None,
                    f"Input dataset was expected to contain an infinite number of elements but contained only "
                    f"{_elements(seen)}.",
                )
            if seen < want:
                raise errors.FailedPreconditionError(
                    None,
                    None,
                    f"Input dataset was expected to contain {_elements(want)} but contained only {_elements(seen)}.",
                )
            return np.array(False)

        def make(state_id):
            counted = _passthrough(
                dataset,
                lambda: script_ops.py_func(count, [state_id, expected], dtypes.bool, stateful=True),
            )
            end = DatasetV1.from_tensors(state_id).map(
                lambda i: script_ops.py_func(finish, [i, expected], dtypes.bool, stateful=True)
            )
            return counted.concatenate(end.filter(lambda ok: ok).flat_map(lambda _: counted))

        return _AssertedCardinalityDataset(_with_state(states, [], make), expected)

    return transform


def _elements(n):
    n = int(n)
    return f"{n} element" if n == 1 else f"{n} elements"


def from_list(elements, name=None):
    """A dataset of the elements of the list `elements` (each a nest of tensors or values of one structure)."""
    del name
    if not elements:
        raise ValueError(
            "Invalid `elements`. `elements` should not be empty. If you want an empty dataset, use "
            "`tf.data.Dataset.range(0)`."
        )
    if not isinstance(elements, list):
        raise ValueError("Invalid `elements`. `elements` must be a list.")  # noqa: TRY004 - TF raises ValueError
    normalized = [structure.normalize_element(e) for e in elements]
    for e in normalized[1:]:
        structure.assert_same_structure(normalized[0], e)
    flat = [structure.flatten(e) for e in normalized]
    components = []
    for i, first in enumerate(flat[0]):
        shapes = [f[i].get_shape() for f in flat]
        if any(f[i].dtype != first.dtype for f in flat):
            raise TypeError(f"Component {i} of the elements of `elements` has different dtypes.")
        if all(s.is_fully_defined() and s == shapes[0] for s in shapes):
            components.append(array_ops.stack([f[i] for f in flat]))
        else:  # differing shapes: one element per from_tensors, concatenated
            components = None
            break
    if components is not None:
        return DatasetV1.from_tensor_slices(structure.pack_sequence_as(normalized[0], components))
    datasets = [DatasetV1.from_tensors(e) for e in normalized]
    result = datasets[0]
    for d in datasets[1:]:
        result = result.concatenate(d)
    return result


def RandomDataset(seed=None):
    """An endless dataset of pseudorandom int64 scalars: `Dataset.random(seed)`."""
    return DatasetV1.random(seed)


class TFRecordWriter:
    """Writes a dataset of string scalars to a TFRecord file (TF1's `tf.data.experimental.TFRecordWriter`):
    `write(dataset)` is an op that writes the whole file each time it runs."""

    def __init__(self, filename, compression_type=None):
        self._filename = ops.convert_to_tensor(filename, dtype=dtypes.string, name="filename")
        self._compression_type = ops.convert_to_tensor(
            "" if compression_type is None else compression_type, dtype=dtypes.string, name="compression_type"
        )

    def write(self, dataset):
        """The op that writes the elements of `dataset` (scalar strings) as the records of the file."""
        from tensorweave._src.ops import script_ops
        from tensorweave._src.platform import tf_record

        if not isinstance(dataset, DatasetV1):
            raise TypeError(f"Invalid `dataset.` Expected a `tf.data.Dataset` object but got {type(dataset)}.")
        if (
            structure.is_sequence(dataset.output_types)
            or dataset.output_types != dtypes.string
            or not dataset.output_shapes.is_compatible_with(tensor_shape.TensorShape([]))
        ):
            raise TypeError(
                "Invalid `dataset`. Expected a`dataset` that produces scalar `tf.string` elements, but got a dataset "
                f"which produces elements with shapes {dataset.output_shapes} and types {dataset.output_types}."
            )

        def open_writer(filename, compression):
            filename, compression = np.asarray(filename).item().decode(), np.asarray(compression).item().decode()
            if compression not in ("", "ZLIB", "GZIP"):
                raise errors.InvalidArgumentError(None, None, f"Unsupported compression_type: {compression}")
            return tf_record.TFRecordWriter(filename, compression or None)

        states = _IteratorStates(open_writer)

        def write(state_id, record):
            states.get(state_id).write(np.asarray(record).item())
            return np.array(True)

        def close(state_id):
            states.get(state_id).close()
            return np.array(True)

        def make(state_id):
            written = dataset.map(lambda r: script_ops.py_func(write, [state_id, r], dtypes.bool, stateful=True))
            closed = DatasetV1.from_tensors(state_id).map(
                lambda i: script_ops.py_func(close, [i], dtypes.bool, stateful=True)
            )
            return written.filter(lambda _: False).concatenate(closed)

        done = _single_element(_with_state(states, [self._filename, self._compression_type], make))
        return done.op


# --- transformations ---------------------------------------------------------------------------------------------


def copy_to_device(target_device, source_device="/cpu:0"):
    """A transformation (for `Dataset.apply`) that copies elements to `target_device`: the identity here (the
    elements stay in host memory; the first op on the device copies them)."""
    del target_device, source_device
    return lambda dataset: dataset


def snapshot(path, compression="AUTO", reader_func=None, shard_func=None):
    """A transformation (for `Dataset.apply`) that persists the dataset under the directory `path` on the first
    complete pass and re-reads it from there afterwards (a cache file in `path`)."""
    if compression not in ("AUTO", "GZIP", "SNAPPY", "NONE", None):
        raise ValueError(f"Unknown compression: {compression}. Expected AUTO, GZIP, SNAPPY or NONE.")
    del reader_func, shard_func

    def transform(dataset):
        os.makedirs(path, exist_ok=True)
        return dataset.cache(os.path.join(path, "snapshot"))

    return transform


def pad_to_cardinality(cardinality, mask_key="valid"):
    """A transformation (for `Dataset.apply`) that pads a dataset of dicts with zero elements up to
    `cardinality` elements, adding `mask_key`: True on the real elements, False on the padding."""

    def transform(dataset):
        if not isinstance(dataset.output_types, dict):
            raise ValueError("`pad_to_cardinality` requires its input dataset to be a dictionary.")  # noqa: TRY004 - as TF
        padding = ops.convert_to_tensor(cardinality, dtype=dtypes.int64) - dataset.cardinality()
        filler = {k: array_ops.zeros(s, dataset.output_types[k]) for k, s in dataset.output_shapes.items()}
        filler[mask_key] = False

        def with_mask(x):
            x = dict(x)
            x[mask_key] = True
            return x

        return dataset.map(with_mask).concatenate(DatasetV1.from_tensors(filler).repeat(padding))

    return transform


class Reducer:
    """How `group_by_reducer` reduces a group: `init_func(key)` is the first state, `reduce_func(state,
    element)` the next, `finalize_func(state)` the output."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self._init_func = init_func
        self._reduce_func = reduce_func
        self._finalize_func = finalize_func

    @property
    def init_func(self):
        return self._init_func

    @property
    def reduce_func(self):
        return self._reduce_func

    @property
    def finalize_func(self):
        return self._finalize_func


def group_by_reducer(key_func, reducer):
    """A transformation (for `Dataset.apply`) that groups the elements by `key_func` (an int64 scalar) and gives
    one element per group, once the input ends: `reducer.finalize_func` of the group's reduced state."""

    def transform(dataset):
        def reduce_group(key, window):
            state = window.reduce(reducer.init_func(key), reducer.reduce_func)
            final = reducer.finalize_func(*state) if type(state) is tuple else reducer.finalize_func(state)
            return DatasetV1.from_tensors(final)

        return dataset.group_by_window(key_func, reduce_group, window_size=np.iinfo(np.int64).max)

    return transform


# --- structure, tables ---------------------------------------------------------------------------------------------

SHARD_HINT = -1


def get_structure(dataset_or_iterator):
    """The `element_spec` of a dataset or iterator: a TensorSpec per component."""
    from tensorweave._src.data import iterator_ops

    if isinstance(dataset_or_iterator, (DatasetV1, iterator_ops.Iterator)):
        return dataset_or_iterator.element_spec
    raise TypeError(
        f"Invalid `dataset_or_iterator`. `dataset_or_iterator` must be a `tf.data.Dataset` or tf.data.Iterator "
        f"object, but got {type(dataset_or_iterator)}."
    )


def TensorStructure(dtype, shape):
    """`TensorSpec(shape, dtype)` (TF1's deprecated spelling, its arguments the other way round)."""
    return structure.TensorSpec(shape, dtype)


def enable_debug_mode():
    """tf.data's debug mode is eager-only: in TF1's graph mode (tensorweave's) it is a ValueError."""
    raise ValueError("`enable_debug_mode() is only supported in eager mode.")


def _check_table_initializer_element_spec(element_spec):
    base = (
        "Datasets used to initialize lookup tables must produce elements in the form (key, value), where the keys "
        "and values are scalar tensors. "
    )
    if not isinstance(element_spec, tuple) or len(element_spec) != 2:
        count = len(element_spec) if isinstance(element_spec, (tuple, list, dict)) else 1
        raise ValueError(
            base + f"However, the given dataset produces {count} components instead of two (key, value) "
            f"components. Full dataset element spec: {element_spec}."
        )
    for what, spec in (("key", element_spec[0]), ("value", element_spec[1])):
        if not isinstance(spec, structure.TensorSpec):
            raise ValueError(  # noqa: TRY004 - TF raises ValueError
                base + f"However, the given dataset produces non-Tensor {what}s of type {type(spec)}."
            )
        if spec.shape.rank not in (None, 0):
            raise ValueError(
                base + f"However, the given dataset produces non-scalar {what} Tensors of rank {spec.shape.rank}."
            )


def _dataset_initializer_base():
    from tensorweave._src.ops import lookup_ops

    return lookup_ops.KeyValueTensorInitializer


class DatasetInitializer(_dataset_initializer_base()):
    """A table initializer from a dataset of (key, value) scalar pairs (read when the initializer runs)."""

    def __init__(self, dataset):
        _check_table_initializer_element_spec(dataset.element_spec)
        self.dataset = dataset
        with ops.name_scope("dataset_init"):
            keys, values = _single_element(dataset.batch(np.iinfo(np.int64).max))
        super().__init__(keys, values)


def table_from_dataset(
    dataset=None,
    num_oov_buckets=0,
    vocab_size=None,
    default_value=None,
    hasher_spec=None,
    key_dtype=dtypes.string,
    name=None,
):
    """A lookup table from a dataset of (key, value) scalar pairs; other keys get `default_value`, or with
    `num_oov_buckets` a hash bucket after the vocabulary."""
    from tensorweave._src.ops import lookup_ops

    del hasher_spec
    spec = dataset.element_spec
    _check_table_initializer_element_spec(spec)
    key_dtype = dtypes.as_dtype(key_dtype)
    if default_value is None:
        default_value = -1
        if not (spec[1].dtype.is_integer or spec[1].dtype.is_floating):
            raise ValueError(
                "`default_value` must be specified when creating a table from a dataset that produces values of "
                f"type {spec[1].dtype}."
            )
    if num_oov_buckets < 0:
        raise ValueError(f"`num_oov_buckets` must be greater than or equal to 0, got {num_oov_buckets}.")
    if not isinstance(vocab_size, ops.Tensor) and vocab_size is not None and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size}.")
    if not key_dtype.is_integer and key_dtype.base_dtype != dtypes.string:
        raise TypeError(f"`key_dtype` must be either an integer or string type, but got {key_dtype}")
    if vocab_size is not None:
        dataset = dataset.take(vocab_size).apply(assert_cardinality(vocab_size))
    with ops.name_scope(name, "string_to_index"):
        initializer = DatasetInitializer(dataset)
        with ops.name_scope(None, "hash_table"):
            return lookup_ops._id_table(initializer, num_oov_buckets, default_value, key_dtype)


def index_table_from_dataset(
    dataset=None,
    num_oov_buckets=0,
    vocab_size=None,
    default_value=-1,
    hasher_spec=None,
    key_dtype=dtypes.string,
    name=None,
):
    """A lookup table from each key of `dataset` (scalars) to its position (int64)."""
    return table_from_dataset(
        dataset.enumerate().map(lambda v, k: (k, v)),
        num_oov_buckets,
        vocab_size,
        default_value,
        hasher_spec,
        key_dtype,
        name,
    )


# --- optionals -----------------------------------------------------------------------------------------------------


class Optional:
    """A value that may be absent (TF1's `tf.data.experimental.Optional`): `has_value()` a bool scalar,
    `get_value()` the nest of tensors (InvalidArgumentError when run without a value)."""

    def __init__(self, has_value, value, element_spec):
        self._has_value = has_value
        self._value = value
        self._element_spec = element_spec

    @staticmethod
    def from_value(value):
        """An Optional holding `value` (a nest of tensors or values)."""
        with ops.name_scope("optional") as scope:
            with ops.name_scope("has_value"):
                has_value = ops.convert_to_tensor(True)
            element = structure.normalize_element(value)
        del scope
        spec = structure.map_structure(lambda t: structure.TensorSpec(t.get_shape(), t.dtype), element)
        return Optional(has_value, element, spec)

    @staticmethod
    def empty(element_spec):
        """An Optional without a value, whose value would have `element_spec`."""
        zeros = structure.map_structure(lambda s: _sentinel(s.dtype, s.shape), element_spec)
        return Optional(ops.convert_to_tensor(False), zeros, element_spec)

    @property
    def element_spec(self):
        return self._element_spec

    def has_value(self, name=None):
        """A bool scalar: whether there is a value."""
        return array_ops.identity(self._has_value, name=name or "has_value")

    def get_value(self, name=None):
        """The value; running it without one is an InvalidArgumentError."""
        from tensorweave._src.ops import script_ops

        def check(has_value):
            if not has_value:
                raise errors.InvalidArgumentError(None, None, "The given optional does not have a value.")
            return np.array(True)

        with ops.name_scope(name, "OptionalGetValue"):
            ok = script_ops.py_func(check, [self._has_value], dtypes.bool, stateful=True)
            with ops.control_dependencies([ok]):
                return structure.map_structure(array_ops.identity, self._value)


def get_next_as_optional(iterator):
    """The iterator's next element as an `Optional`: empty once the dataset is exhausted (TF1's
    `tf.data.experimental.get_next_as_optional`, `iterator.get_next_as_optional()`)."""
    return iterator.get_next_as_optional()

"""tf.lookup: hash tables filled once by an initializer op (run by
`tw.tables_initializer()`), on the HashTableV2 family of kernels
(core/kernels/lookup_table_ops.cc). A lookup before the initializer has run is
a FailedPreconditionError ("Table not initialized."), as in TensorFlow.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     init = tw.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2], value_dtype=tw.int64)
  ...     table = tw.lookup.StaticHashTable(init, default_value=-1)
  ...     ids = table.lookup(tw.constant(["b", "z", "a"]))
  ...     sess.run(tw.tables_initializer())
  ...     print(sess.run(ids))
  [ 2 -1  1]
"""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import sparse_tensor
from tensorweave._src.framework import tensor_shape
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import gradients_impl
from tensorweave._src.training import saver as saver_lib

for _op in (
    "HashTableV2",
    "InitializeTableV2",
    "LookupTableImportV2",
    "InitializeTableFromTextFileV2",
    "LookupTableFindV2",
    "LookupTableSizeV2",
    "LookupTableExportV2",
    "MutableHashTableV2",
    "MutableHashTableOfTensorsV2",
    "MutableDenseHashTableV2",
    "LookupTableInsertV2",
    "LookupTableRemoveV2",
):
    gradients_impl.NotDifferentiable(_op)


class TextFileIndex:
    """What a text-file initializer takes from each line: the whole line or its number."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class KeyValueTensorInitializer:
    """Fills a table with keys[i] -> values[i] (two 1-D tensors of one length)."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        with ops.name_scope(name, "key_value_init", []):
            self._keys = ops.convert_to_tensor(keys, dtype=key_dtype, name="keys")
            self._values = ops.convert_to_tensor(values, dtype=value_dtype, name="values")
        self.key_dtype = self._keys.dtype.base_dtype
        self.value_dtype = self._values.dtype.base_dtype
        self._name = name

    def initialize(self, table):
        with ops.name_scope(self._name, "table_init", [table.resource_handle]):
            return gen_ops.initialize_table_v2(table.resource_handle, self._keys, self._values)


class TextFileInitializer:
    """Fills a table from a text file: key and value are fields `key_index` /
    `value_index` of each line split at `delimiter` (TextFileIndex.WHOLE_LINE,
    TextFileIndex.LINE_NUMBER); at most `vocab_size` lines."""

    def __init__(
        self,
        filename,
        key_dtype,
        key_index,
        value_dtype,
        value_index,
        vocab_size=None,
        delimiter="\t",
        name=None,
        value_index_offset=0,
    ):
        self.key_dtype, self.value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
        for what, index, dtype in (("key", key_index, self.key_dtype), ("value", value_index, self.value_dtype)):
            if index < -2:
                raise ValueError(f"Invalid {what} index {index}.")
            if index == TextFileIndex.LINE_NUMBER and dtype != dtypes.int64:
                raise ValueError(f"Signature mismatch. {what.capitalize()}s must be dtype int64, got {dtype}.")
            if index == TextFileIndex.WHOLE_LINE and not (dtype.is_integer or dtype == dtypes.string):
                raise ValueError(f"Signature mismatch. {what.capitalize()}s must be integer or string, got {dtype}.")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"Invalid vocab_size {vocab_size}.")
        self._filename = filename
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size = vocab_size
        self._delimiter = delimiter
        self._offset = value_index_offset
        self._name = name

    def initialize(self, table):
        with ops.name_scope(self._name, "text_file_init", [table.resource_handle]):
            filename = ops.convert_to_tensor(self._filename, dtypes.string, name="asset_filepath")
            init = gen_ops.initialize_table_from_text_file_v2(
                table.resource_handle,
                filename,
                key_index=self._key_index,
                value_index=self._value_index,
                vocab_size=-1 if self._vocab_size is None else self._vocab_size,
                delimiter=self._delimiter,
                offset=self._offset,
            )
            ops.add_to_collection(ops.GraphKeys.ASSET_FILEPATHS, filename)
            return init


def map_values(keys, fn):
    """`fn` applied to the keys of a Tensor, or to the values of a SparseTensor (same indices)."""
    if isinstance(keys, sparse_tensor.SparseTensor):
        return sparse_tensor.SparseTensor(keys.indices, fn(keys.values), keys.dense_shape)
    return fn(ops.convert_to_tensor(keys))


class StaticHashTable:
    """An immutable table of `initializer`'s keys and values; keys not in it
    look up `default_value`. Its initializer op joins TABLE_INITIALIZERS."""

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        del experimental_is_anonymous
        self._initializer = initializer
        self._name = name or "hash_table"
        self.key_dtype, self.value_dtype = initializer.key_dtype, initializer.value_dtype
        with ops.name_scope(name, "hash_table", []) as scope:
            self._default_value = ops.convert_to_tensor(default_value, dtype=self.value_dtype)
            self._handle = gen_ops.hash_table_v2(
                key_dtype=self.key_dtype, value_dtype=self.value_dtype, name=scope.rstrip("/") or "hash_table"
            )
            self._init_op = initializer.initialize(self)
        ops.add_to_collection(ops.GraphKeys.TABLE_INITIALIZERS, self._init_op)

    @property
    def resource_handle(self):
        return self._handle

    @property
    def initializer(self):
        return self._init_op

    @property
    def default_value(self):
        return self._default_value

    @property
    def name(self):
        return self._name

    def size(self, name=None):
        """The number of entries (int64 scalar)."""
        return gen_ops.lookup_table_size_v2(self._handle, name=name)

    def lookup(self, keys, name=None):
        """Each key's value (a Tensor of keys' shape, or a SparseTensor of the same indices)."""

        def find(values):
            if values.dtype.base_dtype != self.key_dtype:
                raise TypeError(f"Signature mismatch. Keys must be dtype {self.key_dtype}, got {values.dtype}.")
            return gen_ops.lookup_table_find_v2(self._handle, values, self._default_value, name=name)

        return map_values(keys, find)

    def export(self, name=None):
        """(keys, values) of every entry."""
        keys, values = gen_ops.lookup_table_export_v2(
            self._handle, Tkeys=self.key_dtype, Tvalues=self.value_dtype, name=name
        )
        keys.set_shape([None])
        values.set_shape([None])
        return keys, values


HashTable = StaticHashTable


class StaticVocabularyTable:
    """Ids of a vocabulary (`initializer` maps each key to its id); a key not
    in it gets vocab_size + its fast hash bucket among `num_oov_buckets`."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None, experimental_is_anonymous=False):
        del experimental_is_anonymous
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if initializer.value_dtype != dtypes.int64:
            raise TypeError(f"Invalid `value_dtype`, expected int64 but got {initializer.value_dtype}.")
        self._num_oov_buckets = num_oov_buckets
        self._name = name or "hash_table"
        with ops.name_scope(name, "hash_table"):
            self._table = StaticHashTable(initializer, -1)
        self.key_dtype = dtypes.as_dtype(lookup_key_dtype) if lookup_key_dtype else initializer.key_dtype
        self.value_dtype = dtypes.int64

    @property
    def resource_handle(self):
        return self._table.resource_handle

    @property
    def initializer(self):
        return self._table.initializer

    @property
    def name(self):
        return self._name

    def size(self, name=None):
        """Vocabulary size plus the OOV buckets."""
        return self._table.size(name) + self._num_oov_buckets

    def lookup(self, keys, name=None):
        from tensorweave._src.ops import math_ops
        from tensorweave._src.ops import string_ops

        def ids(values):
            if values.dtype.base_dtype != self.key_dtype:
                raise TypeError(f"Signature mismatch. Keys must be dtype {self.key_dtype}, got {values.dtype}.")
            with ops.name_scope(name, f"{self._name}_Lookup"):
                found = self._table.lookup(
                    math_ops.cast(values, self._table.key_dtype) if values.dtype != self._table.key_dtype else values
                )
                text = values if values.dtype == dtypes.string else string_ops.as_string(values)
                buckets = string_ops.string_to_hash_bucket_fast(text, self._num_oov_buckets)
                oov = math_ops.add(self._table.size(), buckets)
                return math_ops.where(math_ops.equal(found, -1), oov, found)

        return map_values(keys, ids)


def _to_bytes(strings):
    """A string tensor as the uint8 bytes of its serialized TensorProto (checkpoints hold no strings)."""
    return gen_ops.decode_raw(gen_ops.serialize_tensor(strings), out_type=dtypes.uint8)


def _from_bytes(data):
    """The string tensor `_to_bytes` wrote."""
    from tensorweave._src.ops import array_ops
    from tensorweave._src.ops import math_ops
    from tensorweave._src.ops import string_ops

    byte_strings = ops.convert_to_tensor([bytes([i]) for i in range(256)], dtypes.string)
    blob = string_ops.reduce_join(array_ops.gather(byte_strings, math_ops.cast(data, dtypes.int32)), axis=0)
    return gen_ops.parse_tensor(blob, out_type=dtypes.string)


class _TableSaveable(saver_lib.SaveableObject):
    """A mutable table in a checkpoint: `<name>-keys` and `<name>-values` (as TF's), restored by
    LookupTableImportV2. String keys or values are held as the uint8 bytes of their serialized TensorProto,
    as the checkpoint format (safetensors) has no strings."""

    def __init__(self, table, name):
        tensors = table.export()
        self._strings = [t.dtype == dtypes.string for t in tensors]
        tensors = [_to_bytes(t) if s else t for t, s in zip(tensors, self._strings)]
        specs = [
            saver_lib.SaveSpec(tensors[0], "", name + "-keys"),
            saver_lib.SaveSpec(tensors[1], "", name + "-values"),
        ]
        super().__init__(table, specs, name)

    def restore(self, restored_tensors, restored_shapes):
        del restored_shapes
        with ops.name_scope(f"{self.op.name}_table_restore"):
            keys, values = [_from_bytes(t) if s else t for t, s in zip(restored_tensors, self._strings)]
            return gen_ops.lookup_table_import_v2(self.op.resource_handle, keys, values)


class _MutableTable:
    """What MutableHashTable and DenseHashTable share: lookup, insert, remove, size, export, checkpointing."""

    def _finish(self, handle, name, checkpoint):
        self._handle = handle
        self._table_name = handle.op.name.split("/")[-1]
        self._checkpoint = checkpoint
        if checkpoint:
            ops.add_to_collection(ops.GraphKeys.SAVEABLE_OBJECTS, _TableSaveable(self, name))

    def _saveable_named(self, name):
        """The table as a SaveableObject of tensors `<name>-keys` and `<name>-values` (a Saver's var_list)."""
        return _TableSaveable(self, name)

    @property
    def resource_handle(self):
        return self._handle

    @property
    def name(self):
        return self._table_name

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype

    @property
    def default_value(self):
        return self._default_value

    def _check_keys(self, keys):
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Signature mismatch. Keys must be dtype {self._key_dtype}, got {keys.dtype}.")

    def size(self, name=None):
        """The number of entries (int64 scalar)."""
        with ops.name_scope(name, f"{self.name}_Size", [self._handle]):
            return gen_ops.lookup_table_size_v2(self._handle)

    def lookup(self, keys, name=None):
        """Each key's value (keys' shape + the value shape); the default value for missing keys."""
        return self._find(keys, self._default_value, name)

    def _find(self, keys, default, name):
        with ops.name_scope(name, f"{self.name}_lookup_table_find", [self._handle, keys]):
            keys = ops.convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
            values = gen_ops.lookup_table_find_v2(self._handle, keys, default)
        values.set_shape(keys.shape.concatenate(self._value_shape))
        return values

    def insert(self, keys, values, name=None):
        """Maps each key to its value (values: keys' shape + the value shape); returns the op."""
        with ops.name_scope(name, f"{self.name}_lookup_table_insert", [self._handle, keys, values]):
            keys = ops.convert_to_tensor(keys, self._key_dtype, name="keys")
            values = ops.convert_to_tensor(values, self._value_dtype, name="values")
            return gen_ops.lookup_table_insert_v2(self._handle, keys, values)

    def remove(self, keys, name=None):
        """Removes the keys (absent ones: nothing); returns the op."""
        self._check_keys(keys)
        with ops.name_scope(name, f"{self.name}_lookup_table_remove", [self._handle, keys]):
            return gen_ops.lookup_table_remove_v2(self._handle, keys)

    def export(self, name=None):
        """(keys, values) of the table."""
        with ops.name_scope(name, f"{self.name}_lookup_table_export_values", [self._handle]):
            keys, values = gen_ops.lookup_table_export_v2(
                self._handle, Tkeys=self._key_dtype, Tvalues=self._value_dtype
            )
        keys.set_shape(self._exported_key_shape)
        values.set_shape(self._exported_value_shape)
        return keys, values


class MutableHashTable(_MutableTable):
    """A table changed by `insert` and `remove`; values are scalars or tensors of default_value's shape.
    With `checkpoint`, a Saver saves and restores its contents (as `<name>-keys`, `<name>-values`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     table = tw.lookup.experimental.MutableHashTable(tw.string, tw.int64, default_value=-1)
      ...     _ = sess.run(table.insert(["a", "b"], tw.constant([1, 2], tw.int64)))
      ...     _ = sess.run(table.remove(tw.constant(["a"])))
      ...     print(sess.run(table.lookup(["a", "b"])), sess.run(table.size()))
      [-1  2] 1
    """

    def __init__(
        self,
        key_dtype,
        value_dtype,
        default_value,
        name="MutableHashTable",
        checkpoint=True,
        experimental_is_anonymous=False,
    ):
        del experimental_is_anonymous
        self._key_dtype, self._value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
        self._default_value = ops.convert_to_tensor(default_value, dtype=self._value_dtype)
        self._value_shape = self._default_value.shape
        self._exported_key_shape = tensor_shape.TensorShape([None])
        self._exported_value_shape = tensor_shape.TensorShape([None]).concatenate(self._value_shape)
        if self._value_shape.ndims == 0:
            handle = gen_ops.mutable_hash_table_v2(
                key_dtype=self._key_dtype,
                value_dtype=self._value_dtype,
                use_node_name_sharing=checkpoint,
                name=name,
            )
        else:
            handle = gen_ops.mutable_hash_table_of_tensors_v2(
                key_dtype=self._key_dtype,
                value_dtype=self._value_dtype,
                value_shape=self._value_shape,
                use_node_name_sharing=checkpoint,
                name=name,
            )
        self._finish(handle, name, checkpoint)

    def lookup(self, keys, dynamic_default_values=None, name=None):
        """Each key's value; `dynamic_default_values` (the value shape, or keys' shape + it) replaces the
        default value for this lookup."""
        default = self._default_value if dynamic_default_values is None else dynamic_default_values
        default = ops.convert_to_tensor(default, dtype=self._value_dtype)
        return self._find(keys, default, name)

    def remove(self, keys, name=None):
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys.dtype}")
        with ops.name_scope(name, f"{self.name}_lookup_table_remove", [self._handle, keys]):
            return gen_ops.lookup_table_remove_v2(self._handle, keys)


class DenseHashTable(_MutableTable):
    """A mutable table in open-addressed buckets: faster than MutableHashTable, more memory. `empty_key` and
    `deleted_key` (different) mark free and removed buckets and can never be keys. Its export gives the
    buckets (keys [num_buckets, 1], free ones holding empty_key)."""

    def __init__(
        self,
        key_dtype,
        value_dtype,
        default_value,
        empty_key,
        deleted_key,
        initial_num_buckets=None,
        name="MutableDenseHashTable",
        checkpoint=True,
        experimental_is_anonymous=False,
    ):
        del experimental_is_anonymous
        self._key_dtype, self._value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
        self._default_value = ops.convert_to_tensor(default_value, dtype=self._value_dtype, name="default_value")
        self._value_shape = self._default_value.shape
        self._exported_key_shape = tensor_shape.TensorShape([None, 1])
        self._exported_value_shape = tensor_shape.TensorShape([None, self._value_shape.num_elements()])
        empty = ops.convert_to_tensor(empty_key, dtype=self._key_dtype, name="empty_key")
        deleted = ops.convert_to_tensor(deleted_key, dtype=self._key_dtype, name="deleted_key")
        handle = gen_ops.mutable_dense_hash_table_v2(
            empty,
            deleted,
            value_dtype=self._value_dtype,
            value_shape=self._value_shape,
            initial_num_buckets=131072 if initial_num_buckets is None else initial_num_buckets,
            use_node_name_sharing=checkpoint,
            name=name,
        )
        self._finish(handle, name, checkpoint)

    def insert_or_assign(self, keys, values, name=None):
        """Maps each key to its value; returns the op."""
        return _MutableTable.insert(self, keys, values, name)

    def erase(self, keys, name=None):
        """Removes the keys (absent ones: nothing); returns the op."""
        return _MutableTable.remove(self, keys, name)


def _id_table(init, num_oov_buckets, default_value, key_dtype):
    """A StaticHashTable of `init`, or with OOV buckets a StaticVocabularyTable (TF1's IdTableWithHashBuckets:
    a key not in it gets vocab size + its fast hash bucket)."""
    if num_oov_buckets:
        return StaticVocabularyTable(init, num_oov_buckets, lookup_key_dtype=key_dtype)
    return StaticHashTable(init, default_value)


def index_table_from_tensor(
    vocabulary_list, num_oov_buckets=0, default_value=-1, hasher_spec=None, dtype=dtypes.string, name=None
):
    """A table from each key of `vocabulary_list` (1-D strings or integers) to its index (int64); other keys
    get `default_value`, or with `num_oov_buckets` a hash bucket after the vocabulary (TF1's
    lookup_ops.index_table_from_tensor; its initializer joins TABLE_INITIALIZERS)."""
    del hasher_spec  # the fast (FarmHash) hash, TF's default, is the one there is
    if vocabulary_list is None:
        raise ValueError("`vocabulary_list` must be specified.")
    if num_oov_buckets < 0:
        raise ValueError(f"`num_oov_buckets` must be greater or equal than 0, got {num_oov_buckets}.")
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_integer and dtype.base_dtype != dtypes.string:
        raise TypeError("`dtype` must either be integer or string.")
    from tensorweave._src.ops import array_ops
    from tensorweave._src.ops import math_ops

    with ops.name_scope(name, "string_to_index"):
        keys = ops.convert_to_tensor(vocabulary_list)
        if keys.dtype.is_integer != dtype.is_integer:
            expected = "integer" if dtype.is_integer else "non-integer"
            raise ValueError(f"Invalid `dtype`: Expected {expected}, got {keys.dtype}.")
        if not dtype.is_integer and keys.dtype.base_dtype != dtype:
            raise ValueError(f"Invalid `dtype`: Expected {dtype}, got {keys.dtype}.")
        values = math_ops.cast(array_ops.range(array_ops.size(keys)), dtypes.int64)
        with ops.name_scope(None, "hash_table"):
            table_keys = math_ops.cast(keys, dtypes.int64) if keys.dtype.is_integer else keys
            init = KeyValueTensorInitializer(
                table_keys, values, table_keys.dtype.base_dtype, dtypes.int64, "table_init"
            )
            return _id_table(init, num_oov_buckets, default_value, dtype)


def index_table_from_file(
    vocabulary_file=None,
    num_oov_buckets=0,
    vocab_size=None,
    default_value=-1,
    hasher_spec=None,
    key_dtype=dtypes.string,
    name=None,
    key_column_index=TextFileIndex.WHOLE_LINE,
    value_column_index=TextFileIndex.LINE_NUMBER,
    delimiter="\t",
):
    """A table from each key of a vocabulary file (by default one per line) to its line number (int64); other
    keys get `default_value`, or with `num_oov_buckets` a hash bucket after the vocabulary (TF1's
    lookup_ops.index_table_from_file)."""
    del hasher_spec
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("`vocabulary_file` must be specified and must not be empty.")
    if num_oov_buckets < 0:
        raise ValueError(f"num_oov_buckets must be greater or equal than 0, got {num_oov_buckets}.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(
            f"`vocab_size` must be greater than 0, got {vocab_size} for vocabulary_file: {vocabulary_file}."
        )
    key_dtype = dtypes.as_dtype(key_dtype)
    if not key_dtype.is_integer and key_dtype.base_dtype != dtypes.string:
        raise TypeError("Dtype for `keys` should be either integer or string.")
    with ops.name_scope(name, "string_to_index"), ops.name_scope(None, "hash_table"):
        init = TextFileInitializer(
            vocabulary_file,
            dtypes.int64 if key_dtype.is_integer else key_dtype,
            key_column_index,
            dtypes.int64,
            value_column_index,
            vocab_size=vocab_size,
            delimiter=delimiter,
            name="table_init",
        )
        return _id_table(init, num_oov_buckets, default_value, key_dtype)


def index_to_string_table_from_tensor(vocabulary_list, default_value="UNK", name=None):
    """A table from each index (int64) to its string of `vocabulary_list`; other indices get `default_value`
    (TF1's lookup_ops.index_to_string_table_from_tensor)."""
    if vocabulary_list is None:
        raise ValueError("`vocabulary_list` argument must be specified.")
    from tensorweave._src.ops import array_ops
    from tensorweave._src.ops import math_ops

    with ops.name_scope(name, "index_to_string"):
        vocabulary_list = ops.convert_to_tensor(vocabulary_list, dtypes.string)
        keys = math_ops.cast(array_ops.range(array_ops.size(vocabulary_list)), dtypes.int64)
        init = KeyValueTensorInitializer(keys, vocabulary_list, dtypes.int64, dtypes.string, name="table_init")
        return StaticHashTable(init, default_value)


def index_to_string_table_from_file(
    vocabulary_file,
    vocab_size=None,
    default_value="UNK",
    name=None,
    key_column_index=TextFileIndex.LINE_NUMBER,
    value_column_index=TextFileIndex.WHOLE_LINE,
    delimiter="\t",
):
    """A table from each line number (int64) of a vocabulary file to its line; other indices get
    `default_value` (TF1's lookup_ops.index_to_string_table_from_file)."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("`vocabulary_file` must be specified and must not be empty.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size}.")
    with ops.name_scope(name, "index_to_string"):
        init = TextFileInitializer(
            vocabulary_file,
            dtypes.int64,
            key_column_index,
            dtypes.string,
            value_column_index,
            vocab_size=vocab_size,
            delimiter=delimiter,
            name="table_init",
        )
        return StaticHashTable(init, default_value)

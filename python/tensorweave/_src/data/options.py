"""tf.data options (TensorFlow 1's `tf.data.Options` and the option groups of `tf.data.experimental`).

An options object holds typed option values, each None (unset) until set; setting a value of the wrong type is a
`TypeError`, an unknown name an `AttributeError`, as in TensorFlow. `Dataset.with_options(options)` attaches
options to a dataset and `Dataset.options()` merges those of the whole pipeline (each input's, in order, then the
dataset's own; a value set later wins, as TensorFlow's `merge_options`).

What tensorweave does with them:
  * `threading.private_threadpool_size`: the pipeline runs the ops of its functions (map, filter, interleave, ...)
    on a thread pool of that many threads of its own, made for each iterator (0: one thread per core; C++
    `PrivateThreadPoolDataset`, appended when an iterator is made, as TensorFlow's dataset finalization does);
  * `threading.max_intra_op_parallelism`: the kernels of those functions split their work over at most that many
    threads (1: one thread; 0: the session's intra-op setting; C++ `MaxIntraOpParallelismDataset`);
  * a negative value of either is an `InvalidArgumentError` of that op when the iterator is made;
  * `deterministic` / `experimental_deterministic`, `autotune`, `experimental_optimization`,
    `experimental_distribute`, `experimental_slack` and the rest are kept and merged but change nothing:
    tensorweave's parallel map and interleave always keep the input order (a valid outcome of
    `deterministic=False`) and it does not rewrite input pipelines.

Example:
  >>> import tensorweave as tw
  >>> options = tw.data.Options()
  >>> options.threading.private_threadpool_size = 2
  >>> with tw.Graph().as_default():
  ...     ds = tw.data.Dataset.range(4).map(lambda x: x * 2, num_parallel_calls=4).with_options(options)
  ...     print(ds.options().threading.private_threadpool_size)
  ...     nxt = tw.data.make_one_shot_iterator(ds).get_next()
  ...     with tw.Session() as sess:
  ...         print([int(sess.run(nxt)) for _ in range(4)])
  2
  [0, 2, 4, 6]
"""

import enum

from tensorweave._src.platform import tf_logging as logging


class OptionsBase:
    """The base of the option groups: typed options, None until set, compared by value."""

    def __init__(self):
        object.__setattr__(self, "_options", {})
        object.__setattr__(self, "_mutable", True)

    def __eq__(self, other):
        if not isinstance(other, self.__class__):
            return NotImplemented
        for name in set(self._options) | set(other._options):
            if getattr(self, name) != getattr(other, name):
                return False
        return True

    def __ne__(self, other):
        if isinstance(other, self.__class__):
            return not self.__eq__(other)
        return NotImplemented

    __hash__ = None

    def __setattr__(self, name, value):
        if not self._mutable:
            raise ValueError(
                "Mutating `tf.data.Options()` returned by `tf.data.Dataset.options()` has no effect. Use "
                "`tf.data.Dataset.with_options(options)` to set or update dataset options."
            )
        if hasattr(self, name):
            object.__setattr__(self, name, value)
        else:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")

    def __repr__(self):
        set_values = ", ".join(f"{k}={v!r}" for k, v in sorted(self._options.items()) if v is not None)
        return f"{type(self).__name__}({set_values})"

    def _set_mutable(self, mutable):
        object.__setattr__(self, "_mutable", mutable)
        for value in self._options.values():
            if isinstance(value, OptionsBase):
                value._set_mutable(mutable)


def create_option(name, ty, docstring, default_factory=lambda: None):
    """A property of an options class: typed (a value of another type is a TypeError), None until set."""

    def get_fn(option):
        if name not in option._options:
            value = default_factory()
            if isinstance(value, OptionsBase):
                value._set_mutable(option._mutable)
            option._options[name] = value
        return option._options[name]

    def set_fn(option, value):
        if not isinstance(value, ty):
            raise TypeError(f'Property "{name}" must be of type {ty}, got: {value} (type: {type(value)})')
        if not option._mutable:
            raise ValueError(
                "Mutating `tf.data.Options()` returned by `tf.data.Dataset.options()` has no effect. Use "
                "`tf.data.Dataset.with_options(options)` to set or update dataset options."
            )
        option._options[name] = value

    return property(get_fn, set_fn, None, docstring)


def merge_options(*options_list):
    """One options object from several of one class: a value set in a later one wins (TF's `merge_options`)."""
    if len(options_list) < 1:
        raise ValueError("At least one options should be provided")
    result_type = type(options_list[0])
    for options in options_list:
        if not isinstance(options, result_type):
            raise TypeError(f"Could not merge incompatible options of type {type(options)} and {result_type}.")
    if not isinstance(options_list[0], OptionsBase):
        raise TypeError(
            "All options to be merged should inherit from `OptionsBase` but found option of type "
            f"{type(options_list[0])} which does not."
        )
    default_options = result_type()
    result = result_type()
    for options in options_list:
        for name in options._options:
            this, that, default = getattr(result, name), getattr(options, name), getattr(default_options, name)
            if that == default:
                continue
            if this == default:
                setattr(result, name, that)
            elif isinstance(this, OptionsBase):
                setattr(result, name, merge_options(this, that))
            elif this != that:
                logging.warning("Changing the value of option %s from %r to %r.", name, this, that)
                setattr(result, name, that)
    return result


class AutoShardPolicy(enum.IntEnum):
    """How a distributed dataset is sharded (`tf.data.experimental.AutoShardPolicy`)."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ExternalStatePolicy(enum.Enum):
    """What to do with external state when a dataset is serialized (`tf.data.experimental.ExternalStatePolicy`)."""

    WARN = 0
    IGNORE = 1
    FAIL = 2


class AutotuneAlgorithm(enum.Enum):
    """The autotuning algorithm (`tf.data.experimental.AutotuneAlgorithm`)."""

    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class AutotuneOptions(OptionsBase):
    """Autotuning options (`tf.data.experimental.AutotuneOptions`); kept, not acted on by tensorweave."""

    enabled = create_option("enabled", bool, "Whether to autotune parallelism and buffer sizes.")
    cpu_budget = create_option("cpu_budget", int, "The CPU budget of autotuning (0: the cores).")
    ram_budget = create_option("ram_budget", int, "The RAM budget of autotuning in bytes.")
    autotune_algorithm = create_option("autotune_algorithm", AutotuneAlgorithm, "The autotuning algorithm.")
    initial_parallelism = create_option("initial_parallelism", int, "The initial parallelism autotuning starts at.")
    min_parallelism = create_option("min_parallelism", int, "The least parallelism autotuning picks.")


class DistributeOptions(OptionsBase):
    """Distribution options (`tf.data.experimental.DistributeOptions`); kept, not acted on by tensorweave."""

    auto_shard_policy = create_option(
        "auto_shard_policy", AutoShardPolicy, "How to shard the dataset.", default_factory=lambda: AutoShardPolicy.AUTO
    )
    num_devices = create_option("num_devices", int, "The number of devices the dataset is distributed to.")


class OptimizationOptions(OptionsBase):
    """Static optimizations of the input pipeline (`tf.data.experimental.OptimizationOptions`): TensorFlow's fields,
    kept and merged; tensorweave does not rewrite input pipelines, so they change nothing."""

    apply_default_optimizations = create_option(
        "apply_default_optimizations", bool, "Whether to apply the default static optimizations."
    )
    filter_fusion = create_option("filter_fusion", bool, "Whether to fuse filter transformations.")
    filter_parallelization = create_option("filter_parallelization", bool, "Whether to parallelize filters.")
    inject_prefetch = create_option("inject_prefetch", bool, "Whether to append a prefetch to the pipeline.")
    map_and_batch_fusion = create_option("map_and_batch_fusion", bool, "Whether to fuse map and batch.")
    map_and_filter_fusion = create_option("map_and_filter_fusion", bool, "Whether to fuse map and filter.")
    map_fusion = create_option("map_fusion", bool, "Whether to fuse map transformations.")
    map_parallelization = create_option("map_parallelization", bool, "Whether to parallelize stateless maps.")
    noop_elimination = create_option("noop_elimination", bool, "Whether to remove no-op transformations.")
    parallel_batch = create_option("parallel_batch", bool, "Whether to batch in parallel.")
    seq_interleave_prefetch = create_option(
        "seq_interleave_prefetch", bool, "Whether to replace interleave by a prefetching sequential one."
    )
    shuffle_and_repeat_fusion = create_option("shuffle_and_repeat_fusion", bool, "Whether to fuse shuffle and repeat.")


class ThreadingOptions(OptionsBase):
    """Threading options (`tf.data.ThreadingOptions`, `tf.data.experimental.ThreadingOptions`).

    `private_threadpool_size`: the functions of the pipeline run their ops on a pool of that many threads of its
    own (0: one per core). `max_intra_op_parallelism`: their kernels split their work over at most that many
    threads (1: one; 0: the session's setting). Both act when an iterator is made from the dataset.
    """

    max_intra_op_parallelism = create_option(
        "max_intra_op_parallelism", int, "The most threads one kernel of the pipeline's functions may use."
    )
    private_threadpool_size = create_option(
        "private_threadpool_size", int, "The size of the pipeline's own thread pool (0: one thread per core)."
    )


class Options(OptionsBase):
    """Options of a `tf.data.Dataset` (`tf.data.Options`): set them on an object and apply it with
    `dataset.with_options(options)`; `dataset.options()` gives the pipeline's merged options (read-only)."""

    autotune = create_option("autotune", AutotuneOptions, "Autotuning options.", default_factory=AutotuneOptions)
    dataset_name = create_option("dataset_name", str, "A name for the dataset, for debugging.")
    deterministic = create_option("deterministic", bool, "Whether elements must come in a deterministic order.")
    experimental_distribute = create_option(
        "experimental_distribute", DistributeOptions, "Distribution options.", default_factory=DistributeOptions
    )
    experimental_external_state_policy = create_option(
        "experimental_external_state_policy", ExternalStatePolicy, "What to do with external state on save."
    )
    experimental_optimization = create_option(
        "experimental_optimization", OptimizationOptions, "Static optimizations.", default_factory=OptimizationOptions
    )
    experimental_slack = create_option("experimental_slack", bool, "Whether to add slack to the final prefetch.")
    experimental_symbolic_checkpoint = create_option(
        "experimental_symbolic_checkpoint", bool, "Whether to checkpoint symbolically."
    )
    experimental_warm_start = create_option("experimental_warm_start", bool, "Whether to start background work early.")
    framework_type = create_option("framework_type", list, "The frameworks the dataset is used with.")
    threading = create_option("threading", ThreadingOptions, "Threading options.", default_factory=ThreadingOptions)

    experimental_threading = property(
        lambda self: self.threading,
        lambda self, value: setattr(self, "threading", value),
        None,
        "An alias of `threading` (TensorFlow's older name).",
    )
    experimental_deterministic = property(
        lambda self: self.deterministic,
        lambda self, value: setattr(self, "deterministic", value),
        None,
        "An alias of `deterministic` (TensorFlow's older name).",
    )

    def merge(self, options):
        """This object's options with `options`' set values over them (a new object)."""
        return merge_options(self, options)

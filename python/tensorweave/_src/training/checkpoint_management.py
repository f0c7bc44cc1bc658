"""Managing checkpoint files (TensorFlow v1's `checkpoint_management`): the state proto, modification times,
removal, and waiting for new checkpoints."""

import collections
import logging
import os
import time

from tensorweave._src.training import saver as saver_lib

_logger = logging.getLogger("tensorweave")


def generate_checkpoint_state_proto(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None):
    """The CheckpointState of `save_dir` naming `model_checkpoint_path` as the latest (appended to
    `all_model_checkpoint_paths` when it is not last); relative paths are made relative to a relative
    `save_dir`, as TF1 does.

    Example:
      >>> import tensorweave as tw
      >>> state = tw.train.generate_checkpoint_state_proto("/tmp/run", "/tmp/run/model-2", ["/tmp/run/model-1"])
      >>> print(state.all_model_checkpoint_paths)
      ['/tmp/run/model-1', '/tmp/run/model-2']
    """
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
    return saver_lib.CheckpointState(model_checkpoint_path, paths)


def get_checkpoint_mtimes(checkpoint_prefixes):
    """The modification times (seconds) of the checkpoints `checkpoint_prefixes` that exist (their manifests)."""
    mtimes = []
    for prefix in checkpoint_prefixes:
        for suffix in (saver_lib.MANIFEST_SUFFIX, ".index"):  # ours; TensorFlow's
            try:
                mtimes.append(os.stat(prefix + suffix).st_mtime_ns / 1e9)
                break
            except OSError:
                continue
    return mtimes


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=2, meta_graph_suffix="meta"):
    """Deletes the files of checkpoint `checkpoint_prefix` (the manifest first, then the data and its .meta)."""
    for suffix in (saver_lib.MANIFEST_SUFFIX, saver_lib.DATA_SUFFIX, "." + meta_graph_suffix):
        try:
            os.remove(checkpoint_prefix + suffix)
        except FileNotFoundError:
            pass


def wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1, timeout=None):
    """Waits until `checkpoint_dir`'s latest checkpoint is not `last_checkpoint`; returns it, or None after
    `timeout` seconds."""
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        checkpoint_path = saver_lib.latest_checkpoint(checkpoint_dir)
        if checkpoint_path is None or checkpoint_path == last_checkpoint:
            if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
                return None
            time.sleep(seconds_to_sleep)
        else:
            return checkpoint_path


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new latest checkpoint of `checkpoint_dir` as it appears (at most one per
    `min_interval_secs`); stops after `timeout` seconds without one unless `timeout_fn()` says to go on.

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> d = tempfile.mkdtemp()
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     v = tw.Variable(1.0, name="v")
      ...     sess.run(v.initializer)
      ...     _ = tw.train.Saver().save(sess, os.path.join(d, "m"), global_step=1)
      >>> [os.path.basename(p) for p in tw.train.checkpoints_iterator(d, timeout=0)]
      ['m-1']
    """
    checkpoint_path = None
    while True:
        new_checkpoint_path = wait_for_new_checkpoint(checkpoint_dir, checkpoint_path, timeout=timeout)
        if new_checkpoint_path:
            start = time.time()
            checkpoint_path = new_checkpoint_path
            yield checkpoint_path
            time_to_next = start + min_interval_secs - time.time()
            if time_to_next > 0:
                time.sleep(time_to_next)
        elif timeout_fn is None:
            _logger.info("Timed-out waiting for a checkpoint (without timeout_fn).")
            return
        if timeout_fn is not None and timeout_fn():
            return


class VocabInfo(
    collections.namedtuple(
        "VocabInfo",
        ["new_vocab", "new_vocab_size", "num_oov_buckets", "old_vocab", "old_vocab_size", "backup_initializer", "axis"],
    )
):
    """How to remap a vocabulary when warm-starting (TF1's `tf.train.VocabInfo`). tensorweave's `warm_start`
    does not remap vocabularies and rejects it."""

    def __new__(
        cls,
        new_vocab,
        new_vocab_size,
        num_oov_buckets,
        old_vocab,
        old_vocab_size=-1,
        backup_initializer=None,
        axis=0,
    ):
        if axis not in (0, 1):
            raise ValueError(f"The only supported values for the axis argument are 0 and 1.  Provided axis: {axis}")
        return super().__new__(
            cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size, backup_initializer, axis
        )

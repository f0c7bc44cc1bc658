"""TF1's summary ops (`tf.compat.v1.summary`): scalar, histogram, image, text, tensor_summary, merge and
merge_all. Each op returns a scalar string tensor: a serialized `Summary` proto made by the C++ kernels
(ScalarSummary, HistogramSummary, ImageSummary, TensorSummaryV2, MergeSummary); tags and op names follow TF1's
`summary_scope` (the tag is the op's full scope name, with `family/` in front when a family is given)."""

import contextlib
import re

from tensorweave._src.framework import ops
from tensorweave._src.ops import gen_ops
from tensorweave._src.summary import protos

_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


def _clean_tag(name):
    """TF1's clean_tag: characters outside [-/\\w.] become '_', leading slashes are dropped."""
    if name is not None:
        new_name = _INVALID_TAG_CHARACTERS.sub("_", name)
        new_name = new_name.lstrip("/")
        return new_name
    return name


@contextlib.contextmanager
def _summary_scope(name, family=None, default_name=None, values=None):
    name = _clean_tag(name)
    family = _clean_tag(family)
    base = name if family is None else f"{family}/{name}"
    with ops.name_scope(base, default_name, values=values) as scope:
        tag = scope.rstrip("/")
        if family is not None:
            tag = f"{family}/{tag}"
        yield tag, scope


def _collect(val, collections, default_collections):
    if collections is None:
        collections = default_collections
    for key in collections:
        ops.add_to_collection(key, val)


def scalar(name, tensor, collections=None, family=None):
    """A summary of one real number (a tensor of one element), tagged by the op's scope name.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     s = tw.summary.scalar("loss", tw.constant(0.5))
      ...     print(tw.Summary.FromString(sess.run(s)).value[0].tag)
      loss
    """
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = gen_ops.scalar_summary(tags=tag, values=tensor, name=scope)
    _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def histogram(name, values, collections=None, family=None):
    """A histogram of `values` over TF's default buckets; a NaN or infinity is an InvalidArgumentError."""
    with _summary_scope(name, family, values=[values]) as (tag, scope):
        val = gen_ops.histogram_summary(tag=tag, values=values, name=scope)
    _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """Up to `max_outputs` PNG images from a [batch, height, width, channels] tensor (uint8, or floats scaled
    as TF1 does), tagged `<tag>/image/<i>` (`<tag>/image` when max_outputs is 1)."""
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = gen_ops.image_summary(tag=tag, tensor=tensor, max_images=max_outputs, name=scope)
    _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    """Up to `max_outputs` 16-bit WAV clips from a [batch, frames] or [batch, frames, channels] float tensor
    of samples in [-1, 1], tagged `<tag>/audio/<i>` (`<tag>/audio` when max_outputs is 1)."""
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        sample_rate = ops.convert_to_tensor(sample_rate, dtype="float32", name="sample_rate")
        val = gen_ops.audio_summary_v2(
            tag=tag, tensor=tensor, max_outputs=max_outputs, sample_rate=sample_rate, name=scope
        )
    _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def tensor_summary(
    name, tensor, summary_description=None, collections=None, summary_metadata=None, family=None, display_name=None
):
    """A summary holding the whole tensor (a TensorProto) with the given SummaryMetadata."""
    if summary_metadata is None:
        summary_metadata = protos.pb2().SummaryMetadata()
    if summary_description is not None:
        summary_metadata.summary_description = summary_description
    if display_name is not None:
        summary_metadata.display_name = display_name
    serialized = summary_metadata.SerializeToString()
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = gen_ops.tensor_summary_v2(tensor=tensor, tag=tag, serialized_summary_metadata=serialized, name=scope)
    _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def text(name, tensor, collections=None):
    """A summary of a string tensor for TensorBoard's text plugin; a non-string tensor is a ValueError."""
    tensor = ops.convert_to_tensor(tensor)
    if tensor.dtype.name != "string":
        raise ValueError(f"Expected tensor {tensor.name} to have dtype string, got {tensor.dtype}")
    pb2 = protos.pb2()
    metadata = pb2.SummaryMetadata(plugin_data=pb2.SummaryMetadata.PluginData(plugin_name="text"))
    return tensor_summary(name=name, tensor=tensor, summary_metadata=metadata, collections=collections)


def merge(inputs, collections=None, name=None):
    """One summary with the values of all `inputs` (serialized Summary tensors); a duplicate tag is an
    InvalidArgumentError when run."""
    with ops.name_scope(name, "Merge", inputs):
        val = gen_ops.merge_summary(inputs=list(inputs), name=name)
    _collect(val, collections, [])
    return val


def merge_all(key=ops.GraphKeys.SUMMARIES, scope=None, name=None):
    """Merges every summary in the collection `key` (filtered by `scope`); None when there is none."""
    summary_ops = ops.get_collection(key, scope=scope)
    if not summary_ops:
        return None
    return merge(summary_ops, name=name)


def get_summary_description(node_def):
    """The SummaryDescription stored in a `TensorSummary` node's `description` attr (JSON), as TF1's
    `summary.get_summary_description`; a NodeDef of any other op (TensorSummaryV2, which `tensor_summary`
    makes, included) is a ValueError, as in TF1.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     s = tw.summary.tensor_summary("t", tw.constant([1.0]))
      ...     try:
      ...         tw.summary.get_summary_description(s.op.node_def)
      ...     except ValueError as e:
      ...         print(e)
      Can't get_summary_description on TensorSummaryV2
    """
    if node_def.op != "TensorSummary":
        raise ValueError(f"Can't get_summary_description on {node_def.op}")
    from google.protobuf import json_format

    description = node_def.attr["description"].s
    if isinstance(description, bytes):
        description = description.decode("utf-8")
    summary_description = protos.pb2().SummaryDescription()
    json_format.Parse(description, summary_description)
    return summary_description

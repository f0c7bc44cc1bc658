"""Box ops of TF1 image pipelines (Inception, SSD, Faster R-CNN preprocessing): random distorted crops
(`sample_distorted_bounding_box`, `stateless_sample_distorted_bounding_box`), batched non-max suppression
(`combined_non_max_suppression`, `non_max_suppression_padded`), glimpses (`extract_glimpse`), 3-D patches
(`extract_volume_patches`) and region proposals (`generate_bounding_box_proposals`).

The kernels are in core/kernels/image_box_ops.cc. sample_distorted_bounding_box follows TensorFlow's algorithm
(max_attempts random crops, the whole image when none fits) on tensorweave's own Philox stream, so its crops
are reproducible under seeds but not TensorFlow's numbers. non_max_suppression_padded is TensorFlow's tiled
algorithm (its graph, one kernel here: NonMaxSuppressionPaddedTiled), with its quirks: IoU >= iou_threshold
suppresses, and a box whose coordinates are all <= 0 is never selected.

Example:
  >>> import numpy as np, tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     begin, size, box = tw.image.sample_distorted_bounding_box(
  ...         [40, 60, 3], [[[0.1, 0.1, 0.9, 0.9]]], seed=1, area_range=[0.5, 1.0])
  ...     b, s = sess.run([begin, size])
  ...     print(bool(b[0] + s[0] <= 40 and b[1] + s[1] <= 60 and s[2] == -1))
  True
"""

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import array_ops, gen_ops, gradients_impl, math_ops

for _op in (
    "SampleDistortedBoundingBox",
    "SampleDistortedBoundingBoxV2",
    "StatelessSampleDistortedBoundingBox",
    "CombinedNonMaxSuppression",
    "NonMaxSuppressionPaddedTiled",
    "ExtractGlimpse",
    "ExtractGlimpseV2",
    "GenerateBoundingBoxProposals",
):
    gradients_impl.NotDifferentiable(_op)


def _sample_attrs(aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes):
    attrs = {}
    if aspect_ratio_range is not None:
        attrs["aspect_ratio_range"] = [float(v) for v in aspect_ratio_range]
    if area_range is not None:
        attrs["area_range"] = [float(v) for v in area_range]
    if max_attempts is not None:
        attrs["max_attempts"] = int(max_attempts)
    if use_image_if_no_bounding_boxes is not None:
        attrs["use_image_if_no_bounding_boxes"] = bool(use_image_if_no_bounding_boxes)
    return attrs


def sample_distorted_bounding_box(
    image_size,
    bounding_boxes,
    seed=None,
    seed2=None,
    min_object_covered=0.1,
    aspect_ratio_range=None,
    area_range=None,
    max_attempts=None,
    use_image_if_no_bounding_boxes=None,
    name=None,
):
    """A random crop `(begin, size, bboxes)` of an image of `image_size` = [height, width, channels] that
    covers at least `min_object_covered` of one of `bounding_boxes` ([batch, N, 4] of [y_min, x_min, y_max,
    x_max] in [0, 1]), with aspect ratio in `aspect_ratio_range` (default [0.75, 1.33]) and area (relative to
    the image) in `area_range` (default [0.05, 1]); `max_attempts` (default 100) tries, then the whole image.
    `begin` and `size` feed `tw.slice`; `bboxes` ([1, 1, 4]) feeds `draw_bounding_boxes`.

    As TF1's: `seed` and `seed2` are the op's attrs as given (the graph seed does not enter); with neither,
    every run differs. The op is SampleDistortedBoundingBoxV2 (min_object_covered a tensor).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     begin, size, _ = tw.image.sample_distorted_bounding_box([10, 10, 3], [[[0.0, 0.0, 1.0, 1.0]]], seed=7)
      ...     print(sess.run(size)[2])
      -1
    """
    with ops.name_scope(name, "sample_distorted_bounding_box"):
        return gen_ops.sample_distorted_bounding_box_v2(
            image_size,
            bounding_boxes,
            ops.convert_to_tensor(min_object_covered, dtypes.float32, name="min_object_covered"),
            seed=int(seed or 0),
            seed2=int(seed2 or 0),
            name=name,
            **_sample_attrs(aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes),
        )


def stateless_sample_distorted_bounding_box(
    image_size,
    bounding_boxes,
    seed,
    min_object_covered=0.1,
    aspect_ratio_range=None,
    area_range=None,
    max_attempts=None,
    use_image_if_no_bounding_boxes=None,
    name=None,
):
    """sample_distorted_bounding_box whose crop is a function of `seed` (a [2] int32/int64 tensor): the same
    seed gives the same crop in every run (StatelessSampleDistortedBoundingBox)."""
    with ops.name_scope(name, "stateless_sample_distorted_bounding_box"):
        return gen_ops.stateless_sample_distorted_bounding_box(
            image_size,
            bounding_boxes,
            ops.convert_to_tensor(min_object_covered, dtypes.float32, name="min_object_covered"),
            seed,
            name=name,
            **_sample_attrs(aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes),
        )


def combined_non_max_suppression(
    boxes,
    scores,
    max_output_size_per_class,
    max_total_size,
    iou_threshold=0.5,
    score_threshold=float("-inf"),
    pad_per_class=False,
    clip_boxes=True,
    name=None,
):
    """Greedy non-max suppression per image and per class, the survivors of all classes merged by score
    (CombinedNonMaxSuppression). `boxes`: [batch, num_boxes, q, 4] (q = 1: one box for all classes, or
    num_classes); `scores`: [batch, num_boxes, num_classes]. Returns (nmsed_boxes [batch, max_detections, 4],
    nmsed_scores, nmsed_classes [batch, max_detections], valid_detections [batch]), zero-padded;
    max_detections is max_total_size, or with `pad_per_class` min(max_total_size, max_output_size_per_class *
    num_classes). `clip_boxes` clips the output boxes to [0, 1].

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> boxes = np.array([[[[0, 0, 1, 1]], [[0, 0, 0.9, 1]], [[0, 2, 1, 3]]]], np.float32)
      >>> scores = np.array([[[0.9], [0.8], [0.7]]], np.float32)
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     out = sess.run(tw.image.combined_non_max_suppression(boxes, scores, 5, 5, clip_boxes=False))
      ...     print(out.nmsed_scores[0].tolist(), out.valid_detections.tolist())
      [0.8999999761581421, 0.699999988079071, 0.0, 0.0, 0.0] [2]
    """
    with ops.name_scope(name, "combined_non_max_suppression"):
        iou_threshold = ops.convert_to_tensor(iou_threshold, dtype=dtypes.float32, name="iou_threshold")
        score_threshold = ops.convert_to_tensor(score_threshold, dtype=dtypes.float32, name="score_threshold")
        max_total_size = ops.convert_to_tensor(max_total_size)
        return gen_ops.combined_non_max_suppression(
            boxes,
            scores,
            max_output_size_per_class,
            max_total_size,
            iou_threshold,
            score_threshold,
            pad_per_class=pad_per_class,
            clip_boxes=clip_boxes,
        )


def non_max_suppression_padded(
    boxes,
    scores,
    max_output_size,
    iou_threshold=0.5,
    score_threshold=float("-inf"),
    pad_to_max_output_size=False,
    name=None,
    sorted_input=False,
    canonicalized_coordinates=False,
    tile_size=512,
):
    """Hard non-max suppression of one image ([num_boxes, 4] boxes) or a batch ([..., num_boxes, 4]) by
    TensorFlow's tiled algorithm. Returns (selected indices, number valid): with `pad_to_max_output_size`,
    indices [..., max_output_size] padded with 0 and num_valid [...] (the batch dimensions);
    without it (one image only), the valid indices. Boxes overlapping a selected one with IoU >=
    `iou_threshold` are suppressed; boxes whose score is not above `score_threshold` are dropped.
    `sorted_input` says scores are already in descending order; `canonicalized_coordinates` that boxes are
    [y_min, x_min, y_max, x_max] (otherwise the corner order of the first box decides, as in TF).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> boxes = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]], np.float32)
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     idx, n = tw.image.non_max_suppression_padded(boxes, [0.9, 0.8, 0.7], 3)
      ...     print(sess.run(idx).tolist())
      [0, 2]
    """
    with ops.name_scope(name, "non_max_suppression_padded"):
        boxes = ops.convert_to_tensor(boxes, name="boxes")
        scores = ops.convert_to_tensor(scores, name="scores")
        if not pad_to_max_output_size and boxes.shape.rank is not None and boxes.shape.rank > 2:
            raise ValueError(
                f"'pad_to_max_output_size' (value {pad_to_max_output_size}) must be True for batched input"
            )
        max_output_size = ops.convert_to_tensor(max_output_size, dtypes.int32, name="max_output_size")
        filter_scores = True
        if not isinstance(score_threshold, ops.Tensor) and float(score_threshold) == float("-inf"):
            filter_scores = False
        iou_t = ops.convert_to_tensor(iou_threshold, dtypes.float32, name="iou_threshold")
        score_t = ops.convert_to_tensor(score_threshold, dtypes.float32, name="score_threshold")
        shape = array_ops.shape(boxes)
        num_boxes = shape[-2]
        batch = math_ops.reduce_prod(shape[:-2])  # explicit, so that no boxes at all still reshape
        flat_boxes = math_ops.cast(array_ops.reshape(boxes, array_ops.stack([batch, num_boxes, 4])), dtypes.float32)
        flat_scores = math_ops.cast(array_ops.reshape(scores, array_ops.stack([batch, num_boxes])), dtypes.float32)
        idx, num_valid = gen_ops.non_max_suppression_padded_tiled(
            flat_boxes,
            flat_scores,
            max_output_size,
            iou_t,
            score_t,
            sorted_input=bool(sorted_input),
            canonicalized_coordinates=bool(canonicalized_coordinates),
            tile_size=int(tile_size),
            filter_scores=filter_scores,
        )
        count = array_ops.reshape(num_valid, [-1])[:1]
        num_valid = array_ops.reshape(num_valid, shape[:-2])  # the batch dimensions ([] for one image)
        if not pad_to_max_output_size:
            idx = array_ops.slice(idx[0], [0], count)
        else:
            batch_dims = array_ops.concat([shape[:-2], array_ops.expand_dims(max_output_size, 0)], 0)
            idx = array_ops.reshape(idx, batch_dims)
        return idx, num_valid


def extract_glimpse(input, size, offsets, centered=True, normalized=True, uniform_noise=True, name=None):
    """Windows of `size` = [height, width] from a batch of images [batch, h, w, c] at `offsets` [batch, 2]
    of (y, x): from the image centre (`centered`, in [-1, 1] when `normalized`) or the top-left corner
    (in [0, 1] when `normalized`, else pixels). Pixels outside the image are uniform noise over the image's
    value range (`uniform_noise`), else Gaussian noise of the image's mean and stddev (ExtractGlimpse; the
    noise values are tensorweave's own).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.extract_glimpse(x, [2, 2], [[0.0, 0.0]]))[0, :, :, 0].tolist())
      [[5.0, 6.0], [9.0, 10.0]]
    """
    return gen_ops.extract_glimpse(
        input,
        size,
        offsets,
        centered=centered,
        normalized=normalized,
        uniform_noise=uniform_noise,
        name=name,
    )


def extract_volume_patches(input, ksizes, strides, padding, name=None):
    """Each `ksizes` = [1, planes, rows, cols, 1] window of an NDHWC volume, moved by `strides`, flattened
    into the depth dimension (ExtractVolumePatches; outside the volume is zero with "SAME").

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> x = np.arange(8.0).reshape(1, 2, 2, 2, 1)
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.extract_volume_patches(x, [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID")).ravel())
      [0. 1. 2. 3. 4. 5. 6. 7.]
    """
    return gen_ops.extract_volume_patches(input, list(ksizes), list(strides), padding, name=name)


@gradients_impl.RegisterGradient("ExtractVolumePatches")
def _extract_volume_patches_grad(op, grad):
    # As ExtractImagePatches' gradient: the patches of a volume of 1-based element numbers say which input
    # element each patch element read (0: padding); the gradient sums grad into those elements.
    volume = op.inputs[0]
    volume_shape = array_ops.shape(volume, out_type=dtypes.int64)
    count = math_ops.reduce_prod(volume_shape)
    one = ops.convert_to_tensor(1, dtype=dtypes.int64)
    numbers = array_ops.reshape(array_ops.range(one, count + 1, one), volume_shape)
    source = gen_ops.extract_volume_patches(
        numbers, op.get_attr("ksizes"), op.get_attr("strides"), op.get_attr("padding")
    )
    ids = array_ops.reshape(source, [-1]) - 1  # padding becomes -1: dropped
    summed = array_ops.unsorted_segment_sum(array_ops.reshape(grad, [-1]), ids, count)
    return [array_ops.reshape(summed, array_ops.shape(volume))]


def generate_bounding_box_proposals(
    scores,
    bbox_deltas,
    image_info,
    anchors,
    nms_threshold=0.7,
    pre_nms_topn=6000,
    min_size=16,
    post_nms_topn=300,
    name=None,
):
    """Region proposals of a Faster R-CNN region proposal network (GenerateBoundingBoxProposals): per image,
    the `pre_nms_topn` highest `scores` [N, H, W, A] have their anchors moved by `bbox_deltas` [N, H, W, 4A]
    ([dy, dx, dh, dw] per anchor: centre moved by (dy, dx) of the anchor's size, size scaled by (exp(dh),
    exp(dw)), dh and dw clipped at log(1000 / 16)) and clipped to the image (`image_info` [N, 5]: height, width,
    scale, then two values not read); boxes with a side below `min_size` * scale are dropped, the rest go
    through greedy non-max suppression (IoU > `nms_threshold`). Returns (rois [N, post_nms_topn, 4] of
    [y1, x1, y2, x2], roi_probabilities [N, post_nms_topn]), sorted by score, zero-padded.

    `anchors` is [H, W, 4A]: the A anchor boxes [y1, x1, y2, x2] of each position, in image coordinates, as
    TensorFlow's kernel reads it (its docstring's [A, 4] is not what the op accepts). TensorFlow has this op on
    the GPU only; this CPU kernel follows the GPU kernel's steps. Not differentiable.

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> scores = np.array([[[[0.9, 0.8]]]], np.float32)  # N = H = W = 1, A = 2
      >>> anchors = np.array([[[0, 0, 20, 20, 0, 0, 20, 21]]], np.float32)
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     rois, probs = sess.run(tw.image.generate_bounding_box_proposals(
      ...         scores, np.zeros([1, 1, 1, 8], np.float32), [[40, 40, 1, 0, 0]], anchors, post_nms_topn=2))
      ...     print(rois[0].tolist(), probs[0].tolist())
      [[0.0, 0.0, 20.0, 20.0], [0.0, 0.0, 0.0, 0.0]] [0.8999999761581421, 0.0]
    """
    return gen_ops.generate_bounding_box_proposals(
        scores,
        bbox_deltas,
        image_info,
        anchors,
        nms_threshold,
        pre_nms_topn,
        min_size,
        post_nms_topn=post_nms_topn,
        name=name,
    )

"""Data-dependent output shapes on the lite runtime: ONNX NonZero
(NON_ZERO) and NonMaxSuppression (NON_MAX_SUPPRESSION) make dynamic
tensors, sized when the model runs, and what reads them (a detector's
tail: Gather of the selected indices, GatherND of the scores, Cast, ...)
is prepared at run time. Each model is converted and run on the lite
runtime and must agree with onnxruntime exactly (indices and gathered
values), run after run as the number of selected boxes changes."""

import numpy as np
import pytest
from onnx import helper

from converters import lite_runner, onnx_import
from converters.errors import ConversionError
from tests.onnx_lite_util import lite_op_counts, make_model

ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")


def _session(model):
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def _agree(model, feeds_list, threads=(1, 2)):
    """Every feed of `feeds_list` through one lite interpreter per thread
    count (reused across feeds, so dynamic buffers grow and shrink) against
    onnxruntime: same dtypes, shapes and values. Returns the .twl bytes."""
    session = _session(model)
    data = onnx_import.convert(model)
    runners = [lite_runner.LiteRunner(data, num_threads=n) for n in threads]
    for feeds in feeds_list:
        want = session.run(None, feeds)
        for runner in runners:
            got = runner.run(feeds)
            for out, w in zip(model.graph.output, want):
                have = got[out.name]
                assert have.dtype == w.dtype and have.shape == w.shape, (out.name, have.dtype, have.shape, w.shape)
                np.testing.assert_array_equal(have, w, err_msg=out.name)
    return data


def _sparse(rng, shape, dtype, density):
    x = rng.standard_normal(shape).astype(dtype) if dtype == np.float32 else rng.integers(-3, 4, shape).astype(dtype)
    return np.where(rng.random(shape) < density, x, 0).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.uint8])
def test_non_zero(dtype):
    rng = np.random.default_rng(1)
    model = make_model(
        [helper.make_node("NonZero", ["x"], ["y"])], [("x", dtype, [3, 4, 5])], [("y", np.int64, [3, None])]
    )
    feeds = [{"x": _sparse(rng, (3, 4, 5), dtype, d)} for d in (0.3, 0.0, 1.0, 0.05)]
    data = _agree(model, feeds)
    assert lite_op_counts(data) == {"NON_ZERO": 1}


def test_non_zero_of_bool_and_the_boolean_mask_pattern():
    # x[x > 0.5] as exporters write it: NonZero of a mask, Transpose, GatherND.
    rng = np.random.default_rng(2)
    nodes = [
        helper.make_node("Greater", ["x", "t"], ["mask"]),
        helper.make_node("NonZero", ["mask"], ["nz"]),
        helper.make_node("Transpose", ["nz"], ["idx"], perm=[1, 0]),
        helper.make_node("GatherND", ["x", "idx"], ["vals"]),
    ]
    model = make_model(
        nodes,
        [("x", np.float32, [4, 6])],
        [("idx", np.int64, [None, 2]), ("vals", np.float32, [None])],
        [("t", np.array(0.5, np.float32))],
    )
    feeds = [{"x": rng.random((4, 6)).astype(np.float32)} for _ in range(3)]
    feeds.append({"x": np.zeros((4, 6), np.float32)})
    _agree(model, feeds)


def _random_boxes(rng, batches, n, center):
    xy = rng.random((batches, n, 2)).astype(np.float32) * 10
    wh = (rng.random((batches, n, 2)) * 4 + 0.5).astype(np.float32)
    if center:
        return np.concatenate([xy, wh], axis=2)
    # [y1, x1, y2, x2], some with the corners the other way round.
    boxes = np.concatenate([xy, xy + wh], axis=2)
    flip = rng.random((batches, n)) < 0.3
    boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
    return boxes


@pytest.mark.parametrize("center_point_box", [0, 1])
def test_non_max_suppression_batches_and_classes(center_point_box):
    rng = np.random.default_rng(3 + center_point_box)
    b, c, n = 2, 3, 40
    nodes = [
        helper.make_node(
            "NonMaxSuppression", ["boxes", "scores", "max", "iou", "score"], ["sel"], center_point_box=center_point_box
        )
    ]
    model = make_model(
        nodes,
        [("boxes", np.float32, [b, n, 4]), ("scores", np.float32, [b, c, n])],
        [("sel", np.int64, [None, 3])],
        [
            ("max", np.array([5], np.int64)),
            ("iou", np.array([0.4], np.float32)),
            ("score", np.array([0.3], np.float32)),
        ],
    )
    feeds = []
    for _ in range(4):
        scores = rng.random((b, c, n)).astype(np.float32)
        scores[0, 1, :10] = 0.5  # ties: lower box index first
        feeds.append({"boxes": _random_boxes(rng, b, n, center_point_box), "scores": scores})
    feeds.append({"boxes": feeds[0]["boxes"], "scores": np.zeros((b, c, n), np.float32)})  # none pass
    data = _agree(model, feeds)
    assert lite_op_counts(data) == {"NON_MAX_SUPPRESSION": 1}


def test_non_max_suppression_computed_and_absent_thresholds():
    # max_output_boxes_per_class and iou_threshold fed at run time, no
    # score_threshold; then only boxes and scores (onnx: no output).
    rng = np.random.default_rng(5)
    n = 30
    model = make_model(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores", "max", "iou"], ["sel"])],
        [
            ("boxes", np.float32, [1, n, 4]),
            ("scores", np.float32, [1, 2, n]),
            ("max", np.int64, [1]),
            ("iou", np.float32, [1]),
        ],
        [("sel", np.int64, [None, 3])],
    )
    boxes = _random_boxes(rng, 1, n, False)
    scores = rng.random((1, 2, n)).astype(np.float32)
    feeds = [
        {"boxes": boxes, "scores": scores, "max": np.array([m], np.int64), "iou": np.array([t], np.float32)}
        for m, t in ((3, 0.5), (100, 0.5), (100, 0.0), (0, 0.5), (7, 1.0))
    ]
    _agree(model, feeds)
    bare = make_model(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores"], ["sel"])],
        [("boxes", np.float32, [1, n, 4]), ("scores", np.float32, [1, 2, n])],
        [("sel", np.int64, [None, 3])],
    )
    _agree(bare, [{"boxes": boxes, "scores": scores}])


def test_ssd_like_tail_gathers_the_selected_boxes_classes_and_scores():
    # scores -> NMS -> the box, class and score of each selection.
    rng = np.random.default_rng(6)
    n, c = 50, 4
    nodes = [
        helper.make_node("Transpose", ["class_scores"], ["scores"], perm=[0, 2, 1]),
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "max", "iou", "thr"], ["sel"]),
        helper.make_node("Gather", ["sel", "two"], ["box_idx"], axis=1),
        helper.make_node("Gather", ["sel", "one"], ["cls64"], axis=1),
        helper.make_node("Cast", ["cls64"], ["classes"], to=6),  # int32
        helper.make_node("Squeeze", ["boxes", "zero"], ["boxes2d"]),
        helper.make_node("Gather", ["boxes2d", "box_idx"], ["picked"], axis=0),
        helper.make_node("GatherND", ["scores", "sel"], ["picked_scores"]),
        helper.make_node("Mul", ["picked", "scale"], ["pixels"]),
    ]
    model = make_model(
        nodes,
        [("boxes", np.float32, [1, n, 4]), ("class_scores", np.float32, [1, n, c])],
        [("pixels", np.float32, [None, 4]), ("classes", np.int32, [None]), ("picked_scores", np.float32, [None])],
        [
            ("max", np.array([4], np.int64)),
            ("iou", np.array([0.45], np.float32)),
            ("thr", np.array([0.6], np.float32)),
            ("two", np.array(2, np.int64)),
            ("one", np.array(1, np.int64)),
            ("zero", np.array([0], np.int64)),
            ("scale", np.array([300, 300, 300, 300], np.float32)),
        ],
    )
    feeds = [
        {"boxes": _random_boxes(rng, 1, n, False) / 10, "class_scores": rng.random((1, n, c)).astype(np.float32) ** p}
        for p in (1.0, 0.2, 8.0, 1.0)
    ]
    data = _agree(model, feeds)
    ops = lite_op_counts(data)
    assert ops["NON_MAX_SUPPRESSION"] == 1 and ops["GATHER"] == 3


def test_bad_center_point_box_is_a_conversion_error():
    model = make_model(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores"], ["sel"], name="nms", center_point_box=2)],
        [("boxes", np.float32, [1, 3, 4]), ("scores", np.float32, [1, 1, 3])],
        [("sel", np.int64, [None, 3])],
    )
    with pytest.raises(ConversionError, match=r"'nms' \(NonMaxSuppression\).*center_point_box must be 0 or 1, got 2"):
        onnx_import.convert(model)


def test_iou_threshold_out_of_range_fails_the_run():
    model = make_model(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores", "max", "iou"], ["sel"])],
        [("boxes", np.float32, [1, 3, 4]), ("scores", np.float32, [1, 1, 3]), ("iou", np.float32, [1])],
        [("sel", np.int64, [None, 3])],
        [("max", np.array([2], np.int64))],
    )
    runner = lite_runner.LiteRunner(onnx_import.convert(model))
    feeds = {"boxes": np.zeros((1, 3, 4), np.float32), "scores": np.ones((1, 1, 3), np.float32)}
    with pytest.raises(
        lite_runner.LiteError, match=r"NON_MAX_SUPPRESSION\): iou_threshold must be in \[0, 1\], got 1.5"
    ):
        runner.run({**feeds, "iou": np.array([1.5], np.float32)})
    # onnxruntime refuses it too.
    with pytest.raises(Exception, match="iou_threshold must be in range"):
        _session(model).run(None, {**feeds, "iou": np.array([1.5], np.float32)})
    # Boxes of no area never suppress: both of the 2 allowed are selected.
    assert runner.run({**feeds, "iou": np.array([0.5], np.float32)})["sel"].tolist() == [[0, 0, 0], [0, 0, 1]]


def test_slicing_or_negative_indexing_a_run_time_axis_is_a_conversion_error():
    # The .twl shape holds 1 for the count of selected boxes: a bound or a
    # negative index on that axis would be resolved against it, so both are
    # refused, naming the node; whole slices and other axes convert.
    def nms_then(node, extra=()):
        return make_model(
            [helper.make_node("NonMaxSuppression", ["boxes", "scores", "max"], ["sel"]), node],
            [("boxes", np.float32, [1, 4, 4]), ("scores", np.float32, [1, 1, 4])],
            [("y", np.int64, None)],
            [("max", np.array([2], np.int64)), *extra],
        )

    consts = [("s", np.array([1], np.int64)), ("e", np.array([3], np.int64)), ("a", np.array([0], np.int64))]
    with pytest.raises(ConversionError, match=r"'first' \(Slice\).*slicing axis 0 of 'sel', whose size is known only"):
        onnx_import.convert(nms_then(helper.make_node("Slice", ["sel", "s", "e", "a"], ["y"], name="first"), consts))
    last = [("i", np.array(-1, np.int64))]
    with pytest.raises(ConversionError, match=r"'last' \(Gather\).*negative indices on axis 0 of 'sel'"):
        onnx_import.convert(nms_then(helper.make_node("Gather", ["sel", "i"], ["y"], name="last"), last))
    whole = [
        ("s", np.array([0, 2], np.int64)),
        ("e", np.array([2**63 - 1, 3], np.int64)),
        ("a", np.array([0, 1], np.int64)),
    ]
    model = nms_then(helper.make_node("Slice", ["sel", "s", "e", "a"], ["y"]), whole)
    rng = np.random.default_rng(7)
    feeds = {"boxes": _random_boxes(rng, 1, 4, False), "scores": rng.random((1, 1, 4)).astype(np.float32)}
    _agree(model, [feeds])

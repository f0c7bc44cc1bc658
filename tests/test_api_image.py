"""tw.image against independent oracles (TensorFlow comparisons are the fidelity cases in
tests/fidelity/cases_image.py): numpy definitions of the resizes, Python's colorsys for the HSV conversions,
the adjoint identity for the resize gradients, a greedy reference for non-max suppression."""

import colorsys

import numpy as np
import pytest

import tensorweave as tw

RNG = np.random.default_rng(16)


def run(t, feed=None):
    with tw.Session() as sess:
        return sess.run(t, feed)


@pytest.fixture(autouse=True)
def fresh_graph():
    with tw.Graph().as_default():
        yield


def _bilinear_reference(x, out_h, out_w):
    """Half-pixel-centre bilinear resizing, by its definition (clamped at the edges)."""
    n, h, w, c = x.shape

    def taps(out, size):
        pos = (np.arange(out) + 0.5) * size / out - 0.5
        lo = np.floor(pos)
        frac = pos - lo
        return np.clip(lo, 0, size - 1).astype(int), np.clip(lo + 1, 0, size - 1).astype(int), frac

    y0, y1, fy = taps(out_h, h)
    x0, x1, fx = taps(out_w, w)
    top = x[:, y0][:, :, x0] * (1 - fx)[None, None, :, None] + x[:, y0][:, :, x1] * fx[None, None, :, None]
    bottom = x[:, y1][:, :, x0] * (1 - fx)[None, None, :, None] + x[:, y1][:, :, x1] * fx[None, None, :, None]
    return top * (1 - fy)[None, :, None, None] + bottom * fy[None, :, None, None]


@pytest.mark.parametrize("size", [[7, 9], [2, 3], [4, 4]])
def test_resize_bilinear_half_pixel_matches_its_definition(size):
    x = RNG.uniform(size=[2, 4, 5, 3]).astype(np.float32)
    y = tw.image.resize_bilinear(x, size, half_pixel_centers=True)
    assert y.op.type == "ResizeBilinear" and y.shape.as_list() == [2, *size, 3]
    np.testing.assert_allclose(run(y), _bilinear_reference(x.astype(np.float64), *size), atol=1e-6)


def test_resize_nearest_and_area_match_numpy_on_integer_factors():
    x = RNG.uniform(size=[1, 4, 6, 2]).astype(np.float32)
    up = run(tw.image.resize_nearest_neighbor(x, [8, 12]))
    np.testing.assert_array_equal(up, x.repeat(2, axis=1).repeat(2, axis=2))
    area = tw.image.resize_area(x, [2, 3])
    assert area.op.type == "ResizeArea"
    np.testing.assert_allclose(run(area), x.reshape(1, 2, 2, 3, 2, 2).mean(axis=(2, 4)), rtol=1e-6)


@pytest.mark.parametrize("half_pixel", [False, True])
def test_resize_bicubic_keeps_a_constant_and_a_ramp(half_pixel):
    # Keys' cubic weights sum to one and reproduce linear functions away from the edges.
    const = np.full([1, 5, 6, 1], 3.0, np.float32)
    y = tw.image.resize_bicubic(const, [9, 11], half_pixel_centers=half_pixel)
    assert y.op.type == "ResizeBicubic"
    np.testing.assert_allclose(run(y), 3.0, rtol=1e-5)
    ramp = np.tile(np.arange(8, dtype=np.float32), [1, 1, 1, 1]).reshape(1, 1, 8, 1)
    got = run(tw.image.resize_bicubic(ramp, [1, 16], half_pixel_centers=True))[0, 0, 3:12, 0]
    want = (np.arange(16)[3:12] + 0.5) / 2 - 0.5
    np.testing.assert_allclose(got, want, atol=2e-3)  # the weights are TF's 1024-step table


@pytest.mark.parametrize(
    "resize, grad_type",
    [
        (lambda x: tw.image.resize_bilinear(x, [7, 3], half_pixel_centers=True), "ResizeBilinearGrad"),
        (lambda x: tw.image.resize_bilinear(x, [2, 9], align_corners=True), "ResizeBilinearGrad"),
        (lambda x: tw.image.resize_nearest_neighbor(x, [7, 3]), "ResizeNearestNeighborGrad"),
        (lambda x: tw.image.resize_nearest_neighbor(x, [2, 9], half_pixel_centers=True), "ResizeNearestNeighborGrad"),
    ],
)
def test_resize_gradients_are_the_adjoint(resize, grad_type):
    # For a linear map R: <R x, v> = <x, R^T v>; R^T v is the gradient of <R x, v> with respect to x.
    x_value = RNG.normal(size=[2, 4, 5, 3]).astype(np.float32)
    x = tw.placeholder(tw.float32, [2, 4, 5, 3])
    y = resize(x)
    v = RNG.normal(size=y.shape.as_list()).astype(np.float32)
    (g,) = tw.gradients(tw.reduce_sum(y * v), [x])
    assert g.op.type == grad_type
    y_value, g_value = run([y, g], {x: x_value})
    np.testing.assert_allclose(np.sum(y_value * v), np.sum(x_value * g_value), rtol=1e-4)


def test_hsv_conversions_match_colorsys():
    rgb = RNG.uniform(size=[50, 3]).astype(np.float32)
    rgb[:3] = [[0.2, 0.2, 0.2], [1, 0, 0], [0, 0, 0]]
    hsv = tw.image.rgb_to_hsv(rgb)
    assert hsv.op.type == "RGBToHSV"
    got = run(hsv)
    want = np.array([colorsys.rgb_to_hsv(*p) for p in rgb.astype(np.float64)])
    np.testing.assert_allclose(got, want, atol=1e-6)
    back = tw.image.hsv_to_rgb(want.astype(np.float32))
    assert back.op.type == "HSVToRGB"
    np.testing.assert_allclose(run(back), rgb, atol=1e-6)


def test_hue_saturation_contrast_match_their_definitions():
    img = RNG.uniform(size=[3, 4, 3]).astype(np.float32)
    flat = img.reshape(-1, 3).astype(np.float64)
    hsv = np.array([colorsys.rgb_to_hsv(*p) for p in flat])
    hue = tw.image.adjust_hue(img, 0.3)
    assert hue.op.inputs[0].op.type == "AdjustHue"  # (convert_image_dtype to float32 is an Identity)
    want = np.array([colorsys.hsv_to_rgb((h + 0.3) % 1.0, s, v) for h, s, v in hsv]).reshape(img.shape)
    np.testing.assert_allclose(run(hue), want, atol=1e-5)
    sat = tw.image.adjust_saturation(img, 1.7)
    assert sat.op.inputs[0].op.type == "AdjustSaturation"  # (convert_image_dtype to float32 is an Identity)
    want = np.array([colorsys.hsv_to_rgb(h, min(1.0, s * 1.7), v) for h, s, v in hsv]).reshape(img.shape)
    np.testing.assert_allclose(run(sat), want, atol=1e-5)
    con = tw.image.adjust_contrast(img, 0.3)
    assert con.op.inputs[0].op.type == "AdjustContrastv2"  # (convert_image_dtype to float32 is an Identity)
    mean = img.mean(axis=(0, 1), keepdims=True)
    np.testing.assert_allclose(run(con), (img - mean) * 0.3 + mean, atol=1e-6)


def _iou(a, b):
    ya0, ya1 = sorted([a[0], a[2]])
    xa0, xa1 = sorted([a[1], a[3]])
    yb0, yb1 = sorted([b[0], b[2]])
    xb0, xb1 = sorted([b[1], b[3]])
    inter = max(0, min(ya1, yb1) - max(ya0, yb0)) * max(0, min(xa1, xb1) - max(xa0, xb0))
    union = (ya1 - ya0) * (xa1 - xa0) + (yb1 - yb0) * (xb1 - xb0) - inter
    return inter / union if union > 0 else 0.0


def test_non_max_suppression_matches_greedy_reference():
    corners = RNG.uniform(0, 10, size=[40, 2])
    boxes = np.concatenate([corners, corners + RNG.uniform(1, 4, size=[40, 2])], 1).astype(np.float32)
    scores = RNG.uniform(size=[40]).astype(np.float32)
    selected = []
    for i in np.argsort(-scores, kind="stable"):
        if scores[i] > 0.2 and all(_iou(boxes[i], boxes[j]) <= 0.4 for j in selected) and len(selected) < 12:
            selected.append(i)
    y = tw.image.non_max_suppression(boxes, scores, 12, iou_threshold=0.4, score_threshold=0.2)
    assert y.op.type == "NonMaxSuppressionV3"
    np.testing.assert_array_equal(run(y), selected)
    with pytest.raises(tw.errors.InvalidArgumentError, match="iou_threshold"):
        run(tw.image.non_max_suppression(boxes, scores, 3, iou_threshold=tw.constant(-0.5)))


def test_crop_and_resize_of_the_whole_image_is_the_image():
    x = RNG.uniform(size=[2, 5, 4, 3]).astype(np.float32)
    y = tw.image.crop_and_resize(x, [[0, 0, 1, 1], [0, 0, 1, 1]], [1, 0], [5, 4])
    assert y.op.type == "CropAndResize"
    np.testing.assert_allclose(run(y), x[::-1], atol=1e-6)
    box_ind = tw.placeholder(tw.int32, [1])
    with pytest.raises(tw.errors.OutOfRangeError, match="box_index"):
        run(tw.image.crop_and_resize(x, [[0, 0, 1, 1]], box_ind, [2, 2]), {box_ind: [-1]})


def test_crops_pads_flips_match_numpy():
    x = RNG.integers(0, 255, size=[6, 8, 3]).astype(np.uint8)
    np.testing.assert_array_equal(run(tw.image.crop_to_bounding_box(x, 1, 2, 3, 4)), x[1:4, 2:6])
    padded = np.zeros([9, 12, 3], np.uint8)
    padded[2:8, 1:9] = x
    np.testing.assert_array_equal(run(tw.image.pad_to_bounding_box(x, 2, 1, 9, 12)), padded)
    np.testing.assert_array_equal(run(tw.image.flip_left_right(x)), x[:, ::-1])
    np.testing.assert_array_equal(run(tw.image.flip_up_down(x)), x[::-1])
    for k in range(4):
        np.testing.assert_array_equal(run(tw.image.rot90(x, k)), np.rot90(x, k))
    np.testing.assert_array_equal(run(tw.image.transpose_image(x)), x.transpose(1, 0, 2))
    std = run(tw.image.per_image_standardization(x))
    np.testing.assert_allclose(std, (x - x.mean()) / x.std(), rtol=1e-4, atol=1e-5)


def test_crop_and_resize_gradients_match_finite_differences():
    image_value = RNG.uniform(size=[2, 4, 5, 2]).astype(np.float32)
    boxes_value = np.array([[0.11, 0.13, 0.82, 0.77], [0.21, 0.06, 0.64, 0.93]], np.float32)
    image = tw.placeholder(tw.float32, image_value.shape)
    boxes = tw.placeholder(tw.float32, [2, 4])
    crops = tw.image.crop_and_resize(image, boxes, [0, 1], [3, 4])
    v = RNG.normal(size=[2, 3, 4, 2]).astype(np.float32)
    loss = tw.reduce_sum(crops * v)
    g_image, g_boxes = tw.gradients(loss, [image, boxes])
    assert g_image.op.type == "CropAndResizeGradImage" and g_boxes.op.type == "CropAndResizeGradBoxes"
    with tw.Session() as sess:
        feed = {image: image_value, boxes: boxes_value}
        got_boxes = sess.run(g_boxes, feed)
        eps = 1e-3  # the sampling stays between the same pixels within eps of these boxes
        for b in range(2):
            for k in range(4):
                up, down = boxes_value.copy(), boxes_value.copy()
                up[b, k] += eps
                down[b, k] -= eps
                numeric = (
                    sess.run(loss, {image: image_value, boxes: up}) - sess.run(loss, {image: image_value, boxes: down})
                ) / (2 * eps)
                np.testing.assert_allclose(got_boxes[b, k], numeric, rtol=2e-2, atol=2e-3)


def test_resize_bicubic_gradient_is_the_adjoint():
    x_value = RNG.normal(size=[1, 4, 5, 2]).astype(np.float32)
    x = tw.placeholder(tw.float32, x_value.shape)
    y = tw.image.resize_bicubic(x, [7, 3], half_pixel_centers=True)
    v = RNG.normal(size=[1, 7, 3, 2]).astype(np.float32)
    (g,) = tw.gradients(tw.reduce_sum(y * v), [x])
    assert g.op.type == "ResizeBicubicGrad"
    y_value, g_value = run([y, g], {x: x_value})
    np.testing.assert_allclose(np.sum(y_value * v), np.sum(x_value * g_value), rtol=1e-4)

// NON_MAX_SUPPRESSION (ONNX NonMaxSuppression), as onnxruntime computes it:
// per batch and class, the boxes whose score passes score_threshold (if
// given; strictly greater), by score descending (lower index first on
// ties), each selected unless its IoU with a box already selected in the
// class exceeds iou_threshold, until max_output_boxes_per_class are. IoU
// is onnxruntime's float arithmetic, so borderline decisions agree. The
// output [selected, 3] is a dynamic tensor sized here, in eval.
#include <algorithm>
#include <cmath>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

struct Corners {
  float x_min, x_max, y_min, y_max;
};

Corners ToCorners(const float* box, bool center_point_box) {
  if (center_point_box) {  // [x_center, y_center, width, height]
    const float half_w = box[2] / 2, half_h = box[3] / 2;
    return {box[0] - half_w, box[0] + half_w, box[1] - half_h, box[1] + half_h};
  }
  // [y1, x1, y2, x2]: any two opposite corners.
  return {std::min(box[1], box[3]), box[1] >= box[3] ? box[1] : box[3],
          std::min(box[0], box[2]), box[0] >= box[2] ? box[0] : box[2]};
}

bool SuppressByIou(const Corners& a, const Corners& b, float iou_threshold) {
  const float ix_min = std::max(a.x_min, b.x_min);
  const float ix_max = std::min(a.x_max, b.x_max);
  if (ix_max <= ix_min) return false;
  const float iy_min = std::max(a.y_min, b.y_min);
  const float iy_max = std::min(a.y_max, b.y_max);
  if (iy_max <= iy_min) return false;
  const float intersection = (ix_max - ix_min) * (iy_max - iy_min);
  if (intersection <= 0.0f) return false;
  const float area_a = (a.x_max - a.x_min) * (a.y_max - a.y_min);
  const float area_b = (b.x_max - b.x_min) * (b.y_max - b.y_min);
  const float union_area = area_a + area_b - intersection;
  if (area_a <= 0.0f || area_b <= 0.0f || union_area <= 0.0f) return false;
  return intersection / union_area > iou_threshold;
}

// One value of an optional scalar input; `present` false when absent.
Status ReadScalar(const Tensor* t, const char* what, double* value,
                  bool* present) {
  *present = t != nullptr;
  if (t == nullptr) return Status::Ok();
  TWL_CHECK_ARG(t->num_elements() == 1, "%s must hold one value, got %lld",
                what, static_cast<long long>(t->num_elements()));
  switch (t->type) {
    case DataType::kFloat32:
      *value = t->data_as<float>()[0];
      break;
    case DataType::kInt64:
      *value = static_cast<double>(t->data_as<int64_t>()[0]);
      break;
    case DataType::kInt32:
      *value = t->data_as<int32_t>()[0];
      break;
    default:
      return Status::Error(StatusCode::kInvalidArgument, "%s has type %s", what,
                           DataTypeName(t->type));
  }
  return Status::Ok();
}

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 5));
  const Tensor* boxes = context->input(*node, 0);
  const Tensor* scores = context->input(*node, 1);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckType(boxes, "boxes", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(scores, "scores", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(output, "output", DataType::kInt64));
  TWL_RETURN_IF_ERROR(CheckRank(boxes, "boxes", 3, 3));
  TWL_RETURN_IF_ERROR(CheckRank(scores, "scores", 3, 3));
  TWL_CHECK_ARG(boxes->shape.dims[2] == 4,
                "boxes must be [batches, boxes, 4], got last dim %d",
                boxes->shape.dims[2]);
  TWL_CHECK_ARG(boxes->shape.dims[0] == scores->shape.dims[0],
                "boxes have %d batches, scores %d", boxes->shape.dims[0],
                scores->shape.dims[0]);
  TWL_CHECK_ARG(boxes->shape.dims[1] == scores->shape.dims[2],
                "boxes have %d boxes per batch, scores %d",
                boxes->shape.dims[1], scores->shape.dims[2]);
  static const DataType kTypes[] = {DataType::kInt64, DataType::kFloat32,
                                    DataType::kFloat32};
  static const char* const kNames[] = {"max_output_boxes_per_class",
                                       "iou_threshold", "score_threshold"};
  for (int i = 2; i < node->num_inputs; ++i) {
    const Tensor* t = context->input(*node, i);
    if (t == nullptr) continue;
    TWL_CHECK_ARG(
        t->type == kTypes[i - 2] || (i == 2 && t->type == DataType::kInt32),
        "%s must be %s, got %s", kNames[i - 2], DataTypeName(kTypes[i - 2]),
        DataTypeName(t->type));
    TWL_CHECK_ARG(t->num_elements() == 1, "%s must hold one value, got %lld",
                  kNames[i - 2], static_cast<long long>(t->num_elements()));
  }
  // Scratch: one class's candidates (box indices) and the corners of the
  // boxes selected in it.
  const size_t n = static_cast<size_t>(boxes->shape.dims[1]);
  int index = 0;
  TWL_RETURN_IF_ERROR(
      context->RequestScratch(node, n * sizeof(int32_t), &index));
  TWL_RETURN_IF_ERROR(
      context->RequestScratch(node, n * sizeof(Corners), &index));
  TWL_RETURN_IF_ERROR(context->MarkDynamic(output));
  return context->ResizeTensor(output, Shape({0, 3}));
}

Status Eval(KernelContext* context, Node* node) {
  const Tensor* boxes = context->input(*node, 0);
  const Tensor* scores = context->input(*node, 1);
  Tensor* output = context->output(*node, 0);
  const bool center_point_box =
      GetOptions<schema::NonMaxSuppressionOptions>(*node)->center_point_box();
  double max_boxes = 0, iou_threshold = 0, score_threshold = 0;
  bool has_max = false, has_iou = false, has_score_threshold = false;
  TWL_RETURN_IF_ERROR(ReadScalar(context->input(*node, 2),
                                 "max_output_boxes_per_class", &max_boxes,
                                 &has_max));
  TWL_RETURN_IF_ERROR(ReadScalar(context->input(*node, 3), "iou_threshold",
                                 &iou_threshold, &has_iou));
  TWL_RETURN_IF_ERROR(ReadScalar(context->input(*node, 4), "score_threshold",
                                 &score_threshold, &has_score_threshold));
  TWL_CHECK_ARG(iou_threshold >= 0 && iou_threshold <= 1,
                "iou_threshold must be in [0, 1], got %g", iou_threshold);
  const int32_t batches = boxes->shape.dims[0];
  const int32_t classes = scores->shape.dims[1];
  const int32_t n = boxes->shape.dims[1];
  // Per class at most min(boxes, max) rows; negative max reads as 0.
  const int64_t per_class = max_boxes <= 0 ? 0 : std::min<double>(max_boxes, n);
  const int64_t bound = int64_t{batches} * classes * per_class;
  TWL_CHECK_ARG(bound <= INT32_MAX, "up to %lld selected boxes is too many",
                static_cast<long long>(bound));
  // Sized for the most rows, written, then shrunk to the rows selected
  // (shrinking keeps the buffer and its contents).
  TWL_RETURN_IF_ERROR(context->ResizeDynamicTensor(
      output, Shape({static_cast<int32_t>(bound), 3})));
  int64_t* out = output->data_as<int64_t>();
  int32_t* order = static_cast<int32_t*>(node->scratch[0]);
  Corners* selected = static_cast<Corners*>(node->scratch[1]);
  const float iou = static_cast<float>(iou_threshold);
  const float threshold = static_cast<float>(score_threshold);
  int64_t rows = 0;
  for (int32_t b = 0; b < batches && per_class > 0; ++b) {
    const float* batch_boxes =
        boxes->data_as<float>() + static_cast<int64_t>(b) * n * 4;
    for (int32_t c = 0; c < classes; ++c) {
      const float* s = scores->data_as<float>() +
                       (static_cast<int64_t>(b) * classes + c) * n;
      int32_t candidates = 0;
      for (int32_t i = 0; i < n; ++i) {
        if (!has_score_threshold || s[i] > threshold) order[candidates++] = i;
      }
      // A max-heap by score, lower index first on ties, NaN below every
      // number (a strict total order even with NaNs), popped one candidate
      // at a time as onnxruntime's priority queue is: no allocation, and
      // only as many pops as the selection needs.
      auto after = [s](int32_t x, int32_t y) {
        const bool x_nan = std::isnan(s[x]), y_nan = std::isnan(s[y]);
        if (x_nan != y_nan) return x_nan;
        if (!x_nan && s[x] != s[y]) return s[x] < s[y];
        return x > y;
      };
      std::make_heap(order, order + candidates, after);
      int64_t num_selected = 0;
      for (int32_t left = candidates; left > 0 && num_selected < per_class;
           --left) {
        std::pop_heap(order, order + left, after);
        const int32_t next = order[left - 1];
        const Corners box =
            ToCorners(batch_boxes + int64_t{next} * 4, center_point_box);
        bool keep = true;
        for (int64_t j = 0; j < num_selected && keep; ++j) {
          keep = !SuppressByIou(box, selected[j], iou);
        }
        if (!keep) continue;
        selected[num_selected++] = box;
        out[rows * 3] = b;
        out[rows * 3 + 1] = c;
        out[rows * 3 + 2] = next;
        ++rows;
      }
    }
  }
  return context->ResizeDynamicTensor(output,
                                      Shape({static_cast<int32_t>(rows), 3}));
}

}  // namespace

KernelRegistration Register_NON_MAX_SUPPRESSION() {
  return {
      BuiltinOperator::NON_MAX_SUPPRESSION, 1, nullptr, nullptr, Prepare, Eval};
}

}  // namespace twl

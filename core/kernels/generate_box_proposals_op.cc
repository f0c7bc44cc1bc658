// GenerateBoundingBoxProposals on the CPU. TensorFlow has only a GPU kernel
// (generate_box_proposals_op.cu.cc); this one follows its steps so that the
// values agree: per image, a stable sort of the scores (descending, in the
// order of a radix sort of the float bits), the first pre_nms_topn boxes
// decoded from their anchors and deltas in float32 and clipped to the image,
// those with a side below min_size * scale dropped, greedy non-max
// suppression (a box is suppressed by an earlier kept one when
// intersection > union * nms_threshold; a box of zero area suppresses and is
// suppressed by nothing), and the first post_nms_topn survivors written,
// zero-padded.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

// Decoded box corners, as the GPU kernel holds them.
struct Box {
  float x1, y1, x2, y2;
  float Area() const { return (x2 - x1) * (y2 - y1); }
};

// The order of a radix sort of float bits: -NaN < -inf < ... < -0 < +0 <
// ... < +inf < +NaN.
uint32_t SortKey(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

bool OverThreshold(const Box& a, const Box& b, float threshold) {
  const float a_area = a.Area(), b_area = b.Area();
  if (a_area == 0.0f || b_area == 0.0f) return false;
  const float w = std::fdim(std::min(a.x2, b.x2), std::max(a.x1, b.x1));
  const float h = std::fdim(std::min(a.y2, b.y2), std::max(a.y1, b.y1));
  const float intersection = w * h;
  return intersection > (a_area + b_area - intersection) * threshold;
}

template <typename T>
Status Scalar(OpKernelContext* ctx, int i, const char* name, T* value) {
  const Tensor& t = ctx->input(i);
  if (t.rank() != 0) {
    return errors::InvalidArgument(name, " must be a scalar, got shape ",
                                   t.shape().ToString());
  }
  *value = t.data<T>()[0];
  return Status::OK();
}

class GenerateBoundingBoxProposalsOp : public OpKernel {
 public:
  explicit GenerateBoundingBoxProposalsOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("post_nms_topn", &post_nms_topn_));
    if (ctx->status().ok() && post_nms_topn_ <= 0) {
      ctx->SetStatus(errors::InvalidArgument(
          "post_nms_topn can't be 0 or less, got ", post_nms_topn_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& scores = ctx->input(0);
    const Tensor& deltas = ctx->input(1);
    const Tensor& info = ctx->input(2);
    const Tensor& anchors = ctx->input(3);
    OP_REQUIRES_OK(ctx, CheckShapes(scores, deltas, info, anchors));
    float nms_threshold = 0, min_size = 0;
    int32_t pre_nms_topn = 0;
    OP_REQUIRES_OK(ctx, Scalar(ctx, 4, "nms_threshold", &nms_threshold));
    OP_REQUIRES_OK(ctx, Scalar(ctx, 5, "pre_nms_topn", &pre_nms_topn));
    OP_REQUIRES_OK(ctx, Scalar(ctx, 6, "min_size", &min_size));
    OP_REQUIRES(
        ctx, nms_threshold >= 0.0f && nms_threshold <= 1.0f,
        errors::InvalidArgument("nms_threshold should be between 0 and 1. Got ",
                                nms_threshold));
    OP_REQUIRES(
        ctx, pre_nms_topn > 0,
        errors::InvalidArgument("pre_nms_topn should be greater than 0, got ",
                                pre_nms_topn));
    const int64_t images = scores.dim(0);
    Tensor *rois, *probs;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({images, post_nms_topn_, 4}),
                                  &rois));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            1, TensorShape({images, post_nms_topn_}), &probs));
    std::fill_n(rois->data<float>(), rois->num_elements(), 0.0f);
    std::fill_n(probs->data<float>(), probs->num_elements(), 0.0f);
    const int64_t boxes = scores.num_elements() / std::max<int64_t>(images, 1);
    for (int64_t n = 0; n < images; ++n) {
      Propose(scores.data<float>() + n * boxes,
              deltas.data<float>() + n * boxes * 4, anchors.data<float>(),
              info.data<float>() + n * 5, boxes,
              std::min<int64_t>(boxes, pre_nms_topn), nms_threshold, min_size,
              rois->data<float>() + n * post_nms_topn_ * 4,
              probs->data<float>() + n * post_nms_topn_);
    }
  }

 private:
  static Status CheckShapes(const Tensor& scores, const Tensor& deltas,
                            const Tensor& info, const Tensor& anchors) {
    if (scores.rank() != 4 || deltas.rank() != 4 || info.rank() != 2 ||
        anchors.rank() != 3) {
      return errors::InvalidArgument(
          "scores and bbox_deltas must be 4-D, image_info 2-D and anchors "
          "3-D, got ",
          scores.shape().ToString(), ", ", deltas.shape().ToString(), ", ",
          info.shape().ToString(), " and ", anchors.shape().ToString());
    }
    const int64_t n = scores.dim(0), h = scores.dim(1), w = scores.dim(2);
    const int64_t a = scores.dim(3);
    if (deltas.shape() != TensorShape({n, h, w, 4 * a})) {
      return errors::InvalidArgument(
          "bbox_deltas must have shape [N, H, W, 4 * A] = ",
          TensorShape({n, h, w, 4 * a}).ToString(), " for scores ",
          scores.shape().ToString(), ", got ", deltas.shape().ToString());
    }
    if (info.shape() != TensorShape({n, 5})) {
      return errors::InvalidArgument("image_info must have shape [N, 5] = ",
                                     TensorShape({n, 5}).ToString(), ", got ",
                                     info.shape().ToString());
    }
    if (anchors.shape() != TensorShape({h, w, 4 * a})) {
      return errors::InvalidArgument("anchors must have shape [H, W, 4 * A] = ",
                                     TensorShape({h, w, 4 * a}).ToString(),
                                     " (one [y1, x1, y2, x2] "
                                     "per anchor and position), got ",
                                     anchors.shape().ToString());
    }
    return Status::OK();
  }

  // One image: `boxes` scores, deltas and anchors (4 each), its 5 info
  // values; writes up to post_nms_topn_ rois and probabilities.
  void Propose(const float* scores, const float* deltas, const float* anchors,
               const float* info, int64_t boxes, int64_t candidates,
               float nms_threshold, float min_size, float* rois,
               float* probs) const {
    std::vector<int64_t> order(boxes);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
      return SortKey(scores[i]) > SortKey(scores[j]);
    });
    const float clip = static_cast<float>(std::log(1000.0 / 16.0));
    const float height = info[0], width = info[1];
    const float min_side = min_size * info[2];
    std::vector<Box> kept;
    std::vector<float> kept_scores;
    for (int64_t c = 0; c < candidates; ++c) {
      const int64_t i = order[c];
      const float* an = anchors + 4 * i;
      const float* d = deltas + 4 * i;
      Box box = Decode(an[1], an[0], an[3], an[2], d[1], d[0],
                       std::min(d[3], clip), std::min(d[2], clip));
      box.x1 = std::fmax(std::fmin(box.x1, width), 0.0f);
      box.y1 = std::fmax(std::fmin(box.y1, height), 0.0f);
      box.x2 = std::fmax(std::fmin(box.x2, width), 0.0f);
      box.y2 = std::fmax(std::fmin(box.y2, height), 0.0f);
      if (std::fmin(box.x2 - box.x1, box.y2 - box.y1) >= min_side) {
        kept.push_back(box);
        kept_scores.push_back(scores[i]);
      }
    }
    // Greedy suppression in score order, stopping at post_nms_topn_.
    std::vector<int64_t> selected;
    for (size_t i = 0; i < kept.size() &&
                       static_cast<int64_t>(selected.size()) < post_nms_topn_;
         ++i) {
      bool suppressed = false;
      for (int64_t s : selected) {
        if (OverThreshold(kept[s], kept[i], nms_threshold)) {
          suppressed = true;
          break;
        }
      }
      if (!suppressed) selected.push_back(static_cast<int64_t>(i));
    }
    for (size_t k = 0; k < selected.size(); ++k) {
      const Box& b = kept[selected[k]];
      rois[4 * k + 0] = b.y1;
      rois[4 * k + 1] = b.x1;
      rois[4 * k + 2] = b.y2;
      rois[4 * k + 3] = b.x2;
      probs[k] = kept_scores[selected[k]];
    }
  }

  // The anchor (x1, y1, x2, y2) moved by (dx, dy) of its size and scaled by
  // (exp(dw), exp(dh)) about its centre.
  static Box Decode(float x1, float y1, float x2, float y2, float dx, float dy,
                    float dw, float dh) {
    const float w = x2 - x1, h = y2 - y1;
    const float cx = x1 + 0.5f * w + w * dx;
    const float cy = y1 + 0.5f * h + h * dy;
    const float pw = w * std::exp(dw), ph = h * std::exp(dh);
    return Box{cx - 0.5f * pw, cy - 0.5f * ph, cx + 0.5f * pw, cy + 0.5f * ph};
  }

  int64_t post_nms_topn_ = 0;
};

REGISTER_KERNEL(KernelDef("GenerateBoundingBoxProposals"),
                GenerateBoundingBoxProposalsOp);

}  // namespace
}  // namespace tensorweave

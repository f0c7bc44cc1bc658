// ATTENTION (float32): fused scaled dot-product attention,
//   Y = softmax(scale * Q K^T + bias) V
// per batch and query head (see AttentionOptions in lite/schema/twl.fbs for
// the operand layouts, grouped-query heads and the bias).
//
// Optimized path: the work is split over threads by (batch, head) and, when
// there are fewer of those than threads, by blocks of queries. Per head,
// K and V are packed into GEMM panels once; then per block of query rows
// (as many as keep the block's scores within about 32 KiB, so they stay in
// L1/L2 between the two GEMMs), the scores Q K^T come from the packed GEMM,
// a vectorized pass scales them, adds the bias and takes the softmax
// (FastExp), and a second GEMM multiplies them by V straight into Y's rows.
// Nothing is allocated in eval: the packed panels and scores are per-thread
// scratch.
// Reference path: each score, the softmax and each output in double, with
// std::exp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "lite/runtime/gemm.h"
#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/fast_math.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

using schema::AttentionLayout;

enum InputIndex { kQ, kK, kV, kBias };

// Strides (elements) of one operand's batch, head, sequence and feature
// dims.
struct View {
  int64_t batch = 0, head = 0, seq = 0, feat = 0;
};

struct OpData {
  int B = 0, Hq = 0, Hkv = 0, Sq = 0, Skv = 0, D = 0, Dv = 0;
  float scale = 1.f;
  bool zero_masked_rows = false;
  View q, k, v, y;
  int64_t bias_strides[4] = {};  // over [B, Hq, Sq, Skv]; 0 = broadcast
  // Optimized path: query rows per block, work items (B * Hq * q_splits)
  // and per-task scratch (packed K, packed V, scores).
  int block_rows = 0, q_splits = 1, tasks = 1;
  size_t packed_k = 0, packed_v = 0, scores = 0, per_task = 0;
  int scratch = -1;
};

// Dims [B, H, S, D] of operand `t` in `layout`, and its strides.
void Dims(const Tensor* t, AttentionLayout layout, int dims[4], View* view) {
  const int32_t* d = t->shape.dims;
  dims[0] = d[0];
  dims[3] = layout == AttentionLayout::BHDS ? d[2] : d[3];
  if (layout == AttentionLayout::BSHD) {
    dims[1] = d[2];
    dims[2] = d[1];
  } else {
    dims[1] = d[1];
    dims[2] = layout == AttentionLayout::BHDS ? d[3] : d[2];
  }
  const int64_t s1 = int64_t{d[1]} * d[2] * d[3];
  switch (layout) {
    case AttentionLayout::BSHD:
      *view = {s1, d[3], int64_t{d[2]} * d[3], 1};
      break;
    case AttentionLayout::BHDS:
      *view = {s1, int64_t{d[2]} * d[3], 1, d[3]};
      break;
    default:
      *view = {s1, int64_t{d[2]} * d[3], d[3], 1};
      break;
  }
}

Status CheckLayout(AttentionLayout layout, const char* what, bool bhds_ok) {
  TWL_CHECK_ARG(layout == AttentionLayout::BHSD ||
                    layout == AttentionLayout::BSHD ||
                    (bhds_ok && layout == AttentionLayout::BHDS),
                "%s layout %d is not %s", what, static_cast<int>(layout),
                bhds_ok ? "BHSD, BSHD or BHDS" : "BHSD or BSHD");
  return Status::Ok();
}

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 3, 4));
  TWL_CHECK_ARG(node->num_outputs == 1, "has %d outputs; expected 1",
                node->num_outputs);
  const auto* o = GetOptions<schema::AttentionOptions>(*node);
  TWL_RETURN_IF_ERROR(CheckLayout(o->q_layout(), "Q", false));
  TWL_RETURN_IF_ERROR(CheckLayout(o->k_layout(), "K", true));
  TWL_RETURN_IF_ERROR(CheckLayout(o->v_layout(), "V", false));
  TWL_RETURN_IF_ERROR(CheckLayout(o->y_layout(), "Y", false));
  const Tensor* q = context->input(*node, kQ);
  const Tensor* k = context->input(*node, kK);
  const Tensor* v = context->input(*node, kV);
  const char* names[] = {"Q", "K", "V"};
  const Tensor* qkv[] = {q, k, v};
  for (int i = 0; i < 3; ++i) {
    TWL_CHECK_ARG(qkv[i] != nullptr, "%s is required", names[i]);
    TWL_RETURN_IF_ERROR(CheckType(qkv[i], names[i], DataType::kFloat32));
    TWL_RETURN_IF_ERROR(CheckRank(qkv[i], names[i], 4, 4));
  }
  int qd[4], kd[4], vd[4];
  Dims(q, o->q_layout(), qd, &d->q);
  Dims(k, o->k_layout(), kd, &d->k);
  Dims(v, o->v_layout(), vd, &d->v);
  char a[96], b[96], c[96];
  TWL_CHECK_ARG(qd[0] == kd[0] && kd[0] == vd[0] && kd[1] == vd[1] &&
                    kd[2] == vd[2] && qd[3] == kd[3],
                "Q %s, K %s and V %s do not match (batch, key/value heads, "
                "keys, and Q's and K's head size must agree)",
                q->shape.ToString(a, sizeof(a)),
                k->shape.ToString(b, sizeof(b)),
                v->shape.ToString(c, sizeof(c)));
  TWL_CHECK_ARG(kd[1] > 0 && qd[1] % kd[1] == 0,
                "%d query heads cannot share %d key/value heads", qd[1], kd[1]);
  d->B = qd[0];
  d->Hq = qd[1];
  d->Sq = qd[2];
  d->D = qd[3];
  d->Hkv = kd[1];
  d->Skv = kd[2];
  d->Dv = vd[3];
  TWL_CHECK_ARG(std::isfinite(o->scale()), "scale %g must be finite",
                o->scale());
  d->scale = o->scale() != 0
                 ? o->scale()
                 : 1.f / std::sqrt(static_cast<float>(std::max(1, d->D)));
  d->zero_masked_rows = o->zero_masked_rows();
  const Shape scores({d->B, d->Hq, d->Sq, d->Skv});
  for (int64_t& s : d->bias_strides) s = 0;
  if (const Tensor* bias = context->input(*node, kBias)) {
    TWL_RETURN_IF_ERROR(CheckType(bias, "bias", DataType::kFloat32));
    TWL_RETURN_IF_ERROR(CheckRank(bias, "bias", 0, 4));
    Shape broadcast;
    Status st = BroadcastShapes(bias->shape, scores, &broadcast);
    TWL_CHECK_ARG(st.ok() && broadcast == scores,
                  "bias %s does not broadcast to the scores [B, Hq, Sq, Skv] "
                  "= %s",
                  bias->shape.ToString(a, sizeof(a)),
                  scores.ToString(b, sizeof(b)));
    BroadcastStrides(bias->shape, scores, d->bias_strides);
  }
  Tensor* y = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckType(y, "Y", DataType::kFloat32));
  const bool y_bshd = o->y_layout() == AttentionLayout::BSHD;
  const Shape y_shape = y_bshd ? Shape({d->B, d->Sq, d->Hq, d->Dv})
                               : Shape({d->B, d->Hq, d->Sq, d->Dv});
  TWL_RETURN_IF_ERROR(context->ResizeTensor(y, y_shape));
  int yd[4];
  Dims(y, o->y_layout(), yd, &d->y);
  if (context->use_reference()) return Status::Ok();
  // Blocks of query rows whose scores take about 8K floats.
  const int rows =
      std::max(kGemmMr, 8192 / std::max(1, d->Skv) / kGemmMr * kGemmMr);
  d->block_rows = std::min(rows, std::max(1, d->Sq));
  ThreadPool* pool = context->thread_pool();
  const int threads = pool == nullptr ? 1 : pool->num_threads();
  const int64_t heads = int64_t{d->B} * d->Hq;
  const int64_t work = heads * d->Sq * d->Skv * (d->D + d->Dv);
  d->q_splits = 1;
  if (heads < threads && d->Sq >= 2 * kGemmMr) {
    d->q_splits = static_cast<int>(
        std::min<int64_t>((threads + heads - 1) / heads, d->Sq / kGemmMr));
  }
  // Below about 32K multiply-adds per thread one thread is faster.
  d->tasks = static_cast<int>(std::max<int64_t>(
      1, std::min<int64_t>({threads, heads * d->q_splits, work / 32768})));
  d->packed_k = PackedGemmBSize(d->Skv, d->D);
  d->packed_v = PackedGemmBSize(d->Dv, d->Skv);
  d->scores = size_t{1} * d->block_rows * d->Skv;
  d->per_task = (d->packed_k + d->packed_v + d->scores + 15) / 16 * 16;
  return context->RequestScratch(node, d->per_task * d->tasks * sizeof(float),
                                 &d->scratch);
}

constexpr int kLanes = 8;

// Scores row `s` (n keys) -> softmax(scale * s + bias) in place. The max
// and the sum are kept in kLanes partial lanes, so that every loop
// vectorizes (a float reduction in one variable keeps GCC's loop scalar).
void SoftmaxRow(float* __restrict s, const float* __restrict bias,
                int64_t bias_stride, int n, float scale, bool zero_masked) {
  if (bias == nullptr) {
    for (int j = 0; j < n; ++j) s[j] *= scale;
  } else if (bias_stride == 1) {
    for (int j = 0; j < n; ++j) s[j] = s[j] * scale + bias[j];
  } else {
    const float b = bias[0];
    for (int j = 0; j < n; ++j) s[j] = s[j] * scale + b;
  }
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  float lane_max[kLanes];
  for (float& m : lane_max) m = kNegInf;
  int j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      lane_max[l] = s[j + l] > lane_max[l] ? s[j + l] : lane_max[l];
    }
  }
  float max = kNegInf;
  for (; j < n; ++j) max = s[j] > max ? s[j] : max;
  for (float m : lane_max) max = m > max ? m : max;
  if (max == kNegInf) {  // nothing visible
    const float fill =
        zero_masked ? 0.f : std::numeric_limits<float>::quiet_NaN();
    for (j = 0; j < n; ++j) s[j] = fill;
    return;
  }
  for (j = 0; j < n; ++j) s[j] = FastExp(s[j] - max);
  float lane_sum[kLanes] = {};
  for (j = 0; j + kLanes <= n; j += kLanes) {
    for (int l = 0; l < kLanes; ++l) lane_sum[l] += s[j + l];
  }
  float sum = 0.f;
  for (; j < n; ++j) sum += s[j];
  for (float l : lane_sum) sum += l;
  const float inv = 1.f / sum;
  for (j = 0; j < n; ++j) s[j] *= inv;
}

// Work item `item` (batch, query head, block of queries) on `scratch`.
void RunItem(const OpData* d, const float* q, const float* k, const float* v,
             const float* bias, float* y, int64_t item, float* scratch) {
  const int64_t head_item = item / d->q_splits;
  const int split = static_cast<int>(item % d->q_splits);
  const int b = static_cast<int>(head_item / d->Hq);
  const int h = static_cast<int>(head_item % d->Hq);
  const int kv = h / (d->Hq / d->Hkv);
  const int q_begin = static_cast<int>(int64_t{d->Sq} * split / d->q_splits);
  const int q_end =
      static_cast<int>(int64_t{d->Sq} * (split + 1) / d->q_splits);
  float* packed_k = scratch;
  float* packed_v = packed_k + d->packed_k;
  float* scores = packed_v + d->packed_v;
  const float* kp = k + b * d->k.batch + kv * d->k.head;
  if (d->k.feat == 1) {
    PackGemmB(kp, d->Skv, d->D, d->k.seq, packed_k);
  } else {  // BHDS: K^T
    PackGemmBTransposed(kp, d->Skv, d->D, d->k.feat, packed_k);
  }
  PackGemmBTransposed(v + b * d->v.batch + kv * d->v.head, d->Dv, d->Skv,
                      d->v.seq, packed_v);
  const float* qp = q + b * d->q.batch + h * d->q.head;
  float* yp = y + b * d->y.batch + h * d->y.head;
  const int64_t* bs = d->bias_strides;
  const float* bp = bias == nullptr ? nullptr : bias + b * bs[0] + h * bs[1];
  for (int i0 = q_begin; i0 < q_end; i0 += d->block_rows) {
    const int rows = std::min(d->block_rows, q_end - i0);
    Gemm(rows, d->Skv, d->D, qp + i0 * d->q.seq, d->q.seq, packed_k, scores,
         d->Skv, 1, GemmEpilogue(), nullptr);
    for (int r = 0; r < rows; ++r) {
      SoftmaxRow(scores + int64_t{r} * d->Skv,
                 bp == nullptr ? nullptr : bp + (i0 + r) * bs[2], bs[3], d->Skv,
                 d->scale, d->zero_masked_rows);
    }
    Gemm(rows, d->Dv, d->Skv, scores, d->Skv, packed_v, yp + i0 * d->y.seq,
         d->y.seq, 1, GemmEpilogue(), nullptr);
  }
}

Status EvalOptimized(KernelContext* context, Node* node, const OpData* d) {
  const float* q = context->input(*node, kQ)->data_as<float>();
  const float* k = context->input(*node, kK)->data_as<float>();
  const float* v = context->input(*node, kV)->data_as<float>();
  const Tensor* bias_t = context->input(*node, kBias);
  const float* bias = bias_t == nullptr ? nullptr : bias_t->data_as<float>();
  float* y = context->output(*node, 0)->data_as<float>();
  const int64_t items = int64_t{d->B} * d->Hq * d->q_splits;
  if (items == 0) return Status::Ok();
  if (d->Skv == 0) {  // no keys: every softmax is empty
    const float fill =
        d->zero_masked_rows ? 0.f : std::numeric_limits<float>::quiet_NaN();
    float* out = y;
    const int64_t n = context->output(*node, 0)->num_elements();
    for (int64_t i = 0; i < n; ++i) out[i] = fill;
    return Status::Ok();
  }
  float* scratch = static_cast<float*>(node->scratch[d->scratch]);
  auto run = [&](int task, int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      RunItem(d, q, k, v, bias, y, item, scratch + task * d->per_task);
    }
  };
  if (d->tasks > 1) {
    context->thread_pool()->ParallelForTasks(
        items, 1, d->tasks, [&run](int task, int64_t begin, int64_t end) {
          run(task, begin, end);
        });
  } else {
    run(0, 0, items);
  }
  return Status::Ok();
}

Status EvalReference(KernelContext* context, Node* node, const OpData* d) {
  const float* q = context->input(*node, kQ)->data_as<float>();
  const float* k = context->input(*node, kK)->data_as<float>();
  const float* v = context->input(*node, kV)->data_as<float>();
  const Tensor* bias_t = context->input(*node, kBias);
  const float* bias = bias_t == nullptr ? nullptr : bias_t->data_as<float>();
  float* y = context->output(*node, 0)->data_as<float>();
  const int64_t* bs = d->bias_strides;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int b = 0; b < d->B; ++b) {
    for (int h = 0; h < d->Hq; ++h) {
      const int kv = h / (d->Hq / d->Hkv);
      const float* kp = k + b * d->k.batch + kv * d->k.head;
      const float* vp = v + b * d->v.batch + kv * d->v.head;
      for (int i = 0; i < d->Sq; ++i) {
        const float* qi = q + b * d->q.batch + h * d->q.head + i * d->q.seq;
        auto score = [&](int j) {
          double s = 0;
          for (int f = 0; f < d->D; ++f) {
            s += static_cast<double>(qi[f]) * kp[j * d->k.seq + f * d->k.feat];
          }
          s *= d->scale;
          if (bias != nullptr) {
            s += bias[b * bs[0] + h * bs[1] + i * bs[2] + j * bs[3]];
          }
          return s;
        };
        double max = -std::numeric_limits<double>::infinity();
        for (int j = 0; j < d->Skv; ++j) max = std::max(max, score(j));
        double sum = 0;
        for (int j = 0; j < d->Skv; ++j) sum += std::exp(score(j) - max);
        // No visible key (or none at all): zeros or NaN.
        const bool masked = max == -std::numeric_limits<double>::infinity();
        float* yi = y + b * d->y.batch + h * d->y.head + i * d->y.seq;
        for (int f = 0; f < d->Dv; ++f) {
          double acc = masked ? (d->zero_masked_rows ? 0.0 : nan) : 0.0;
          for (int j = 0; j < d->Skv && !masked; ++j) {
            acc += std::exp(score(j) - max) / sum * vp[j * d->v.seq + f];
          }
          yi[f] = static_cast<float>(acc);
        }
      }
    }
  }
  return Status::Ok();
}

Status Eval(KernelContext* context, Node* node) {
  const OpData* d = static_cast<const OpData*>(node->user_data);
  return context->use_reference() ? EvalReference(context, node, d)
                                  : EvalOptimized(context, node, d);
}

}  // namespace

KernelRegistration Register_ATTENTION() {
  return {BuiltinOperator::ATTENTION, 1,       InitOpData<OpData>,
          FreeOpData<OpData>,         Prepare, Eval};
}

}  // namespace twl

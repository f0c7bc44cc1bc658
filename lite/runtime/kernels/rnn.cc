// LSTM, GRU and RNN (float32) with ONNX's semantics and operand layouts
// (see LSTMOptions, GRUOptions and RNNOptions in lite/schema/twl.fbs): one or
// two directions, per-sequence lengths (steps past a sequence's end leave its
// state alone and give zeros in Y; a sequence of length 0 gives zero final
// states, as onnxruntime does), optional initial states, LSTM peepholes, cell
// clip and coupled input/forget gates, GRU's linear_before_reset, time- or
// batch-major layouts, and other gate and cell activations than sigmoid and
// tanh (hard sigmoid, relu: Keras' recurrent_activation and activation).
//
// Optimized path: W and R are packed into GEMM panels and the biases folded
// into one vector per GEMM in prepare. Per direction, one GEMM computes every
// step's input projection X W^T + b up front; each step then runs the
// recurrent GEMM H R^T and a fused, vectorizable gate pass (polynomial
// sigmoid and tanh; other activations: scalar loops that switch on them).
// All buffers are planned scratch: eval allocates nothing.
//
// Threads (LSTM, RNN, GRU with linear_before_reset): the hidden units are
// split into one chunk per thread, and R is packed per chunk (its gates'
// rows for those units), so a chunk's step (its slice of H R^T, then its
// units' gates) needs the previous state of every unit but writes only its
// own. All steps run in one parallel region: a chunk of step s may start
// once every chunk of step s - 1 is done (a counter), with the state double
// buffered. Each thread claims its own chunk first and then any chunk left
// unclaimed, so a descheduled or late thread holds up nothing it has not
// started (the caller alone can finish every step). Handing each step's
// GEMM to the pool and back instead cost two synchronizations per step.
// Reference path: the equations step by step from the original tensors, with
// double accumulation and <cmath> activations.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "lite/runtime/gemm.h"
#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/fast_math.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"
#include "lite/runtime/vector.h"
#include "lite/runtime/vector_math.h"

namespace twl {
namespace {

enum InputIndex { kX, kW, kR, kB, kSequenceLens, kInitialH, kInitialC, kP };

constexpr int kMaxChunks = 8;
// Below this many recurrent multiply-adds per step, one thread runs every
// chunk: the per-step handoff costs more than the second core saves.
constexpr int64_t kMinStepWork = 16 * 1024;

struct OpData {
  bool lstm = true, gru = false;  // neither: RNN
  int gates = 4;  // G: 4 (LSTM: i, o, f, c), 3 (GRU: z, r, h) or 1 (RNN)
  int dirs = 1, steps = 0, batch = 0, input_size = 0, hidden = 0;
  bool reverse = false;  // the one direction runs backwards
  bool batch_major = false, input_forget = false, linear_before_reset = false;
  float clip = 0;  // 0: none
  // The gates' activation (LSTM, GRU) and the cell's; default_activations:
  // sigmoid and tanh (the vectorized cells).
  schema::RNNActivation gate_activation = schema::RNNActivation::SIGMOID;
  schema::RNNActivation activation = schema::RNNActivation::TANH;
  float alpha = 0.2f, beta = 0.5f;  // HARD_SIGMOID's
  bool default_activations = true;
  // Optimized path, per direction: packed W [G*H, I] and R [G*H, H] (GRU
  // without linear_before_reset: R's z and r rows [2H, H], and its h rows
  // [H, H] in packed_rh), the bias of the input GEMM (Wb + Rb; GRU with
  // linear_before_reset: Wb) and of the recurrent GEMM (GRU with
  // linear_before_reset: Rb), LSTM peepholes (zeros when absent).
  AlignedFloats packed_w, packed_r, packed_rh, input_bias, recurrent_bias,
      peepholes;
  size_t packed_w_size = 0, packed_r_size = 0, packed_rh_size = 0;
  // Chunked steps (all but GRU without linear_before_reset): chunk k owns
  // units [chunk_begin[k], chunk_begin[k + 1]); packed_r holds, per
  // direction, each chunk's R rows (gate-major within the chunk) packed at
  // chunk_offset[k], and recurrent_bias is in the same column order.
  bool chunked = false;
  int chunks = 1;
  int chunk_begin[kMaxChunks + 1] = {};
  size_t chunk_offset[kMaxChunks] = {};
  int scratch = -1;
  // Scratch offsets (floats): input projections [T*N, G*H], recurrent
  // products [N, G*H] (chunked: chunk k's [N, G*u_k] at N*G*begin_k), h
  // (double buffered) and c states [N, H], r * h (GRU) [N, H].
  size_t xw = 0, products = 0, h = 0, h2 = 0, c = 0, rh = 0;
};

void* InitLstm(const schema::Operator&) { return new (std::nothrow) OpData(); }
void* InitGru(const schema::Operator&) {
  OpData* d = new (std::nothrow) OpData();
  if (d != nullptr) {
    d->lstm = false;
    d->gru = true;
    d->gates = 3;
  }
  return d;
}
void* InitRnn(const schema::Operator&) {
  OpData* d = new (std::nothrow) OpData();
  if (d != nullptr) {
    d->lstm = false;
    d->gates = 1;
  }
  return d;
}
void Free(void* data) { delete static_cast<OpData*>(data); }

// Checks that `t` is a float32 tensor of shape `want` (rank `rank`).
Status CheckShape(const Tensor* t, const char* what, const int64_t* want,
                  int rank, const char* meaning) {
  TWL_RETURN_IF_ERROR(CheckType(t, what, DataType::kFloat32));
  bool same = t->shape.rank == rank;
  for (int i = 0; same && i < rank; ++i) same = t->shape.dims[i] == want[i];
  char got[96];
  TWL_CHECK_ARG(same, "%s has shape %s; expected [%lld%s%lld%s%lld] (%s)", what,
                t->shape.ToString(got, sizeof(got)),
                static_cast<long long>(want[0]), rank > 1 ? ", " : "",
                static_cast<long long>(rank > 1 ? want[1] : 0),
                rank > 2 ? ", " : "",
                static_cast<long long>(rank > 2 ? want[2] : 0), meaning);
  return Status::Ok();
}

Status CheckConstant(const Tensor* t, const char* what) {
  TWL_CHECK_ARG(t->is_constant, "%s must be a constant tensor", what);
  return Status::Ok();
}

size_t RoundUp(size_t floats) { return (floats + 15) / 16 * 16; }

Status ReadOptions(const Node& node, OpData* d) {
  schema::RNNDirection direction;
  int hidden;
  if (d->lstm) {
    const auto* o = GetOptions<schema::LSTMOptions>(node);
    direction = o->direction();
    hidden = o->hidden_size();
    d->batch_major = o->batch_major();
    d->clip = o->clip();
    d->input_forget = o->input_forget();
    d->gate_activation = o->gate_activation();
    d->activation = o->activation();
    d->alpha = o->activation_alpha();
    d->beta = o->activation_beta();
  } else if (d->gru) {
    const auto* o = GetOptions<schema::GRUOptions>(node);
    direction = o->direction();
    hidden = o->hidden_size();
    d->batch_major = o->batch_major();
    d->clip = o->clip();
    d->linear_before_reset = o->linear_before_reset();
    d->gate_activation = o->gate_activation();
    d->activation = o->activation();
    d->alpha = o->activation_alpha();
    d->beta = o->activation_beta();
  } else {
    const auto* o = GetOptions<schema::RNNOptions>(node);
    direction = o->direction();
    hidden = o->hidden_size();
    d->batch_major = o->batch_major();
    d->clip = o->clip();
    d->activation = o->activation();
    d->alpha = o->activation_alpha();
    d->beta = o->activation_beta();
  }
  for (const schema::RNNActivation a : {d->gate_activation, d->activation}) {
    TWL_CHECK_ARG(
        a >= schema::RNNActivation::MIN && a <= schema::RNNActivation::MAX,
        "unknown activation %d", static_cast<int>(a));
  }
  TWL_CHECK_ARG(std::isfinite(d->alpha) && std::isfinite(d->beta),
                "activation_alpha %g and activation_beta %g must be finite",
                d->alpha, d->beta);
  d->default_activations =
      d->gate_activation == schema::RNNActivation::SIGMOID &&
      d->activation == schema::RNNActivation::TANH;
  TWL_CHECK_ARG(direction >= schema::RNNDirection::MIN &&
                    direction <= schema::RNNDirection::MAX,
                "unknown direction %d", static_cast<int>(direction));
  TWL_CHECK_ARG(hidden > 0, "hidden_size %d must be positive", hidden);
  TWL_CHECK_ARG(d->clip >= 0 && std::isfinite(d->clip),
                "clip %g must be finite and positive (0: no clip)", d->clip);
  d->hidden = hidden;
  d->dirs = direction == schema::RNNDirection::BIDIRECTIONAL ? 2 : 1;
  d->reverse = direction == schema::RNNDirection::REVERSE;
  return Status::Ok();
}

// Splits the hidden units into chunks, one per thread when the recurrent
// GEMM is large enough (chunk bounds multiples of 8 units, for the gate
// pass's vectors).
void PlanChunks(OpData* d, int threads) {
  const int H = d->hidden;
  d->chunked = !(d->gru && !d->linear_before_reset);
  int chunks = 1;
  const int64_t step_work = int64_t{d->batch} * d->gates * H * H;
  if (d->chunked && step_work >= kMinStepWork) {
    chunks = std::min({threads, kMaxChunks, std::max(1, H / 8)});
  }
  d->chunks = chunks;
  for (int k = 0; k <= chunks; ++k) {
    d->chunk_begin[k] = k == chunks ? H : (H / 8 * k / chunks) * 8;
  }
}

// Packs the constant weights and folds the biases (optimized path).
Status PackWeights(KernelContext* context, Node* node, OpData* d) {
  const int H = d->hidden, G = d->gates, GH = G * H, I = d->input_size;
  const float* w = context->input(*node, kW)->data_as<float>();
  const float* r = context->input(*node, kR)->data_as<float>();
  const Tensor* b = context->input(*node, kB);
  const Tensor* p = d->lstm ? context->input(*node, kP) : nullptr;
  const bool split_r = !d->chunked;
  d->packed_w_size = PackedGemmBSize(GH, I);
  if (d->chunked) {
    d->packed_r_size = 0;
    for (int k = 0; k < d->chunks; ++k) {
      d->chunk_offset[k] = d->packed_r_size;
      const int units = d->chunk_begin[k + 1] - d->chunk_begin[k];
      d->packed_r_size += PackedGemmBSize(G * units, H);
    }
  } else {
    d->packed_r_size = PackedGemmBSize(2 * H, H);
  }
  d->packed_rh_size = split_r ? PackedGemmBSize(H, H) : 0;
  const int dirs = d->dirs;
  std::vector<float> rows;  // one chunk's R rows, gate-major
  TWL_CHECK_ARG(
      d->packed_w.Resize(d->packed_w_size * dirs) &&
          d->packed_r.Resize(d->packed_r_size * dirs) &&
          d->packed_rh.Resize(std::max<size_t>(1, d->packed_rh_size * dirs)) &&
          d->input_bias.Resize(size_t{1} * GH * dirs) &&
          d->recurrent_bias.Resize(size_t{1} * GH * dirs) &&
          d->peepholes.Resize(size_t{3} * H * dirs),
      "out of memory");
  for (int dir = 0; dir < dirs; ++dir) {
    const float* wd = w + int64_t{dir} * GH * I;
    const float* rd = r + int64_t{dir} * GH * H;
    PackGemmB(wd, GH, I, I, d->packed_w.data() + dir * d->packed_w_size);
    float* packed_r = d->packed_r.data() + dir * d->packed_r_size;
    const float* bd = b ? b->data_as<float>() + int64_t{dir} * 2 * GH : nullptr;
    float* in_bias = d->input_bias.data() + int64_t{dir} * GH;
    float* rec_bias = d->recurrent_bias.data() + int64_t{dir} * GH;
    if (split_r) {
      PackGemmB(rd, 2 * H, H, H, packed_r);
      PackGemmB(rd + int64_t{2} * H * H, H, H, H,
                d->packed_rh.data() + dir * d->packed_rh_size);
    } else {
      for (int k = 0; k < d->chunks; ++k) {
        const int begin = d->chunk_begin[k];
        const int units = d->chunk_begin[k + 1] - begin;
        rows.resize(size_t{1} * G * units * H);
        for (int g = 0; g < G; ++g) {
          for (int j = 0; j < units; ++j) {
            const int row = g * H + begin + j;
            memcpy(&rows[(int64_t{g} * units + j) * H], rd + int64_t{row} * H,
                   sizeof(float) * H);
            // Chunk column order; nonzero only for GRU linear_before_reset.
            rec_bias[G * begin + g * units + j] =
                d->gru && bd ? bd[GH + row] : 0.f;
          }
        }
        PackGemmB(rows.data(), G * units, H, H, packed_r + d->chunk_offset[k]);
      }
    }
    for (int j = 0; j < GH; ++j) {
      const float wb = bd ? bd[j] : 0.f, rb = bd ? bd[GH + j] : 0.f;
      in_bias[j] = d->gru && d->linear_before_reset ? wb : wb + rb;
      if (split_r) rec_bias[j] = 0.f;
    }
    float* peep = d->peepholes.data() + int64_t{dir} * 3 * H;
    for (int j = 0; j < 3 * H; ++j) {
      peep[j] = p ? p->data_as<float>()[int64_t{dir} * 3 * H + j] : 0.f;
    }
  }
  context->ReleaseConstant(context->input(*node, kW));
  context->ReleaseConstant(context->input(*node, kR));
  return Status::Ok();
}

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 3, d->lstm ? 8 : 6));
  const int max_outputs = d->lstm ? 3 : 2;
  TWL_CHECK_ARG(node->num_outputs >= 1 && node->num_outputs <= max_outputs,
                "has %d outputs; expected 1 to %d", node->num_outputs,
                max_outputs);
  TWL_RETURN_IF_ERROR(ReadOptions(*node, d));
  const Tensor* x = context->input(*node, kX);
  TWL_CHECK_ARG(x != nullptr, "X is required");
  TWL_RETURN_IF_ERROR(CheckType(x, "X", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckRank(x, "X", 3, 3));
  d->steps = x->shape.dims[d->batch_major ? 1 : 0];
  d->batch = x->shape.dims[d->batch_major ? 0 : 1];
  d->input_size = x->shape.dims[2];
  TWL_CHECK_ARG(d->input_size > 0, "X's input size (dim 2) must be positive");
  const int64_t D = d->dirs, T = d->steps, N = d->batch, H = d->hidden,
                G = d->gates, I = d->input_size;
  TWL_CHECK_ARG(G * H <= (1 << 24) && T * N <= (1 << 30) &&
                    T * N * G * H <= (int64_t{1} << 40),
                "sizes too large (hidden_size %lld, %lld steps x batch %lld)",
                static_cast<long long>(H), static_cast<long long>(T),
                static_cast<long long>(N));
  for (int i = kW; i <= kR; ++i) {
    const Tensor* t = context->input(*node, i);
    const char* what = i == kW ? "W" : "R";
    TWL_CHECK_ARG(t != nullptr, "%s is required", what);
    const int64_t want[] = {D, G * H, i == kW ? I : H};
    TWL_RETURN_IF_ERROR(
        CheckShape(t, what, want, 3,
                   i == kW ? "directions, gates * hidden_size, input size"
                           : "directions, gates * hidden_size, hidden_size"));
    TWL_RETURN_IF_ERROR(CheckConstant(t, what));
  }
  if (const Tensor* b = context->input(*node, kB)) {
    const int64_t want[] = {D, 2 * G * H};
    TWL_RETURN_IF_ERROR(
        CheckShape(b, "B", want, 2, "directions, 2 * gates * hidden_size"));
    TWL_RETURN_IF_ERROR(CheckConstant(b, "B"));
  }
  if (const Tensor* lens = context->input(*node, kSequenceLens)) {
    TWL_CHECK_ARG(
        lens->type == DataType::kInt32 || lens->type == DataType::kInt64,
        "sequence_lens must be int32 or int64, got %s",
        DataTypeName(lens->type));
    TWL_CHECK_ARG(lens->shape.rank == 1 && lens->shape.dims[0] == N,
                  "sequence_lens must have shape [%lld] (the batch)",
                  static_cast<long long>(N));
  }
  const int64_t state[] = {d->batch_major ? N : D, d->batch_major ? D : N, H};
  const char* state_meaning = d->batch_major ? "batch, directions, hidden_size"
                                             : "directions, batch, hidden_size";
  for (int i = kInitialH; i <= (d->lstm ? kInitialC : kInitialH); ++i) {
    if (const Tensor* t = context->input(*node, i)) {
      TWL_RETURN_IF_ERROR(CheckShape(t,
                                     i == kInitialH ? "initial_h" : "initial_c",
                                     state, 3, state_meaning));
    }
  }
  if (d->lstm) {
    if (const Tensor* p = context->input(*node, kP)) {
      const int64_t want[] = {D, 3 * H};
      TWL_RETURN_IF_ERROR(
          CheckShape(p, "P", want, 2, "directions, 3 * hidden_size"));
      TWL_RETURN_IF_ERROR(CheckConstant(p, "P"));
    }
  }
  const Shape y_shape = d->batch_major
                            ? Shape({d->batch, d->steps, d->dirs, d->hidden})
                            : Shape({d->steps, d->dirs, d->batch, d->hidden});
  const Shape state_shape = Shape(
      {static_cast<int>(state[0]), static_cast<int>(state[1]), d->hidden});
  for (int i = 0; i < node->num_outputs; ++i) {
    Tensor* out = context->output(*node, i);
    TWL_CHECK_ARG(out != nullptr, "output %d is missing", i);
    TWL_RETURN_IF_ERROR(CheckType(out, "output", DataType::kFloat32));
    TWL_RETURN_IF_ERROR(
        context->ResizeTensor(out, i == 0 ? y_shape : state_shape));
  }
  size_t floats = 0;
  auto carve = [&floats](size_t n) {
    size_t at = floats;
    floats += RoundUp(n);
    return at;
  };
  d->h = carve(N * H);
  d->c = carve(N * H);
  if (!context->use_reference()) {
    d->h2 = carve(N * H);
    d->xw = carve(T * N * G * H);
    d->products = carve(N * G * H);
    d->rh = carve(N * H);
    ThreadPool* pool = context->thread_pool();
    PlanChunks(d, pool == nullptr ? 1 : pool->num_threads());
    TWL_RETURN_IF_ERROR(PackWeights(context, node, d));
  }
  return context->RequestScratch(node, floats * sizeof(float), &d->scratch);
}

// Where step t of sequence n of direction dir lives in Y, and sequence n's
// final state in Y_h / Y_c.
struct Layout {
  int64_t T, D, N, H;
  bool batch_major;
  int64_t Y(int64_t t, int64_t dir, int64_t n) const {
    return batch_major ? ((n * T + t) * D + dir) * H
                       : ((t * D + dir) * N + n) * H;
  }
  int64_t State(int64_t dir, int64_t n) const {
    return batch_major ? (n * D + dir) * H : (dir * N + n) * H;
  }
  int64_t XRow(int64_t t, int64_t n) const {
    return batch_major ? n * T + t : t * N + n;
  }
};

// Reads sequence n's length, checked against [0, T].
Status SequenceLength(const Tensor* lens, int n, int steps, int* length) {
  if (lens == nullptr) {
    *length = steps;
    return Status::Ok();
  }
  const int64_t v = lens->type == DataType::kInt32
                        ? lens->data_as<int32_t>()[n]
                        : lens->data_as<int64_t>()[n];
  TWL_CHECK_ARG(v >= 0 && v <= steps,
                "sequence_lens[%d] = %lld is outside [0, %d] (the sequence "
                "length of X)",
                n, static_cast<long long>(v), steps);
  *length = static_cast<int>(v);
  return Status::Ok();
}

inline float Clip(float x, float clip) {
  return std::min(clip, std::max(-clip, x));
}

// One LSTM step of units [0, U) of one sequence: pre-activations xw (input
// projection plus biases; gate g of unit j at xw[g * xs + j]) and hr
// (recurrent product, at hr[g * hs + j]), peepholes at peep[g * H + j],
// state c updated in place, the new h written to h. Separate functions with
// restrict pointers and the coupled gate as a template argument, so that
// GCC vectorizes the loop (a select on a runtime bool kept it scalar: 3x
// slower).
template <bool kInputForget>
__attribute__((noinline)) void LstmCellScalar(
    const float* __restrict xw, int xs, const float* __restrict hr, int hs,
    const float* __restrict peep, int ps, int U, float clip,
    float* __restrict h, float* __restrict c) {
  const float* pi = peep;
  const float* po = peep + ps;
  const float* pf = peep + 2 * ps;
  for (int j = 0; j < U; ++j) {
    const float i = FastSigmoid(Clip(xw[j] + hr[j] + pi[j] * c[j], clip));
    const float f =
        kInputForget
            ? 1.f - i
            : FastSigmoid(
                  Clip(xw[2 * xs + j] + hr[2 * hs + j] + pf[j] * c[j], clip));
    const float g = FastTanh(Clip(xw[3 * xs + j] + hr[3 * hs + j], clip));
    const float cell = f * c[j] + i * g;
    const float o =
        FastSigmoid(Clip(xw[xs + j] + hr[hs + j] + po[j] * cell, clip));
    c[j] = cell;
    h[j] = o * FastTanh(cell);
  }
}

// One GRU step of units [0, U) of one sequence, from state h_prev to h.
// kLinearBeforeReset: hr holds H R^T + Rb for all three gates; otherwise its
// h part is already (r * H) R_h^T.
template <bool kLinearBeforeReset>
__attribute__((noinline)) void GruCellScalar(const float* __restrict xw, int xs,
                                             const float* __restrict hr, int hs,
                                             int U, float clip,
                                             const float* __restrict h_prev,
                                             float* __restrict h) {
  for (int j = 0; j < U; ++j) {
    const float z = FastSigmoid(Clip(xw[j] + hr[j], clip));
    float pre;
    if (kLinearBeforeReset) {
      const float r = FastSigmoid(Clip(xw[xs + j] + hr[hs + j], clip));
      pre = xw[2 * xs + j] + r * hr[2 * hs + j];
    } else {
      pre = xw[2 * xs + j] + hr[2 * hs + j];
    }
    const float candidate = FastTanh(Clip(pre, clip));
    h[j] = (1.f - z) * candidate + z * h_prev[j];
  }
}

#if TWL_MULTI_ISA
// x86-64 built for its baseline: the cells on whole vectors of W units
// (RunKernel: AVX-512 or AVX2 where the CPU has them; the scalar loops above
// vectorize at SSE2 only, and ran the gates of a 256-unit LSTM ~4x slower),
// the last U % W units by the scalar loops. vector_math.h's ExpVector is
// FastExp's polynomial. Elsewhere (aarch64, or built for AVX2) the scalar
// loops vectorize at the native width already.
template <typename V>
TWL_KERNEL_INLINE V SigmoidVector(V x) {
  return 1.f / (ExpVector(-x) + 1.f);
}
template <typename V>
TWL_KERNEL_INLINE V TanhVector(V x) {
  return 1.f - 2.f / (ExpVector(x * 2.f) + 1.f);
}
template <int W>
TWL_KERNEL_INLINE void Store(float* p, typename VectorOf<W>::type v) {
  memcpy(p, &v, sizeof(v));
}

template <bool kInputForget>
struct LstmCellOp {
  template <int W>
  static TWL_KERNEL_INLINE void Run(const float* xw, int xs, const float* hr,
                                    int hs, const float* peep, int ps, int U,
                                    float clip, float* h, float* c) {
    typedef typename VectorOf<W>::type V;
    const V lo = V{} - clip, hi = V{} + clip;
    int j = 0;
    for (; j + W <= U; j += W) {
      const V cp = LoadVector<W>(c + j);
      const V i =
          SigmoidVector(Clamp(LoadVector<W>(xw + j) + LoadVector<W>(hr + j) +
                                  LoadVector<W>(peep + j) * cp,
                              lo, hi));
      V f;
      if (kInputForget) {
        f = 1.f - i;
      } else {
        f = SigmoidVector(Clamp(LoadVector<W>(xw + 2 * xs + j) +
                                    LoadVector<W>(hr + 2 * hs + j) +
                                    LoadVector<W>(peep + 2 * ps + j) * cp,
                                lo, hi));
      }
      const V g = TanhVector(
          Clamp(LoadVector<W>(xw + 3 * xs + j) + LoadVector<W>(hr + 3 * hs + j),
                lo, hi));
      const V cell = f * cp + i * g;
      const V o = SigmoidVector(Clamp(LoadVector<W>(xw + xs + j) +
                                          LoadVector<W>(hr + hs + j) +
                                          LoadVector<W>(peep + ps + j) * cell,
                                      lo, hi));
      Store<W>(c + j, cell);
      Store<W>(h + j, o * TanhVector(cell));
    }
    if (j < U) {
      LstmCellScalar<kInputForget>(xw + j, xs, hr + j, hs, peep + j, ps, U - j,
                                   clip, h + j, c + j);
    }
  }
};

template <bool kLinearBeforeReset>
struct GruCellOp {
  template <int W>
  static TWL_KERNEL_INLINE void Run(const float* xw, int xs, const float* hr,
                                    int hs, int U, float clip,
                                    const float* h_prev, float* h) {
    typedef typename VectorOf<W>::type V;
    const V lo = V{} - clip, hi = V{} + clip;
    int j = 0;
    for (; j + W <= U; j += W) {
      const V z = SigmoidVector(
          Clamp(LoadVector<W>(xw + j) + LoadVector<W>(hr + j), lo, hi));
      V pre;
      if (kLinearBeforeReset) {
        const V r = SigmoidVector(Clamp(
            LoadVector<W>(xw + xs + j) + LoadVector<W>(hr + hs + j), lo, hi));
        pre =
            LoadVector<W>(xw + 2 * xs + j) + r * LoadVector<W>(hr + 2 * hs + j);
      } else {
        pre = LoadVector<W>(xw + 2 * xs + j) + LoadVector<W>(hr + 2 * hs + j);
      }
      const V candidate = TanhVector(Clamp(pre, lo, hi));
      Store<W>(h + j, (1.f - z) * candidate + z * LoadVector<W>(h_prev + j));
    }
    if (j < U) {
      GruCellScalar<kLinearBeforeReset>(xw + j, xs, hr + j, hs, U - j, clip,
                                        h_prev + j, h + j);
    }
  }
};

template <bool kInputForget>
void LstmCell(const float* xw, int xs, const float* hr, int hs,
              const float* peep, int ps, int U, float clip, float* h,
              float* c) {
  RunKernel<LstmCellOp<kInputForget>>(xw, xs, hr, hs, peep, ps, U, clip, h, c);
}
template <bool kLinearBeforeReset>
void GruCell(const float* xw, int xs, const float* hr, int hs, int U,
             float clip, const float* h_prev, float* h) {
  RunKernel<GruCellOp<kLinearBeforeReset>>(xw, xs, hr, hs, U, clip, h_prev, h);
}
#else
template <bool kInputForget>
void LstmCell(const float* xw, int xs, const float* hr, int hs,
              const float* peep, int ps, int U, float clip, float* h,
              float* c) {
  LstmCellScalar<kInputForget>(xw, xs, hr, hs, peep, ps, U, clip, h, c);
}
template <bool kLinearBeforeReset>
void GruCell(const float* xw, int xs, const float* hr, int hs, int U,
             float clip, const float* h_prev, float* h) {
  GruCellScalar<kLinearBeforeReset>(xw, xs, hr, hs, U, clip, h_prev, h);
}
#endif

// One RNN step of one sequence: h = tanh(xw + hr).
__attribute__((noinline)) void RnnCell(const float* __restrict xw,
                                       const float* __restrict hr, int U,
                                       float clip, float* __restrict h) {
  for (int j = 0; j < U; ++j) h[j] = FastTanh(Clip(xw[j] + hr[j], clip));
}

// Other activations than sigmoid and tanh: scalar loops with the activations
// switched on per element, otherwise the cells above.
inline float Activate(schema::RNNActivation a, float x, float alpha,
                      float beta) {
  switch (a) {
    case schema::RNNActivation::SIGMOID:
      return FastSigmoid(x);
    case schema::RNNActivation::TANH:
      return FastTanh(x);
    case schema::RNNActivation::HARD_SIGMOID:
      return std::min(1.f, std::max(0.f, alpha * x + beta));
    default:  // RELU
      return std::max(0.f, x);
  }
}

void LstmCellAny(const OpData& d, const float* xw, int xs, const float* hr,
                 int hs, const float* peep, int ps, int U, float clip, float* h,
                 float* c) {
  const auto f_act = [&d](float x) {
    return Activate(d.gate_activation, x, d.alpha, d.beta);
  };
  const auto g_act = [&d](float x) {
    return Activate(d.activation, x, d.alpha, d.beta);
  };
  for (int j = 0; j < U; ++j) {
    const float i = f_act(Clip(xw[j] + hr[j] + peep[j] * c[j], clip));
    const float f = d.input_forget
                        ? 1.f - i
                        : f_act(Clip(xw[2 * xs + j] + hr[2 * hs + j] +
                                         peep[2 * ps + j] * c[j],
                                     clip));
    const float g = g_act(Clip(xw[3 * xs + j] + hr[3 * hs + j], clip));
    const float cell = f * c[j] + i * g;
    const float o =
        f_act(Clip(xw[xs + j] + hr[hs + j] + peep[ps + j] * cell, clip));
    c[j] = cell;
    h[j] = o * g_act(cell);
  }
}

void GruCellAny(const OpData& d, bool linear_before_reset, const float* xw,
                int xs, const float* hr, int hs, int U, float clip,
                const float* h_prev, float* h) {
  for (int j = 0; j < U; ++j) {
    const float z =
        Activate(d.gate_activation, Clip(xw[j] + hr[j], clip), d.alpha, d.beta);
    float pre = xw[2 * xs + j] + hr[2 * hs + j];
    if (linear_before_reset) {
      const float r =
          Activate(d.gate_activation, Clip(xw[xs + j] + hr[hs + j], clip),
                   d.alpha, d.beta);
      pre = xw[2 * xs + j] + r * hr[2 * hs + j];
    }
    const float candidate =
        Activate(d.activation, Clip(pre, clip), d.alpha, d.beta);
    h[j] = (1.f - z) * candidate + z * h_prev[j];
  }
}

void RnnCellAny(const OpData& d, const float* xw, const float* hr, int U,
                float clip, float* h) {
  for (int j = 0; j < U; ++j) {
    h[j] = Activate(d.activation, Clip(xw[j] + hr[j], clip), d.alpha, d.beta);
  }
}

// rh = sigmoid(r pre-activation) * h (GRU without linear_before_reset).
__attribute__((noinline)) void ResetHidden(const float* __restrict x_r,
                                           const float* __restrict h_r,
                                           const float* __restrict h, int H,
                                           float clip, float* __restrict rh) {
  for (int j = 0; j < H; ++j) {
    rh[j] = FastSigmoid(Clip(x_r[j] + h_r[j], clip)) * h[j];
  }
}

// The steps of one direction (chunked path): what every chunk of every
// step reads and writes, and the claim/done counters that order them.
struct Steps {
  const OpData* d;
  Layout at;
  int dir;
  bool reverse;
  const Tensor* lens;
  const float* xw;  // [T*N, G*H] input projections
  float* h[2];      // state before step s in h[s & 1]
  float* c;         // [N, H]
  float* products;  // chunk k's [N, G*u_k] at N*G*begin_k
  float* y;
  const float* packed_r;
  const float* rec_bias;  // chunk column order
  const float* peep;
  float clip;
  // The counters each on a cache line of its own: written every step, they
  // would otherwise take the line of the pointers above away from every
  // other core each time (and each claim from the done counter's waiters).
  struct alignas(64) Counter {
    std::atomic<int> value;
  };
  Counter claimed[kMaxChunks];  // the last step claimed, per chunk
  Counter done;                 // chunks finished, all steps
};

// Waits until `counter` reaches `target`: pauses between reads (a spinning
// core otherwise floods the line with loads and pays a pipeline flush when
// it changes), yielding now and then to a preempted thread.
void WaitFor(const std::atomic<int>& counter, int target) {
  for (int i = 0; counter.load(std::memory_order_acquire) < target; ++i) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
    if ((i & 255) == 255) std::this_thread::yield();
  }
}

// Step `s` of chunk `k`.
void RunChunk(Steps* st, int s, int k) {
  const OpData* d = st->d;
  const int T = d->steps, N = d->batch, H = d->hidden, G = d->gates, GH = G * H;
  const int begin = d->chunk_begin[k], U = d->chunk_begin[k + 1] - begin;
  const int t = st->reverse ? T - 1 - s : s;
  const float* h_prev = st->h[s & 1];
  float* h_next = st->h[(s + 1) & 1];
  float* products = st->products + int64_t{N} * G * begin;
  GemmEpilogue epilogue;
  if (d->gru) epilogue.bias = st->rec_bias + G * begin;
  Gemm(N, G * U, H, h_prev, H, st->packed_r + d->chunk_offset[k], products,
       G * U, 1, epilogue, nullptr);
  int length = 0;
  for (int n = 0; n < N; ++n) {
    float* y_row = st->y + st->at.Y(t, st->dir, n) + begin;
    const float* hp = h_prev + int64_t{n} * H + begin;
    float* hn = h_next + int64_t{n} * H + begin;
    SequenceLength(st->lens, n, T, &length);
    if (t >= length) {  // past the end: state kept, zeros in Y
      memcpy(hn, hp, sizeof(float) * U);
      memset(y_row, 0, sizeof(float) * U);
      continue;
    }
    const float* x_n = st->xw + st->at.XRow(t, n) * GH + begin;
    const float* p_n = products + int64_t{n} * G * U;
    if (!d->default_activations) {
      if (d->lstm) {
        LstmCellAny(*d, x_n, H, p_n, U, st->peep + begin, H, U, st->clip, hn,
                    st->c + int64_t{n} * H + begin);
      } else if (d->gru) {
        GruCellAny(*d, true, x_n, H, p_n, U, U, st->clip, hp, hn);
      } else {
        RnnCellAny(*d, x_n, p_n, U, st->clip, hn);
      }
    } else if (d->lstm) {
      float* c_n = st->c + int64_t{n} * H + begin;
      if (d->input_forget) {
        LstmCell<true>(x_n, H, p_n, U, st->peep + begin, H, U, st->clip, hn,
                       c_n);
      } else {
        LstmCell<false>(x_n, H, p_n, U, st->peep + begin, H, U, st->clip, hn,
                        c_n);
      }
    } else if (d->gru) {
      GruCell<true>(x_n, H, p_n, U, U, st->clip, hp, hn);
    } else {
      RnnCell(x_n, p_n, U, st->clip, hn);
    }
    memcpy(y_row, hn, sizeof(float) * U);
  }
}

// Task `task` of the parallel region over every step (see the file comment).
void RunSteps(void* arg, int task) {
  Steps* st = static_cast<Steps*>(arg);
  const int K = st->d->chunks, T = st->d->steps;
  for (int s = 0; s < T; ++s) {
    WaitFor(st->done.value, s * K);
    for (int j = 0; j < K; ++j) {
      const int k = (task + j) % K;  // own chunk first
      int expected = s - 1;
      if (st->claimed[k].value.compare_exchange_strong(
              expected, s, std::memory_order_acq_rel)) {
        RunChunk(st, s, k);
        st->done.value.fetch_add(1, std::memory_order_acq_rel);
      }
    }
  }
  // The caller returns only when the last step is complete.
  if (task == 0) WaitFor(st->done.value, T * K);
}

// GRU without linear_before_reset: r * h must be complete before its
// product with R's h rows, so each step's GEMMs run on the pool one by one.
void RunSplitSteps(Steps* st, ThreadPool* pool, const float* packed_rh,
                   float* rh) {
  const OpData* d = st->d;
  const int T = d->steps, N = d->batch, H = d->hidden, GH = d->gates * H;
  int length = 0;
  for (int s = 0; s < T; ++s) {
    const int t = st->reverse ? T - 1 - s : s;
    const float* h_prev = st->h[s & 1];
    float* h_next = st->h[(s + 1) & 1];
    Gemm(N, 2 * H, H, h_prev, H, st->packed_r, st->products, GH, 1,
         GemmEpilogue(), pool);
    for (int n = 0; n < N; ++n) {  // r * h, then its product with R_h
      const float* x_r = st->xw + st->at.XRow(t, n) * GH + H;
      const float* h_r = st->products + int64_t{n} * GH + H;
      if (d->default_activations) {
        ResetHidden(x_r, h_r, h_prev + int64_t{n} * H, H, st->clip,
                    rh + int64_t{n} * H);
      } else {
        for (int j = 0; j < H; ++j) {
          rh[int64_t{n} * H + j] =
              Activate(d->gate_activation, Clip(x_r[j] + h_r[j], st->clip),
                       d->alpha, d->beta) *
              h_prev[int64_t{n} * H + j];
        }
      }
    }
    Gemm(N, H, H, rh, H, packed_rh, st->products + 2 * H, GH, 1, GemmEpilogue(),
         pool);
    for (int n = 0; n < N; ++n) {
      float* y_row = st->y + st->at.Y(t, st->dir, n);
      const float* hp = h_prev + int64_t{n} * H;
      float* hn = h_next + int64_t{n} * H;
      SequenceLength(st->lens, n, T, &length);
      if (t >= length) {
        memcpy(hn, hp, sizeof(float) * H);
        memset(y_row, 0, sizeof(float) * H);
        continue;
      }
      if (d->default_activations) {
        GruCell<false>(st->xw + st->at.XRow(t, n) * GH, H,
                       st->products + int64_t{n} * GH, H, H, st->clip, hp, hn);
      } else {
        GruCellAny(*d, false, st->xw + st->at.XRow(t, n) * GH, H,
                   st->products + int64_t{n} * GH, H, H, st->clip, hp, hn);
      }
      memcpy(y_row, hn, sizeof(float) * H);
    }
  }
}

Status EvalOptimized(KernelContext* context, Node* node, OpData* d) {
  const int T = d->steps, N = d->batch, H = d->hidden, G = d->gates, GH = G * H,
            I = d->input_size;
  float* scratch = static_cast<float*>(node->scratch[d->scratch]);
  const Tensor* h0 = context->input(*node, kInitialH);
  const Tensor* c0 = d->lstm ? context->input(*node, kInitialC) : nullptr;
  ThreadPool* pool = context->thread_pool();
  Steps st;
  st.d = d;
  st.at = Layout{T, d->dirs, N, H, d->batch_major};
  st.lens = context->input(*node, kSequenceLens);
  st.xw = scratch + d->xw;
  st.h[0] = scratch + d->h;
  st.h[1] = scratch + d->h2;
  st.c = scratch + d->c;
  st.products = scratch + d->products;
  st.y = context->output(*node, 0)->data_as<float>();
  st.clip = d->clip > 0 ? d->clip : __builtin_inff();
  int length = 0;
  for (int n = 0; n < N; ++n) {  // validate all before computing
    TWL_RETURN_IF_ERROR(SequenceLength(st.lens, n, T, &length));
  }
  for (int dir = 0; dir < d->dirs; ++dir) {
    st.dir = dir;
    st.reverse = d->reverse || dir == 1;
    GemmEpilogue in_epilogue;
    in_epilogue.bias = d->input_bias.data() + int64_t{dir} * GH;
    if (T * N > 0) {
      Gemm(T * N, GH, I, context->input(*node, kX)->data_as<float>(), I,
           d->packed_w.data() + dir * d->packed_w_size, scratch + d->xw, GH, 1,
           in_epilogue, pool);
    }
    for (int n = 0; n < N; ++n) {
      const int64_t s = st.at.State(dir, n);
      for (int j = 0; j < H; ++j) {
        st.h[0][n * H + j] = h0 ? h0->data_as<float>()[s + j] : 0.f;
        st.c[n * H + j] = c0 ? c0->data_as<float>()[s + j] : 0.f;
      }
    }
    st.packed_r = d->packed_r.data() + dir * d->packed_r_size;
    st.rec_bias = d->recurrent_bias.data() + int64_t{dir} * GH;
    st.peep = d->peepholes.data() + int64_t{dir} * 3 * H;
    if (d->chunked) {
      for (int k = 0; k < d->chunks; ++k) st.claimed[k].value.store(-1);
      st.done.value.store(0);
      if (d->chunks > 1 && pool != nullptr) {
        pool->Run(d->chunks, RunSteps, &st);
      } else {
        RunSteps(&st, 0);
      }
    } else {
      RunSplitSteps(&st, pool, d->packed_rh.data() + dir * d->packed_rh_size,
                    scratch + d->rh);
    }
    const float* h = st.h[T & 1];
    for (int n = 0; n < N; ++n) {  // final states
      SequenceLength(st.lens, n, T, &length);
      const bool empty = length == 0;
      const int64_t s = st.at.State(dir, n);
      for (int out = 1; out < node->num_outputs; ++out) {
        float* dst = context->output(*node, out)->data_as<float>() + s;
        const float* src = (out == 1 ? h : st.c) + int64_t{n} * H;
        for (int j = 0; j < H; ++j) dst[j] = empty ? 0.f : src[j];
      }
    }
  }
  return Status::Ok();
}

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double ActivateD(schema::RNNActivation a, double x, const OpData& d) {
  switch (a) {
    case schema::RNNActivation::SIGMOID:
      return Sigmoid(x);
    case schema::RNNActivation::TANH:
      return std::tanh(x);
    case schema::RNNActivation::HARD_SIGMOID:
      return std::min(1.0, std::max(0.0, double{d.alpha} * x + d.beta));
    default:  // RELU
      return std::max(0.0, x);
  }
}
double ClipD(double x, double clip) {
  return clip > 0 ? std::min(clip, std::max(-clip, x)) : x;
}

// The equations, one sequence and one step at a time.
Status EvalReference(KernelContext* context, Node* node, OpData* d) {
  const int T = d->steps, N = d->batch, H = d->hidden, G = d->gates, GH = G * H,
            I = d->input_size;
  const Layout at{T, d->dirs, N, H, d->batch_major};
  float* scratch = static_cast<float*>(node->scratch[d->scratch]);
  float* h = scratch + d->h;
  float* c = scratch + d->c;
  const float* x = context->input(*node, kX)->data_as<float>();
  const float* w = context->input(*node, kW)->data_as<float>();
  const float* r = context->input(*node, kR)->data_as<float>();
  const Tensor* b = context->input(*node, kB);
  const Tensor* p = d->lstm ? context->input(*node, kP) : nullptr;
  const Tensor* lens = context->input(*node, kSequenceLens);
  const Tensor* h0 = context->input(*node, kInitialH);
  const Tensor* c0 = d->lstm ? context->input(*node, kInitialC) : nullptr;
  float* y = context->output(*node, 0)->data_as<float>();
  const double clip = d->clip;
  const auto f_act = [d](double x) {
    return ActivateD(d->gate_activation, x, *d);
  };
  const auto g_act = [d](double x) { return ActivateD(d->activation, x, *d); };
  // Pre-activation of gate g, unit j: x W_g^T + Wb_g (+ hh R_g^T + Rb_g).
  auto dot = [](const float* a, const float* b, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += static_cast<double>(a[i]) * b[i];
    return s;
  };
  int length = 0;
  for (int n = 0; n < N; ++n) {
    TWL_RETURN_IF_ERROR(SequenceLength(lens, n, T, &length));
  }
  for (int dir = 0; dir < d->dirs; ++dir) {
    const bool reverse = d->reverse || dir == 1;
    const float* wd = w + int64_t{dir} * GH * I;
    const float* rd = r + int64_t{dir} * GH * H;
    const float* bd = b ? b->data_as<float>() + int64_t{dir} * 2 * GH : nullptr;
    const float* pd = p ? p->data_as<float>() + int64_t{dir} * 3 * H : nullptr;
    for (int n = 0; n < N; ++n) {
      SequenceLength(lens, n, T, &length);
      float* hn = h + int64_t{n} * H;
      float* cn = c + int64_t{n} * H;
      const int64_t s = at.State(dir, n);
      for (int j = 0; j < H; ++j) {
        hn[j] = h0 ? h0->data_as<float>()[s + j] : 0.f;
        cn[j] = c0 ? c0->data_as<float>()[s + j] : 0.f;
      }
      // The new state goes to the Y row of its step; the next step reads
      // the previous state from there (or from hn at the first step).
      const float* prev = hn;
      for (int step = 0; step < T; ++step) {
        const int t = reverse ? T - 1 - step : step;
        float* y_row = y + at.Y(t, dir, n);
        if (t >= length) {
          for (int j = 0; j < H; ++j) y_row[j] = 0.f;
          continue;
        }
        const float* xt = x + at.XRow(t, n) * I;
        for (int j = 0; j < H; ++j) {
          auto pre = [&](int g, bool recurrent) {
            const int64_t row = int64_t{g} * H + j;
            double v = dot(xt, wd + row * I, I) + (bd ? bd[row] : 0.0);
            if (recurrent)
              v += dot(prev, rd + row * H, H) + (bd ? bd[GH + row] : 0.0);
            return v;
          };
          double out, new_cell = 0;
          if (d->lstm) {
            const double cp = cn[j];
            double i = pre(0, true) + (pd ? pd[j] * cp : 0.0);
            double f = pre(2, true) + (pd ? pd[2 * H + j] * cp : 0.0);
            i = f_act(ClipD(i, clip));
            f = d->input_forget ? 1.0 - i : f_act(ClipD(f, clip));
            new_cell = f * cp + i * g_act(ClipD(pre(3, true), clip));
            double o = pre(1, true) + (pd ? pd[H + j] * new_cell : 0.0);
            o = f_act(ClipD(o, clip));
            out = o * g_act(new_cell);
          } else if (!d->gru) {
            out = g_act(ClipD(pre(0, true), clip));
          } else {
            const double z = f_act(ClipD(pre(0, true), clip));
            double candidate;
            if (d->linear_before_reset) {
              const int64_t row = int64_t{2} * H + j;
              const double hr =
                  dot(prev, rd + row * H, H) + (bd ? bd[GH + row] : 0.0);
              const double rr = f_act(ClipD(pre(1, true), clip));
              candidate = pre(2, false) + rr * hr;
            } else {
              // (r * h) R_h^T: r for every unit k of the previous state.
              const int64_t row = int64_t{2} * H + j;
              double acc = 0;
              for (int k = 0; k < H; ++k) {
                const int64_t rrow = int64_t{H} + k;
                double rk = dot(xt, wd + rrow * I, I) +
                            dot(prev, rd + rrow * H, H) +
                            (bd ? bd[rrow] + bd[GH + rrow] : 0.0);
                acc += f_act(ClipD(rk, clip)) * prev[k] * rd[row * H + k];
              }
              candidate = pre(2, false) + acc + (bd ? bd[GH + row] : 0.0);
            }
            candidate = g_act(ClipD(candidate, clip));
            out = (1.0 - z) * candidate + z * prev[j];
          }
          y_row[j] = static_cast<float>(out);
          if (d->lstm) cn[j] = static_cast<float>(new_cell);
        }
        prev = y_row;
      }
      for (int j = 0; j < H; ++j) hn[j] = length == 0 ? 0.f : prev[j];
      if (length == 0) {
        for (int j = 0; j < H; ++j) cn[j] = 0.f;
      }
      for (int out = 1; out < node->num_outputs; ++out) {
        float* dst = context->output(*node, out)->data_as<float>() + s;
        memcpy(dst, out == 1 ? hn : cn, sizeof(float) * H);
      }
    }
  }
  return Status::Ok();
}

Status Eval(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  // A batch of 0: every output is empty and no scratch was planned (a null
  // buffer that the offsets below must not be added to).
  if (d->batch == 0) return Status::Ok();
  TWL_CHECK_ARG(node->scratch[d->scratch] != nullptr,
                "the recurrence's scratch buffer was not allocated");
  return context->use_reference() ? EvalReference(context, node, d)
                                  : EvalOptimized(context, node, d);
}

}  // namespace

KernelRegistration Register_LSTM() {
  return {BuiltinOperator::LSTM, 1, InitLstm, Free, Prepare, Eval};
}
KernelRegistration Register_GRU() {
  return {BuiltinOperator::GRU, 1, InitGru, Free, Prepare, Eval};
}
KernelRegistration Register_RNN() {
  return {BuiltinOperator::RNN, 1, InitRnn, Free, Prepare, Eval};
}

}  // namespace twl

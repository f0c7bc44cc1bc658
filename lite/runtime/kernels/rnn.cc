// LSTM, GRU and RNN (float32) with ONNX's semantics and operand layouts
// (see LSTMOptions, GRUOptions and RNNOptions in lite/schema/twl.fbs): one or
// two directions, per-sequence lengths (steps past a sequence's end leave its
// state alone and give zeros in Y; a sequence of length 0 gives zero final
// states, as onnxruntime does), optional initial states, LSTM peepholes, cell
// clip and coupled input/forget gates, GRU's linear_before_reset, time- or
// batch-major layouts.
//
// Optimized path: W and R are packed into GEMM panels and the biases folded
// into one vector per GEMM in prepare. Per direction, one GEMM computes every
// step's input projection X W^T + b up front; each step then runs the
// recurrent GEMM H R^T and a fused, vectorizable gate pass (polynomial
// sigmoid and tanh). All buffers are planned scratch: eval allocates nothing.
// Reference path: the equations step by step from the original tensors, with
// double accumulation and <cmath> activations.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "lite/runtime/gemm.h"
#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/fast_math.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

enum InputIndex { kX, kW, kR, kB, kSequenceLens, kInitialH, kInitialC, kP };

struct OpData {
  bool lstm = true, gru = false;  // neither: RNN
  int gates = 4;  // G: 4 (LSTM: i, o, f, c), 3 (GRU: z, r, h) or 1 (RNN)
  int dirs = 1, steps = 0, batch = 0, input_size = 0, hidden = 0;
  bool reverse = false;  // the one direction runs backwards
  bool batch_major = false, input_forget = false, linear_before_reset = false;
  float clip = 0;  // 0: none
  // Optimized path, per direction: packed W [G*H, I] and R [G*H, H] (GRU
  // without linear_before_reset: R's z and r rows [2H, H], and its h rows
  // [H, H] in packed_rh), the bias of the input GEMM (Wb + Rb; GRU with
  // linear_before_reset: Wb) and of the recurrent GEMM (GRU with
  // linear_before_reset: Rb), LSTM peepholes (zeros when absent).
  AlignedFloats packed_w, packed_r, packed_rh, input_bias, recurrent_bias,
      peepholes;
  size_t packed_w_size = 0, packed_r_size = 0, packed_rh_size = 0;
  int scratch = -1;
  // Scratch offsets (floats): input projections [T*N, G*H], recurrent
  // products [N, G*H], h and c states [N, H], r * h (GRU) [N, H].
  size_t xw = 0, products = 0, h = 0, c = 0, rh = 0;
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
  } else if (d->gru) {
    const auto* o = GetOptions<schema::GRUOptions>(node);
    direction = o->direction();
    hidden = o->hidden_size();
    d->batch_major = o->batch_major();
    d->clip = o->clip();
    d->linear_before_reset = o->linear_before_reset();
  } else {
    const auto* o = GetOptions<schema::RNNOptions>(node);
    direction = o->direction();
    hidden = o->hidden_size();
    d->batch_major = o->batch_major();
    d->clip = o->clip();
  }
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

// Packs the constant weights and folds the biases (optimized path).
Status PackWeights(KernelContext* context, Node* node, OpData* d) {
  const int H = d->hidden, GH = d->gates * H, I = d->input_size;
  const float* w = context->input(*node, kW)->data_as<float>();
  const float* r = context->input(*node, kR)->data_as<float>();
  const Tensor* b = context->input(*node, kB);
  const Tensor* p = d->lstm ? context->input(*node, kP) : nullptr;
  const bool split_r = d->gru && !d->linear_before_reset;
  d->packed_w_size = PackedGemmBSize(GH, I);
  d->packed_r_size = PackedGemmBSize(split_r ? 2 * H : GH, H);
  d->packed_rh_size = split_r ? PackedGemmBSize(H, H) : 0;
  const int dirs = d->dirs;
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
    if (split_r) {
      PackGemmB(rd, 2 * H, H, H, packed_r);
      PackGemmB(rd + int64_t{2} * H * H, H, H, H,
                d->packed_rh.data() + dir * d->packed_rh_size);
    } else {
      PackGemmB(rd, GH, H, H, packed_r);
    }
    float* in_bias = d->input_bias.data() + int64_t{dir} * GH;
    float* rec_bias = d->recurrent_bias.data() + int64_t{dir} * GH;
    const float* bd = b ? b->data_as<float>() + int64_t{dir} * 2 * GH : nullptr;
    for (int j = 0; j < GH; ++j) {
      const float wb = bd ? bd[j] : 0.f, rb = bd ? bd[GH + j] : 0.f;
      if (d->gru && d->linear_before_reset) {
        in_bias[j] = wb;
        rec_bias[j] = rb;
      } else {
        in_bias[j] = wb + rb;
        rec_bias[j] = 0.f;
      }
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

Status Prepare(KernelContext* context, Node* node) {
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
    d->xw = carve(T * N * G * H);
    d->products = carve(N * G * H);
    d->rh = carve(N * H);
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

// One LSTM step of one sequence: pre-activations xw (input projection plus
// biases) and hr (recurrent product), state h, c updated in place. Separate
// functions with restrict pointers and the coupled gate as a template
// argument, so that GCC vectorizes the loop (a select on a runtime bool
// kept it scalar: 3x slower).
template <bool kInputForget>
__attribute__((noinline)) void LstmCell(const float* __restrict xw,
                                        const float* __restrict hr,
                                        const float* __restrict peep, int H,
                                        float clip, float* __restrict h,
                                        float* __restrict c) {
  const float* pi = peep;
  const float* po = peep + H;
  const float* pf = peep + 2 * H;
  for (int j = 0; j < H; ++j) {
    const float i = FastSigmoid(Clip(xw[j] + hr[j] + pi[j] * c[j], clip));
    const float f =
        kInputForget ? 1.f - i
                     : FastSigmoid(Clip(
                           xw[2 * H + j] + hr[2 * H + j] + pf[j] * c[j], clip));
    const float g = FastTanh(Clip(xw[3 * H + j] + hr[3 * H + j], clip));
    const float cell = f * c[j] + i * g;
    const float o =
        FastSigmoid(Clip(xw[H + j] + hr[H + j] + po[j] * cell, clip));
    c[j] = cell;
    h[j] = o * FastTanh(cell);
  }
}

// One GRU step of one sequence. kLinearBeforeReset: hr holds H R^T + Rb for
// all three gates; otherwise its h part is already (r * H) R_h^T.
template <bool kLinearBeforeReset>
__attribute__((noinline)) void GruCell(const float* __restrict xw,
                                       const float* __restrict hr, int H,
                                       float clip, float* __restrict h) {
  for (int j = 0; j < H; ++j) {
    const float z = FastSigmoid(Clip(xw[j] + hr[j], clip));
    float pre;
    if (kLinearBeforeReset) {
      const float r = FastSigmoid(Clip(xw[H + j] + hr[H + j], clip));
      pre = xw[2 * H + j] + r * hr[2 * H + j];
    } else {
      pre = xw[2 * H + j] + hr[2 * H + j];
    }
    const float candidate = FastTanh(Clip(pre, clip));
    h[j] = (1.f - z) * candidate + z * h[j];
  }
}

// One RNN step of one sequence: h = tanh(xw + hr).
__attribute__((noinline)) void RnnCell(const float* __restrict xw,
                                       const float* __restrict hr, int H,
                                       float clip, float* __restrict h) {
  for (int j = 0; j < H; ++j) h[j] = FastTanh(Clip(xw[j] + hr[j], clip));
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

Status EvalOptimized(KernelContext* context, Node* node, OpData* d) {
  const int T = d->steps, N = d->batch, H = d->hidden, G = d->gates, GH = G * H,
            I = d->input_size;
  const Layout at{T, d->dirs, N, H, d->batch_major};
  float* scratch = static_cast<float*>(node->scratch[d->scratch]);
  float* xw = scratch + d->xw;
  float* products = scratch + d->products;
  float* h = scratch + d->h;
  float* c = scratch + d->c;
  float* rh = scratch + d->rh;
  const float clip = d->clip > 0 ? d->clip : __builtin_inff();
  const Tensor* lens = context->input(*node, kSequenceLens);
  const Tensor* h0 = context->input(*node, kInitialH);
  const Tensor* c0 = d->lstm ? context->input(*node, kInitialC) : nullptr;
  float* y = context->output(*node, 0)->data_as<float>();
  ThreadPool* pool = context->thread_pool();
  int length = 0;
  for (int n = 0; n < N; ++n) {  // validate all before computing
    TWL_RETURN_IF_ERROR(SequenceLength(lens, n, T, &length));
  }
  if (N == 0) return Status::Ok();  // every output is empty
  const bool split_r = d->gru && !d->linear_before_reset;
  for (int dir = 0; dir < d->dirs; ++dir) {
    const bool reverse = d->reverse || dir == 1;
    GemmEpilogue in_epilogue;
    in_epilogue.bias = d->input_bias.data() + int64_t{dir} * GH;
    if (T * N > 0) {
      Gemm(T * N, GH, I, context->input(*node, kX)->data_as<float>(), I,
           d->packed_w.data() + dir * d->packed_w_size, xw, GH, 1, in_epilogue,
           pool);
    }
    for (int n = 0; n < N; ++n) {
      const int64_t s = at.State(dir, n);
      for (int j = 0; j < H; ++j) {
        h[n * H + j] = h0 ? h0->data_as<float>()[s + j] : 0.f;
        c[n * H + j] = c0 ? c0->data_as<float>()[s + j] : 0.f;
      }
    }
    GemmEpilogue rec_epilogue;
    if (d->gru && d->linear_before_reset) {
      rec_epilogue.bias = d->recurrent_bias.data() + int64_t{dir} * GH;
    }
    const float* packed_r = d->packed_r.data() + dir * d->packed_r_size;
    const float* packed_rh = d->packed_rh.data() + dir * d->packed_rh_size;
    const float* peep = d->peepholes.data() + int64_t{dir} * 3 * H;
    for (int step = 0; step < T; ++step) {
      const int t = reverse ? T - 1 - step : step;
      Gemm(N, split_r ? 2 * H : GH, H, h, H, packed_r, products, GH, 1,
           rec_epilogue, pool);
      if (split_r) {  // r * h, then its product with R's h rows
        for (int n = 0; n < N; ++n) {
          const float* x_r = xw + at.XRow(t, n) * GH + H;
          const float* h_r = products + int64_t{n} * GH + H;
          ResetHidden(x_r, h_r, h + int64_t{n} * H, H, clip,
                      rh + int64_t{n} * H);
        }
        Gemm(N, H, H, rh, H, packed_rh, products + 2 * H, GH, 1, GemmEpilogue(),
             pool);
      }
      for (int n = 0; n < N; ++n) {
        float* y_row = y + at.Y(t, dir, n);
        SequenceLength(lens, n, T, &length);
        if (t >= length) {
          memset(y_row, 0, sizeof(float) * H);
          continue;
        }
        const float* x_n = xw + at.XRow(t, n) * GH;
        const float* p_n = products + int64_t{n} * GH;
        float* h_n = h + int64_t{n} * H;
        if (d->lstm && d->input_forget) {
          LstmCell<true>(x_n, p_n, peep, H, clip, h_n, c + int64_t{n} * H);
        } else if (d->lstm) {
          LstmCell<false>(x_n, p_n, peep, H, clip, h_n, c + int64_t{n} * H);
        } else if (split_r) {
          GruCell<false>(x_n, p_n, H, clip, h_n);
        } else if (d->gru) {
          GruCell<true>(x_n, p_n, H, clip, h_n);
        } else {
          RnnCell(x_n, p_n, H, clip, h_n);
        }
        memcpy(y_row, h_n, sizeof(float) * H);
      }
    }
    for (int n = 0; n < N; ++n) {  // final states
      SequenceLength(lens, n, T, &length);
      const bool empty = length == 0;
      const int64_t s = at.State(dir, n);
      for (int out = 1; out < node->num_outputs; ++out) {
        float* dst = context->output(*node, out)->data_as<float>() + s;
        const float* src = (out == 1 ? h : c) + int64_t{n} * H;
        for (int j = 0; j < H; ++j) dst[j] = empty ? 0.f : src[j];
      }
    }
  }
  return Status::Ok();
}

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
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
            i = Sigmoid(ClipD(i, clip));
            f = d->input_forget ? 1.0 - i : Sigmoid(ClipD(f, clip));
            new_cell = f * cp + i * std::tanh(ClipD(pre(3, true), clip));
            double o = pre(1, true) + (pd ? pd[H + j] * new_cell : 0.0);
            o = Sigmoid(ClipD(o, clip));
            out = o * std::tanh(new_cell);
          } else if (!d->gru) {
            out = std::tanh(ClipD(pre(0, true), clip));
          } else {
            const double z = Sigmoid(ClipD(pre(0, true), clip));
            double candidate;
            if (d->linear_before_reset) {
              const int64_t row = int64_t{2} * H + j;
              const double hr =
                  dot(prev, rd + row * H, H) + (bd ? bd[GH + row] : 0.0);
              const double rr = Sigmoid(ClipD(pre(1, true), clip));
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
                acc += Sigmoid(ClipD(rk, clip)) * prev[k] * rd[row * H + k];
              }
              candidate = pre(2, false) + acc + (bd ? bd[GH + row] : 0.0);
            }
            candidate = std::tanh(ClipD(candidate, clip));
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

// MAX_POOL_2D, AVERAGE_POOL_2D and LP_POOL_2D over NHWC: SAME/VALID or
// explicit padding, dilation, ceil_mode, fused activation. Max takes
// float32, int8 and uint8, and has an optional int64 indices output; average
// and Lp float32. Padded elements are left out of max and Lp, and out of the
// average's count unless count_include_pad (then the window's part inside
// the padded input counts, not what ceil_mode's partial last window reaches
// past it).
//
// Optimized path (max, average): per output row, the window's input rows
// are combined first, then per output pixel its columns (the compiler
// vectorizes over channels; each column's taps are tabulated once per
// invoke); output rows are split across threads. Lp and the indices output
// run the reference loops.
#include <cmath>
#include <limits>
#include <type_traits>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

enum class PoolKind { kMax, kAverage, kLp };

struct OpData {
  ActivationFunctionType act;
  DataType type;
  int batch, in_h, in_w, channels, out_h, out_w, k_h, k_w;
  int stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
  // Ends of the padded input (input size + bottom/right padding): what
  // count_include_pad counts.
  int padded_h, padded_w;
  bool count_include_pad, indices_column_major;
  int p;
  int column_taps = -1;  // scratch: the optimized path's Taps per column
};

// The taps start, start + d, ..., start + (k - 1) d of one window dim:
// those inside the input ([begin, end) stepping by d, n of them) and the
// number before `padded_end` (what count_include_pad counts).
struct Taps {
  int begin, end, n, counted;
};
inline Taps TapsOf(int start, int k, int d, int in, int padded_end) {
  int64_t stop = start + static_cast<int64_t>(k - 1) * d + 1;
  int begin = start < 0 ? start + (-start + d - 1) / d * d : start;
  int end = static_cast<int>(std::min<int64_t>(stop, in));
  int n = begin < end ? (end - begin + d - 1) / d : 0;
  int64_t counted = (std::min<int64_t>(stop, padded_end) - start + d - 1) / d;
  return {begin, end, n, static_cast<int>(counted)};
}

// Output size, padding before and end of the padded input along one dim.
Status PoolSize(const schema::Pool2DOptions& o, int in, int k, int stride,
                int dilation, int pad_before, int pad_after, int* out, int* pad,
                int* padded_end) {
  if (o.padding() == schema::Padding::SAME) {
    TWL_CHECK_ARG(!o.ceil_mode() && !pad_before && !pad_after,
                  "ceil_mode and explicit padding need VALID padding");
    TWL_RETURN_IF_ERROR(
        ComputePadding(o.padding(), in, k, stride, dilation, out, pad));
    int64_t effective = static_cast<int64_t>(k - 1) * dilation + 1;
    int64_t total = std::max<int64_t>((*out - 1) * stride + effective - in, 0);
    *padded_end = static_cast<int>(in + total - *pad);
    return Status::Ok();
  }
  TWL_CHECK_ARG(o.padding() == schema::Padding::VALID, "unknown padding %d",
                static_cast<int>(o.padding()));
  TWL_CHECK_ARG(stride >= 1 && dilation >= 1 && k >= 1,
                "stride (%d), dilation (%d) and filter size (%d) must be >= 1",
                stride, dilation, k);
  int64_t effective = static_cast<int64_t>(k - 1) * dilation + 1;
  TWL_CHECK_ARG(pad_before >= 0 && pad_after >= 0 && pad_before < effective &&
                    pad_after < effective,
                "padding (%d, %d) must be in [0, window size %d)", pad_before,
                pad_after, static_cast<int>(effective));
  TWL_CHECK_ARG(int64_t{in} + pad_before + pad_after <= INT32_MAX / 2,
                "padded input too large");
  int64_t span = static_cast<int64_t>(in) + pad_before + pad_after - effective;
  TWL_CHECK_ARG(span >= 0, "the window (%d) exceeds the padded input (%d)",
                static_cast<int>(effective), in + pad_before + pad_after);
  int64_t size = (o.ceil_mode() ? span + stride - 1 : span) / stride + 1;
  // A last window starting in the bottom/right padding is dropped.
  if (o.ceil_mode() && (size - 1) * stride >= in + pad_before) --size;
  *out = static_cast<int>(size);
  *pad = pad_before;
  *padded_end = in + pad_after;
  return Status::Ok();
}

TWL_PREPARE Status PrepareKind(KernelContext* context, Node* node,
                               PoolKind kind) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 1));
  const auto* options = GetOptions<schema::Pool2DOptions>(*node);
  d->act = options->fused_activation_function();
  TWL_RETURN_IF_ERROR(CheckActivation(d->act));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  d->type = input->type;
  if (kind == PoolKind::kMax && input->type != DataType::kFloat32) {
    TWL_CHECK_ARG(
        input->type == DataType::kInt8 || input->type == DataType::kUInt8,
        "input must be float32, int8 or uint8, got %s",
        DataTypeName(input->type));
    TWL_CHECK_ARG(d->act == ActivationFunctionType::NONE,
                  "a fused activation needs float32");
  } else {
    TWL_RETURN_IF_ERROR(CheckType(input, "input", DataType::kFloat32));
  }
  TWL_RETURN_IF_ERROR(CheckType(output, "output", input->type));
  Tensor* indices = context->output(*node, 1);
  TWL_CHECK_ARG(node->num_outputs <= (kind == PoolKind::kMax ? 2 : 1),
                "too many outputs (%d)", node->num_outputs);
  if (indices != nullptr) {
    TWL_RETURN_IF_ERROR(CheckType(indices, "indices", DataType::kInt64));
  }
  TWL_RETURN_IF_ERROR(CheckRank(input, "input", 4, 4));
  d->batch = input->shape.dims[0];
  d->in_h = input->shape.dims[1];
  d->in_w = input->shape.dims[2];
  d->channels = input->shape.dims[3];
  d->k_h = options->filter_height();
  d->k_w = options->filter_width();
  d->stride_h = options->stride_h();
  d->stride_w = options->stride_w();
  d->dilation_h = options->dilation_h_factor();
  d->dilation_w = options->dilation_w_factor();
  d->count_include_pad = options->count_include_pad();
  d->p = options->p();
  d->indices_column_major = options->indices_column_major();
  TWL_CHECK_ARG(kind != PoolKind::kLp || (d->p >= 1 && d->p <= 64),
                "p (%d) must be in [1, 64]", d->p);
  TWL_RETURN_IF_ERROR(PoolSize(
      *options, d->in_h, d->k_h, d->stride_h, d->dilation_h, options->pad_top(),
      options->pad_bottom(), &d->out_h, &d->pad_top, &d->padded_h));
  TWL_RETURN_IF_ERROR(PoolSize(*options, d->in_w, d->k_w, d->stride_w,
                               d->dilation_w, options->pad_left(),
                               options->pad_right(), &d->out_w, &d->pad_left,
                               &d->padded_w));
  TWL_RETURN_IF_ERROR(context->RequestScratch(
      node, static_cast<size_t>(d->out_w) * sizeof(Taps), &d->column_taps));
  const Shape shape({d->batch, d->out_h, d->out_w, d->channels});
  if (indices != nullptr) {
    TWL_RETURN_IF_ERROR(context->ResizeTensor(indices, shape));
  }
  return context->ResizeTensor(output, shape);
}

template <PoolKind kKind>
TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  return PrepareKind(context, node, kKind);
}

// Reference loops: any kind, type and dilation. An empty window (dilation
// stepping over the whole input) gives 0. Max also writes each maximum's
// position in the input (ONNX's Indices: flattened NCHW, each channel's
// H x W row- or column-major; the first of equal maxima; -1 for an empty
// window) where `indices` is not null.
template <typename T, PoolKind kKind>
void Reference(const OpData& d, const T* in, T* out,
               int64_t* indices = nullptr) {
  for (int b = 0; b < d.batch; ++b)
    for (int oy = 0; oy < d.out_h; ++oy)
      for (int ox = 0; ox < d.out_w; ++ox) {
        Taps ty = TapsOf(oy * d.stride_h - d.pad_top, d.k_h, d.dilation_h,
                         d.in_h, d.padded_h);
        Taps tx = TapsOf(ox * d.stride_w - d.pad_left, d.k_w, d.dilation_w,
                         d.in_w, d.padded_w);
        int count = d.count_include_pad ? ty.counted * tx.counted : ty.n * tx.n;
        for (int c = 0; c < d.channels; ++c) {
          using Acc = std::conditional_t<
              kKind == PoolKind::kMax, T,
              std::conditional_t<kKind == PoolKind::kLp, double, float>>;
          Acc acc = kKind == PoolKind::kMax ? std::numeric_limits<T>::lowest()
                                            : Acc(0);
          int64_t best = -1;
          for (int y = ty.begin; y < ty.end; y += d.dilation_h)
            for (int x = tx.begin; x < tx.end; x += d.dilation_w) {
              T v = in[((static_cast<int64_t>(b) * d.in_h + y) * d.in_w + x) *
                           d.channels +
                       c];
              if constexpr (kKind == PoolKind::kMax) {
                if (v > acc || (y == ty.begin && x == tx.begin))
                  best = d.indices_column_major ? int64_t{x} * d.in_h + y
                                                : int64_t{y} * d.in_w + x;
                acc = std::max(acc, v);
              } else if constexpr (kKind == PoolKind::kAverage) {
                acc += v;
              } else {
                acc += d.p == 2 ? double(v) * v : std::pow(std::fabs(v), d.p);
              }
            }
          if (indices != nullptr) {
            *indices++ =
                best < 0
                    ? -1
                    : (int64_t{b} * d.channels + c) * d.in_h * d.in_w + best;
          }
          if (ty.n * tx.n == 0) {
            acc = Acc(0);
          } else if constexpr (kKind == PoolKind::kAverage) {
            acc /= count;
          } else if constexpr (kKind == PoolKind::kLp) {
            acc = d.p == 2 ? std::sqrt(acc) : std::pow(acc, 1.0 / d.p);
          }
          if constexpr (std::is_same_v<T, float>) {
            *out++ = ApplyActivation(static_cast<float>(acc), d.act);
          } else {
            *out++ = acc;
          }
        }
      }
}

// The taps of output row oy.
inline Taps RowTaps(const OpData& d, int oy) {
  return TapsOf(oy * d.stride_h - d.pad_top, d.k_h, d.dilation_h, d.in_h,
                d.padded_h);
}

// Each output row first combines its window's input rows into one row on
// the stack (max or sum over y: long contiguous vectors), so the per-pixel
// windows below span one row instead of k_h. Rows wider than this many
// floats are read in place instead.
constexpr int64_t kRowBuffer = 4096;

// Channels are combined in blocks held in a local array of fixed size
// (kC when the channel count is a compile-time constant, else 16), so the
// inner loops have constant trip counts and stay in vector registers.
template <typename T, bool kMax, int kC>
void OptimizedRows(const OpData& d, const Taps* columns, const T* in, T* out,
                   int64_t row_begin, int64_t row_end) {
  constexpr int kBlock = kC > 0 ? kC : 16;
  float low, high;
  ActivationRange(d.act, &low, &high);
  const int channels = kC > 0 ? kC : d.channels;
  const int dh = d.dilation_h, dw = d.dilation_w;
  const int64_t row_floats = static_cast<int64_t>(d.in_w) * channels;
  T combined[kRowBuffer];
  for (int64_t row = row_begin; row < row_end; ++row) {
    int b = static_cast<int>(row / d.out_h),
        oy = static_cast<int>(row % d.out_h);
    const Taps ty = RowTaps(d, oy);
    const T* src =
        in + (static_cast<int64_t>(b) * d.in_h + ty.begin) * row_floats;
    int src_rows = ty.n;
    int64_t src_step = dh * row_floats;  // between the window's rows
    if (src_rows > 1 && row_floats <= kRowBuffer) {
      for (int64_t j = 0; j < row_floats; ++j) combined[j] = src[j];
      for (int y = 1; y < src_rows; ++y) {
        const T* line = src + y * src_step;
        for (int64_t j = 0; j < row_floats; ++j) {
          combined[j] = kMax ? (combined[j] > line[j] ? combined[j] : line[j])
                             : combined[j] + line[j];
        }
      }
      src = combined;
      src_rows = 1;
    }
    for (int ox = 0; ox < d.out_w; ++ox) {
      T* o = out + (row * d.out_w + ox) * channels;
      const Taps& tx = columns[ox];
      const bool empty = ty.n * tx.n == 0;  // gives 0, as in Reference
      int count = d.count_include_pad ? ty.counted * tx.counted : ty.n * tx.n;
      float scale = kMax || empty ? 1.f : 1.f / count;
      for (int c0 = 0; c0 < channels; c0 += kBlock) {
        const int n = kC > 0 ? kC : std::min(kBlock, channels - c0);
        T acc[kBlock];
        for (int c = 0; c < kBlock; ++c) {
          acc[c] = kMax && !empty ? std::numeric_limits<T>::lowest() : T(0);
        }
        for (int y = 0; y < src_rows; ++y) {
          const T* line = src + y * src_step + c0;
          for (int x = tx.begin; x < tx.end; x += dw) {
            const T* i = line + static_cast<int64_t>(x) * channels;
            if (n == kBlock) {
              for (int c = 0; c < kBlock; ++c) {
                acc[c] = kMax ? (acc[c] > i[c] ? acc[c] : i[c]) : acc[c] + i[c];
              }
            } else {
              for (int c = 0; c < n; ++c) {
                acc[c] = kMax ? (acc[c] > i[c] ? acc[c] : i[c]) : acc[c] + i[c];
              }
            }
          }
        }
        for (int c = 0; c < n; ++c) {
          if constexpr (std::is_same_v<T, float>) {
            float v = kMax ? acc[c] : acc[c] * scale;
            o[c0 + c] = v < low ? low : (v > high ? high : v);
          } else {
            o[c0 + c] = acc[c];  // max only; no activation
          }
        }
      }
    }
  }
}

template <typename T, bool kMax>
void OptimizedRowsAnyChannels(const OpData& d, const Taps* c, const T* in,
                              T* out, int64_t begin, int64_t end) {
  if constexpr (!std::is_same_v<T, float>) {
    return OptimizedRows<T, kMax, 0>(d, c, in, out, begin, end);
  }
  switch (d.channels) {
    case 1:
      return OptimizedRows<T, kMax, 1>(d, c, in, out, begin, end);
    case 2:
      return OptimizedRows<T, kMax, 2>(d, c, in, out, begin, end);
    case 3:
      return OptimizedRows<T, kMax, 3>(d, c, in, out, begin, end);
    case 4:
      return OptimizedRows<T, kMax, 4>(d, c, in, out, begin, end);
    case 6:
      return OptimizedRows<T, kMax, 6>(d, c, in, out, begin, end);
    case 8:
      return OptimizedRows<T, kMax, 8>(d, c, in, out, begin, end);
    default:
      return OptimizedRows<T, kMax, 0>(d, c, in, out, begin, end);
  }
}

// The optimized rows split over the thread pool, then TANH / SIGMOID.
template <typename T, bool kMax>
void Optimized(KernelContext* context, Node* node, const OpData& d, const T* in,
               Tensor* output) {
  T* out = output->data_as<T>();
  Taps* columns = static_cast<Taps*>(node->scratch[d.column_taps]);
  for (int ox = 0; ox < d.out_w; ++ox) {
    columns[ox] = TapsOf(ox * d.stride_w - d.pad_left, d.k_w, d.dilation_w,
                         d.in_w, d.padded_w);
  }
  int64_t rows = static_cast<int64_t>(d.batch) * d.out_h;
  int64_t per_row = static_cast<int64_t>(d.out_w) * d.channels * d.k_h * d.k_w;
  int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, per_row));
  ThreadPool* pool = context->thread_pool();
  pool->ParallelFor(
      rows, grain, pool->num_threads(), [&](int64_t b, int64_t e) {
        OptimizedRowsAnyChannels<T, kMax>(d, columns, in, out, b, e);
      });
  if constexpr (std::is_same_v<T, float>) {
    if (d.act == ActivationFunctionType::TANH ||
        d.act == ActivationFunctionType::SIGMOID) {
      ApplyActivationInPlace(out, output->num_elements(), d.act);
    }
  }
}

template <PoolKind kKind>
Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  if constexpr (kKind == PoolKind::kMax) {
    Tensor* indices = context->output(*node, 1);
    int64_t* at = indices ? indices->data_as<int64_t>() : nullptr;
    const bool reference = at != nullptr || context->use_reference();
    if (d.type == DataType::kInt8 || d.type == DataType::kUInt8) {
      auto run = [&](auto zero) {
        using T = decltype(zero);
        if (reference) {
          Reference<T, kKind>(d, input->data_as<T>(), output->data_as<T>(), at);
        } else {
          Optimized<T, true>(context, node, d, input->data_as<T>(), output);
        }
      };
      d.type == DataType::kInt8 ? run(int8_t{}) : run(uint8_t{});
      return Status::Ok();
    }
    if (at != nullptr) {
      Reference<float, kKind>(d, input->data_as<float>(),
                              output->data_as<float>(), at);
      return Status::Ok();
    }
  }
  if (kKind == PoolKind::kLp || context->use_reference()) {
    Reference<float, kKind>(d, input->data_as<float>(),
                            output->data_as<float>());
  } else {
    Optimized<float, kKind == PoolKind::kMax>(context, node, d,
                                              input->data_as<float>(), output);
  }
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_MAX_POOL_2D() {
  return {BuiltinOperator::MAX_POOL_2D, 1,
          InitOpData<OpData>,           FreeOpData<OpData>,
          Prepare<PoolKind::kMax>,      Eval<PoolKind::kMax>};
}
KernelRegistration Register_AVERAGE_POOL_2D() {
  return {BuiltinOperator::AVERAGE_POOL_2D,
          1,
          InitOpData<OpData>,
          FreeOpData<OpData>,
          Prepare<PoolKind::kAverage>,
          Eval<PoolKind::kAverage>};
}
// Version 2 reads Pool2DOptions' ONNX fields (version 1 models leave them
// at their defaults): the same kernels.
KernelRegistration Register_MAX_POOL_2D_V2() {
  KernelRegistration r = Register_MAX_POOL_2D();
  r.version = 2;
  return r;
}
KernelRegistration Register_AVERAGE_POOL_2D_V2() {
  KernelRegistration r = Register_AVERAGE_POOL_2D();
  r.version = 2;
  return r;
}
KernelRegistration Register_LP_POOL_2D() {
  return {BuiltinOperator::LP_POOL_2D, 1,
          InitOpData<OpData>,          FreeOpData<OpData>,
          Prepare<PoolKind::kLp>,      Eval<PoolKind::kLp>};
}

}  // namespace twl

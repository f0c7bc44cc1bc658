// MAX_POOL_2D and AVERAGE_POOL_2D over NHWC float32, SAME/VALID padding,
// fused activation. Average divides by the number of in-bounds elements
// (padding is not counted), as TFLite does.
//
// Optimized path: per output row, the window's input rows are combined
// first, then per output pixel its columns (the compiler vectorizes over
// channels); output rows are split across threads.
#include <cfloat>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

struct OpData {
  ActivationFunctionType act;
  int batch, in_h, in_w, channels, out_h, out_w, k_h, k_w;
  int stride_h, stride_w, pad_top, pad_left;
};

void* Init(const schema::Operator&) { return new (std::nothrow) OpData(); }
void Free(void* data) { delete static_cast<OpData*>(data); }

Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 1));
  const auto* options = GetOptions<schema::Pool2DOptions>(*node);
  d->act = options->fused_activation_function();
  TWL_RETURN_IF_ERROR(CheckActivation(d->act));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckType(input, "input", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(output, "output", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckRank(input, "input", 4, 4));
  d->batch = input->shape.dims[0];
  d->in_h = input->shape.dims[1];
  d->in_w = input->shape.dims[2];
  d->channels = input->shape.dims[3];
  d->k_h = options->filter_height();
  d->k_w = options->filter_width();
  d->stride_h = options->stride_h();
  d->stride_w = options->stride_w();
  TWL_RETURN_IF_ERROR(ComputePadding(options->padding(), d->in_h, d->k_h,
                                     d->stride_h, 1, &d->out_h, &d->pad_top));
  TWL_RETURN_IF_ERROR(ComputePadding(options->padding(), d->in_w, d->k_w,
                                     d->stride_w, 1, &d->out_w, &d->pad_left));
  return context->ResizeTensor(
      output, Shape({d->batch, d->out_h, d->out_w, d->channels}));
}

// Window of output (oy, ox) clipped to the input.
struct Window {
  int y0, y1, x0, x1;
};
inline Window Clip(const OpData& d, int oy, int ox) {
  int y = oy * d.stride_h - d.pad_top, x = ox * d.stride_w - d.pad_left;
  return {std::max(y, 0), std::min(y + d.k_h, d.in_h), std::max(x, 0),
          std::min(x + d.k_w, d.in_w)};
}

template <bool kMax>
void Reference(const OpData& d, const float* in, float* out) {
  for (int b = 0; b < d.batch; ++b)
    for (int oy = 0; oy < d.out_h; ++oy)
      for (int ox = 0; ox < d.out_w; ++ox)
        for (int c = 0; c < d.channels; ++c) {
          Window w = Clip(d, oy, ox);
          float acc = kMax ? -FLT_MAX : 0.f;
          int count = 0;
          for (int y = w.y0; y < w.y1; ++y)
            for (int x = w.x0; x < w.x1; ++x, ++count) {
              float v =
                  in[((static_cast<int64_t>(b) * d.in_h + y) * d.in_w + x) *
                         d.channels +
                     c];
              acc = kMax ? std::max(acc, v) : acc + v;
            }
          if (!kMax) acc = count > 0 ? acc / count : 0.f;
          *out++ = ApplyActivation(acc, d.act);
        }
}

// Each output row first combines its window's input rows into one row on
// the stack (max or sum over y: long contiguous vectors), so the per-pixel
// windows below span one row instead of k_h. Rows wider than this many
// floats are read in place instead.
constexpr int64_t kRowBuffer = 4096;

// Channels are combined in blocks held in a local array of fixed size
// (kC when the channel count is a compile-time constant, else 16), so the
// inner loops have constant trip counts and stay in vector registers.
template <bool kMax, int kC>
void OptimizedRows(const OpData& d, const float* in, float* out,
                   int64_t row_begin, int64_t row_end) {
  constexpr int kBlock = kC > 0 ? kC : 16;
  float low, high;
  ActivationRange(d.act, &low, &high);
  const int channels = kC > 0 ? kC : d.channels;
  const int64_t row_floats = static_cast<int64_t>(d.in_w) * channels;
  float combined[kRowBuffer];
  for (int64_t row = row_begin; row < row_end; ++row) {
    int b = static_cast<int>(row / d.out_h),
        oy = static_cast<int>(row % d.out_h);
    const Window rows = Clip(d, oy, 0);
    const float* src =
        in + (static_cast<int64_t>(b) * d.in_h + rows.y0) * row_floats;
    int src_rows = rows.y1 - rows.y0;
    if (src_rows > 1 && row_floats <= kRowBuffer) {
      for (int64_t j = 0; j < row_floats; ++j) combined[j] = src[j];
      for (int y = 1; y < src_rows; ++y) {
        const float* line = src + y * row_floats;
        for (int64_t j = 0; j < row_floats; ++j) {
          combined[j] = kMax ? (combined[j] > line[j] ? combined[j] : line[j])
                             : combined[j] + line[j];
        }
      }
      src = combined;
      src_rows = 1;
    }
    for (int ox = 0; ox < d.out_w; ++ox) {
      float* o = out + (row * d.out_w + ox) * channels;
      Window w = Clip(d, oy, ox);
      int count = (w.y1 - w.y0) * (w.x1 - w.x0);
      float scale = kMax ? 1.f : (count > 0 ? 1.f / count : 0.f);
      for (int c0 = 0; c0 < channels; c0 += kBlock) {
        const int n = kC > 0 ? kC : std::min(kBlock, channels - c0);
        float acc[kBlock];
        for (int c = 0; c < kBlock; ++c) acc[c] = kMax ? -FLT_MAX : 0.f;
        for (int y = 0; y < src_rows; ++y) {
          const float* line = src + y * row_floats + c0;
          for (int x = w.x0; x < w.x1; ++x) {
            const float* i = line + static_cast<int64_t>(x) * channels;
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
          float v = kMax ? acc[c] : acc[c] * scale;
          o[c0 + c] = v < low ? low : (v > high ? high : v);
        }
      }
    }
  }
}

template <bool kMax>
void OptimizedRowsAnyChannels(const OpData& d, const float* in, float* out,
                              int64_t begin, int64_t end) {
  switch (d.channels) {
    case 1:
      return OptimizedRows<kMax, 1>(d, in, out, begin, end);
    case 2:
      return OptimizedRows<kMax, 2>(d, in, out, begin, end);
    case 3:
      return OptimizedRows<kMax, 3>(d, in, out, begin, end);
    case 4:
      return OptimizedRows<kMax, 4>(d, in, out, begin, end);
    case 6:
      return OptimizedRows<kMax, 6>(d, in, out, begin, end);
    case 8:
      return OptimizedRows<kMax, 8>(d, in, out, begin, end);
    default:
      return OptimizedRows<kMax, 0>(d, in, out, begin, end);
  }
}

template <bool kMax>
Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const float* in = context->input(*node, 0)->data_as<float>();
  Tensor* output = context->output(*node, 0);
  float* out = output->data_as<float>();
  if (context->use_reference()) {
    Reference<kMax>(d, in, out);
    return Status::Ok();
  }
  int64_t rows = static_cast<int64_t>(d.batch) * d.out_h;
  int64_t per_row = static_cast<int64_t>(d.out_w) * d.channels * d.k_h * d.k_w;
  int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, per_row));
  ThreadPool* pool = context->thread_pool();
  pool->ParallelFor(rows, grain, pool->num_threads(),
                    [&](int64_t b, int64_t e) {
                      OptimizedRowsAnyChannels<kMax>(d, in, out, b, e);
                    });
  if (d.act == ActivationFunctionType::TANH ||
      d.act == ActivationFunctionType::SIGMOID) {
    ApplyActivationInPlace(out, output->num_elements(), d.act);
  }
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_MAX_POOL_2D() {
  return {BuiltinOperator::MAX_POOL_2D, 1, Init, Free, Prepare, Eval<true>};
}
KernelRegistration Register_AVERAGE_POOL_2D() {
  return {
      BuiltinOperator::AVERAGE_POOL_2D, 1, Init, Free, Prepare, Eval<false>};
}

}  // namespace twl

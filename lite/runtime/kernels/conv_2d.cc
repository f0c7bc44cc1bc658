// CONV_2D: input NHWC, filter OHWI [Cout, KH, KW, Cin], optional bias [Cout],
// strides, dilations, SAME/VALID padding, fused activation (float32).
//
// Optimized path: im2col into planned scratch + the packed GEMM. With many
// output channels the GEMM is pixels x Cout (filter packed once in
// prepare). With few output channels (< one 16-wide panel) it is computed
// transposed, Cout x pixels, with im2col writing pixels straight into packed
// panels, so the vector lanes run over pixels instead of mostly-empty
// channel lanes; with a single input channel and stride_w 1 (first layers
// of grayscale nets) a direct convolution vectorized over output x replaces
// im2col. A 1x1 stride-1 convolution reads the input directly.
#include <algorithm>
#include <cstring>

#include "lite/runtime/gemm.h"
#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

struct Geometry {
  int batch, in_h, in_w, in_c, out_h, out_w, out_c, k_h, k_w;
  int stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
};

struct OpData {
  ActivationFunctionType act;
  Geometry g;
  bool transposed;  // Cout x pixels orientation
  bool pointwise;   // 1x1, stride 1, no padding: no im2col
  bool direct;      // single input channel, stride_w 1: DirectSingleChannel
  bool unpadded;    // no padding, whole-vector output channels: DirectUnpadded
  AlignedFloats packed_filter;
  int im2col_scratch = -1;
};

// Size of one zero-padded image for the direct path (with kGemmNr columns
// of slack so full-width vector loads stay inside).
inline int PaddedWidth(const Geometry& g) {
  return g.out_w + (g.k_w - 1) * g.dilation_w + kGemmNr;
}
inline int PaddedHeight(const Geometry& g) {
  return std::max(0,
                  (g.out_h - 1) * g.stride_h + (g.k_h - 1) * g.dilation_h + 1);
}

void* Init(const schema::Operator&) { return new (std::nothrow) OpData(); }
void Free(void* data) { delete static_cast<OpData*>(data); }

Status Prepare(KernelContext* context, Node* node) {
  OpData* data = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(data != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 3));
  const auto* options = GetOptions<schema::Conv2DOptions>(*node);
  data->act = options->fused_activation_function();
  TWL_RETURN_IF_ERROR(CheckActivation(data->act));
  const Tensor* input = context->input(*node, 0);
  const Tensor* filter = context->input(*node, 1);
  const Tensor* bias = context->input(*node, 2);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckConvOperands(input, filter, output));
  TWL_CHECK_ARG(filter->is_constant, "filter '%s' must be constant",
                filter->name);
  Geometry& g = data->g;
  g.batch = input->shape.dims[0];
  g.in_h = input->shape.dims[1];
  g.in_w = input->shape.dims[2];
  g.in_c = input->shape.dims[3];
  g.out_c = filter->shape.dims[0];
  g.k_h = filter->shape.dims[1];
  g.k_w = filter->shape.dims[2];
  TWL_CHECK_ARG(filter->shape.dims[3] == g.in_c,
                "filter has %d input channels, input has %d",
                filter->shape.dims[3], g.in_c);
  if (bias != nullptr) {
    TWL_RETURN_IF_ERROR(CheckType(bias, "bias", DataType::kFloat32));
    TWL_CHECK_ARG(bias->num_elements() == g.out_c,
                  "bias has %lld elements, expected %d",
                  static_cast<long long>(bias->num_elements()), g.out_c);
  }
  g.stride_h = options->stride_h();
  g.stride_w = options->stride_w();
  g.dilation_h = options->dilation_h_factor();
  g.dilation_w = options->dilation_w_factor();
  TWL_RETURN_IF_ERROR(ComputePadding(options->padding(), g.in_h, g.k_h,
                                     g.stride_h, g.dilation_h, &g.out_h,
                                     &g.pad_top));
  TWL_RETURN_IF_ERROR(ComputePadding(options->padding(), g.in_w, g.k_w,
                                     g.stride_w, g.dilation_w, &g.out_w,
                                     &g.pad_left));
  TWL_RETURN_IF_ERROR(context->ResizeTensor(
      output, Shape({g.batch, g.out_h, g.out_w, g.out_c})));
  const int64_t k = static_cast<int64_t>(g.k_h) * g.k_w * g.in_c;
  const int64_t pixels = static_cast<int64_t>(g.batch) * g.out_h * g.out_w;
  TWL_CHECK_ARG(k <= INT32_MAX && pixels <= INT32_MAX, "conv too large");
  data->pointwise = g.k_h == 1 && g.k_w == 1 && g.stride_h == 1 &&
                    g.stride_w == 1 && g.pad_top == 0 && g.pad_left == 0;
  data->transposed = !data->pointwise && g.out_c < kGemmNr;
  data->direct =
      data->transposed && g.in_c == 1 && g.stride_w == 1 && g.k_h <= 64;
  data->unpadded =
      !data->pointwise && !data->transposed && !data->direct &&
      g.out_c % kGemmNr == 0 && g.pad_top == 0 && g.pad_left == 0 &&
      (g.out_h - 1) * g.stride_h + (g.k_h - 1) * g.dilation_h < g.in_h &&
      (g.out_w - 1) * g.stride_w + (g.k_w - 1) * g.dilation_w < g.in_w;
  data->im2col_scratch = -1;
  if (data->direct) {
    int64_t padded =
        static_cast<int64_t>(PaddedWidth(g)) * PaddedHeight(g) * g.batch;
    TWL_CHECK_ARG(padded <= kMaxTensorBytes / 4, "conv too large");
    TWL_RETURN_IF_ERROR(context->RequestScratch(
        node, static_cast<size_t>(padded) * sizeof(float),
        &data->im2col_scratch));
  } else if (data->transposed) {
    TWL_RETURN_IF_ERROR(context->RequestScratch(
        node, PackedGemmBSize(static_cast<int>(pixels), k) * sizeof(float),
        &data->im2col_scratch));
  } else {
    TWL_CHECK_ARG(data->packed_filter.Resize(PackedGemmBSize(g.out_c, k)),
                  "out of memory");
    PackGemmB(filter->data_as<float>(), g.out_c, static_cast<int>(k), k,
              data->packed_filter.data());
    if (!data->pointwise && !data->unpadded) {
      TWL_RETURN_IF_ERROR(context->RequestScratch(
          node, static_cast<size_t>(pixels * k) * sizeof(float),
          &data->im2col_scratch));
    }
  }
  return Status::Ok();
}

// Value of input (b, y, x, c) or 0 outside.
inline float At(const Geometry& g, const float* in, int b, int y, int x,
                int c) {
  if (y < 0 || y >= g.in_h || x < 0 || x >= g.in_w) return 0.f;
  return in[((static_cast<int64_t>(b) * g.in_h + y) * g.in_w + x) * g.in_c + c];
}

void Reference(const Geometry& g, const float* in, const float* filter,
               const float* bias, ActivationFunctionType act, float* out) {
  for (int b = 0; b < g.batch; ++b)
    for (int oy = 0; oy < g.out_h; ++oy)
      for (int ox = 0; ox < g.out_w; ++ox)
        for (int oc = 0; oc < g.out_c; ++oc) {
          float sum = bias ? bias[oc] : 0.f;
          for (int ky = 0; ky < g.k_h; ++ky)
            for (int kx = 0; kx < g.k_w; ++kx)
              for (int ic = 0; ic < g.in_c; ++ic) {
                int y = oy * g.stride_h - g.pad_top + ky * g.dilation_h;
                int x = ox * g.stride_w - g.pad_left + kx * g.dilation_w;
                sum += At(g, in, b, y, x, ic) *
                       filter[((oc * g.k_h + ky) * g.k_w + kx) * g.in_c + ic];
              }
          *out++ = ApplyActivation(sum, act);
        }
}

// Copies the receptive field of output pixel `p` (k values) to `row`,
// taking every `lane_stride`-th slot. With dilation_w == 1 a filter row is
// one contiguous run of k_w * in_c input values.
inline void Patch(const Geometry& g, const float* in, int64_t p, float* row,
                  int64_t lane_stride) {
  int ox = static_cast<int>(p % g.out_w);
  int oy = static_cast<int>(p / g.out_w % g.out_h);
  int b = static_cast<int>(p / (static_cast<int64_t>(g.out_w) * g.out_h));
  const int x0 = ox * g.stride_w - g.pad_left;
  const int run = g.k_w * g.in_c;
  const bool row_inside = g.dilation_w == 1 && x0 >= 0 && x0 + g.k_w <= g.in_w;
  int64_t k = 0;
  for (int ky = 0; ky < g.k_h; ++ky) {
    int y = oy * g.stride_h - g.pad_top + ky * g.dilation_h;
    if (y < 0 || y >= g.in_h) {
      for (int i = 0; i < run; ++i, ++k) row[k * lane_stride] = 0.f;
      continue;
    }
    const float* line =
        in + (static_cast<int64_t>(b) * g.in_h + y) * g.in_w * g.in_c;
    if (row_inside) {
      const float* src = line + static_cast<int64_t>(x0) * g.in_c;
      if (lane_stride == 1) {
        memcpy(row + k, src, run * sizeof(float));
        k += run;
      } else {
        for (int i = 0; i < run; ++i, ++k) row[k * lane_stride] = src[i];
      }
      continue;
    }
    for (int kx = 0; kx < g.k_w; ++kx) {
      int x = x0 + kx * g.dilation_w;
      if (x >= 0 && x < g.in_w) {
        const float* src = line + static_cast<int64_t>(x) * g.in_c;
        for (int c = 0; c < g.in_c; ++c, ++k) row[k * lane_stride] = src[c];
      } else {
        for (int c = 0; c < g.in_c; ++c, ++k) row[k * lane_stride] = 0.f;
      }
    }
  }
}

typedef float Vec __attribute__((vector_size(kGemmNr * sizeof(float))));

// Below this many multiply-adds per task a second thread costs more than it
// saves (measured on the LeNet layers).
constexpr int64_t kMinMacsPerTask = 32 * 1024;

// R output channels x 16 consecutive output pixels of one row, reading the
// zero-padded single-channel image: every filter tap is one vector load.
// Half-width vectors for a row's last few pixels.
typedef float HalfVec __attribute__((vector_size(kGemmNr / 2 * sizeof(float))));

template <typename V, int R>
void DirectTile(const Geometry& g, const float* const* rows, const float* w,
                int oc0, V* acc) {
  const int taps = g.k_h * g.k_w;
  for (int r = 0; r < R; ++r) acc[r] = V{};
  for (int ky = 0; ky < g.k_h; ++ky) {
    for (int kx = 0; kx < g.k_w; ++kx) {
      V v;
      memcpy(&v, rows[ky] + kx * g.dilation_w, sizeof(v));
      const float* wk = w + oc0 * taps + ky * g.k_w + kx;
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) acc[r] += v * wk[r * taps];
    }
  }
}

// Single input channel, stride_w 1, few output channels: direct
// convolution vectorized over output x, on zero-padded copies of the images
// (planned scratch) so no tap needs a bounds check.
void PadImages(const Geometry& g, const float* in, float* padded) {
  const int pw = PaddedWidth(g), ph = PaddedHeight(g);
  // Input columns [0, in_w) land at [pad_left, pad_left + in_w), clipped.
  const int copy = std::max(0, std::min(g.in_w, pw - g.pad_left));
  for (int b = 0; b < g.batch; ++b) {
    for (int y = 0; y < ph; ++y) {
      float* dst = padded + (static_cast<int64_t>(b) * ph + y) * pw;
      int sy = y - g.pad_top;
      memset(dst, 0, pw * sizeof(float));
      if (sy >= 0 && sy < g.in_h && copy > 0) {
        memcpy(dst + g.pad_left,
               in + (static_cast<int64_t>(b) * g.in_h + sy) * g.in_w,
               copy * sizeof(float));
      }
    }
  }
}

// Output rows [row_begin, row_end) of batch * out_h.
// Up to 16 output pixels (`lanes`) x all output channels of one row.
template <typename V>
void DirectPixels(const Geometry& g, const float* const* rows, const float* w,
                  const float* bias, float low, float high, int lanes,
                  float* o) {
  for (int oc0 = 0; oc0 < g.out_c; oc0 += 8) {
    V acc[8];
    const int r = std::min(8, g.out_c - oc0);
    switch (r) {
      case 8:
        DirectTile<V, 8>(g, rows, w, oc0, acc);
        break;
      case 7:
        DirectTile<V, 7>(g, rows, w, oc0, acc);
        break;
      case 6:
        DirectTile<V, 6>(g, rows, w, oc0, acc);
        break;
      case 5:
        DirectTile<V, 5>(g, rows, w, oc0, acc);
        break;
      case 4:
        DirectTile<V, 4>(g, rows, w, oc0, acc);
        break;
      case 3:
        DirectTile<V, 3>(g, rows, w, oc0, acc);
        break;
      case 2:
        DirectTile<V, 2>(g, rows, w, oc0, acc);
        break;
      default:
        DirectTile<V, 1>(g, rows, w, oc0, acc);
        break;
    }
    // Bias and clamp as vectors, then transpose through L1.
    alignas(64) float tile[8][kGemmNr];
    const V lo = V{} + low, hi = V{} + high;
    for (int i = 0; i < r; ++i) {
      V v = acc[i] + (bias ? bias[oc0 + i] : 0.f);
      v = v < lo ? lo : v;
      v = v > hi ? hi : v;
      memcpy(tile[i], &v, sizeof(v));
    }
    for (int l = 0; l < lanes; ++l) {
      for (int i = 0; i < r; ++i) o[l * g.out_c + oc0 + i] = tile[i][l];
    }
  }
}

// Output rows [row_begin, row_end) of batch * out_h.
void DirectRows(const Geometry& g, const float* padded, const float* w,
                const float* bias, ActivationFunctionType act,
                int64_t row_begin, int64_t row_end, float* out) {
  float low, high;
  ActivationRange(act, &low, &high);
  const int pw = PaddedWidth(g), ph = PaddedHeight(g);
  const float* rows[64];
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int b = static_cast<int>(row / g.out_h);
    const int oy = static_cast<int>(row % g.out_h);
    for (int ox0 = 0; ox0 < g.out_w; ox0 += kGemmNr) {
      for (int ky = 0; ky < g.k_h; ++ky) {
        rows[ky] = padded +
                   (static_cast<int64_t>(b) * ph + oy * g.stride_h +
                    ky * g.dilation_h) *
                       pw +
                   ox0;
      }
      const int lanes = std::min(kGemmNr, g.out_w - ox0);
      float* o = out + (row * g.out_w + ox0) * g.out_c;
      if (lanes <= kGemmNr / 2) {
        DirectPixels<HalfVec>(g, rows, w, bias, low, high, lanes, o);
      } else {
        DirectPixels<Vec>(g, rows, w, bias, low, high, lanes, o);
      }
    }
  }
}

// No padding, output channels a multiple of 16: each task reads the input
// in place (no im2col) and keeps kUnpaddedPixels pixels x 16 channels of
// accumulators in registers; every filter tap is one vector load of the
// packed filter, shared by those pixels.
constexpr int kUnpaddedPixels = 8;

template <int P>
void UnpaddedTile(const Geometry& g, const float* in, int b, int oy, int ox0,
                  const float* panel, const float* bias, float low, float high,
                  float* out) {
  Vec acc[P];
  Vec init = Vec{};
  if (bias != nullptr) memcpy(&init, bias, sizeof(init));
  for (int j = 0; j < P; ++j) acc[j] = init;
  const int64_t pixel_step = static_cast<int64_t>(g.stride_w) * g.in_c;
  for (int ky = 0; ky < g.k_h; ++ky) {
    const int iy = oy * g.stride_h + ky * g.dilation_h;
    for (int kx = 0; kx < g.k_w; ++kx) {
      const int ix = ox0 * g.stride_w + kx * g.dilation_w;
      const float* px =
          in + ((static_cast<int64_t>(b) * g.in_h + iy) * g.in_w + ix) * g.in_c;
      const float* w = panel + ((ky * g.k_w + kx) * g.in_c) * kGemmNr;
      for (int ci = 0; ci < g.in_c; ++ci) {
        Vec wv;
        memcpy(&wv, w + ci * kGemmNr, sizeof(wv));
#pragma GCC unroll 8
        for (int j = 0; j < P; ++j) acc[j] += px[j * pixel_step + ci] * wv;
      }
    }
  }
  for (int j = 0; j < P; ++j) {
    for (int lane = 0; lane < kGemmNr; ++lane) {
      out[static_cast<int64_t>(j) * g.out_c + lane] =
          std::min(high, std::max(low, acc[j][lane]));
    }
  }
}

void UnpaddedRows(const Geometry& g, const float* in, const float* packed,
                  const float* bias, ActivationFunctionType act,
                  int64_t row_begin, int64_t row_end, float* out) {
  float low, high;
  ActivationRange(act, &low, &high);
  const int k = g.k_h * g.k_w * g.in_c;
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int b = static_cast<int>(row / g.out_h);
    const int oy = static_cast<int>(row % g.out_h);
    for (int oc0 = 0; oc0 < g.out_c; oc0 += kGemmNr) {
      const float* panel =
          packed + static_cast<int64_t>(oc0 / kGemmNr) * kGemmNr * k;
      const float* pb = bias != nullptr ? bias + oc0 : nullptr;
      float* o = out + row * g.out_w * g.out_c + oc0;
      int ox = 0;
      for (; ox + kUnpaddedPixels <= g.out_w; ox += kUnpaddedPixels) {
        UnpaddedTile<kUnpaddedPixels>(g, in, b, oy, ox, panel, pb, low, high,
                                      o + static_cast<int64_t>(ox) * g.out_c);
      }
      for (; ox < g.out_w; ++ox) {
        UnpaddedTile<1>(g, in, b, oy, ox, panel, pb, low, high,
                        o + static_cast<int64_t>(ox) * g.out_c);
      }
    }
  }
}

Status Eval(KernelContext* context, Node* node) {
  OpData* data = static_cast<OpData*>(node->user_data);
  const Geometry& g = data->g;
  const float* in = context->input(*node, 0)->data_as<float>();
  const float* filter = context->input(*node, 1)->data_as<float>();
  const Tensor* bias_tensor = context->input(*node, 2);
  const float* bias = bias_tensor ? bias_tensor->data_as<float>() : nullptr;
  float* out = context->output(*node, 0)->data_as<float>();
  if (context->use_reference()) {
    Reference(g, in, filter, bias, data->act, out);
    return Status::Ok();
  }
  const int k = g.k_h * g.k_w * g.in_c;
  const int pixels = g.batch * g.out_h * g.out_w;
  GemmEpilogue epilogue;
  epilogue.bias = bias;
  ActivationRange(data->act, &epilogue.low, &epilogue.high);
  ThreadPool* pool = context->thread_pool();
  // Each task computes whole output rows (direct) or pixel blocks (im2col
  // + GEMM) end to end, so no intermediate crosses cores.
  const int64_t macs = static_cast<int64_t>(pixels) * g.out_c * k;
  const int tasks = static_cast<int>(std::min<int64_t>(
      pool->num_threads(), std::max<int64_t>(1, macs / kMinMacsPerTask)));
  if (data->unpadded) {
    const float* packed = data->packed_filter.data();
    pool->ParallelFor(static_cast<int64_t>(g.batch) * g.out_h, 1, tasks,
                      [&](int64_t begin, int64_t end) {
                        UnpaddedRows(g, in, packed, bias, data->act, begin, end,
                                     out);
                      });
  } else if (data->direct) {
    float* padded = static_cast<float*>(node->scratch[data->im2col_scratch]);
    PadImages(g, in, padded);
    pool->ParallelFor(static_cast<int64_t>(g.batch) * g.out_h, 1, tasks,
                      [&](int64_t begin, int64_t end) {
                        DirectRows(g, padded, filter, bias, data->act, begin,
                                   end, out);
                      });
  } else if (data->transposed) {
    float* packed = static_cast<float*>(node->scratch[data->im2col_scratch]);
    int panels = (pixels + kGemmNr - 1) / kGemmNr;
    for (int panel = 0; panel < panels; ++panel) {
      float* dst = packed + static_cast<int64_t>(panel) * kGemmNr * k;
      for (int lane = 0; lane < kGemmNr; ++lane) {
        int64_t p = static_cast<int64_t>(panel) * kGemmNr + lane;
        if (p < pixels) {
          Patch(g, in, p, dst + lane, kGemmNr);
        } else {
          for (int kk = 0; kk < k; ++kk) dst[kk * kGemmNr + lane] = 0.f;
        }
      }
    }
    epilogue.bias_per_row = true;
    Gemm(g.out_c, pixels, k, filter, k, packed, out, 1, g.out_c, epilogue,
         pool);
  } else {
    float* cols =
        data->pointwise
            ? nullptr
            : static_cast<float*>(node->scratch[data->im2col_scratch]);
    const float* packed = data->packed_filter.data();
    pool->ParallelFor(pixels, kGemmMr, tasks, [&](int64_t begin, int64_t end) {
      const float* a = in + begin * k;
      if (cols != nullptr) {
        for (int64_t p = begin; p < end; ++p) Patch(g, in, p, cols + p * k, 1);
        a = cols + begin * k;
      }
      Gemm(static_cast<int>(end - begin), g.out_c, k, a, k, packed,
           out + begin * g.out_c, g.out_c, 1, epilogue, nullptr);
    });
  }
  if (data->act == ActivationFunctionType::TANH ||
      data->act == ActivationFunctionType::SIGMOID) {
    ApplyActivationInPlace(out, static_cast<int64_t>(pixels) * g.out_c,
                           data->act);
  }
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_CONV_2D() {
  return {BuiltinOperator::CONV_2D, 1, Init, Free, Prepare, Eval};
}

}  // namespace twl

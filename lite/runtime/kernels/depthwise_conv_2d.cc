// DEPTHWISE_CONV_2D: input NHWC, filter [1, KH, KW, C * depth_multiplier],
// optional bias, strides, dilations, SAME/VALID, fused activation (float32).
// Output channel oc reads input channel oc / depth_multiplier.
//
// Optimized path (DepthwiseKernels, multiplier 1): vectors of channels
// (the contiguous innermost dim) per ISA through RunKernel; 3x3 undilated
// stride 1 or 2: one vector of channels swept across a row with its filter
// in registers, border rows and pixels with their valid taps fixed at
// compile time; other shapes clip the taps per pixel; bias + activation
// fused into the store; output rows split across threads. A fused inverted
// residual block (Node::fused_expand) runs here too (FusedRows). Multiplier > 1
// runs whole channel rows per tap, vectorized by the compiler.
#include <algorithm>
#include <cstring>

#include "lite/runtime/gemm.h"
#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"
#include "lite/runtime/vector.h"

namespace twl {
namespace {

#if defined(__aarch64__)
constexpr bool kFusedBlocks = false;  // the library's size (interpreter.cc)
#else
constexpr bool kFusedBlocks = true;
#endif

struct OpData {
  ActivationFunctionType act;
  int batch, in_h, in_w, in_c, out_h, out_w, out_c, k_h, k_w, multiplier;
  int stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
  // Output columns [interior_begin, interior_end) read no padding.
  int interior_begin, interior_end;
  AlignedFloats zero_bias;  // out_c zeros, the bias when there is none
  // An inverted residual block run in this node (Node::fused_expand): the
  // 1x1 expansion (expand_c -> in_c channels) before, the 1x1 projection
  // (in_c -> project_c) after, their filters packed for the GEMM.
  bool fused = false;
  int expand_c, project_c;
  ActivationFunctionType expand_act, project_act;
  AlignedFloats expand_filter, project_filter;
  // Per task: `band` output rows at a time; scratch of `task_floats`, the
  // expanded input rows a band reads (up to (band - 1) * stride + 3 of
  // them, `rows_floats`) then the band's depthwise output.
  int band;
  int64_t rows_floats, task_floats;
  int scratch;
};

// A 1x1 stride-1 filter [out_c, 1, 1, in_c] of the fused block, packed.
Status PackPointwise(const Tensor* filter, const Tensor* bias, const char* what,
                     int in_c, int* out_c, AlignedFloats* packed) {
  TWL_CHECK_ARG(filter != nullptr && filter->is_constant,
                "%s filter must be "
                "constant",
                what);
  TWL_RETURN_IF_ERROR(CheckType(filter, "filter", DataType::kFloat32));
  TWL_CHECK_ARG(filter->shape.rank == 4 && filter->shape.dims[1] == 1 &&
                    filter->shape.dims[2] == 1 && filter->shape.dims[3] == in_c,
                "%s filter '%s' must be [out, 1, 1, %d]", what, filter->name,
                in_c);
  *out_c = filter->shape.dims[0];
  if (bias != nullptr) {
    TWL_RETURN_IF_ERROR(CheckType(bias, "bias", DataType::kFloat32));
    TWL_CHECK_ARG(bias->num_elements() == *out_c,
                  "%s bias has %lld elements, expected %d", what,
                  static_cast<long long>(bias->num_elements()), *out_c);
  }
  TWL_CHECK_ARG(packed->Resize(PackedGemmBSize(*out_c, in_c)), "out of memory");
  PackGemmB(filter->data_as<float>(), *out_c, in_c, in_c, packed->data());
  return Status::Ok();
}

ActivationFunctionType ConvActivation(const schema::Operator* op) {
  const auto* o = op->builtin_options_as_Conv2DOptions();
  return o ? o->fused_activation_function() : ActivationFunctionType::NONE;
}

// The rest of prepare of a fused inverted residual block: the expansion's
// and projection's filters, the output, the band and the scratch.
TWL_PREPARE Status PrepareFused(KernelContext* context, Node* node, OpData* d) {
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  d->expand_act = ConvActivation(node->fused_expand);
  d->project_act = node->fused_project_activation;
  TWL_RETURN_IF_ERROR(CheckActivation(d->expand_act));
  TWL_RETURN_IF_ERROR(CheckActivation(d->project_act));
  int expanded = 0;
  TWL_RETURN_IF_ERROR(PackPointwise(
      context->input(*node, 3), context->input(*node, 4), "expansion",
      input->shape.dims[3], &expanded, &d->expand_filter));
  TWL_CHECK_ARG(expanded == d->in_c,
                "the expansion makes %d channels, the depthwise filter has %d",
                expanded, d->in_c);
  d->expand_c = input->shape.dims[3];
  TWL_RETURN_IF_ERROR(
      PackPointwise(context->input(*node, 5), context->input(*node, 6),
                    "projection", d->in_c, &d->project_c, &d->project_filter));
  const Shape shape({d->batch, d->out_h, d->out_w, d->project_c});
  TWL_RETURN_IF_ERROR(context->ResizeTensor(output, shape));
  const Tensor* residual = context->input(*node, 7);
  if (residual != nullptr) {
    char have[96], want[96];
    TWL_CHECK_ARG(residual->type == DataType::kFloat32 &&
                      residual->shape == output->shape,
                  "the ADD fused into this block adds '%s' of shape %s to its "
                  "output of shape %s (no broadcast when fused)",
                  residual->name, residual->shape.ToString(have, sizeof(have)),
                  output->shape.ToString(want, sizeof(want)));
  }
  // Bands of about 96 output pixels (the projection's GEMM rows) whose
  // expanded rows stay within 256 KiB (L2).
  const int64_t row_floats = static_cast<int64_t>(d->in_w) * d->in_c;
  d->band = std::max(
      1, std::min(d->out_h, (96 + d->out_w - 1) / std::max(1, d->out_w)));
  while (d->band > 1 &&
         ((d->band - 1) * d->stride_h + 3) * row_floats * 4 > 256 * 1024) {
    --d->band;
  }
  auto round = [](int64_t n) { return (n + 15) / 16 * 16; };
  d->rows_floats = round(((d->band - 1) * d->stride_h + 3) * row_floats);
  d->task_floats = d->rows_floats +
                   round(static_cast<int64_t>(d->band) * d->out_w * d->in_c);
  const int tasks =
      context->thread_pool() ? context->thread_pool()->num_threads() : 1;
  TWL_CHECK_ARG(d->task_floats * tasks <= kMaxTensorBytes / 4,
                "block too large");
  return context->RequestScratch(
      node, static_cast<size_t>(d->task_floats * tasks) * sizeof(float),
      &d->scratch);
}

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  d->fused = node->fused_expand != nullptr;
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, d->fused ? 8 : 3));
  const auto* options = GetOptions<schema::DepthwiseConv2DOptions>(*node);
  d->act = options->fused_activation_function();
  TWL_RETURN_IF_ERROR(CheckActivation(d->act));
  const Tensor* input = context->input(*node, 0);
  const Tensor* filter = context->input(*node, 1);
  const Tensor* bias = context->input(*node, 2);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckConvOperands(input, filter, output));
  d->batch = input->shape.dims[0];
  d->in_h = input->shape.dims[1];
  d->in_w = input->shape.dims[2];
  // Fused, the input is the expansion's; this node's own input, the
  // expanded tensor, has the filter's channels.
  d->in_c = d->fused ? filter->shape.dims[3] : input->shape.dims[3];
  d->k_h = filter->shape.dims[1];
  d->k_w = filter->shape.dims[2];
  d->out_c = filter->shape.dims[3];
  d->multiplier = options->depth_multiplier();
  TWL_CHECK_ARG(filter->shape.dims[0] == 1, "filter dim 0 must be 1");
  TWL_CHECK_ARG(d->multiplier >= 1 &&
                    static_cast<int64_t>(d->in_c) * d->multiplier == d->out_c,
                "filter has %d channels; input has %d with depth_multiplier "
                "%d",
                d->out_c, d->in_c, d->multiplier);
  if (bias != nullptr) {
    TWL_RETURN_IF_ERROR(CheckType(bias, "bias", DataType::kFloat32));
    TWL_CHECK_ARG(bias->num_elements() == d->out_c,
                  "bias has %lld elements, expected %d",
                  static_cast<long long>(bias->num_elements()), d->out_c);
  }
  d->stride_h = options->stride_h();
  d->stride_w = options->stride_w();
  d->dilation_h = options->dilation_h_factor();
  d->dilation_w = options->dilation_w_factor();
  TWL_RETURN_IF_ERROR(ComputePadding(
      options->padding(), d->in_h, d->k_h, d->stride_h, d->dilation_h,
      &d->out_h, &d->pad_top, options->pad_top(), options->pad_bottom()));
  TWL_RETURN_IF_ERROR(ComputePadding(
      options->padding(), d->in_w, d->k_w, d->stride_w, d->dilation_w,
      &d->out_w, &d->pad_left, options->pad_left(), options->pad_right()));
  const int window_w = (d->k_w - 1) * d->dilation_w;
  d->interior_begin =
      std::min(d->out_w, (d->pad_left + d->stride_w - 1) / d->stride_w);
  const int last = d->in_w - 1 - window_w + d->pad_left;  // ox * stride_w <=
  d->interior_end = last < 0 ? 0 : std::min(d->out_w, last / d->stride_w + 1);
  d->interior_end = std::max(d->interior_begin, d->interior_end);
  if (bias == nullptr) {
    TWL_CHECK_ARG(d->zero_bias.Resize(d->out_c), "out of memory");
    std::fill(d->zero_bias.data(), d->zero_bias.data() + d->out_c, 0.f);
  }
  if (d->fused) {
    // The interpreter fuses no block on aarch64 (see FuseInvertedResiduals).
    TWL_CHECK_ARG(kFusedBlocks, "fused inverted residual blocks unsupported");
    return PrepareFused(context, node, d);
  }
  return context->ResizeTensor(output,
                               Shape({d->batch, d->out_h, d->out_w, d->out_c}));
}

void Reference(const OpData& d, const float* in, const float* filter,
               const float* bias, float* out) {
  for (int b = 0; b < d.batch; ++b)
    for (int oy = 0; oy < d.out_h; ++oy)
      for (int ox = 0; ox < d.out_w; ++ox)
        for (int oc = 0; oc < d.out_c; ++oc) {
          float sum = bias ? bias[oc] : 0.f;
          int ic = oc / d.multiplier;
          for (int ky = 0; ky < d.k_h; ++ky)
            for (int kx = 0; kx < d.k_w; ++kx) {
              int y = oy * d.stride_h - d.pad_top + ky * d.dilation_h;
              int x = ox * d.stride_w - d.pad_left + kx * d.dilation_w;
              if (y < 0 || y >= d.in_h || x < 0 || x >= d.in_w) continue;
              sum += in[((static_cast<int64_t>(b) * d.in_h + y) * d.in_w + x) *
                            d.in_c +
                        ic] *
                     filter[(ky * d.k_w + kx) * d.out_c + oc];
            }
          *out++ = ApplyActivation(sum, d.act);
        }
}

// Multiplier > 1: output rows [row_begin, row_end) over batch * out_h,
// whole channel rows per tap (the compiler vectorizes over channels).
void MultiplierRows(const OpData& d, const float* in, const float* filter,
                    const float* bias, float* out, int64_t row_begin,
                    int64_t row_end) {
  float low, high;
  ActivationRange(d.act, &low, &high);
  const int c_out = d.out_c, m = d.multiplier;
  for (int64_t row = row_begin; row < row_end; ++row) {
    int b = static_cast<int>(row / d.out_h),
        oy = static_cast<int>(row % d.out_h);
    for (int ox = 0; ox < d.out_w; ++ox) {
      float* o = out + (row * d.out_w + ox) * c_out;
      for (int c = 0; c < c_out; ++c) o[c] = bias[c];
      for (int ky = 0; ky < d.k_h; ++ky) {
        int y = oy * d.stride_h - d.pad_top + ky * d.dilation_h;
        if (y < 0 || y >= d.in_h) continue;
        for (int kx = 0; kx < d.k_w; ++kx) {
          int x = ox * d.stride_w - d.pad_left + kx * d.dilation_w;
          if (x < 0 || x >= d.in_w) continue;
          const float* i =
              in +
              ((static_cast<int64_t>(b) * d.in_h + y) * d.in_w + x) * d.in_c;
          const float* f = filter + (ky * d.k_w + kx) * c_out;
          for (int c = 0; c < c_out; ++c) o[c] += i[c / m] * f[c];
        }
      }
      for (int c = 0; c < c_out; ++c) {
        o[c] = o[c] < low ? low : (o[c] > high ? high : o[c]);
      }
    }
  }
}

// [first, end) of the taps 0..k-1 at `start + tap * dilation` that fall in
// [0, size).
inline void ValidTaps(int start, int k, int dilation, int size, int* first,
                      int* end) {
  int f = 0, e = k;
  while (f < k && start + f * dilation < 0) ++f;
  while (e > f && start + (e - 1) * dilation >= size) --e;
  *first = f;
  *end = e;
}

// Multiplier 1, vectors of W channels. 3x3 undilated with equal strides 1
// or 2: Sweep3x3 (see there); other shapes clip each pixel's taps (Pixel).
// Bias is the accumulators' start, the activation's clamp is applied in the
// store.
template <int W>
struct DepthwiseKernels {
  typedef typename VectorOf<W>::type V;

  // One output pixel, taps [ky0, ky1) x [kx0, kx1).
  static TWL_KERNEL_INLINE void Pixel(const OpData& d, const float* image,
                                      int y_base, const float* filter,
                                      const float* bias, int oy, int ox,
                                      int ky0, int ky1, float low, float high,
                                      float* o) {
    const int c_n = d.out_c;
    const int y0 = oy * d.stride_h - d.pad_top - y_base;
    const int x0 = ox * d.stride_w - d.pad_left;
    int kx0, kx1;
    ValidTaps(x0, d.k_w, d.dilation_w, d.in_w, &kx0, &kx1);
    const V vlow = Splat<W>(low), vhigh = Splat<W>(high);
    int c = 0;
    for (; c + W <= c_n; c += W) {
      V acc = LoadVector<W>(bias + c);
      for (int ky = ky0; ky < ky1; ++ky) {
        const float* i =
            image +
            (static_cast<int64_t>(y0 + ky * d.dilation_h) * d.in_w + x0) * c_n +
            c;
        const float* f = filter + ky * d.k_w * c_n + c;
        for (int kx = kx0; kx < kx1; ++kx) {
          acc += LoadVector<W>(i + kx * d.dilation_w * c_n) *
                 LoadVector<W>(f + kx * c_n);
        }
      }
      acc = Clamp(acc, vlow, vhigh);
      memcpy(o + c, &acc, sizeof(acc));
    }
    for (; c < c_n; ++c) {
      float acc = bias[c];
      for (int ky = ky0; ky < ky1; ++ky) {
        const float* i =
            image +
            (static_cast<int64_t>(y0 + ky * d.dilation_h) * d.in_w + x0) * c_n +
            c;
        const float* f = filter + ky * d.k_w * c_n + c;
        for (int kx = kx0; kx < kx1; ++kx) {
          acc += i[kx * d.dilation_w * c_n] * f[kx * c_n];
        }
      }
      o[c] = acc < low ? low : (acc > high ? high : acc);
    }
  }

  // 3x3, undilated, stride S, output pixels [ox, ox_end) of row oy whose
  // taps inside the input are [KY0, KY1) x [KX0, KX1) (the others fall in
  // the padding). One vector of channels at a time across the pixels: its
  // filter vectors stay in registers and each pixel is a load and a
  // multiply-add per tap in one sum per filter row, the pointers stepping
  // by a constant. (Blocks of 8 pixels sharing inputs needed 30 input
  // addresses per block, spilled to the stack with AVX2's 16 registers:
  // ~15 cycles per output vector against ~5 here; border pixels clipping
  // their taps in loops took a third of the time.)
  template <int KY0, int KY1, int KX0, int KX1>
  static TWL_KERNEL_INLINE void Sweep3x3(const OpData& d, const float* image,
                                         int y_base, const float* filter,
                                         const float* bias, int oy, int ox,
                                         int ox_end, float low, float high,
                                         float* o) {
    if (ox >= ox_end) return;
    const int c_n = d.out_c;
    const int n = ox_end - ox;
    const int64_t row = static_cast<int64_t>(d.in_w) * c_n;
    const int S = d.stride_w;  // = stride_h
    const int64_t step = static_cast<int64_t>(S) * c_n;
    // The first valid tap of the first pixel.
    const float* i0 =
        image +
        (static_cast<int64_t>(oy * S - d.pad_top - y_base + KY0) * d.in_w +
         ox * S - d.pad_left + KX0) *
            c_n;
    float* o0 = o + static_cast<int64_t>(ox) * c_n;
    const V vlow = Splat<W>(low), vhigh = Splat<W>(high);
    int c = 0;
    for (; c + W <= c_n; c += W) {
      V f[3][3];
#pragma GCC unroll 3
      for (int ky = KY0; ky < KY1; ++ky) {
#pragma GCC unroll 3
        for (int kx = KX0; kx < KX1; ++kx) {
          f[ky][kx] = LoadVector<W>(filter + (ky * 3 + kx) * c_n + c);
        }
      }
      const V b = LoadVector<W>(bias + c);
      const float* r = i0 + c;
      float* out = o0 + c;
      for (int x = 0; x < n; ++x, r += step, out += c_n) {
        V a[3];
#pragma GCC unroll 3
        for (int ky = KY0; ky < KY1; ++ky) {
          const float* rr = r + (ky - KY0) * row;
          a[ky] = LoadVector<W>(rr) * f[ky][KX0];
          if (ky == KY0) a[ky] += b;
        }
#pragma GCC unroll 3
        for (int kx = KX0 + 1; kx < KX1; ++kx) {
#pragma GCC unroll 3
          for (int ky = KY0; ky < KY1; ++ky) {
            a[ky] += LoadVector<W>(r + (ky - KY0) * row + (kx - KX0) * c_n) *
                     f[ky][kx];
          }
        }
        V sum = a[KY0];
#pragma GCC unroll 3
        for (int ky = KY0 + 1; ky < KY1; ++ky) sum += a[ky];
        sum = Clamp(sum, vlow, vhigh);
        memcpy(out, &sum, sizeof(sum));
      }
    }
    for (; c < c_n; ++c) {
      const float* r = i0 + c;
      for (int x = 0; x < n; ++x, r += step) {
        float acc = bias[c];
        for (int ky = KY0; ky < KY1; ++ky) {
          for (int kx = KX0; kx < KX1; ++kx) {
            acc += r[(ky - KY0) * row + (kx - KX0) * c_n] *
                   filter[(ky * 3 + kx) * c_n + c];
          }
        }
        o0[static_cast<int64_t>(x) * c_n + c] =
            acc < low ? low : (acc > high ? high : acc);
      }
    }
  }

  // Row oy of a 3x3 undilated stride-S depthwise whose valid filter rows
  // are [KY0, KY1): the interior pixels in one sweep, each border pixel
  // with its own taps.
  template <int KY0, int KY1>
  static TWL_KERNEL_INLINE void Row3x3(const OpData& d, const float* image,
                                       int y_base, const float* filter,
                                       const float* bias, int oy, float low,
                                       float high, float* o) {
    auto border = [&](int ox) {
      int kx0, kx1;
      ValidTaps(ox * d.stride_w - d.pad_left, 3, 1, d.in_w, &kx0, &kx1);
      if (kx0 == 1 && kx1 == 3) {
        Sweep3x3<KY0, KY1, 1, 3>(d, image, y_base, filter, bias, oy, ox, ox + 1,
                                 low, high, o);
      } else if (kx0 == 0 && kx1 == 2) {
        Sweep3x3<KY0, KY1, 0, 2>(d, image, y_base, filter, bias, oy, ox, ox + 1,
                                 low, high, o);
      } else {
        Pixel(d, image, y_base, filter, bias, oy, ox, KY0, KY1, low, high,
              o + static_cast<int64_t>(ox) * d.out_c);
      }
    };
    for (int ox = 0; ox < d.interior_begin; ++ox) border(ox);
    Sweep3x3<KY0, KY1, 0, 3>(d, image, y_base, filter, bias, oy,
                             d.interior_begin, d.interior_end, low, high, o);
    for (int ox = d.interior_end; ox < d.out_w; ++ox) border(ox);
  }

  static TWL_KERNEL_INLINE void AnyRow3x3(const OpData& d, const float* image,
                                          int y_base, const float* filter,
                                          const float* bias, int oy, int ky0,
                                          int ky1, float low, float high,
                                          float* o) {
    if (ky0 == 0 && ky1 == 3) {
      Row3x3<0, 3>(d, image, y_base, filter, bias, oy, low, high, o);
#if !defined(__aarch64__)
      // (aarch64 keeps the stripped library under 1 MiB without these: its
      // top and bottom rows clip their taps per pixel.)
    } else if (ky0 == 1 && ky1 == 3) {
      Row3x3<1, 3>(d, image, y_base, filter, bias, oy, low, high, o);
    } else if (ky0 == 0 && ky1 == 2) {
      Row3x3<0, 2>(d, image, y_base, filter, bias, oy, low, high, o);
#endif
    } else {
      for (int ox = 0; ox < d.out_w; ++ox) {
        Pixel(d, image, y_base, filter, bias, oy, ox, ky0, ky1, low, high,
              o + static_cast<int64_t>(ox) * d.out_c);
      }
    }
  }

  // Output rows [oy_begin, oy_end) of one image, written from `o`; input
  // row y (of the rows the taps read) is at image + (y - y_base) rows.
  static TWL_KERNEL_INLINE void ImageRows(const OpData& d, const float* image,
                                          int y_base, const float* filter,
                                          const float* bias, float low,
                                          float high, int oy_begin, int oy_end,
                                          float* o) {
    const int c_n = d.out_c;
    const bool fast3x3 = d.k_h == 3 && d.k_w == 3 && d.dilation_h == 1 &&
                         d.dilation_w == 1 && d.stride_h == d.stride_w &&
                         (d.stride_w == 1 || d.stride_w == 2);
    for (int oy = oy_begin; oy < oy_end; ++oy, o += d.out_w * c_n) {
      int ky0, ky1;
      ValidTaps(oy * d.stride_h - d.pad_top, d.k_h, d.dilation_h, d.in_h, &ky0,
                &ky1);
      if (fast3x3) {
        AnyRow3x3(d, image, y_base, filter, bias, oy, ky0, ky1, low, high, o);
        continue;
      }
      // Interior pixels [ox_begin, ox_end) only in rows with every tap.
      int ox_begin = d.out_w, ox_end = d.out_w;
      if (ky0 == 0 && ky1 == d.k_h) {
        ox_begin = d.interior_begin;
        ox_end = d.interior_end;
      }
      for (int ox = 0; ox < ox_begin; ++ox) {
        Pixel(d, image, y_base, filter, bias, oy, ox, ky0, ky1, low, high,
              o + static_cast<int64_t>(ox) * c_n);
      }
      for (int ox = ox_begin; ox < ox_end; ++ox) {
        Pixel(d, image, y_base, filter, bias, oy, ox, 0, d.k_h, low, high,
              o + static_cast<int64_t>(ox) * c_n);
      }
      for (int ox = std::max(ox_begin, ox_end); ox < d.out_w; ++ox) {
        Pixel(d, image, y_base, filter, bias, oy, ox, ky0, ky1, low, high,
              o + static_cast<int64_t>(ox) * c_n);
      }
    }
  }
};

struct DepthwiseImageRowsOp {
  template <int W>
  static TWL_KERNEL_INLINE void Run(const OpData* d, const float* image,
                                    int y_base, const float* filter,
                                    const float* bias, float low, float high,
                                    int oy_begin, int oy_end, float* out) {
    DepthwiseKernels<W>::ImageRows(*d, image, y_base, filter, bias, low, high,
                                   oy_begin, oy_end, out);
  }
};

// Multiplier 1: output rows [row_begin, row_end) over batch * out_h, image
// by image.
void ImageRows(const OpData& d, const float* in, const float* filter,
               const float* bias, float low, float high, int64_t row_begin,
               int64_t row_end, float* out) {
  const int64_t image_floats = static_cast<int64_t>(d.in_h) * d.in_w * d.out_c;
  for (int64_t row = row_begin; row < row_end;) {
    const int64_t b = row / d.out_h;
    const int oy = static_cast<int>(row % d.out_h);
    const int oy_end =
        static_cast<int>(std::min<int64_t>(d.out_h, oy + row_end - row));
    RunKernel<DepthwiseImageRowsOp>(&d, in + b * image_floats, 0, filter, bias,
                                    low, high, oy, oy_end,
                                    out + row * d.out_w * d.out_c);
    row += oy_end - oy;
  }
}

// Output rows [row_begin, row_end) (over batch * out_h) of a fused inverted
// residual block, a band at a time: the expanded input rows the band reads
// (those the previous band already expanded are moved to the buffer's top,
// the others computed by the expansion's GEMM), the band's depthwise rows,
// then the projection's GEMM (with the residual) into the output.
void FusedRows(OpData& d, const float* in, const float* dw_filter,
               const float* dw_bias, const float* expand_bias,
               const float* project_bias, const float* residual,
               int64_t row_begin, int64_t row_end, float* scratch, float* out) {
  float* rows = scratch;
  float* band = scratch + d.rows_floats;
  const int64_t row_floats = static_cast<int64_t>(d.in_w) * d.in_c;
  GemmEpilogue expand;
  expand.bias = expand_bias;
  ActivationRange(d.expand_act, &expand.low, &expand.high);
  GemmEpilogue project;
  project.bias = project_bias;
  ActivationRange(d.project_act, &project.low, &project.high);
  float low, high;
  ActivationRange(d.act, &low, &high);
  int64_t held_b = -1;
  int y0 = 0, y1 = 0;  // expanded rows [y0, y1) of image held_b in `rows`
  for (int64_t row = row_begin; row < row_end;) {
    const int64_t b = row / d.out_h;
    const int oy = static_cast<int>(row % d.out_h);
    const int n = static_cast<int>(
        std::min<int64_t>({d.band, d.out_h - oy, row_end - row}));
    const int lo = std::max(0, oy * d.stride_h - d.pad_top);
    const int hi = std::min(d.in_h, (oy + n - 1) * d.stride_h - d.pad_top + 3);
    if (b != held_b || lo < y0 || lo >= y1) {
      held_b = b;
      y0 = y1 = lo;
    } else if (lo > y0) {
      memmove(rows, rows + (lo - y0) * row_floats,
              sizeof(float) * (y1 - lo) * row_floats);
      y0 = lo;
    }
    if (hi > y1) {
      const float* x =
          in + ((b * d.in_h + y1) * d.in_w) * static_cast<int64_t>(d.expand_c);
      Gemm((hi - y1) * d.in_w, d.in_c, d.expand_c, x, d.expand_c,
           d.expand_filter.data(), rows + (y1 - y0) * row_floats, d.in_c, 1,
           expand, nullptr);
      y1 = hi;
    }
    RunKernel<DepthwiseImageRowsOp>(&d, static_cast<const float*>(rows), y0,
                                    dw_filter, dw_bias, low, high, oy, oy + n,
                                    band);
    const int64_t first = row * d.out_w * d.project_c;
    GemmEpilogue e = project;
    if (residual != nullptr) e.residual = residual + first;
    Gemm(n * d.out_w, d.project_c, d.in_c, band, d.in_c,
         d.project_filter.data(), out + first, d.project_c, 1, e, nullptr);
    row += n;
  }
}

Status Eval(KernelContext* context, Node* node) {
  OpData& d = *static_cast<OpData*>(node->user_data);
  const float* in = context->input(*node, 0)->data_as<float>();
  const float* filter = context->input(*node, 1)->data_as<float>();
  const Tensor* bias_tensor = context->input(*node, 2);
  const float* bias = bias_tensor ? bias_tensor->data_as<float>() : nullptr;
  Tensor* output = context->output(*node, 0);
  float* out = output->data_as<float>();
  if (context->use_reference()) {
    Reference(d, in, filter, bias, out);
    return Status::Ok();
  }
  int64_t rows = static_cast<int64_t>(d.batch) * d.out_h;
  ThreadPool* pool = context->thread_pool();
  if (kFusedBlocks && d.fused) {
    const Tensor* eb = context->input(*node, 4);
    const Tensor* pb = context->input(*node, 6);
    const Tensor* r = context->input(*node, 7);
    float* scratch = static_cast<float*>(node->scratch[d.scratch]);
    if (bias == nullptr) bias = d.zero_bias.data();
    pool->ParallelForTasks(
        rows, 1, pool->num_threads(), [&](int t, int64_t b, int64_t e) {
          FusedRows(d, in, filter, bias, eb ? eb->data_as<float>() : nullptr,
                    pb ? pb->data_as<float>() : nullptr,
                    r ? r->data_as<float>() : nullptr, b, e,
                    scratch + t * d.task_floats, out);
        });
    return Status::Ok();
  }
  int64_t work_per_row =
      static_cast<int64_t>(d.out_w) * d.out_c * d.k_h * d.k_w;
  int64_t grain =
      std::max<int64_t>(1, 32768 / std::max<int64_t>(1, work_per_row));
  if (bias == nullptr) bias = d.zero_bias.data();
  float low, high;
  ActivationRange(d.act, &low, &high);
  pool->ParallelForBalanced(
      rows, grain, pool->num_threads(), [&](int64_t b, int64_t e) {
        if (d.multiplier == 1) {
          ImageRows(d, in, filter, bias, low, high, b, e, out);
        } else {
          MultiplierRows(d, in, filter, bias, out, b, e);
        }
      });
  if (d.act == ActivationFunctionType::TANH ||
      d.act == ActivationFunctionType::SIGMOID) {
    ApplyActivationInPlace(out, output->num_elements(), d.act);
  }
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_DEPTHWISE_CONV_2D() {
  return {BuiltinOperator::DEPTHWISE_CONV_2D,
          1,
          InitOpData<OpData>,
          FreeOpData<OpData>,
          Prepare,
          Eval};
}

}  // namespace twl

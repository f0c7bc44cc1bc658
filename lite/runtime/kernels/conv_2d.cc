// CONV_2D: input NHWC, filter OHWI [Cout, KH, KW, Cin], optional bias [Cout],
// strides, dilations, SAME/VALID padding, fused activation (float32).
//
// Optimized paths (Conv2DPath, conv_2d.h; ChooseConv2DPath says which wins
// where): im2col into planned scratch + the packed GEMM. With many output
// channels the GEMM is pixels x Cout (filter packed once in prepare). With
// few output channels (< one 16-wide panel) it is computed transposed, Cout
// x pixels, with im2col writing pixels straight into packed panels, so the
// vector lanes run over pixels instead of mostly-empty channel lanes; with a
// single input channel and stride_w 1 (first layers of grayscale nets) a
// direct convolution over whole NHWC output rows replaces im2col
// (DirectRows). A 1x1 stride-1 convolution reads the input directly; with
// few input channels and whole panels of output channels, InPlaceRows reads
// the input in place (taps in the padding skipped).
#include "lite/runtime/kernels/conv_2d.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "lite/runtime/gemm.h"
#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/conv_2d_winograd.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"
#include "lite/runtime/vector.h"

namespace twl {
namespace {

using Geometry = Conv2DGeometry;

struct OpData {
  ActivationFunctionType act;
  Geometry g;
  Conv2DPath path = Conv2DPath::kReference;
  // The packed filter (GEMM paths) or, for the direct path, each tap's
  // weights tiled along an output row, then the bias tiled the same way.
  AlignedFloats packed_filter;
  int im2col_scratch = -1;  // im2col, packed pixels or expanded input rows
};

// The direct path's layout. An output row (b, oy) is out_w * out_c
// contiguous floats (NHWC); an expanded input row repeats every pixel of a
// zero-padded input row out_c times, so tap (ky, kx) of the whole output row
// is the expanded row of y = oy * stride_h + ky * dilation_h, shifted by
// kx * dilation_w * out_c, times the tap's weights tiled along the row.
struct DirectLayout {
  int row_len;     // floats in an output row
  int row_floats;  // row_len rounded up to whole vectors
  int expanded;    // floats in an expanded row, with a vector of slack
  int window;      // input rows one output row reads: (k_h - 1) * dil_h + 1
  int ring_rows;   // expanded rows one block of output rows reads

  // A task's scratch: a ring of expanded rows, then a row of zeros.
  int64_t ring_floats() const { return int64_t{ring_rows + 1} * expanded; }
};

// Output rows per block of the direct path: each input vector loaded feeds
// up to k_h of them.
constexpr int kDirectRows = 6;
constexpr int kMaxDirectRing = 128;

inline DirectLayout GetDirectLayout(const Geometry& g) {
  DirectLayout l;
  l.row_len = g.out_w * g.out_c;
  l.row_floats = (l.row_len + kGemmNr - 1) / kGemmNr * kGemmNr;
  l.expanded = ((g.k_w - 1) * g.dilation_w + g.out_w) * g.out_c + kGemmNr;
  l.window = (g.k_h - 1) * g.dilation_h + 1;
  l.ring_rows = (kDirectRows - 1) * g.stride_h + l.window;
  return l;
}

}  // namespace

const char* Conv2DPathName(Conv2DPath path) {
  switch (path) {
    case Conv2DPath::kReference:
      return "reference";
    case Conv2DPath::kPointwise:
      return "pointwise";
    case Conv2DPath::kIm2col:
      return "im2col";
    case Conv2DPath::kTransposedIm2col:
      return "transposed_im2col";
    case Conv2DPath::kDirectRows:
      return "direct_rows";
    case Conv2DPath::kInPlaceRows:
      return "in_place_rows";
    case Conv2DPath::kWinograd:
      return "winograd";
  }
  return "unknown";
}

// Winograd reads its transformed filter (36 x Cin x Cout floats, 4x the
// filter) once per call and saves multiplies per 4x4 output tile: with few
// tiles and a large filter the filter's traffic costs more than the
// multiplies saved. Measured on ResNet-18's layers (1 thread, AVX-512):
// 56x56x64 1.3 vs 3.6 ms (im2col), 28x28x128 0.94 vs 2.5, 14x14x256 1.1 vs
// 2.4, 8x8x256 (4 tiles) 0.53 vs 0.65, but 7x7x512 (4 tiles, 38 MB of
// transformed filter) 2.7 vs 2.4; 7x7x512 at batch 2 (8 tiles) is even.
// A 2x2 output (one tile, 4 outputs) saves nothing. TWL_LITE_CONV_WINOGRAD=0
// (read once) turns the path off, for measuring it against the path the
// geometry ran before (benchmarks).
static bool WinogradWins(const Conv2DGeometry& g) {
  static const bool disabled = [] {
    const char* v = std::getenv("TWL_LITE_CONV_WINOGRAD");
    return v != nullptr && std::strcmp(v, "0") == 0;
  }();
  if (disabled || g.k_h != 3 || g.k_w != 3 || g.stride_h != 1 ||
      g.stride_w != 1 || g.dilation_h != 1 || g.dilation_w != 1 ||
      g.in_c < 16 || g.out_c < kGemmNr || g.out_h < 3 || g.out_w < 3) {
    return false;
  }
  const int64_t tiles =
      int64_t{g.batch} * ((g.out_h + 3) / 4) * ((g.out_w + 3) / 4);
  return tiles >= 8 || int64_t{g.in_c} * g.out_c <= 256 * 256;
}

Conv2DPath ChooseConv2DPath(const Conv2DGeometry& g, bool use_reference) {
  if (use_reference) return Conv2DPath::kReference;
  // 1x1, stride 1, no padding: the NHWC input already is the im2col matrix
  // (pixels x Cin), so one GEMM against the packed filter, no copies.
  if (g.k_h == 1 && g.k_w == 1 && g.stride_h == 1 && g.stride_w == 1 &&
      g.pad_top == 0 && g.pad_left == 0) {
    return Conv2DPath::kPointwise;
  }
  if (g.out_c < kGemmNr) {
    // Fewer output channels than one 16-wide panel: a pixels x Cout GEMM
    // would run mostly-empty channel lanes. With one input channel and
    // stride_w 1 (first layers of grayscale nets) the direct path computes
    // whole NHWC output rows from expanded input rows, every lane useful and
    // no im2col; it needs the filter rows (k_h <= 64) and a block's rows
    // (the ring) to fit its fixed-size tables.
    if (g.in_c == 1 && g.stride_w == 1 && g.k_h <= 64 &&
        GetDirectLayout(g).ring_rows <= kMaxDirectRing) {
      return Conv2DPath::kDirectRows;
    }
    // Otherwise the GEMM transposed, Cout x pixels, so that the vector
    // lanes run over pixels.
    return Conv2DPath::kTransposedIm2col;
  }
  // 3x3, stride 1, undilated, with many channels in and out: Winograd
  // F(4x4, 3x3) (conv_2d_winograd.cc), 36 multiplies per 16 outputs and
  // channel pair instead of 144.
  if (WinogradWins(g)) return Conv2DPath::kWinograd;
  // Whole panels of output channels and few input channels: each task reads
  // the input in place (the taps in the padding skipped) and keeps a tile of
  // pixels x one vector of channels in registers; no im2col scratch.
  // MobileNetV2's 3x3/2 stem (224x224x3 -> 32, padded): 0.79 ms by im2col,
  // ~0.4 here (1 thread, AVX2). With 16 or more input channels the GEMM's
  // register blocking wins: on ResNet-18's PAD + VALID stride-2 convolutions
  // (64-256 channels in; 1 thread, AVX-512, a loaded machine) im2col
  // took 4.5-5.8 ms against 17-18 here for 16x16x256 -> 512, 4.7-5.5 against 10
  // for 30x30x128 -> 256; the 7x7 stem (3 channels in) stays here (8-13 ms
  // against 16-18).
  if (g.out_c % kGemmNr == 0 && g.in_c < 16) return Conv2DPath::kInPlaceRows;
  // Everything else: im2col into scratch, then the pixels x Cout GEMM.
  return Conv2DPath::kIm2col;
}

namespace {

Conv2DPathObserver path_observer = nullptr;

// The observer and, with TWL_LITE_LOG_CONV_PATHS set (read once), stderr.
void ReportPath(const Node& node, const Geometry& g, Conv2DPath path) {
  static const bool log = std::getenv("TWL_LITE_LOG_CONV_PATHS") != nullptr;
  if (log) {
    std::fprintf(stderr,
                 "twl: CONV_2D node %d [%d,%d,%d,%d] * [%d,%d,%d,%d] "
                 "stride %dx%d: %s\n",
                 node.index, g.batch, g.in_h, g.in_w, g.in_c, g.out_c, g.k_h,
                 g.k_w, g.in_c, g.stride_h, g.stride_w, Conv2DPathName(path));
  }
  if (path_observer != nullptr) path_observer(node.index, path);
}

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* data = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(data != nullptr, "out of memory");
  // A fused residual ADD (Node::fused_add) is input 3.
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, node->fused_add ? 4 : 3));
  const auto* options = GetOptions<schema::Conv2DOptions>(*node);
  data->act = node->fused_add ? node->fused_add_activation
                              : options->fused_activation_function();
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
  TWL_RETURN_IF_ERROR(ComputePadding(
      options->padding(), g.in_h, g.k_h, g.stride_h, g.dilation_h, &g.out_h,
      &g.pad_top, options->pad_top(), options->pad_bottom()));
  TWL_RETURN_IF_ERROR(ComputePadding(
      options->padding(), g.in_w, g.k_w, g.stride_w, g.dilation_w, &g.out_w,
      &g.pad_left, options->pad_left(), options->pad_right()));
  TWL_RETURN_IF_ERROR(context->ResizeTensor(
      output, Shape({g.batch, g.out_h, g.out_w, g.out_c})));
  if (node->fused_add) {
    const Tensor* residual = context->input(*node, 3);
    char have[96], want[96];
    TWL_CHECK_ARG(residual != nullptr && residual->shape == output->shape,
                  "the ADD fused into this convolution adds '%s' of shape %s "
                  "to its output of shape %s (no broadcast when fused)",
                  residual ? residual->name : "",
                  residual ? residual->shape.ToString(have, sizeof(have)) : "",
                  output->shape.ToString(want, sizeof(want)));
  }
  const int64_t k = static_cast<int64_t>(g.k_h) * g.k_w * g.in_c;
  const int64_t pixels = static_cast<int64_t>(g.batch) * g.out_h * g.out_w;
  TWL_CHECK_ARG(k <= INT32_MAX && pixels <= INT32_MAX, "conv too large");
  data->path = ChooseConv2DPath(g, context->use_reference());
  ReportPath(*node, g, data->path);
  data->im2col_scratch = -1;
  if (data->path == Conv2DPath::kReference) {
    // The plain loops read the model's filter and bias; nothing to plan.
  } else if (data->path == Conv2DPath::kDirectRows) {
    // A ring per task (see DirectRows).
    const DirectLayout l = GetDirectLayout(g);
    const int tasks =
        context->thread_pool() ? context->thread_pool()->num_threads() : 1;
    const int64_t rows = l.ring_floats() * tasks;
    const int64_t taps = static_cast<int64_t>(g.k_h) * g.k_w;
    TWL_CHECK_ARG(rows <= kMaxTensorBytes / 4 &&
                      (taps + 1) * l.row_floats <= kMaxTensorBytes / 4,
                  "conv too large");
    TWL_RETURN_IF_ERROR(
        context->RequestScratch(node, static_cast<size_t>(rows) * sizeof(float),
                                &data->im2col_scratch));
    TWL_CHECK_ARG(data->packed_filter.Resize((taps + 1) * l.row_floats),
                  "out of memory");
    float* tiled = data->packed_filter.data();
    const float* w = filter->data_as<float>();
    const float* b = bias ? bias->data_as<float>() : nullptr;
    for (int64_t t = 0; t <= taps; ++t) {
      float* row = tiled + t * l.row_floats;
      for (int i = 0; i < l.row_floats; ++i) {
        const int c = i % g.out_c;
        const bool inside = i < l.row_len;
        if (t < taps) {
          row[i] = inside ? w[c * taps + t] : 0.f;
        } else {
          row[i] = inside && b != nullptr ? b[c] : 0.f;
        }
      }
    }
  } else if (data->path == Conv2DPath::kWinograd) {
    // U, the transformed filter (36 packed Cin x Cout matrices), and a
    // block's buffers per task.
    const int tasks =
        context->thread_pool() ? context->thread_pool()->num_threads() : 1;
    const int64_t u = WinogradFilterFloats(g.in_c, g.out_c);
    const int64_t per_task = WinogradTaskScratchFloats(g);
    TWL_CHECK_ARG(
        u <= kMaxTensorBytes / 4 && per_task * tasks <= kMaxTensorBytes / 4,
        "conv too large");
    TWL_CHECK_ARG(data->packed_filter.Resize(static_cast<size_t>(u)),
                  "out of memory");
    AlignedFloats tmp;  // the transformed filter before packing
    TWL_CHECK_ARG(tmp.Resize(static_cast<size_t>(36) * g.in_c * g.out_c),
                  "out of memory");
    WinogradTransformFilter(filter->data_as<float>(), g.in_c, g.out_c,
                            tmp.data(), data->packed_filter.data());
    TWL_RETURN_IF_ERROR(context->RequestScratch(
        node, static_cast<size_t>(per_task * tasks) * sizeof(float),
        &data->im2col_scratch));
  } else if (data->path == Conv2DPath::kTransposedIm2col) {
    TWL_RETURN_IF_ERROR(context->RequestScratch(
        node, PackedGemmBSize(static_cast<int>(pixels), k) * sizeof(float),
        &data->im2col_scratch));
  } else {
    TWL_CHECK_ARG(data->packed_filter.Resize(PackedGemmBSize(g.out_c, k)),
                  "out of memory");
    PackGemmB(filter->data_as<float>(), g.out_c, static_cast<int>(k), k,
              data->packed_filter.data());
    if (data->path == Conv2DPath::kIm2col) {
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

// Pixels (rows of A) per block of the pointwise and im2col paths: the GEMM
// runs every panel of the packed filter over a block before the next one.
// With a small filter (it stays in L2 across blocks) a block of A is sized
// for L1, so each panel rereads A from L1 instead of the whole task's A
// from L2 or memory; with a large one, for L2, so the filter is reread
// only once per L2-sized block (MobileNetV2's late layers: one block). A
// long inner dimension (k > 2 * kGemmSlice) keeps its tiles' slices of A in
// L1 whatever the block, so its blocks take up to 1 MB: ResNet-18's 7x7x512
// 3x3 convolutions (49 pixels, a 9 MB filter) ran 24 + 24 + 1 pixels, the
// filter streamed three times, the last for one pixel (3.9 ms, 1 thread).
// The task's `pixels` are cut into equal blocks, so none is a short tail.
inline int64_t PixelBlock(int k, int n, int64_t pixels) {
  constexpr int64_t kL1Bytes = 24 * 1024, kL2Bytes = 256 * 1024,
                    kLongBytes = 1024 * 1024;
  const int64_t filter_bytes = int64_t{4} * k * n;
  const int64_t bytes = filter_bytes <= kL2Bytes ? kL1Bytes
                        : k > 2 * kGemmSlice     ? kLongBytes
                                                 : kL2Bytes;
  const int64_t rows = std::max<int64_t>(
      bytes / (int64_t{4} * k) / kGemmMr * kGemmMr, 2 * kGemmMr);
  const int64_t blocks = std::max<int64_t>(1, (pixels + rows - 1) / rows);
  return (pixels + blocks - 1) / blocks;
}

// Below this many multiply-adds per task a second thread costs more than it
// saves (measured on the LeNet layers).
constexpr int64_t kMinMacsPerTask = 32 * 1024;

// InPlaceRows (output channels a multiple of 16, few input channels) reads
// the input in place (no im2col) and keeps InPlacePixels(W) pixels x 16
// channels of accumulators in registers (16 / W vectors per pixel): 12 with
// AVX2 (6 pixels), 8 with AVX-512, 12 with SSE2 and NEON (3 pixels). Every
// filter tap is 16 / W vector loads of the packed filter, shared by those
// pixels.
constexpr int InPlacePixels(int w) { return w >= 16 ? 8 : (w == 8 ? 6 : 3); }

// [first, end) of the taps 0..k-1 at `start + tap * dilation` that fall in
// [0, size).
inline void ClipTaps(int start, int k, int dilation, int size, int* first,
                     int* end) {
  int f = 0, e = k;
  while (f < k && start + f * dilation < 0) ++f;
  while (e > f && start + (e - 1) * dilation >= size) --e;
  *first = f;
  *end = e;
}

// The vector kernels, for vectors of W floats (vector.h).
template <int W>
struct ConvKernels {
  typedef typename VectorOf<W>::type Vec;

  // Bias, clamp and store vector `at` (a float offset) of an output row;
  // the row's last vector may be partial.
  static TWL_KERNEL_INLINE void StoreDirect(const DirectLayout& l, Vec acc,
                                            const float* bias_row, int64_t at,
                                            float low, float high, float* o) {
    const Vec r = Clamp(acc + LoadVector<W>(bias_row + at), Splat<W>(low),
                        Splat<W>(high));
    if (at + W <= l.row_len) {
      memcpy(o + at, &r, sizeof(r));  // a whole vector: one store
    } else {
      memcpy(o + at, &r, (l.row_len - at) * sizeof(float));
    }
  }

  // Stride 1, dilation 1 in y, KH filter rows: vector `at` of kDirectRows
  // consecutive output rows, whose inputs are the expanded rows in[0 ..
  // kDirectRows + KH - 2]. Each input vector is loaded once per kx and
  // multiplied into every output row it belongs to.
  template <int KH>
  static TWL_KERNEL_INLINE void DirectColumn(const Geometry& g,
                                             const DirectLayout& l,
                                             const float* const* in,
                                             const float* tiled, int64_t at,
                                             Vec* acc) {
#pragma GCC unroll 8
    for (int r = 0; r < kDirectRows; ++r) acc[r] = Vec{};
    const int shift = g.dilation_w * g.out_c;
    for (int kx = 0; kx < g.k_w; ++kx) {
      Vec w[KH];
#pragma GCC unroll 8
      for (int ky = 0; ky < KH; ++ky) {
        w[ky] = LoadVector<W>(tiled +
                              (ky * g.k_w + kx) * int64_t{l.row_floats} + at);
      }
#pragma GCC unroll 16
      for (int j = 0; j < kDirectRows + KH - 1; ++j) {
        const Vec x = LoadVector<W>(in[j] + kx * shift + at);
#pragma GCC unroll 8
        for (int ky = 0; ky < KH; ++ky) {
          const int r = j - ky;
          if (r >= 0 && r < kDirectRows) acc[r] += x * w[ky];
        }
      }
    }
  }

  // Any strides and dilations in y: vector `at` of one output row whose
  // filter rows read the expanded rows rows[0 .. k_h - 1].
  static TWL_KERNEL_INLINE Vec DirectVector(const Geometry& g,
                                            const DirectLayout& l,
                                            const float* const* rows,
                                            const float* tiled, int64_t at) {
    Vec acc = Vec{};
    const float* w = tiled + at;
    for (int ky = 0; ky < g.k_h; ++ky) {
      const float* e = rows[ky] + at;
      for (int kx = 0; kx < g.k_w; ++kx, w += l.row_floats) {
        acc +=
            LoadVector<W>(e + kx * g.dilation_w * g.out_c) * LoadVector<W>(w);
      }
    }
    return acc;
  }

  // n <= kDirectRows consecutive output rows from o (stride 1, dilation 1
  // in y, KH filter rows), whose inputs are the expanded rows
  // rows[0 .. kDirectRows + KH - 2].
  template <int KH>
  static TWL_KERNEL_INLINE void DirectBlock(const Geometry& g,
                                            const DirectLayout& l,
                                            const float* const* rows,
                                            const float* tiled,
                                            const float* bias_row, int n,
                                            float low, float high, float* o) {
    for (int64_t at = 0; at < l.row_len; at += W) {
      Vec acc[kDirectRows];
      DirectColumn<KH>(g, l, rows, tiled, at, acc);
      for (int r = 0; r < n; ++r) {
        StoreDirect(l, acc[r], bias_row, at, low, high, o + r * l.row_len);
      }
    }
  }

  // One output row from o, any strides and dilations in y: its filter rows
  // read the expanded rows rows[0 .. k_h - 1].
  static TWL_KERNEL_INLINE void DirectRow(const Geometry& g,
                                          const DirectLayout& l,
                                          const float* const* rows,
                                          const float* tiled,
                                          const float* bias_row, float low,
                                          float high, float* o) {
    for (int64_t at = 0; at < l.row_len; at += W) {
      StoreDirect(l, DirectVector(g, l, rows, tiled, at), bias_row, at, low,
                  high, o);
    }
  }

  // P pixels x the 16 output channels of `panel` (kSub vectors of W). The
  // window of pixel j starts at input (y0, x0 + j * stride_w), which may
  // lie in the padding: only filter rows [ky0, ky1) and columns [kx0, kx1)
  // are read (the caller clips them to the input, the same for all P
  // pixels). Undilated in x, a filter row's taps are one contiguous run of
  // (kx1 - kx0) * in_c floats in the input and in the packed filter alike.
  // Per tap: kSub filter loads and P broadcasts feed P * kSub multiply-adds.
  // Q adjacent panels (Q x 16 output channels; panel q at panel + q * 16 *
  // k) at once: each input value loaded feeds Q x 16 / W multiply-adds.
  template <int P, int Q = 1>
  static TWL_KERNEL_INLINE void InPlaceTile(const Geometry& g,
                                            const float* image, int y0, int x0,
                                            int ky0, int ky1, int kx0, int kx1,
                                            const float* panel,
                                            const float* bias, float low,
                                            float high, float* out) {
    constexpr int kSub = Q * kGemmNr / W;
    const int64_t pixel_step = static_cast<int64_t>(g.stride_w) * g.in_c;
    const int64_t panel_floats =
        static_cast<int64_t>(kGemmNr) * g.k_h * g.k_w * g.in_c;
    Vec acc[P][kSub];
#pragma GCC unroll 4
    for (int s = 0; s < kSub; ++s) {
      const Vec init = bias != nullptr ? LoadVector<W>(bias + s * W) : Vec{};
#pragma GCC unroll 8
      for (int j = 0; j < P; ++j) acc[j][s] = init;
    }
    const int runs = g.dilation_w == 1 ? 1 : kx1 - kx0;
    const int run_len = (g.dilation_w == 1 ? kx1 - kx0 : 1) * g.in_c;
    for (int ky = ky0; ky < ky1; ++ky) {
      const int iy = y0 + ky * g.dilation_h;
      for (int r = 0; r < runs; ++r) {
        const int kx = kx0 + r;
        const float* px = image + (static_cast<int64_t>(iy) * g.in_w + x0 +
                                   kx * g.dilation_w) *
                                      g.in_c;
        const float* w = panel + ((ky * g.k_w + kx) * g.in_c) * kGemmNr;
        for (int t = 0; t < run_len; ++t) {
          Vec wv[kSub];
#pragma GCC unroll 4
          for (int s = 0; s < kSub; ++s) {
            // Sub-vector s: panel s * W / 16, its vector s % (16 / W).
            const int q = s * W / kGemmNr, v = s % (kGemmNr / W);
            wv[s] = LoadVector<W>(w + q * panel_floats + t * kGemmNr + v * W);
          }
#pragma GCC unroll 8
          for (int j = 0; j < P; ++j) {
            const float x = px[j * pixel_step + t];
#pragma GCC unroll 4
            for (int s = 0; s < kSub; ++s) acc[j][s] += x * wv[s];
          }
        }
      }
    }
    const Vec vlow = Splat<W>(low), vhigh = Splat<W>(high);
#pragma GCC unroll 8
    for (int j = 0; j < P; ++j) {
#pragma GCC unroll 4
      for (int s = 0; s < kSub; ++s) {
        const Vec v = Clamp(acc[j][s], vlow, vhigh);
        // (Panels are adjacent in the output's channels too: channel s * W.)
        memcpy(out + static_cast<int64_t>(j) * g.out_c + s * W, &v, sizeof(v));
      }
    }
  }

  // Output rows [row_begin, row_end) of batch * out_h, read from the input
  // in place: the taps that fall in the padding are skipped (clipped per
  // row, and per pixel for the border pixels); the interior pixels run
  // InPlacePixels(W) at a time.
  static TWL_KERNEL_INLINE void InPlaceRows(const Geometry& g, const float* in,
                                            const float* packed,
                                            const float* bias,
                                            ActivationFunctionType act,
                                            int64_t row_begin, int64_t row_end,
                                            float* out) {
    float low, high;
    ActivationRange(act, &low, &high);
    const int k = g.k_h * g.k_w * g.in_c;
    // Output columns [ox_lo, ox_hi) read no padding.
    const int ox_lo =
        std::min(g.out_w, (g.pad_left + g.stride_w - 1) / g.stride_w);
    int ox_hi = g.out_w;
    while (ox_hi > ox_lo &&
           (ox_hi - 1) * g.stride_w - g.pad_left + (g.k_w - 1) * g.dilation_w >=
               g.in_w) {
      --ox_hi;
    }
    for (int64_t row = row_begin; row < row_end; ++row) {
      const int b = static_cast<int>(row / g.out_h);
      const int oy = static_cast<int>(row % g.out_h);
      const float* image =
          in + static_cast<int64_t>(b) * g.in_h * g.in_w * g.in_c;
      const int y0 = oy * g.stride_h - g.pad_top;
      int ky0, ky1;
      ClipTaps(y0, g.k_h, g.dilation_h, g.in_h, &ky0, &ky1);
      for (int oc0 = 0; oc0 < g.out_c;) {
        // With AVX-512 a panel is one vector: the pixel tiles take two panels
        // at once (16 accumulators, 10 loads per 16 multiply-adds where one
        // panel took 9 per 8; ResNet's 7x7/2 stem, 3 -> 64 channels).
        const int panels = W == 16 && oc0 + 2 * kGemmNr <= g.out_c ? 2 : 1;
        const float* panel =
            packed + static_cast<int64_t>(oc0 / kGemmNr) * kGemmNr * k;
        const float* pb = bias != nullptr ? bias + oc0 : nullptr;
        float* o = out + row * g.out_w * g.out_c + oc0;
        // One pixel (a border's, with its valid taps, or the tail's), panel
        // by panel.
        auto pixel = [&](int ox, int kx0, int kx1) {
          for (int q = 0; q < panels; ++q) {
            InPlaceTile<1>(
                g, image, y0, ox * g.stride_w - g.pad_left, ky0, ky1, kx0, kx1,
                panel + static_cast<int64_t>(q) * kGemmNr * k,
                pb != nullptr ? pb + q * kGemmNr : nullptr, low, high,
                o + static_cast<int64_t>(ox) * g.out_c + q * kGemmNr);
          }
        };
        auto border = [&](int ox) {
          int kx0, kx1;
          ClipTaps(ox * g.stride_w - g.pad_left, g.k_w, g.dilation_w, g.in_w,
                   &kx0, &kx1);
          pixel(ox, kx0, kx1);
        };
        for (int ox = 0; ox < ox_lo; ++ox) border(ox);
        int ox = ox_lo;
        constexpr int kPixels = InPlacePixels(W);
        for (; ox + kPixels <= ox_hi; ox += kPixels) {
          const int x0 = ox * g.stride_w - g.pad_left;
          float* tile_out = o + static_cast<int64_t>(ox) * g.out_c;
          if constexpr (W == 16) {
            if (panels == 2) {
              InPlaceTile<kPixels, 2>(g, image, y0, x0, ky0, ky1, 0, g.k_w,
                                      panel, pb, low, high, tile_out);
              continue;
            }
          }
          InPlaceTile<kPixels>(g, image, y0, x0, ky0, ky1, 0, g.k_w, panel, pb,
                               low, high, tile_out);
        }
        for (; ox < ox_hi; ++ox) pixel(ox, 0, g.k_w);
        for (ox = std::max(ox_lo, ox_hi); ox < g.out_w; ++ox) border(ox);
        oc0 += panels * kGemmNr;
      }
    }
  }
};

// The direct path's vector work, a block of rows (or one row) per
// RunKernel call: inlined into the loops around it, its accumulators did
// not stay in registers.
template <int KH>
struct DirectBlockOp {
  template <int W>
  static TWL_KERNEL_INLINE void Run(const Geometry* g, const DirectLayout* l,
                                    const float* const* rows,
                                    const float* tiled, const float* bias_row,
                                    int n, float low, float high, float* o) {
    ConvKernels<W>::template DirectBlock<KH>(*g, *l, rows, tiled, bias_row, n,
                                             low, high, o);
  }
};

struct DirectRowOp {
  template <int W>
  static TWL_KERNEL_INLINE void Run(const Geometry* g, const DirectLayout* l,
                                    const float* const* rows,
                                    const float* tiled, const float* bias_row,
                                    float low, float high, float* o) {
    ConvKernels<W>::DirectRow(*g, *l, rows, tiled, bias_row, low, high, o);
  }
};

// Expands input row y (of the zero-padded image b) into `e`: each pixel
// broadcast out_c (< 16) times, a vector at a time (each store may spill
// into the next pixel's place, which is written after it).
void ExpandRow(const Geometry& g, const DirectLayout& l, const float* in, int b,
               int y, float* e) {
  typedef VectorOf<kNativeWidth>::type Native;
  const int padded_w = (g.k_w - 1) * g.dilation_w + g.out_w;
  const int sy = y - g.pad_top;
  if (sy < 0 || sy >= g.in_h) {
    memset(e, 0, l.expanded * sizeof(float));
    return;
  }
  const float* line = in + (static_cast<int64_t>(b) * g.in_h + sy) * g.in_w;
  // Padded columns [x0, x1) hold input pixels, the others zeros.
  const int x0 = std::min(g.pad_left, padded_w);
  const int x1 = std::max(x0, std::min(padded_w, g.pad_left + g.in_w));
  memset(e, 0, static_cast<size_t>(x0) * g.out_c * sizeof(float));
  float* o = e + static_cast<int64_t>(x0) * g.out_c;
  for (int xp = x0; xp < x1; ++xp, o += g.out_c) {
    const Native v = Splat<kNativeWidth>(line[xp - g.pad_left]);
    for (int c = 0; c < g.out_c; c += kNativeWidth)
      memcpy(o + c, &v, sizeof(v));
  }
  memset(o, 0, (e + l.expanded - o) * sizeof(float));
}

// Output rows [row_begin, row_end) of batch * out_h, in blocks of up to
// kDirectRows rows of one image. `ring` holds the expanded rows a block
// reads (slot y % ring_rows holds row y of the padded image, tags say which
// image) and, last, a row of zeros.
void DirectRows(const Geometry& g, const float* in, const float* tiled,
                ActivationFunctionType act, int64_t row_begin, int64_t row_end,
                float* ring, float* out) {
  const DirectLayout l = GetDirectLayout(g);
  float low, high;
  ActivationRange(act, &low, &high);
  float* zeros = ring + int64_t{l.ring_rows} * l.expanded;
  memset(zeros, 0, l.expanded * sizeof(float));
  int64_t tags[kMaxDirectRing];
  for (int i = 0; i < l.ring_rows; ++i) tags[i] = -1;
  const int padded_h = (g.out_h - 1) * g.stride_h + l.window;
  const float* bias_row = tiled + int64_t{g.k_h} * g.k_w * l.row_floats;
  const bool blocked = g.stride_h == 1 && g.dilation_h == 1 && g.k_h <= 8;
  // The expanded row y of image b (made on first use).
  auto expanded = [&](int b, int y) -> const float* {
    if (y >= padded_h) return zeros;
    const int slot = y % l.ring_rows;
    float* e = ring + int64_t{slot} * l.expanded;
    const int64_t tag = int64_t{b} * padded_h + y;
    if (tags[slot] != tag) {
      ExpandRow(g, l, in, b, y, e);
      tags[slot] = tag;
    }
    return e;
  };
  for (int64_t row = row_begin; row < row_end;) {
    const int b = static_cast<int>(row / g.out_h);
    const int oy = static_cast<int>(row % g.out_h);
    const int n = static_cast<int>(
        std::min<int64_t>({kDirectRows, g.out_h - oy, row_end - row}));
    float* o = out + row * l.row_len;
    if (blocked) {
      const float* rows[kDirectRows + 7];
      for (int j = 0; j < kDirectRows + g.k_h - 1; ++j) {
        rows[j] = expanded(b, oy + j);
      }
      switch (g.k_h) {
#define TWL_DIRECT_CASE(KH)                                              \
  case KH:                                                               \
    RunKernel<DirectBlockOp<KH>>(&g, &l,                                 \
                                 static_cast<const float* const*>(rows), \
                                 tiled, bias_row, n, low, high, o);      \
    break;
        TWL_DIRECT_CASE(1)
        TWL_DIRECT_CASE(2)
        TWL_DIRECT_CASE(3)
        TWL_DIRECT_CASE(4)
        TWL_DIRECT_CASE(5)
        TWL_DIRECT_CASE(6)
        TWL_DIRECT_CASE(7)
        TWL_DIRECT_CASE(8)
#undef TWL_DIRECT_CASE
      }
    } else {
      for (int r = 0; r < n; ++r) {
        const float* rows[64];
        for (int ky = 0; ky < g.k_h; ++ky) {
          rows[ky] = expanded(b, (oy + r) * g.stride_h + ky * g.dilation_h);
        }
        RunKernel<DirectRowOp>(&g, &l, static_cast<const float* const*>(rows),
                               tiled, bias_row, low, high, o + r * l.row_len);
      }
    }
    row += n;
  }
}

struct InPlaceRowsOp {
  template <int W>
  static TWL_KERNEL_INLINE void Run(const Geometry* g, const float* in,
                                    const float* packed, const float* bias,
                                    ActivationFunctionType act,
                                    int64_t row_begin, int64_t row_end,
                                    float* out) {
    ConvKernels<W>::InPlaceRows(*g, in, packed, bias, act, row_begin, row_end,
                                out);
  }
};

// out = act(out + residual), n elements; nothing without a residual. (The
// interpreter fuses only clamping activations.)
void AddResidual(const float* residual, ActivationFunctionType act, int64_t n,
                 float* out) {
  if (residual == nullptr) return;
  float low, high;
  ActivationRange(act, &low, &high);
  for (int64_t i = 0; i < n; ++i) {
    out[i] = std::min(std::max(out[i] + residual[i], low), high);
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
  const float* residual =
      node->fused_add ? context->input(*node, 3)->data_as<float>() : nullptr;
  const int k = g.k_h * g.k_w * g.in_c;
  const int pixels = g.batch * g.out_h * g.out_w;
  // The GEMM paths add a fused residual in their epilogue; the others
  // convolve without the activation, then add it and clamp in one pass.
  const bool gemm_path = data->path == Conv2DPath::kPointwise ||
                         data->path == Conv2DPath::kIm2col ||
                         data->path == Conv2DPath::kTransposedIm2col;
  const ActivationFunctionType act = residual != nullptr && !gemm_path
                                         ? ActivationFunctionType::NONE
                                         : data->act;
  if (data->path == Conv2DPath::kReference) {
    Reference(g, in, filter, bias, act, out);
    AddResidual(residual, data->act, static_cast<int64_t>(pixels) * g.out_c,
                out);
    return Status::Ok();
  }
  GemmEpilogue epilogue;
  epilogue.bias = bias;
  ActivationRange(act, &epilogue.low, &epilogue.high);
  if (gemm_path) epilogue.residual = residual;
  ThreadPool* pool = context->thread_pool();
  // Each task computes whole output rows (direct) or pixel blocks (im2col
  // + GEMM) end to end, so no intermediate crosses cores.
  const int64_t macs = static_cast<int64_t>(pixels) * g.out_c * k;
  const int tasks = static_cast<int>(std::min<int64_t>(
      pool->num_threads(), std::max<int64_t>(1, macs / kMinMacsPerTask)));
  switch (data->path) {
    case Conv2DPath::kWinograd:
      // Every activation is applied as the tiles are stored.
      WinogradConv2D(g, in, data->packed_filter.data(), bias, act, pool, tasks,
                     static_cast<float*>(node->scratch[data->im2col_scratch]),
                     out);
      AddResidual(residual, data->act, static_cast<int64_t>(pixels) * g.out_c,
                  out);
      return Status::Ok();
    case Conv2DPath::kInPlaceRows: {
      const float* packed = data->packed_filter.data();
      pool->ParallelForBalanced(static_cast<int64_t>(g.batch) * g.out_h, 1,
                                tasks, [&](int64_t begin, int64_t end) {
                                  RunKernel<InPlaceRowsOp>(&g, in, packed, bias,
                                                           act, begin, end,
                                                           out);
                                });
      break;
    }
    case Conv2DPath::kDirectRows: {
      // Task t works in ring t of the scratch.
      float* rings = static_cast<float*>(node->scratch[data->im2col_scratch]);
      const int64_t ring_floats = GetDirectLayout(g).ring_floats();
      const float* tiled = data->packed_filter.data();
      pool->ParallelForTasks(static_cast<int64_t>(g.batch) * g.out_h, 1, tasks,
                             [&](int t, int64_t begin, int64_t end) {
                               DirectRows(g, in, tiled, act, begin, end,
                                          rings + t * ring_floats, out);
                             });
      break;
    }
    case Conv2DPath::kTransposedIm2col: {
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
      break;
    }
    case Conv2DPath::kReference:  // returned above
      break;
    case Conv2DPath::kPointwise:
    case Conv2DPath::kIm2col: {
      float* cols =
          data->path == Conv2DPath::kPointwise
              ? nullptr
              : static_cast<float*>(node->scratch[data->im2col_scratch]);
      const float* packed = data->packed_filter.data();
      if (tasks > 1 && (pixels + kGemmMr - 1) / kGemmMr <
                           (g.out_c + kGemmNr - 1) / kGemmNr) {
        // Fewer blocks of pixels than panels of filter (MobileNetV2's 7x7
        // and 14x14 expansions, ResNet's 7x7x512): the filter is the larger
        // operand, so its panels are split over the threads and each reads
        // its own part of it (split by pixels, both threads streamed all of
        // it: 1.1x on 2 threads). The im2col (if any) first.
        const float* a = in;
        if (cols != nullptr) {
          pool->ParallelForBalanced(pixels, 1, tasks,
                                    [&](int64_t begin, int64_t end) {
                                      for (int64_t p = begin; p < end; ++p)
                                        Patch(g, in, p, cols + p * k, 1);
                                    });
          a = cols;
        }
        const int panels = (g.out_c + kGemmNr - 1) / kGemmNr;
        pool->ParallelForBalanced(
            panels, 1, tasks, [&](int64_t p0, int64_t p1) {
              const int n0 = static_cast<int>(p0) * kGemmNr;
              const int n =
                  std::min(g.out_c, static_cast<int>(p1) * kGemmNr) - n0;
              GemmEpilogue e = epilogue;
              if (e.bias != nullptr) e.bias += n0;
              if (e.residual != nullptr) e.residual += n0;
              Gemm(pixels, n, k, a, k, packed + int64_t{n0} * k, out + n0,
                   g.out_c, 1, e, nullptr);
            });
        break;
      }
      pool->ParallelForBalanced(
          pixels, kGemmMr, tasks, [&](int64_t begin, int64_t end) {
            const int64_t block = PixelBlock(k, g.out_c, end - begin);
            // Block by block: the block's rows of A (the input or its
            // im2col, written just before) stay in cache while every panel
            // of the filter runs over them.
            for (int64_t b0 = begin; b0 < end; b0 += block) {
              const int64_t b1 = std::min(end, b0 + block);
              const float* a = in + b0 * k;
              if (cols != nullptr) {
                for (int64_t p = b0; p < b1; ++p)
                  Patch(g, in, p, cols + p * k, 1);
                a = cols + b0 * k;
              }
              GemmEpilogue e = epilogue;
              if (e.residual != nullptr) e.residual += b0 * g.out_c;
              Gemm(static_cast<int>(b1 - b0), g.out_c, k, a, k, packed,
                   out + b0 * g.out_c, g.out_c, 1, e, nullptr);
            }
          });
      break;
    }
  }
  if (act == ActivationFunctionType::TANH ||
      act == ActivationFunctionType::SIGMOID) {
    ApplyActivationInPlace(out, static_cast<int64_t>(pixels) * g.out_c, act);
  }
  if (!gemm_path) {
    AddResidual(residual, data->act, static_cast<int64_t>(pixels) * g.out_c,
                out);
  }
  return Status::Ok();
}

}  // namespace

void SetConv2DPathObserver(Conv2DPathObserver observer) {
  path_observer = observer;
}

KernelRegistration Register_CONV_2D() {
  return {BuiltinOperator::CONV_2D, 1,       InitOpData<OpData>,
          FreeOpData<OpData>,       Prepare, Eval};
}

}  // namespace twl

// TRANSPOSE_CONV (ONNX ConvTranspose) over NHWC float32: each input pixel
// (y, x) adds input * filter to the output window at (y * stride - pad_top,
// x * stride - pad_left) with dilated taps; output channels split into
// `group` independent convolutions; bias and a fused activation.
//
// Optimized path: per group, a packed GEMM of a block of input pixels with
// the filter (packed at Prepare) gives every pixel's kh * kw * O/G
// contributions, then a col2im pass adds them into the output. Blocks of
// input rows keep the contribution buffer bounded.
#include "lite/runtime/gemm.h"
#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

// Contribution buffer bound (floats); at least one input row is taken.
constexpr int64_t kMaxColumnFloats = int64_t{1} << 16;

struct OpData {
  ActivationFunctionType act;
  int batch, in_h, in_w, in_c, out_h, out_w, out_c, k_h, k_w, group;
  int stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
  int rows_per_block;           // input rows per GEMM
  int scratch = -1;             // contribution buffer
  AlignedFloats packed_filter;  // per group: kh * kw * O/G columns x C/G
};

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 3));
  const auto* o = GetOptions<schema::TransposeConvOptions>(*node);
  d->act = o->fused_activation_function();
  TWL_RETURN_IF_ERROR(CheckActivation(d->act));
  const Tensor* input = context->input(*node, 0);
  const Tensor* filter = context->input(*node, 1);
  const Tensor* bias = context->input(*node, 2);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckType(input, "input", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(filter, "filter", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(output, "output", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckRank(input, "input", 4, 4));
  TWL_RETURN_IF_ERROR(CheckRank(filter, "filter", 5, 5));
  TWL_CHECK_ARG(filter->is_constant, "filter '%s' must be constant",
                filter->name);
  d->group = o->group();
  d->batch = input->shape.dims[0];
  d->in_h = input->shape.dims[1];
  d->in_w = input->shape.dims[2];
  d->in_c = input->shape.dims[3];
  const int* f = filter->shape.dims;
  TWL_CHECK_ARG(d->group >= 1 && f[0] == d->group &&
                    static_cast<int64_t>(f[1]) * d->group == d->in_c,
                "filter [%d, %d, ...] does not match group %d and %d input "
                "channels",
                f[0], f[1], d->group, d->in_c);
  d->k_h = f[2];
  d->k_w = f[3];
  d->out_c = f[4] * d->group;
  TWL_CHECK_ARG(d->k_h >= 1 && d->k_w >= 1 && f[4] >= 1,
                "filter dims must be >= 1");
  if (bias != nullptr) {
    TWL_RETURN_IF_ERROR(CheckType(bias, "bias", DataType::kFloat32));
    TWL_CHECK_ARG(bias->num_elements() == d->out_c,
                  "bias has %lld elements, expected %d",
                  static_cast<long long>(bias->num_elements()), d->out_c);
  }
  d->stride_h = o->stride_h();
  d->stride_w = o->stride_w();
  d->dilation_h = o->dilation_h_factor();
  d->dilation_w = o->dilation_w_factor();
  d->pad_top = o->pad_top();
  d->pad_left = o->pad_left();
  TWL_CHECK_ARG(d->stride_h >= 1 && d->stride_w >= 1 && d->dilation_h >= 1 &&
                    d->dilation_w >= 1,
                "strides and dilations must be >= 1");
  d->out_h = o->out_h();
  d->out_w = o->out_w();
  if (o->out_follows_input()) {
    const int64_t h = int64_t{d->in_h - 1} * d->stride_h + o->out_h();
    const int64_t w = int64_t{d->in_w - 1} * d->stride_w + o->out_w();
    TWL_CHECK_ARG(h <= INT32_MAX && w <= INT32_MAX, "output size too large");
    d->out_h = static_cast<int>(h);
    d->out_w = static_cast<int>(w);
  }
  TWL_CHECK_ARG(d->out_h >= 1 && d->out_w >= 1,
                "output size %dx%d must be >= 1", d->out_h, d->out_w);
  TWL_RETURN_IF_ERROR(context->ResizeTensor(
      output, Shape({d->batch, d->out_h, d->out_w, d->out_c})));
  // Pack each group's filter [C/G, kh * kw * O/G] as GEMM columns.
  const int k = f[1], n = d->k_h * d->k_w * f[4];
  const size_t per_group = PackedGemmBSize(n, k);
  TWL_CHECK_ARG(per_group * d->group <= kMaxTensorBytes / 4,
                "filter too large");
  TWL_CHECK_ARG(d->packed_filter.Resize(per_group * d->group), "out of memory");
  for (int g = 0; g < d->group; ++g) {
    PackGemmBTransposed(filter->data_as<float>() + int64_t{g} * k * n, n, k, n,
                        d->packed_filter.data() + g * per_group);
  }
  const int64_t row = static_cast<int64_t>(d->in_w) * n;
  TWL_CHECK_ARG(row <= kMaxTensorBytes / 4, "input rows too wide");
  d->rows_per_block = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(d->in_h, kMaxColumnFloats / row)));
  return context->RequestScratch(
      node, static_cast<size_t>(row * d->rows_per_block) * sizeof(float),
      &d->scratch);
}

// Output offset of tap (ky, kx) of input pixel (y, x), or -1 outside.
inline int64_t TapOffset(const OpData& d, int b, int y, int x, int ky, int kx) {
  int64_t oy = int64_t{y} * d.stride_h - d.pad_top + int64_t{ky} * d.dilation_h;
  int64_t ox =
      int64_t{x} * d.stride_w - d.pad_left + int64_t{kx} * d.dilation_w;
  if (oy < 0 || oy >= d.out_h || ox < 0 || ox >= d.out_w) return -1;
  return ((int64_t{b} * d.out_h + oy) * d.out_w + ox) * d.out_c;
}

void FillBias(const OpData& d, const float* bias, float* out) {
  const int64_t pixels = int64_t{d.batch} * d.out_h * d.out_w;
  for (int64_t p = 0; p < pixels; ++p, out += d.out_c) {
    for (int c = 0; c < d.out_c; ++c) out[c] = bias ? bias[c] : 0.f;
  }
}

void Reference(const OpData& d, const float* in, const float* filter,
               float* out) {
  const int cg = d.in_c / d.group, og = d.out_c / d.group;
  for (int b = 0; b < d.batch; ++b)
    for (int y = 0; y < d.in_h; ++y)
      for (int x = 0; x < d.in_w; ++x)
        for (int ky = 0; ky < d.k_h; ++ky)
          for (int kx = 0; kx < d.k_w; ++kx) {
            int64_t at = TapOffset(d, b, y, x, ky, kx);
            if (at < 0) continue;
            const float* pixel =
                in + ((int64_t{b} * d.in_h + y) * d.in_w + x) * d.in_c;
            for (int g = 0; g < d.group; ++g)
              for (int ci = 0; ci < cg; ++ci) {
                const float v = pixel[g * cg + ci];
                const float* w =
                    filter +
                    ((int64_t{g} * cg + ci) * d.k_h * d.k_w + ky * d.k_w + kx) *
                        og;
                for (int co = 0; co < og; ++co)
                  out[at + g * og + co] += v * w[co];
              }
          }
}

// Adds the contributions `col` of input rows [y0, y0 + rows) (group g)
// into the output rows they reach, split over threads by output row.
void Col2Im(const OpData& d, int b, int y0, int rows, int g, const float* col,
            ThreadPool* pool, float* out) {
  const int og = d.out_c / d.group, n = d.k_h * d.k_w * og;
  const int64_t first =
      std::max<int64_t>(int64_t{y0} * d.stride_h - d.pad_top, 0);
  const int64_t last =
      std::min<int64_t>(int64_t{y0 + rows - 1} * d.stride_h - d.pad_top +
                            int64_t{d.k_h - 1} * d.dilation_h,
                        d.out_h - 1);
  if (first > last) return;
  const int64_t per_row = int64_t{d.in_w} * d.k_w * og;
  const int64_t grain =
      std::max<int64_t>(1, 16384 / std::max<int64_t>(per_row, 1));
  pool->ParallelFor(
      last - first + 1, grain, pool->num_threads(),
      [&](int64_t begin, int64_t end) {
        for (int64_t oy = first + begin; oy < first + end; ++oy) {
          float* out_row =
              out + (int64_t{b} * d.out_h + oy) * d.out_w * d.out_c + g * og;
          for (int ky = 0; ky < d.k_h; ++ky) {
            const int64_t ys = oy + d.pad_top - int64_t{ky} * d.dilation_h;
            if (ys < 0 || ys % d.stride_h != 0) continue;
            const int64_t y = ys / d.stride_h;
            if (y < y0 || y >= y0 + rows) continue;
            const float* col_row =
                col + (y - y0) * d.in_w * n + ky * d.k_w * og;
            for (int x = 0; x < d.in_w; ++x) {
              for (int kx = 0; kx < d.k_w; ++kx) {
                const int64_t ox = int64_t{x} * d.stride_w - d.pad_left +
                                   int64_t{kx} * d.dilation_w;
                if (ox < 0 || ox >= d.out_w) continue;
                float* o = out_row + ox * d.out_c;
                const float* c = col_row + int64_t{x} * n + kx * og;
                for (int ch = 0; ch < og; ++ch) o[ch] += c[ch];
              }
            }
          }
        }
      });
}

// GEMM of blocks of input rows with the packed filter, then col2im.
void Optimized(OpData& d, const float* in, float* columns, ThreadPool* pool,
               float* out) {
  const int cg = d.in_c / d.group, og = d.out_c / d.group;
  const int n = d.k_h * d.k_w * og;
  const size_t per_group = PackedGemmBSize(n, cg);
  for (int b = 0; b < d.batch; ++b)
    for (int y0 = 0; y0 < d.in_h; y0 += d.rows_per_block) {
      const int rows = std::min(d.rows_per_block, d.in_h - y0);
      const float* a = in + (int64_t{b} * d.in_h + y0) * d.in_w * d.in_c;
      for (int g = 0; g < d.group; ++g) {
        Gemm(rows * d.in_w, n, cg, a + g * cg, d.in_c,
             d.packed_filter.data() + g * per_group, columns, n, 1,
             GemmEpilogue(), pool);
        Col2Im(d, b, y0, rows, g, columns, pool, out);
      }
    }
}

Status Eval(KernelContext* context, Node* node) {
  OpData& d = *static_cast<OpData*>(node->user_data);
  const float* in = context->input(*node, 0)->data_as<float>();
  const Tensor* bias = context->input(*node, 2);
  Tensor* output = context->output(*node, 0);
  float* out = output->data_as<float>();
  FillBias(d, bias ? bias->data_as<float>() : nullptr, out);
  if (context->use_reference()) {
    Reference(d, in, context->input(*node, 1)->data_as<float>(), out);
  } else {
    Optimized(d, in, static_cast<float*>(node->scratch[d.scratch]),
              context->thread_pool(), out);
  }
  if (d.act != ActivationFunctionType::NONE) {
    ApplyActivationInPlace(out, output->num_elements(), d.act);
  }
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_TRANSPOSE_CONV() {
  return {BuiltinOperator::TRANSPOSE_CONV,
          1,
          InitOpData<OpData>,
          FreeOpData<OpData>,
          Prepare,
          Eval};
}
// Version 2 models may set out_follows_input, which version 1 runtimes would
// ignore: the same kernel.
KernelRegistration Register_TRANSPOSE_CONV_V2() {
  KernelRegistration r = Register_TRANSPOSE_CONV();
  r.version = 2;
  return r;
}

}  // namespace twl

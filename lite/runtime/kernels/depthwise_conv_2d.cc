// DEPTHWISE_CONV_2D: input NHWC, filter [1, KH, KW, C * depth_multiplier],
// optional bias, strides, dilations, SAME/VALID, fused activation (float32).
// Output channel oc reads input channel oc / depth_multiplier.
//
// Optimized path: per output pixel, accumulate whole channel rows (the
// contiguous innermost dim) so the compiler vectorizes over channels; output
// rows are split across threads.
#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

struct OpData {
  ActivationFunctionType act;
  int batch, in_h, in_w, in_c, out_h, out_w, out_c, k_h, k_w, multiplier;
  int stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
};

Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 3));
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
  d->in_c = input->shape.dims[3];
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
  TWL_RETURN_IF_ERROR(ComputePadding(options->padding(), d->in_h, d->k_h,
                                     d->stride_h, d->dilation_h, &d->out_h,
                                     &d->pad_top));
  TWL_RETURN_IF_ERROR(ComputePadding(options->padding(), d->in_w, d->k_w,
                                     d->stride_w, d->dilation_w, &d->out_w,
                                     &d->pad_left));
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

// Output rows [row_begin, row_end) over batch * out_h.
void OptimizedRows(const OpData& d, const float* in, const float* filter,
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
      for (int c = 0; c < c_out; ++c) o[c] = bias ? bias[c] : 0.f;
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
          if (m == 1) {
            for (int c = 0; c < c_out; ++c) o[c] += i[c] * f[c];
          } else {
            for (int c = 0; c < c_out; ++c) o[c] += i[c / m] * f[c];
          }
        }
      }
      for (int c = 0; c < c_out; ++c) {
        o[c] = o[c] < low ? low : (o[c] > high ? high : o[c]);
      }
    }
  }
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
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
  int64_t work_per_row =
      static_cast<int64_t>(d.out_w) * d.out_c * d.k_h * d.k_w;
  int64_t grain =
      std::max<int64_t>(1, 32768 / std::max<int64_t>(1, work_per_row));
  ThreadPool* pool = context->thread_pool();
  pool->ParallelFor(rows, grain, pool->num_threads(),
                    [&](int64_t b, int64_t e) {
                      OptimizedRows(d, in, filter, bias, out, b, e);
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

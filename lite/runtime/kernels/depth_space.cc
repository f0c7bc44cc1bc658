// DEPTH_TO_SPACE and SPACE_TO_DEPTH (rank 4; NCHW, or NHWC when `nhwc`).
// With block b, the deep tensor [N, C*b*b, H, W] and the spatial tensor
// [N, C, H*b, W*b] hold the same elements: deep channel
// (by * b + bx) * C + c (DCR) or c * b * b + by * b + bx (CRD) at (h, w) is
// spatial channel c at (h * b + by, w * b + bx). DEPTH_TO_SPACE copies deep
// to spatial, SPACE_TO_DEPTH back. Any dtype (copied by element size).
#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

// Dims of a rank-4 tensor in the options' layout as (n, c, h, w).
struct Dims {
  int64_t n, c, h, w;
};

Dims ReadDims(const Shape& s, bool nhwc) {
  return nhwc ? Dims{s.dims[0], s.dims[3], s.dims[1], s.dims[2]}
              : Dims{s.dims[0], s.dims[1], s.dims[2], s.dims[3]};
}

Shape MakeDims(const Dims& d, bool nhwc) {
  Shape s;
  s.rank = 4;
  const int64_t v[4] = {d.n, nhwc ? d.h : d.c, nhwc ? d.w : d.h,
                        nhwc ? d.c : d.w};
  for (int i = 0; i < 4; ++i) s.dims[i] = static_cast<int32_t>(v[i]);
  return s;
}

template <bool kToSpace>
TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 1));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckRank(input, "input", 4, 4));
  TWL_CHECK_ARG(input->type == output->type, "input and output types differ");
  const auto* options = GetOptions<schema::DepthSpaceOptions>(*node);
  const int64_t b = options->block_size();
  TWL_CHECK_ARG(b >= 1 && b <= 4096, "block_size %lld is invalid",
                static_cast<long long>(b));
  Dims d = ReadDims(input->shape, options->nhwc());
  if (kToSpace) {
    TWL_CHECK_ARG(d.c % (b * b) == 0,
                  "channels %lld not divisible by block_size^2 %lld",
                  static_cast<long long>(d.c), static_cast<long long>(b * b));
    d = {d.n, d.c / (b * b), d.h * b, d.w * b};
    TWL_CHECK_ARG(d.h <= INT32_MAX && d.w <= INT32_MAX, "output too large");
  } else {
    TWL_CHECK_ARG(d.h % b == 0 && d.w % b == 0,
                  "height %lld and width %lld not divisible by block_size %lld",
                  static_cast<long long>(d.h), static_cast<long long>(d.w),
                  static_cast<long long>(b));
    d = {d.n, d.c * b * b, d.h / b, d.w / b};
    TWL_CHECK_ARG(d.c <= INT32_MAX, "output too large");
  }
  return context->ResizeTensor(output, MakeDims(d, options->nhwc()));
}

// Offset of (n, c, h, w) in a tensor of dims `d` in the layout.
inline int64_t Offset(const Dims& d, bool nhwc, int64_t n, int64_t c, int64_t h,
                      int64_t w) {
  return nhwc ? ((n * d.h + h) * d.w + w) * d.c + c
              : ((n * d.c + c) * d.h + h) * d.w + w;
}

// Copies deep to spatial (to_space) or spatial to deep.
template <typename T>
void Move(const T* in, T* out, const Dims& spatial, const Dims& deep, int64_t b,
          bool crd, bool nhwc, bool to_space) {
  for (int64_t n = 0; n < spatial.n; ++n) {
    for (int64_t c = 0; c < spatial.c; ++c) {
      for (int64_t y = 0; y < spatial.h; ++y) {
        for (int64_t x = 0; x < spatial.w; ++x) {
          const int64_t by = y % b, bx = x % b;
          const int64_t dc =
              crd ? (c * b + by) * b + bx : (by * b + bx) * spatial.c + c;
          const int64_t s = Offset(spatial, nhwc, n, c, y, x);
          const int64_t t = Offset(deep, nhwc, n, dc, y / b, x / b);
          out[to_space ? s : t] = in[to_space ? t : s];
        }
      }
    }
  }
}

Status Eval(KernelContext* context, Node* node) {
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  const auto* options = GetOptions<schema::DepthSpaceOptions>(*node);
  const bool nhwc = options->nhwc();
  const bool to_space = node->op == BuiltinOperator::DEPTH_TO_SPACE;
  const Dims in = ReadDims(input->shape, nhwc);
  const Dims out = ReadDims(output->shape, nhwc);
  return DispatchAll(input->type, [&](auto zero) {
    using T = decltype(zero);
    Move(input->data_as<T>(), output->data_as<T>(), to_space ? out : in,
         to_space ? in : out, options->block_size(), options->crd(), nhwc,
         to_space);
    return Status::Ok();
  });
}

}  // namespace

KernelRegistration Register_DEPTH_TO_SPACE() {
  return {BuiltinOperator::DEPTH_TO_SPACE,
          1,
          nullptr,
          nullptr,
          Prepare<true>,
          Eval};
}

KernelRegistration Register_SPACE_TO_DEPTH() {
  return {BuiltinOperator::SPACE_TO_DEPTH,
          1,
          nullptr,
          nullptr,
          Prepare<false>,
          Eval};
}

}  // namespace twl

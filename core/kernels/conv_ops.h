// 2-D convolution in NHWC with HWIO filters: the plain reference loops that
// define Conv2D and its two backprops (conv_reference.cc), and the fast
// implementations the kernels run, one algorithm per file:
//   kDirect (conv_direct.cc): stride-1 convolutions with few channels
//     (LeNet-like layers). Each input channel is expanded so that one output
//     row (all columns times all output channels, flattened) is a contiguous
//     vector, and the filter taps become periodic vectors: every multiply-add
//     is a full SIMD lane, however few the output channels.
//   kIm2col (conv_im2col.cc): any geometry: patches gathered into a matrix,
//     then one BLAS GEMM per image (BLAS single-threaded; images split over
//     the pool).
//   kWinograd (conv_winograd.cc): 3x3 stride-1 convolutions with many
//     channels, in F(4x4, 3x3)'s transformed domain: 36 GEMMs over blocks of
//     output tiles, a quarter of im2col's multiplies.
// ChooseConvAlgorithm (conv_algorithms.cc) picks one and says why.
#ifndef TENSORWEAVE_CORE_KERNELS_CONV_OPS_H_
#define TENSORWEAVE_CORE_KERNELS_CONV_OPS_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/window_geometry.h"

namespace tensorweave {

class ThreadPool;

// Geometry of one Conv2D: input [batch, in_rows, in_cols, in_depth], filter
// [window_rows, window_cols, in_depth, out_depth], output [batch, out_rows,
// out_cols, out_depth].
struct Conv2DArgs {
  Window2D w;
  int64_t out_depth = 0;
};

// The fast algorithms; kAuto lets ChooseConvAlgorithm pick.
enum class ConvAlgorithm { kAuto, kDirect, kIm2col, kWinograd };
// The three computations of a convolution.
enum class ConvPass { kForward, kBackpropInput, kBackpropFilter };

const char* ConvAlgorithmName(ConvAlgorithm algorithm);
const char* ConvPassName(ConvPass pass);

// The algorithm FastConv2D* run for `pass` over these args with elements of
// `element_size` bytes: `requested` where it can run (kDirect needs stride 1
// and bounded buffers, kWinograd a 3x3 stride-1 undilated window, else
// kIm2col), and for kAuto the fastest one (never kAuto).
ConvAlgorithm ChooseConvAlgorithm(
    const Conv2DArgs& args, ConvPass pass, int element_size,
    ConvAlgorithm requested = ConvAlgorithm::kAuto);

// References: plain loops, single-threaded.
template <typename T>
void ReferenceConv2D(const Conv2DArgs& args, const T* input, const T* filter,
                     T* output);
template <typename T>
void ReferenceConv2DBackpropInput(const Conv2DArgs& args, const T* filter,
                                  const T* out_backprop, T* in_backprop);
template <typename T>
void ReferenceConv2DBackpropFilter(const Conv2DArgs& args, const T* input,
                                   const T* out_backprop, T* filter_backprop);

// Fast versions; `pool` may be null. They run the algorithm
// ChooseConvAlgorithm(args, pass, sizeof(T), algorithm) names.
template <typename T>
void FastConv2D(ThreadPool* pool, const Conv2DArgs& args, const T* input,
                const T* filter, T* output,
                ConvAlgorithm algorithm = ConvAlgorithm::kAuto);
template <typename T>
void FastConv2DBackpropInput(ThreadPool* pool, const Conv2DArgs& args,
                             const T* filter, const T* out_backprop,
                             T* in_backprop,
                             ConvAlgorithm algorithm = ConvAlgorithm::kAuto);
template <typename T>
void FastConv2DBackpropFilter(ThreadPool* pool, const Conv2DArgs& args,
                              const T* input, const T* out_backprop,
                              T* filter_backprop,
                              ConvAlgorithm algorithm = ConvAlgorithm::kAuto);

// Runs fn(begin, end) over disjoint ranges of [0, n) on the pool's threads
// and the caller (one range per thread); `pool` may be null.
void ParallelForParts(
    ThreadPool* pool, int64_t n,
    const std::function<void(int part, int64_t begin, int64_t end)>& fn);
int NumParts(ThreadPool* pool, int64_t n);

// Checks input [N,H,W,C] against filter [KH,KW,C,M] and fills the geometry
// and the output shape (depth M, or C*M when `depthwise`). `padding` is
// SAME, VALID or EXPLICIT (with `explicit_paddings`, 8 values).
Status MakeConv2DArgs(const TensorShape& input, const TensorShape& filter,
                      const std::vector<int64_t>& strides,
                      const std::vector<int64_t>& dilations,
                      const std::string& padding,
                      const std::vector<int64_t>& explicit_paddings,
                      bool depthwise, Conv2DArgs* args, TensorShape* out_shape);

// The shape held by a 4-element int32 sizes input (input_sizes,
// filter_sizes).
Status ShapeFromSizes(const Tensor& sizes, const char* what,
                      TensorShape* shape);

// Kernels of the convolution ops: their strides, dilations and padding
// (explicit_paddings where the op has that attr).
class ConvOpBase : public OpKernel {
 public:
  explicit ConvOpBase(OpKernelConstruction* ctx);
  bool IsExpensive() const override { return true; }

 protected:
  // Checks that out_backprop has the shape the forward op would produce.
  Status CheckOutBackprop(const Tensor& out_backprop,
                          const TensorShape& expected) const;

  std::vector<int64_t> strides_, dilations_, explicit_paddings_;
  std::string padding_;
};

// The three ops of a convolution family — forward, input gradient, filter
// gradient — over `Kernels`, a struct of static templates Forward,
// BackpropInput and BackpropFilter (each (pool, args, a, b, out)).
// kDepthwise selects the depthwise filter layout.
template <typename Kernels, bool kDepthwise>
class ConvForwardOp : public ConvOpBase {
 public:
  using ConvOpBase::ConvOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Conv2DArgs args;
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, MakeConv2DArgs(input.shape(), filter.shape(), strides_,
                                       dilations_, padding_, explicit_paddings_,
                                       kDepthwise, &args, &out_shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->num_elements() == 0) return;
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(input.dtype(), [&](auto t) {
          using T = decltype(t);
          Kernels::template Forward<T>(ctx->intra_op_pool(), args,
                                       input.data<T>(), filter.data<T>(),
                                       out->data<T>());
          return Status::OK();
        }));
  }
};

// Input gradient (kInputGradient) or filter gradient: input `sizes_input`
// holds the shape of the result, the other operand is `other_input`, and
// input 2 is the gradient of the convolution's output.
template <typename Kernels, bool kDepthwise, bool kInputGradient>
class ConvBackpropOp : public ConvOpBase {
 public:
  using ConvOpBase::ConvOpBase;
  void Compute(OpKernelContext* ctx) override {
    const int sizes_input = kInputGradient ? 0 : 1;
    const Tensor& other = ctx->input(kInputGradient ? 1 : 0);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape result_shape, out_shape;
    OP_REQUIRES_OK(
        ctx, ShapeFromSizes(ctx->input(sizes_input),
                            kInputGradient ? "input_sizes" : "filter_sizes",
                            &result_shape));
    const TensorShape& input_shape =
        kInputGradient ? result_shape : other.shape();
    const TensorShape& filter_shape =
        kInputGradient ? other.shape() : result_shape;
    Conv2DArgs args;
    OP_REQUIRES_OK(ctx, MakeConv2DArgs(input_shape, filter_shape, strides_,
                                       dilations_, padding_, explicit_paddings_,
                                       kDepthwise, &args, &out_shape));
    OP_REQUIRES_OK(ctx, CheckOutBackprop(out_backprop, out_shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, result_shape, &out));
    OP_REQUIRES_OK(ctx,
                   DispatchType<TW_FLOAT_TYPES>(other.dtype(), [&](auto t) {
                     using T = decltype(t);
                     if (out_shape.num_elements() == 0 ||
                         filter_shape.num_elements() == 0) {
                       std::fill(out->data<T>(),
                                 out->data<T>() + out->num_elements(), T(0));
                     } else if constexpr (kInputGradient) {
                       Kernels::template BackpropInput<T>(
                           ctx->intra_op_pool(), args, other.data<T>(),
                           out_backprop.data<T>(), out->data<T>());
                     } else {
                       Kernels::template BackpropFilter<T>(
                           ctx->intra_op_pool(), args, other.data<T>(),
                           out_backprop.data<T>(), out->data<T>());
                     }
                     return Status::OK();
                   }));
  }
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_CONV_OPS_H_

// _FusedMatMul and _FusedConv2D: the product (or convolution) with the bias
// and activation applied as the output is written, instead of three passes
// over it (MatMul, BiasAdd, Relu). _FusedMatMul splits C by rows over the
// intra-op pool as MatMul does; each thread's rows are computed by BLAS and
// then finished (bias, activation) by the same thread while still in cache.
// _FusedConv2D runs the convolution, then one sweep that adds the bias and
// applies the activation together. Each matches the unfused ops' kernels (same
// activation formulas); the tests compare against them.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/framework/op_kernel.h"
#include "core/kernels/conv_algorithms.h"
#include "core/kernels/conv_ops.h"
#include "core/kernels/conv_simd.h"
#include "core/kernels/matmul_op.h"
#include "core/platform/blas.h"
#include "core/platform/thread_pool.h"

namespace tensorweave {

namespace {

enum class Activation { kNone, kRelu, kRelu6, kElu, kTanh, kSigmoid };

Status ParseFusedOps(OpKernelConstruction* ctx, Activation* activation) {
  std::vector<std::string> ops;
  TW_RETURN_IF_ERROR(ctx->GetAttr("fused_ops", &ops));
  const std::string& name = ctx->node().name();
  if (ops.empty() || ops[0] != "BiasAdd" || ops.size() > 2) {
    return errors::Unimplemented("node '", name,
                                 "': fused_ops must start with BiasAdd and "
                                 "hold at most one activation");
  }
  *activation = Activation::kNone;
  if (ops.size() == 2) {
    static const std::map<std::string, Activation> known = {
        {"Relu", Activation::kRelu},
        {"Relu6", Activation::kRelu6},
        {"Elu", Activation::kElu},
        {"Tanh", Activation::kTanh},
        {"Sigmoid", Activation::kSigmoid}};
    auto it = known.find(ops[1]);
    if (it == known.end()) {
      return errors::Unimplemented("node '", name, "': fused activation '",
                                   ops[1], "' is not supported");
    }
    *activation = it->second;
  }
  return Status::OK();
}

// out[r, c] = act(out[r, c] + bias[c]) for `rows` rows of `depth` (rows
// `stride` apart); the
// activation formulas are those of the Relu, Relu6, Elu, Tanh and Sigmoid
// kernels.
template <typename T, typename Fn>
void BiasThen(T* out, int64_t rows, int64_t depth, int64_t stride,
              const T* bias, Fn fn) {
  // Few channels (a LeNet convolution's 6): the bias repeated over a tile of
  // whole rows (on the stack), so that the loop runs over long contiguous
  // spans and vectorizes.
  constexpr int64_t kTile = 256;
  if (stride == depth && depth * 4 <= kTile) {
    const int64_t tile_rows = kTile / depth;
    T tiled[kTile];
    for (int64_t i = 0; i < tile_rows * depth; ++i) tiled[i] = bias[i % depth];
    int64_t r = 0;
    for (; r + tile_rows <= rows; r += tile_rows) {
      T* span = out + r * depth;
      for (int64_t i = 0; i < tile_rows * depth; ++i) {
        span[i] = fn(span[i] + tiled[i]);
      }
    }
    out += r * depth;
    rows -= r;
  }
  for (int64_t r = 0; r < rows; ++r) {
    T* row = out + r * stride;
    for (int64_t c = 0; c < depth; ++c) row[c] = fn(row[c] + bias[c]);
  }
}

// out[i] = act(out[i] + pattern[i]) for i < n, a 64-byte vector at a time
// (the -O2 build leaves BiasThen's loops scalar; one AVX-512 register, two
// AVX2 ones), the tail one by one; the formulas of the functors below:
// x < 0 ? 0 : x, then x > 6 ? 6 : x (NaN passes through).
template <Activation kAct>
void AddThenFloat(float* out, const float* pattern, int64_t n) {
  using S = conv_internal::Simd<float>;
  auto act = [](auto x, auto zero, auto six) {
    if constexpr (kAct != Activation::kNone) x = x < zero ? zero : x;
    if constexpr (kAct == Activation::kRelu6) x = x > six ? six : x;
    return x;
  };
  const S::Vec vzero = S::Vec{}, vsix = vzero + 6.0f;
  int64_t i = 0;
  for (; i + S::kLanes <= n; i += S::kLanes) {
    S::Store(out + i,
             act(S::Load(out + i) + S::Load(pattern + i), vzero, vsix));
  }
  for (; i < n; ++i) out[i] = act(out[i] + pattern[i], 0.0f, 6.0f);
}

// BiasThen for float and the piecewise-linear activations.
template <Activation kAct>
void BiasThenFloat(float* out, int64_t rows, int64_t depth, int64_t stride,
                   const float* bias) {
  constexpr int64_t kTile = 256;
  if (stride == depth && depth < 16) {
    // Few channels: the bias repeated over a tile of whole rows.
    const int64_t tile_rows = kTile / depth;
    float tiled[kTile];
    for (int64_t i = 0; i < tile_rows * depth; ++i) tiled[i] = bias[i % depth];
    int64_t r = 0;
    for (; r + tile_rows <= rows; r += tile_rows) {
      AddThenFloat<kAct>(out + r * depth, tiled, tile_rows * depth);
    }
    AddThenFloat<kAct>(out + r * depth, tiled, (rows - r) * depth);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    AddThenFloat<kAct>(out + r * stride, bias, depth);
  }
}

template <typename T>
void BiasActivation(Activation activation, T* out, int64_t rows, int64_t depth,
                    int64_t stride, const T* bias) {
  if constexpr (std::is_same_v<T, float>) {
    switch (activation) {
      case Activation::kNone:
        return BiasThenFloat<Activation::kNone>(out, rows, depth, stride, bias);
      case Activation::kRelu:
        return BiasThenFloat<Activation::kRelu>(out, rows, depth, stride, bias);
      case Activation::kRelu6:
        return BiasThenFloat<Activation::kRelu6>(out, rows, depth, stride,
                                                 bias);
      default:
        break;
    }
  }
  switch (activation) {
    case Activation::kNone:
      return BiasThen(out, rows, depth, stride, bias, [](T x) { return x; });
    case Activation::kRelu:
      return BiasThen(out, rows, depth, stride, bias,
                      [](T x) { return x < T(0) ? T(0) : x; });
    case Activation::kRelu6:
      return BiasThen(out, rows, depth, stride, bias, [](T x) {
        return x < T(0) ? T(0) : (x > T(6) ? T(6) : x);
      });
    case Activation::kElu:
      return BiasThen(out, rows, depth, stride, bias,
                      [](T x) { return x > T(0) ? x : std::expm1(x); });
    case Activation::kTanh:
      return BiasThen(out, rows, depth, stride, bias,
                      [](T x) { return std::tanh(x); });
    case Activation::kSigmoid:
      return BiasThen(out, rows, depth, stride, bias,
                      [](T x) { return T(1) / (T(1) + std::exp(-x)); });
  }
}

Status CheckBias(const OpKernelContext* ctx, const Tensor& bias,
                 int64_t depth) {
  if (bias.rank() != 1 || bias.dim(0) != depth) {
    return errors::InvalidArgument(
        "node '", ctx->kernel().name(), "': bias must be a vector of ", depth,
        " elements (the output's depth), got ", bias.shape().ToString());
  }
  return Status::OK();
}

class FusedMatMulOp : public OpKernel {
 public:
  explicit FusedMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
    ctx->SetStatus(ParseFusedOps(ctx, &activation_));
  }
  bool IsExpensive() const override { return true; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    int64_t m, n, k;
    OP_REQUIRES_OK(ctx, MatMulDims(a, b, transpose_a_, transpose_b_, "In[0]",
                                   "In[1]", &m, &n, &k));
    const Tensor& bias = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckBias(ctx, bias, n));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    if (m == 0 || n == 0) return;
    OP_REQUIRES_OK(ctx, DispatchType<TW_FLOAT_TYPES>(a.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     Run<T>(ctx->intra_op_pool(), a.data<T>(), b.data<T>(),
                            bias.data<T>(), out->data<T>(), m, n, k);
                     return Status::OK();
                   }));
  }

 private:
  template <typename T>
  void Run(ThreadPool* pool, const T* a, const T* b, const T* bias, T* c,
           int64_t m, int64_t n, int64_t k) const {
    // C is split as Gemm splits it (along its longer side, one range per
    // thread, from 4M flops on). Each thread computes its block of C by one
    // BLAS call, then adds the bias and applies the activation to that block
    // while it is still in cache.
    auto block = [&](int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
      T* c_block = c + r0 * n + c0;
      if (k == 0) {
        for (int64_t r = r0; r < r1; ++r) {
          std::fill(c + r * n + c0, c + r * n + c1, T(0));
        }
      } else {
        const T* a_block = transpose_a_ ? a + r0 : a + r0 * k;
        const T* b_block = transpose_b_ ? b + c0 * k : b + c0;
        blas::Gemm<T>(transpose_a_, transpose_b_, r1 - r0, c1 - c0, k, T(1),
                      a_block, transpose_a_ ? m : k, b_block,
                      transpose_b_ ? k : n, T(0), c_block, n);
      }
      BiasActivation<T>(activation_, c_block, r1 - r0, c1 - c0, n, bias + c0);
    };
    const int64_t flops = 2 * m * n * k;
    if (pool == nullptr || flops < (int64_t{1} << 22)) {
      block(0, m, 0, n);
      return;
    }
    if (std::is_same_v<T, float> && m <= 64) {
      // Few rows (a dense layer's batch): MatMul's Gemm, whose small-product
      // kernel beats BLAS there (the CIFAR fc 64x4096x512: ~1.5x), then the
      // bias and activation over C (at most 64 rows: still in cache).
      Gemm<T>(pool, a, b, c, m, n, k, transpose_a_, transpose_b_);
      BiasActivation<T>(activation_, c, m, n, n, bias);
      return;
    }
    const int64_t parts = pool->num_threads() + 1;
    const bool by_rows = m >= n;
    const int64_t extent = by_rows ? m : n;
    pool->ParallelFor(extent, std::max<int64_t>(16, extent / parts),
                      [&](int64_t begin, int64_t end) {
                        if (by_rows) {
                          block(begin, end, 0, n);
                        } else {
                          block(0, m, begin, end);
                        }
                      });
  }

  bool transpose_a_ = false;
  bool transpose_b_ = false;
  Activation activation_ = Activation::kNone;
};

class FusedConv2DOp : public ConvOpBase {
 public:
  explicit FusedConv2DOp(OpKernelConstruction* ctx) : ConvOpBase(ctx) {
    ctx->SetStatus(ParseFusedOps(ctx, &activation_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Conv2DArgs args;
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, MakeConv2DArgs(input.shape(), filter.shape(), strides_,
                                       dilations_, padding_, explicit_paddings_,
                                       false, &args, &out_shape));
    const Tensor& bias = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckBias(ctx, bias, args.out_depth));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->num_elements() == 0) return;
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(input.dtype(), [&](auto tag) {
          using T = decltype(tag);
          T* data = out->data<T>();
          if constexpr (std::is_same_v<T, float>) {
            // The direct (few channels in) and Winograd (3x3, many
            // channels) algorithms put the bias and a piecewise-linear
            // activation into the convolution's stores.
            const bool linear = activation_ == Activation::kNone ||
                                activation_ == Activation::kRelu ||
                                activation_ == Activation::kRelu6;
            const int act = activation_ == Activation::kNone
                                ? 0
                                : (activation_ == Activation::kRelu ? 1 : 2);
            const ConvAlgorithm algorithm =
                ChooseConvAlgorithm(args, ConvPass::kForward, sizeof(T));
            if (linear && filter.num_elements() > 0) {
              if (algorithm == ConvAlgorithm::kDirect &&
                  DirectConv2DBiasActivation(ctx->intra_op_pool(), args,
                                             input.data<T>(), filter.data<T>(),
                                             bias.data<T>(), act, data)) {
                return Status::OK();
              }
              // (Not finite: a NaN or Inf input spread over Winograd's tiles;
              // FastConv2D below recomputes it by im2col.)
              if (algorithm == ConvAlgorithm::kWinograd &&
                  WinogradConv2DBiasActivation<T>(
                      ctx->intra_op_pool(), args, input.data<T>(),
                      filter.data<T>(), bias.data<T>(), act, data)) {
                return Status::OK();
              }
            }
          }
          if (filter.num_elements() == 0) {
            std::fill(data, data + out->num_elements(), T(0));
          } else {
            FastConv2D<T>(ctx->intra_op_pool(), args, input.data<T>(),
                          filter.data<T>(), data);
          }
          const int64_t depth = args.out_depth;
          const int64_t rows = out->num_elements() / depth;
          ParallelForParts(
              ctx->intra_op_pool(), rows, [&](int, int64_t begin, int64_t end) {
                BiasActivation<T>(activation_, data + begin * depth,
                                  end - begin, depth, depth, bias.data<T>());
              });
          return Status::OK();
        }));
  }

 private:
  Activation activation_ = Activation::kNone;
};

REGISTER_KERNEL(KernelDef("_FusedMatMul"), FusedMatMulOp);
REGISTER_KERNEL(KernelDef("_FusedConv2D"), FusedConv2DOp);

}  // namespace
}  // namespace tensorweave

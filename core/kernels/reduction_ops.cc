// Reductions (Sum, Mean, Prod, Max, Min, All, Any) over any set of axes;
// Sum, Mean and Prod also of complex64/complex128, as TensorFlow.
//
// The input's dims are collapsed into groups that alternate between kept and
// reduced (size-1 dims dropped), then reduced groups are removed one at a
// time from the back, each by one of two contiguous loops:
//   [P, R]    -> [P]     rows reduced (the reduced axes are innermost)
//   [P, R, K] -> [P, K]  columns reduced (kept axes innermost)
// Both are vectorizable and parallel over the intra-op pool.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "core/framework/shape_inference.h"
#include "core/kernels/array_op_shapes.h"
#include "core/kernels/cwise_ops.h"
#include "core/kernels/wrapping_arithmetic.h"

namespace tensorweave {
namespace {

struct SumReducer {
  template <typename T>
  static T Init() {
    return T(0);
  }
  template <typename T>
  static T Combine(T a, T b) {
    return WrappingAdd(a, b);
  }
};
struct ProdReducer {
  template <typename T>
  static T Init() {
    return T(1);
  }
  template <typename T>
  static T Combine(T a, T b) {
    return WrappingMul(a, b);
  }
};
struct MaxReducer {
  template <typename T>
  static T Init() {
    if constexpr (std::is_floating_point_v<T>) {
      return -std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::lowest();
    }
  }
  // NaN wins (as TensorFlow); `a != a` keeps the select vectorizable.
  template <typename T>
  static T Combine(T a, T b) {
    return (a > b || a != a) ? a : b;
  }
};
struct MinReducer {
  template <typename T>
  static T Init() {
    if constexpr (std::is_floating_point_v<T>) {
      return std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::max();
    }
  }
  template <typename T>
  static T Combine(T a, T b) {
    return (a < b || a != a) ? a : b;
  }
};
struct AllReducer {
  template <typename T>
  static T Init() {
    return true;
  }
  template <typename T>
  static T Combine(T a, T b) {
    return a && b;
  }
};
struct AnyReducer {
  template <typename T>
  static T Init() {
    return false;
  }
  template <typename T>
  static T Combine(T a, T b) {
    return a || b;
  }
};

// Reduces n contiguous values with kLanes independent accumulators (which
// the compiler vectorizes), pairwise over blocks of kPairwiseBlock: a float
// sum's rounding error grows with log(n), not n (TensorFlow's sums are
// accurate to about that: 1e6 additions of 0.1f give 100000.2, not 99994).
template <typename R, typename T>
T ReduceContiguous(const T* x, int64_t n) {
  constexpr int kLanes = 16;
  constexpr int64_t kPairwiseBlock = 4096;
  if (n > kPairwiseBlock) {
    const int64_t half = (n / 2 + kLanes - 1) / kLanes * kLanes;
    return R::Combine(ReduceContiguous<R>(x, half),
                      ReduceContiguous<R>(x + half, n - half));
  }
  if (n < kLanes) {
    T acc = R::template Init<T>();
    for (int64_t i = 0; i < n; ++i) acc = R::Combine(acc, x[i]);
    return acc;
  }
  T lanes[kLanes];
  for (int j = 0; j < kLanes; ++j) lanes[j] = x[j];
  int64_t i = kLanes;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] = R::Combine(lanes[j], x[i + j]);
  }
  for (; i < n; ++i) lanes[0] = R::Combine(lanes[0], x[i]);
  for (int width = kLanes / 2; width > 0; width /= 2) {
    for (int j = 0; j < width; ++j) {
      lanes[j] = R::Combine(lanes[j], lanes[j + width]);
    }
  }
  return lanes[0];
}

// Elements one task should handle at least.
constexpr int64_t kMinTaskElements = 16384;

void ParallelOver(OpKernelContext* ctx, int64_t units, int64_t unit_cost,
                  const std::function<void(int64_t, int64_t)>& fn) {
  ThreadPool* pool = ctx->intra_op_pool();
  const int64_t min_block =
      std::max<int64_t>(1, kMinTaskElements / std::max<int64_t>(1, unit_cost));
  if (pool == nullptr || pool->num_threads() == 0 || units <= min_block) {
    fn(0, units);
  } else {
    pool->ParallelFor(units, min_block, fn);
  }
}

// [P, R] -> [P].
template <typename R, typename T>
void ReduceRows(OpKernelContext* ctx, const T* x, int64_t p, int64_t r,
                T* out) {
  ThreadPool* pool = ctx->intra_op_pool();
  const int parts = pool == nullptr ? 1 : pool->num_threads() + 1;
  if (p < parts && r >= 4 * kMinTaskElements && parts > 1) {
    // Few long rows: split each row, then combine the partial results.
    const int64_t chunks = std::min<int64_t>(parts * 4, r / kMinTaskElements);
    const int64_t chunk = (r + chunks - 1) / chunks;
    Tensor scratch(DataTypeOf<T>::value, TensorShape({p * chunks}));
    T* partial = scratch.data<T>();
    pool->ParallelFor(p * chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t u = b; u < e; ++u) {
        const int64_t row = u / chunks, c = u % chunks;
        const int64_t begin = std::min(r, c * chunk);
        const int64_t end = std::min(r, begin + chunk);
        partial[u] = ReduceContiguous<R>(x + row * r + begin, end - begin);
      }
    });
    for (int64_t row = 0; row < p; ++row) {
      out[row] = ReduceContiguous<R>(partial + row * chunks, chunks);
    }
    return;
  }
  ParallelOver(ctx, p, r, [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      out[row] = ReduceContiguous<R>(x + row * r, r);
    }
  });
}

// Columns reduced per unit of work in ReduceColumns.
constexpr int64_t kColumnBlock = 512;

// o[j] = reduce over the r rows (stride k) of in[j], for j < width <=
// kColumnBlock; pairwise over halves of the rows, as ReduceContiguous.
template <typename R, typename T>
void ReduceColumnBlock(const T* in, int64_t r, int64_t k, int64_t width, T* o) {
  constexpr int64_t kPairwiseRows = 256;
  if (r > kPairwiseRows) {
    const int64_t half = r / 2;
    ReduceColumnBlock<R>(in, half, k, width, o);
    T partial[kColumnBlock];
    ReduceColumnBlock<R>(in + half * k, r - half, k, width, partial);
    for (int64_t j = 0; j < width; ++j) o[j] = R::Combine(o[j], partial[j]);
    return;
  }
  std::copy(in, in + width, o);
  for (int64_t ri = 1; ri < r; ++ri) {
    const T* row = in + ri * k;
    for (int64_t j = 0; j < width; ++j) o[j] = R::Combine(o[j], row[j]);
  }
}

// [P, R, K] -> [P, K]: out[p, k] = reduce over r of x[p, r, k].
template <typename R, typename T>
void ReduceColumns(OpKernelContext* ctx, const T* x, int64_t p, int64_t r,
                   int64_t k, T* out) {
  // Units of work: (p, block of up to kBlock columns).
  constexpr int64_t kBlock = kColumnBlock;
  const int64_t blocks = (k + kBlock - 1) / kBlock;
  ParallelOver(ctx, p * blocks, r * std::min(k, kBlock),
               [&](int64_t b, int64_t e) {
                 for (int64_t u = b; u < e; ++u) {
                   const int64_t pi = u / blocks;
                   const int64_t k0 = (u % blocks) * kBlock;
                   const int64_t width = std::min(kBlock, k - k0);
                   ReduceColumnBlock<R>(x + pi * r * k + k0, r, k, width,
                                        out + pi * k + k0);
                 }
               });
}

template <typename R, bool kMean>
class ReductionOp : public OpKernel {
 public:
  explicit ReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("keep_dims", &keep_dims_));
  }
  bool IsExpensive() const override { return true; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& axes_tensor = ctx->input(1);
    const int rank = input.rank();
    std::vector<bool> reduced;
    OP_REQUIRES_OK(ctx, ReadReductionAxes(input, axes_tensor, &reduced));
    TensorShape out_shape;
    int64_t count = 1;  // elements reduced into each output
    // Groups of collapsed dims: (size, reduced).
    std::vector<std::pair<int64_t, bool>> groups;
    for (int i = 0; i < rank; ++i) {
      if (reduced[i]) count *= input.dim(i);
      if (!reduced[i]) {
        out_shape.AddDim(input.dim(i));
      } else if (keep_dims_) {
        out_shape.AddDim(1);
      }
      if (input.dim(i) == 1) continue;
      if (!groups.empty() && groups.back().second == reduced[i]) {
        groups.back().first *= input.dim(i);
      } else {
        groups.push_back({input.dim(i), reduced[i]});
      }
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    OP_REQUIRES_OK(
        ctx,
        DispatchType<TW_POD_TYPES, TW_COMPLEX_TYPES>(
            input.dtype(), [&](auto tag) {
              using T = decltype(tag);
              constexpr bool kComplex =
                  std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;
              if constexpr (std::is_same_v<T, bool> !=
                                (std::is_same_v<R, AllReducer> ||
                                 std::is_same_v<R, AnyReducer>) ||
                            (kComplex && !std::is_same_v<R, SumReducer> &&
                             !std::is_same_v<R, ProdReducer>)) {
                return errors::InvalidArgument("unsupported dtype ",
                                               DataTypeName(input.dtype()));
              } else if constexpr (kIsReducedFloat<T>) {
                // Reduced in float, rounded to T once at the end.
                Tensor wide(DT_FLOAT, input.shape());
                const T* src = input.data<T>();
                std::transform(src, src + input.num_elements(),
                               wide.data<float>(),
                               [](T v) { return ToFloat(v); });
                Tensor wide_out(DT_FLOAT, out_shape);
                Reduce<float>(ctx, wide, groups, wide_out.data<float>(),
                              out->num_elements());
                if constexpr (kMean) Divide<float>(ctx, &wide_out, count);
                const float* m = wide_out.data<float>();
                std::transform(m, m + out->num_elements(), out->data<T>(),
                               [](float v) { return T(v); });
                return Status::OK();
              } else if constexpr (kMean && std::is_integral_v<T> &&
                                   sizeof(T) < sizeof(int64_t)) {
                // Small integers are summed in int64, so that the mean of
                // uint8 [200, 200] is 200 (as TensorFlow), not (400 % 256) / 2.
                Tensor wide(DT_INT64, input.shape());
                const T* src = input.data<T>();
                int64_t* w = wide.data<int64_t>();
                std::copy(src, src + input.num_elements(), w);
                Tensor wide_out(DT_INT64, out_shape);
                Reduce<int64_t>(ctx, wide, groups, wide_out.data<int64_t>(),
                                out->num_elements());
                Divide<int64_t>(ctx, &wide_out, count);
                const int64_t* m = wide_out.data<int64_t>();
                std::transform(m, m + out->num_elements(), out->data<T>(),
                               [](int64_t v) { return static_cast<T>(v); });
                return Status::OK();
              } else {
                Reduce<T>(ctx, input, groups, out->data<T>(),
                          out->num_elements());
                if constexpr (kMean) Divide<T>(ctx, out, count);
                return Status::OK();
              }
            }));
  }

 private:
  template <typename T>
  void Reduce(OpKernelContext* ctx, const Tensor& input,
              std::vector<std::pair<int64_t, bool>> groups, T* out,
              int64_t out_elements) {
    if (input.num_elements() == 0) {
      std::fill(out, out + out_elements, R::template Init<T>());
      return;
    }
    const T* src = input.data<T>();
    Tensor scratch[2];
    int which = 0;
    while (true) {
      int last_reduced = -1;
      for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
        if (groups[g].second) last_reduced = g;
      }
      if (last_reduced < 0) {
        // Nothing (left) to reduce: a copy.
        if (src != out) std::copy(src, src + out_elements, out);
        return;
      }
      int64_t p = 1, k = 1;
      for (int g = 0; g < last_reduced; ++g) p *= groups[g].first;
      for (int g = last_reduced + 1; g < static_cast<int>(groups.size()); ++g) {
        k *= groups[g].first;
      }
      const int64_t r = groups[last_reduced].first;
      bool more = false;
      for (int g = 0; g < last_reduced; ++g) more |= groups[g].second;
      T* dst = out;
      if (more) {
        scratch[which] = Tensor(DataTypeOf<T>::value, TensorShape({p * k}));
        dst = scratch[which].template data<T>();
        which ^= 1;
      }
      if (k == 1) {
        ReduceRows<R>(ctx, src, p, r, dst);
      } else {
        ReduceColumns<R>(ctx, src, p, r, k, dst);
      }
      if (!more) return;
      // Drop the reduced group; merge the kept groups it separated.
      groups.erase(groups.begin() + last_reduced);
      if (last_reduced > 0 && last_reduced < static_cast<int>(groups.size())) {
        groups[last_reduced - 1].first *= groups[last_reduced].first;
        groups.erase(groups.begin() + last_reduced);
      }
      src = dst;
    }
  }

  template <typename T>
  static void Divide(OpKernelContext* ctx, Tensor* out, int64_t count) {
    if constexpr (!std::is_same_v<T, bool>) {
      T* o = out->data<T>();
      if (count == 0) {
        // The mean of nothing: NaN for floats (0/0; NaN + NaN i for
        // complex), 0 for integers.
        T value(0);
        if constexpr (std::is_floating_point_v<T>) {
          value = std::numeric_limits<T>::quiet_NaN();
        } else if constexpr (!std::is_integral_v<T>) {
          const auto nan =
              std::numeric_limits<typename T::value_type>::quiet_NaN();
          value = T(nan, nan);
        }
        std::fill(o, o + out->num_elements(), value);
        return;
      }
      const T divisor = static_cast<T>(count);
      for (int64_t i = 0; i < out->num_elements(); ++i) o[i] /= divisor;
    }
  }

  bool keep_dims_ = false;
};

REGISTER_KERNEL(KernelDef("Sum"), ReductionOp<SumReducer, false>);
REGISTER_KERNEL(KernelDef("Mean"), ReductionOp<SumReducer, true>);
REGISTER_KERNEL(KernelDef("Prod"), ReductionOp<ProdReducer, false>);
REGISTER_KERNEL(KernelDef("Max"), ReductionOp<MaxReducer, false>);
REGISTER_KERNEL(KernelDef("Min"), ReductionOp<MinReducer, false>);
REGISTER_KERNEL(KernelDef("All"), ReductionOp<AllReducer, false>);
REGISTER_KERNEL(KernelDef("Any"), ReductionOp<AnyReducer, false>);

// GPU: int32 shape arithmetic stays in host memory (TensorFlow's GPU kernels
// of these ops keep int32 on the host); the CPU kernel runs there.
REGISTER_KERNEL(KernelDef("Sum")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                ReductionOp<SumReducer, false>);
REGISTER_KERNEL(KernelDef("Prod")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                ReductionOp<ProdReducer, false>);
REGISTER_KERNEL(KernelDef("Mean")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                ReductionOp<SumReducer, true>);
REGISTER_KERNEL(KernelDef("Max")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                ReductionOp<MaxReducer, false>);
REGISTER_KERNEL(KernelDef("Min")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                ReductionOp<MinReducer, false>);

}  // namespace
}  // namespace tensorweave

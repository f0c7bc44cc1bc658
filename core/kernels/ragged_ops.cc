// Ragged tensor kernels (host only), as TensorFlow's: RaggedRange (the
// ragged vector whose row i is range(starts[i], limits[i], deltas[i])).
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/ragged_splits.h"

namespace tensorweave {
namespace {

// Outputs are sized by untrusted inputs: cap the number of values.
constexpr int64_t kMaxRangeValues = int64_t{1} << 31;

// a + b, wrapping for integers (the step after a row's last value may leave
// T's range) instead of overflowing.
template <typename T>
T Add(T a, T b) {
  if constexpr (std::is_integral<T>::value) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

// The number of values of range(start, limit, delta) (delta != 0), or -1 when
// it is not finite or too large.
template <typename T>
int64_t RangeSize(T start, T limit, T delta) {
  if ((delta > 0 && limit < start) || (delta < 0 && limit > start)) return 0;
  double size;
  if (std::is_integral<T>::value) {
    const double span = std::fabs(static_cast<double>(limit) - start);
    size = std::ceil(span / std::fabs(static_cast<double>(delta)));
  } else {
    size = std::ceil(std::fabs((static_cast<double>(limit) - start) / delta));
  }
  if (!std::isfinite(size) || size > static_cast<double>(kMaxRangeValues)) {
    return -1;
  }
  return static_cast<int64_t>(size);
}

class RaggedRangeOp : public OpKernel {
 public:
  explicit RaggedRangeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("Tsplits", &splits_type_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& starts = ctx->input(0);
    const Tensor& limits = ctx->input(1);
    const Tensor& deltas = ctx->input(2);
    int64_t rows = 1;
    bool any_vector = false;
    const char* names[] = {"starts", "limits", "deltas"};
    for (int i = 0; i < 3; ++i) {
      const Tensor& t = ctx->input(i);
      OP_REQUIRES(
          ctx, t.rank() <= 1,
          errors::InvalidArgument(names[i], " must be a scalar or vector, got ",
                                  t.shape().ToString()));
      if (t.rank() == 1) {
        OP_REQUIRES(
            ctx, !any_vector || t.num_elements() == rows,
            errors::InvalidArgument("starts, limits, and deltas must have the "
                                    "same shape, got ",
                                    starts.shape().ToString(), ", ",
                                    limits.shape().ToString(), " and ",
                                    deltas.shape().ToString()));
        rows = t.num_elements();
        any_vector = true;
      }
    }
    OP_REQUIRES_OK(ctx, DispatchType<float, double, int32_t, int64_t>(
                            starts.dtype(), [&](auto tag) {
                              using T = decltype(tag);
                              return Range<T>(ctx, starts, limits, deltas,
                                              rows);
                            }));
  }

 private:
  template <typename T>
  Status Range(OpKernelContext* ctx, const Tensor& starts, const Tensor& limits,
               const Tensor& deltas, int64_t rows) {
    auto at = [](const Tensor& t, int64_t i) {
      return t.data<T>()[t.rank() == 0 ? 0 : i];
    };
    std::vector<int64_t> splits(1, 0);
    splits.reserve(rows + 1);
    for (int64_t r = 0; r < rows; ++r) {
      const T delta = at(deltas, r);
      if (delta == 0) return errors::InvalidArgument("Requires delta != 0");
      const int64_t size = RangeSize<T>(at(starts, r), at(limits, r), delta);
      if (size < 0 || splits.back() + size > kMaxRangeValues) {
        return errors::InvalidArgument(
            "The total range size of row ", r,
            " and before exceeds the supported maximum of ", kMaxRangeValues,
            " values");
      }
      splits.push_back(splits.back() + size);
    }
    if (splits_type_ == DT_INT32 &&
        splits.back() > std::numeric_limits<int32_t>::max()) {
      return errors::InvalidArgument(
          "The ragged range has ", splits.back(),
          " values, too many for int32 row splits (use Tsplits=int64)");
    }
    TW_RETURN_IF_ERROR(WriteSplitsAs(splits_type_, ctx, 0, splits));
    Tensor* values;
    TW_RETURN_IF_ERROR(
        ctx->allocate_output(1, TensorShape({splits.back()}), &values));
    T* v = values->data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      const T start = at(starts, r), delta = at(deltas, r);
      T x = start;
      for (int64_t i = splits[r]; i < splits[r + 1]; ++i) {
        v[i] = x;
        x = Add(x, delta);
      }
    }
    return Status::OK();
  }

  DataType splits_type_ = DT_INT64;
};

}  // namespace

REGISTER_KERNEL(KernelDef("RaggedRange"), RaggedRangeOp);

}  // namespace tensorweave

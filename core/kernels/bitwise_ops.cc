// Bitwise kernels (BitwiseAnd/Or/Xor, LeftShift, RightShift, Invert,
// PopulationCount) on the shared element-wise machinery of cwise_ops.h. The
// shifts clamp the count to [0, bits - 1] as TensorFlow does, and shift in
// the unsigned type so that no count is undefined behaviour.
#include <climits>
#include <type_traits>

#include "core/kernels/cwise_ops.h"

namespace tensorweave {
namespace {

#define TW_BITWISE_CPP_TYPES \
  int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

template <typename T>
using Unsigned = std::make_unsigned_t<T>;

// A shift count clamped to [0, bits - 1].
template <typename T>
int ClampedShift(T y) {
  constexpr int kBits = static_cast<int>(sizeof(T) * CHAR_BIT);
  if constexpr (std::is_signed_v<T>) {
    if (y < 0) return 0;
  }
  return y > static_cast<T>(kBits - 1) ? kBits - 1 : static_cast<int>(y);
}

struct BitwiseAndFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x, T y) {
    return static_cast<T>(x & y);
  }
};
struct BitwiseOrFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x, T y) {
    return static_cast<T>(x | y);
  }
};
struct BitwiseXorFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x, T y) {
    return static_cast<T>(x ^ y);
  }
};
struct LeftShiftFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x, T y) {
    // Promotion of small types to int is harmless: the count is < bits.
    using U = Unsigned<T>;
    return static_cast<T>(static_cast<U>(
        static_cast<uint64_t>(static_cast<U>(x)) << ClampedShift(y)));
  }
};
struct RightShiftFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x, T y) {
    const int s = ClampedShift(y);
    if constexpr (std::is_signed_v<T>) {
      // Arithmetic shift written without implementation-defined behaviour.
      using U = Unsigned<T>;
      const U ux = static_cast<U>(x);
      const U shifted = static_cast<U>(ux >> s);
      if (x >= 0 || s == 0) return static_cast<T>(shifted);
      const U fill =
          static_cast<U>(~static_cast<U>(static_cast<U>(~U{0}) >> s));
      return static_cast<T>(static_cast<U>(shifted | fill));
    } else {
      return static_cast<T>(x >> s);
    }
  }
};
struct InvertFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x) {
    return static_cast<T>(~static_cast<Unsigned<T>>(x));
  }
};

class PopulationCountOp : public OpKernel {
 public:
  explicit PopulationCountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_BITWISE_CPP_TYPES>(x.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* in = x.data<T>();
          uint8_t* o = out->data<uint8_t>();
          const int64_t n = x.num_elements();
          for (int64_t i = 0; i < n; ++i) {
            o[i] = static_cast<uint8_t>(__builtin_popcountll(
                static_cast<uint64_t>(static_cast<Unsigned<T>>(in[i]))));
          }
          return Status::OK();
        }));
  }
};

}  // namespace

REGISTER_KERNEL(KernelDef("BitwiseAnd"),
                BinaryOp<BitwiseAndFunctor, TW_BITWISE_CPP_TYPES>);
REGISTER_KERNEL(KernelDef("BitwiseOr"),
                BinaryOp<BitwiseOrFunctor, TW_BITWISE_CPP_TYPES>);
REGISTER_KERNEL(KernelDef("BitwiseXor"),
                BinaryOp<BitwiseXorFunctor, TW_BITWISE_CPP_TYPES>);
REGISTER_KERNEL(KernelDef("LeftShift"),
                BinaryOp<LeftShiftFunctor, TW_BITWISE_CPP_TYPES>);
REGISTER_KERNEL(KernelDef("RightShift"),
                BinaryOp<RightShiftFunctor, TW_BITWISE_CPP_TYPES>);
REGISTER_KERNEL(KernelDef("Invert"),
                UnaryOp<InvertFunctor, TW_BITWISE_CPP_TYPES>);
REGISTER_KERNEL(KernelDef("PopulationCount"), PopulationCountOp);

}  // namespace tensorweave

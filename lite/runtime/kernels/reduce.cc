// MEAN, REDUCE_SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN over constant `axes`
// (an int tensor; negative allowed, duplicates ignored), with keep_dims.
// float32, float64, int32, int64; REDUCE_MAX/REDUCE_MIN also bool (any/all).
// Floats accumulate sums and products in double; integers wrap (two's
// complement), and an integer MEAN truncates. Reducing an empty set gives
// the identity: 0 for sums, 1 for products, -inf/+inf (the type's lowest and
// highest for integers, false/true for bool) for MAX/MIN, NaN for a float
// MEAN and 0 for an integer one. MAX/MIN propagate NaN.
//
// Adjacent dims of one kind (kept or reduced) are merged; each output element
// walks its reduced elements with the innermost reduced dim as a strided
// loop, and output elements are split across threads.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

enum class Reduce { kSum, kProd, kMax, kMin };  // MEAN: kSum, then divided

template <typename T>
inline bool IsNan(T x) {
  if constexpr (std::is_floating_point<T>::value) return x != x;
  return false;
}

// The accumulator, identity, step and result of reduction kOp over T.
template <Reduce kOp, typename T>
struct Reducer {
  static constexpr bool kExtremum = kOp == Reduce::kMax || kOp == Reduce::kMin;
  static constexpr bool kFloat = std::is_floating_point<T>::value;
  using Acc = typename std::conditional<
      kExtremum, T,
      typename std::conditional<kFloat, double, uint64_t>::type>::type;

  static Acc Identity() {
    using L = std::numeric_limits<T>;
    switch (kOp) {
      case Reduce::kProd:
        return Acc(1);
      case Reduce::kMax:
        return kFloat ? Acc(-L::infinity()) : Acc(L::lowest());
      case Reduce::kMin:
        return kFloat ? Acc(L::infinity()) : Acc(L::max());
      default:
        return Acc(0);
    }
  }
  static Acc Step(Acc acc, T x) {
    switch (kOp) {
      case Reduce::kProd:
        return acc * static_cast<Acc>(x);
      case Reduce::kMax:
        return x > acc || IsNan(x) ? x : acc;
      case Reduce::kMin:
        return x < acc || IsNan(x) ? x : acc;
      default:
        return acc + static_cast<Acc>(x);
    }
  }
  static T Result(Acc acc, int64_t count, bool mean) {
    if (!mean) return static_cast<T>(acc);
    if constexpr (kFloat) {
      return static_cast<T>(acc / static_cast<double>(count));
    } else if constexpr (std::is_signed<T>::value) {
      return count == 0 ? T(0)
                        : static_cast<T>(static_cast<int64_t>(acc) / count);
    } else {
      return count == 0 ? T(0) : static_cast<T>(acc / count);
    }
  }
};

// Merged dims: `dims[i]` with input stride `strides[i]`.
struct Dims {
  int rank = 0;
  int64_t dims[kMaxDims], strides[kMaxDims];
  void Add(int64_t dim, int64_t stride, bool merge) {
    if (merge && rank > 0) {  // row-major: stride == previous stride / dim
      dims[rank - 1] *= dim;
      strides[rank - 1] = stride;
    } else {
      dims[rank] = dim;
      strides[rank++] = stride;
    }
  }
};

// Calls f(T{}) for float32, float64, int32, int64 (the types ONNX models
// reduce; each costs code for five ops).
template <typename F>
Status Dispatch(DataType type, F&& f) {
  if (type == DataType::kFloat64) return f(double{});
  return DispatchNumeric(type, "this reduction", static_cast<F&&>(f));
}

struct OpData {
  Dims kept, reduced;
  int64_t count;  // reduced elements per output
  bool mean;      // divide the sum by count
};

template <Reduce kOp, bool kMean = false>
TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  d->mean = kMean;
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_CHECK_ARG(input->type == output->type,
                "input type %s and output type %s differ",
                DataTypeName(input->type), DataTypeName(output->type));
  if (!Reducer<kOp, float>::kExtremum || input->type != DataType::kBool) {
    TWL_RETURN_IF_ERROR(
        Dispatch(input->type, [](auto) { return Status::Ok(); }));
  }
  int64_t axes[kMaxDims * 2];
  int count = 0;
  TWL_RETURN_IF_ERROR(ReadConstantInts(context->input(*node, 1), "axes", axes,
                                       kMaxDims * 2, &count));
  const Shape& in = input->shape;
  bool reduce[kMaxDims] = {};
  for (int i = 0; i < count; ++i) {
    TWL_CHECK_ARG(axes[i] >= -in.rank && axes[i] < in.rank,
                  "axis %lld out of range for rank %d",
                  static_cast<long long>(axes[i]), in.rank);
    reduce[axes[i] < 0 ? axes[i] + in.rank : axes[i]] = true;
  }
  const bool keep = GetOptions<schema::ReducerOptions>(*node)->keep_dims();
  Shape shape;
  d->kept = d->reduced = Dims();
  d->count = 1;
  int64_t stride = in.NumElements();
  for (int i = 0; i < in.rank; ++i) {
    const bool merge = i > 0 && reduce[i] == reduce[i - 1];
    stride = in.dims[i] == 0 ? 0 : stride / in.dims[i];
    (reduce[i] ? d->reduced : d->kept).Add(in.dims[i], stride, merge);
    if (reduce[i]) d->count *= in.dims[i];
    if (!reduce[i] || keep)
      shape.dims[shape.rank++] = reduce[i] ? 1 : in.dims[i];
  }
  if (d->reduced.rank == 0) d->reduced.Add(1, 0, false);
  return context->ResizeTensor(output, shape);
}

// Input offset of output element o.
inline int64_t KeptOffset(const Dims& kept, int64_t o) {
  int64_t base = 0;
  for (int k = kept.rank - 1; k >= 0; --k) {
    base += o % kept.dims[k] * kept.strides[k];
    o /= kept.dims[k];
  }
  return base;
}

// Sums with the input's last dim kept (a global average pool over NHWC's H
// and W): up to kLanes adjacent outputs at once, each reduced row adding a
// contiguous run of the input to as many accumulators (the strided loop
// below, one output at a time, read each cache line for one element). Each
// output's elements are added in the same order as there.
template <typename T, typename Acc>
void SumKeptLast(const OpData& d, const T* in, T* out, int64_t begin,
                 int64_t end) {
  constexpr int kLanes = 64;
  const Dims& red = d.reduced;
  const int64_t run = d.kept.dims[d.kept.rank - 1];
  for (int64_t o = begin; o < end;) {
    const int64_t n = std::min<int64_t>(
        {end - o, run - o % run, static_cast<int64_t>(kLanes)});
    const T* base = in + KeptOffset(d.kept, o);
    Acc acc[kLanes] = {};
    int64_t index[kMaxDims] = {};
    int64_t offset = 0;
    for (int64_t e = 0; e < d.count; ++e) {
      const T* p = base + offset;
      for (int64_t j = 0; j < n; ++j) acc[j] += static_cast<Acc>(p[j]);
      for (int k = red.rank - 1; k >= 0; --k) {
        offset += red.strides[k];
        if (++index[k] < red.dims[k]) break;
        offset -= red.strides[k] * index[k];
        index[k] = 0;
      }
    }
    for (int64_t j = 0; j < n; ++j) {
      out[o + j] = Reducer<Reduce::kSum, T>::Result(acc[j], d.count, d.mean);
    }
    o += n;
  }
}

template <Reduce kOp, typename T>
void Run(const OpData& d, const T* in, T* out, int64_t begin, int64_t end) {
  using R = Reducer<kOp, T>;
  const Dims& red = d.reduced;
  if constexpr (kOp == Reduce::kSum && R::kFloat) {
    if (d.kept.rank > 0 && d.kept.strides[d.kept.rank - 1] == 1 &&
        d.kept.dims[d.kept.rank - 1] > 1 && d.count > 1) {
      return SumKeptLast<T, typename R::Acc>(d, in, out, begin, end);
    }
  }
  const int last = red.rank - 1;
  const int64_t inner = red.dims[last], inner_stride = red.strides[last];
  const int64_t rows = inner == 0 ? 0 : d.count / inner;
  for (int64_t o = begin; o < end; ++o) {
    const int64_t base = KeptOffset(d.kept, o);
    typename R::Acc acc = R::Identity();
    int64_t index[kMaxDims] = {};
    for (int64_t row = 0; row < rows; ++row) {
      const T* p = in + base;
      for (int k = 0; k < last; ++k) p += index[k] * red.strides[k];
      for (int64_t j = 0; j < inner; ++j)
        acc = R::Step(acc, p[j * inner_stride]);
      for (int k = last - 1; k >= 0 && ++index[k] == red.dims[k]; --k) {
        index[k] = 0;
      }
    }
    out[o] = R::Result(acc, d.count, d.mean);
  }
}

template <Reduce kOp>
Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  ThreadPool* pool = context->thread_pool();
  const int64_t n = output->num_elements();
  const int64_t grain = 16384 / (d.count > 0 ? d.count : 1) + 1;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const T* in = input->data_as<T>();
    T* out = output->data_as<T>();
    pool->ParallelFor(n, grain, pool->num_threads(), [&](int64_t b, int64_t e) {
      Run<kOp>(d, in, out, b, e);
    });
    return Status::Ok();
  };
  if (Reducer<kOp, float>::kExtremum && input->type == DataType::kBool) {
    // max = any, min = all over bytes; written back as 0 or 1.
    TWL_RETURN_IF_ERROR(run(uint8_t{}));
    uint8_t* out = output->data_as<uint8_t>();
    for (int64_t i = 0; i < n; ++i) out[i] = out[i] != 0;
    return Status::Ok();
  }
  return Dispatch(input->type, run);
}

template <Reduce kOp, bool kMean = false>
KernelRegistration Make(BuiltinOperator op) {
  return {
      op,       1, InitOpData<OpData>, FreeOpData<OpData>, Prepare<kOp, kMean>,
      Eval<kOp>};
}

}  // namespace

KernelRegistration Register_MEAN() {
  return Make<Reduce::kSum, true>(BuiltinOperator::MEAN);
}
KernelRegistration Register_REDUCE_SUM() {
  return Make<Reduce::kSum>(BuiltinOperator::REDUCE_SUM);
}
KernelRegistration Register_REDUCE_PROD() {
  return Make<Reduce::kProd>(BuiltinOperator::REDUCE_PROD);
}
KernelRegistration Register_REDUCE_MAX() {
  return Make<Reduce::kMax>(BuiltinOperator::REDUCE_MAX);
}
KernelRegistration Register_REDUCE_MIN() {
  return Make<Reduce::kMin>(BuiltinOperator::REDUCE_MIN);
}

}  // namespace twl

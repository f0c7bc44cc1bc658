// TopKV2, InTopKV2, Unique, UniqueWithCounts, ListDiff and Bincount kernels.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/offset_tables.h"

namespace tensorweave {
namespace {

// Dtypes with std::hash: what Unique and ListDiff take.
#define TW_HASHABLE_TYPES \
  TW_REAL_TYPES, uint8_t, TW_SMALL_INT_TYPES, bool, std::string

// The k largest of each row of [rows, n], largest first; of equal values
// the lower index first (TF's order). A heap of the k best seen so far, the
// worst on top: a later element enters only if strictly larger than the
// worst (an equal one has a higher index, so it comes after).
template <typename T>
void TopKRows(OpKernelContext* ctx, const T* in, int64_t rows, int64_t n,
              int64_t k, T* vo, int32_t* io) {
  if (k == 0) return;
  struct Entry {
    T value;
    int32_t index;
  };
  // a before b: larger, or equal and a lower index.
  auto before = [](const Entry& a, const Entry& b) {
    return b.value < a.value || (!(a.value < b.value) && a.index < b.index);
  };
  ForRows(ctx, rows, n, [&](int64_t begin, int64_t end) {
    std::vector<Entry> heap(k);
    for (int64_t r = begin; r < end; ++r) {
      const T* row = in + r * n;
      for (int64_t j = 0; j < k; ++j) {
        heap[j] = {row[j], static_cast<int32_t>(j)};
      }
      std::make_heap(heap.begin(), heap.end(), before);
      T worst = heap.front().value;
      for (int64_t j = k; j < n; ++j) {
        if (worst < row[j]) {
          std::pop_heap(heap.begin(), heap.end(), before);
          heap.back() = {row[j], static_cast<int32_t>(j)};
          std::push_heap(heap.begin(), heap.end(), before);
          worst = heap.front().value;
        }
      }
      std::sort_heap(heap.begin(), heap.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        vo[r * k + j] = heap[j].value;
        io[r * k + j] = heap[j].index;
      }
    }
  });
}

class TopKOp : public OpKernel {
 public:
  explicit TopKOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("sorted", &sorted_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("index_type", &index_type_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& k_tensor = ctx->input(1);
    OP_REQUIRES(ctx, k_tensor.rank() == 0,
                errors::InvalidArgument("k must be scalar, got shape ",
                                        k_tensor.shape().ToString()));
    int64_t k = 0;
    switch (k_tensor.dtype()) {
      case DT_INT16:
        k = k_tensor.data<int16_t>()[0];
        break;
      case DT_INT32:
        k = k_tensor.data<int32_t>()[0];
        break;
      case DT_INT64:
        k = k_tensor.data<int64_t>()[0];
        break;
      default:
        ctx->SetStatus(
            errors::InvalidArgument("k must be int16, int32 or int64, got ",
                                    DataTypeName(k_tensor.dtype())));
        return;
    }
    OP_REQUIRES(ctx, k >= 0, errors::InvalidArgument("Need k >= 0, got ", k));
    OP_REQUIRES(ctx, x.rank() >= 1,
                errors::InvalidArgument("input must be >= 1-D, got shape ",
                                        x.shape().ToString()));
    const int64_t n = x.dim(x.rank() - 1);
    OP_REQUIRES(ctx, n >= k,
                errors::InvalidArgument("input must have at least k columns. "
                                        "Had ",
                                        n, ", needed ", k));
    // The indices' dtype (TF's index_type) must hold every index of a row.
    const DataType index_type = index_type_;
    const int64_t index_max =
        index_type == DT_INT16   ? std::numeric_limits<int16_t>::max()
        : index_type == DT_INT32 ? std::numeric_limits<int32_t>::max()
                                 : std::numeric_limits<int64_t>::max();
    OP_REQUIRES(ctx,
                index_type == DT_INT16 || index_type == DT_INT32 ||
                    index_type == DT_INT64,
                errors::InvalidArgument("index_type must be int16, int32 or "
                                        "int64, got ",
                                        DataTypeName(index_type)));
    OP_REQUIRES(
        ctx, n == 0 || n - 1 <= index_max,
        errors::InvalidArgument("input's last dimension (", n,
                                ") has indices that index_type ",
                                DataTypeName(index_type), " cannot hold"));
    OP_REQUIRES(ctx, n - 1 <= std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument("input's last dimension (", n,
                                        ") must be at most 2^31"));
    std::vector<int64_t> dims = x.shape().dims();
    dims.back() = k;
    Tensor *values, *indices;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &values));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape(dims), &indices));
    const int64_t rows = n == 0 ? 0 : x.num_elements() / n;
    std::vector<int32_t> index32;
    int32_t* io = nullptr;
    if (index_type == DT_INT32) {
      io = indices->data<int32_t>();
    } else {
      index32.resize(indices->num_elements());
      io = index32.data();
    }
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_ALL_NUMBER_TYPES>(x.dtype(), [&](auto tag) {
          using T = decltype(tag);
          TopKRows<T>(ctx, x.data<T>(), rows, n, k, values->data<T>(), io);
          return Status::OK();
        }));
    if (index_type == DT_INT16) {
      int16_t* out = indices->data<int16_t>();
      for (size_t i = 0; i < index32.size(); ++i) {
        out[i] = static_cast<int16_t>(index32[i]);
      }
    } else if (index_type == DT_INT64) {
      int64_t* out = indices->data<int64_t>();
      for (size_t i = 0; i < index32.size(); ++i) out[i] = index32[i];
    }
  }

 private:
  bool sorted_ = true;  // the result is always sorted
  DataType index_type_ = DT_INT32;
};

class InTopKOp : public OpKernel {
 public:
  explicit InTopKOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& predictions = ctx->input(0);
    const Tensor& targets_tensor = ctx->input(1);
    OP_REQUIRES(ctx, predictions.rank() == 2,
                errors::InvalidArgument("predictions must be 2-dimensional"));
    OP_REQUIRES(ctx, targets_tensor.rank() == 1,
                errors::InvalidArgument("targets must be 1-dimensional"));
    OP_REQUIRES(ctx, predictions.dim(0) == targets_tensor.dim(0),
                errors::InvalidArgument(
                    "First dimension of predictions ", predictions.dim(0),
                    " must match length of targets ", targets_tensor.dim(0)));
    std::vector<int64_t> targets, k_value;
    OP_REQUIRES_OK(ctx, ReadIndexVector(targets_tensor, &targets));
    OP_REQUIRES(ctx, ctx->input(2).rank() == 0,
                errors::InvalidArgument("k must be a scalar"));
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(2), &k_value));
    const int64_t k = k_value[0];
    const int64_t batch = predictions.dim(0), classes = predictions.dim(1);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &out));
    const float* p = predictions.data<float>();
    bool* o = out->data<bool>();
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t t = targets[b];
      const float* row = p + b * classes;
      bool in_top = false;
      if (t >= 0 && t < classes && std::isfinite(row[t])) {
        int64_t larger = 0;
        bool finite = true;
        for (int64_t j = 0; j < classes; ++j) {
          finite &= std::isfinite(row[j]);
          larger += row[j] > row[t];
        }
        in_top = finite && larger < k;
      }
      o[b] = in_top;
    }
  }
};

template <bool kWithCounts>
class UniqueOp : public OpKernel {
 public:
  explicit UniqueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.rank() == 1,
                errors::InvalidArgument("unique expects a 1D vector, got "
                                        "shape ",
                                        x.shape().ToString()));
    const int64_t n = x.num_elements();
    Tensor* idx;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, x.shape(), &idx));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_HASHABLE_TYPES>(x.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* in = x.data<T>();
          std::unordered_map<T, int64_t> first;
          std::vector<int64_t> positions, counts, index(n);
          for (int64_t i = 0; i < n; ++i) {
            auto [it, inserted] =
                first.emplace(in[i], static_cast<int64_t>(positions.size()));
            if (inserted) {
              positions.push_back(i);
              counts.push_back(0);
            }
            index[i] = it->second;
            ++counts[it->second];
          }
          const int64_t m = static_cast<int64_t>(positions.size());
          Tensor* y;
          TW_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({m}), &y));
          T* yo = y->data<T>();
          for (int64_t j = 0; j < m; ++j) yo[j] = in[positions[j]];
          Tensor* count = nullptr;
          if constexpr (kWithCounts) {
            TW_RETURN_IF_ERROR(
                ctx->allocate_output(2, TensorShape({m}), &count));
          }
          return DispatchType<int32_t, int64_t>(idx->dtype(), [&](auto itag) {
            using I = decltype(itag);
            I* io = idx->data<I>();
            for (int64_t i = 0; i < n; ++i) io[i] = static_cast<I>(index[i]);
            if (count != nullptr) {
              I* co = count->data<I>();
              for (int64_t j = 0; j < m; ++j) co[j] = static_cast<I>(counts[j]);
            }
            return Status::OK();
          });
        }));
  }
};

class ListDiffOp : public OpKernel {
 public:
  explicit ListDiffOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    OP_REQUIRES(ctx, x.rank() == 1,
                errors::InvalidArgument("x should be a 1D vector, got shape ",
                                        x.shape().ToString()));
    OP_REQUIRES(ctx, y.rank() == 1,
                errors::InvalidArgument("y should be a 1D vector, got shape ",
                                        y.shape().ToString()));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_HASHABLE_TYPES>(x.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* xs = x.data<T>();
          const T* ys = y.data<T>();
          std::unordered_set<T> drop(ys, ys + y.num_elements());
          std::vector<int64_t> kept;
          for (int64_t i = 0; i < x.num_elements(); ++i) {
            if (drop.count(xs[i]) == 0) kept.push_back(i);
          }
          const int64_t m = static_cast<int64_t>(kept.size());
          Tensor *out, *idx;
          TW_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({m}), &out));
          TW_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({m}), &idx));
          T* o = out->data<T>();
          for (int64_t j = 0; j < m; ++j) o[j] = xs[kept[j]];
          return DispatchType<int32_t, int64_t>(idx->dtype(), [&](auto itag) {
            using I = decltype(itag);
            I* io = idx->data<I>();
            for (int64_t j = 0; j < m; ++j) io[j] = static_cast<I>(kept[j]);
            return Status::OK();
          });
        }));
  }
};

class BincountOp : public OpKernel {
 public:
  explicit BincountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& arr = ctx->input(0);
    const Tensor& size_tensor = ctx->input(1);
    const Tensor& weights = ctx->input(2);
    OP_REQUIRES(ctx, size_tensor.rank() == 0,
                errors::InvalidArgument("Shape must be rank 0 but is rank ",
                                        size_tensor.rank(), " for size"));
    const int64_t size = size_tensor.data<int32_t>()[0];
    OP_REQUIRES(
        ctx, size >= 0,
        errors::InvalidArgument("size (", size, ") must be non-negative"));
    const bool weighted = weights.num_elements() > 0;
    OP_REQUIRES(
        ctx, !weighted || weights.shape() == arr.shape(),
        errors::InvalidArgument(
            "weights must have the shape of arr or be empty, got ",
            weights.shape().ToString(), " and ", arr.shape().ToString()));
    const int32_t* a = arr.data<int32_t>();
    for (int64_t i = 0; i < arr.num_elements(); ++i) {
      OP_REQUIRES(ctx, a[i] >= 0,
                  errors::InvalidArgument("Input arr must be non-negative, "
                                          "got ",
                                          a[i]));
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size}), &out));
    OP_REQUIRES_OK(ctx,
                   DispatchType<TW_REAL_TYPES>(out->dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     T* o = out->data<T>();
                     std::fill(o, o + size, T(0));
                     const T* w = weighted ? weights.data<T>() : nullptr;
                     for (int64_t i = 0; i < arr.num_elements(); ++i) {
                       if (a[i] < size) o[a[i]] += w ? w[i] : T(1);
                     }
                     return Status::OK();
                   }));
  }
};

#undef TW_HASHABLE_TYPES

REGISTER_KERNEL(KernelDef("TopKV2"), TopKOp);
REGISTER_KERNEL(KernelDef("InTopKV2"), InTopKOp);
REGISTER_KERNEL(KernelDef("Unique"), UniqueOp<false>);
REGISTER_KERNEL(KernelDef("UniqueWithCounts"), UniqueOp<true>);
REGISTER_KERNEL(KernelDef("ListDiff"), ListDiffOp);
REGISTER_KERNEL(KernelDef("Bincount"), BincountOp);

}  // namespace
}  // namespace tensorweave

// Kernels of SparseToDense and DenseBincount (core/ops/sparse_to_dense_ops.cc),
// with TensorFlow's error messages.
#include <algorithm>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/offset_tables.h"

namespace tensorweave {
namespace {

std::string IndexString(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    s += (i ? "," : "") + std::to_string(v[i]);
  }
  return s + "]";
}

class SparseToDenseOp : public OpKernel {
 public:
  explicit SparseToDenseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("validate_indices", &validate_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices_t = ctx->input(0);
    const Tensor& shape_t = ctx->input(1);
    const Tensor& values = ctx->input(2);
    const Tensor& default_value = ctx->input(3);
    OP_REQUIRES(ctx, indices_t.rank() <= 2,
                errors::InvalidArgument(
                    "sparse_indices should be a scalar, vector, or matrix, "
                    "got shape ",
                    indices_t.shape().ToString()));
    OP_REQUIRES(ctx, shape_t.rank() == 1,
                errors::InvalidArgument("output_shape should be a vector, got ",
                                        shape_t.shape().ToString()));
    const int64_t n = indices_t.rank() > 0 ? indices_t.dim(0) : 1;
    const int64_t ndims = indices_t.rank() > 1 ? indices_t.dim(1) : 1;
    OP_REQUIRES(ctx, shape_t.num_elements() == ndims,
                errors::InvalidArgument(
                    "output_shape has incorrect number of elements: ",
                    shape_t.num_elements(), " should be: ", ndims));
    OP_REQUIRES(
        ctx, values.rank() == 0 || (values.rank() == 1 && values.dim(0) == n),
        errors::InvalidArgument("sparse_values has incorrect shape ",
                                values.shape().ToString(),
                                ", should be [] or [", n, "]"));
    OP_REQUIRES(ctx, default_value.rank() == 0,
                errors::InvalidArgument("default_value should be a scalar."));
    std::vector<int64_t> shape, flat_indices;
    OP_REQUIRES_OK(ctx, ReadIndexVector(shape_t, &shape));
    Tensor flat;
    OP_REQUIRES_OK(ctx, indices_t.Reshaped(
                            TensorShape({indices_t.num_elements()}), &flat));
    OP_REQUIRES_OK(ctx, ReadIndexVector(flat, &flat_indices));
    int64_t elements = 1;
    for (int64_t d : shape) {
      OP_REQUIRES(ctx, d >= 0,
                  errors::InvalidArgument("output_shape has a negative "
                                          "dimension: ",
                                          d));
      OP_REQUIRES(ctx, !__builtin_mul_overflow(elements, d, &elements),
                  errors::InvalidArgument("output_shape ", IndexString(shape),
                                          " has too many elements"));
    }
    // Row-major offsets, checked as TensorFlow's SparseTensor::IndicesValid.
    std::vector<int64_t> offsets(n);
    std::vector<int64_t> previous;
    for (int64_t i = 0; i < n; ++i) {
      std::vector<int64_t> index(flat_indices.begin() + i * ndims,
                                 flat_indices.begin() + (i + 1) * ndims);
      bool in_bounds = true;
      int64_t offset = 0;
      for (int64_t d = 0; d < ndims; ++d) {
        in_bounds &= index[d] >= 0 && index[d] < shape[d];
        offset = offset * shape[d] + index[d];
      }
      if (!in_bounds) {
        OP_REQUIRES(
            ctx, !validate_,
            errors::InvalidArgument("indices[", i, "] = ", IndexString(index),
                                    " is out of bounds: need 0 <= "
                                    "index < ",
                                    IndexString(shape)));
        OP_REQUIRES(ctx, false,
                    errors::InvalidArgument(
                        "Indices are not valid (out of bounds).  Shape: ",
                        IndexString(shape)));
      }
      if (validate_ && i > 0) {
        OP_REQUIRES(
            ctx, index != previous,
            errors::InvalidArgument("indices[", i, "] = ", IndexString(index),
                                    " is repeated"));
        OP_REQUIRES(ctx, previous < index,
                    errors::InvalidArgument(
                        "indices[", i, "] = ", IndexString(index),
                        " is out of order. Many sparse ops require sorted "
                        "indices.\n    Use `tf.sparse.reorder` to create a "
                        "correctly ordered copy.\n\n"));
      }
      previous = index;
      offsets[i] = offset;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(shape), &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_ARRAY_TYPES>(values.dtype(), [&](auto tag) {
          using T = decltype(tag);
          T* o = out->data<T>();
          std::fill(o, o + out->num_elements(), default_value.data<T>()[0]);
          const T* v = values.data<T>();
          for (int64_t i = 0; i < n; ++i) {
            o[offsets[i]] = values.rank() == 0 ? v[0] : v[i];
          }
          return Status::OK();
        }));
  }

 private:
  bool validate_ = true;
};

class DenseBincountOp : public OpKernel {
 public:
  explicit DenseBincountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("binary_output", &binary_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& size_t_ = ctx->input(1);
    const Tensor& weights = ctx->input(2);
    OP_REQUIRES(ctx, size_t_.rank() == 0,
                errors::InvalidArgument("Shape must be rank 0 but is rank ",
                                        size_t_.rank(), " for size"));
    OP_REQUIRES(ctx, input.rank() <= 2,
                errors::InvalidArgument(
                    "Shape must be at most rank 2 but is rank ", input.rank()));
    std::vector<int64_t> size_v, values;
    OP_REQUIRES_OK(ctx, ReadIndexVector(size_t_, &size_v));
    const int64_t size = size_v[0];
    OP_REQUIRES(
        ctx, size >= 0,
        errors::InvalidArgument("size (", size, ") must be non-negative"));
    Tensor flat;
    OP_REQUIRES_OK(ctx,
                   input.Reshaped(TensorShape({input.num_elements()}), &flat));
    OP_REQUIRES_OK(ctx, ReadIndexVector(flat, &values));
    for (int64_t v : values) {
      OP_REQUIRES(ctx, v >= 0,
                  errors::InvalidArgument("Input arr must be non-negative!"));
    }
    const bool weighted = weights.num_elements() > 0;
    OP_REQUIRES(
        ctx, !weighted || weights.shape() == input.shape(),
        errors::InvalidArgument(
            "Input must have the same shape as the weights, got ",
            input.shape().ToString(), " and ", weights.shape().ToString()));
    const int64_t rows = input.rank() == 2 ? input.dim(0) : 1;
    const int64_t cols = input.rank() == 2 ? input.dim(1) : values.size();
    const TensorShape out_shape =
        input.rank() == 2 ? TensorShape({rows, size}) : TensorShape({size});
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_REAL_TYPES>(out->dtype(), [&](auto tag) {
          using T = decltype(tag);
          T* o = out->data<T>();
          std::fill(o, o + out->num_elements(), T(0));
          const T* w = weighted ? weights.data<T>() : nullptr;
          for (int64_t r = 0; r < rows; ++r) {
            for (int64_t j = 0; j < cols; ++j) {
              const int64_t v = values[r * cols + j];
              if (v >= size) continue;
              T& bin = o[r * size + v];
              bin = binary_ ? T(1) : bin + (w ? w[r * cols + j] : T(1));
            }
          }
          return Status::OK();
        }));
  }

 private:
  bool binary_ = false;
};

}  // namespace

REGISTER_KERNEL(KernelDef("SparseToDense"), SparseToDenseOp);
REGISTER_KERNEL(KernelDef("DenseBincount"), DenseBincountOp);

}  // namespace tensorweave

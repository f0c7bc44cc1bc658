// LinSpace, Bitcast, LowerBound/UpperBound, EnsureShape, IdentityN, ShapeN,
// BroadcastArgs, UnravelIndex, CheckNumerics, Diag and DiagPart kernels.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

class LinSpaceOp : public OpKernel {
 public:
  explicit LinSpaceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& start = ctx->input(0);
    const Tensor& stop = ctx->input(1);
    OP_REQUIRES(
        ctx, start.rank() == 0 && stop.rank() == 0 && ctx->input(2).rank() == 0,
        errors::InvalidArgument(
            "start, stop and num must be scalars, got shapes ",
            start.shape().ToString(), ", ", stop.shape().ToString(), ", ",
            ctx->input(2).shape().ToString()));
    std::vector<int64_t> num;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(2), &num));
    OP_REQUIRES(ctx, num[0] > 0,
                errors::InvalidArgument("Requires num > 0: ", num[0]));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({num[0]}), &out));
    OP_REQUIRES_OK(ctx,
                   DispatchType<TW_FLOAT_TYPES>(start.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     const T a = start.data<T>()[0], b = stop.data<T>()[0];
                     T* o = out->data<T>();
                     const int64_t n = num[0];
                     if (n == 1) {
                       o[0] = a;
                       return Status::OK();
                     }
                     const T step = (b - a) / static_cast<T>(n - 1);
                     for (int64_t i = 0; i < n - 1; ++i)
                       o[i] = a + step * static_cast<T>(i);
                     o[n - 1] = b;
                     return Status::OK();
                   }));
  }
};

class BitcastOp : public OpKernel {
 public:
  explicit BitcastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("type", &to_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const int64_t from_size = DataTypeSize(x.dtype());
    const int64_t to_size = DataTypeSize(to_);
    std::vector<int64_t> dims = x.shape().dims();
    if (from_size > to_size) {
      dims.push_back(from_size / to_size);
    } else if (from_size < to_size) {
      OP_REQUIRES(ctx, !dims.empty() && dims.back() == to_size / from_size,
                  errors::InvalidArgument(
                      "Cannot bitcast from ", DataTypeName(x.dtype()), " to ",
                      DataTypeName(to_), ": shape ", x.shape().ToString()));
      dims.pop_back();
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    if (x.num_bytes() > 0) {
      std::memcpy(out->raw_data(), x.raw_data(), x.num_bytes());
    }
  }

 private:
  DataType to_ = DT_INVALID;
};

// LowerBound (kUpper false) and UpperBound, row by row.
template <bool kUpper>
class BoundOp : public OpKernel {
 public:
  explicit BoundOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& sorted = ctx->input(0);
    const Tensor& values = ctx->input(1);
    OP_REQUIRES(
        ctx, sorted.rank() >= 1 && values.rank() >= 1,
        errors::InvalidArgument(
            "sorted_inputs and values must be at least 1-D, got ",
            sorted.shape().ToString(), " and ", values.shape().ToString()));
    int64_t sorted_rows = 1, value_rows = 1;
    for (int d = 0; d + 1 < sorted.rank(); ++d) sorted_rows *= sorted.dim(d);
    for (int d = 0; d + 1 < values.rank(); ++d) value_rows *= values.dim(d);
    OP_REQUIRES(
        ctx, sorted_rows == value_rows,
        errors::InvalidArgument(
            "Leading dim_size of both tensors must match, got ",
            sorted.shape().ToString(), " and ", values.shape().ToString()));
    const int64_t n = sorted.dim(sorted.rank() - 1);
    const int64_t m = values.dim(values.rank() - 1);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, values.shape(), &out));
    std::vector<int64_t> found(values.num_elements());
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_ALL_NUMBER_TYPES>(sorted.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* s = sorted.data<T>();
          const T* v = values.data<T>();
          for (int64_t r = 0; r < value_rows; ++r) {
            const T* row = s + r * n;
            for (int64_t j = 0; j < m; ++j) {
              const T value = v[r * m + j];
              const T* at = kUpper ? std::upper_bound(row, row + n, value)
                                   : std::lower_bound(row, row + n, value);
              found[r * m + j] = at - row;
            }
          }
          return Status::OK();
        }));
    for (int64_t i = 0; i < out->num_elements(); ++i) {
      if (out->dtype() == DT_INT32) {
        OP_REQUIRES(ctx, found[i] <= INT32_MAX,
                    errors::InvalidArgument("an index does not fit int32"));
        out->data<int32_t>()[i] = static_cast<int32_t>(found[i]);
      } else {
        out->data<int64_t>()[i] = found[i];
      }
    }
  }
};

class EnsureShapeOp : public OpKernel {
 public:
  explicit EnsureShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("shape", &shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, shape_.IsCompatibleWith(x.shape()),
                errors::InvalidArgument("Shape of tensor ", node().name(), " ",
                                        x.shape().ToString(),
                                        " is not compatible with expected "
                                        "shape ",
                                        shape_.ToString(), "."));
    ctx->set_output(0, x);
  }

 private:
  PartialShape shape_;
};

class IdentityNOp : public OpKernel {
 public:
  explicit IdentityNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i)
      ctx->set_output(i, ctx->input(i));
  }
};

class ShapeNOp : public OpKernel {
 public:
  explicit ShapeNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& x = ctx->input(i);
      Tensor* out;
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(i, TensorShape({x.rank()}), &out));
      for (int d = 0; d < x.rank(); ++d) {
        if (out->dtype() == DT_INT32) {
          OP_REQUIRES(
              ctx, x.dim(d) <= INT32_MAX,
              errors::InvalidArgument("a dimension does not fit int32"));
          out->data<int32_t>()[d] = static_cast<int32_t>(x.dim(d));
        } else {
          out->data<int64_t>()[d] = x.dim(d);
        }
      }
    }
  }
};

// An int32 or int64 output vector from int64 values.
void WriteIndexValues(const std::vector<int64_t>& values, Tensor* out) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (out->dtype() == DT_INT32) {
      out->data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    } else {
      out->data<int64_t>()[i] = values[i];
    }
  }
}

class BroadcastArgsOp : public OpKernel {
 public:
  explicit BroadcastArgsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(
        ctx, ctx->input(0).rank() == 1 && ctx->input(1).rank() == 1,
        errors::InvalidArgument("s0 and s1 must be vectors, got ",
                                ctx->input(0).shape().ToString(), " and ",
                                ctx->input(1).shape().ToString()));
    std::vector<int64_t> a, b;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(0), &a));
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(1), &b));
    const size_t n = std::max(a.size(), b.size());
    std::vector<int64_t> r(n);
    for (size_t i = 0; i < n; ++i) {
      const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
      const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
      OP_REQUIRES(ctx, x == y || x == 1 || y == 1,
                  errors::InvalidArgument(
                      "Incompatible shapes: ", TensorShape(a).ToString(),
                      " vs. ", TensorShape(b).ToString()));
      r[i] = x == 1 ? y : x;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({static_cast<int64_t>(n)}), &out));
    WriteIndexValues(r, out);
  }
};

class UnravelIndexOp : public OpKernel {
 public:
  explicit UnravelIndexOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices_t = ctx->input(0);
    OP_REQUIRES(
        ctx, indices_t.rank() <= 1 && ctx->input(1).rank() == 1,
        errors::InvalidArgument(
            "indices must be a scalar or vector and dims a vector, got ",
            indices_t.shape().ToString(), " and ",
            ctx->input(1).shape().ToString()));
    std::vector<int64_t> dims, indices;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(1), &dims));
    Tensor flat;
    OP_REQUIRES_OK(ctx, indices_t.Reshaped(
                            TensorShape({indices_t.num_elements()}), &flat));
    OP_REQUIRES_OK(ctx, ReadIndexVector(flat, &indices));
    int64_t total = 1;
    for (int64_t d : dims) {
      OP_REQUIRES(ctx, d > 0,
                  errors::InvalidArgument("dims must contain positive values, "
                                          "got ",
                                          TensorShape(dims).ToString()));
      // An error as TensorFlow's (whose product wraps), not a wrapped bound.
      OP_REQUIRES(ctx, MultiplyWithoutOverflow(total, d, &total),
                  errors::InvalidArgument("the product of dims ",
                                          TensorShape(dims).ToString(),
                                          " overflows int64"));
    }
    const int64_t n = static_cast<int64_t>(indices.size());
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(ctx, indices[i] >= 0 && indices[i] < total,
                  errors::InvalidArgument("index out of bounds: indices[", i,
                                          "] = ", indices[i], " is not in [0, ",
                                          total, ")"));
    }
    const int64_t k = static_cast<int64_t>(dims.size());
    std::vector<int64_t> out_values(k * n);
    for (int64_t i = 0; i < n; ++i) {
      int64_t rest = indices[i];
      for (int64_t d = k - 1; d >= 0; --d) {
        out_values[d * n + i] = rest % dims[d];
        rest /= dims[d];
      }
    }
    Tensor* out;
    OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, indices_t.rank() == 0 ? TensorShape({k}) : TensorShape({k, n}),
            &out));
    WriteIndexValues(out_values, out);
  }
};

class CheckNumericsOp : public OpKernel {
 public:
  explicit CheckNumericsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("message", &message_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    bool nan = false, inf = false;
    OP_REQUIRES_OK(ctx,
                   DispatchType<TW_ALL_FLOAT_TYPES>(x.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     const T* v = x.data<T>();
                     for (int64_t i = 0; i < x.num_elements(); ++i) {
                       const float f = static_cast<float>(v[i]);
                       nan = nan || std::isnan(f);
                       inf = inf || std::isinf(f);
                     }
                     return Status::OK();
                   }));
    OP_REQUIRES(ctx, !nan && !inf,
                errors::InvalidArgument(message_, " : Tensor had ",
                                        nan && inf ? "NaN and Inf"
                                        : nan      ? "NaN"
                                                   : "Inf",
                                        " values"));
    ctx->set_output(0, x);
  }

 private:
  std::string message_;
};

// Diag (kPart false) and DiagPart.
template <bool kPart>
class DiagOp : public OpKernel {
 public:
  explicit DiagOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    std::vector<int64_t> dims = x.shape().dims();
    int64_t n = x.num_elements();
    if (kPart) {
      const int r = x.rank();
      OP_REQUIRES(ctx, r >= 2 && r % 2 == 0,
                  errors::InvalidArgument("The rank of the tensor should be "
                                          "even and positive, got shape ",
                                          x.shape().ToString()));
      for (int i = 0; i < r / 2; ++i) {
        OP_REQUIRES(ctx, x.dim(i) == x.dim(i + r / 2),
                    errors::InvalidArgument(
                        "Invalid shape ", x.shape().ToString(), ": dimensions ",
                        i, " and ", i + r / 2, " are not equal"));
      }
      dims.resize(r / 2);
      n = 1;
      for (int64_t d : dims) n *= d;
    } else {
      OP_REQUIRES(ctx, x.rank() >= 1,
                  errors::InvalidArgument("Input must be at least rank 1, got ",
                                          x.shape().ToString()));
      dims.insert(dims.end(), x.shape().dims().begin(), x.shape().dims().end());
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_POD_TYPES, std::string>(x.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* in = x.data<T>();
          T* o = out->data<T>();
          if (kPart) {
            for (int64_t i = 0; i < n; ++i) o[i] = in[i * (n + 1)];
          } else {
            std::fill(o, o + out->num_elements(), T());
            for (int64_t i = 0; i < n; ++i) o[i * (n + 1)] = in[i];
          }
          return Status::OK();
        }));
  }
};

REGISTER_KERNEL(KernelDef("LinSpace"), LinSpaceOp);
REGISTER_KERNEL(KernelDef("Bitcast"), BitcastOp);
REGISTER_KERNEL(KernelDef("LowerBound"), BoundOp<false>);
REGISTER_KERNEL(KernelDef("UpperBound"), BoundOp<true>);
REGISTER_KERNEL(KernelDef("EnsureShape"), EnsureShapeOp);
REGISTER_KERNEL(KernelDef("IdentityN"), IdentityNOp);
REGISTER_KERNEL(KernelDef("ShapeN"), ShapeNOp);
REGISTER_KERNEL(KernelDef("BroadcastArgs"), BroadcastArgsOp);
REGISTER_KERNEL(KernelDef("UnravelIndex"), UnravelIndexOp);
REGISTER_KERNEL(KernelDef("CheckNumerics"), CheckNumericsOp);
REGISTER_KERNEL(KernelDef("Diag"), DiagOp<false>);
REGISTER_KERNEL(KernelDef("DiagPart"), DiagOp<true>);

}  // namespace
}  // namespace tensorweave

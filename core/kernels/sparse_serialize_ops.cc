// SerializeSparse, SerializeManySparse, DeserializeManySparse: a SparseTensor
// as three serialized TensorProtos (indices, values, dense_shape). Every
// input is validated (ranks, sizes that agree, indices in range and in
// order, deserialized components of one rank and type) before use.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/framework/graph.pb.h"
#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

// At most this many minibatch entries in SerializeManySparse (its output has
// one row of 3 strings per entry, sized by an input value).
constexpr int64_t kMaxEntries = int64_t{1} << 20;

Status CheckSparse(const Tensor& indices, const Tensor& values,
                   const Tensor& shape, const char* op) {
  if (indices.rank() != 2) {
    return errors::InvalidArgument(op,
                                   ": input indices should be a matrix "
                                   "but received shape ",
                                   indices.shape().ToString());
  }
  if (values.rank() != 1) {
    return errors::InvalidArgument(op,
                                   ": input values should be a vector "
                                   "but received shape ",
                                   values.shape().ToString());
  }
  if (shape.rank() != 1) {
    return errors::InvalidArgument(op,
                                   ": input shape should be a vector "
                                   "but received shape ",
                                   shape.shape().ToString());
  }
  if (indices.dim(0) != values.dim(0)) {
    return errors::InvalidArgument(op, ": indices has ", indices.dim(0),
                                   " rows but values has ", values.dim(0),
                                   " elements");
  }
  if (indices.dim(1) != shape.dim(0)) {
    return errors::InvalidArgument(op, ": indices has ", indices.dim(1),
                                   " columns but shape has ", shape.dim(0),
                                   " dimensions");
  }
  return Status::OK();
}

// As TensorFlow's AsProtoTensorContent: numbers in tensor_content, and
// strings there too (the varint32 length of each, then their bytes).
Status Serialize(const Tensor& t, std::string* out) {
  TensorProto proto;
  t.ToProto(&proto);
  if (t.dtype() == DT_STRING) {
    proto.clear_string_val();
    std::string content, bytes;
    const std::string* strings = t.data<std::string>();
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      uint32_t n = static_cast<uint32_t>(strings[i].size());
      while (n >= 0x80) {
        content.push_back(static_cast<char>((n & 0x7f) | 0x80));
        n >>= 7;
      }
      content.push_back(static_cast<char>(n));
      bytes += strings[i];
    }
    if (t.num_elements() > 0) proto.set_tensor_content(content + bytes);
  }
  if (!proto.SerializeToString(out)) {
    return errors::Internal("TensorProto serialization failed");
  }
  return Status::OK();
}

// A TensorProto to a tensor: Tensor::FromProto (which reads strings from
// tensor_content too, in TensorFlow's encoding), errors naming `what`.
Status Deserialize(const std::string& data, const std::string& what,
                   Tensor* out) {
  TensorProto proto;
  if (!proto.ParseFromString(data)) {
    return errors::InvalidArgument("Could not parse ", what,
                                   " as a TensorProto");
  }
  Status s = Tensor::FromProto(proto, out);
  if (!s.ok()) return errors::InvalidArgument(what, ": ", s.message());
  return Status::OK();
}

Status SerializeTriple(const Tensor& indices, const Tensor& values,
                       const Tensor& shape, std::string* dst) {
  TW_RETURN_IF_ERROR(Serialize(indices, &dst[0]));
  TW_RETURN_IF_ERROR(Serialize(values, &dst[1]));
  return Serialize(shape, &dst[2]);
}

class SerializeSparseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckSparse(indices, values, shape, "SerializeSparse"));
    Tensor out;
    OP_REQUIRES_OK(ctx, Tensor::Allocate(DT_STRING, TensorShape({3}), &out));
    OP_REQUIRES_OK(
        ctx, SerializeTriple(indices, values, shape, out.data<std::string>()));
    ctx->set_output(0, out);
  }
};

// Rows [begin, end) of `src` (a [n] or [n, k] tensor) in a new tensor, the
// first `drop` columns left out.
Tensor Rows(const Tensor& src, int64_t begin, int64_t end, int64_t drop) {
  const DataType dtype = src.dtype();
  const int64_t k = src.rank() == 2 ? src.dim(1) : 1;
  const int64_t kept = k - drop;
  Tensor out(dtype, src.rank() == 2 ? TensorShape({end - begin, kept})
                                    : TensorShape({end - begin}));
  if (dtype == DT_STRING) {
    for (int64_t r = begin; r < end; ++r) {
      for (int64_t c = drop; c < k; ++c) {
        out.data<std::string>()[(r - begin) * kept + c - drop] =
            src.data<std::string>()[r * k + c];
      }
    }
  } else {
    const size_t es = DataTypeSize(dtype);
    const char* s = static_cast<const char*>(src.raw_data());
    char* d = static_cast<char*>(out.raw_data());
    for (int64_t r = begin; r < end; ++r) {
      std::copy(s + (r * k + drop) * es, s + (r * k + k) * es,
                d + (r - begin) * kept * es);
    }
  }
  return out;
}

class SerializeManySparseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    OP_REQUIRES_OK(ctx,
                   CheckSparse(indices, values, shape, "SerializeManySparse"));
    const int64_t rank = shape.dim(0);
    OP_REQUIRES(ctx, rank >= 2,
                errors::InvalidArgument(
                    "SerializeManySparse: the SparseTensor must have rank >= "
                    "2 (a minibatch), got rank ",
                    rank));
    const int64_t* dims = shape.data<int64_t>();
    for (int64_t d = 0; d < rank; ++d) {
      OP_REQUIRES(ctx, dims[d] >= 0,
                  errors::InvalidArgument("SerializeManySparse: shape[", d,
                                          "] = ", dims[d], " is negative"));
    }
    OP_REQUIRES(ctx, dims[0] <= kMaxEntries,
                errors::InvalidArgument(
                    "SerializeManySparse: shape[0] = ", dims[0],
                    " is too large (at most 2^20 minibatch entries)"));
    const int64_t n = indices.dim(0);
    const int64_t* ix = indices.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t v = ix[i * rank + d];
        OP_REQUIRES(ctx, v >= 0 && v < dims[d],
                    errors::InvalidArgument(
                        "SerializeManySparse: indices[", i, ",", d, "] = ", v,
                        " is out of bounds: need 0 <= index < ", dims[d]));
      }
      if (i > 0) {
        OP_REQUIRES(
            ctx,
            std::lexicographical_compare(ix + (i - 1) * rank, ix + i * rank,
                                         ix + i * rank, ix + (i + 1) * rank),
            errors::InvalidArgument(
                "SerializeManySparse: indices[", i,
                "] is out of order (or repeated): the indices must be "
                "in row-major order"));
      }
    }
    Tensor out;
    OP_REQUIRES_OK(
        ctx, Tensor::Allocate(DT_STRING, TensorShape({dims[0], 3}), &out));
    Tensor sub_shape(DT_INT64, TensorShape({rank - 1}));
    std::copy(dims + 1, dims + rank, sub_shape.data<int64_t>());
    int64_t begin = 0;
    for (int64_t b = 0; b < dims[0]; ++b) {
      int64_t end = begin;
      while (end < n && ix[end * rank] == b) ++end;
      OP_REQUIRES_OK(ctx,
                     SerializeTriple(Rows(indices, begin, end, 1),
                                     Rows(values, begin, end, 0), sub_shape,
                                     out.data<std::string>() + 3 * b));
      begin = end;
    }
    ctx->set_output(0, out);
  }
};

class DeserializeManySparseOp : public OpKernel {
 public:
  explicit DeserializeManySparseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    OP_REQUIRES(ctx, serialized.rank() == 2 && serialized.dim(1) == 3,
                errors::InvalidArgument(
                    "Serialized sparse should be a matrix with 3 columns "
                    "(an [N, 3] matrix), got shape ",
                    serialized.shape().ToString()));
    const int64_t n = serialized.dim(0);
    const std::string* s = serialized.data<std::string>();
    std::vector<Tensor> indices(n), values(n), shapes(n);
    int64_t rank = -1, total = 0;
    for (int64_t i = 0; i < n; ++i) {
      Tensor* parts[3] = {&indices[i], &values[i], &shapes[i]};
      for (int c = 0; c < 3; ++c) {
        OP_REQUIRES_OK(
            ctx, Deserialize(s[3 * i + c],
                             StrCat("serialized_sparse[", i, ", ", c, "]"),
                             parts[c]));
      }
      OP_REQUIRES(
          ctx, indices[i].dtype() == DT_INT64 && shapes[i].dtype() == DT_INT64,
          errors::InvalidArgument("serialized_sparse[", i,
                                  "]: indices and shape must be int64, got ",
                                  DataTypeName(indices[i].dtype()), " and ",
                                  DataTypeName(shapes[i].dtype())));
      OP_REQUIRES(ctx, values[i].dtype() == dtype_,
                  errors::InvalidArgument(
                      "Requested SparseTensor of type ", DataTypeName(dtype_),
                      " but SparseTensor[", i,
                      "].values.dtype() == ", DataTypeName(values[i].dtype())));
      OP_REQUIRES_OK(ctx, CheckSparse(indices[i], values[i], shapes[i],
                                      "DeserializeManySparse"));
      if (i == 0) rank = shapes[i].dim(0);
      OP_REQUIRES(ctx, shapes[i].dim(0) == rank,
                  errors::InvalidArgument(
                      "Inconsistent shape across SparseTensors: rank prior to "
                      "SparseTensor[",
                      i, "] was: ", rank, " but rank of SparseTensor[", i,
                      "] is: ", shapes[i].dim(0)));
      const int64_t* dims = shapes[i].data<int64_t>();
      for (int64_t d = 0; d < rank; ++d) {
        OP_REQUIRES(ctx, dims[d] >= 0,
                    errors::InvalidArgument("SparseTensor[", i, "] shape[", d,
                                            "] = ", dims[d], " is negative"));
      }
      total += indices[i].dim(0);
    }
    const int64_t out_rank = (n == 0 ? 0 : rank) + 1;
    Tensor out_indices, out_values;
    OP_REQUIRES_OK(ctx,
                   Tensor::Allocate(DT_INT64, TensorShape({total, out_rank}),
                                    &out_indices));
    OP_REQUIRES_OK(ctx,
                   Tensor::Allocate(dtype_, TensorShape({total}), &out_values));
    Tensor out_shape(DT_INT64, TensorShape({out_rank}));
    int64_t* oshape = out_shape.data<int64_t>();
    oshape[0] = n;
    for (int64_t d = 1; d < out_rank; ++d) oshape[d] = 0;
    int64_t row = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t* dims = shapes[i].data<int64_t>();
      for (int64_t d = 0; d < rank; ++d) {
        oshape[d + 1] = std::max(oshape[d + 1], dims[d]);
      }
      const int64_t m = indices[i].dim(0);
      const int64_t* ix = indices[i].data<int64_t>();
      for (int64_t r = 0; r < m; ++r) {
        int64_t* dst = out_indices.data<int64_t>() + (row + r) * out_rank;
        dst[0] = i;
        std::copy(ix + r * rank, ix + (r + 1) * rank, dst + 1);
      }
      if (dtype_ == DT_STRING) {
        for (int64_t r = 0; r < m; ++r) {
          out_values.data<std::string>()[row + r] =
              values[i].data<std::string>()[r];
        }
      } else {
        const size_t es = DataTypeSize(dtype_);
        const char* src = static_cast<const char*>(values[i].raw_data());
        std::copy(src, src + m * es,
                  static_cast<char*>(out_values.raw_data()) + row * es);
      }
      row += m;
    }
    ctx->set_output(0, out_indices);
    ctx->set_output(1, out_values);
    ctx->set_output(2, out_shape);
  }

 private:
  DataType dtype_ = DT_INVALID;
};

REGISTER_KERNEL(KernelDef("SerializeSparse"), SerializeSparseOp);
REGISTER_KERNEL(KernelDef("SerializeManySparse"), SerializeManySparseOp);
REGISTER_KERNEL(KernelDef("DeserializeManySparse"), DeserializeManySparseOp);

}  // namespace
}  // namespace tensorweave

// Set kernels (SetSize and the Dense/Sparse set operations): a set is the
// last dimension of a dense tensor, or the values of a SparseTensor that
// share all but the last index. Results are SparseTensors of sorted sets.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

// Output sizes come from untrusted inputs: capped.
constexpr int64_t kMaxGroups = int64_t{1} << 26;

template <typename T>
using Groups = std::map<std::vector<int64_t>, std::set<T>>;

// Checks a set shape (rank >= 2, dims >= 0) and returns its group shape
// (all but the last dim).
Status GroupShape(const std::vector<int64_t>& shape, const char* what,
                  std::vector<int64_t>* group) {
  if (shape.size() < 2) {
    return errors::InvalidArgument(what, " has rank ", shape.size(),
                                   " < 2: sets are the last dimension");
  }
  for (int64_t d : shape) {
    if (d < 0) {
      return errors::InvalidArgument(what, " has a negative dimension ", d);
    }
  }
  group->assign(shape.begin(), shape.end() - 1);
  return Status::OK();
}

template <typename T>
Status ReadDense(const Tensor& t, std::vector<int64_t>* group_shape,
                 Groups<T>* groups) {
  TW_RETURN_IF_ERROR(GroupShape(t.shape().dims(), "set1", group_shape));
  const int64_t width = t.shape().dims().back();
  if (width == 0) return Status::OK();  // only empty sets
  const int64_t n = t.num_elements() / width;
  const T* v = t.data<T>();
  std::vector<int64_t> index(group_shape->size(), 0);
  for (int64_t g = 0; g < n; ++g) {
    std::set<T>& s = (*groups)[index];
    s.insert(v + g * width, v + (g + 1) * width);
    for (int d = static_cast<int>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < (*group_shape)[d]) break;
      index[d] = 0;
    }
  }
  return Status::OK();
}

template <typename T>
Status ReadSparse(const Tensor& indices, const Tensor& values,
                  const Tensor& shape_t, bool validate, const char* what,
                  std::vector<int64_t>* group_shape, Groups<T>* groups) {
  if (shape_t.rank() != 1) {
    return errors::InvalidArgument(what, " shape must be a vector, got ",
                                   shape_t.shape().ToString());
  }
  const int64_t rank = shape_t.num_elements();
  const int64_t* sp = shape_t.data<int64_t>();
  const std::vector<int64_t> shape(sp, sp + rank);
  TW_RETURN_IF_ERROR(GroupShape(shape, what, group_shape));
  if (indices.rank() != 2 || indices.shape().dim(1) != rank) {
    return errors::InvalidArgument(what, " indices must be a matrix [N, ", rank,
                                   "], got ", indices.shape().ToString());
  }
  const int64_t n = indices.shape().dim(0);
  if (values.rank() != 1 || values.num_elements() != n) {
    return errors::InvalidArgument(what, " values must be a vector of ", n,
                                   " values, got ", values.shape().ToString());
  }
  const int64_t* ix = indices.data<int64_t>();
  const T* v = values.data<T>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t* row = ix + i * rank;
    for (int64_t d = 0; d < rank; ++d) {
      if (row[d] < 0 || row[d] >= shape[d]) {
        return errors::InvalidArgument(
            what, " index ", i, " is out of bounds:", " dimension ", d, " is ",
            row[d], ", the shape's is ", shape[d]);
      }
    }
    if (validate && i > 0) {
      const int64_t* prev = row - rank;
      if (!std::lexicographical_compare(prev, prev + rank, row, row + rank)) {
        return errors::InvalidArgument(
            what, " indices are out of order or repeated at ", i,
            " (validate_indices); use tf.sparse.reorder to order them");
      }
    }
    (*groups)[std::vector<int64_t>(row, row + rank - 1)].insert(v[i]);
  }
  return Status::OK();
}

Status CheckGroupShapesMatch(const std::vector<int64_t>& a,
                             const std::vector<int64_t>& b) {
  if (a != b) {
    return errors::InvalidArgument(
        "Mismatched shapes: the sets' group shapes (all but the last "
        "dimension) must be equal, got ",
        TensorShape(a).ToString(), " and ", TensorShape(b).ToString());
  }
  return Status::OK();
}

enum class SetOperation { kAMinusB, kBMinusA, kIntersection, kUnion };

Status ParseSetOperation(const std::string& s, SetOperation* op) {
  if (s == "a-b") {
    *op = SetOperation::kAMinusB;
  } else if (s == "b-a") {
    *op = SetOperation::kBMinusA;
  } else if (s == "intersection") {
    *op = SetOperation::kIntersection;
  } else if (s == "union") {
    *op = SetOperation::kUnion;
  } else {
    return errors::InvalidArgument("Invalid set_operation ", s,
                                   ": must be a-b, b-a, intersection or union");
  }
  return Status::OK();
}

template <typename T>
std::vector<T> Apply(SetOperation op, const std::set<T>& a,
                     const std::set<T>& b) {
  std::vector<T> out;
  auto sink = std::back_inserter(out);
  switch (op) {
    case SetOperation::kAMinusB:
      std::set_difference(a.begin(), a.end(), b.begin(), b.end(), sink);
      break;
    case SetOperation::kBMinusA:
      std::set_difference(b.begin(), b.end(), a.begin(), a.end(), sink);
      break;
    case SetOperation::kIntersection:
      std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), sink);
      break;
    case SetOperation::kUnion:
      std::set_union(a.begin(), a.end(), b.begin(), b.end(), sink);
      break;
  }
  return out;
}

// Writes op(a, b) group by group (in index order) as a SparseTensor.
template <typename T>
Status WriteResult(OpKernelContext* ctx, SetOperation op,
                   const std::vector<int64_t>& group_shape, const Groups<T>& a,
                   const Groups<T>& b) {
  std::set<std::vector<int64_t>> keys;
  for (const auto& kv : a) keys.insert(kv.first);
  for (const auto& kv : b) keys.insert(kv.first);
  const std::set<T> empty;
  std::vector<std::pair<const std::vector<int64_t>*, std::vector<T>>> results;
  int64_t total = 0, max_size = 0;
  for (const auto& key : keys) {
    auto ia = a.find(key);
    auto ib = b.find(key);
    std::vector<T> r = Apply(op, ia == a.end() ? empty : ia->second,
                             ib == b.end() ? empty : ib->second);
    if (r.empty()) continue;
    total += static_cast<int64_t>(r.size());
    max_size = std::max(max_size, static_cast<int64_t>(r.size()));
    results.emplace_back(&key, std::move(r));
  }
  const int64_t rank = static_cast<int64_t>(group_shape.size()) + 1;
  Tensor *indices, *values, *shape;
  TW_RETURN_IF_ERROR(
      ctx->allocate_output(0, TensorShape({total, rank}), &indices));
  TW_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({total}), &values));
  TW_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({rank}), &shape));
  int64_t* ix = indices->data<int64_t>();
  T* v = values->data<T>();
  for (const auto& [key, r] : results) {
    for (size_t k = 0; k < r.size(); ++k) {
      std::copy(key->begin(), key->end(), ix);
      ix[rank - 1] = static_cast<int64_t>(k);
      ix += rank;
      *v++ = r[k];
    }
  }
  int64_t* s = shape->data<int64_t>();
  std::copy(group_shape.begin(), group_shape.end(), s);
  s[rank - 1] = max_size;
  return Status::OK();
}

#define TW_SET_CPP_TYPES \
  int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, std::string

class SetSizeOp : public OpKernel {
 public:
  explicit SetSizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("validate_indices", &validate_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& values = ctx->input(1);
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_SET_CPP_TYPES>(values.dtype(), [&](auto tag) {
          using T = decltype(tag);
          std::vector<int64_t> group_shape;
          Groups<T> groups;
          TW_RETURN_IF_ERROR(ReadSparse<T>(ctx->input(0), values, ctx->input(2),
                                           validate_, "set", &group_shape,
                                           &groups));
          int64_t n = 1;
          for (int64_t d : group_shape) {
            if (d != 0 && n > kMaxGroups / d) {
              return errors::InvalidArgument(
                  "SetSize: too many sets in shape ",
                  TensorShape(group_shape).ToString());
            }
            n *= d;
          }
          Tensor* out;
          TW_RETURN_IF_ERROR(
              ctx->allocate_output(0, TensorShape(group_shape), &out));
          int32_t* o = out->data<int32_t>();
          std::fill(o, o + n, 0);
          for (const auto& [key, set] : groups) {
            int64_t flat = 0;
            for (size_t d = 0; d < key.size(); ++d) {
              flat = flat * group_shape[d] + key[d];
            }
            o[flat] = static_cast<int32_t>(set.size());
          }
          return Status::OK();
        }));
  }

 private:
  bool validate_ = true;
};

// The set operations; Kind says which inputs are dense.
enum class Inputs { kDenseDense, kDenseSparse, kSparseSparse };

template <Inputs kInputs>
class SetOperationOp : public OpKernel {
 public:
  explicit SetOperationOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string op;
    ctx->SetStatus(ctx->GetAttr("set_operation", &op));
    ctx->SetStatus(ctx->GetAttr("validate_indices", &validate_));
    if (ctx->status().ok()) ctx->SetStatus(ParseSetOperation(op, &op_));
  }
  void Compute(OpKernelContext* ctx) override {
    const DataType dtype = kInputs == Inputs::kSparseSparse
                               ? ctx->input(1).dtype()
                               : ctx->input(0).dtype();
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_SET_CPP_TYPES>(dtype, [&](auto tag) {
          using T = decltype(tag);
          std::vector<int64_t> shape1, shape2;
          Groups<T> a, b;
          if constexpr (kInputs == Inputs::kSparseSparse) {
            TW_RETURN_IF_ERROR(ReadSparse<T>(ctx->input(0), ctx->input(1),
                                             ctx->input(2), validate_, "set1",
                                             &shape1, &a));
            TW_RETURN_IF_ERROR(ReadSparse<T>(ctx->input(3), ctx->input(4),
                                             ctx->input(5), validate_, "set2",
                                             &shape2, &b));
          } else {
            TW_RETURN_IF_ERROR(ReadDense<T>(ctx->input(0), &shape1, &a));
            if constexpr (kInputs == Inputs::kDenseDense) {
              TW_RETURN_IF_ERROR(ReadDense<T>(ctx->input(1), &shape2, &b));
            } else {
              TW_RETURN_IF_ERROR(ReadSparse<T>(ctx->input(1), ctx->input(2),
                                               ctx->input(3), validate_, "set2",
                                               &shape2, &b));
            }
          }
          TW_RETURN_IF_ERROR(CheckGroupShapesMatch(shape1, shape2));
          return WriteResult<T>(ctx, op_, shape1, a, b);
        }));
  }

 private:
  SetOperation op_ = SetOperation::kUnion;
  bool validate_ = true;
};

}  // namespace

REGISTER_KERNEL(KernelDef("SetSize"), SetSizeOp);
REGISTER_KERNEL(KernelDef("DenseToDenseSetOperation"),
                SetOperationOp<Inputs::kDenseDense>);
REGISTER_KERNEL(KernelDef("DenseToSparseSetOperation"),
                SetOperationOp<Inputs::kDenseSparse>);
REGISTER_KERNEL(KernelDef("SparseToSparseSetOperation"),
                SetOperationOp<Inputs::kSparseSparse>);

}  // namespace tensorweave

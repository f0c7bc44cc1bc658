// TensorShape: the fully known shape of a tensor at run time.
// PartialShape: a shape as graph construction knows it, with unknown
// dimensions (-1) and possibly unknown rank.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_TENSOR_SHAPE_H_
#define TENSORWEAVE_CORE_FRAMEWORK_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/framework/status.h"

namespace tensorweave {

class TensorShapeProto;

class TensorShape {
 public:
  TensorShape() = default;  // a scalar
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit TensorShape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  // Validates dims (non-negative, element count fits in int64).
  static Status Build(const std::vector<int64_t>& dims, TensorShape* shape);

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t num_elements() const;
  void set_dim(int i, int64_t size) { dims_[i] = size; }
  void AddDim(int64_t size) { dims_.push_back(size); }

  bool operator==(const TensorShape& other) const {
    return dims_ == other.dims_;
  }
  bool operator!=(const TensorShape& other) const { return !(*this == other); }
  std::string ToString() const;  // "[2,3]"

 private:
  std::vector<int64_t> dims_;
};

class PartialShape {
 public:
  PartialShape() = default;  // unknown rank
  explicit PartialShape(std::vector<int64_t> dims)
      : known_rank_(true), dims_(std::move(dims)) {}
  PartialShape(std::initializer_list<int64_t> dims)
      : known_rank_(true), dims_(dims) {}
  explicit PartialShape(const TensorShape& shape)
      : known_rank_(true), dims_(shape.dims()) {}

  static PartialShape UnknownRank() { return PartialShape(); }
  static PartialShape Unknown(int rank) {
    return PartialShape(std::vector<int64_t>(rank, -1));
  }
  static Status FromProto(const TensorShapeProto& proto, PartialShape* shape);
  void ToProto(TensorShapeProto* proto) const;

  bool known_rank() const { return known_rank_; }
  int rank() const { return known_rank_ ? static_cast<int>(dims_.size()) : -1; }
  int64_t dim(int i) const { return dims_[i]; }  // -1: unknown
  const std::vector<int64_t>& dims() const { return dims_; }
  bool IsFullyDefined() const;
  // Product of dims, or -1 when not fully defined.
  int64_t num_elements() const;

  // True when some fully known shape matches both.
  bool IsCompatibleWith(const PartialShape& other) const;
  bool IsCompatibleWith(const TensorShape& shape) const {
    return IsCompatibleWith(PartialShape(shape));
  }
  // The most specific shape compatible with both, or an error.
  Status Merge(const PartialShape& other, PartialShape* out) const;

  bool operator==(const PartialShape& other) const {
    return known_rank_ == other.known_rank_ && dims_ == other.dims_;
  }
  bool operator!=(const PartialShape& other) const { return !(*this == other); }
  std::string ToString() const;  // "[?,3]", "<unknown>"

 private:
  bool known_rank_ = false;
  std::vector<int64_t> dims_;
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_TENSOR_SHAPE_H_

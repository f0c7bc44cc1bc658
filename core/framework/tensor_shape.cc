#include "core/framework/tensor_shape.h"

#include <limits>

#include "core/framework/graph.pb.h"
#include "core/framework/tensor_size.h"

namespace tensorweave {

Status TensorShape::Build(const std::vector<int64_t>& dims,
                          TensorShape* shape) {
  int64_t count;
  TW_RETURN_IF_ERROR(NumElementsOf(dims, &count));
  *shape = TensorShape(dims);
  return Status::OK();
}

int64_t TensorShape::num_elements() const {
  // A zero dimension first: the others' product may overflow (a shape with
  // no elements may have huge dimensions; Build checks the rest).
  for (int64_t d : dims_) {
    if (d == 0) return 0;
  }
  int64_t count = 1;
  for (int64_t d : dims_) count *= d;
  return count;
}

static std::string DimsToString(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ",";
    out += dims[i] < 0 ? "?" : std::to_string(dims[i]);
  }
  return out + "]";
}

std::string TensorShape::ToString() const { return DimsToString(dims_); }

Status PartialShape::FromProto(const TensorShapeProto& proto,
                               PartialShape* shape) {
  if (proto.unknown_rank()) {
    if (proto.dim_size() > 0) {
      return errors::InvalidArgument("shape has unknown_rank but lists dims");
    }
    *shape = PartialShape();
    return Status::OK();
  }
  std::vector<int64_t> dims;
  dims.reserve(proto.dim_size());
  for (const auto& d : proto.dim()) {
    if (d.size() < -1) {
      return errors::InvalidArgument("shape has invalid dimension ", d.size());
    }
    dims.push_back(d.size());
  }
  *shape = PartialShape(std::move(dims));
  return Status::OK();
}

void PartialShape::ToProto(TensorShapeProto* proto) const {
  proto->Clear();
  if (!known_rank_) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

bool PartialShape::IsFullyDefined() const {
  if (!known_rank_) return false;
  for (int64_t d : dims_) {
    if (d < 0) return false;
  }
  return true;
}

int64_t PartialShape::num_elements() const {
  if (!IsFullyDefined()) return -1;
  int64_t count = 1;
  for (int64_t d : dims_) count *= d;
  return count;
}

bool PartialShape::IsCompatibleWith(const PartialShape& other) const {
  if (!known_rank_ || !other.known_rank_) return true;
  if (dims_.size() != other.dims_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i] >= 0 && other.dims_[i] >= 0 && dims_[i] != other.dims_[i]) {
      return false;
    }
  }
  return true;
}

Status PartialShape::Merge(const PartialShape& other, PartialShape* out) const {
  if (!known_rank_) {
    *out = other;
    return Status::OK();
  }
  if (!other.known_rank_) {
    *out = *this;
    return Status::OK();
  }
  if (!IsCompatibleWith(other)) {
    return errors::InvalidArgument("shapes ", ToString(), " and ",
                                   other.ToString(), " are not compatible");
  }
  std::vector<int64_t> dims(dims_);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) dims[i] = other.dims_[i];
  }
  *out = PartialShape(std::move(dims));
  return Status::OK();
}

std::string PartialShape::ToString() const {
  return known_rank_ ? DimsToString(dims_) : "<unknown>";
}

}  // namespace tensorweave

#include "core/framework/resource.h"

namespace tensorweave {

Status Var::Snapshot(Tensor* out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!tensor_.valid()) {
    return errors::FailedPrecondition("Attempting to use uninitialized value ",
                                      name_);
  }
  *out = tensor_;
  return Status::OK();
}

Status ResourceMgr::LookupOrCreateVar(const std::string& name, DataType dtype,
                                      const PartialShape& shape, Var** var) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = vars_[name];
  if (slot == nullptr) {
    slot = std::make_unique<Var>(name, dtype, shape);
  } else if (slot->dtype() != dtype || !slot->shape().IsCompatibleWith(shape)) {
    return errors::InvalidArgument(
        "variable '", name, "' exists as ", DataTypeName(slot->dtype()), " ",
        slot->shape().ToString(), " but is asked for as ", DataTypeName(dtype),
        " ", shape.ToString());
  }
  *var = slot.get();
  return Status::OK();
}

Var* ResourceMgr::FindVar(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = vars_.find(name);
  return it == vars_.end() ? nullptr : it->second.get();
}

void ResourceMgr::Clear() {
  // Destroyed after the lock is released: a resource's destructor may wait
  // for threads of its own that look resources up (an iterator's prefetch).
  decltype(vars_) vars;
  decltype(resources_) resources;
  {
    std::lock_guard<std::mutex> lock(mu_);
    vars.swap(vars_);
    resources.swap(resources_);
  }
}

}  // namespace tensorweave

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

Status ResourceMgr::LookupOrCreateVar(const std::string& container,
                                      const std::string& name, DataType dtype,
                                      const PartialShape& shape, Var** var) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = vars_[{Key(container), name}];
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

Var* ResourceMgr::FindVar(const std::string& container,
                          const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = vars_.find({Key(container), name});
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

void ResourceMgr::Clear(const std::vector<std::string>& containers) {
  std::vector<std::unique_ptr<Var>> vars;
  std::vector<std::shared_ptr<ResourceBase>> resources;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& container : containers) {
      const std::string key = Key(container);
      // Keys are ordered by container first: its entries are one run.
      auto v = vars_.lower_bound({key, ""});
      while (v != vars_.end() && v->first.first == key) {
        vars.push_back(std::move(v->second));
        v = vars_.erase(v);
      }
      auto r = resources_.lower_bound({key, ""});
      while (r != resources_.end() && r->first.first == key) {
        resources.push_back(std::move(r->second));
        r = resources_.erase(r);
      }
    }
  }
}

}  // namespace tensorweave

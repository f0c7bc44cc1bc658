// Mutable state that outlives a step: variables, held by a session's
// ResourceMgr and shared by every step that runs in that session.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_RESOURCE_H_
#define TENSORWEAVE_CORE_FRAMEWORK_RESOURCE_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/framework/tensor.h"

namespace tensorweave {

// A variable: a tensor that steps read and update. Readers take a snapshot
// (a Tensor sharing the current buffer) under the lock; writers update in
// place only when no snapshot shares the buffer, else they write a new
// buffer (copy on write), so a value once read never changes underneath.
class Var {
 public:
  Var(std::string name, DataType dtype, PartialShape shape)
      : name_(std::move(name)), dtype_(dtype), shape_(std::move(shape)) {}

  const std::string& name() const { return name_; }
  DataType dtype() const { return dtype_; }
  const PartialShape& shape() const { return shape_; }
  std::mutex* mu() { return &mu_; }
  // Under mu():
  bool initialized() const { return tensor_.valid(); }
  Tensor* tensor() { return &tensor_; }

  // The current value; FailedPrecondition when uninitialized.
  Status Snapshot(Tensor* out);

 private:
  const std::string name_;
  const DataType dtype_;
  const PartialShape shape_;
  std::mutex mu_;
  Tensor tensor_;
};

// Any other state a session holds between steps (a queue, ...), by
// (container, name); the container "" is the default one, "localhost". Shared
// by the steps and kernels that look it up.
class ResourceBase {
 public:
  virtual ~ResourceBase() = default;
  // What kind of resource this is ("FIFOQueue"), for errors.
  virtual std::string DebugString() const = 0;
};

class ResourceMgr {
 public:
  // Returns the resource (container, name) as a T, creating it with
  // `create` when absent. One of another type is InvalidArgument.
  template <typename T>
  Status LookupOrCreate(
      const std::string& container, const std::string& name,
      const std::function<Status(std::shared_ptr<T>*)>& create,
      std::shared_ptr<T>* out);
  // The resource (container, name) as a T; NotFound when absent.
  template <typename T>
  Status Lookup(const std::string& container, const std::string& name,
                std::shared_ptr<T>* out);
  // A number unique in this manager (names of unshared resources).
  int64_t GenerateUniqueId() { return next_id_.fetch_add(1); }

  // Returns the variable (container, name), creating it if absent. An
  // existing variable of another dtype or incompatible shape is an error.
  Status LookupOrCreateVar(const std::string& container,
                           const std::string& name, DataType dtype,
                           const PartialShape& shape, Var** var);
  Var* FindVar(const std::string& container, const std::string& name);
  // Frees every variable and resource.
  void Clear();
  // Frees those of the named containers (TF's ResourceMgr::Cleanup of each);
  // an unknown name frees nothing.
  void Clear(const std::vector<std::string>& containers);

  // The container "" stands for.
  static constexpr const char* kDefaultContainer = "localhost";

 private:
  static std::string Key(const std::string& container) {
    return container.empty() ? kDefaultContainer : container;
  }

  std::mutex mu_;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<Var>> vars_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<ResourceBase>>
      resources_;
  std::atomic<int64_t> next_id_{0};
};

template <typename T>
Status ResourceMgr::Lookup(const std::string& container,
                           const std::string& name, std::shared_ptr<T>* out) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = resources_.find({Key(container), name});
  if (it == resources_.end()) {
    return errors::NotFound("Resource ", Key(container), "/", name,
                            " does not exist.");
  }
  *out = std::dynamic_pointer_cast<T>(it->second);
  if (*out == nullptr) {
    return errors::InvalidArgument("Resource ", Key(container), "/", name,
                                   " is a ", it->second->DebugString(),
                                   ", not the kind asked for");
  }
  return Status::OK();
}

template <typename T>
Status ResourceMgr::LookupOrCreate(
    const std::string& container, const std::string& name,
    const std::function<Status(std::shared_ptr<T>*)>& create,
    std::shared_ptr<T>* out) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::pair<std::string, std::string> key(Key(container), name);
  auto& slot = resources_[key];
  if (slot == nullptr) {
    std::shared_ptr<T> created;
    Status s = create(&created);
    if (!s.ok()) {
      resources_.erase(key);
      return s;
    }
    slot = created;
  }
  *out = std::dynamic_pointer_cast<T>(slot);
  if (*out == nullptr) {
    return errors::InvalidArgument("Resource ", Key(container), "/", name,
                                   " is a ", slot->DebugString(),
                                   ", not the kind asked for");
  }
  return Status::OK();
}

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_RESOURCE_H_

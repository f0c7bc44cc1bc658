// Per-step resources named by a handle tensor (stacks, TensorArrays).
//
// TensorFlow keeps these in the step's resource container and deletes them
// when the step ends. Here the handle itself carries the lifetime: the handle
// is a scalar string tensor whose buffer, when its last copy goes (at the
// latest when the step's tensors are dropped), removes the resource from the
// registry. Concurrent steps get distinct resources (each handle's key is
// unique in the process).
#ifndef TENSORWEAVE_CORE_KERNELS_HANDLE_RESOURCE_H_
#define TENSORWEAVE_CORE_KERNELS_HANDLE_RESOURCE_H_

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/framework/status.h"
#include "core/framework/tensor.h"

namespace tensorweave {

template <typename Resource>
class HandleRegistry {
 public:
  // Leaked on purpose: handles may be released during static destruction.
  static HandleRegistry* Global() {
    static HandleRegistry* registry = new HandleRegistry;
    return registry;
  }

  // Registers `resource` under a fresh key that starts with `prefix`, held
  // by one reference that the caller owns (Unref releases it).
  std::string Insert(const std::string& prefix,
                     std::shared_ptr<Resource> resource) {
    const std::string key = StrCat(prefix, ":", next_id_.fetch_add(1));
    std::lock_guard<std::mutex> lock(mu_);
    resources_[key] = Entry{std::move(resource), 1};
    return key;
  }

  // Registers `resource` and returns the handle tensor that owns it.
  Tensor Create(const std::string& prefix, std::shared_ptr<Resource> resource) {
    return HandleOwning(Insert(prefix, std::move(resource)));
  }

  // A new handle tensor holding one more reference to `key`.
  Status NewHandle(const std::string& key, Tensor* handle) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = resources_.find(key);
      if (it == resources_.end()) return Missing(key);
      ++it->second.refs;
    }
    *handle = HandleOwning(key);
    return Status::OK();
  }

  // Drops one reference; the last one removes the resource.
  void Unref(const std::string& key) {
    std::shared_ptr<Resource> doomed;  // destroyed after the lock is released
    std::lock_guard<std::mutex> lock(mu_);
    auto it = resources_.find(key);
    if (it == resources_.end() || --it->second.refs > 0) return;
    doomed = std::move(it->second.resource);
    resources_.erase(it);
  }

  // The resource `handle` names. `kind` ("Stack", "TensorArray") words the
  // errors: a handle that is not a scalar string is InvalidArgument, one
  // whose resource is gone (from another step) NotFound.
  Status Lookup(const Tensor& handle, const char* kind,
                std::shared_ptr<Resource>* out) {
    if (handle.dtype() != DT_STRING || handle.num_elements() != 1) {
      return errors::InvalidArgument(kind,
                                     " handle must be a scalar string, "
                                     "got a ",
                                     DataTypeName(handle.dtype()),
                                     " tensor of shape ",
                                     handle.shape().ToString());
    }
    const std::string& key = handle.data<std::string>()[0];
    std::lock_guard<std::mutex> lock(mu_);
    auto it = resources_.find(key);
    if (it == resources_.end()) {
      return errors::NotFound(kind, " ", Missing(key).message());
    }
    *out = it->second.resource;
    return Status::OK();
  }

 private:
  struct Entry {
    std::shared_ptr<Resource> resource;
    int64_t refs = 0;
  };

  static Status Missing(const std::string& key) {
    return errors::NotFound(key,
                            " does not exist (a handle is valid only in the "
                            "step that created it)");
  }

  // A scalar string tensor naming `key` whose buffer owns one reference.
  static Tensor HandleOwning(const std::string& key) {
    auto* holder = new std::string(key);
    auto buffer = TensorBuffer::Borrow(holder, sizeof(std::string), [holder] {
      Global()->Unref(*holder);
      delete holder;
    });
    return Tensor(DT_STRING, TensorShape(), std::move(buffer));
  }

  std::mutex mu_;
  std::map<std::string, Entry> resources_;
  std::atomic<int64_t> next_id_{0};
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_HANDLE_RESOURCE_H_

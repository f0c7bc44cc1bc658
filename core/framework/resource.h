// Mutable state that outlives a step: variables, held by a session's
// ResourceMgr and shared by every step that runs in that session.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_RESOURCE_H_
#define TENSORWEAVE_CORE_FRAMEWORK_RESOURCE_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>

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

class ResourceMgr {
 public:
  // Returns the variable `name`, creating it if absent. An existing variable
  // of another dtype or incompatible shape is an error.
  Status LookupOrCreateVar(const std::string& name, DataType dtype,
                           const PartialShape& shape, Var** var);
  Var* FindVar(const std::string& name);
  void Clear();

 private:
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Var>> vars_;
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_RESOURCE_H_

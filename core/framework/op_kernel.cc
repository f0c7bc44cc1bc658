#include "core/framework/op_kernel.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>

namespace tensorweave {

OpKernelContext::OpKernelContext(const Params& params)
    : params_(params),
      num_outputs_(params.kernel->node().num_outputs()),
      heap_outputs_(num_outputs_ > kInlineOutputs
                        ? new TensorValue[num_outputs_]
                        : nullptr),
      outputs_(heap_outputs_ != nullptr ? heap_outputs_.get()
                                        : inline_outputs_) {}

void AsyncOpKernel::Compute(OpKernelContext* ctx) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  ComputeAsync(ctx, [&] {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
}

Status OpKernelContext::allocate_output(int i, const TensorShape& shape,
                                        Tensor** out) {
  TW_RETURN_IF_ERROR(Tensor::Allocate(kernel().node().output_type(i), shape,
                                      &outputs_[i].tensor));
  *out = &outputs_[i].tensor;
  return Status::OK();
}

Status OpKernelContext::forward_input_or_allocate_output(
    int input, int output, const TensorShape& shape, Tensor** out) {
  TensorValue& in = params_.inputs[input];
  DataType dtype = kernel().node().output_type(output);
  if (in.ref == nullptr && in.tensor.dtype() == dtype && dtype != DT_STRING &&
      in.tensor.BufferUniquelyOwned() &&
      in.tensor.num_elements() == shape.num_elements() &&
      in.tensor.raw_data() == in.tensor.buffer()->data()) {
    Tensor reshaped(dtype, shape, in.tensor.buffer());
    outputs_[output].tensor = std::move(reshaped);
    *out = &outputs_[output].tensor;
    return Status::OK();
  }
  return allocate_output(output, shape, out);
}

KernelRegistry* KernelRegistry::Global() {
  static KernelRegistry* registry = new KernelRegistry();
  return registry;
}

void KernelRegistry::Register(KernelDef def, KernelFactory factory) {
  std::string key = def.op + "@" + def.device;
  kernels_.emplace(key, std::make_pair(std::move(def), std::move(factory)));
}

Status KernelRegistry::CreateKernel(const Node& node,
                                    const std::string& device_type,
                                    std::unique_ptr<OpKernel>* kernel) const {
  auto range = kernels_.equal_range(node.type_string() + "@" + device_type);
  std::string registered;
  for (auto it = range.first; it != range.second; ++it) {
    const KernelDef& def = it->second.first;
    bool matches = true;
    std::string constraint_text;
    for (const auto& [attr, allowed] : def.constraints) {
      DataType dtype;
      if (!GetAttr(node.attrs(), attr, &dtype).ok() ||
          std::find(allowed.begin(), allowed.end(), dtype) == allowed.end()) {
        matches = false;
      }
      constraint_text += " " + attr + " in {";
      for (DataType t : allowed) constraint_text += DataTypeName(t) + " ";
      constraint_text += "}";
    }
    if (!matches) {
      registered += "\n  " + device_type + constraint_text;
      continue;
    }
    OpKernelConstruction ctx(&node, device_type);
    std::unique_ptr<OpKernel> built = it->second.second(&ctx);
    if (!ctx.status().ok()) {
      return Status(ctx.status().code(), ctx.status().message() + " (node " +
                                             node.DebugName() + ")");
    }
    *kernel = std::move(built);
    return Status::OK();
  }
  std::string attrs;
  for (const auto& [name, value] : node.attrs()) {
    if (value.value_case() == AttrValue::kType) {
      attrs += " " + name + "=" + AttrValueToString(value);
    }
  }
  return errors::NotFound(
      "No registered kernel for op '", node.type_string(), "' on device ",
      device_type, " with attrs", attrs, " (node '", node.name(),
      "'). Registered:", registered.empty() ? " none" : registered);
}

bool KernelRegistry::HasKernel(const std::string& op,
                               const std::string& device_type) const {
  return kernels_.count(op + "@" + device_type) > 0;
}

bool KernelRegistry::SupportsNode(const Node& node,
                                  const std::string& device_type) const {
  auto range = kernels_.equal_range(node.type_string() + "@" + device_type);
  for (auto it = range.first; it != range.second; ++it) {
    bool matches = true;
    for (const auto& [attr, allowed] : it->second.first.constraints) {
      DataType dtype;
      matches =
          matches && GetAttr(node.attrs(), attr, &dtype).ok() &&
          std::find(allowed.begin(), allowed.end(), dtype) != allowed.end();
    }
    if (matches) return true;
  }
  return false;
}

std::vector<std::string> KernelRegistry::RegisteredOps() const {
  std::vector<std::string> ops;
  for (const auto& entry : kernels_) {
    if (ops.empty() || ops.back() != entry.second.first.op) {
      ops.push_back(entry.second.first.op);
    }
  }
  return ops;
}

}  // namespace tensorweave

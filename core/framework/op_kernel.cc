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
  const DataType dtype = kernel().node().output_type(i);
  DeviceBase* dev = device();
  if (dev->host_memory() ||
      kernel().output_memory_type(i) == MemoryType::kHost) {
    TW_RETURN_IF_ERROR(Tensor::Allocate(dtype, shape, &outputs_[i].tensor));
  } else {
    TW_RETURN_IF_ERROR(dev->AllocateTensor(dtype, shape, &outputs_[i].tensor));
  }
  *out = &outputs_[i].tensor;
  return Status::OK();
}

Status OpKernelContext::forward_input_or_allocate_output(
    int input, int output, const TensorShape& shape, Tensor** out) {
  TensorValue& in = params_.inputs[input];
  DataType dtype = kernel().node().output_type(output);
  if (in.ref == nullptr && in.tensor.dtype() == dtype && dtype != DT_STRING &&
      (device()->host_memory() || kernel().input_memory_type(input) ==
                                      kernel().output_memory_type(output)) &&
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

DeviceBase* DeviceBase::HostDefault() {
  static DeviceBase* device = new DeviceBase();
  return device;
}

KernelRegistry* KernelRegistry::Global() {
  static KernelRegistry* registry = new KernelRegistry();
  return registry;
}

void KernelRegistry::Register(KernelDef def, KernelFactory factory) {
  std::string key = def.op + "@" + def.device;
  kernels_.emplace(key, std::make_pair(std::move(def), std::move(factory)));
}

const std::pair<KernelDef, KernelFactory>* KernelRegistry::Find(
    const Node& node, const std::string& device_type,
    std::string* registered) const {
  auto range = kernels_.equal_range(node.type_string() + "@" + device_type);
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
    if (matches) return &it->second;
    if (registered != nullptr) {
      *registered += "\n  " + device_type + constraint_text;
    }
  }
  return nullptr;
}

namespace {

Status NoKernel(const Node& node, const std::string& device_type,
                const std::string& registered) {
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

// Per argument: host memory when the def says so (a negative index counts
// from the end).
std::vector<MemoryType> ArgMemory(int n, bool all_host,
                                  const std::vector<int>& host) {
  std::vector<MemoryType> types(
      n, all_host ? MemoryType::kHost : MemoryType::kDevice);
  for (int i : host) {
    const int index = i < 0 ? n + i : i;
    if (index >= 0 && index < n) types[index] = MemoryType::kHost;
  }
  return types;
}

}  // namespace

Status KernelRegistry::CreateKernel(const Node& node,
                                    const std::string& device_type,
                                    std::unique_ptr<OpKernel>* kernel,
                                    DeviceBase* device) const {
  std::string registered;
  const auto* entry = Find(node, device_type, &registered);
  if (entry == nullptr) return NoKernel(node, device_type, registered);
  OpKernelConstruction ctx(&node, device_type, device);
  std::unique_ptr<OpKernel> built = entry->second(&ctx);
  if (!ctx.status().ok()) {
    return Status(ctx.status().code(),
                  ctx.status().message() + " (node " + node.DebugName() + ")");
  }
  const KernelDef& def = entry->first;
  if (def.all_host_memory || !def.host_inputs.empty() ||
      !def.host_outputs.empty()) {
    built->input_memory_ =
        ArgMemory(node.num_inputs(), def.all_host_memory, def.host_inputs);
    built->output_memory_ =
        ArgMemory(node.num_outputs(), def.all_host_memory, def.host_outputs);
  }
  *kernel = std::move(built);
  return Status::OK();
}

Status KernelRegistry::MemoryTypes(const Node& node,
                                   const std::string& device_type,
                                   std::vector<MemoryType>* inputs,
                                   std::vector<MemoryType>* outputs) const {
  std::string registered;
  const auto* entry = Find(node, device_type, &registered);
  if (entry == nullptr) return NoKernel(node, device_type, registered);
  const KernelDef& def = entry->first;
  *inputs = ArgMemory(node.num_inputs(), def.all_host_memory, def.host_inputs);
  *outputs =
      ArgMemory(node.num_outputs(), def.all_host_memory, def.host_outputs);
  return Status::OK();
}

bool KernelRegistry::HasKernel(const std::string& op,
                               const std::string& device_type) const {
  return kernels_.count(op + "@" + device_type) > 0;
}

bool KernelRegistry::SupportsNode(const Node& node,
                                  const std::string& device_type) const {
  return Find(node, device_type, nullptr) != nullptr;
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

#include "core/runtime/step_stats_collector.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <utility>

#include "core/framework/graph.h"
#include "core/framework/op_kernel.h"
#include "core/framework/resource.h"

namespace tensorweave {

namespace {

// The kernel thread's id as the OS knows it (what top -H and perf show), as
// TensorFlow's Env::GetCurrentThreadId on Linux.
uint32_t CurrentThreadId() {
  thread_local const uint32_t id = static_cast<uint32_t>(syscall(SYS_gettid));
  return id;
}

// The allocator TensorFlow names for a device's tensors ("cpu" on a CPU).
std::string AllocatorName(const std::string& device) {
  return device.find("device:GPU:") != std::string::npos ? "gpu" : "cpu";
}

void DescribeTensor(const Tensor& tensor, const std::string& allocator,
                    TensorDescription* out) {
  out->set_dtype(static_cast<TensorDescription::DataType>(tensor.dtype()));
  TensorDescription::Shape* shape = out->mutable_shape();
  for (int64_t d : tensor.shape().dims()) shape->add_dim()->set_size(d);
  AllocationDescription* alloc = out->mutable_allocation_description();
  alloc->set_requested_bytes(static_cast<int64_t>(tensor.num_bytes()));
  alloc->set_allocator_name(allocator);
  alloc->set_ptr(reinterpret_cast<uint64_t>(tensor.raw_data()));
  alloc->set_has_single_reference(tensor.buffer().use_count() == 1);
}

std::string AttrString(const Node& node, const std::string& name) {
  auto it = node.attrs().find(name);
  return it == node.attrs().end() ? std::string() : it->second.s();
}

}  // namespace

std::string TimelineLabel(const Node& node) {
  const std::string& op = node.type_string();
  std::string args;
  if (op == "_Send") {
    args = AttrString(node, "tensor_name") + " @" +
           AttrString(node, "recv_device");
  } else if (op == "_Recv") {
    args = AttrString(node, "tensor_name") + " @" +
           AttrString(node, "send_device");
  } else {
    for (const std::string& input : node.def().input()) {
      if (!args.empty()) args += ", ";
      // TensorFlow's canonical name of output 0 is the node's ("x", not
      // "x:0"), which its Timeline matches to the producer's output.
      const size_t colon = input.rfind(':');
      const bool output0 = colon != std::string::npos &&
                           input.compare(colon, std::string::npos, ":0") == 0;
      args += output0 ? input.substr(0, colon) : input;
    }
  }
  return node.name() + " = " + op + "(" + args + ")";
}

void DeviceStepStatsCollector::RecordNode(const Node& node, int64_t start_us,
                                          int64_t end_us,
                                          const OpKernelContext& ctx) {
  NodeExecStats stats;
  stats.set_node_name(node.name());
  stats.set_all_start_micros(start_us);
  stats.set_op_start_rel_micros(0);
  stats.set_op_end_rel_micros(end_us - start_us);
  stats.set_all_end_rel_micros(end_us - start_us);
  stats.set_all_start_nanos(start_us * 1000);
  stats.set_op_start_rel_nanos(0);
  stats.set_op_end_rel_nanos((end_us - start_us) * 1000);
  stats.set_all_end_rel_nanos((end_us - start_us) * 1000);
  stats.set_thread_id(CurrentThreadId());
  stats.set_timeline_label(TimelineLabel(node));
  const std::string allocator = AllocatorName(device_);
  const TensorValue* outputs = ctx.outputs();
  for (int slot = 0; slot < ctx.num_outputs(); ++slot) {
    const TensorValue& value = outputs[slot];
    if (!value.has_value()) continue;  // failed, or not produced
    NodeOutput* output = stats.add_output();
    output->set_slot(slot);
    if (value.ref != nullptr) {  // a variable: what it holds now
      std::lock_guard<std::mutex> lock(*value.ref->mu());
      if (value.ref->initialized()) {
        DescribeTensor(*value.ref->tensor(), allocator,
                       output->mutable_tensor_description());
      } else {
        output->mutable_tensor_description()->set_dtype(
            static_cast<TensorDescription::DataType>(value.ref->dtype()));
      }
    } else {
      DescribeTensor(value.tensor, allocator,
                     output->mutable_tensor_description());
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  nodes_.push_back(std::move(stats));
}

void DeviceStepStatsCollector::Finalize(DeviceStepStats* out) {
  std::lock_guard<std::mutex> lock(mu_);
  out->set_device(device_);
  for (NodeExecStats& stats : nodes_) {
    *out->add_node_stats() = std::move(stats);
  }
  nodes_.clear();
}

StepStatsCollector* StepStatsRecorder::ForDevice(const std::string& device) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& collector : devices_) {
    if (collector->device() == device) return collector.get();
  }
  devices_.push_back(std::make_unique<DeviceStepStatsCollector>(device));
  return devices_.back().get();
}

void StepStatsRecorder::Finalize(StepStats* out) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& collector : devices_) {
    collector->Finalize(out->add_dev_stats());
  }
}

}  // namespace tensorweave

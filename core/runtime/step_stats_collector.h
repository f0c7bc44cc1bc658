// The StepStatsCollector of traced steps (RunOptions.trace_level): one
// StepStatsRecorder per step, one collector per device it runs on, and at
// the end RunMetadata.step_stats with one DeviceStepStats per device, as
// TensorFlow reports them.
#ifndef TENSORWEAVE_CORE_RUNTIME_STEP_STATS_COLLECTOR_H_
#define TENSORWEAVE_CORE_RUNTIME_STEP_STATS_COLLECTOR_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/framework/step_stats.h"
#include "core/framework/step_stats.pb.h"

namespace tensorweave {

// Records the nodes one device runs: times, thread, each output's dtype,
// shape and size, and TensorFlow's timeline label ("name = Op(inputs)").
class DeviceStepStatsCollector : public StepStatsCollector {
 public:
  explicit DeviceStepStatsCollector(std::string device)
      : device_(std::move(device)) {}
  void RecordNode(const Node& node, int64_t start_us, int64_t end_us,
                  const OpKernelContext& ctx) override;
  // Moves what was recorded into `out` (in the order the nodes finished).
  void Finalize(DeviceStepStats* out);
  const std::string& device() const { return device_; }

 private:
  const std::string device_;
  std::mutex mu_;
  std::vector<NodeExecStats> nodes_;  // guarded by mu_
};

class StepStatsRecorder {
 public:
  // The collector for `device`'s nodes (one per device name), valid while
  // the recorder lives.
  StepStatsCollector* ForDevice(const std::string& device);
  // Fills `out` with one DeviceStepStats per device, in the order
  // ForDevice first named them. Call once every node has been recorded.
  void Finalize(StepStats* out);

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<DeviceStepStatsCollector>> devices_;
};

// TensorFlow's timeline label of a node run: "name = Op(input, ^control)";
// for _Send and _Recv the tensor and the peer device instead of inputs.
std::string TimelineLabel(const Node& node);

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_RUNTIME_STEP_STATS_COLLECTOR_H_

// What the executor reports about each node it runs, when a step is traced
// (RunOptions.trace_level): an implementation collects it into
// RunMetadata.step_stats.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_STEP_STATS_H_
#define TENSORWEAVE_CORE_FRAMEWORK_STEP_STATS_H_

#include <chrono>
#include <cstdint>

namespace tensorweave {

class Node;
class OpKernelContext;

class StepStatsCollector {
 public:
  virtual ~StepStatsCollector() = default;
  // Called once per node run, on the thread that ran its kernel (for an
  // async kernel, the thread of its callback), after the kernel finished
  // and before its outputs are passed on: `ctx` still holds the outputs.
  // Times are microseconds since the Unix epoch. Must be thread-safe.
  virtual void RecordNode(const Node& node, int64_t start_us, int64_t end_us,
                          const OpKernelContext& ctx) = 0;
};

// Microseconds since the Unix epoch, the clock of RecordNode's times.
inline int64_t NowMicrosSinceEpoch() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_STEP_STATS_H_

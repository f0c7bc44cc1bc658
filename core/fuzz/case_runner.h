// Runs one kernel-fuzzer case through the real graph and session: the
// graph import (validation and shape functions), the executor and the
// kernels, exactly as a Python program's Session.run would.
#ifndef TENSORWEAVE_CORE_FUZZ_CASE_RUNNER_H_
#define TENSORWEAVE_CORE_FUZZ_CASE_RUNNER_H_

#include <string>

#include "core/framework/status.h"
#include "core/fuzz/fuzz_case.pb.h"

namespace tensorweave {
namespace fuzz {

struct CaseResult {
  enum Kind { kGraphError, kRunError, kOk };
  Kind kind = kGraphError;
  Status status;  // the graph or run error
  // A run error whose message names no node of the graph (issue 14: every
  // run-time error names its node).
  bool error_names_no_node = false;
  // Set when the kernel produced an output whose dtype or shape disagrees
  // with what the graph inferred for it (the shape function and the kernel
  // disagree): a description of the first such output.
  std::string inconsistency;
};

CaseResult RunCase(const FuzzCase& fuzz_case);

// Reads and writes cases in protobuf text format.
Status ReadCase(const std::string& path, FuzzCase* fuzz_case);
Status WriteCase(const std::string& path, const FuzzCase& fuzz_case);

}  // namespace fuzz
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FUZZ_CASE_RUNNER_H_

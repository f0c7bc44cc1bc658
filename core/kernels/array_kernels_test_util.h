// Running small graphs in the array kernels' tests.
#ifndef TENSORWEAVE_CORE_KERNELS_ARRAY_KERNELS_TEST_UTIL_H_
#define TENSORWEAVE_CORE_KERNELS_ARRAY_KERNELS_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/runtime/session.h"

namespace tensorweave {
namespace test {

// Fetches `fetches` from `graph` in a fresh session with `intra` intra-op
// threads.
inline Status RunFetches(const std::shared_ptr<Graph>& graph,
                         const std::vector<std::string>& fetches,
                         std::vector<Tensor>* out, int intra = 2) {
  SessionOptions options;
  options.inter_op_threads = 2;
  options.intra_op_threads = intra;
  Session session(graph, options);
  return session.Run({}, fetches, {}, out);
}

inline bool HasSubstr(const std::string& s, const std::string& sub) {
  return s.find(sub) != std::string::npos;
}

}  // namespace test
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_ARRAY_KERNELS_TEST_UTIL_H_

// Running one small graph through a Session, for kernel tests.
#ifndef TENSORWEAVE_CORE_KERNELS_KERNEL_TEST_UTIL_H_
#define TENSORWEAVE_CORE_KERNELS_KERNEL_TEST_UTIL_H_

#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/runtime/session.h"

namespace tensorweave {
namespace test {

inline bool HasSubstr(const std::string& s, const std::string& sub) {
  return s.find(sub) != std::string::npos;
}

// Builds `op`(in0, in1, ...) where each input is a Placeholder of unknown
// shape fed with `inputs[i]`, runs it and returns output 0.
inline Status RunOp(const std::string& op, const std::vector<Tensor>& inputs,
                    const Attrs& attrs, Tensor* out, int intra_op_threads = 1) {
  auto g = std::make_shared<Graph>();
  std::vector<std::string> names;
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = "in" + std::to_string(i);
    TW_RETURN_IF_ERROR(TryAddOp(g.get(), "Placeholder", name, {},
                                {{"dtype", AttrType(inputs[i].dtype())}}));
    names.push_back(name);
    feeds.push_back({name + ":0", inputs[i]});
  }
  TW_RETURN_IF_ERROR(TryAddOp(g.get(), op, "op", names, attrs));
  SessionOptions options;
  options.inter_op_threads = 1;
  options.intra_op_threads = intra_op_threads;
  Session session(g, options);
  std::vector<Tensor> outputs;
  TW_RETURN_IF_ERROR(session.Run(feeds, {"op:0"}, {}, &outputs));
  *out = outputs[0];
  return Status::OK();
}

}  // namespace test
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_KERNEL_TEST_UTIL_H_

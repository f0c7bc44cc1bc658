// Kernel test helper: runs one op on constant inputs in a session and
// returns its outputs (or the failing status, shape errors included).
#ifndef TENSORWEAVE_CORE_KERNELS_KERNEL_TEST_UTIL_H_
#define TENSORWEAVE_CORE_KERNELS_KERNEL_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/runtime/session.h"

namespace tensorweave {
namespace test {

// Inputs are Consts named in0, in1, ...; a list input is given by `lists`
// (e.g. {3} makes the first three inputs one list argument, for AddN).
inline Status RunOp(const std::string& op, const std::vector<Tensor>& inputs,
                    const Attrs& attrs, std::vector<Tensor>* outputs,
                    int num_outputs = 1, int intra_op_threads = 2,
                    bool as_list = false) {
  auto graph = std::make_shared<Graph>();
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i) {
    names.push_back("in" + std::to_string(i));
    AddConst(graph.get(), names.back(), inputs[i]);
  }
  Attrs all = attrs;
  if (as_list) all["N"] = AttrInt(static_cast<int64_t>(inputs.size()));
  TW_RETURN_IF_ERROR(TryAddOp(graph.get(), op, "op", names, all));
  SessionOptions options;
  options.inter_op_threads = 1;
  options.intra_op_threads = intra_op_threads;
  Session session(graph, options);
  std::vector<std::string> fetches;
  for (int i = 0; i < num_outputs; ++i) {
    fetches.push_back("op:" + std::to_string(i));
  }
  return session.Run({}, fetches, {}, outputs);
}

// The single output of `op`; records a failure if it does not run.
inline Tensor RunOne(const std::string& op, const std::vector<Tensor>& inputs,
                     const Attrs& attrs = {}, int intra_op_threads = 2) {
  std::vector<Tensor> out;
  Status s = RunOp(op, inputs, attrs, &out, 1, intra_op_threads);
  if (!s.ok()) {
    ADD_FAILURE() << op << ": " << s.ToString();
    return Tensor();
  }
  return out[0];
}

inline bool HasSubstr(const std::string& s, const std::string& sub) {
  return s.find(sub) != std::string::npos;
}

// Builds `op`(in0, in1, ...) where each input is a Placeholder of unknown
// shape fed with `inputs[i]` (so shape checks happen at run time), runs it
// and returns output 0.
inline Status RunOpOnPlaceholders(const std::string& op,
                                  const std::vector<Tensor>& inputs,
                                  const Attrs& attrs, Tensor* out,
                                  int intra_op_threads = 1) {
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

inline bool MessageHas(const Status& s, const std::string& fragment) {
  return s.message().find(fragment) != std::string::npos;
}

// A list(int) attr value (ksize, strides, dilations).
inline AttrValue AttrInts(const std::vector<int64_t>& values) {
  AttrValue v;
  for (int64_t i : values) v.mutable_list()->add_i(i);
  return v;
}

// `n` values uniform in [lo, hi) from a fixed seed.
template <typename T>
std::vector<T> RandomValues(int64_t n, uint32_t seed, double lo = -1,
                            double hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(dist(rng));
  return v;
}

// The failure a bad input must give: InvalidArgument, naming node "op" (the
// node RunOp and RunOpOnPlaceholders build) and containing `fragment`.
inline void ExpectInvalidArgument(const Status& s,
                                  const std::string& fragment) {
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_TRUE(MessageHas(s, fragment)) << s.ToString();
  EXPECT_TRUE(MessageHas(s, "node op") || MessageHas(s, "'op'"))
      << "the node is not named: " << s.ToString();
}

// Every element of `got` within tol * (1 + |want|) of `want`; `what` names
// the case in failure messages.
template <typename T>
void ExpectAllNear(const std::vector<T>& got, const std::vector<double>& want,
                   double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i])))
        << what << " at " << i;
  }
}

}  // namespace test
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_KERNEL_TEST_UTIL_H_

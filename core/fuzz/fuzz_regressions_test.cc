// The kernel fuzzer's findings as unit tests: each fix checked against the
// expected result, and every regression case replayed (none may crash; ops
// in pending_crashes.txt are skipped until their fix lands).
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/framework/tensor_size.h"
#include "core/fuzz/case_runner.h"
#include "core/runtime/session.h"

namespace tensorweave {
namespace {

using test::AddOp;
using test::AttrInt;
using test::AttrTensor;
using test::AttrType;
using test::TryAddOp;

// A list attr of 2^62 (AddN's N, Split's num_split) once aborted graph
// construction with std::length_error; now an error naming the node.
TEST(KernelFuzzerFindings, ArgListLengthIsBounded) {
  Graph graph;
  AddOp(&graph, "Const", "x", {},
        {{"dtype", AttrType(DT_FLOAT)},
         {"value", AttrTensor(Tensor::Scalar<float>(1))}});
  Status s =
      TryAddOp(&graph, "AddN", "sum", {"x"},
               {{"N", AttrInt(int64_t{1} << 62)}, {"T", AttrType(DT_FLOAT)}});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("attr 'N' = 4611686018427387904"),
            std::string::npos)
      << s;
  EXPECT_NE(s.message().find("sum"), std::string::npos) << s;
  s = TryAddOp(&graph, "Split", "split", {"x", "x"},
               {{"num_split", AttrInt(-5)}, {"T", AttrType(DT_FLOAT)}});
  EXPECT_FALSE(s.ok());
}

// GatherV2 of a scalar with an unknown axis asked for an unknown shape of
// rank -1 (std::length_error: abort at graph construction); TF requires
// params of rank >= 1.
TEST(KernelFuzzerFindings, GatherOfScalarParams) {
  Graph graph;
  AddOp(&graph, "Const", "params", {},
        {{"dtype", AttrType(DT_FLOAT)},
         {"value", AttrTensor(Tensor::Scalar<float>(1))}});
  AddOp(&graph, "Const", "indices", {},
        {{"dtype", AttrType(DT_INT64)},
         {"value", AttrTensor(Tensor::Scalar<int64_t>(2))}});
  AddOp(&graph, "Placeholder", "axis", {}, {{"dtype", AttrType(DT_INT64)}});
  Status s =
      TryAddOp(&graph, "GatherV2", "gather", {"params", "indices", "axis"},
               {{"Tparams", AttrType(DT_FLOAT)},
                {"Tindices", AttrType(DT_INT64)},
                {"Taxis", AttrType(DT_INT64)}});
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("at least rank 1"), std::string::npos) << s;
  EXPECT_NE(s.message().find("gather"), std::string::npos) << s;
}

// Fetching an uninitialized variable failed after the executor's nodes ran
// (the fetch's snapshot), with an error naming no node.
TEST(KernelFuzzerFindings, UninitializedFetchNamesTheNode) {
  auto graph = std::make_shared<Graph>();
  AttrValue shape;
  shape.mutable_shape();
  AddOp(graph.get(), "VariableV2", "weights", {},
        {{"dtype", AttrType(DT_FLOAT)},
         {"shape", shape},
         {"shared_name", test::AttrString("w_storage")}});
  Session session(graph, SessionOptions());
  std::vector<Tensor> out;
  Status s = session.Run({}, {"weights:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("[[node weights (op: VariableV2)]]"),
            std::string::npos)
      << s;
}

std::vector<Tensor> RunOne(const std::string& op,
                           const std::vector<Tensor>& inputs) {
  auto graph = std::make_shared<Graph>();
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i) {
    names.push_back("in" + std::to_string(i));
    AddOp(graph.get(), "Const", names.back(), {},
          {{"dtype", AttrType(inputs[i].dtype())},
           {"value", AttrTensor(inputs[i])}});
  }
  AddOp(graph.get(), op, "op", names, {{"T", AttrType(DT_FLOAT)}});
  Session session(graph, SessionOptions());
  std::vector<Tensor> out;
  Status s = session.Run({}, {"op:0"}, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

// BiasAddGrad of a gradient with zero channels divided by zero (SIGFPE);
// with channels but no rows it must give zeros (numpy: g.sum(axis=0)).
TEST(KernelFuzzerFindings, BiasOpsOfEmptyTensors) {
  auto out = RunOne("BiasAddGrad", {Tensor(DT_FLOAT, TensorShape({2, 1, 0}))});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), TensorShape({0}));
  out = RunOne("BiasAddGrad", {Tensor(DT_FLOAT, TensorShape({0, 3}))});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape(), TensorShape({3}));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(out[0].data<float>()[i], 0.0f);
  out = RunOne("BiasAdd", {Tensor(DT_FLOAT, TensorShape({2, 0})),
                           Tensor(DT_FLOAT, TensorShape({0}))});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), TensorShape({2, 0}));
}

// One op of the inputs' dtype (attr T, plus `attrs`) run on constants.
Tensor RunTyped(const std::string& op, const std::vector<Tensor>& inputs,
                test::Attrs attrs = {}) {
  auto graph = std::make_shared<Graph>();
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i) {
    names.push_back("in" + std::to_string(i));
    AddOp(graph.get(), "Const", names.back(), {},
          {{"dtype", AttrType(inputs[i].dtype())},
           {"value", AttrTensor(inputs[i])}});
  }
  attrs["T"] = AttrType(inputs[0].dtype());
  AddOp(graph.get(), op, "op", names, attrs);
  Session session(graph, SessionOptions());
  std::vector<Tensor> out;
  Status s = session.Run({}, {"op:0"}, {}, &out);
  EXPECT_TRUE(s.ok()) << op << ": " << s;
  return s.ok() ? out[0] : Tensor();
}

template <typename T>
Tensor Vec(std::vector<T> values) {
  Tensor t(DataTypeOf<T>::value,
           TensorShape({static_cast<int64_t>(values.size())}));
  std::copy(values.begin(), values.end(), t.data<T>());
  return t;
}

template <typename T>
T First(const Tensor& t) {
  return t.valid() && t.num_elements() > 0 ? t.data<T>()[0] : T(12345);
}

// Integer arithmetic overflowed in C++ (undefined behaviour, reported by
// UBSan in Add, Sub, Mul, SquaredDifference, Neg, Abs, Square, Sum, Prod,
// MatMul, BiasAdd, BiasAddGrad, AssignAdd/Sub, AddN); it wraps around now, and
// the expected values are TensorFlow 1's (tf.compat.v1 with the same inputs).
TEST(KernelFuzzerFindings, IntegerArithmeticWrapsAsTensorFlow) {
  const int32_t kMin32 = std::numeric_limits<int32_t>::min();
  const int32_t kMax32 = std::numeric_limits<int32_t>::max();
  const int64_t kMin64 = std::numeric_limits<int64_t>::min();
  const int64_t kMax64 = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(First<int32_t>(
                RunTyped("Add", {Vec<int32_t>({kMax32}), Vec<int32_t>({1})})),
            kMin32);
  EXPECT_EQ(First<int32_t>(RunTyped("Neg", {Vec<int32_t>({kMin32})})), kMin32);
  EXPECT_EQ(First<int32_t>(RunTyped("Abs", {Vec<int32_t>({kMin32})})), kMin32);
  EXPECT_EQ(First<int32_t>(RunTyped("Square", {Vec<int32_t>({kMax32})})), 1);
  EXPECT_EQ(First<int64_t>(
                RunTyped("Sub", {Vec<int64_t>({kMin64}), Vec<int64_t>({1})})),
            kMax64);
  EXPECT_EQ(First<int32_t>(
                RunTyped("Mul", {Vec<int32_t>({4}), Vec<int32_t>({kMin32})})),
            0);
  EXPECT_EQ(
      First<int32_t>(RunTyped("SquaredDifference",
                              {Vec<int32_t>({kMin32}), Vec<int32_t>({2})})),
      4);
  Tensor axis = Vec<int32_t>({0});
  auto reduce = [&](const std::string& op, const Tensor& x) {
    auto graph = std::make_shared<Graph>();
    AddOp(graph.get(), "Const", "x", {},
          {{"dtype", AttrType(x.dtype())}, {"value", AttrTensor(x)}});
    AddOp(graph.get(), "Const", "axis", {},
          {{"dtype", AttrType(DT_INT32)}, {"value", AttrTensor(axis)}});
    AddOp(graph.get(), op, "op", {"x", "axis"},
          {{"T", AttrType(x.dtype())}, {"Tidx", AttrType(DT_INT32)}});
    Session session(graph, SessionOptions());
    std::vector<Tensor> out;
    Status s = session.Run({}, {"op:0"}, {}, &out);
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() ? out[0] : Tensor();
  };
  EXPECT_EQ(First<int64_t>(reduce("Sum", Vec<int64_t>({kMax64, 1}))), kMin64);
  EXPECT_EQ(First<int32_t>(reduce("Prod", Vec<int32_t>({-2, kMin32}))), 0);
  Tensor a(DT_INT32, TensorShape({1, 1})), b(DT_INT32, TensorShape({1, 1}));
  a.data<int32_t>()[0] = 2;
  b.data<int32_t>()[0] = kMin32;
  EXPECT_EQ(First<int32_t>(RunTyped("MatMul", {a, b})), 0);
  Tensor value(DT_INT64, TensorShape({1, 1}));
  value.data<int64_t>()[0] = -1;
  EXPECT_EQ(
      First<int64_t>(RunTyped("BiasAdd", {value, Vec<int64_t>({kMin64})})),
      kMax64);
  EXPECT_EQ(First<int64_t>(RunTyped("AddN",
                                    {Vec<int64_t>({kMax64}), Vec<int64_t>({3})},
                                    {{"N", AttrInt(2)}})),
            kMin64 + 2);
  Tensor grad(DT_INT64, TensorShape({2, 1}));
  grad.data<int64_t>()[0] = kMax64;
  grad.data<int64_t>()[1] = 4;
  EXPECT_EQ(First<int64_t>(RunTyped("BiasAddGrad", {grad})), kMin64 + 3);
}

std::set<std::string> PendingOps() {
  std::set<std::string> ops;
  std::ifstream in("core/fuzz/pending_crashes.txt");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line.substr(0, line.find('#')));
    std::string op;
    if (fields >> op) ops.insert(op);
  }
  return ops;
}

TEST(KernelFuzzerFindings, RegressionCasesReplay) {
  // Under the kernel fuzzer's tensor limit, where the cases were found (a
  // case asking for gigabytes must fail, not take this machine's memory).
  SetMaxTensorBytes(int64_t{64} << 20);
  const std::set<std::string> pending = PendingOps();
  int replayed = 0;
  DIR* dir = opendir("core/fuzz/regressions");
  ASSERT_NE(dir, nullptr);
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name.size() < 7 || name.substr(name.size() - 6) != ".pbtxt") continue;
    fuzz::FuzzCase c;
    Status s = fuzz::ReadCase("core/fuzz/regressions/" + name, &c);
    ASSERT_TRUE(s.ok()) << s;
    if (pending.count(c.op())) continue;
    fuzz::RunCase(c);  // must return (any status), not crash
    ++replayed;
  }
  closedir(dir);
  EXPECT_GT(replayed, 0);
}

}  // namespace
}  // namespace tensorweave

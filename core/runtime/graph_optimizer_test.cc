#include "core/runtime/graph_optimizer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/runtime/session.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::AddPlaceholder;
using test::AddVariable;
using test::AttrBool;
using test::AttrInt;
using test::AttrType;
using test::MakeTensor;
using test::ToVector;

AttrValue AttrInts(const std::vector<int64_t>& values) {
  AttrValue v;
  for (int64_t i : values) v.mutable_list()->add_i(i);
  return v;
}

GraphOptimizerOptions AllOff() {
  GraphOptimizerOptions o;
  o.constant_folding = o.arithmetic_optimization =
      o.common_subexpression_elimination = o.dependency_optimization =
          o.remapping = o.model_pruning = false;
  return o;
}

// Optimizes the step that fetches `fetches` (node names) given `feeds`.
OptimizedGraph Optimize(const Graph& g, const std::vector<std::string>& fetches,
                        const std::vector<std::string>& feeds = {},
                        const GraphOptimizerOptions& options = {}) {
  ExecutorSpec spec;
  for (const auto& name : feeds) {
    Endpoint e;
    EXPECT_TRUE(g.ParseTensorName(name, &e).ok()) << name;
    spec.feeds.push_back(e);
  }
  for (const auto& name : fetches) {
    Endpoint e;
    EXPECT_TRUE(g.ParseTensorName(name, &e).ok()) << name;
    spec.fetches.push_back(e);
  }
  OptimizedGraph out;
  Status s = OptimizeGraph(g, spec, options, "CPU", nullptr, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

std::string Op(const OptimizedGraph& g, const std::string& name) {
  const Node* node = g.graph->FindNode(name);
  return node == nullptr ? "<absent>" : node->type_string();
}

int CountOps(const OptimizedGraph& g, const std::string& op) {
  int n = 0;
  for (int id = 0; id < g.graph->num_nodes(); ++id) {
    n += g.graph->node(id)->type_string() == op;
  }
  return n;
}

std::vector<std::string> ControlInputs(const OptimizedGraph& g,
                                       const std::string& name) {
  std::vector<std::string> names;
  for (const Node* c : g.graph->FindNode(name)->control_inputs()) {
    names.push_back(c->name());
  }
  return names;
}

// Runs the same step with the optimizer on and off (one session each) and
// returns both results.
std::pair<std::vector<Tensor>, std::vector<Tensor>> RunBoth(
    std::shared_ptr<Graph> g,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets = {}) {
  std::vector<Tensor> on, off;
  SessionOptions options;
  Session optimized(g, options);
  TW_EXPECT_OK(optimized.Run(feeds, fetches, targets, &on));
  options.graph_optimizer = AllOff();
  Session plain(g, options);
  TW_EXPECT_OK(plain.Run(feeds, fetches, targets, &off));
  return {on, off};
}

TEST(GraphOptimizerTest, FoldsConstantsAndKeepsTheirControlInputs) {
  Graph g;
  AddVariable(&g, "v", DT_FLOAT, PartialShape({}));
  AddConst(&g, "a", Tensor::Scalar<float>(2));
  AddOp(&g, "Assign", "init", {"v", "a"});
  AddConst(&g, "b", Tensor::Scalar<float>(3));
  AddOp(&g, "Add", "c", {"a", "b", "^init"});
  AddOp(&g, "Neg", "d", {"c"});
  AddPlaceholder(&g, "p", DT_FLOAT, PartialShape({}));
  AddOp(&g, "Mul", "e", {"d", "p"});
  OptimizedGraph out = Optimize(g, {"e:0"}, {"p:0"});
  EXPECT_EQ(Op(out, "d"), "Const");
  EXPECT_EQ(out.graph->FindNode("d")->constant_value()->data<float>()[0], -5);
  EXPECT_EQ(Op(out, "c"), "<absent>");  // folded into d, then pruned
  EXPECT_EQ(Op(out, "e"), "Mul");       // reads a fed tensor
  // d waited for init through c: the folded d still does.
  EXPECT_EQ(ControlInputs(out, "d"), std::vector<std::string>{"init"});
  EXPECT_GE(out.counts["constant_folding"], 2);

  GraphOptimizerOptions off;
  off.constant_folding = false;
  EXPECT_EQ(Op(Optimize(g, {"e:0"}, {"p:0"}, off), "d"), "Neg");
}

TEST(GraphOptimizerTest, NeverFoldsStatefulFedOrFailingNodes) {
  Graph g;
  AddConst(&g, "shape", Tensor::Vector<int32_t>({2}));
  AddOp(&g, "RandomUniform", "r", {"shape"},
        {{"dtype", AttrType(DT_FLOAT)},
         {"seed", AttrInt(1)},
         {"seed2", AttrInt(2)}});
  AddConst(&g, "two", Tensor::Scalar<float>(2));
  AddOp(&g, "Neg", "neg_two", {"two"});
  AddConst(&g, "nan", Tensor::Scalar<float>(NAN));
  AddOp(&g, "CheckNumerics", "checked", {"nan"},
        {{"message", test::AttrString("bad")}});
  OptimizedGraph out = Optimize(g, {"r:0", "neg_two:0"}, {"two:0"});
  EXPECT_EQ(Op(out, "r"), "RandomUniform");
  EXPECT_EQ(Op(out, "neg_two"), "Neg");  // its input is fed
  // A kernel that fails stays, so that the step reports the error.
  OptimizedGraph failing = Optimize(g, {"checked:0"});
  EXPECT_EQ(Op(failing, "checked"), "CheckNumerics");
}

TEST(GraphOptimizerTest, MaterializesStaticShapes) {
  Graph g;
  AddPlaceholder(&g, "x", DT_FLOAT, PartialShape({2, 3}));
  AddPlaceholder(&g, "y", DT_FLOAT, PartialShape({-1, 3}));
  AddOp(&g, "Shape", "sx", {"x"}, {{"out_type", AttrType(DT_INT32)}});
  AddOp(&g, "Shape", "sy", {"y"}, {{"out_type", AttrType(DT_INT32)}});
  OptimizedGraph out = Optimize(g, {"sx:0", "sy:0"}, {"x:0", "y:0"});
  EXPECT_EQ(Op(out, "sx"), "Const");
  EXPECT_EQ(ToVector<int32_t>(*out.graph->FindNode("sx")->constant_value()),
            (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(Op(out, "sy"), "Shape");  // batch dim unknown
  // A fed node never becomes a control input (it would then run).
  EXPECT_TRUE(ControlInputs(out, "sx").empty());
}

TEST(GraphOptimizerTest, MergesCommonSubexpressionsButNotStatefulOps) {
  Graph g;
  AddPlaceholder(&g, "p", DT_FLOAT, PartialShape({2}));
  AddOp(&g, "Neg", "n1", {"p"});
  AddOp(&g, "Neg", "n2", {"p"});
  AddOp(&g, "Add", "sum", {"n1", "n2"});
  AddConst(&g, "shape", Tensor::Vector<int32_t>({2}));
  AddOp(&g, "RandomUniform", "r1", {"shape"},
        {{"dtype", AttrType(DT_FLOAT)},
         {"seed", AttrInt(0)},
         {"seed2", AttrInt(0)}});
  AddOp(&g, "RandomUniform", "r2", {"shape"},
        {{"dtype", AttrType(DT_FLOAT)},
         {"seed", AttrInt(0)},
         {"seed2", AttrInt(0)}});
  AddOp(&g, "Sub", "diff", {"r1", "r2"});
  OptimizedGraph out = Optimize(g, {"sum:0", "diff:0"}, {"p:0"});
  EXPECT_EQ(CountOps(out, "Neg"), 1);
  EXPECT_EQ(CountOps(out, "RandomUniform"), 2);
  EXPECT_EQ(out.counts["common_subexpression_elimination"], 1);
  // Fetched duplicates both stay (each fetch keeps its node).
  OptimizedGraph kept = Optimize(g, {"n1:0", "n2:0"}, {"p:0"});
  EXPECT_EQ(CountOps(kept, "Neg"), 2);
}

TEST(GraphOptimizerTest, RemovesIdentityChainsAndMovesControlInputs) {
  Graph g;
  AddPlaceholder(&g, "p", DT_FLOAT, PartialShape({2}));
  AddVariable(&g, "v", DT_FLOAT, PartialShape({2}));
  AddOp(&g, "Assign", "before", {"v", "p"});
  AddOp(&g, "Identity", "i1", {"p", "^before"});
  AddOp(&g, "Identity", "i2", {"i1"});
  AddOp(&g, "Neg", "out", {"i2"});
  AddOp(&g, "NoOp", "after", {"^i2"});
  OptimizedGraph out = Optimize(g, {"out:0"}, {"p:0"});
  EXPECT_EQ(CountOps(out, "Identity"), 0);
  EXPECT_EQ(out.graph->FindNode("out")->input(0).node->name(), "p");
  // i1 waited for `before`: its consumer now does.
  EXPECT_EQ(ControlInputs(out, "out"), std::vector<std::string>{"before"});
  // A NoOp that waits for nothing is dropped; one waiting for `before` is
  // bypassed: `after`'s waiters wait for `before`.
  OptimizedGraph noop = Optimize(g, {"out:0"}, {"p:0"});
  EXPECT_EQ(Op(noop, "after"), "<absent>");
  // An Identity that reads a variable (a snapshot) is never removed.
  Graph v;
  AddVariable(&v, "var", DT_FLOAT, PartialShape({}));
  AddOp(&v, "Identity", "read", {"var"});
  AddOp(&v, "Neg", "neg", {"read"});
  EXPECT_EQ(Op(Optimize(v, {"neg:0"}), "read"), "Identity");
}

TEST(GraphOptimizerTest, SimplifiesOnlyWhereShapesProveIt) {
  Graph g;
  AddPlaceholder(&g, "x", DT_FLOAT, PartialShape({-1, 3}));
  AddPlaceholder(&g, "s", DT_FLOAT, PartialShape({1}));
  AddConst(&g, "one", Tensor::Scalar<float>(1));
  AddConst(&g, "ones3", MakeTensor<float>(TensorShape({3}), {1, 1, 1}));
  AddConst(&g, "zero", Tensor::Scalar<float>(0));
  AddOp(&g, "Mul", "x1", {"x", "one"});
  AddOp(&g, "Mul", "ones_x", {"ones3", "x"});
  AddOp(&g, "Add", "x0", {"x1", "zero"});
  AddOp(&g, "Neg", "out", {"x0"});
  AddOp(&g, "Mul", "broadcast", {"s", "ones3"});  // [1] * [3] -> [3]
  AddOp(&g, "Sub", "zero_minus", {"zero", "s"});  // not x - 0
  OptimizedGraph out = Optimize(
      g, {"out:0", "ones_x:0", "broadcast:0", "zero_minus:0"}, {"x:0", "s:0"});
  EXPECT_EQ(out.graph->FindNode("out")->input(0).node->name(), "x");
  EXPECT_EQ(Op(out, "ones_x"), "Identity");  // fetched: kept, as Identity
  EXPECT_EQ(Op(out, "broadcast"), "Mul");
  EXPECT_EQ(Op(out, "zero_minus"), "Sub");

  Graph t;
  AddPlaceholder(&t, "x", DT_FLOAT, PartialShape({2, 3, 4}));
  AddConst(&t, "p", Tensor::Vector<int32_t>({1, 2, 0}));
  AddConst(&t, "q", Tensor::Vector<int32_t>({2, 0, 1}));
  AddConst(&t, "q_wrong", Tensor::Vector<int32_t>({1, 2, 0}));
  AddOp(&t, "Transpose", "t1", {"x", "p"});
  AddOp(&t, "Transpose", "t2", {"t1", "q"});
  AddOp(&t, "Transpose", "t3", {"t1", "q_wrong"});
  AddOp(&t, "Neg", "back", {"t2"});
  AddConst(&t, "s1", Tensor::Vector<int32_t>({6, 4}));
  AddConst(&t, "s2", Tensor::Vector<int32_t>({4, 6}));
  AddOp(&t, "Reshape", "r1", {"x", "s1"});
  AddOp(&t, "Reshape", "r2", {"r1", "s2"});
  OptimizedGraph tt = Optimize(t, {"back:0", "t3:0", "r2:0"}, {"x:0"});
  EXPECT_EQ(tt.graph->FindNode("back")->input(0).node->name(), "x");
  EXPECT_EQ(tt.graph->FindNode("t3")->input(0).node->name(), "t1");
  EXPECT_EQ(tt.graph->FindNode("r2")->input(0).node->name(), "x");
  EXPECT_EQ(Op(tt, "r1"), "<absent>");
}

TEST(GraphOptimizerTest, FusesMatMulBiasAddReluOnlyWhenLegal) {
  auto g = std::make_shared<Graph>();
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  std::vector<float> xs(5 * 4), ws(4 * 3);
  for (float& v : xs) v = normal(rng);
  for (float& v : ws) v = normal(rng);
  AddPlaceholder(g.get(), "x", DT_FLOAT, PartialShape({-1, 4}));
  AddConst(g.get(), "w", MakeTensor<float>(TensorShape({4, 3}), ws));
  AddConst(g.get(), "b", MakeTensor<float>(TensorShape({3}), {0.5, -1, 2}));
  AddOp(g.get(), "MatMul", "mm", {"x", "w"});
  AddOp(g.get(), "BiasAdd", "ba", {"mm", "b"});
  AddOp(g.get(), "Relu", "relu", {"ba"});
  AddOp(g.get(), "Tanh", "tanh_of_ba", {"ba"});
  OptimizedGraph fused = Optimize(*g, {"relu:0"}, {"x:0"});
  EXPECT_EQ(Op(fused, "relu"), "_FusedMatMul");
  EXPECT_EQ(CountOps(fused, "MatMul"), 0);
  EXPECT_EQ(CountOps(fused, "BiasAdd"), 0);
  std::vector<std::string> ops;
  TW_EXPECT_OK(
      GetAttr(fused.graph->FindNode("relu")->attrs(), "fused_ops", &ops));
  EXPECT_EQ(ops, (std::vector<std::string>{"BiasAdd", "Relu"}));
  // BiasAdd's output read twice: only MatMul + BiasAdd fuse.
  OptimizedGraph partial = Optimize(*g, {"relu:0", "tanh_of_ba:0"}, {"x:0"});
  EXPECT_EQ(Op(partial, "ba"), "_FusedMatMul");
  EXPECT_EQ(Op(partial, "relu"), "Relu");
  // BiasAdd fetched: the same.
  EXPECT_EQ(Op(Optimize(*g, {"relu:0", "ba:0"}, {"x:0"}), "relu"), "Relu");
  // MatMul fetched: nothing fuses.
  EXPECT_EQ(CountOps(Optimize(*g, {"relu:0", "mm:0"}, {"x:0"}), "MatMul"), 1);

  auto [on, off] =
      RunBoth(g, {{"x:0", MakeTensor<float>(TensorShape({5, 4}), xs)}},
              {"relu:0", "tanh_of_ba:0"});
  for (int f = 0; f < 2; ++f) {
    std::vector<float> a = ToVector<float>(on[f]), b = ToVector<float>(off[f]);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5);
  }
}

TEST(GraphOptimizerTest, FusedConvMatchesConvBiasAddActivations) {
  for (const char* activation : {"Relu", "Relu6", "Elu", "Tanh", "Sigmoid"}) {
    auto g = std::make_shared<Graph>();
    std::mt19937 rng(5);
    std::normal_distribution<float> normal;
    std::vector<float> xs(2 * 6 * 6 * 3), fs(3 * 3 * 3 * 4);
    for (float& v : xs) v = 3 * normal(rng);
    for (float& v : fs) v = normal(rng);
    AddPlaceholder(g.get(), "x", DT_FLOAT, PartialShape({2, 6, 6, 3}));
    AddConst(g.get(), "f", MakeTensor<float>(TensorShape({3, 3, 3, 4}), fs));
    AddConst(g.get(), "b", MakeTensor<float>(TensorShape({4}), {1, -2, 0, 3}));
    test::Attrs conv = {{"strides", AttrInts({1, 1, 1, 1})},
                        {"padding", test::AttrString("SAME")}};
    AddOp(g.get(), "Conv2D", "conv", {"x", "f"}, conv);
    AddOp(g.get(), "BiasAdd", "ba", {"conv", "b"});
    AddOp(g.get(), activation, "act", {"ba"});
    EXPECT_EQ(Op(Optimize(*g, {"act:0"}, {"x:0"}), "act"), "_FusedConv2D");
    auto [on, off] =
        RunBoth(g, {{"x:0", MakeTensor<float>(TensorShape({2, 6, 6, 3}), xs)}},
                {"act:0"});
    std::vector<float> a = ToVector<float>(on[0]), b = ToVector<float>(off[0]);
    ASSERT_EQ(a.size(), b.size()) << activation;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_NEAR(a[i], b[i], 1e-5) << activation << " at " << i;
    }
  }
}

TEST(GraphOptimizerTest, LeavesControlFlowAndItsConsumersAlone) {
  Graph g;
  AddPlaceholder(&g, "pred", DT_BOOL, PartialShape({}));
  AddConst(&g, "c", Tensor::Scalar<float>(2));
  AddOp(&g, "Switch", "sw", {"c", "pred"});
  AddOp(&g, "Neg", "neg", {"sw:1"});
  AddOp(&g, "Identity", "id", {"neg"});
  AddConst(&g, "d", Tensor::Scalar<float>(4));
  AddOp(&g, "Neg", "neg_d", {"d", "^sw"});  // control input from control flow
  AddOp(&g, "Merge", "m", {"sw:0", "id"});
  ExecutorSpec spec;
  Endpoint e;
  TW_ASSERT_OK(g.ParseTensorName("m:0", &e));
  spec.fetches.push_back(e);
  TW_ASSERT_OK(g.ParseTensorName("neg_d:0", &e));
  spec.fetches.push_back(e);
  TW_ASSERT_OK(g.ParseTensorName("pred:0", &e));
  spec.feeds.push_back(e);
  OptimizedGraph out;
  TW_ASSERT_OK(OptimizeGraph(g, spec, {}, "CPU", nullptr, &out));
  EXPECT_EQ(Op(out, "neg"), "Neg");
  EXPECT_EQ(Op(out, "id"), "Identity");
  EXPECT_EQ(Op(out, "neg_d"), "Neg");
  EXPECT_EQ(Op(out, "sw"), "Switch");
}

TEST(GraphOptimizerTest, SessionMatchesUnoptimizedOnAnMlpStep) {
  // A two-layer MLP with a fetched hidden layer and a target that updates a
  // variable: the results and the variable's value agree, step after step.
  auto g = std::make_shared<Graph>();
  AddPlaceholder(g.get(), "x", DT_FLOAT, PartialShape({-1, 3}));
  AddConst(g.get(), "w1",
           MakeTensor<float>(TensorShape({3, 2}), {1, -1, 0.5, 2, -3, 1}));
  AddConst(g.get(), "b1", MakeTensor<float>(TensorShape({2}), {0.1, -0.2}));
  AddConst(g.get(), "one", Tensor::Scalar<float>(1));
  AddOp(g.get(), "Mul", "w1_scaled", {"w1", "one"});
  AddOp(g.get(), "MatMul", "h_mm", {"x", "w1_scaled"});
  AddOp(g.get(), "BiasAdd", "h_ba", {"h_mm", "b1"});
  AddOp(g.get(), "Relu", "h", {"h_ba"});
  AddOp(g.get(), "Identity", "h_id", {"h"});
  AddConst(g.get(), "axis", Tensor::Vector<int32_t>({0, 1}));
  AddOp(g.get(), "Sum", "loss", {"h_id", "axis"});
  AddVariable(g.get(), "acc", DT_FLOAT, PartialShape({}));
  AddConst(g.get(), "zero", Tensor::Scalar<float>(0));
  AddOp(g.get(), "Assign", "init", {"acc", "zero"});
  AddOp(g.get(), "AssignAdd", "update", {"acc", "loss"});
  Tensor x = MakeTensor<float>(TensorShape({2, 3}), {1, 2, 3, -1, 0.5, 2});
  SessionOptions options;
  Session on(g, options);
  options.graph_optimizer = AllOff();
  Session off(g, options);
  std::vector<Tensor> a, b;
  TW_ASSERT_OK(on.Run({}, {}, {"init"}, &a));
  TW_ASSERT_OK(off.Run({}, {}, {"init"}, &b));
  for (int step = 0; step < 3; ++step) {
    TW_ASSERT_OK(on.Run({{"x:0", x}}, {"h:0", "update:0"}, {}, &a));
    TW_ASSERT_OK(off.Run({{"x:0", x}}, {"h:0", "update:0"}, {}, &b));
    EXPECT_EQ(ToVector<float>(a[0]), ToVector<float>(b[0]));
    EXPECT_EQ(ToVector<float>(a[1]), ToVector<float>(b[1]));
  }
  // The optimized step's graph: fused, no Identity, no Mul by one.
  RunOptions run_options;
  run_options.output_partition_graphs = true;
  RunMetadata metadata;
  CallableSpec spec{{"x:0"}, {"loss:0"}, {}};
  int64_t handle;
  TW_ASSERT_OK(on.MakeCallable(spec, &handle));
  TW_ASSERT_OK(on.RunCallable(handle, {x}, run_options, &a, &metadata));
  ASSERT_EQ(metadata.partition_graphs.size(), 1u);
  std::map<std::string, int> ops;
  for (const NodeDef& node : metadata.partition_graphs[0].node()) {
    ++ops[node.op()];
  }
  EXPECT_EQ(ops["_FusedMatMul"], 1);
  EXPECT_EQ(ops["Identity"], 0);
  EXPECT_EQ(ops["Mul"], 0);
  EXPECT_EQ(ops["MatMul"], 0);
}

}  // namespace
}  // namespace tensorweave

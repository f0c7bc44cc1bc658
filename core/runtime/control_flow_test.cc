// The executor's control flow: conditionals (Switch/Merge, dead tensors),
// while loops (Enter/Merge/Switch/Exit/NextIteration frames), nested and
// dead loops, parallel iterations, and the structural errors.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/framework/op_kernel.h"
#include "core/runtime/executor.h"
#include "core/runtime/executor_test_util.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::AddPlaceholder;
using test::AttrBool;
using test::AttrInt;
using test::AttrString;
using test::ExecutorHarness;
using test::ToVector;

bool HasSubstr(const std::string& s, const std::string& sub) {
  return s.find(sub) != std::string::npos;
}

Tensor Int(int32_t v) { return Tensor::Scalar<int32_t>(v); }
Tensor Float(float v) { return Tensor::Scalar<float>(v); }
Tensor Bool(bool v) { return Tensor::Scalar<bool>(v); }

// Builds `while (i < limit) { i += step; acc += i }` in frame `frame` from
// the int32 tensors `i0`, `acc0` (names in the enclosing frame), the
// constant inputs `limit` and `step` (entered as loop constants); returns the
// Exit of acc. `prefix` names the nodes.
std::string CountingLoop(Graph* g, const std::string& prefix,
                         const std::string& frame, const std::string& i0,
                         const std::string& acc0, const std::string& limit,
                         const std::string& step, int parallel = 10,
                         bool step_in_body = false) {
  auto enter = [&](const std::string& name, const std::string& in,
                   bool constant) {
    AddOp(g, "Enter", prefix + name, {in},
          {{"frame_name", AttrString(frame)},
           {"is_constant", AttrBool(constant)},
           {"parallel_iterations", AttrInt(parallel)}});
    return prefix + name;
  };
  std::string ei = enter("enter_i", i0, false);
  std::string ea = enter("enter_acc", acc0, false);
  std::string el = enter("enter_limit", limit, true);
  // The step is a loop constant, or a Const of the body that runs after
  // the iteration's pivot (as TensorFlow builds a body's constants).
  std::string es =
      step_in_body ? prefix + "step_c" : enter("enter_step", step, true);
  Node* mi = AddOp(g, "Merge", prefix + "merge_i", {ei, ei});
  Node* ma = AddOp(g, "Merge", prefix + "merge_acc", {ea, ea});
  AddOp(g, "Less", prefix + "less", {prefix + "merge_i", el});
  AddOp(g, "LoopCond", prefix + "cond", {prefix + "less"});
  AddOp(g, "Switch", prefix + "switch_i",
        {prefix + "merge_i", prefix + "cond"});
  AddOp(g, "Switch", prefix + "switch_acc",
        {prefix + "merge_acc", prefix + "cond"});
  AddOp(g, "Identity", prefix + "body_i", {prefix + "switch_i:1"});
  AddOp(g, "Identity", prefix + "body_acc", {prefix + "switch_acc:1"});
  if (step_in_body) {
    NodeDef def = test::MakeNodeDef("Const", es, {"^" + prefix + "body_i"},
                                    {{"value", test::AttrTensor(Int(1))},
                                     {"dtype", test::AttrType(DT_INT32)}});
    Node* node = nullptr;
    EXPECT_TRUE(g->AddNode(def, &node).ok());
  }
  AddOp(g, "Add", prefix + "next_i_value", {prefix + "body_i", es});
  AddOp(g, "Add", prefix + "next_acc_value",
        {prefix + "body_acc", prefix + "next_i_value"});
  Node* ni =
      AddOp(g, "NextIteration", prefix + "next_i", {prefix + "next_i_value"});
  Node* na = AddOp(g, "NextIteration", prefix + "next_acc",
                   {prefix + "next_acc_value"});
  EXPECT_TRUE(g->UpdateInput(mi, 1, Endpoint{ni, 0}).ok());
  EXPECT_TRUE(g->UpdateInput(ma, 1, Endpoint{na, 0}).ok());
  AddOp(g, "Exit", prefix + "exit_i", {prefix + "switch_i:0"});
  AddOp(g, "Exit", prefix + "exit_acc", {prefix + "switch_acc:0"});
  return prefix + "exit_acc";
}

TEST(ControlFlowTest, CondRunsOnlyTheTakenBranch) {
  Graph g;
  AddPlaceholder(&g, "x", DT_FLOAT);
  AddPlaceholder(&g, "p", DT_BOOL);
  AddConst(&g, "ten", Float(10));
  AddOp(&g, "Switch", "sw", {"x", "p"});
  AddOp(&g, "Mul", "false_branch", {"sw:0", "ten"});
  AddOp(&g, "Add", "true_branch", {"sw:1", "ten"});
  AddOp(&g, "Merge", "merge", {"false_branch", "true_branch"});
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  TW_ASSERT_OK(h.Create({"x", "p"}, {"merge:0", "merge:1"}, {}, &ex));
  EXPECT_TRUE(ex->has_control_flow());
  std::vector<Tensor> out;
  TW_ASSERT_OK(h.Run(*ex, {Float(2), Bool(true)}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), std::vector<float>{12});
  EXPECT_EQ(ToVector<int32_t>(out[1]), std::vector<int32_t>{1});
  TW_ASSERT_OK(h.Run(*ex, {Float(2), Bool(false)}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), std::vector<float>{20});
  EXPECT_EQ(ToVector<int32_t>(out[1]), std::vector<int32_t>{0});
}

TEST(ControlFlowTest, UntakenBranchHasNoSideEffect) {
  // An Assert of a false value on the true side: the step fails exactly
  // when that side is taken.
  Graph g;
  AddPlaceholder(&g, "p", DT_BOOL);
  AddConst(&g, "f", Bool(false));
  AddOp(&g, "Switch", "sw", {"f", "p"});
  AttrValue types;
  types.mutable_list()->add_type(static_cast<::tensorweave::DataType>(DT_BOOL));
  AddOp(&g, "Assert", "check", {"sw:1", "sw:1"}, {{"T", types}});
  AddOp(&g, "Identity", "true_side", {"sw:1", "^check"});
  AddOp(&g, "Identity", "false_side", {"sw:0"});
  AddOp(&g, "Merge", "merge", {"false_side", "true_side"});
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  TW_ASSERT_OK(h.Create({"p"}, {"merge"}, {}, &ex));
  std::vector<Tensor> out;
  TW_EXPECT_OK(h.Run(*ex, {Bool(false)}, &out));
  Status s = h.Run(*ex, {Bool(true)}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "check")) << s;
}

TEST(ControlFlowTest, FetchingADeadTensorIsAnError) {
  Graph g;
  AddPlaceholder(&g, "x", DT_FLOAT);
  AddPlaceholder(&g, "p", DT_BOOL);
  AddOp(&g, "Switch", "sw", {"x", "p"});
  AddOp(&g, "Identity", "t", {"sw:1"});
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  TW_ASSERT_OK(h.Create({"x", "p"}, {"t"}, {}, &ex));
  std::vector<Tensor> out;
  Status s = h.Run(*ex, {Float(1), Bool(false)}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "dead")) << s;
  TW_EXPECT_OK(h.Run(*ex, {Float(1), Bool(true)}, &out));
}

TEST(ControlFlowTest, WhileLoopCounts) {
  for (int parallel : {1, 2, 10}) {
    Graph g;
    AddConst(&g, "zero", Int(0));
    AddConst(&g, "one", Int(1));
    AddPlaceholder(&g, "limit", DT_INT32);
    std::string exit =
        CountingLoop(&g, "w/", "w", "zero", "zero", "limit", "one", parallel);
    ExecutorHarness h(&g);
    std::unique_ptr<Executor> ex;
    TW_ASSERT_OK(h.Create({"limit"}, {exit, "w/exit_i"}, {}, &ex));
    for (int limit : {0, 1, 10, 1000}) {
      std::vector<Tensor> out;
      TW_ASSERT_OK(h.Run(*ex, {Int(limit)}, &out));
      EXPECT_EQ(ToVector<int32_t>(out[0])[0], limit * (limit + 1) / 2)
          << "limit " << limit << " parallel " << parallel;
      EXPECT_EQ(ToVector<int32_t>(out[1])[0], limit);
    }
  }
}

TEST(ControlFlowTest, BodyConstantsRunPerIteration) {
  // The executor passes a body constant on when its control edge arrives;
  // in the last iteration that edge is dead, and so is the constant.
  for (int parallel : {1, 10}) {
    Graph g;
    AddConst(&g, "zero", Int(0));
    AddPlaceholder(&g, "limit", DT_INT32);
    std::string exit = CountingLoop(&g, "w/", "w", "zero", "zero", "limit", "",
                                    parallel, /*step_in_body=*/true);
    ExecutorHarness h(&g);
    std::unique_ptr<Executor> ex;
    TW_ASSERT_OK(h.Create({"limit"}, {exit, "w/exit_i"}, {}, &ex));
    for (int limit : {0, 1, 7, 500}) {
      std::vector<Tensor> out;
      TW_ASSERT_OK(h.Run(*ex, {Int(limit)}, &out));
      EXPECT_EQ(ToVector<int32_t>(out[0])[0], limit * (limit + 1) / 2)
          << "limit " << limit << " parallel " << parallel;
      EXPECT_EQ(ToVector<int32_t>(out[1])[0], limit);
    }
  }
}

TEST(ControlFlowTest, ConstantUnderADeadControlEdgeIsDead) {
  // A Const that only runs after the true side: an Assert of it fails
  // exactly when that side is taken, and its value reaches the Merge then.
  Graph g;
  AddPlaceholder(&g, "p", DT_BOOL);
  AddPlaceholder(&g, "x", DT_BOOL);
  AddOp(&g, "Switch", "sw", {"x", "p"});
  AddOp(&g, "Identity", "pivot_t", {"sw:1"});
  NodeDef def = test::MakeNodeDef("Const", "c", {"^pivot_t"},
                                  {{"value", test::AttrTensor(Bool(false))},
                                   {"dtype", test::AttrType(DT_BOOL)}});
  Node* node = nullptr;
  TW_ASSERT_OK(g.AddNode(def, &node));
  AttrValue types;
  types.mutable_list()->add_type(static_cast<::tensorweave::DataType>(DT_BOOL));
  AddOp(&g, "Assert", "check", {"c", "c"}, {{"T", types}});
  AddOp(&g, "Identity", "false_side", {"sw:0"});
  AddOp(&g, "Merge", "merge", {"false_side", "c"});
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  TW_ASSERT_OK(h.Create({"p", "x"}, {"merge:0", "merge:1"}, {"check"}, &ex));
  std::vector<Tensor> out;
  TW_ASSERT_OK(h.Run(*ex, {Bool(false), Bool(true)}, &out));
  EXPECT_EQ(ToVector<bool>(out[0]), std::vector<bool>{true});
  EXPECT_EQ(ToVector<int32_t>(out[1]), std::vector<int32_t>{0});
  Status s = h.Run(*ex, {Bool(true), Bool(true)}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "check")) << s;
}

TEST(ControlFlowTest, LoopCondOfANonScalarIsAnError) {
  Graph g;
  AddPlaceholder(&g, "p", DT_BOOL);
  AddOp(&g, "LoopCond", "cond", {"p"});
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  TW_ASSERT_OK(h.Create({"p"}, {"cond"}, {}, &ex));
  std::vector<Tensor> out;
  TW_ASSERT_OK(h.Run(*ex, {Bool(true)}, &out));
  EXPECT_EQ(ToVector<bool>(out[0]), std::vector<bool>{true});
  Tensor two;
  TW_ASSERT_OK(Tensor::Allocate(DT_BOOL, TensorShape({2}), &two));
  Status s = h.Run(*ex, {two}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "cond")) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "scalar")) << s;
}

TEST(ControlFlowTest, NestedLoops) {
  // for i in 0..n: for j in 0..m: acc += j + 1 (the inner loop's acc starts
  // at the outer one's): acc = n * m * (m + 1) / 2.
  Graph g;
  AddConst(&g, "zero", Int(0));
  AddConst(&g, "one", Int(1));
  AddPlaceholder(&g, "n", DT_INT32);
  AddPlaceholder(&g, "m", DT_INT32);
  auto enter = [&](const std::string& name, const std::string& in,
                   bool constant) {
    AddOp(&g, "Enter", name, {in},
          {{"frame_name", AttrString("outer")},
           {"is_constant", AttrBool(constant)}});
  };
  enter("o/enter_i", "zero", false);
  enter("o/enter_acc", "zero", false);
  enter("o/enter_n", "n", true);
  enter("o/enter_m", "m", true);
  enter("o/enter_one", "one", true);
  enter("o/enter_zero", "zero", true);
  Node* mi = AddOp(&g, "Merge", "o/merge_i", {"o/enter_i", "o/enter_i"});
  Node* ma = AddOp(&g, "Merge", "o/merge_acc", {"o/enter_acc", "o/enter_acc"});
  AddOp(&g, "Less", "o/less", {"o/merge_i", "o/enter_n"});
  AddOp(&g, "LoopCond", "o/cond", {"o/less"});
  AddOp(&g, "Switch", "o/switch_i", {"o/merge_i", "o/cond"});
  AddOp(&g, "Switch", "o/switch_acc", {"o/merge_acc", "o/cond"});
  AddOp(&g, "Identity", "o/body_acc", {"o/switch_acc:1"});
  AddOp(&g, "Identity", "o/body_zero", {"o/enter_zero"},
        {});  // per-iteration copy of 0
  std::string inner = CountingLoop(&g, "o/in/", "inner", "o/body_zero",
                                   "o/body_acc", "o/enter_m", "o/enter_one");
  AddOp(&g, "Add", "o/next_i_value", {"o/switch_i:1", "o/enter_one"});
  Node* ni = AddOp(&g, "NextIteration", "o/next_i", {"o/next_i_value"});
  Node* na = AddOp(&g, "NextIteration", "o/next_acc", {inner});
  TW_ASSERT_OK(g.UpdateInput(mi, 1, Endpoint{ni, 0}));
  TW_ASSERT_OK(g.UpdateInput(ma, 1, Endpoint{na, 0}));
  AddOp(&g, "Exit", "o/exit_acc", {"o/switch_acc:0"});
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  TW_ASSERT_OK(h.Create({"n", "m"}, {"o/exit_acc"}, {}, &ex));
  for (auto [n, m] :
       std::vector<std::pair<int, int>>{{0, 3}, {1, 0}, {3, 4}, {20, 30}}) {
    std::vector<Tensor> out;
    TW_ASSERT_OK(h.Run(*ex, {Int(n), Int(m)}, &out));
    EXPECT_EQ(ToVector<int32_t>(out[0])[0], n * m * (m + 1) / 2)
        << n << " x " << m;
  }
}

TEST(ControlFlowTest, LoopInsideUntakenBranchIsDead) {
  Graph g;
  AddConst(&g, "zero", Int(0));
  AddConst(&g, "one", Int(1));
  AddConst(&g, "limit", Int(5));
  AddPlaceholder(&g, "x", DT_INT32);
  AddPlaceholder(&g, "p", DT_BOOL);
  AddOp(&g, "Switch", "sw", {"x", "p"});
  std::string exit =
      CountingLoop(&g, "w/", "w", "sw:1", "sw:1", "limit", "one");
  AddOp(&g, "Neg", "false_branch", {"sw:0"});
  AddOp(&g, "Merge", "merge", {"false_branch", exit});
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  TW_ASSERT_OK(h.Create({"x", "p"}, {"merge"}, {}, &ex));
  std::vector<Tensor> out;
  TW_ASSERT_OK(h.Run(*ex, {Int(2), Bool(false)}, &out));
  EXPECT_EQ(ToVector<int32_t>(out[0])[0], -2);
  TW_ASSERT_OK(h.Run(*ex, {Int(2), Bool(true)}, &out));
  EXPECT_EQ(ToVector<int32_t>(out[0])[0], 2 + 3 + 4 + 5);
}

TEST(ControlFlowTest, ConcurrentStepsOfOneLoop) {
  Graph g;
  AddConst(&g, "zero", Int(0));
  AddConst(&g, "one", Int(1));
  AddPlaceholder(&g, "limit", DT_INT32);
  std::string exit =
      CountingLoop(&g, "w/", "w", "zero", "zero", "limit", "one");
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  TW_ASSERT_OK(h.Create({"limit"}, {exit}, {}, &ex));
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 20; ++k) {
        int limit = 50 + t * 10 + k;
        std::vector<Tensor> out;
        Status s = h.Run(*ex, {Int(limit)}, &out);
        if (!s.ok() || ToVector<int32_t>(out[0])[0] != limit * (limit + 1) / 2)
          ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ControlFlowTest, FeedOrFetchInsideALoopIsAnError) {
  Graph g;
  AddConst(&g, "zero", Int(0));
  AddConst(&g, "one", Int(1));
  AddConst(&g, "limit", Int(3));
  CountingLoop(&g, "w/", "w", "zero", "zero", "limit", "one");
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  Status s = h.Create({}, {"w/body_i"}, {}, &ex);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "inside the while loop 'w'")) << s;
  s = h.Create({"w/body_i"}, {"w/exit_acc"}, {}, &ex);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "cannot feed 'w/body_i:0'")) << s;
}

TEST(ControlFlowTest, CycleWithoutNextIterationIsAnError) {
  Graph g;
  AddConst(&g, "one", Float(1));
  Node* a = AddOp(&g, "Add", "a", {"one", "one"});
  Node* b = AddOp(&g, "Neg", "b", {"a"});
  TW_ASSERT_OK(g.UpdateInput(a, 1, Endpoint{b, 0}));
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  Status s = h.Create({}, {"b"}, {}, &ex);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "cycle")) << s;
}

TEST(ControlFlowTest, NodeWithoutOutputsReleasesItsControlEdges) {
  // A node with no outputs is not dead: its control successors run.
  Graph g;
  AddPlaceholder(&g, "x", DT_FLOAT);
  AddOp(&g, "NoOp", "first", {});
  AddOp(&g, "Identity", "y", {"x", "^first"});
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  TW_ASSERT_OK(h.Create({"x"}, {"y"}, {}, &ex));
  std::vector<Tensor> out;
  TW_ASSERT_OK(h.Run(*ex, {Float(3)}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), std::vector<float>{3});
}

TEST(ControlFlowTest, UpdateInputChecksTypes) {
  Graph g;
  AddConst(&g, "f", Float(1));
  AddConst(&g, "i", Int(1));
  Node* m = AddOp(&g, "Merge", "m", {"f", "f"});
  Status s = g.UpdateInput(m, 1, Endpoint{g.FindNode("i"), 0});
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  s = g.UpdateInput(m, 2, Endpoint{g.FindNode("f"), 0});
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
}

}  // namespace
}  // namespace tensorweave

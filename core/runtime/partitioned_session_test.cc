// Steps that span several devices: placement on 2 and 4 CPU devices, the
// Send/Recv pairs partitioning adds, partitions running concurrently, one
// failing partition ending the others, and loops and conds whose nodes are
// on several devices (control loops, per-iteration keys, dead tensors).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/framework/op_kernel.h"
#include "core/framework/rendezvous.h"
#include "core/framework/shape_inference.h"
#include "core/runtime/frame_rendezvous.h"
#include "core/runtime/session.h"

namespace tensorweave {

// Test only: waits (up to 20 s) until `parties` kernels of this op have
// started in the same step, then outputs how many had started. Two of them
// on two devices finish only when the partitions run at once; run one after
// the other, the first one times out with an error.
REGISTER_OP("TestRendezvousBarrier")
    .Output("arrived: int32")
    .Attr("parties: int")
    .SetIsStateful()
    .SetShapeFn(shape_fns::Scalar)
    .Doc("Test only: a barrier across partitions.");

namespace {

struct Barrier {
  std::mutex mu;
  std::condition_variable cv;
  std::map<int64_t, int> arrived;  // by step id
};
Barrier* TheBarrier() {
  static Barrier* barrier = new Barrier();
  return barrier;
}

class TestRendezvousBarrierOp : public OpKernel {
 public:
  explicit TestRendezvousBarrierOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("parties", &parties_));
  }
  bool IsExpensive() const override { return true; }  // it blocks
  void Compute(OpKernelContext* ctx) override {
    Barrier* b = TheBarrier();
    std::unique_lock<std::mutex> lock(b->mu);
    const int arrived = ++b->arrived[ctx->step_id()];
    b->cv.notify_all();
    const bool all = b->cv.wait_for(lock, std::chrono::seconds(20), [&] {
      return b->arrived[ctx->step_id()] >= parties_;
    });
    OP_REQUIRES(ctx, all,
                errors::DeadlineExceeded("the other partition never started"));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->data<int32_t>()[0] = arrived;
  }

 private:
  int64_t parties_ = 0;
};
REGISTER_KERNEL(KernelDef("TestRendezvousBarrier"), TestRendezvousBarrierOp);

using test::AttrTensor;
using test::MakeNodeDef;
using test::ToVector;

Node* On(Graph* g, const std::string& device, const std::string& op,
         const std::string& name, const std::vector<std::string>& inputs,
         const test::Attrs& attrs = {}) {
  NodeDef def = MakeNodeDef(op, name, inputs, attrs);
  def.set_device(device);
  Node* node = nullptr;
  Status s = g->AddNode(def, &node);
  if (!s.ok()) ADD_FAILURE() << name << ": " << s;
  return node;
}

Node* ConstOn(Graph* g, const std::string& device, const std::string& name,
              const Tensor& value) {
  return On(
      g, device, "Const", name, {},
      {{"dtype", test::AttrType(value.dtype())}, {"value", AttrTensor(value)}});
}

SessionOptions Cpus(int n) {
  SessionOptions o;
  o.inter_op_threads = 4;
  o.intra_op_threads = 2;
  o.device_count["CPU"] = n;
  return o;
}

int CountOps(const GraphDef& g, const std::string& op) {
  int n = 0;
  for (const NodeDef& node : g.node()) n += node.op() == op;
  return n;
}

const char* kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const char* kCpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";

TEST(PartitionedSessionTest, OneTransferPerTensorAndDestination) {
  auto g = std::make_shared<Graph>();
  ConstOn(g.get(), "/cpu:0", "a", Tensor::Vector<float>({1, 2}));
  ConstOn(g.get(), "/cpu:1", "b", Tensor::Vector<float>({10, 20}));
  // Two consumers of `a` on CPU:1: one transfer.
  On(g.get(), "/cpu:1", "Add", "ab", {"a", "b"});
  On(g.get(), "/cpu:1", "Mul", "ab2", {"ab", "a"});
  On(g.get(), "/cpu:0", "Sub", "out", {"ab2", "a"});
  Session sess(g, Cpus(2));
  int64_t handle;
  TW_ASSERT_OK(sess.MakeCallable({{}, {"out:0", "ab:0"}, {}}, &handle));
  std::vector<Tensor> out;
  RunOptions options;
  options.output_partition_graphs = true;
  RunMetadata metadata;
  TW_ASSERT_OK(sess.RunCallable(handle, {}, options, &out, &metadata));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{10, 42}));
  EXPECT_EQ(ToVector<float>(out[1]), (std::vector<float>{11, 22}));
  ASSERT_EQ(metadata.partition_graphs.size(), 2u);
  int sends = 0, recvs = 0;
  for (const GraphDef& part : metadata.partition_graphs) {
    sends += CountOps(part, "_Send");
    recvs += CountOps(part, "_Recv");
    for (const NodeDef& node : part.node()) {
      EXPECT_TRUE(node.device() == kCpu0 || node.device() == kCpu1)
          << node.name() << " on " << node.device();
    }
  }
  EXPECT_EQ(sends, 2);  // a -> CPU:1, ab2 -> CPU:0
  EXPECT_EQ(recvs, 2);
  EXPECT_EQ(sess.placement(g->FindNode("ab"))->name(), kCpu1);
  EXPECT_EQ(sess.placement(g->FindNode("out"))->name(), kCpu0);
}

TEST(PartitionedSessionTest, FeedsControlEdgesAndVariables) {
  auto g = std::make_shared<Graph>();
  test::AddPlaceholder(g.get(), "x", DT_FLOAT, PartialShape({2}));
  On(g.get(), "/cpu:2", "VariableV2", "v", {},
     {{"dtype", test::AttrType(DT_FLOAT)},
      {"shape", test::AttrShape(PartialShape({2}))}});
  ConstOn(g.get(), "/cpu:3", "init", Tensor::Vector<float>({1, 1}));
  On(g.get(), "", "Assign", "v/assign", {"v", "init"});
  On(g.get(), "/cpu:1", "Mul", "xv", {"x", "v"});
  On(g.get(), "/cpu:3", "Neg", "negx", {"x"});
  On(g.get(), "", "AssignAdd", "bump", {"v", "xv"});
  // A control edge from CPU:2 (the variable's group) to CPU:3.
  On(g.get(), "/cpu:3", "NoOp", "after_bump", {"^bump"});
  Session sess(g, Cpus(4));
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {}, {"v/assign"}, &out));
  TW_ASSERT_OK(sess.Run({{"x:0", Tensor::Vector<float>({2, 3})}},
                        {"negx:0", "x:0"}, {"after_bump"}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{-2, -3}));
  EXPECT_EQ(ToVector<float>(out[1]), (std::vector<float>{2, 3}));
  // The variable's group (its assign and update) goes where the variable
  // asked.
  ASSERT_NE(sess.placement(g->FindNode("bump")), nullptr);
  EXPECT_EQ(sess.placement(g->FindNode("bump"))->name(),
            "/job:localhost/replica:0/task:0/device:CPU:2");
  TW_ASSERT_OK(sess.Run({}, {"v:0"}, {}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{3, 4}));
}

TEST(PartitionedSessionTest, PartitionsRunConcurrently) {
  auto g = std::make_shared<Graph>();
  On(g.get(), "/cpu:0", "TestRendezvousBarrier", "wait0", {},
     {{"parties", test::AttrInt(2)}});
  On(g.get(), "/cpu:1", "TestRendezvousBarrier", "wait1", {},
     {{"parties", test::AttrInt(2)}});
  On(g.get(), "/cpu:0", "Add", "sum", {"wait0", "wait1"});
  Session sess(g, Cpus(2));
  std::vector<Tensor> out;
  for (int step = 0; step < 3; ++step) {
    TW_ASSERT_OK(sess.Run({}, {"sum:0"}, {}, &out));
    // Each saw itself or both arrive: 1 + 2.
    EXPECT_EQ(out[0].data<int32_t>()[0], 3);
  }
}

TEST(PartitionedSessionTest, FailingPartitionEndsTheOthers) {
  auto g = std::make_shared<Graph>();
  test::AddPlaceholder(g.get(), "shape", DT_INT32, PartialShape({1}));
  ConstOn(g.get(), "/cpu:0", "a", Tensor::Vector<float>({1, 2, 3, 4}));
  On(g.get(), "/cpu:0", "Reshape", "bad", {"a", "shape"});
  // CPU:1 waits for a value from CPU:0 that never comes.
  On(g.get(), "/cpu:1", "Neg", "wait_for_bad", {"bad"});
  ConstOn(g.get(), "/cpu:1", "c", Tensor::Vector<float>({5}));
  On(g.get(), "/cpu:1", "Neg", "independent", {"c"});
  Session sess(g, Cpus(2));
  std::vector<Tensor> out;
  const int64_t live_before = LocalRendezvous::NumLive();
  for (int step = 0; step < 3; ++step) {
    Status s = sess.Run({{"shape:0", Tensor::Vector<int32_t>({3})}},
                        {"wait_for_bad:0", "independent:0"}, {}, &out);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
    EXPECT_TRUE(s.message().find("[[node bad") != std::string::npos) << s;
    EXPECT_EQ(LocalRendezvous::NumLive(), live_before);
  }
  // The session is still usable.
  TW_ASSERT_OK(sess.Run({{"shape:0", Tensor::Vector<int32_t>({4})}},
                        {"wait_for_bad:0", "independent:0"}, {}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{-1, -2, -3, -4}));
  EXPECT_EQ(ToVector<float>(out[1]), (std::vector<float>{-5}));
}

TEST(PartitionedSessionTest, LongChainAlternatingDevices) {
  // 200 cut edges in a row: callbacks nest, then move to the pool.
  auto g = std::make_shared<Graph>();
  ConstOn(g.get(), "/cpu:0", "n0", Tensor::Scalar<float>(0));
  ConstOn(g.get(), "/cpu:0", "one", Tensor::Scalar<float>(1));
  std::string prev = "n0";
  for (int i = 1; i <= 200; ++i) {
    std::string name = "n" + std::to_string(i);
    On(g.get(), i % 2 ? "/cpu:1" : "/cpu:0", "Add", name, {prev, "one"});
    prev = name;
  }
  Session sess(g, Cpus(2));
  std::vector<Tensor> out;
  for (int step = 0; step < 20; ++step) {
    TW_ASSERT_OK(sess.Run({}, {prev + ":0"}, {}, &out));
    EXPECT_EQ(out[0].data<float>()[0], 200.0f);
  }
}

// `while (i < limit) { i += step; acc += addend(i) }` (addend: the new i by
// default) in frame `frame`, with its parts on three devices: `control` the
// Enter/Merge/Switch/Exit/NextIteration nodes, `cond` the predicate (the
// loop's leader), `body` the body. The inputs are int32 tensors of the
// enclosing frame; returns the prefix (its Exits: prefix + "exit_i",
// prefix + "exit_acc"; the body's i: prefix + "body_i").
struct LoopDevices {
  std::string control, cond, body;
};
std::string DeviceLoop(
    Graph* g, const std::string& prefix, const std::string& frame,
    const std::string& i0, const std::string& acc0, const std::string& limit,
    const std::string& step, const LoopDevices& d, int parallel,
    std::function<std::string(const std::string& next_i)> addend = nullptr) {
  auto enter = [&](const std::string& dev, const std::string& name,
                   const std::string& in, bool constant) {
    On(g, dev, "Enter", prefix + name, {in},
       {{"frame_name", test::AttrString(frame)},
        {"is_constant", test::AttrBool(constant)},
        {"parallel_iterations", test::AttrInt(parallel)}});
  };
  enter(d.control, "enter_i", i0, false);
  enter(d.control, "enter_acc", acc0, false);
  enter(d.cond, "enter_limit", limit, true);
  enter(d.body, "enter_step", step, true);
  const std::string p = prefix;
  Node* mi =
      On(g, d.control, "Merge", p + "merge_i", {p + "enter_i", p + "enter_i"});
  Node* ma = On(g, d.control, "Merge", p + "merge_acc",
                {p + "enter_acc", p + "enter_acc"});
  On(g, d.cond, "Less", p + "less", {p + "merge_i", p + "enter_limit"});
  On(g, d.cond, "LoopCond", p + "cond", {p + "less"});
  On(g, d.control, "Switch", p + "switch_i", {p + "merge_i", p + "cond"});
  On(g, d.control, "Switch", p + "switch_acc", {p + "merge_acc", p + "cond"});
  On(g, d.body, "Identity", p + "body_i", {p + "switch_i:1"});
  On(g, d.body, "Identity", p + "body_acc", {p + "switch_acc:1"});
  On(g, d.body, "Add", p + "next_i_value", {p + "body_i", p + "enter_step"});
  const std::string add =
      addend ? addend(p + "next_i_value") : p + "next_i_value";
  On(g, d.body, "Add", p + "next_acc_value", {p + "body_acc", add});
  Node* ni =
      On(g, d.control, "NextIteration", p + "next_i", {p + "next_i_value"});
  Node* na =
      On(g, d.control, "NextIteration", p + "next_acc", {p + "next_acc_value"});
  EXPECT_TRUE(g->UpdateInput(mi, 1, Endpoint{ni, 0}).ok());
  EXPECT_TRUE(g->UpdateInput(ma, 1, Endpoint{na, 0}).ok());
  On(g, d.control, "Exit", p + "exit_i", {p + "switch_i:0"});
  On(g, d.control, "Exit", p + "exit_acc", {p + "switch_acc:0"});
  return p;
}

Tensor Int(int32_t v) { return Tensor::Scalar<int32_t>(v); }
int32_t IntOf(const Tensor& t) { return t.data<int32_t>()[0]; }

// The partition of `device` among a step's partition graphs.
const GraphDef* PartitionOf(const RunMetadata& metadata,
                            const std::string& device) {
  for (const GraphDef& part : metadata.partition_graphs) {
    if (part.node_size() > 0 && part.node(0).device() == device) return &part;
  }
  return nullptr;
}

int CountNamed(const GraphDef& g, const std::string& op,
               const std::string& part_of_name) {
  int n = 0;
  for (const NodeDef& node : g.node()) {
    n += node.op() == op && node.name().find(part_of_name) != std::string::npos;
  }
  return n;
}

TEST(PartitionedControlFlowTest, LoopAcrossDevices) {
  // Each role of the loop on either device: the leader (the predicate) on
  // one, the body or the loop's own nodes on the other.
  const std::vector<LoopDevices> layouts = {
      {"/cpu:0", "/cpu:0", "/cpu:1"},
      {"/cpu:1", "/cpu:0", "/cpu:1"},
      {"/cpu:0", "/cpu:1", "/cpu:0"},
      {"/cpu:0", "/cpu:1", "/cpu:1"},
  };
  const int64_t live_before = LocalRendezvous::NumLive();
  for (const LoopDevices& d : layouts) {
    for (int parallel : {1, 2, 10}) {
      SCOPED_TRACE("control " + d.control + " cond " + d.cond + " body " +
                   d.body + " parallel " + std::to_string(parallel));
      auto g = std::make_shared<Graph>();
      ConstOn(g.get(), "/cpu:0", "zero", Int(0));
      ConstOn(g.get(), "/cpu:1", "one", Int(1));
      test::AddPlaceholder(g.get(), "limit", DT_INT32, PartialShape({}));
      const std::string w = DeviceLoop(g.get(), "w/", "w", "zero", "zero",
                                       "limit", "one", d, parallel);
      Session sess(g, Cpus(2));
      int64_t handle;
      TW_ASSERT_OK(sess.MakeCallable(
          {{"limit:0"}, {w + "exit_acc:0", w + "exit_i:0"}, {}}, &handle));
      for (int limit : {0, 1, 2, 10, 1000}) {
        std::vector<Tensor> out;
        RunOptions options;
        options.output_partition_graphs = limit == 2;
        RunMetadata metadata;
        TW_ASSERT_OK(
            sess.RunCallable(handle, {Int(limit)}, options, &out, &metadata));
        EXPECT_EQ(IntOf(out[0]), limit * (limit + 1) / 2) << "limit " << limit;
        EXPECT_EQ(IntOf(out[1]), limit) << "limit " << limit;
        if (limit != 2) continue;
        // The device that does not hold the predicate runs a control loop,
        // and receives the predicate.
        const std::string other = d.cond == "/cpu:0" ? kCpu1 : kCpu0;
        const GraphDef* part = PartitionOf(metadata, other);
        ASSERT_NE(part, nullptr);
        EXPECT_EQ(CountNamed(*part, "Enter", "_cloop_enter"), 1);
        EXPECT_EQ(CountNamed(*part, "Merge", "_cloop_merge"), 1);
        EXPECT_EQ(CountNamed(*part, "Switch", "_cloop_switch"), 1);
        EXPECT_EQ(CountNamed(*part, "NextIteration", "_cloop_next"), 1);
        int pred_recvs = 0;
        for (const NodeDef& node : part->node()) {
          if (node.op() == "_Recv" &&
              node.attr().at("tensor_name").s() == "w/cond:0") {
            ++pred_recvs;
          }
        }
        EXPECT_EQ(pred_recvs, 1);
      }
    }
  }
  EXPECT_EQ(LocalRendezvous::NumLive(), live_before);
}

TEST(PartitionedControlFlowTest, NestedLoopsAcrossDevices) {
  // total = sum over i < n of (1 + ... + i): the outer loop's leader on
  // CPU:1, the inner loop's on CPU:0, each loop's body on the other device.
  for (int parallel : {1, 10}) {
    auto g = std::make_shared<Graph>();
    ConstOn(g.get(), "/cpu:0", "zero", Int(0));
    ConstOn(g.get(), "/cpu:0", "one", Int(1));
    test::AddPlaceholder(g.get(), "n", DT_INT32, PartialShape({}));
    auto constant = [&](const std::string& dev, const std::string& name,
                        const std::string& in) {
      On(g.get(), dev, "Enter", name, {in},
         {{"frame_name", test::AttrString("outer")},
          {"is_constant", test::AttrBool(true)},
          {"parallel_iterations", test::AttrInt(parallel)}});
      return name;
    };
    const std::string outer = DeviceLoop(
        g.get(), "outer/", "outer", "zero", "zero", "n", "one",
        {"/cpu:0", "/cpu:1", "/cpu:0"}, parallel, [&](const std::string&) {
          const std::string zero = constant("/cpu:1", "outer/zero_in", "zero");
          const std::string one = constant("/cpu:0", "outer/one_in", "one");
          const std::string inner =
              DeviceLoop(g.get(), "inner/", "inner", zero, zero, "outer/body_i",
                         one, {"/cpu:1", "/cpu:0", "/cpu:1"}, parallel);
          return inner + "exit_acc";
        });
    Session sess(g, Cpus(2));
    for (int n : {0, 1, 5, 30}) {
      std::vector<Tensor> out;
      TW_ASSERT_OK(
          sess.Run({{"n:0", Int(n)}}, {outer + "exit_acc:0"}, {}, &out));
      int expected = 0;
      for (int i = 0; i < n; ++i) expected += i * (i + 1) / 2;
      EXPECT_EQ(IntOf(out[0]), expected) << "n " << n;
    }
  }
}

TEST(PartitionedControlFlowTest, CondAcrossDevicesRunsOnlyTheTakenBranch) {
  // The Switch on CPU:0, both branches on CPU:1: the true one adds to a
  // variable, which must not change when the false one is taken.
  auto g = std::make_shared<Graph>();
  test::AddPlaceholder(g.get(), "p", DT_BOOL, PartialShape({}));
  ConstOn(g.get(), "/cpu:0", "x", Tensor::Scalar<float>(3));
  ConstOn(g.get(), "/cpu:1", "init", Tensor::Scalar<float>(10));
  On(g.get(), "/cpu:1", "VariableV2", "v", {},
     {{"dtype", test::AttrType(DT_FLOAT)},
      {"shape", test::AttrShape(PartialShape({}))}});
  On(g.get(), "/cpu:1", "Assign", "v/assign", {"v", "init"});
  On(g.get(), "/cpu:0", "Switch", "sw", {"x", "p"});
  On(g.get(), "/cpu:1", "AssignAdd", "bump", {"v", "sw:1"});
  On(g.get(), "/cpu:1", "Identity", "true_side", {"bump"});
  On(g.get(), "/cpu:1", "Neg", "false_side", {"sw:0"});
  On(g.get(), "/cpu:0", "Merge", "merge", {"false_side", "true_side"});
  Session sess(g, Cpus(2));
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {}, {"v/assign"}, &out));
  for (int step = 0; step < 3; ++step) {
    TW_ASSERT_OK(sess.Run({{"p:0", Tensor::Scalar<bool>(false)}},
                          {"merge:0", "merge:1"}, {}, &out));
    EXPECT_EQ(out[0].data<float>()[0], -3.0f);
    EXPECT_EQ(IntOf(out[1]), 0);
  }
  TW_ASSERT_OK(sess.Run({}, {"v:0"}, {}, &out));
  EXPECT_EQ(out[0].data<float>()[0], 10.0f);  // the true side never ran
  TW_ASSERT_OK(sess.Run({{"p:0", Tensor::Scalar<bool>(true)}},
                        {"merge:0", "merge:1"}, {}, &out));
  EXPECT_EQ(out[0].data<float>()[0], 13.0f);
  EXPECT_EQ(IntOf(out[1]), 1);
  // Fetching the untaken side across devices: dead there too.
  Status s = sess.Run({{"p:0", Tensor::Scalar<bool>(true)}}, {"false_side:0"},
                      {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(s.message().find("dead") != std::string::npos) << s;
}

TEST(PartitionedControlFlowTest, CondInsideALoopAcrossDevices) {
  // while (i < limit) { i += 1; acc += i even ? i : 0 }, the cond's
  // Switch with the loop on CPU:0, its branches on CPU:1.
  auto g = std::make_shared<Graph>();
  ConstOn(g.get(), "/cpu:0", "zero", Int(0));
  ConstOn(g.get(), "/cpu:0", "one", Int(1));
  ConstOn(g.get(), "/cpu:0", "two", Int(2));
  test::AddPlaceholder(g.get(), "limit", DT_INT32, PartialShape({}));
  const std::string w = DeviceLoop(
      g.get(), "w/", "w", "zero", "zero", "limit", "one",
      {"/cpu:0", "/cpu:0", "/cpu:0"}, 10, [&](const std::string& i) {
        On(g.get(), "/cpu:0", "Enter", "w/two_in", {"two"},
           {{"frame_name", test::AttrString("w")},
            {"is_constant", test::AttrBool(true)},
            {"parallel_iterations", test::AttrInt(10)}});
        On(g.get(), "/cpu:0", "FloorMod", "w/mod", {i, "w/two_in"});
        On(g.get(), "/cpu:0", "Sub", "w/zero_i", {"w/mod", "w/mod"});
        On(g.get(), "/cpu:0", "Equal", "w/is_zero", {"w/mod", "w/zero_i"});
        On(g.get(), "/cpu:0", "Switch", "w/sw", {i, "w/is_zero"});
        On(g.get(), "/cpu:1", "Identity", "w/taken", {"w/sw:1"});
        On(g.get(), "/cpu:1", "Sub", "w/dropped", {"w/sw:0", "w/sw:0"});
        On(g.get(), "/cpu:0", "Merge", "w/merged", {"w/dropped", "w/taken"});
        return std::string("w/merged");
      });
  Session sess(g, Cpus(2));
  for (int limit : {0, 1, 2, 9, 200}) {
    std::vector<Tensor> out;
    TW_ASSERT_OK(
        sess.Run({{"limit:0", Int(limit)}}, {w + "exit_acc:0"}, {}, &out));
    int expected = 0;
    for (int i = 1; i <= limit; ++i) expected += i % 2 == 0 ? i : 0;
    EXPECT_EQ(IntOf(out[0]), expected) << "limit " << limit;
  }
}

TEST(PartitionedControlFlowTest, ManyIterationsAndConcurrentSteps) {
  auto g = std::make_shared<Graph>();
  ConstOn(g.get(), "/cpu:0", "zero", Int(0));
  ConstOn(g.get(), "/cpu:1", "one", Int(1));
  test::AddPlaceholder(g.get(), "limit", DT_INT32, PartialShape({}));
  const std::string w = DeviceLoop(g.get(), "w/", "w", "zero", "zero", "limit",
                                   "one", {"/cpu:0", "/cpu:0", "/cpu:1"}, 32);
  Session sess(g, Cpus(2));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      const int limit = 5000 + t;
      std::vector<Tensor> out;
      Status s =
          sess.Run({{"limit:0", Int(limit)}}, {w + "exit_i:0"}, {}, &out);
      if (!s.ok() || IntOf(out[0]) != limit) ++failures;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(PartitionedControlFlowTest, LoopWithoutLoopCondIsAnError) {
  // A hand-built frame whose Switch reads a plain bool: its devices could
  // not agree on the iterations.
  auto g = std::make_shared<Graph>();
  ConstOn(g.get(), "/cpu:0", "zero", Int(0));
  ConstOn(g.get(), "/cpu:0", "f", Tensor::Scalar<bool>(false));
  On(g.get(), "/cpu:0", "Enter", "enter", {"zero"},
     {{"frame_name", test::AttrString("w")}});
  On(g.get(), "/cpu:0", "Enter", "enter_f", {"f"},
     {{"frame_name", test::AttrString("w")},
      {"is_constant", test::AttrBool(true)}});
  Node* m = On(g.get(), "/cpu:0", "Merge", "merge", {"enter", "enter"});
  On(g.get(), "/cpu:0", "Switch", "switch", {"merge", "enter_f"});
  On(g.get(), "/cpu:1", "Identity", "body", {"switch:1"});
  Node* next = On(g.get(), "/cpu:0", "NextIteration", "next", {"body"});
  ASSERT_TRUE(g->UpdateInput(m, 1, Endpoint{next, 0}).ok());
  On(g.get(), "/cpu:0", "Exit", "exit", {"switch:0"});
  Session sess(g, Cpus(2));
  std::vector<Tensor> out;
  Status s = sess.Run({}, {"exit:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(s.message().find("LoopCond") != std::string::npos) << s;
}

TEST(RendezvousTest, SendRecvEitherOrderAndAbort) {
  LocalRendezvous r;
  const std::string key = Rendezvous::CreateKey("/a", 7, "/b", "x:0");
  EXPECT_EQ(key, "/a;7;/b;x:0;0:0");
  TW_ASSERT_OK(r.Send(key, Tensor::Scalar<float>(3), false));
  EXPECT_EQ(r.NumPending(), 1u);
  float got = 0;
  r.RecvAsync(key, [&](const Status& s, const Tensor& t, bool) {
    EXPECT_TRUE(s.ok()) << s;
    got = t.data<float>()[0];
  });
  EXPECT_EQ(got, 3.0f);
  EXPECT_EQ(r.NumPending(), 0u);
  // Receiver first.
  Status recv_status;
  r.RecvAsync("k2",
              [&](const Status& s, const Tensor&, bool) { recv_status = s; });
  EXPECT_EQ(r.NumPending(), 1u);
  r.StartAbort(errors::Aborted("stop"));
  EXPECT_EQ(recv_status.code(), Code::kAborted);
  EXPECT_EQ(r.NumPending(), 0u);
  EXPECT_EQ(r.Send("k3", Tensor::Scalar<float>(1), false).code(),
            Code::kAborted);
}

TEST(RendezvousTest, FrameIterationKeys) {
  const std::string key = Rendezvous::CreateKey("/a", 7, "/b", "x:0");
  const uint64_t outer = ChildFrameId(0, 0, "outer");
  EXPECT_EQ(outer, ChildFrameId(0, 0, "outer"));  // the same on every device
  EXPECT_NE(outer, ChildFrameId(0, 1, "outer"));
  EXPECT_NE(outer, ChildFrameId(0, 0, "inner"));
  EXPECT_NE(ChildFrameId(outer, 0, "inner"), ChildFrameId(outer, 1, "inner"));
  const std::string k3 = FrameIterRendezvous::KeyFor(key, outer, 3);
  Rendezvous::ParsedKey parsed;
  TW_ASSERT_OK(Rendezvous::ParseKey(k3, &parsed));
  EXPECT_EQ(parsed.tensor_name, "x:0");
  EXPECT_EQ(parsed.dst_device, "/b");
  EXPECT_NE(parsed.frame, "0:0");
  EXPECT_EQ(parsed.frame.substr(parsed.frame.find(':')), ":3");
  // Each iteration's view reaches its own key of the step's rendezvous.
  LocalRendezvous r;
  FrameIterRendezvous iter3(&r, outer, 3), iter4(&r, outer, 4);
  TW_ASSERT_OK(iter3.Send(key, Tensor::Scalar<float>(3), false));
  TW_ASSERT_OK(iter4.Send(key, Tensor(), true));
  bool dead = false;
  float got = 0;
  iter4.RecvAsync(key, [&](const Status& s, const Tensor&, bool is_dead) {
    EXPECT_TRUE(s.ok()) << s;
    dead = is_dead;
  });
  r.RecvAsync(k3, [&](const Status& s, const Tensor& t, bool is_dead) {
    EXPECT_TRUE(s.ok()) << s;
    EXPECT_FALSE(is_dead);
    got = t.data<float>()[0];
  });
  EXPECT_TRUE(dead);
  EXPECT_EQ(got, 3.0f);
  EXPECT_EQ(r.NumPending(), 0u);
}

}  // namespace
}  // namespace tensorweave

// Steps that span several devices: placement on 2 and 4 CPU devices, the
// Send/Recv pairs partitioning adds, partitions running concurrently, and
// one failing partition ending the others.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/framework/op_kernel.h"
#include "core/framework/rendezvous.h"
#include "core/framework/shape_inference.h"
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

}  // namespace
}  // namespace tensorweave

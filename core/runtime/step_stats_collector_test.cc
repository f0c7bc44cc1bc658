// Traced steps: Session::RunCallable with RunOptions.trace_level fills
// RunMetadata.step_stats, one DeviceStepStats per device, one NodeExecStats
// per node run, with TensorFlow's timeline labels and each output's dtype,
// shape and size; an untraced step leaves it empty.
#include "core/runtime/step_stats_collector.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/runtime/session.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::AddPlaceholder;

const char* kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const char* kCpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";

SessionOptions Cpus(int n) {
  SessionOptions o;
  o.inter_op_threads = 2;
  o.intra_op_threads = 1;
  o.device_count["CPU"] = n;
  return o;
}

std::map<std::string, const NodeExecStats*> ByName(const DeviceStepStats& dev) {
  std::map<std::string, const NodeExecStats*> out;
  for (const NodeExecStats& ns : dev.node_stats()) out[ns.node_name()] = &ns;
  return out;
}

TEST(StepStatsCollectorTest, TracedStepRecordsEveryNodeOnce) {
  auto g = std::make_shared<Graph>();
  AddPlaceholder(g.get(), "x", DT_FLOAT, PartialShape({2, 3}));
  AddConst(g.get(), "two", Tensor::Scalar<float>(2));
  AddOp(g.get(), "Mul", "y", {"x", "two"});
  AddOp(g.get(), "Neg", "z", {"y", "^two"});
  Session sess(g, Cpus(1));
  int64_t handle;
  TW_ASSERT_OK(sess.MakeCallable({{"x:0"}, {"z:0"}, {}}, &handle));
  Tensor x(DT_FLOAT, TensorShape({2, 3}));
  for (int i = 0; i < 6; ++i) x.data<float>()[i] = i;
  std::vector<Tensor> out;
  RunOptions options;
  options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  const int64_t before = NowMicrosSinceEpoch();
  TW_ASSERT_OK(sess.RunCallable(handle, {x}, options, &out, &metadata));
  const int64_t after = NowMicrosSinceEpoch();
  ASSERT_EQ(metadata.step_stats.dev_stats_size(), 1);
  const DeviceStepStats& dev = metadata.step_stats.dev_stats(0);
  EXPECT_EQ(dev.device(), kCpu0);
  auto nodes = ByName(dev);
  ASSERT_EQ(nodes.size(), 3u);  // two, y, z (x is fed)
  ASSERT_EQ(dev.node_stats_size(), 3);
  EXPECT_EQ(nodes["y"]->timeline_label(), "y = Mul(x, two)");
  EXPECT_EQ(nodes["z"]->timeline_label(), "z = Neg(y, ^two)");
  EXPECT_EQ(nodes["two"]->timeline_label(), "two = Const()");
  for (const auto& [name, ns] : nodes) {
    EXPECT_GE(ns->all_start_micros(), before) << name;
    EXPECT_LE(ns->all_start_micros() + ns->all_end_rel_micros(), after);
    EXPECT_EQ(ns->all_start_nanos(), ns->all_start_micros() * 1000);
    EXPECT_NE(ns->thread_id(), 0u);
    ASSERT_EQ(ns->output_size(), 1) << name;
  }
  EXPECT_GE(nodes["z"]->all_start_micros(),
            nodes["y"]->all_start_micros() + nodes["y"]->all_end_rel_micros());
  const TensorDescription& z = nodes["z"]->output(0).tensor_description();
  EXPECT_EQ(z.dtype(), TensorDescription::DT_FLOAT);
  ASSERT_EQ(z.shape().dim_size(), 2);
  EXPECT_EQ(z.shape().dim(0).size(), 2);
  EXPECT_EQ(z.shape().dim(1).size(), 3);
  EXPECT_EQ(z.allocation_description().requested_bytes(), 24);
  EXPECT_EQ(z.allocation_description().allocator_name(), "cpu");

  // Untraced: nothing recorded.
  RunMetadata quiet;
  TW_ASSERT_OK(sess.RunCallable(handle, {x}, RunOptions(), &out, &quiet));
  EXPECT_EQ(quiet.step_stats.dev_stats_size(), 0);
}

TEST(StepStatsCollectorTest, PartitionedStepReportsEachDevice) {
  auto g = std::make_shared<Graph>();
  NodeDef a = test::MakeNodeDef(
      "Const", "a", {},
      {{"dtype", test::AttrType(DT_FLOAT)},
       {"value", test::AttrTensor(Tensor::Vector<float>({1, 2}))}});
  a.set_device("/cpu:0");
  NodeDef b = test::MakeNodeDef("Neg", "b", {"a"});
  b.set_device("/cpu:1");
  Node* node;
  TW_ASSERT_OK(g->AddNode(a, &node));
  TW_ASSERT_OK(g->AddNode(b, &node));
  Session sess(g, Cpus(2));
  int64_t handle;
  TW_ASSERT_OK(sess.MakeCallable({{}, {"b:0"}, {}}, &handle));
  std::vector<Tensor> out;
  RunOptions options;
  options.trace_level = RunOptions::SOFTWARE_TRACE;
  RunMetadata metadata;
  TW_ASSERT_OK(sess.RunCallable(handle, {}, options, &out, &metadata));
  ASSERT_EQ(metadata.step_stats.dev_stats_size(), 2);
  std::map<std::string, std::map<std::string, const NodeExecStats*>> devices;
  for (const DeviceStepStats& dev : metadata.step_stats.dev_stats()) {
    devices[dev.device()] = ByName(dev);
  }
  ASSERT_EQ(devices.count(kCpu0), 1u);
  ASSERT_EQ(devices.count(kCpu1), 1u);
  EXPECT_EQ(devices[kCpu0].count("a"), 1u);
  EXPECT_EQ(devices[kCpu1].count("b"), 1u);
  EXPECT_EQ(devices[kCpu0].count("b"), 0u);
  bool send = false, recv = false;
  for (const auto& [device, nodes] : devices) {
    for (const auto& [name, ns] : nodes) {
      const std::string& label = ns->timeline_label();
      if (label.find(" = _Send(") != std::string::npos) {
        send = true;
        EXPECT_NE(label.find(std::string("@") + kCpu1 + ")"), std::string::npos)
            << label;
      }
      if (label.find(" = _Recv(") != std::string::npos) {
        recv = true;
        EXPECT_NE(label.find(std::string("@") + kCpu0 + ")"), std::string::npos)
            << label;
      }
    }
  }
  EXPECT_TRUE(send);
  EXPECT_TRUE(recv);
}

TEST(StepStatsCollectorTest, TimelineLabelNamesOutputZeroByItsNode) {
  Graph g;
  AddConst(&g, "a", Tensor::Vector<float>({1, 2}));
  AddOp(&g, "Unique", "u", {"a:0"});
  AddOp(&g, "Neg", "m", {"u:1"});
  AddOp(&g, "Neg", "s", {"u:0"});
  AddOp(&g, "Neg", "n", {"a:0", "^s"});
  EXPECT_EQ(TimelineLabel(*g.FindNode("u")), "u = Unique(a)");
  EXPECT_EQ(TimelineLabel(*g.FindNode("m")), "m = Neg(u:1)");
  EXPECT_EQ(TimelineLabel(*g.FindNode("s")), "s = Neg(u)");
  EXPECT_EQ(TimelineLabel(*g.FindNode("n")), "n = Neg(a, ^s)");
}

}  // namespace
}  // namespace tensorweave

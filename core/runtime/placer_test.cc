// The placer against TF1's rules; the error texts are TF's (checked with
// TF 2.21's tf.compat.v1 Session on the same graphs).
#include "core/runtime/placer.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

// Test only: an op no device has a kernel for.
REGISTER_OP("TestPlacerNoKernel")
    .Output("y: float")
    .SetShapeFn(shape_fns::Scalar)
    .Doc("Test only: an op without kernels.");

namespace {

// Test only: a device type of higher priority than CPU (as GPU), of which
// "the machine has" two, with kernels for float Add and any Identity only.
class FakeAcceleratorFactory : public DeviceFactory {
 public:
  Status CreateDevices(int count, const std::string& name_prefix,
                       std::vector<std::unique_ptr<Device>>* devices) override {
    int n = count < 0 ? 2 : std::min(count, 2);
    for (int i = 0; i < n; ++i) {
      DeviceAttributes attributes;
      attributes.name = name_prefix + "/device:FAKEACCEL:" + std::to_string(i);
      attributes.device_type = "FAKEACCEL";
      devices->push_back(std::make_unique<Device>(std::move(attributes)));
    }
    return Status::OK();
  }
};

const bool kFakeRegistered = [] {
  DeviceFactory::Register("FAKEACCEL",
                          std::make_unique<FakeAcceleratorFactory>(), 200);
  return true;
}();

class NeverRunKernel : public OpKernel {
 public:
  explicit NeverRunKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(errors::Internal("placer_test kernels are never run"));
  }
};
REGISTER_KERNEL(
    KernelDef("Add").Device("FAKEACCEL").TypeConstraint("T", {DT_FLOAT}),
    NeverRunKernel);
REGISTER_KERNEL(KernelDef("Identity").Device("FAKEACCEL"), NeverRunKernel);

using test::AttrTensor;
using test::AttrType;
using test::MakeNodeDef;
using test::MakeTensor;

constexpr char kCpu[] = "/job:localhost/replica:0/task:0/device:CPU:";
constexpr char kAccel[] = "/job:localhost/replica:0/task:0/device:FAKEACCEL:";

std::string Cpu(int i) { return kCpu + std::to_string(i); }
std::string Accel(int i) { return kAccel + std::to_string(i); }

class PlacerTest : public ::testing::Test {
 protected:
  // `cpus` CPU devices, and the fake accelerators when `accelerators`.
  void UseDevices(int cpus, bool accelerators) {
    TW_ASSERT_OK(DeviceSet::CreateLocal(
        {{"CPU", cpus}, {"FAKEACCEL", accelerators ? 2 : 0}}, "localhost", 0, 0,
        &devices_));
  }

  Node* On(const std::string& device, const std::string& op,
           const std::string& name, const std::vector<std::string>& inputs,
           const test::Attrs& attrs = {}) {
    NodeDef def = MakeNodeDef(op, name, inputs, attrs);
    def.set_device(device);
    Node* node = nullptr;
    Status status = graph_.AddNode(def, &node);
    EXPECT_TRUE(status.ok()) << status;
    return node;
  }
  Node* Const(const std::string& device, const std::string& name,
              DataType dtype = DT_FLOAT) {
    Tensor value = dtype == DT_FLOAT ? MakeTensor<float>(TensorShape(), {1.0f})
                                     : MakeTensor<int32_t>(TensorShape(), {1});
    return On(device, "Const", name, {},
              {{"value", AttrTensor(value)}, {"dtype", AttrType(dtype)}});
  }
  Node* Variable(const std::string& device, const std::string& name) {
    return On(
        device, "VariableV2", name, {},
        {{"dtype", AttrType(DT_FLOAT)},
         {"shape", test::AttrShape(PartialShape(std::vector<int64_t>{}))}});
  }
  static test::Attrs ColocateWith(const std::string& name) {
    AttrValue groups;
    groups.mutable_list()->add_s("loc:@" + name);
    return {{"_class", groups}};
  }

  // Places every node of the graph.
  Status Place(bool soft = false, bool log = false) {
    std::vector<const Node*> nodes;
    for (int id = 0; id < graph_.num_nodes(); ++id) {
      nodes.push_back(graph_.node(id));
    }
    PlacementOptions options;
    options.allow_soft_placement = soft;
    options.log_device_placement = log;
    return PlaceNodes(graph_, nodes, *devices_, options, &placement_);
  }
  std::string DeviceOf(const Node* node) const {
    if (node->id() >= static_cast<int>(placement_.size())) return "(none)";
    Device* device = placement_[node->id()];
    return device == nullptr ? "(none)" : device->name();
  }

  Graph graph_;
  std::unique_ptr<DeviceSet> devices_;
  std::vector<Device*> placement_;
};

TEST_F(PlacerTest, UnconstrainedGoesToTheFirstDevice) {
  UseDevices(4, false);
  Node* a = Const("", "a");
  Node* b = Const("", "b");
  Node* sum = On("", "Add", "sum", {"a", "b"});
  TW_ASSERT_OK(Place());
  EXPECT_EQ(DeviceOf(a), Cpu(0));
  EXPECT_EQ(DeviceOf(b), Cpu(0));
  EXPECT_EQ(DeviceOf(sum), Cpu(0));
  EXPECT_EQ(placement_.size(), 3u);
}

TEST_F(PlacerTest, ExplicitDevicesAreHonoured) {
  UseDevices(4, false);
  Node* a = Const("/cpu:1", "a");
  Node* b = Const("/job:localhost/replica:0/task:0/device:CPU:3", "b");
  Node* c = Const("CPU:2", "c");
  TW_ASSERT_OK(Place());
  EXPECT_EQ(DeviceOf(a), Cpu(1));
  EXPECT_EQ(DeviceOf(b), Cpu(3));
  EXPECT_EQ(DeviceOf(c), Cpu(2));
}

TEST_F(PlacerTest, HigherPriorityTypeWinsWhereItHasAKernel) {
  UseDevices(2, true);
  Node* a = Const("", "a");
  Node* b = Const("", "b");
  Node* sum = On("", "Add", "sum", {"a", "b"});
  Node* ia = Const("", "ia", DT_INT32);
  Node* isum = On("", "Add", "isum", {"ia", "ia"});
  TW_ASSERT_OK(Place());
  EXPECT_EQ(DeviceOf(sum), Accel(0));
  // The accelerator's Add is for float only (a dtype-aware kernel lookup).
  EXPECT_EQ(DeviceOf(isum), Cpu(0));
  // Const has no accelerator kernel: it stays on CPU despite its consumer.
  EXPECT_EQ(DeviceOf(a), Cpu(0));
  EXPECT_EQ(DeviceOf(b), Cpu(0));
  EXPECT_EQ(DeviceOf(ia), Cpu(0));
}

TEST_F(PlacerTest, PartialSpecs) {
  UseDevices(4, true);
  Const("", "a");
  Node* any_cpu = On("/device:CPU:*", "Add", "any_cpu", {"a", "a"});
  Node* any_accel = On("/device:FAKEACCEL:*", "Identity", "any_accel", {"a"});
  Node* job_only = On("/job:localhost", "Add", "job_only", {"a", "a"});
  Node* accel1 = On("/job:localhost/task:0/device:FAKEACCEL:1", "Identity",
                    "accel1", {"a"});
  TW_ASSERT_OK(Place());
  EXPECT_EQ(DeviceOf(any_cpu), Cpu(0));
  EXPECT_EQ(DeviceOf(any_accel), Accel(0));
  EXPECT_EQ(DeviceOf(job_only), Accel(0));
  EXPECT_EQ(DeviceOf(accel1), Accel(1));
}

TEST_F(PlacerTest, AVariableGoesWhereItsAssignAsks) {
  UseDevices(4, false);
  Node* v = Variable("", "v");
  Const("", "init");
  Node* assign = On("/cpu:2", "Assign", "v/Assign", {"v", "init"});
  Node* read = On("", "Identity", "v/read", {"v"}, ColocateWith("v"));
  Node* other = On("", "Identity", "other", {"v/read"});
  TW_ASSERT_OK(Place());
  EXPECT_EQ(DeviceOf(v), Cpu(2));
  EXPECT_EQ(DeviceOf(assign), Cpu(2));
  EXPECT_EQ(DeviceOf(read), Cpu(2));
  EXPECT_EQ(DeviceOf(other), Cpu(0));
}

TEST_F(PlacerTest, AGroupGoesWhereEveryMemberHasAKernel) {
  // Identity has an accelerator kernel, but VariableV2 (its group) has not.
  UseDevices(1, true);
  Node* v = Variable("", "v");
  Node* read = On("", "Identity", "v/read", {"v"}, ColocateWith("v"));
  Node* free_read = On("", "Identity", "free_read", {"v"});
  TW_ASSERT_OK(Place());
  EXPECT_EQ(DeviceOf(v), Cpu(0));
  EXPECT_EQ(DeviceOf(read), Cpu(0));
  EXPECT_EQ(DeviceOf(free_read), Accel(0));
}

TEST_F(PlacerTest, ConflictingDevicesInAGroupNameBothNodes) {
  UseDevices(4, false);
  Variable("/cpu:2", "v");
  Const("", "init");
  On("/cpu:1", "Assign", "assign", {"v", "init"});
  Status status = Place();
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "Cannot colocate nodes {{colocation_node assign}} and "
            "{{colocation_node v}}: Cannot merge devices with incompatible "
            "ids: '/device:CPU:1' and '/device:CPU:2'");
  // Soft placement drops the conflicting id: the first CPU, as TF.
  TW_ASSERT_OK(Place(/*soft=*/true));
  EXPECT_EQ(DeviceOf(graph_.FindNode("v")), Cpu(0));
  EXPECT_EQ(DeviceOf(graph_.FindNode("assign")), Cpu(0));
}

TEST_F(PlacerTest, ClassAttrColocates) {
  UseDevices(4, false);
  Const("/cpu:3", "x");
  Node* y = On("", "Identity", "y", {"x"}, ColocateWith("x"));
  // A colocation with a node not in the graph is ignored, as in TF.
  Node* z = On("", "Identity", "z", {"x"}, ColocateWith("not_in_graph"));
  TW_ASSERT_OK(Place());
  EXPECT_EQ(DeviceOf(y), Cpu(3));
  EXPECT_EQ(DeviceOf(z), Cpu(0));
}

TEST_F(PlacerTest, ClassAttrConflictIsTheSameErrorAsTensorFlow) {
  UseDevices(4, false);
  Const("", "e");
  On("/cpu:3", "Identity", "x", {"e"});
  On("/cpu:1", "Identity", "y", {"x"}, ColocateWith("x"));
  Status status = Place();
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "Cannot colocate nodes {{colocation_node y}} and {{colocation_node "
            "x}}: Cannot merge devices with incompatible ids: '/device:CPU:1' "
            "and '/device:CPU:3'");
  // Soft placement drops the conflicting id: the group goes to the first
  // device that fits, CPU:0, as TF places it (checked with TF 2.21).
  TW_ASSERT_OK(Place(/*soft=*/true));
  EXPECT_EQ(DeviceOf(graph_.FindNode("x")), Cpu(0));
  EXPECT_EQ(DeviceOf(graph_.FindNode("y")), Cpu(0));
}

TEST_F(PlacerTest, ADeviceThatDoesNotExist) {
  UseDevices(1, false);
  Const("/device:GPU:0", "a");
  Status status = Place();
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "Cannot assign a device for operation a: {{node a}} was explicitly "
            "assigned to /device:GPU:0 but available devices are [ "
            "/job:localhost/replica:0/task:0/device:CPU:0 ]. Make sure the "
            "device specification refers to a valid device. The requested "
            "device appears to be a GPU, but CUDA is not enabled. To run it "
            "on the CPU instead, create the session with "
            "config=tw.ConfigProto(allow_soft_placement=True).");
  TW_ASSERT_OK(Place(/*soft=*/true));
  EXPECT_EQ(DeviceOf(graph_.FindNode("a")), Cpu(0));
}

TEST_F(PlacerTest, ACpuIdPastTheCount) {
  UseDevices(4, false);
  Const("/device:CPU:7", "a");
  Status status = Place();
  EXPECT_EQ(status.message(),
            "Cannot assign a device for operation a: {{node a}} was explicitly "
            "assigned to /device:CPU:7 but available devices are [ " +
                Cpu(0) + ", " + Cpu(1) + ", " + Cpu(2) + ", " + Cpu(3) +
                " ]. Make sure the device specification refers to a valid "
                "device.");
  // Soft placement drops the id (and the type): the first device.
  TW_ASSERT_OK(Place(/*soft=*/true));
  EXPECT_EQ(DeviceOf(graph_.FindNode("a")), Cpu(0));
}

TEST_F(PlacerTest, NoKernelForTheRequestedType) {
  UseDevices(2, true);
  Const("", "a");
  Const("", "ia", DT_INT32);
  Node* isum = On("/device:FAKEACCEL:1", "Add", "isum", {"ia", "ia"});
  Status status = Place();
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "Cannot assign a device for operation isum: Could not satisfy "
            "explicit device specification '/device:FAKEACCEL:1' because no "
            "supported kernel for FAKEACCEL devices is available.\nColocation "
            "group: isum (Add)\nDevices with a kernel for every op of the "
            "group: [ " +
                Cpu(0) + ", " + Cpu(1) + " ]");
  // Soft placement moves it where a kernel is: CPU.
  TW_ASSERT_OK(Place(/*soft=*/true));
  EXPECT_EQ(DeviceOf(isum), Cpu(0));
  EXPECT_EQ(DeviceOf(graph_.FindNode("ia")), Cpu(0));
}

TEST_F(PlacerTest, SoftPlacementKeepsTheJobAndTaskWhenItCan) {
  UseDevices(2, true);
  Const("", "ia", DT_INT32);
  // No FAKEACCEL kernel for int32 Add: the type goes, /job:localhost stays.
  Node* isum =
      On("/job:localhost/device:FAKEACCEL:0", "Add", "isum", {"ia", "ia"});
  TW_ASSERT_OK(Place(/*soft=*/true));
  EXPECT_EQ(DeviceOf(isum), Cpu(0));
}

TEST_F(PlacerTest, AnOpWithNoKernelAnywhereGoesToItsRequestOrTheDefault) {
  UseDevices(4, true);
  Node* free = On("", "TestPlacerNoKernel", "free", {});
  Node* pinned = On("/cpu:2", "TestPlacerNoKernel", "pinned", {});
  TW_ASSERT_OK(Place());
  EXPECT_EQ(DeviceOf(free), Cpu(0));  // the client device
  EXPECT_EQ(DeviceOf(pinned), Cpu(2));
}

TEST_F(PlacerTest, MalformedDeviceNamesTheNode) {
  UseDevices(1, false);
  Const("/task:x", "a");
  Status status = Place();
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "Malformed device specification '/task:x' in node 'a' (op: "
            "'Const')");
}

TEST_F(PlacerTest, PlacedNodesKeepTheirDeviceAcrossCalls) {
  UseDevices(4, false);
  Node* v = Variable("", "v");
  Const("", "one");
  Node* first = On("", "Identity", "first", {"one"});
  TW_ASSERT_OK(Place());
  ASSERT_EQ(DeviceOf(v), Cpu(0));
  // A placement made elsewhere (the session's earlier steps) is kept too.
  placement_[first->id()] = devices_->FindByName(Cpu(3));
  placement_[v->id()] = devices_->FindByName(Cpu(2));

  // An unconstrained newcomer in the group follows it.
  Node* add = On("", "AssignAdd", "add", {"v", "one"});
  TW_ASSERT_OK(Place());
  EXPECT_EQ(DeviceOf(add), Cpu(2));

  // The graph grows: an Assign asking for another device joins v's group,
  // which is already placed; without soft placement that is an error.
  Node* assign = On("/cpu:1", "Assign", "assign", {"v", "one"});
  Status status = Place();
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "Cannot assign a device for operation assign: {{node assign}} was "
            "explicitly assigned to /cpu:1 but its colocation group is "
            "already placed on " +
                Cpu(2));
  EXPECT_EQ(DeviceOf(assign), "(none)");
  TW_ASSERT_OK(Place(/*soft=*/true));
  EXPECT_EQ(DeviceOf(assign), Cpu(2));
  EXPECT_EQ(DeviceOf(v), Cpu(2));
  EXPECT_EQ(DeviceOf(first), Cpu(3));
}

TEST_F(PlacerTest, OnlyTheGivenNodesArePlaced) {
  UseDevices(4, false);
  Node* a = Const("/cpu:1", "a");
  Node* b = Const("", "b");
  PlacementOptions options;
  TW_ASSERT_OK(PlaceNodes(graph_, {a}, *devices_, options, &placement_));
  EXPECT_EQ(DeviceOf(a), Cpu(1));
  EXPECT_EQ(DeviceOf(b), "(none)");
}

TEST_F(PlacerTest, AConstGoesWithItsConsumers) {
  UseDevices(4, false);
  Node* single = Const("", "single");
  On("/cpu:3", "Identity", "single_user", {"single"});
  Node* shared = Const("", "shared");
  On("/cpu:2", "Identity", "user1", {"shared"});
  On("/cpu:2", "Identity", "user2", {"shared"});
  Node* split = Const("", "split");
  On("/cpu:1", "Identity", "user3", {"split"});
  On("/cpu:2", "Identity", "user4", {"split"});
  Node* pinned = Const("/cpu:0", "pinned");
  On("/cpu:1", "Identity", "user5", {"pinned"});
  TW_ASSERT_OK(Place());
  EXPECT_EQ(DeviceOf(single), Cpu(3));
  EXPECT_EQ(DeviceOf(shared), Cpu(2));  // all its consumers on one device
  EXPECT_EQ(DeviceOf(split), Cpu(0));   // consumers on two devices
  EXPECT_EQ(DeviceOf(pinned), Cpu(0));  // its own request first
}

TEST_F(PlacerTest, AConstFollowsTheConsumersOfThisStep) {
  UseDevices(4, false);
  Node* c = Const("", "c");
  Node* used = On("/cpu:3", "Identity", "used", {"c"});
  On("/cpu:1", "Identity", "not_run", {"c"});  // not in this step
  PlacementOptions options;
  TW_ASSERT_OK(PlaceNodes(graph_, {c, used}, *devices_, options, &placement_));
  EXPECT_EQ(DeviceOf(c), Cpu(3));
  EXPECT_EQ(DeviceOf(graph_.FindNode("not_run")), "(none)");
}

TEST_F(PlacerTest, LogDevicePlacementPrintsNewlyPlacedNodes) {
  UseDevices(2, false);
  Const("", "a");
  On("/cpu:1", "Identity", "b", {"a"});
  testing::internal::CaptureStderr();
  Status status = Place(/*soft=*/false, /*log=*/true);
  std::string log = testing::internal::GetCapturedStderr();
  TW_ASSERT_OK(status);
  // In the order placed, as TF: generators after the rest.
  EXPECT_EQ(log, "b: (Identity): " + Cpu(1) + "\na: (Const): " + Cpu(1) + "\n");

  On("", "Identity", "c", {"b"});
  testing::internal::CaptureStderr();
  status = Place(/*soft=*/false, /*log=*/true);
  log = testing::internal::GetCapturedStderr();
  TW_ASSERT_OK(status);
  EXPECT_EQ(log, "c: (Identity): " + Cpu(0) + "\n");

  testing::internal::CaptureStderr();
  TW_ASSERT_OK(Place());
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace tensorweave

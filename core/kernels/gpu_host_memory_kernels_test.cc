// The int32 shape arithmetic that gradients emit has kernels for "GPU" in
// the core (the CPU kernels, registered with host memory arguments), so that
// it stays on the host next to GPU work instead of falling back to the CPU
// device or crossing to the device and back. Checked through the registry's
// memory types, which partitioning uses.
#include <gtest/gtest.h>

#include "core/framework/graph_test_util.h"
#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

using MT = MemoryType;
using test::AddConst;
using test::AddOp;
using test::AddPlaceholder;
using test::AttrType;

struct Types {
  std::vector<MemoryType> in, out;
};

Types GpuMemoryTypes(const Node* node) {
  Types t;
  Status s = KernelRegistry::Global()->MemoryTypes(*node, "GPU", &t.in, &t.out);
  EXPECT_TRUE(s.ok()) << node->type_string() << ": " << s;
  return t;
}

TEST(GpuHostMemoryKernelsTest, Int32ArithmeticIsAllHost) {
  auto g = std::make_shared<Graph>();
  AddPlaceholder(g.get(), "a", DT_INT32);
  AddPlaceholder(g.get(), "b", DT_INT32);
  const Types all_host{{MT::kHost, MT::kHost}, {MT::kHost}};
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "Maximum", "Minimum",
                         "FloorDiv", "FloorMod"}) {
    Node* node = AddOp(g.get(), op, std::string("n_") + op, {"a", "b"},
                       {{"T", AttrType(DT_INT32)}});
    ASSERT_NE(node, nullptr) << op;
    Types t = GpuMemoryTypes(node);
    EXPECT_EQ(t.in, all_host.in) << op;
    EXPECT_EQ(t.out, all_host.out) << op;
  }
  Node* bga = AddOp(g.get(), "BroadcastGradientArgs", "bga", {"a", "b"},
                    {{"T", AttrType(DT_INT32)}});
  Types t = GpuMemoryTypes(bga);
  EXPECT_EQ(t.in, (std::vector<MT>{MT::kHost, MT::kHost}));
  EXPECT_EQ(t.out, (std::vector<MT>{MT::kHost, MT::kHost}));
}

TEST(GpuHostMemoryKernelsTest, ShapeReadsADeviceInputOnTheHost) {
  auto g = std::make_shared<Graph>();
  AddPlaceholder(g.get(), "x", DT_FLOAT);
  for (const char* op : {"Shape", "Size", "Rank"}) {
    Node* node = AddOp(g.get(), op, std::string("n_") + op, {"x"},
                       {{"T", AttrType(DT_FLOAT)}});
    ASSERT_NE(node, nullptr) << op;
    Types t = GpuMemoryTypes(node);
    EXPECT_EQ(t.in, (std::vector<MT>{MT::kDevice})) << op;
    EXPECT_EQ(t.out, (std::vector<MT>{MT::kHost})) << op;
  }
}

TEST(GpuHostMemoryKernelsTest, FloatArithmeticHasNoCoreGpuKernel) {
  // Float kernels for the GPU live in the GPU library, not in the core: the
  // int32 registrations must not match other dtypes.
  auto g = std::make_shared<Graph>();
  AddPlaceholder(g.get(), "a", DT_FLOAT);
  Node* add =
      AddOp(g.get(), "Add", "add", {"a", "a"}, {{"T", AttrType(DT_FLOAT)}});
  std::vector<MemoryType> in, out;
  Status s = KernelRegistry::Global()->MemoryTypes(*add, "GPU", &in, &out);
  EXPECT_EQ(s.code(), Code::kNotFound) << s;
}

TEST(GpuHostMemoryKernelsTest, Int32ShapeOpsRunOnTheHost) {
  // The GPU registration of Const (int32) builds and runs the CPU kernel.
  auto g = std::make_shared<Graph>();
  Tensor value(DT_INT32, TensorShape({2}));
  value.data<int32_t>()[0] = 3;
  value.data<int32_t>()[1] = -4;
  Node* c = AddConst(g.get(), "c", value);
  Types t = GpuMemoryTypes(c);
  EXPECT_EQ(t.out, (std::vector<MT>{MT::kHost}));
  std::unique_ptr<OpKernel> kernel;
  Status s = KernelRegistry::Global()->CreateKernel(*c, "GPU", &kernel);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(kernel->output_memory_type(0), MT::kHost);
}

}  // namespace
}  // namespace tensorweave

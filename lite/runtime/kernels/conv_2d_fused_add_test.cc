// The residual ADD the interpreter runs inside the CONV_2D that feeds it
// (Interpreter::FuseResidualAdds): on every CONV_2D path, against the
// reference interpreter, which runs the two nodes unfused; and the graphs
// it must leave alone.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "lite/runtime/kernels/conv_2d.h"
#include "lite/runtime/testing/op_model.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
namespace {

using testing::ActivationFunctionType;
using testing::BuiltinOperator;
using testing::OpModel;
using testing::Padding;
using testing::RandomFloats;

// Counts the nodes an interpreter evaluates.
class NodeCounter : public Profiler {
 public:
  void OnNodeDone(int, BuiltinOperator, double) override { ++count; }
  int count = 0;
};

// Nodes the optimized interpreter evaluates in one Invoke.
int NodesRun(OpModel* m) {
  NodeCounter counter;
  m->interpreter()->set_profiler(&counter);
  EXPECT_TRUE(m->interpreter()->Invoke().ok());
  m->interpreter()->set_profiler(nullptr);
  return counter.count;
}

std::vector<Conv2DPath>* observed_paths = nullptr;
void RecordPath(int /*node*/, Conv2DPath path) {
  if (observed_paths != nullptr) observed_paths->push_back(path);
}

struct Case {
  int batch, h, w, cin, cout, k, stride;
  Padding padding;
  Conv2DPath path;
};

int OutSize(int in, int k, int stride, Padding padding) {
  return padding == Padding::SAME ? (in + stride - 1) / stride
                                  : (in - k) / stride + 1;
}

TEST(Conv2DFusedAddTest, EveryPathMatchesUnfusedReference) {
  const std::vector<Case> cases = {
      // 24 outputs: a whole panel and the half-panel kernel's tail.
      {2, 5, 6, 8, 24, 1, 1, Padding::VALID, Conv2DPath::kPointwise},
      {1, 7, 9, 16, 33, 1, 1, Padding::VALID, Conv2DPath::kPointwise},
      {2, 9, 7, 3, 20, 3, 2, Padding::SAME, Conv2DPath::kIm2col},
      {1, 8, 8, 16, 16, 3, 1, Padding::SAME, Conv2DPath::kWinograd},
      {1, 8, 8, 3, 32, 3, 1, Padding::SAME, Conv2DPath::kInPlaceRows},
      {2, 9, 11, 1, 12, 3, 1, Padding::SAME, Conv2DPath::kDirectRows},
      {1, 11, 11, 1, 4, 3, 2, Padding::SAME, Conv2DPath::kTransposedIm2col},
  };
  for (const Case& c : cases) {
    for (auto act :
         {ActivationFunctionType::NONE, ActivationFunctionType::RELU6}) {
      for (int conv_first : {0, 1}) {
        for (int threads : {1, 2}) {
          const std::string what =
              std::string(Conv2DPathName(c.path)) + " act " +
              std::to_string(static_cast<int>(act)) + " conv operand " +
              std::to_string(1 - conv_first) + " threads " +
              std::to_string(threads);
          const int oh = OutSize(c.h, c.k, c.stride, c.padding);
          const int ow = OutSize(c.w, c.k, c.stride, c.padding);
          std::vector<Conv2DPath> paths;
          observed_paths = &paths;
          SetConv2DPathObserver(RecordPath);
          OpModel m;
          int x = m.AddInput(DataType::kFloat32, {c.batch, c.h, c.w, c.cin});
          int r = m.AddInput(DataType::kFloat32, {c.batch, oh, ow, c.cout});
          int n = c.cout * c.k * c.k * c.cin;
          int w =
              m.AddConst<float>({c.cout, c.k, c.k, c.cin}, RandomFloats(n, n));
          int b = m.AddConst<float>({c.cout}, RandomFloats(c.cout, 3));
          int conv = m.builder().AddTensor(DataType::kFloat32,
                                           {c.batch, oh, ow, c.cout}, "conv");
          int y = m.AddOutput(DataType::kFloat32);
          m.AddOp(BuiltinOperator::CONV_2D, {x, w, b}, {conv},
                  m.builder().Conv2D(c.padding, c.stride, c.stride));
          m.AddOp(BuiltinOperator::ADD,
                  conv_first ? std::vector<int>{conv, r}
                             : std::vector<int>{r, conv},
                  {y}, m.builder().Arithmetic(act));
          Status s = m.Build(threads);
          SetConv2DPathObserver(nullptr);
          observed_paths = nullptr;
          ASSERT_TRUE(s.ok()) << what << ": " << s.message();
          EXPECT_EQ(std::set<Conv2DPath>(paths.begin(), paths.end()),
                    (std::set<Conv2DPath>{c.path, Conv2DPath::kReference}))
              << what;
          m.SetInput<float>(0, RandomFloats(c.batch * c.h * c.w * c.cin, 4));
          m.SetInput<float>(1,
                            RandomFloats(c.batch * oh * ow * c.cout, 5, 3.f));
          ASSERT_TRUE(m.Invoke().ok()) << what;
          EXPECT_EQ(m.CompareWithReference(), "") << what;
          EXPECT_EQ(NodesRun(&m), 1) << what << ": the ADD was not fused";
        }
      }
    }
  }
}

// A projection shortcut (ResNet): ADD(conv_a(x), conv_b(x)). The ADD runs
// in whichever convolution runs second, the other's output being ready.
TEST(Conv2DFusedAddTest, TwoConvolutionsFuseIntoTheLater) {
  for (int b_first : {0, 1}) {
    OpModel m;
    int x = m.AddInput(DataType::kFloat32, {1, 6, 6, 8});
    int wa = m.AddConst<float>({16, 1, 1, 8}, RandomFloats(128, 1));
    int wb = m.AddConst<float>({16, 3, 3, 8}, RandomFloats(1152, 2));
    int ca = m.builder().AddTensor(DataType::kFloat32, {1, 6, 6, 16}, "a");
    int cb = m.builder().AddTensor(DataType::kFloat32, {1, 6, 6, 16}, "b");
    int y = m.AddOutput(DataType::kFloat32);
    auto conv_b = [&] {
      m.AddOp(BuiltinOperator::CONV_2D, {x, wb}, {cb},
              m.builder().Conv2D(Padding::SAME, 1, 1));
    };
    if (b_first) conv_b();
    m.AddOp(BuiltinOperator::CONV_2D, {x, wa}, {ca},
            m.builder().Conv2D(Padding::VALID, 1, 1));
    if (!b_first) conv_b();
    m.AddOp(BuiltinOperator::ADD, {ca, cb}, {y},
            m.builder().Arithmetic(ActivationFunctionType::RELU));
    ASSERT_TRUE(m.Build().ok());
    m.SetInput<float>(0, RandomFloats(288, 3));
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.CompareWithReference(), "");
    EXPECT_EQ(NodesRun(&m), 2) << "b first: " << b_first;
  }
}

// Graphs where the ADD must stay a node of its own: the convolution has an
// activation, its output is read elsewhere too (a graph output), the ADD
// broadcasts, or its activation is not a clamp. Each still matches the
// reference.
TEST(Conv2DFusedAddTest, LeavesOtherGraphsUnfused) {
  enum Kind { kConvRelu, kConvOutputRead, kBroadcast, kAddTanh };
  for (Kind kind : {kConvRelu, kConvOutputRead, kBroadcast, kAddTanh}) {
    OpModel m;
    int x = m.AddInput(DataType::kFloat32, {1, 4, 5, 8});
    std::vector<int32_t> r_shape = {1, 4, 5, 16};
    if (kind == kBroadcast) r_shape = {1, 1, 1, 16};
    int r = m.AddInput(DataType::kFloat32, r_shape);
    int w = m.AddConst<float>({16, 1, 1, 8}, RandomFloats(128, 1));
    int conv =
        kind == kConvOutputRead
            ? m.AddOutput(DataType::kFloat32, "conv")
            : m.builder().AddTensor(DataType::kFloat32, {1, 4, 5, 16}, "conv");
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(
        BuiltinOperator::CONV_2D, {x, w}, {conv},
        m.builder().Conv2D(Padding::VALID, 1, 1,
                           kind == kConvRelu ? ActivationFunctionType::RELU
                                             : ActivationFunctionType::NONE));
    m.AddOp(BuiltinOperator::ADD, {conv, r}, {y},
            m.builder().Arithmetic(kind == kAddTanh
                                       ? ActivationFunctionType::TANH
                                       : ActivationFunctionType::NONE));
    ASSERT_TRUE(m.Build().ok()) << kind;
    m.SetInput<float>(0, RandomFloats(160, 3));
    m.SetInput<float>(1, RandomFloats(r_shape[1] * r_shape[2] * 16, 4));
    ASSERT_TRUE(m.Invoke().ok()) << kind;
    EXPECT_EQ(m.CompareWithReference(), "") << kind;
    EXPECT_EQ(NodesRun(&m), 2) << kind;
  }
}

// Fused on the declared shapes; a residual resized to broadcast is then an
// error naming it (the unfused ADD would have broadcast it).
TEST(Conv2DFusedAddTest, ResidualResizedToBroadcastIsAnError) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, 4, 5, 8});
  int r = m.AddInput(DataType::kFloat32, {1, 4, 5, 16}, "residual");
  int w = m.AddConst<float>({16, 1, 1, 8}, RandomFloats(128, 1));
  int conv = m.builder().AddTensor(DataType::kFloat32, {1, 4, 5, 16}, "conv");
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::CONV_2D, {x, w}, {conv},
          m.builder().Conv2D(Padding::VALID, 1, 1));
  m.AddOp(BuiltinOperator::ADD, {conv, r}, {y}, m.builder().Arithmetic());
  ASSERT_TRUE(m.Build().ok());
  Interpreter* in = m.interpreter();
  ASSERT_TRUE(in->ResizeInputTensor(1, Shape({1, 1, 1, 16})).ok());
  Status s = in->AllocateTensors();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("'residual' of shape [1,1,1,16]"),
            std::string::npos)
      << s.message();
  // Back to the declared shape: runs again.
  ASSERT_TRUE(in->ResizeInputTensor(1, Shape({1, 4, 5, 16})).ok());
  ASSERT_TRUE(in->AllocateTensors().ok()) << in->error_message();
}

}  // namespace
}  // namespace twl

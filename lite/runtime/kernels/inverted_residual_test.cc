// The inverted residual block the interpreter runs as one node
// (Interpreter::FuseInvertedResiduals): CONV_2D 1x1 -> DEPTHWISE_CONV_2D 3x3
// -> CONV_2D 1x1 [-> ADD], against the reference interpreter, which runs the
// nodes unfused; and the chains it must leave alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lite/runtime/testing/op_model.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
namespace {

using testing::ActivationFunctionType;
using testing::BuiltinOperator;
using testing::ExplicitPads;
using testing::OpModel;
using testing::Padding;
using testing::RandomFloats;

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

// Nodes a fused block runs as: aarch64 runs blocks unfused (the library's
// size; see Interpreter::FuseInvertedResiduals), 3 nodes (+ the ADD, which
// runs in the projection).
#if defined(__aarch64__)
constexpr int kFusedNodes = 3;
#else
constexpr int kFusedNodes = 1;
#endif

struct Block {
  int batch = 1, h = 8, w = 8, cin = 8, expanded = 24, cout = 8, stride = 1;
  Padding padding = Padding::SAME;
  ExplicitPads pads;  // with Padding::EXPLICIT
  bool residual = false, biases = true;
  ActivationFunctionType expand_act = ActivationFunctionType::RELU6;
  ActivationFunctionType dw_act = ActivationFunctionType::RELU6;
  ActivationFunctionType out_act = ActivationFunctionType::NONE;
  // Chains that must not fuse.
  bool expansion_read_twice = false;
  int expand_k = 1, dilation = 1;

  std::string Name() const {
    char text[200];
    snprintf(text, sizeof(text),
             "batch %d %dx%dx%d -> %d -> %d stride %d padding %d residual %d "
             "biases %d acts %d/%d/%d",
             batch, h, w, cin, expanded, cout, stride,
             static_cast<int>(padding), residual, biases,
             static_cast<int>(expand_act), static_cast<int>(dw_act),
             static_cast<int>(out_act));
    return text;
  }
};

int OutSize(int in, int stride, Padding padding, int pad_sum, int dilation) {
  const int window = 2 * dilation + 1;
  if (padding == Padding::SAME) return (in + stride - 1) / stride;
  if (padding == Padding::VALID) return (in - window) / stride + 1;
  return (in + pad_sum - window) / stride + 1;
}

// Builds the block, runs it on `threads` threads, compares it with the
// reference interpreter and returns the number of nodes run.
int RunBlock(const Block& c, int threads, size_t min_fused_block_bytes = 0) {
  const std::string what = c.Name() + " threads " + std::to_string(threads);
  OpModel m;
  m.options().min_fused_block_bytes = min_fused_block_bytes;
  const int oh =
      OutSize(c.h, c.stride, c.padding, c.pads.top + c.pads.bottom, c.dilation);
  const int ow =
      OutSize(c.w, c.stride, c.padding, c.pads.left + c.pads.right, c.dilation);
  int x = m.AddInput(DataType::kFloat32, {c.batch, c.h, c.w, c.cin});
  int we = m.AddConst<float>(
      {c.expanded, c.expand_k, c.expand_k, c.cin},
      RandomFloats(c.expanded * c.expand_k * c.expand_k * c.cin, 1));
  int be = m.AddConst<float>({c.expanded}, RandomFloats(c.expanded, 2));
  int wd =
      m.AddConst<float>({1, 3, 3, c.expanded}, RandomFloats(9 * c.expanded, 3));
  int bd = m.AddConst<float>({c.expanded}, RandomFloats(c.expanded, 4));
  int wp = m.AddConst<float>({c.cout, 1, 1, c.expanded},
                             RandomFloats(c.cout * c.expanded, 5, 0.5f));
  int bp = m.AddConst<float>({c.cout}, RandomFloats(c.cout, 6));
  int e = c.expansion_read_twice
              ? m.AddOutput(DataType::kFloat32, "expanded")
              : m.builder().AddTensor(DataType::kFloat32,
                                      {c.batch, c.h, c.w, c.expanded}, "e");
  int d = m.builder().AddTensor(DataType::kFloat32,
                                {c.batch, oh, ow, c.expanded}, "d");
  int p = c.residual ? m.builder().AddTensor(DataType::kFloat32,
                                             {c.batch, oh, ow, c.cout}, "p")
                     : m.AddOutput(DataType::kFloat32, "p");
  auto maybe = [&](int w, int b) {
    return c.biases ? std::vector<int>{w, b} : std::vector<int>{w};
  };
  std::vector<int> ins = {x};
  for (int t : maybe(we, be)) ins.push_back(t);
  m.AddOp(BuiltinOperator::CONV_2D, ins, {e},
          m.builder().Conv2D(c.expand_k == 1 ? Padding::VALID : Padding::SAME,
                             1, 1, c.expand_act));
  ins = {e};
  for (int t : maybe(wd, bd)) ins.push_back(t);
  m.AddOp(
      BuiltinOperator::DEPTHWISE_CONV_2D, ins, {d},
      m.builder().DepthwiseConv2D(c.padding, c.stride, c.stride, 1, c.dw_act,
                                  c.dilation, c.dilation, c.pads));
  ins = {d};
  for (int t : maybe(wp, bp)) ins.push_back(t);
  m.AddOp(BuiltinOperator::CONV_2D, ins, {p},
          m.builder().Conv2D(
              Padding::VALID, 1, 1,
              c.residual ? ActivationFunctionType::NONE : c.out_act));
  if (c.residual) {
    int y = m.AddOutput(DataType::kFloat32, "y");
    // MobileNetV2 adds the block's input; stride 1 and cin == cout then.
    m.AddOp(BuiltinOperator::ADD, {x, p}, {y},
            m.builder().Arithmetic(c.out_act));
  }
  Status s = m.Build(threads);
  EXPECT_TRUE(s.ok()) << what << ": " << s.message();
  if (!s.ok()) return -1;
  m.SetInput<float>(0, RandomFloats(c.batch * c.h * c.w * c.cin, 7, 2.f));
  EXPECT_TRUE(m.Invoke().ok()) << what;
  EXPECT_EQ(m.CompareWithReference(), "") << what;
  return NodesRun(&m);
}

TEST(InvertedResidualTest, FusedMatchesUnfusedReference) {
  std::vector<Block> cases;
  Block c;
  cases.push_back(c);  // 8x8, stride 1, SAME
  c.residual = true;
  cases.push_back(c);
  // Odd sizes, many bands (the held expanded rows moved up), channel counts
  // off the vector width and the GEMM's panel.
  c = Block();
  c.h = 37, c.w = 9, c.cin = 5, c.expanded = 30, c.cout = 5, c.residual = true;
  cases.push_back(c);
  c.biases = false, c.out_act = ActivationFunctionType::RELU;
  cases.push_back(c);
  // Stride 2, SAME and the explicit pads ONNX models carry, odd sizes.
  c = Block();
  c.h = 23, c.w = 13, c.cin = 16, c.expanded = 96, c.cout = 24, c.stride = 2;
  cases.push_back(c);
  c.padding = Padding::EXPLICIT, c.pads = {1, 1, 1, 1};
  cases.push_back(c);
  c.pads = {0, 1, 0, 1}, c.h = 12, c.w = 12;
  cases.push_back(c);
  c.padding = Padding::VALID, c.pads = {};
  cases.push_back(c);
  // Wide rows: one output row per band.
  c = Block();
  c.h = 6, c.w = 120, c.cin = 8, c.expanded = 48, c.cout = 8;
  c.residual = true, c.out_act = ActivationFunctionType::RELU6;
  cases.push_back(c);
  // Batch 2, several bands per image; no activations.
  c = Block();
  c.batch = 2, c.h = 17, c.w = 7, c.cin = 12, c.expanded = 72, c.cout = 12;
  c.expand_act = c.dw_act = ActivationFunctionType::NONE;
  c.residual = true;
  cases.push_back(c);
  c.stride = 2, c.residual = false;
  cases.push_back(c);
  for (const Block& b : cases) {
    for (int threads : {1, 2, 3}) {
      EXPECT_EQ(RunBlock(b, threads), kFusedNodes)
          << b.Name() << " threads " << threads << ": the block was not fused";
    }
  }
}

// Chains that stay unfused: the expansion's output also read elsewhere (a
// graph output), a 3x3 "expansion", a dilated depthwise. Each still matches
// the reference.
TEST(InvertedResidualTest, LeavesOtherChainsUnfused) {
  Block c;
  c.expansion_read_twice = true;
  EXPECT_EQ(RunBlock(c, 2), 3);
  c = Block();
  c.dilation = 2;
  EXPECT_EQ(RunBlock(c, 2), 3);
  c = Block();
  c.expand_k = 3;
  EXPECT_EQ(RunBlock(c, 2), 3);
}

// By default only blocks whose expanded tensor has at least 2 MiB fuse.
TEST(InvertedResidualTest, SmallBlocksStayUnfusedByDefault) {
  Block c;  // 8x8x24 floats expanded
  EXPECT_EQ(RunBlock(c, 1, InterpreterOptions().min_fused_block_bytes), 3);
  c.h = 64, c.w = 64, c.expanded = 128, c.stride = 2;  // 2 MiB
  EXPECT_EQ(RunBlock(c, 2, InterpreterOptions().min_fused_block_bytes),
            kFusedNodes);
}

}  // namespace
}  // namespace twl

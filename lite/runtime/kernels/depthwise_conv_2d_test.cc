#include <gtest/gtest.h>

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

TEST(DepthwiseConv2DTest, HandComputed) {
  // 2x2 input, 2 channels, 2x2 filter, VALID -> one pixel per channel.
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, 2, 2, 2});
  int w = m.AddConst<float>({1, 2, 2, 2}, {1, 10, 2, 20, 3, 30, 4, 40});
  int b = m.AddConst<float>({2}, {0.5f, -1});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::DEPTHWISE_CONV_2D, {x, w, b}, {y},
          m.builder().DepthwiseConv2D(Padding::VALID, 1, 1, 1));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 1, 2, 2, 3, 3, 4, 4});
  ASSERT_TRUE(m.Invoke().ok());
  // c0: 1*1 + 2*2 + 3*3 + 4*4 = 30 (+0.5); c1: 10 * 30 = 300 (-1).
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{30.5f, 299}));
  EXPECT_EQ(m.CompareWithReference(), "");
}

struct Case {
  int h, w, c, mult, k, stride_h, stride_w, dilation;
  Padding padding;
  bool bias;
  ActivationFunctionType act;
  int threads;
};

// Builds the case, runs it and compares the optimized kernel (the vector
// kernel of this run's ISA) with the reference.
void ExpectMatchesReference(const Case& c, ExplicitPads pads = {}) {
  SCOPED_TRACE(::testing::Message()
               << c.h << "x" << c.w << "x" << c.c << " mult " << c.mult << " k "
               << c.k << " stride " << c.stride_h << "x" << c.stride_w
               << " dilation " << c.dilation << " padding "
               << static_cast<int>(c.padding) << " bias " << c.bias
               << " threads " << c.threads << " pads " << pads.top << ","
               << pads.bottom << "," << pads.left << "," << pads.right);
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, c.h, c.w, c.c});
  int oc = c.c * c.mult;
  int w = m.AddConst<float>({1, c.k, c.k, oc}, RandomFloats(c.k * c.k * oc, 1));
  std::vector<int> inputs = {x, w};
  if (c.bias) inputs.push_back(m.AddConst<float>({oc}, RandomFloats(oc, 2)));
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::DEPTHWISE_CONV_2D, inputs, {y},
          m.builder().DepthwiseConv2D(c.padding, c.stride_h, c.stride_w, c.mult,
                                      c.act, c.dilation, c.dilation));
  ASSERT_TRUE(m.Build(c.threads).ok());
  m.SetInput<float>(0, RandomFloats(2 * c.h * c.w * c.c, 3, 4.f));
  ASSERT_TRUE(m.Invoke().ok());
  ASSERT_EQ(m.CompareWithReference(), "");
}

TEST(DepthwiseConv2DTest, OptimizedMatchesReference) {
  const ActivationFunctionType kRelu6 = ActivationFunctionType::RELU6;
  for (const Case& c : std::vector<Case>{
           {8, 8, 16, 1, 3, 1, 1, 1, Padding::SAME, true, kRelu6, 2},
           {9, 7, 3, 2, 3, 2, 2, 1, Padding::SAME, true, kRelu6, 2},
           {10, 10, 5, 1, 3, 1, 1, 2, Padding::VALID, true, kRelu6, 2},
           {32, 32, 32, 1, 3, 1, 1, 1, Padding::SAME, true, kRelu6, 2}}) {
    ExpectMatchesReference(c);
  }
}

// The vector paths: 3x3 stride 1 and 2 (4-pixel blocks, single pixels and
// clipped border pixels), both paddings, odd and even sizes, channel counts
// with and without a remainder after whole vectors (4, 8 and 16 wide),
// other kernel sizes, dilation, unequal strides, no bias, 1 and 2 threads.
TEST(DepthwiseConv2DTest, VectorPathsMatchReference) {
  const ActivationFunctionType kRelu6 = ActivationFunctionType::RELU6;
  const ActivationFunctionType kNone = ActivationFunctionType::NONE;
  for (Padding padding : {Padding::SAME, Padding::VALID}) {
    for (int stride : {1, 2}) {
      for (int channels : {1, 3, 8, 13, 16, 24, 37}) {
        for (int size : {1, 2, 5, 12, 13}) {
          if (padding == Padding::VALID && size < 3) continue;
          for (int threads : {1, 2}) {
            ExpectMatchesReference({size, size + 3, channels, 1, 3, stride,
                                    stride, 1, padding, true, kRelu6, threads});
          }
        }
      }
    }
  }
  for (const Case& c : std::vector<Case>{
           // No bias, no activation.
           {14, 14, 24, 1, 3, 1, 1, 1, Padding::SAME, false, kNone, 2},
           {14, 14, 24, 1, 3, 2, 2, 1, Padding::SAME, false, kRelu6, 1},
           // Other kernels, dilation, unequal strides.
           {11, 9, 19, 1, 5, 1, 1, 1, Padding::SAME, true, kRelu6, 2},
           {11, 9, 19, 1, 5, 2, 2, 1, Padding::VALID, true, kRelu6, 2},
           {12, 12, 17, 1, 3, 1, 1, 2, Padding::SAME, true, kRelu6, 2},
           {12, 12, 17, 1, 3, 2, 2, 3, Padding::SAME, true, kRelu6, 1},
           {12, 15, 9, 1, 3, 1, 2, 1, Padding::SAME, true, kRelu6, 2},
           {12, 15, 9, 1, 3, 2, 1, 1, Padding::VALID, true, kNone, 2},
           {7, 7, 8, 1, 1, 1, 1, 1, Padding::SAME, true, kRelu6, 2},
           {7, 7, 8, 1, 2, 2, 2, 1, Padding::SAME, true, kRelu6, 2},
           // Depth multiplier > 1.
           {10, 11, 5, 3, 3, 1, 1, 1, Padding::SAME, true, kRelu6, 2},
           {10, 11, 8, 2, 3, 2, 2, 1, Padding::SAME, false, kNone, 1},
           // MobileNetV2-like layers.
           {28, 28, 144, 1, 3, 1, 1, 1, Padding::SAME, true, kRelu6, 2},
           {28, 28, 144, 1, 3, 2, 2, 1, Padding::VALID, true, kRelu6, 2}}) {
    ExpectMatchesReference(c);
  }
}

// Padding EXPLICIT (the converter's ONNX pads): symmetric pads that SAME
// would put elsewhere (stride 2 on an even size), asymmetric pads, pads
// wider than the window (outputs that read only padding).
TEST(DepthwiseConv2DTest, ExplicitPaddingMatchesReference) {
  const ActivationFunctionType kRelu6 = ActivationFunctionType::RELU6;
  for (int stride : {1, 2}) {
    for (ExplicitPads pads :
         {ExplicitPads{1, 1, 1, 1}, ExplicitPads{0, 2, 1, 0},
          ExplicitPads{2, 0, 0, 3}, ExplicitPads{4, 4, 4, 4}}) {
      for (int threads : {1, 2}) {
        ExpectMatchesReference({12, 14, 24, 1, 3, stride, stride, 1,
                                Padding::EXPLICIT, true, kRelu6, threads},
                               pads);
        ExpectMatchesReference({7, 6, 13, 2, 3, stride, stride, 1,
                                Padding::EXPLICIT, true, kRelu6, threads},
                               pads);
      }
    }
  }
}

TEST(DepthwiseConv2DTest, ExplicitPaddingOutputShape) {
  // 8x8, 3x3 stride 2, pads 1 on each side: 4x4 like SAME, but the window
  // starts one pixel earlier (pad_top 1 where SAME has 0).
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, 8, 8, 1});
  int w = m.AddConst<float>({1, 3, 3, 1}, std::vector<float>(9, 1.f));
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::DEPTHWISE_CONV_2D, {x, w}, {y},
          m.builder().DepthwiseConv2D(Padding::EXPLICIT, 2, 2, 1,
                                      ActivationFunctionType::NONE, 1, 1,
                                      ExplicitPads{1, 1, 1, 1}));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, std::vector<float>(64, 1.f));
  ASSERT_TRUE(m.Invoke().ok());
  std::vector<float> out = m.GetOutput<float>(0);
  ASSERT_EQ(out.size(), 16u);
  EXPECT_EQ(out[0], 4.f);   // the corner window: 2x2 of it in the image
  EXPECT_EQ(out[1], 6.f);   // the top edge: 2x3
  EXPECT_EQ(out[5], 9.f);   // inside
  EXPECT_EQ(out[15], 9.f);  // the last window ends at row/column 7
  EXPECT_EQ(m.CompareWithReference(), "");
}

}  // namespace
}  // namespace twl

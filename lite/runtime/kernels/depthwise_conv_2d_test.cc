#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
namespace {

using testing::ActivationFunctionType;
using testing::BuiltinOperator;
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

TEST(DepthwiseConv2DTest, OptimizedMatchesReference) {
  struct Case {
    int h, w, c, mult, k, stride, dilation;
    Padding padding;
  };
  for (const Case& c :
       std::vector<Case>{{8, 8, 16, 1, 3, 1, 1, Padding::SAME},
                         {9, 7, 3, 2, 3, 2, 1, Padding::SAME},
                         {10, 10, 5, 1, 3, 1, 2, Padding::VALID},
                         {32, 32, 32, 1, 3, 1, 1, Padding::SAME}}) {
    OpModel m;
    int x = m.AddInput(DataType::kFloat32, {2, c.h, c.w, c.c});
    int oc = c.c * c.mult;
    int w =
        m.AddConst<float>({1, c.k, c.k, oc}, RandomFloats(c.k * c.k * oc, 1));
    int b = m.AddConst<float>({oc}, RandomFloats(oc, 2));
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::DEPTHWISE_CONV_2D, {x, w, b}, {y},
            m.builder().DepthwiseConv2D(c.padding, c.stride, c.stride, c.mult,
                                        ActivationFunctionType::RELU6,
                                        c.dilation, c.dilation));
    ASSERT_TRUE(m.Build(2).ok());
    m.SetInput<float>(0, RandomFloats(2 * c.h * c.w * c.c, 3, 4.f));
    ASSERT_TRUE(m.Invoke().ok());
    ASSERT_EQ(m.CompareWithReference(), "");
  }
}

}  // namespace
}  // namespace twl

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

std::vector<float> Pool(BuiltinOperator op, Padding padding) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, 3, 3, 1});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(op, {x}, {y}, m.builder().Pool2D(padding, 2, 2, 2, 2));
  EXPECT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  return m.GetOutput<float>(0);
}

TEST(PoolingTest, HandComputed) {
  EXPECT_EQ(Pool(BuiltinOperator::MAX_POOL_2D, Padding::VALID),
            (std::vector<float>{5}));
  EXPECT_EQ(Pool(BuiltinOperator::MAX_POOL_2D, Padding::SAME),
            (std::vector<float>{5, 6, 8, 9}));
  EXPECT_EQ(Pool(BuiltinOperator::AVERAGE_POOL_2D, Padding::VALID),
            (std::vector<float>{3}));
  // Padding is not counted: (3+6)/2, (7+8)/2, 9/1.
  EXPECT_EQ(Pool(BuiltinOperator::AVERAGE_POOL_2D, Padding::SAME),
            (std::vector<float>{3, 4.5f, 7.5f, 9}));
}

TEST(PoolingTest, OptimizedMatchesReference) {
  // Strides (h, w) and kernels that leave input columns unused (VALID),
  // clip windows (SAME), overlap (stride < kernel); channel counts with and
  // without a compile-time specialization, and one whose combined row
  // exceeds the on-stack buffer.
  const int strides[][2] = {{2, 1}, {2, 2}, {1, 3}};
  for (auto op :
       {BuiltinOperator::MAX_POOL_2D, BuiltinOperator::AVERAGE_POOL_2D}) {
    for (auto padding : {Padding::SAME, Padding::VALID}) {
      for (const auto& stride : strides) {
        for (int k : {1, 2, 3}) {
          for (int channels : {1, 3, 6, 16, 19, 40, 400}) {
            for (auto act :
                 {ActivationFunctionType::RELU, ActivationFunctionType::NONE}) {
              OpModel m;
              int x = m.AddInput(DataType::kFloat32, {2, 13, 11, channels});
              int y = m.AddOutput(DataType::kFloat32);
              m.AddOp(
                  op, {x}, {y},
                  m.builder().Pool2D(padding, stride[0], stride[1], k, k, act));
              ASSERT_TRUE(m.Build(2).ok());
              m.SetInput<float>(0, RandomFloats(2 * 13 * 11 * channels, k));
              ASSERT_TRUE(m.Invoke().ok());
              ASSERT_EQ(m.CompareWithReference(), "")
                  << channels << " channels, k " << k << ", strides "
                  << stride[0] << "x" << stride[1];
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace twl

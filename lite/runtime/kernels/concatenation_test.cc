#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::ActivationFunctionType;
using testing::BuiltinOperator;
using testing::OpModel;

TEST(ConcatenationTest, Axis1WithRelu) {
  OpModel m;
  int a = m.AddInput(DataType::kFloat32, {2, 1});
  int b = m.AddInput(DataType::kFloat32, {2, 2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::CONCATENATION, {a, b}, {y},
          m.builder().Concatenation(-1, ActivationFunctionType::RELU));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, -2});
  m.SetInput<float>(1, {3, 4, 5, -6});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{1, 3, 4, 0, 5, 0}));
}

TEST(ConcatenationTest, Axis0Int32AndMismatch) {
  OpModel m;
  int a = m.AddInput(DataType::kInt32, {1, 2});
  int c = m.AddConst<int32_t>({2, 2}, {5, 6, 7, 8});
  int y = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::CONCATENATION, {a, c}, {y},
          m.builder().Concatenation(0));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int32_t>(0, {1, 2});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int32_t>(0), (std::vector<int32_t>{1, 2, 5, 6, 7, 8}));

  OpModel bad;
  a = bad.AddInput(DataType::kFloat32, {1, 2});
  int b = bad.AddInput(DataType::kFloat32, {1, 3});
  y = bad.AddOutput(DataType::kFloat32);
  bad.AddOp(BuiltinOperator::CONCATENATION, {a, b}, {y},
            bad.builder().Concatenation(0));
  EXPECT_FALSE(bad.Build().ok());
}

}  // namespace
}  // namespace twl

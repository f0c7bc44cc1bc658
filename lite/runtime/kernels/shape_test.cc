#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

TEST(ShapeTest, DimsAsInt32OrInt64) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 3, 4});
  int y64 = m.AddOutput(DataType::kInt64);
  int y32 = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::SHAPE, {x}, {y64});
  m.AddOp(BuiltinOperator::SHAPE, {x}, {y32});
  ASSERT_TRUE(m.Build().ok());
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int64_t>(0), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(m.GetOutput<int32_t>(1), (std::vector<int32_t>{2, 3, 4}));
  ASSERT_TRUE(m.ResizeInput(0, Shape({5, 1, 7})).ok());
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int64_t>(0), (std::vector<int64_t>{5, 1, 7}));
}

TEST(ShapeTest, RejectsAFloatOutput) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::SHAPE, {x}, {y});
  EXPECT_FALSE(m.Build().ok());
}

}  // namespace
}  // namespace twl

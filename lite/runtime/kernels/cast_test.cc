#include <gtest/gtest.h>

#include <climits>
#include <cmath>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

TEST(CastTest, FloatToIntSaturatesAndTruncates) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {5});
  int y = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::CAST, {x}, {y});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1.9f, -1.9f, 1e20f, -1e20f, NAN});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int32_t>(0),
            (std::vector<int32_t>{1, -1, INT_MAX, INT_MIN, 0}));
}

TEST(CastTest, IntToFloatAndBool) {
  OpModel m;
  int x = m.AddInput(DataType::kInt64, {3});
  int f = m.AddOutput(DataType::kFloat32);
  int b = m.AddOutput(DataType::kBool);
  m.AddOp(BuiltinOperator::CAST, {x}, {f});
  m.AddOp(BuiltinOperator::CAST, {x}, {b});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int64_t>(0, {0, -3, 7});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{0, -3, 7}));
  EXPECT_EQ(m.GetOutput<uint8_t>(1), (std::vector<uint8_t>{0, 1, 1}));
}

}  // namespace
}  // namespace twl

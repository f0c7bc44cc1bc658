#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

TEST(ArgMaxTest, LastAxisInt64AndFirstAxisInt32) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 3});
  int axis = m.AddConst<int32_t>({1}, {-1});
  int y = m.AddOutput(DataType::kInt64);
  m.AddOp(BuiltinOperator::ARG_MAX, {x, axis}, {y},
          m.builder().ArgMax(DataType::kInt64));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 5, 5, -1, -3, -2});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int64_t>(0), (std::vector<int64_t>{1, 0}));

  OpModel a;
  x = a.AddInput(DataType::kInt32, {2, 3});
  axis = a.AddConst<int64_t>({}, {0});
  y = a.AddOutput(DataType::kInt32);
  a.AddOp(BuiltinOperator::ARG_MAX, {x, axis}, {y},
          a.builder().ArgMax(DataType::kInt32));
  ASSERT_TRUE(a.Build().ok());
  a.SetInput<int32_t>(0, {1, 5, 0, 2, 4, 0});
  ASSERT_TRUE(a.Invoke().ok());
  EXPECT_EQ(a.GetOutput<int32_t>(0), (std::vector<int32_t>{1, 0, 0}));
}

}  // namespace
}  // namespace twl

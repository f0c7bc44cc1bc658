#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

TEST(PadTest, Rank2WithFill) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 2});
  int pads = m.AddConst<int32_t>({2, 2}, {1, 0, 0, 2});
  int fill = m.AddConst<float>({}, {-1});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::PAD, {x, pads, fill}, {y});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 2, 3, 4});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(m.GetOutput<float>(0),
            (std::vector<float>{-1, -1, -1, -1, 1, 2, -1, -1, 3, 4, -1, -1}));
}

TEST(PadTest, RejectsNegativePadding) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2});
  int pads = m.AddConst<int64_t>({1, 2}, {-1, 0});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::PAD, {x, pads}, {y});
  EXPECT_FALSE(m.Build().ok());
}

}  // namespace
}  // namespace twl

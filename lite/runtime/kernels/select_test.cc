#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

TEST(SelectTest, BroadcastsConditionAndOperands) {
  OpModel m;
  int c = m.AddInput(DataType::kBool, {1, 3});
  int x = m.AddInput(DataType::kFloat32, {2, 3});
  int y = m.AddConst<float>({1}, {-100.f});
  int out = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::SELECT, {c, x, y}, {out});
  Status s = m.Build();
  ASSERT_TRUE(s.ok()) << s.message();
  m.SetInput<uint8_t>(0, {1, 0, 1});
  m.SetInput<float>(1, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(m.GetOutput<float>(0),
            (std::vector<float>{1, -100, 3, 4, -100, 6}));
}

TEST(SelectTest, Int64AndOuterBroadcast) {
  OpModel m;
  int c = m.AddInput(DataType::kBool, {2, 1});
  int x = m.AddConst<int64_t>({1, 2}, {7, 8});
  int y = m.AddConst<int64_t>({1}, {0});
  int out = m.AddOutput(DataType::kInt64);
  m.AddOp(BuiltinOperator::SELECT, {c, x, y}, {out});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<uint8_t>(0, {0, 7});  // any non-zero byte is true
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int64_t>(0), (std::vector<int64_t>{0, 0, 7, 8}));
}

TEST(SelectTest, RejectsNonBoolConditionAndMixedTypes) {
  {
    OpModel m;
    int c = m.AddInput(DataType::kFloat32, {2});
    int x = m.AddInput(DataType::kFloat32, {2});
    int out = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::SELECT, {c, x, x}, {out});
    EXPECT_FALSE(m.Build().ok());
  }
  {
    OpModel m;
    int c = m.AddInput(DataType::kBool, {2});
    int x = m.AddInput(DataType::kFloat32, {2});
    int y = m.AddInput(DataType::kInt32, {2});
    int out = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::SELECT, {c, x, y}, {out});
    EXPECT_FALSE(m.Build().ok());
  }
  {
    OpModel m;
    int c = m.AddInput(DataType::kBool, {3});
    int x = m.AddInput(DataType::kFloat32, {2});
    int out = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::SELECT, {c, x, x}, {out});
    EXPECT_FALSE(m.Build().ok());  // 3 and 2 do not broadcast
  }
}

}  // namespace
}  // namespace twl

#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

TEST(GatherTest, Axis0AndAxis1) {
  OpModel m;
  int p = m.AddInput(DataType::kFloat32, {3, 2});
  int i = m.AddConst<int32_t>({2}, {2, 0});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::GATHER, {p, i}, {y}, m.builder().Gather(0));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{5, 6, 1, 2}));

  OpModel a;
  p = a.AddInput(DataType::kInt32, {2, 3});
  i = a.AddInput(DataType::kInt64, {2, 2});
  y = a.AddOutput(DataType::kInt32);
  a.AddOp(BuiltinOperator::GATHER, {p, i}, {y}, a.builder().Gather(1));
  ASSERT_TRUE(a.Build().ok());
  a.SetInput<int32_t>(0, {1, 2, 3, 4, 5, 6});
  a.SetInput<int64_t>(1, {0, 2, 1, 1});
  ASSERT_TRUE(a.Invoke().ok());
  // numpy: np.take(p, i, axis=1) -> shape [2, 2, 2]
  EXPECT_EQ(a.OutputShape(0), (std::vector<int32_t>{2, 2, 2}));
  EXPECT_EQ(a.GetOutput<int32_t>(0),
            (std::vector<int32_t>{1, 3, 2, 2, 4, 6, 5, 5}));
}

TEST(GatherTest, BatchDims) {
  OpModel m;
  int p = m.AddInput(DataType::kFloat32, {2, 3});
  int i = m.AddInput(DataType::kInt32, {2, 1});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::GATHER, {p, i}, {y}, m.builder().Gather(1, 1));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 2, 3, 4, 5, 6});
  m.SetInput<int32_t>(1, {2, 0});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{3, 4}));
}

TEST(GatherTest, OutOfRangeIndexFailsInvoke) {
  OpModel m;
  int p = m.AddInput(DataType::kFloat32, {3});
  int i = m.AddInput(DataType::kInt32, {1});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::GATHER, {p, i}, {y});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int32_t>(1, {3});
  Status s = m.Invoke();
  EXPECT_FALSE(s.ok());
  EXPECT_STREQ(s.message(), "operator 0 (GATHER): index 3 out of range [0, 3)");
}

}  // namespace
}  // namespace twl

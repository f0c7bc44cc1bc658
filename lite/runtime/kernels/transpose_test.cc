#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

TEST(TransposeTest, Rank3) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 3, 2});
  int perm = m.AddConst<int32_t>({3}, {2, 0, 1});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::TRANSPOSE, {x, perm}, {y});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 2, 3}));
  // numpy: np.arange(12).reshape(2,3,2).transpose(2,0,1).ravel()
  EXPECT_EQ(m.GetOutput<float>(0),
            (std::vector<float>{0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11}));
}

TEST(TransposeTest, Int8AndBadPerm) {
  OpModel m;
  int x = m.AddInput(DataType::kInt8, {2, 3});
  int perm = m.AddConst<int32_t>({2}, {1, 0});
  int y = m.AddOutput(DataType::kInt8);
  m.AddOp(BuiltinOperator::TRANSPOSE, {x, perm}, {y});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int8_t>(0, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int8_t>(0), (std::vector<int8_t>{1, 4, 2, 5, 3, 6}));

  OpModel bad;
  x = bad.AddInput(DataType::kFloat32, {2, 3});
  perm = bad.AddConst<int32_t>({2}, {1, 1});
  y = bad.AddOutput(DataType::kFloat32);
  bad.AddOp(BuiltinOperator::TRANSPOSE, {x, perm}, {y});
  EXPECT_FALSE(bad.Build().ok());
}

}  // namespace
}  // namespace twl

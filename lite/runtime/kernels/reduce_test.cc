#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

TEST(MeanTest, AxesAndKeepDims) {
  for (bool keep : {false, true}) {
    OpModel m;
    int x = m.AddInput(DataType::kFloat32, {2, 3, 2});
    int axes = m.AddConst<int32_t>({2}, {0, -1});
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::MEAN, {x, axes}, {y}, m.builder().Reducer(keep));
    ASSERT_TRUE(m.Build().ok());
    m.SetInput<float>(0, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    ASSERT_TRUE(m.Invoke().ok());
    // numpy: np.arange(12).reshape(2,3,2).mean(axis=(0,2)) = [3.5, 5.5, 7.5]
    EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{3.5f, 5.5f, 7.5f}));
    EXPECT_EQ(m.OutputShape(0), keep ? (std::vector<int32_t>{1, 3, 1})
                                     : (std::vector<int32_t>{3}));
  }
}

TEST(MeanTest, Int32Truncates) {
  OpModel m;
  int x = m.AddInput(DataType::kInt32, {2, 2});
  int axes = m.AddConst<int32_t>({1}, {1});
  int y = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::MEAN, {x, axes}, {y}, m.builder().Reducer(false));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int32_t>(0, {1, 2, -3, -4});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int32_t>(0), (std::vector<int32_t>{1, -3}));
}

}  // namespace
}  // namespace twl

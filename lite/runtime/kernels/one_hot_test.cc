#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;
using testing::Options;

Options OneHot(OpModel& m, int axis) {
  return {schema::BuiltinOptions::OneHotOptions,
          schema::CreateOneHotOptions(m.builder().fbb(), axis).Union()};
}

TEST(OneHotTest, LastAxisNegativeAndOutOfRangeIndices) {
  OpModel m;
  int i = m.AddInput(DataType::kInt64, {4});
  int depth = m.AddConst<int64_t>({}, {3});
  int v = m.AddConst<float>({2}, {-1, 5});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::ONE_HOT, {i, depth, v}, {y}, OneHot(m, -1));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int64_t>(0, {0, -1, 3, -4});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{4, 3}));
  // -1 is depth - 1; 3 and -4 are outside [-3, 3): all off (ONNX).
  EXPECT_EQ(m.GetOutput<float>(0),
            (std::vector<float>{5, -1, -1, -1, -1, 5, -1, -1, -1, -1, -1, -1}));
}

TEST(OneHotTest, Axis0Int32Values) {
  OpModel m;
  int i = m.AddInput(DataType::kInt32, {2});
  int depth = m.AddConst<int32_t>({1}, {3});
  int v = m.AddConst<int32_t>({2}, {0, 1});
  int y = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::ONE_HOT, {i, depth, v}, {y}, OneHot(m, 0));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int32_t>(0, {2, 0});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{3, 2}));
  EXPECT_EQ(m.GetOutput<int32_t>(0), (std::vector<int32_t>{0, 1, 0, 0, 1, 0}));
}

TEST(OneHotTest, BadDepthValuesOrAxisFail) {
  for (int variant = 0; variant < 3; ++variant) {
    OpModel m;
    int i = m.AddInput(DataType::kInt64, {2});
    int depth = m.AddConst<int64_t>({}, {variant == 0 ? 0 : 2});
    int v = variant == 1 ? m.AddConst<float>({3}, {0, 1, 2})
                         : m.AddConst<float>({2}, {0, 1});
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::ONE_HOT, {i, depth, v}, {y},
            OneHot(m, variant == 2 ? 2 : -1));
    EXPECT_FALSE(m.Build().ok()) << variant;
  }
}

}  // namespace
}  // namespace twl

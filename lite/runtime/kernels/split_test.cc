#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;
using testing::Options;

Options Split(OpModel& m, int axis) {
  return {schema::BuiltinOptions::SplitOptions,
          schema::CreateSplitOptions(m.builder().fbb(), axis).Union()};
}

TEST(SplitTest, UnevenPartsAlongAxis1) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 5});
  int sizes = m.AddConst<int64_t>({3}, {2, 2, 1});
  int a = m.AddOutput(DataType::kFloat32);
  int b = m.AddOutput(DataType::kFloat32);
  int c = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::SPLIT, {x, sizes}, {a, b, c}, Split(m, -1));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{0, 1, 5, 6}));
  EXPECT_EQ(m.GetOutput<float>(1), (std::vector<float>{2, 3, 7, 8}));
  EXPECT_EQ(m.OutputShape(2), (std::vector<int32_t>{2, 1}));
  EXPECT_EQ(m.GetOutput<float>(2), (std::vector<float>{4, 9}));
}

TEST(SplitTest, ZeroSizedPartAndOneByteElements) {
  OpModel m;
  int x = m.AddInput(DataType::kUInt8, {3});
  int sizes = m.AddConst<int32_t>({2}, {0, 3});
  int a = m.AddOutput(DataType::kUInt8);
  int b = m.AddOutput(DataType::kUInt8);
  m.AddOp(BuiltinOperator::SPLIT, {x, sizes}, {a, b}, Split(m, 0));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<uint8_t>(0, {7, 0, 255});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{0}));
  EXPECT_EQ(m.GetOutput<uint8_t>(1), (std::vector<uint8_t>{7, 0, 255}));
}

TEST(SplitTest, SizesNotSummingToTheDimFail) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {4});
  int sizes = m.AddConst<int64_t>({2}, {2, 3});
  int a = m.AddOutput(DataType::kFloat32);
  int b = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::SPLIT, {x, sizes}, {a, b}, Split(m, 0));
  Status s = m.Build();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message())
                .find("split sizes sum to 5, the axis "
                      "dim is 4"),
            std::string::npos)
      << s.message();

  OpModel n;  // one size, two outputs
  x = n.AddInput(DataType::kFloat32, {4});
  sizes = n.AddConst<int64_t>({1}, {4});
  a = n.AddOutput(DataType::kFloat32);
  b = n.AddOutput(DataType::kFloat32);
  n.AddOp(BuiltinOperator::SPLIT, {x, sizes}, {a, b}, Split(n, 0));
  EXPECT_FALSE(n.Build().ok());
}

}  // namespace
}  // namespace twl

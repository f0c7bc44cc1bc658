#include <gtest/gtest.h>

#include <cmath>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;
using testing::Options;

Options TopK(OpModel& m, int axis, bool largest) {
  return {schema::BuiltinOptions::TopKOptions,
          schema::CreateTopKOptions(m.builder().fbb(), axis, largest).Union()};
}

TEST(TopKTest, LargestAlongAxis0TiesKeepLowerIndex) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {3, 2});
  int k = m.AddConst<int64_t>({1}, {2});
  int v = m.AddOutput(DataType::kFloat32);
  int i = m.AddOutput(DataType::kInt64);
  m.AddOp(BuiltinOperator::TOP_K, {x, k}, {v, i}, TopK(m, 0, true));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 5, 3, 5, 3, 0});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{3, 5, 3, 5}));
  EXPECT_EQ(m.GetOutput<int64_t>(1), (std::vector<int64_t>{1, 0, 2, 1}));
}

TEST(TopKTest, SmallestUint64AndNaN) {
  OpModel m;
  int x = m.AddInput(DataType::kUInt64, {4});
  int k = m.AddConst<int32_t>({}, {3});
  int v = m.AddOutput(DataType::kUInt64);
  int i = m.AddOutput(DataType::kInt64);
  m.AddOp(BuiltinOperator::TOP_K, {x, k}, {v, i}, TopK(m, -1, false));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<uint64_t>(0, {UINT64_MAX, 7, 0, 7});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<uint64_t>(0), (std::vector<uint64_t>{0, 7, 7}));
  EXPECT_EQ(m.GetOutput<int64_t>(1), (std::vector<int64_t>{2, 1, 3}));

  OpModel n;  // NaN is the largest
  x = n.AddInput(DataType::kFloat32, {3});
  k = n.AddConst<int64_t>({1}, {2});
  v = n.AddOutput(DataType::kFloat32);
  i = n.AddOutput(DataType::kInt64);
  n.AddOp(BuiltinOperator::TOP_K, {x, k}, {v, i}, TopK(n, 0, true));
  ASSERT_TRUE(n.Build().ok());
  n.SetInput<float>(0, {1, NAN, 2});
  ASSERT_TRUE(n.Invoke().ok());
  EXPECT_EQ(n.GetOutput<int64_t>(1), (std::vector<int64_t>{1, 2}));
}

TEST(TopKTest, KOfMinusOneSortsTheWholeAxisAtEverySize) {
  OpModel m;
  int x = m.AddInput(DataType::kInt64, {3});
  int k = m.AddConst<int64_t>({}, {-1});
  int v = m.AddOutput(DataType::kInt64);
  int i = m.AddOutput(DataType::kInt64);
  m.AddOp(BuiltinOperator::TOP_K, {x, k}, {v, i}, TopK(m, 0, true));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int64_t>(0, {4, 9, 6});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int64_t>(0), (std::vector<int64_t>{9, 6, 4}));
  EXPECT_EQ(m.GetOutput<int64_t>(1), (std::vector<int64_t>{1, 2, 0}));
  ASSERT_TRUE(m.ResizeInput(0, Shape({5})).ok());
  m.SetInput<int64_t>(0, {2, 7, 2, 8, 1});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(1), (std::vector<int32_t>{5}));
  EXPECT_EQ(m.GetOutput<int64_t>(1), (std::vector<int64_t>{3, 1, 0, 2, 4}));
}

TEST(TopKTest, KOutOfRangeOrBadTypesFail) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {3});
  int k = m.AddConst<int64_t>({1}, {4});
  int v = m.AddOutput(DataType::kFloat32);
  int i = m.AddOutput(DataType::kInt64);
  m.AddOp(BuiltinOperator::TOP_K, {x, k}, {v, i}, TopK(m, 0, true));
  Status s = m.Build();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("k must be one value in [0, 3]"),
            std::string::npos)
      << s.message();

  OpModel n;
  x = n.AddInput(DataType::kFloat32, {3});
  k = n.AddConst<int64_t>({1}, {1});
  v = n.AddOutput(DataType::kFloat32);
  i = n.AddOutput(DataType::kInt32);
  n.AddOp(BuiltinOperator::TOP_K, {x, k}, {v, i}, TopK(n, 0, true));
  EXPECT_FALSE(n.Build().ok());
}

}  // namespace
}  // namespace twl

#include <gtest/gtest.h>

#include <limits>

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

// ARG_MAX or ARG_MIN of x [2, 4] over axis 1 with options.
std::vector<int64_t> ArgBest(BuiltinOperator op, std::vector<float> x,
                             bool last, bool keep,
                             std::vector<int32_t>* shape) {
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, {2, 4});
  int axis = m.AddConst<int32_t>({1}, {1});
  int y = m.AddOutput(DataType::kInt64);
  m.AddOp(op, {in, axis}, {y},
          m.builder().ArgMax(DataType::kInt64, last, keep));
  Status s = m.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return {};
  m.SetInput<float>(0, x);
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  *shape = m.OutputShape(0);
  return m.GetOutput<int64_t>(0);
}

TEST(ArgMaxTest, ArgMinTiesLastIndexAndKeepDims) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {3, 1, 1, 3, 2, nan, 0, nan};
  std::vector<int32_t> shape;
  EXPECT_EQ(ArgBest(BuiltinOperator::ARG_MIN, x, false, false, &shape),
            (std::vector<int64_t>{1, 1}));  // NaN is the pick (numpy)
  EXPECT_EQ(shape, (std::vector<int32_t>{2}));
  EXPECT_EQ(ArgBest(BuiltinOperator::ARG_MIN, x, true, true, &shape),
            (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(shape, (std::vector<int32_t>{2, 1}));
  EXPECT_EQ(ArgBest(BuiltinOperator::ARG_MAX, x, false, false, &shape),
            (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(ArgBest(BuiltinOperator::ARG_MAX, x, true, false, &shape),
            (std::vector<int64_t>{3, 3}));
}

TEST(ArgMaxTest, RejectsBadAxisTypesAndEmptyAxis) {
  {
    OpModel m;
    int x = m.AddInput(DataType::kFloat32, {2, 3});
    int axis = m.AddConst<int32_t>({1}, {2});
    int y = m.AddOutput(DataType::kInt64);
    m.AddOp(BuiltinOperator::ARG_MIN, {x, axis}, {y},
            m.builder().ArgMax(DataType::kInt64));
    EXPECT_FALSE(m.Build().ok());
  }
  {
    OpModel m;
    int x = m.AddInput(DataType::kBool, {2, 3});
    int axis = m.AddConst<int32_t>({1}, {0});
    int y = m.AddOutput(DataType::kInt64);
    m.AddOp(BuiltinOperator::ARG_MIN, {x, axis}, {y},
            m.builder().ArgMax(DataType::kInt64));
    EXPECT_FALSE(m.Build().ok());
  }
  {
    OpModel m;
    int x = m.AddInput(DataType::kFloat32, {2, 3});
    int axis = m.AddConst<int32_t>({1}, {0});
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::ARG_MAX, {x, axis}, {y},
            m.builder().ArgMax(DataType::kInt64));
    EXPECT_FALSE(m.Build().ok());
  }
}

}  // namespace
}  // namespace twl

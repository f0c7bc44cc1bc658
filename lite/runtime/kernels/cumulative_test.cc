#include <gtest/gtest.h>

#include <cstdint>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;
using testing::Options;

Options Cumulative(OpModel& m, bool exclusive, bool reverse) {
  return {schema::BuiltinOptions::CumulativeOptions,
          schema::CreateCumulativeOptions(m.builder().fbb(), exclusive, reverse)
              .Union()};
}

template <typename T>
std::vector<T> Accumulate(BuiltinOperator op, DataType type,
                          const std::vector<int32_t>& shape,
                          const std::vector<T>& x, int axis, bool exclusive,
                          bool reverse) {
  OpModel m;
  int in = m.AddInput(type, shape);
  int a = m.AddConst<int32_t>({}, {axis});
  int y = m.AddOutput(type);
  m.AddOp(op, {in, a}, {y}, Cumulative(m, exclusive, reverse));
  EXPECT_TRUE(m.Build().ok());
  m.SetInput<T>(0, x);
  EXPECT_TRUE(m.Invoke().ok());
  return m.GetOutput<T>(0);
}

TEST(CumulativeTest, SumExclusiveReverse) {
  const std::vector<double> x = {1, 2, 3, 4};
  auto sum = [&](bool e, bool r) {
    return Accumulate<double>(BuiltinOperator::CUMSUM, DataType::kFloat64, {4},
                              x, 0, e, r);
  };
  EXPECT_EQ(sum(false, false), (std::vector<double>{1, 3, 6, 10}));
  EXPECT_EQ(sum(true, false), (std::vector<double>{0, 1, 3, 6}));
  EXPECT_EQ(sum(false, true), (std::vector<double>{10, 9, 7, 4}));
  EXPECT_EQ(sum(true, true), (std::vector<double>{9, 7, 4, 0}));
}

TEST(CumulativeTest, ProductAlongAxis0AndNegativeAxis) {
  const std::vector<int32_t> x = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(Accumulate<int32_t>(BuiltinOperator::CUMPROD, DataType::kInt32,
                                {2, 3}, x, 0, false, false),
            (std::vector<int32_t>{1, 2, 3, 4, 10, 18}));
  EXPECT_EQ(Accumulate<int32_t>(BuiltinOperator::CUMPROD, DataType::kInt32,
                                {2, 3}, x, -1, true, false),
            (std::vector<int32_t>{1, 1, 2, 1, 4, 20}));
}

TEST(CumulativeTest, IntegersWrapOnOverflow) {
  EXPECT_EQ(Accumulate<int8_t>(BuiltinOperator::CUMSUM, DataType::kInt8, {2},
                               {127, 1}, 0, false, false),
            (std::vector<int8_t>{127, -128}));
  EXPECT_EQ(Accumulate<int64_t>(BuiltinOperator::CUMPROD, DataType::kInt64, {2},
                                {INT64_MAX, 2}, 0, false, false),
            (std::vector<int64_t>{INT64_MAX, -2}));
}

TEST(CumulativeTest, BadAxisOrTypeFails) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 3});
  int a = m.AddConst<int64_t>({}, {2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::CUMSUM, {x, a}, {y}, Cumulative(m, false, false));
  Status s = m.Build();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("axis 2 out of range for rank 2"),
            std::string::npos)
      << s.message();

  OpModel n;
  x = n.AddInput(DataType::kBool, {2});
  a = n.AddConst<int64_t>({}, {0});
  y = n.AddOutput(DataType::kBool);
  n.AddOp(BuiltinOperator::CUMSUM, {x, a}, {y}, Cumulative(n, false, false));
  EXPECT_FALSE(n.Build().ok());

  OpModel r;  // the axis must be a constant
  x = r.AddInput(DataType::kFloat32, {2});
  a = r.AddInput(DataType::kInt32, {});
  y = r.AddOutput(DataType::kFloat32);
  r.AddOp(BuiltinOperator::CUMSUM, {x, a}, {y}, Cumulative(r, false, false));
  EXPECT_FALSE(r.Build().ok());
}

}  // namespace
}  // namespace twl

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdint>

#include "lite/runtime/testing/op_model.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
namespace {

using testing::ActivationFunctionType;
using testing::BuiltinOperator;
using testing::OpModel;
using testing::RandomFloats;

template <typename T>
std::vector<T> RunBinary(
    BuiltinOperator op, DataType type, std::vector<int32_t> sa,
    std::vector<T> a, std::vector<int32_t> sb, std::vector<T> b,
    ActivationFunctionType act = ActivationFunctionType::NONE,
    std::vector<int32_t>* shape = nullptr) {
  OpModel m;
  int x = m.AddInput(type, sa);
  int y = m.AddInput(type, sb);
  int z = m.AddOutput(type);
  bool has_options =
      op != BuiltinOperator::MAXIMUM && op != BuiltinOperator::MINIMUM;
  m.AddOp(op, {x, y}, {z},
          has_options ? m.builder().Arithmetic(act) : testing::Options());
  Status s = m.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  m.SetInput<T>(0, a);
  m.SetInput<T>(1, b);
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  if (shape) *shape = m.OutputShape(0);
  return m.GetOutput<T>(0);
}

TEST(BinaryArithmeticTest, FloatOps) {
  auto f = DataType::kFloat32;
  std::vector<float> a = {1, -2, 3, 8}, b = {2, 2, -4, 0.5f};
  EXPECT_EQ(RunBinary<float>(BuiltinOperator::ADD, f, {4}, a, {4}, b),
            (std::vector<float>{3, 0, -1, 8.5f}));
  EXPECT_EQ(RunBinary<float>(BuiltinOperator::SUB, f, {4}, a, {4}, b),
            (std::vector<float>{-1, -4, 7, 7.5f}));
  EXPECT_EQ(RunBinary<float>(BuiltinOperator::MUL, f, {4}, a, {4}, b),
            (std::vector<float>{2, -4, -12, 4}));
  EXPECT_EQ(RunBinary<float>(BuiltinOperator::DIV, f, {4}, a, {4}, b),
            (std::vector<float>{0.5f, -1, -0.75f, 16}));
  EXPECT_EQ(RunBinary<float>(BuiltinOperator::MAXIMUM, f, {4}, a, {4}, b),
            (std::vector<float>{2, 2, 3, 8}));
  EXPECT_EQ(RunBinary<float>(BuiltinOperator::MINIMUM, f, {4}, a, {4}, b),
            (std::vector<float>{1, -2, -4, 0.5f}));
  EXPECT_EQ(RunBinary<float>(BuiltinOperator::ADD, f, {4}, a, {4}, b,
                             ActivationFunctionType::RELU),
            (std::vector<float>{3, 0, 0, 8.5f}));
  EXPECT_EQ(RunBinary<float>(BuiltinOperator::MUL, f, {4}, a, {4}, b,
                             ActivationFunctionType::RELU6),
            (std::vector<float>{2, 0, 0, 4}));
}

TEST(BinaryArithmeticTest, Broadcasting) {
  auto f = DataType::kFloat32;
  std::vector<int32_t> shape;
  // [2,1,3] + [2,1] -> [2,2,3] (numpy: out[i,j,k] = a[i,0,k] + b[j,0])
  auto out =
      RunBinary<float>(BuiltinOperator::ADD, f, {2, 1, 3}, {0, 1, 2, 3, 4, 5},
                       {2, 1}, {10, 20}, ActivationFunctionType::NONE, &shape);
  EXPECT_EQ(shape, (std::vector<int32_t>{2, 2, 3}));
  EXPECT_EQ(out, (std::vector<float>{10, 11, 12, 20, 21, 22, 13, 14, 15, 23, 24,
                                     25}));
  // Scalar on either side.
  EXPECT_EQ(RunBinary<float>(BuiltinOperator::SUB, f, {}, {1}, {3}, {1, 2, 3}),
            (std::vector<float>{0, -1, -2}));
  EXPECT_EQ(RunBinary<float>(BuiltinOperator::DIV, f, {3}, {2, 4, 6}, {1}, {2}),
            (std::vector<float>{1, 2, 3}));
}

TEST(BinaryArithmeticTest, IntegersWrapAndTruncate) {
  auto i32 = DataType::kInt32;
  EXPECT_EQ(RunBinary<int32_t>(BuiltinOperator::ADD, i32, {2}, {INT_MAX, 1},
                               {2}, {1, 2}),
            (std::vector<int32_t>{INT_MIN, 3}));
  EXPECT_EQ(RunBinary<int32_t>(BuiltinOperator::DIV, i32, {4},
                               {7, -7, 5, INT_MIN}, {4}, {2, 2, -2, -1}),
            (std::vector<int32_t>{3, -3, -2, INT_MIN}));
  EXPECT_EQ(RunBinary<int64_t>(BuiltinOperator::MUL, DataType::kInt64, {2},
                               {3, -4}, {}, {5}),
            (std::vector<int64_t>{15, -20}));
}

// Every numeric type, on a broadcast (row loop) and a flat shape: values as
// numpy computes them (wrapping, truncating division).
template <typename T>
void CheckAllOps(DataType type) {
  const std::vector<T> a = {T(7), T(100), T(3), T(-8)};
  const std::vector<T> b = {T(2), T(-3)};
  auto run = [&](BuiltinOperator op) {
    std::vector<int32_t> shape;
    auto out = RunBinary<T>(op, type, {2, 2}, a, {2}, b,
                            ActivationFunctionType::NONE, &shape);
    EXPECT_EQ(shape, (std::vector<int32_t>{2, 2}));
    return out;
  };
  std::vector<T> add, sub, mul, div, max, min;
  for (int i = 0; i < 4; ++i) {
    const T x = a[i], y = b[i % 2];
    add.push_back(T(x + y));
    sub.push_back(T(x - y));
    mul.push_back(T(x * y));
    div.push_back(T(x / y));
    max.push_back(x > y ? x : y);
    min.push_back(x < y ? x : y);
  }
  EXPECT_EQ(run(BuiltinOperator::ADD), add) << DataTypeName(type);
  EXPECT_EQ(run(BuiltinOperator::SUB), sub) << DataTypeName(type);
  EXPECT_EQ(run(BuiltinOperator::MUL), mul) << DataTypeName(type);
  EXPECT_EQ(run(BuiltinOperator::DIV), div) << DataTypeName(type);
  EXPECT_EQ(run(BuiltinOperator::MAXIMUM), max) << DataTypeName(type);
  EXPECT_EQ(run(BuiltinOperator::MINIMUM), min) << DataTypeName(type);
  // Same shapes: the flat (threaded) path.
  EXPECT_EQ(RunBinary<T>(BuiltinOperator::ADD, type, {2}, {T(1), T(2)}, {2},
                         {T(3), T(4)}),
            (std::vector<T>{T(4), T(6)}));
}

TEST(BinaryArithmeticTest, EveryNumericType) {
  CheckAllOps<int8_t>(DataType::kInt8);
  CheckAllOps<uint8_t>(DataType::kUInt8);
  CheckAllOps<int16_t>(DataType::kInt16);
  CheckAllOps<uint16_t>(DataType::kUInt16);
  CheckAllOps<int32_t>(DataType::kInt32);
  CheckAllOps<uint32_t>(DataType::kUInt32);
  CheckAllOps<int64_t>(DataType::kInt64);
  CheckAllOps<uint64_t>(DataType::kUInt64);
  CheckAllOps<float>(DataType::kFloat32);
  CheckAllOps<double>(DataType::kFloat64);
}

TEST(BinaryArithmeticTest, SmallIntegersWrapAndDivideByMinusOne) {
  EXPECT_EQ(RunBinary<int8_t>(BuiltinOperator::ADD, DataType::kInt8, {2},
                              {127, -128}, {2}, {1, -1}),
            (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(RunBinary<uint16_t>(BuiltinOperator::MUL, DataType::kUInt16, {1},
                                {65535}, {1}, {65535}),
            (std::vector<uint16_t>{1}));
  EXPECT_EQ(RunBinary<int8_t>(BuiltinOperator::DIV, DataType::kInt8, {3},
                              {-128, -7, 7}, {3}, {-1, 2, -2}),
            (std::vector<int8_t>{-128, -3, -3}));
  EXPECT_EQ(RunBinary<int64_t>(BuiltinOperator::DIV, DataType::kInt64, {1},
                               {INT64_MIN}, {1}, {-1}),
            (std::vector<int64_t>{INT64_MIN}));
}

TEST(BinaryArithmeticTest, IntegerDivisionByZeroIsAnError) {
  for (DataType type : {DataType::kInt32, DataType::kUInt8, DataType::kInt64}) {
    OpModel m;
    int x = m.AddInput(type, {2});
    int y = m.AddInput(type, {2});
    int z = m.AddOutput(type);
    m.AddOp(BuiltinOperator::DIV, {x, y}, {z}, m.builder().Arithmetic());
    ASSERT_TRUE(m.Build().ok());
    const uint64_t a[2] = {5, 6}, b[2] = {1, 0};  // b's second element is 0
    m.SetInputBytes(0, a, 2 * DataTypeSize(type));
    m.SetInputBytes(1, b, 2 * DataTypeSize(type));
    Status s = m.Invoke();
    EXPECT_FALSE(s.ok());
    EXPECT_NE(std::string(s.message()).find("division by zero"),
              std::string::npos)
        << s.message();
  }
  // A float zero divisor is IEEE's inf.
  auto f = RunBinary<float>(BuiltinOperator::DIV, DataType::kFloat32, {1}, {1},
                            {1}, {0});
  EXPECT_TRUE(std::isinf(f[0]));
}

TEST(BinaryArithmeticTest, OptimizedMatchesReferenceOnRandomShapes) {
  std::vector<std::pair<std::vector<int32_t>, std::vector<int32_t>>> cases = {
      {{64, 1000}, {64, 1000}}, {{5, 1, 7}, {1, 4, 7}},
      {{3, 4, 5}, {5}},         {{3, 4, 5}, {4, 1}},
      {{1}, {300000}},          {{2, 3, 1, 5}, {3, 4, 1}},
  };
  for (auto op :
       {BuiltinOperator::ADD, BuiltinOperator::MUL, BuiltinOperator::MAXIMUM}) {
    for (auto& c : cases) {
      OpModel m;
      int x = m.AddInput(DataType::kFloat32, c.first);
      int y = m.AddInput(DataType::kFloat32, c.second);
      int z = m.AddOutput(DataType::kFloat32);
      m.AddOp(op, {x, y}, {z});
      ASSERT_TRUE(m.Build(2).ok());
      int64_t na = 1, nb = 1;
      for (int d : c.first) na *= d;
      for (int d : c.second) nb *= d;
      m.SetInput<float>(0, RandomFloats(na, 1));
      m.SetInput<float>(1, RandomFloats(nb, 2));
      ASSERT_TRUE(m.Invoke().ok());
      ASSERT_EQ(m.CompareWithReference(), "");
    }
  }
}

TEST(BinaryArithmeticTest, RejectsIncompatibleShapesAndTypes) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {3});
  int y = m.AddInput(DataType::kFloat32, {4});
  int z = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::ADD, {x, y}, {z});
  Status s = m.Build();
  EXPECT_NE(std::string(s.message()).find("cannot be broadcast"),
            std::string::npos);
  OpModel t;
  x = t.AddInput(DataType::kFloat32, {3});
  y = t.AddInput(DataType::kInt32, {3});
  z = t.AddOutput(DataType::kFloat32);
  t.AddOp(BuiltinOperator::ADD, {x, y}, {z});
  EXPECT_FALSE(t.Build().ok());
}

}  // namespace
}  // namespace twl

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "lite/runtime/builtin_ops.h"
#include "lite/runtime/testing/op_model.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

// Runs `op` on x (checking the optimized path against the reference).
template <typename T, typename R = T>
std::vector<R> Unary(BuiltinOperator op, DataType in_type, DataType out_type,
                     const std::vector<T>& x,
                     testing::Options options = testing::Options()) {
  OpModel m;
  int in = m.AddInput(in_type, {static_cast<int>(x.size())});
  int out = m.AddOutput(out_type);
  m.AddOp(op, {in}, {out}, options);
  Status s = m.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  m.SetInput<T>(0, x);
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  return m.GetOutput<R>(0);
}

std::vector<float> Float(BuiltinOperator op, const std::vector<float>& x) {
  return Unary<float>(op, DataType::kFloat32, DataType::kFloat32, x);
}

TEST(UnaryMathTest, TrigonometricAndHyperbolic) {
  const std::vector<float> x = {-0.9f, -0.3f, 0.f, 0.5f, 0.99f};
  const std::vector<float> big = {1.f, 1.5f, 3.f};
  struct Case {
    BuiltinOperator op;
    double (*f)(double);
    const std::vector<float>* x;
  };
  const Case cases[] = {
      {BuiltinOperator::SIN, std::sin, &x},
      {BuiltinOperator::COS, std::cos, &x},
      {BuiltinOperator::TAN, std::tan, &x},
      {BuiltinOperator::ASIN, std::asin, &x},
      {BuiltinOperator::ACOS, std::acos, &x},
      {BuiltinOperator::ATAN, std::atan, &x},
      {BuiltinOperator::SINH, std::sinh, &x},
      {BuiltinOperator::COSH, std::cosh, &x},
      {BuiltinOperator::ASINH, std::asinh, &x},
      {BuiltinOperator::ACOSH, std::acosh, &big},
      {BuiltinOperator::ATANH, std::atanh, &x},
  };
  for (const Case& c : cases) {
    auto y = Float(c.op, *c.x);
    for (size_t i = 0; i < c.x->size(); ++i) {
      EXPECT_NEAR(y[i], c.f((*c.x)[i]), 1e-5) << OpName(c.op);
    }
  }
}

TEST(UnaryMathTest, Rounding) {
  const std::vector<float> x = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.7f};
  EXPECT_EQ(Float(BuiltinOperator::ROUND, x),
            (std::vector<float>{-2, -2, -0.f, 0, 2, 2, 3}));
  EXPECT_EQ(Float(BuiltinOperator::FLOOR, x),
            (std::vector<float>{-3, -2, -1, 0, 1, 2, 2}));
  EXPECT_EQ(Float(BuiltinOperator::CEIL, x),
            (std::vector<float>{-2, -1, -0.f, 1, 2, 3, 3}));
}

TEST(UnaryMathTest, SoftplusAndSoftsign) {
  const std::vector<float> x = {-100.f, -1.f, 0.f, 2.f, 100.f};
  auto sp = Float(BuiltinOperator::SOFTPLUS, x);
  auto ss = Float(BuiltinOperator::SOFTSIGN, x);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(sp[i], std::log1p(std::exp(double(x[i]))), 1e-5) << x[i];
    EXPECT_NEAR(ss[i], x[i] / (1 + std::fabs(x[i])), 1e-6);
  }
  EXPECT_EQ(sp[4], 100.f);  // no overflow through exp(100)
}

TEST(UnaryMathTest, SignOnEveryKind) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto f = Float(BuiltinOperator::SIGN, {-3.f, 0.f, 2.f, nan});
  EXPECT_EQ(f[0], -1.f);
  EXPECT_EQ(f[1], 0.f);
  EXPECT_EQ(f[2], 1.f);
  EXPECT_TRUE(std::isnan(f[3]));
  EXPECT_EQ((Unary<int8_t>(BuiltinOperator::SIGN, DataType::kInt8,
                           DataType::kInt8, {-128, 0, 5})),
            (std::vector<int8_t>{-1, 0, 1}));
  EXPECT_EQ((Unary<uint64_t>(BuiltinOperator::SIGN, DataType::kUInt64,
                             DataType::kUInt64, {0, 7})),
            (std::vector<uint64_t>{0, 1}));
  EXPECT_EQ((Unary<double>(BuiltinOperator::SIGN, DataType::kFloat64,
                           DataType::kFloat64, {-0.5, 4})),
            (std::vector<double>{-1, 1}));
}

TEST(UnaryMathTest, Predicates) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {1.f, -inf, inf, nan};
  auto is_nan = Unary<float, bool>(BuiltinOperator::IS_NAN, DataType::kFloat32,
                                   DataType::kBool, x);
  EXPECT_EQ(is_nan, (std::vector<bool>{false, false, false, true}));
  auto is_inf = [&](bool positive, bool negative) {
    OpModel m;
    int in = m.AddInput(DataType::kFloat32, {4});
    int out = m.AddOutput(DataType::kBool);
    m.AddOp(BuiltinOperator::IS_INF, {in}, {out},
            {schema::BuiltinOptions::IsInfOptions,
             schema::CreateIsInfOptions(m.builder().fbb(), positive, negative)
                 .Union()});
    EXPECT_TRUE(m.Build().ok());
    m.SetInput<float>(0, x);
    EXPECT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.CompareWithReference(), "");
    return m.GetOutput<bool>(0);
  };
  EXPECT_EQ(is_inf(true, true), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(is_inf(true, false),
            (std::vector<bool>{false, false, true, false}));
  EXPECT_EQ(is_inf(false, true),
            (std::vector<bool>{false, true, false, false}));
}

TEST(UnaryMathTest, LargeInputUsesThreads) {
  auto x = testing::RandomFloats(100000, 3, 3.f);
  auto y = Float(BuiltinOperator::SIN, x);
  for (size_t i = 0; i < x.size(); i += 997) {
    ASSERT_FLOAT_EQ(y[i], std::sin(x[i]));
  }
}

TEST(UnaryMathTest, RejectsBadTypes) {
  struct Case {
    BuiltinOperator op;
    DataType in, out;
  };
  const Case cases[] = {
      {BuiltinOperator::SIN, DataType::kInt32, DataType::kInt32},
      {BuiltinOperator::FLOOR, DataType::kFloat64, DataType::kFloat64},
      {BuiltinOperator::IS_NAN, DataType::kFloat32, DataType::kFloat32},
      {BuiltinOperator::SIGN, DataType::kBool, DataType::kBool},
      {BuiltinOperator::COS, DataType::kFloat32, DataType::kInt32},
  };
  for (const Case& c : cases) {
    OpModel m;
    int in = m.AddInput(c.in, {2});
    int out = m.AddOutput(c.out);
    m.AddOp(c.op, {in}, {out});
    Status s = m.Build();
    EXPECT_FALSE(s.ok()) << OpName(c.op);
    EXPECT_NE(std::string(s.message()).find("type"), std::string::npos)
        << s.message();
  }
}

}  // namespace
}  // namespace twl

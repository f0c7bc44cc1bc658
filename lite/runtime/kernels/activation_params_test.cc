#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "lite/runtime/builtin_ops.h"
#include "lite/runtime/testing/op_model.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

struct Params {
  float alpha = 0, beta = 0, gamma = 0;
};

// Runs `op` with `p` on x (the optimized path, with FastExp, checked
// against the reference path within op_model's tolerance).
std::vector<float> Activate(BuiltinOperator op, Params p,
                            const std::vector<float>& x, int threads = 2) {
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, {static_cast<int>(x.size())});
  int out = m.AddOutput(DataType::kFloat32);
  // HARD_SWISH and MISH take no options.
  const bool has_options =
      op != BuiltinOperator::HARD_SWISH && op != BuiltinOperator::MISH;
  m.AddOp(
      op, {in}, {out},
      has_options
          ? testing::Options{schema::BuiltinOptions::ActivationParamsOptions,
                             schema::CreateActivationParamsOptions(
                                 m.builder().fbb(), p.alpha, p.beta, p.gamma)
                                 .Union()}
          : testing::Options());
  Status s = m.Build(threads);
  EXPECT_TRUE(s.ok()) << s.message();
  m.SetInput<float>(0, x);
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "") << OpName(op);
  return m.GetOutput<float>(0);
}

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

TEST(ActivationParamsTest, MatchFormulas) {
  const std::vector<float> x = {-30.f, -3.f, -1.f, -0.25f, 0.f,
                                0.5f,  1.f,  2.5f, 4.f,    30.f};
  struct Case {
    BuiltinOperator op;
    Params p;
    double (*f)(double x, Params p);
  };
  const Case cases[] = {
      {BuiltinOperator::ELU,
       {2.f},
       [](double x, Params p) { return x >= 0 ? x : p.alpha * std::expm1(x); }},
      {BuiltinOperator::SELU,
       {1.6733f, 0, 1.0507f},
       [](double x, Params p) {
         return p.gamma * (x > 0 ? x : p.alpha * std::expm1(x));
       }},
      {BuiltinOperator::CELU,
       {0.5f},
       [](double x, Params p) {
         return std::max(0.0, x) +
                std::min(0.0, p.alpha * std::expm1(x / p.alpha));
       }},
      {BuiltinOperator::LEAKY_RELU,
       {0.1f},
       [](double x, Params p) { return x >= 0 ? x : p.alpha * x; }},
      {BuiltinOperator::HARD_SIGMOID,
       {0.2f, 0.5f},
       [](double x, Params p) {
         return std::max(0.0, std::min(1.0, p.alpha * x + p.beta));
       }},
      {BuiltinOperator::HARD_SWISH,
       {},
       [](double x, Params) {
         return x * std::max(0.0, std::min(1.0, x / 6 + 0.5));
       }},
      {BuiltinOperator::MISH,
       {},
       [](double x, Params) { return x * std::tanh(std::log1p(std::exp(x))); }},
      {BuiltinOperator::THRESHOLDED_RELU,
       {1.f},
       [](double x, Params p) { return x > p.alpha ? x : 0.0; }},
      {BuiltinOperator::SHRINK,
       {1.f, 0.5f},
       [](double x, Params p) {
         return x < -p.alpha ? x + p.beta : x > p.alpha ? x - p.beta : 0.0;
       }},
      {BuiltinOperator::SWISH,
       {1.5f},
       [](double x, Params p) { return x * Sigmoid(p.alpha * x); }},
  };
  for (const Case& c : cases) {
    auto y = Activate(c.op, c.p, x);
    for (size_t i = 0; i < x.size(); ++i) {
      const double want = c.f(x[i], c.p);
      EXPECT_NEAR(y[i], want, 1e-5 + 1e-5 * std::fabs(want))
          << OpName(c.op) << " at " << x[i];
    }
  }
}

TEST(ActivationParamsTest, LargeInputUsesThreads) {
  auto x = testing::RandomFloats(200000, 7, 8.f);
  auto y = Activate(BuiltinOperator::SWISH, {1.f}, x, 4);
  for (size_t i = 0; i < x.size(); i += 991) {
    ASSERT_NEAR(y[i], x[i] * Sigmoid(x[i]), 1e-5 + 1e-5 * std::fabs(x[i]));
  }
}

TEST(ActivationParamsTest, RejectsIntegersAndCeluAlphaZero) {
  OpModel m;
  int in = m.AddInput(DataType::kInt32, {2});
  int out = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::LEAKY_RELU, {in}, {out});
  EXPECT_FALSE(m.Build().ok());

  OpModel c;
  in = c.AddInput(DataType::kFloat32, {2});
  out = c.AddOutput(DataType::kFloat32);
  c.AddOp(
      BuiltinOperator::CELU, {in}, {out},
      {schema::BuiltinOptions::ActivationParamsOptions,
       schema::CreateActivationParamsOptions(c.builder().fbb(), 0.f).Union()});
  Status s = c.Build();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("alpha must not be 0"),
            std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace twl

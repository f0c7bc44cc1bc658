// The activations (Relu, Relu6, Elu, Selu, Softplus, LeakyRelu) and their
// gradients against their formulas in double, NaN passing through Relu and
// Relu6 as in TensorFlow, and their errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::ExpectInvalidArgument;
using test::MakeTensor;
using test::RandomValues;
using test::ToVector;

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;
// The op's default, a float attr (TF multiplies by the float's value).
constexpr double kLeakyAlpha = static_cast<double>(0.2f);

struct Activation {
  const char* op;
  const char* grad_op;     // nullptr: none
  bool grad_from_outputs;  // EluGrad and SeluGrad take the outputs
  std::function<double(double)> forward;
  std::function<double(double g, double x)> backward;  // x: features
};

const std::vector<Activation>& Activations() {
  static const auto* all = new std::vector<Activation>{
      {"Relu", "ReluGrad", false, [](double x) { return x > 0 ? x : 0; },
       [](double g, double x) { return x > 0 ? g : 0; }},
      {"Relu6", "Relu6Grad", false,
       [](double x) { return std::min(std::max(x, 0.0), 6.0); },
       [](double g, double x) { return x > 0 && x < 6 ? g : 0; }},
      {"Elu", "EluGrad", true,
       [](double x) { return x > 0 ? x : std::expm1(x); },
       [](double g, double x) { return x > 0 ? g : g * std::exp(x); }},
      {"Selu", "SeluGrad", true,
       [](double x) {
         return x > 0 ? kSeluScale * x
                      : kSeluScale * kSeluAlpha * std::expm1(x);
       },
       [](double g, double x) {
         return x > 0 ? g * kSeluScale
                      : g * kSeluScale * kSeluAlpha * std::exp(x);
       }},
      {"Softplus", "SoftplusGrad", false,
       [](double x) { return std::log1p(std::exp(x)); },
       [](double g, double x) { return g / (1 + std::exp(-x)); }},
      {"LeakyRelu", nullptr, false,
       [](double x) { return x > 0 ? x : kLeakyAlpha * x; }, nullptr},
  };
  return *all;
}

template <typename T>
void CheckActivations(double tol) {
  // Enough values for the parallel split; none at the kinks (0 and 6).
  const int64_t n = 10007;
  auto x = RandomValues<T>(n, 21, -8, 8);
  const auto g = RandomValues<T>(n, 22);
  for (const Activation& a : Activations()) {
    const Tensor xt = MakeTensor<T>({n}, x);
    const auto y = ToVector<T>(test::RunOne(a.op, {xt}));
    ASSERT_EQ(y.size(), static_cast<size_t>(n)) << a.op;
    for (int64_t i = 0; i < n; ++i) {
      const double want = a.forward(x[i]);
      EXPECT_NEAR(y[i], want, tol * (1 + std::abs(want)))
          << a.op << "(" << x[i] << ")";
    }
    if (a.grad_op == nullptr) continue;
    const Tensor second = a.grad_from_outputs ? MakeTensor<T>({n}, y) : xt;
    const auto dx =
        ToVector<T>(test::RunOne(a.grad_op, {MakeTensor<T>({n}, g), second}));
    ASSERT_EQ(dx.size(), static_cast<size_t>(n)) << a.grad_op;
    for (int64_t i = 0; i < n; ++i) {
      const double want = a.backward(g[i], x[i]);
      EXPECT_NEAR(dx[i], want, tol * (1 + std::abs(want)))
          << a.grad_op << " at x = " << x[i];
    }
  }
}

TEST(ReluOpTest, FloatMatchesReference) { CheckActivations<float>(1e-5); }
TEST(ReluOpTest, DoubleMatchesReference) { CheckActivations<double>(1e-12); }

TEST(ReluOpTest, NaNPassesThroughReluAndRelu6) {
  // As TensorFlow: relu(NaN) and relu6(NaN) are NaN, on the vector path and
  // the tail alike; the other values are unchanged.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x(37, -1.f);
  for (int i = 0; i < 37; i += 5) x[i] = nan;
  x[1] = 7;
  x[2] = 3;
  for (const char* op : {"Relu", "Relu6"}) {
    const auto y =
        ToVector<float>(test::RunOne(op, {MakeTensor<float>({37}, x)}));
    ASSERT_EQ(y.size(), 37u);
    for (int i = 0; i < 37; ++i) {
      if (i % 5 == 0) {
        EXPECT_TRUE(std::isnan(y[i])) << op << " at " << i << ": " << y[i];
      } else if (i == 1) {
        EXPECT_EQ(y[i], std::string(op) == "Relu" ? 7.f : 6.f) << op;
      } else if (i == 2) {
        EXPECT_EQ(y[i], 3.f) << op;
      } else {
        EXPECT_EQ(y[i], 0.f) << op << " at " << i;
      }
    }
  }
}

TEST(ReluOpTest, KinksAndAlpha) {
  const Tensor x = MakeTensor<float>({5}, {-2, 0, 3, 6, 8});
  EXPECT_EQ(ToVector<float>(test::RunOne("Relu6", {x})),
            (std::vector<float>{0, 0, 3, 6, 6}));
  // Gradients are zero at the kinks (x = 0, x = 6), as TF.
  const Tensor ones = MakeTensor<float>({5}, {1, 1, 1, 1, 1});
  EXPECT_EQ(ToVector<float>(test::RunOne("ReluGrad", {ones, x})),
            (std::vector<float>{0, 0, 1, 1, 1}));
  EXPECT_EQ(ToVector<float>(test::RunOne("Relu6Grad", {ones, x})),
            (std::vector<float>{0, 0, 1, 0, 0}));
  test::Attrs alpha;
  alpha["alpha"].set_f(0.5f);
  EXPECT_EQ(ToVector<float>(test::RunOne("LeakyRelu", {x}, alpha)),
            (std::vector<float>{-1, 0, 3, 6, 8}));
  // Softplus does not overflow for large |x|.
  const auto sp = ToVector<double>(
      test::RunOne("Softplus", {MakeTensor<double>({2}, {-800, 800})}));
  EXPECT_EQ(sp[0], 0.0);
  EXPECT_EQ(sp[1], 800.0);
}

TEST(ReluOpTest, BadInputsAreInvalidArgument) {
  Tensor out;
  for (const char* op : {"ReluGrad", "Relu6Grad", "SoftplusGrad"}) {
    ExpectInvalidArgument(
        test::RunOpOnPlaceholders(op,
                                  {Tensor(DT_FLOAT, TensorShape({2, 3})),
                                   Tensor(DT_FLOAT, TensorShape({3, 2}))},
                                  {}, &out),
        "features must have the same shape");
  }
  for (const char* op : {"EluGrad", "SeluGrad"}) {
    ExpectInvalidArgument(
        test::RunOpOnPlaceholders(op,
                                  {Tensor(DT_FLOAT, TensorShape({4})),
                                   Tensor(DT_FLOAT, TensorShape({5}))},
                                  {}, &out),
        "outputs must have the same shape");
  }
}

}  // namespace
}  // namespace tensorweave

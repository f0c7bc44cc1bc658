// Element-wise kernels against values worked out by hand or by plain loops.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::MakeTensor;
using test::MessageHas;
using test::RunOne;
using test::RunOp;
using test::ToVector;

TEST(CwiseOpsTest, AddBroadcastsRowsColumnsAndScalars) {
  Tensor m = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor row = MakeTensor<float>({3}, {10, 20, 30});
  Tensor col = MakeTensor<float>({2, 1}, {100, 200});
  EXPECT_EQ(ToVector<float>(RunOne("Add", {m, row})),
            (std::vector<float>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(ToVector<float>(RunOne("Sub", {m, col})),
            (std::vector<float>{-99, -98, -97, -196, -195, -194}));
  Tensor outer = RunOne("Mul", {col, MakeTensor<float>({1, 3}, {1, 2, 3})});
  EXPECT_EQ(outer.shape(), TensorShape({2, 3}));
  EXPECT_EQ(ToVector<float>(outer),
            (std::vector<float>{100, 200, 300, 200, 400, 600}));
  EXPECT_EQ(ToVector<float>(RunOne("RealDiv", {Tensor::Scalar<float>(6), m})),
            (std::vector<float>{6, 3, 2, 1.5, 1.2f, 1}));
}

TEST(CwiseOpsTest, LargeBroadcastMatchesLoop) {
  // Large enough to run in parallel blocks.
  const int64_t rows = 300, cols = 257;
  std::vector<double> a(rows * cols), b(cols);
  std::mt19937 gen(1);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (auto& v : a) v = dist(gen);
  for (auto& v : b) v = dist(gen);
  Tensor out = RunOne("SquaredDifference", {MakeTensor<double>({rows, cols}, a),
                                            MakeTensor<double>({cols}, b)});
  std::vector<double> got = ToVector<double>(out);
  for (int64_t i = 0; i < rows * cols; ++i) {
    const double d = a[i] - b[i % cols];
    ASSERT_DOUBLE_EQ(got[i], d * d) << i;
  }
}

TEST(CwiseOpsTest, FloorDivAndFloorModFollowPython) {
  Tensor x = MakeTensor<int32_t>({4}, {7, -7, 7, -7});
  Tensor y = MakeTensor<int32_t>({4}, {2, 2, -2, -2});
  EXPECT_EQ(ToVector<int32_t>(RunOne("FloorDiv", {x, y})),
            (std::vector<int32_t>{3, -4, -4, 3}));
  EXPECT_EQ(ToVector<int32_t>(RunOne("FloorMod", {x, y})),
            (std::vector<int32_t>{1, 1, -1, -1}));
  EXPECT_EQ(ToVector<int32_t>(RunOne("Div", {x, y})),
            (std::vector<int32_t>{3, -3, -3, 3}));
  Tensor fx = MakeTensor<float>({2}, {-7.5f, 7.5f});
  EXPECT_EQ(ToVector<float>(RunOne("FloorMod", {fx, Tensor::Scalar<float>(2)})),
            (std::vector<float>{0.5f, 1.5f}));
  EXPECT_EQ(ToVector<float>(RunOne("FloorDiv", {fx, Tensor::Scalar<float>(2)})),
            (std::vector<float>{-4, 3}));
}

TEST(CwiseOpsTest, IntegerDivisionByZeroIsAnError) {
  for (const char* op : {"Div", "FloorDiv", "FloorMod"}) {
    std::vector<Tensor> out;
    Status s = RunOp(
        op,
        {MakeTensor<int64_t>({2}, {1, 2}), MakeTensor<int64_t>({2}, {1, 0})},
        {}, &out);
    EXPECT_FALSE(s.ok()) << op;
    EXPECT_TRUE(MessageHas(s, "division by zero")) << s.ToString();
  }
}

TEST(CwiseOpsTest, PowMaximumMinimum) {
  Tensor base = MakeTensor<int32_t>({4}, {2, -3, 1, 5});
  EXPECT_EQ(ToVector<int32_t>(
                RunOne("Pow", {base, MakeTensor<int32_t>({4}, {10, 3, 2, 0})})),
            (std::vector<int32_t>{1024, -27, 1, 1}));
  // Integers to negative powers are an error (as TensorFlow), not 0.
  std::vector<Tensor> out;
  Status s =
      RunOp("Pow", {base, MakeTensor<int32_t>({4}, {1, 1, -2, 1})}, {}, &out);
  EXPECT_TRUE(MessageHas(s, "negative integer powers")) << s.ToString();
  Tensor x = MakeTensor<float>({3}, {1, 5, -2});
  EXPECT_EQ(ToVector<float>(RunOne("Maximum", {x, Tensor::Scalar<float>(0)})),
            (std::vector<float>{1, 5, 0}));
  EXPECT_EQ(ToVector<float>(RunOne("Minimum", {x, Tensor::Scalar<float>(0)})),
            (std::vector<float>{0, 0, -2}));
  std::vector<float> p =
      ToVector<float>(RunOne("Pow", {x, Tensor::Scalar<float>(0.5f)}));
  EXPECT_FLOAT_EQ(p[1], std::sqrt(5.0f));
  EXPECT_TRUE(std::isnan(p[2]));
}

TEST(CwiseOpsTest, MaximumAndMinimumPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Long enough for the vectorized loops, NaN on either side.
  std::vector<float> xv(64, 1.0f), yv(64, 2.0f);
  xv[3] = nan;
  yv[40] = nan;
  Tensor x = MakeTensor<float>({64}, xv), y = MakeTensor<float>({64}, yv);
  for (const char* op : {"Maximum", "Minimum"}) {
    std::vector<float> r = ToVector<float>(RunOne(op, {x, y}));
    for (int i = 0; i < 64; ++i) {
      EXPECT_EQ(std::isnan(r[i]), i == 3 || i == 40) << op << " " << i;
    }
  }
}

TEST(CwiseOpsTest, ComparisonsAndLogicalOpsGiveBool) {
  Tensor x = MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4});
  Tensor t = Tensor::Scalar<int64_t>(2);
  Tensor less = RunOne("Less", {x, t});
  EXPECT_EQ(less.dtype(), DT_BOOL);
  EXPECT_EQ(ToVector<bool>(less),
            (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(ToVector<bool>(RunOne("GreaterEqual", {x, t})),
            (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(ToVector<bool>(RunOne("Equal", {x, t})),
            (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(ToVector<bool>(RunOne("NotEqual", {x, t})),
            (std::vector<bool>{true, false, true, true}));
  EXPECT_EQ(ToVector<bool>(RunOne("LessEqual", {x, t})),
            (std::vector<bool>{true, true, false, false}));
  EXPECT_EQ(ToVector<bool>(RunOne("Greater", {x, t})),
            (std::vector<bool>{false, false, true, true}));
  Tensor a = MakeTensor<bool>({2, 2}, {true, true, false, false});
  Tensor b = MakeTensor<bool>({2}, {true, false});
  EXPECT_EQ(ToVector<bool>(RunOne("LogicalAnd", {a, b})),
            (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(ToVector<bool>(RunOne("LogicalOr", {a, b})),
            (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(ToVector<bool>(RunOne("LogicalNot", {b})),
            (std::vector<bool>{false, true}));
}

TEST(CwiseOpsTest, IncompatibleShapesAreRejected) {
  std::vector<Tensor> out;
  Status s = RunOp("Add",
                   {MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                    MakeTensor<float>({2}, {1, 2})},
                   {}, &out);
  EXPECT_FALSE(s.ok());
  // Caught by the shape function when the op is built, worded as TF's.
  EXPECT_TRUE(MessageHas(s, "Dimensions must be equal, but are 3 and 2"))
      << s.ToString();
}

TEST(CwiseOpsTest, UnaryOps) {
  Tensor x = MakeTensor<float>({6}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 0.0f});
  EXPECT_EQ(ToVector<float>(RunOne("Round", {x})),
            (std::vector<float>{0, 2, 2, -0.0f, -2, 0}));
  EXPECT_EQ(ToVector<float>(RunOne("Sign", {x})),
            (std::vector<float>{1, 1, 1, -1, -1, 0}));
  EXPECT_EQ(ToVector<float>(RunOne("Floor", {x})),
            (std::vector<float>{0, 1, 2, -1, -2, 0}));
  EXPECT_EQ(ToVector<float>(RunOne("Ceil", {x})),
            (std::vector<float>{1, 2, 3, -0.0f, -1, 0}));
  EXPECT_EQ(ToVector<float>(RunOne("Abs", {x})),
            (std::vector<float>{0.5f, 1.5f, 2.5f, 0.5f, 1.5f, 0}));
  EXPECT_EQ(
      ToVector<int32_t>(RunOne("Square", {MakeTensor<int32_t>({2}, {-3, 4})})),
      (std::vector<int32_t>{9, 16}));
  Tensor p = MakeTensor<double>({2}, {0.25, 4.0});
  struct Case {
    const char* op;
    double (*f)(double);
  };
  const Case cases[] = {
      {"Exp", [](double v) { return std::exp(v); }},
      {"Log", [](double v) { return std::log(v); }},
      {"Log1p", [](double v) { return std::log1p(v); }},
      {"Sqrt", [](double v) { return std::sqrt(v); }},
      {"Rsqrt", [](double v) { return 1 / std::sqrt(v); }},
      {"Reciprocal", [](double v) { return 1 / v; }},
      {"Tanh", [](double v) { return std::tanh(v); }},
      {"Sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"Neg", [](double v) { return -v; }},
  };
  for (const Case& c : cases) {
    std::vector<double> got = ToVector<double>(RunOne(c.op, {p}));
    ASSERT_EQ(got.size(), 2u);
    EXPECT_DOUBLE_EQ(got[0], c.f(0.25)) << c.op;
    EXPECT_DOUBLE_EQ(got[1], c.f(4.0)) << c.op;
  }
}

TEST(CwiseOpsTest, GradOpsMatchTheirFormulas) {
  Tensor y = MakeTensor<double>({2}, {0.5, 2.0});
  Tensor dy = MakeTensor<double>({2}, {3.0, -1.0});
  EXPECT_EQ(ToVector<double>(RunOne("TanhGrad", {y, dy})),
            (std::vector<double>{3.0 * 0.75, -1.0 * -3.0}));
  EXPECT_EQ(ToVector<double>(RunOne("SigmoidGrad", {y, dy})),
            (std::vector<double>{3.0 * 0.25, -1.0 * 2.0 * -1.0}));
  EXPECT_EQ(ToVector<double>(RunOne("SqrtGrad", {y, dy})),
            (std::vector<double>{3.0, -0.25}));
  EXPECT_EQ(ToVector<double>(RunOne("RsqrtGrad", {y, dy})),
            (std::vector<double>{3.0 * -0.5 * 0.125, -1.0 * -0.5 * 8}));
  EXPECT_EQ(ToVector<double>(RunOne("ReciprocalGrad", {y, dy})),
            (std::vector<double>{-3.0 * 0.25, 4.0}));
}

TEST(CwiseOpsTest, SelectScalarRowsAndElements) {
  Tensor t = MakeTensor<int32_t>({2, 2}, {1, 2, 3, 4});
  Tensor e = MakeTensor<int32_t>({2, 2}, {-1, -2, -3, -4});
  EXPECT_EQ(ToVector<int32_t>(
                RunOne("Select", {MakeTensor<bool>({2}, {false, true}), t, e})),
            (std::vector<int32_t>{-1, -2, 3, 4}));
  EXPECT_EQ(ToVector<int32_t>(RunOne(
                "Select",
                {MakeTensor<bool>({2, 2}, {true, false, false, true}), t, e})),
            (std::vector<int32_t>{1, -2, -3, 4}));
  EXPECT_EQ(
      ToVector<int32_t>(RunOne("Select", {Tensor::Scalar<bool>(false), t, e})),
      (std::vector<int32_t>{-1, -2, -3, -4}));
  std::vector<Tensor> out;
  Status s = RunOp("Select", {MakeTensor<bool>({3}, {true, true, false}), t, e},
                   {}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(MessageHas(s, "first dimension")) << s.ToString();
}

TEST(CwiseOpsTest, SelectV2BroadcastsAllThree) {
  Tensor c = MakeTensor<bool>({2, 1}, {true, false});
  Tensor t = MakeTensor<float>({3}, {1, 2, 3});
  Tensor out = RunOne("SelectV2", {c, t, Tensor::Scalar<float>(0)});
  EXPECT_EQ(out.shape(), TensorShape({2, 3}));
  EXPECT_EQ(ToVector<float>(out), (std::vector<float>{1, 2, 3, 0, 0, 0}));
}

TEST(CwiseOpsTest, ClipByValueAndAddN) {
  Tensor t = MakeTensor<float>({4}, {-2, 0.5f, 3, 1});
  EXPECT_EQ(ToVector<float>(RunOne("ClipByValue", {t, Tensor::Scalar<float>(-1),
                                                   Tensor::Scalar<float>(1)})),
            (std::vector<float>{-1, 0.5f, 1, 1}));
  EXPECT_EQ(ToVector<float>(
                RunOne("ClipByValue", {t, MakeTensor<float>({4}, {0, 0, 0, 2}),
                                       Tensor::Scalar<float>(2)})),
            (std::vector<float>{0, 0.5f, 2, 2}));
  // min > max: min wins, as TensorFlow's cwiseMin(max).cwiseMax(min).
  EXPECT_EQ(ToVector<float>(RunOne("ClipByValue", {t, Tensor::Scalar<float>(2),
                                                   Tensor::Scalar<float>(1)})),
            (std::vector<float>{2, 2, 2, 2}));
  std::vector<Tensor> out;
  TW_ASSERT_OK(test::RunOp(
      "AddN",
      {MakeTensor<int32_t>({2}, {1, 2}), MakeTensor<int32_t>({2}, {10, 20}),
       MakeTensor<int32_t>({2}, {100, 200})},
      {}, &out, 1, 2, /*as_list=*/true));
  EXPECT_EQ(ToVector<int32_t>(out[0]), (std::vector<int32_t>{111, 222}));
  Status s = test::RunOp(
      "AddN",
      {MakeTensor<int32_t>({2}, {1, 2}), MakeTensor<int32_t>({1}, {10})}, {},
      &out, 1, 2, /*as_list=*/true);
  EXPECT_FALSE(s.ok());
}

}  // namespace
}  // namespace tensorweave

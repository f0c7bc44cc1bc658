#include <gtest/gtest.h>

#include <cmath>

#include "lite/runtime/testing/op_model.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
namespace {

using testing::ActivationFunctionType;
using testing::BuiltinOperator;
using testing::OpModel;
using testing::RandomFloats;

TEST(FullyConnectedTest, HandComputed) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 3});
  int w = m.AddConst<float>({2, 3}, {1, 2, 3, -1, 0, 1});
  int b = m.AddConst<float>({2}, {0.5f, -10});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::FULLY_CONNECTED, {x, w, b}, {y},
          m.builder().FullyConnected(ActivationFunctionType::RELU));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 1, 1, 2, 0, -1});
  ASSERT_TRUE(m.Invoke().ok());
  // Row 0: [6.5, -10 -> 0]; row 1: [2 - 3 + .5 = -0.5 -> 0, -2 - 1 - 10 -> 0]
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{6.5f, 0, 0, 0}));
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(m.CompareWithReference(), "");
}

TEST(FullyConnectedTest, NoBiasKeepNumDims) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, 2, 2});
  int w = m.AddConst<float>({1, 2}, {2, 3});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::FULLY_CONNECTED, {x, w, -1}, {y},
          m.builder().FullyConnected(ActivationFunctionType::NONE, true));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 1, 2, -1});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{5, 1}));
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{1, 2, 1}));
}

// Optimized vs reference over shapes with tails, threads and activations.
TEST(FullyConnectedTest, OptimizedMatchesReference) {
  for (int batch : {1, 3, 9, 32}) {
    for (int in : {1, 17, 100}) {
      for (int out : {1, 15, 16, 33, 130}) {
        for (auto act :
             {ActivationFunctionType::NONE, ActivationFunctionType::RELU6,
              ActivationFunctionType::TANH, ActivationFunctionType::GELU,
              ActivationFunctionType::GELU_TANH}) {
          OpModel m;
          int x = m.AddInput(DataType::kFloat32, {batch, in});
          int w = m.AddConst<float>({out, in}, RandomFloats(out * in, in));
          int b = m.AddConst<float>({out}, RandomFloats(out, out));
          int y = m.AddOutput(DataType::kFloat32);
          m.AddOp(BuiltinOperator::FULLY_CONNECTED, {x, w, b}, {y},
                  m.builder().FullyConnected(act));
          ASSERT_TRUE(m.Build(2).ok());
          m.SetInput<float>(0, RandomFloats(batch * in, batch, 3.f));
          ASSERT_TRUE(m.Invoke().ok());
          ASSERT_EQ(m.CompareWithReference(), "")
              << batch << "x" << in << "->" << out;
        }
      }
    }
  }
}

// GELU fused as the GEMM's epilogue, against the formula in double
// precision: batch 32 takes the tiled path, batch 1 the row path, and 70
// outputs leave a partial panel; 2 threads split the columns.
TEST(FullyConnectedTest, FusedGeluMatchesFormula) {
  for (bool approximate : {false, true}) {
    for (int batch : {1, 32}) {
      for (int threads : {1, 2}) {
        const int in = 96, out = 70;
        OpModel m;
        int x = m.AddInput(DataType::kFloat32, {batch, in});
        std::vector<float> wv = RandomFloats(out * in, 7, 0.3f);
        std::vector<float> bv = RandomFloats(out, 8);
        std::vector<float> xv = RandomFloats(batch * in, 9, 2.f);
        int w = m.AddConst<float>({out, in}, wv);
        int b = m.AddConst<float>({out}, bv);
        int y = m.AddOutput(DataType::kFloat32);
        m.AddOp(BuiltinOperator::FULLY_CONNECTED, {x, w, b}, {y},
                m.builder().FullyConnected(
                    approximate ? ActivationFunctionType::GELU_TANH
                                : ActivationFunctionType::GELU));
        ASSERT_TRUE(m.Build(threads).ok());
        m.SetInput<float>(0, xv);
        ASSERT_TRUE(m.Invoke().ok());
        std::vector<float> got = m.GetOutput<float>(0);
        for (int r = 0; r < batch; ++r) {
          for (int o = 0; o < out; ++o) {
            double v = bv[o];
            for (int i = 0; i < in; ++i) {
              v += static_cast<double>(xv[r * in + i]) * wv[o * in + i];
            }
            const double want =
                approximate ? 0.5 * v *
                                  (1 + std::tanh(std::sqrt(2 / M_PI) *
                                                 (v + 0.044715 * v * v * v)))
                            : 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
            ASSERT_NEAR(got[r * out + o], want, 2e-5 + 2e-5 * std::fabs(want))
                << approximate << " " << batch << " " << r << "," << o;
          }
        }
        EXPECT_EQ(m.CompareWithReference(), "");
      }
    }
  }
}

// GELU is a fused activation of FULLY_CONNECTED alone: other ops reject it.
TEST(FullyConnectedTest, GeluIsFullyConnectedOnly) {
  OpModel m;
  int a = m.AddInput(DataType::kFloat32, {2});
  int b = m.AddInput(DataType::kFloat32, {2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::ADD, {a, b}, {y},
          m.builder().Arithmetic(ActivationFunctionType::GELU));
  Status s = m.Build();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(
      std::string(s.message())
          .find("fused activation GELU is supported by FULLY_CONNECTED only"),
      std::string::npos)
      << s.message();
}

TEST(FullyConnectedTest, RuntimeWeights) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {4, 20});
  int w = m.AddInput(DataType::kFloat32, {18, 20});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::FULLY_CONNECTED, {x, w}, {y},
          m.builder().FullyConnected());
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, RandomFloats(80, 1));
  m.SetInput<float>(1, RandomFloats(360, 2));
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
}

TEST(FullyConnectedTest, RejectsMismatchedShapes) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 5});
  int w = m.AddConst<float>({2, 3}, std::vector<float>(6));
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::FULLY_CONNECTED, {x, w}, {y});
  Status s = m.Build();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("does not match weights [2,3]"),
            std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace twl

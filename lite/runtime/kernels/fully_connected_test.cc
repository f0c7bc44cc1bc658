#include <gtest/gtest.h>

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
              ActivationFunctionType::TANH}) {
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

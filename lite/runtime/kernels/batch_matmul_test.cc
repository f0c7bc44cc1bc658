#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;
using testing::RandomFloats;

TEST(BatchMatMulTest, HandComputed) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 2});
  int y = m.AddInput(DataType::kFloat32, {2, 3});
  int z = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::BATCH_MATMUL, {x, y}, {z},
          m.builder().BatchMatMul(false, false));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 2, 3, 4});
  m.SetInput<float>(1, {1, 0, -1, 2, 1, 0});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{5, 2, -1, 11, 4, -3}));
}

TEST(BatchMatMulTest, AdjointsAndBroadcastMatchReference) {
  for (bool adj_x : {false, true}) {
    for (bool adj_y : {false, true}) {
      int M = 5, K = 19, N = 21;
      std::vector<int32_t> xs = {3, 1, adj_x ? K : M, adj_x ? M : K};
      std::vector<int32_t> ys = {2, adj_y ? N : K, adj_y ? K : N};
      OpModel m;
      int x = m.AddInput(DataType::kFloat32, xs);
      int y = m.AddInput(DataType::kFloat32, ys);
      int z = m.AddOutput(DataType::kFloat32);
      m.AddOp(BuiltinOperator::BATCH_MATMUL, {x, y}, {z},
              m.builder().BatchMatMul(adj_x, adj_y));
      ASSERT_TRUE(m.Build().ok());
      m.SetInput<float>(0, RandomFloats(3 * M * K, 1));
      m.SetInput<float>(1, RandomFloats(2 * K * N, 2));
      ASSERT_TRUE(m.Invoke().ok());
      EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{3, 2, M, N}));
      ASSERT_EQ(m.CompareWithReference(), "") << adj_x << adj_y;
    }
  }
}

TEST(BatchMatMulTest, RejectsInnerMismatch) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 3});
  int y = m.AddInput(DataType::kFloat32, {2, 3});
  int z = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::BATCH_MATMUL, {x, y}, {z});
  EXPECT_FALSE(m.Build().ok());
}

}  // namespace
}  // namespace twl

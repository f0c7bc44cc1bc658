#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

TEST(TransposeTest, Rank3) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 3, 2});
  int perm = m.AddConst<int32_t>({3}, {2, 0, 1});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::TRANSPOSE, {x, perm}, {y});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 2, 3}));
  // numpy: np.arange(12).reshape(2,3,2).transpose(2,0,1).ravel()
  EXPECT_EQ(m.GetOutput<float>(0),
            (std::vector<float>{0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11}));
}

// The attention head permutations (and others) on a 4-D tensor: every
// element checked against index arithmetic, optimized vs reference too.
TEST(TransposeTest, Rank4Permutations) {
  const std::vector<int32_t> dims = {2, 3, 4, 5};
  const std::vector<std::vector<int32_t>> perms = {{0, 2, 1, 3}, {0, 2, 3, 1},
                                                   {3, 2, 1, 0}, {0, 1, 2, 3},
                                                   {1, 0, 3, 2}, {1, 2, 3, 0}};
  std::vector<float> x(120);
  for (int i = 0; i < 120; ++i) x[i] = static_cast<float>(i);
  for (const auto& p : perms) {
    OpModel m;
    int in = m.AddInput(DataType::kFloat32, dims);
    int perm = m.AddConst<int32_t>({4}, p);
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::TRANSPOSE, {in, perm}, {y});
    ASSERT_TRUE(m.Build().ok());
    m.SetInput<float>(0, x);
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.CompareWithReference(), "");
    std::vector<int32_t> out_dims = {dims[p[0]], dims[p[1]], dims[p[2]],
                                     dims[p[3]]};
    EXPECT_EQ(m.OutputShape(0), out_dims);
    auto got = m.GetOutput<float>(0);
    const int in_strides[4] = {60, 20, 5, 1};
    int o = 0, idx[4];
    for (idx[0] = 0; idx[0] < out_dims[0]; ++idx[0])
      for (idx[1] = 0; idx[1] < out_dims[1]; ++idx[1])
        for (idx[2] = 0; idx[2] < out_dims[2]; ++idx[2])
          for (idx[3] = 0; idx[3] < out_dims[3]; ++idx[3], ++o) {
            int src = 0;
            for (int k = 0; k < 4; ++k) src += idx[k] * in_strides[p[k]];
            ASSERT_EQ(got[o], x[src]) << o;
          }
  }
}

TEST(TransposeTest, Int8AndBadPerm) {
  OpModel m;
  int x = m.AddInput(DataType::kInt8, {2, 3});
  int perm = m.AddConst<int32_t>({2}, {1, 0});
  int y = m.AddOutput(DataType::kInt8);
  m.AddOp(BuiltinOperator::TRANSPOSE, {x, perm}, {y});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int8_t>(0, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int8_t>(0), (std::vector<int8_t>{1, 4, 2, 5, 3, 6}));

  OpModel bad;
  x = bad.AddInput(DataType::kFloat32, {2, 3});
  perm = bad.AddConst<int32_t>({2}, {1, 1});
  y = bad.AddOutput(DataType::kFloat32);
  bad.AddOp(BuiltinOperator::TRANSPOSE, {x, perm}, {y});
  EXPECT_FALSE(bad.Build().ok());
}

}  // namespace
}  // namespace twl

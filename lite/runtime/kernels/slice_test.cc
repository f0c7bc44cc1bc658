#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

TEST(SliceTest, BeginAndSize) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {3, 4});
  int b = m.AddConst<int32_t>({2}, {1, 1});
  int s = m.AddConst<int32_t>({2}, {-1, 2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::SLICE, {x, b, s}, {y});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, Iota(12));
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{5, 6, 9, 10}));
}

struct Spec {
  std::vector<int32_t> begin, end, strides;
  int begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask;
  std::vector<int32_t> shape;
  std::vector<float> values;
};

void RunStridedSlice(const Spec& spec) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 3, 4});
  int n = static_cast<int>(spec.begin.size());
  int b = m.AddConst<int32_t>({n}, spec.begin);
  int e = m.AddConst<int32_t>({n}, spec.end);
  int s = m.AddConst<int32_t>({n}, spec.strides);
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::STRIDED_SLICE, {x, b, e, s}, {y},
          m.builder().StridedSlice(spec.begin_mask, spec.end_mask,
                                   spec.ellipsis_mask, spec.new_axis_mask,
                                   spec.shrink_mask));
  Status status = m.Build();
  ASSERT_TRUE(status.ok()) << status.message();
  m.SetInput<float>(0, Iota(24));
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), spec.shape);
  EXPECT_EQ(m.GetOutput<float>(0), spec.values);
}

// Expected values from numpy on x = np.arange(24).reshape(2, 3, 4).
TEST(StridedSliceTest, NumpyCases) {
  // x[1, :, ::2]
  RunStridedSlice({{1, 0, 0},
                   {2, 0, 0},
                   {1, 1, 2},
                   6,
                   6,
                   0,
                   0,
                   1,
                   {3, 2},
                   {12, 14, 16, 18, 20, 22}});
  // x[:, -1, ::-1]
  RunStridedSlice({{0, -1, 0},
                   {0, 0, 0},
                   {1, 1, -1},
                   5,
                   5,
                   0,
                   0,
                   2,
                   {2, 4},
                   {11, 10, 9, 8, 23, 22, 21, 20}});
  // x[..., 1]
  RunStridedSlice(
      {{0, 1}, {0, 2}, {1, 1}, 0, 0, 1, 0, 2, {2, 3}, {1, 5, 9, 13, 17, 21}});
  // x[0, np.newaxis, 1:3, -2:]
  RunStridedSlice({{0, 0, 1, -2},
                   {1, 0, 3, 0},
                   {1, 1, 1, 1},
                   0,
                   8,
                   0,
                   2,
                   1,
                   {1, 2, 2},
                   {6, 7, 10, 11}});
  // x[:, 5:1, :] -> empty middle dim (clamped)
  RunStridedSlice(
      {{0, 5, 0}, {0, 1, 0}, {1, 1, 1}, 5, 5, 0, 0, 0, {2, 0, 4}, {}});
}

TEST(StridedSliceTest, RejectsZeroStride) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {4});
  int b = m.AddConst<int32_t>({1}, {0});
  int e = m.AddConst<int32_t>({1}, {4});
  int s = m.AddConst<int32_t>({1}, {0});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::STRIDED_SLICE, {x, b, e, s}, {y},
          m.builder().StridedSlice(0, 0, 0, 0, 0));
  EXPECT_FALSE(m.Build().ok());
}

}  // namespace
}  // namespace twl

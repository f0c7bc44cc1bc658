#include <gtest/gtest.h>

#include "core/framework/strided_slice.h"
#include "core/kernels/array_kernels_test_util.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::AttrInt;
using test::MakeTensor;
using test::RunFetches;
using test::ToVector;

TEST(StridedSliceSpecTest, EllipsisNewAxisAndShrink) {
  // x[None, 1, ..., ::-2] on a [3, 4, 5] input.
  StridedSliceMasks masks;
  masks.new_axis_mask = 1;
  masks.shrink_axis_mask = 2;
  masks.ellipsis_mask = 4;
  masks.begin_mask = 8;
  masks.end_mask = 8;
  StridedSliceSpec spec;
  TW_ASSERT_OK(ComputeStridedSlice({3, 4, 5}, {0, 1, 0, 0}, {0, 2, 0, 0},
                                   {1, 1, 1, -2}, masks, &spec));
  EXPECT_EQ(spec.final_shape, (std::vector<int64_t>{1, 4, 3}));
  EXPECT_EQ(spec.begin, (std::vector<int64_t>{1, 0, 4}));
  EXPECT_EQ(spec.strides, (std::vector<int64_t>{1, 1, -2}));
}

TEST(StridedSliceSpecTest, ClampsAndEmptyRanges) {
  StridedSliceSpec spec;
  TW_ASSERT_OK(
      ComputeStridedSlice({5}, {-100}, {100}, {1}, StridedSliceMasks(), &spec));
  EXPECT_EQ(spec.final_shape, (std::vector<int64_t>{5}));
  TW_ASSERT_OK(
      ComputeStridedSlice({5}, {4}, {1}, {1}, StridedSliceMasks(), &spec));
  EXPECT_EQ(spec.final_shape, (std::vector<int64_t>{0}));
  TW_ASSERT_OK(
      ComputeStridedSlice({-1, 3}, {0}, {1}, {1}, StridedSliceMasks(), &spec));
  EXPECT_EQ(spec.final_shape, (std::vector<int64_t>{-1, 3}));
}

TEST(StridedSliceSpecTest, Errors) {
  StridedSliceSpec spec;
  StridedSliceMasks shrink;
  shrink.shrink_axis_mask = 1;
  Status s = ComputeStridedSlice({3}, {3}, {4}, {1}, shrink, &spec);
  EXPECT_TRUE(test::HasSubstr(s.message(), "out of bounds")) << s.message();
  s = ComputeStridedSlice({3}, {0}, {3}, {0}, StridedSliceMasks(), &spec);
  EXPECT_TRUE(test::HasSubstr(s.message(), "non-zero")) << s.message();
  s = ComputeStridedSlice({3}, {0, 0}, {1, 1}, {1, 1}, StridedSliceMasks(),
                          &spec);
  EXPECT_TRUE(test::HasSubstr(s.message(), "Index out of range"))
      << s.message();
}

TEST(SliceOpsTest, SliceStridedSliceAndGrad) {
  auto g = std::make_shared<Graph>();
  std::vector<int32_t> values(12);
  for (int i = 0; i < 12; ++i) values[i] = i;
  AddConst(g.get(), "x", MakeTensor<int32_t>(TensorShape({3, 4}), values));
  AddConst(g.get(), "b", Tensor::Vector<int32_t>({1, 1}));
  AddConst(g.get(), "s", Tensor::Vector<int32_t>({2, -1}));
  AddOp(g.get(), "Slice", "slice", {"x", "b", "s"});
  // x[::2, 3:0:-2]
  AddConst(g.get(), "sb", Tensor::Vector<int32_t>({0, 3}));
  AddConst(g.get(), "se", Tensor::Vector<int32_t>({0, 0}));
  AddConst(g.get(), "ss", Tensor::Vector<int32_t>({2, -2}));
  AddOp(g.get(), "StridedSlice", "ss_op", {"x", "sb", "se", "ss"},
        {{"end_mask", AttrInt(1)}});
  AddConst(g.get(), "shape", Tensor::Vector<int32_t>({3, 4}));
  AddOp(g.get(), "StridedSliceGrad", "grad",
        {"shape", "sb", "se", "ss", "ss_op"}, {{"end_mask", AttrInt(1)}});
  std::vector<Tensor> out;
  TW_ASSERT_OK(RunFetches(g, {"slice:0", "ss_op:0", "grad:0"}, &out));
  EXPECT_EQ(ToVector<int32_t>(out[0]),
            (std::vector<int32_t>{5, 6, 7, 9, 10, 11}));
  EXPECT_EQ(out[1].shape(), TensorShape({2, 2}));
  EXPECT_EQ(ToVector<int32_t>(out[1]), (std::vector<int32_t>{3, 1, 11, 9}));
  EXPECT_EQ(ToVector<int32_t>(out[2]),
            (std::vector<int32_t>{0, 1, 0, 3, 0, 0, 0, 0, 0, 9, 0, 11}));
}

}  // namespace
}  // namespace tensorweave

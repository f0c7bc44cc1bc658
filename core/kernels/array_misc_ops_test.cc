#include <gtest/gtest.h>

#include "core/kernels/array_kernels_test_util.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::RunFetches;
using test::ToVector;

TEST(ArrayMiscOpsTest, RangeSizeRankLikes) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "start", Tensor::Scalar<int64_t>(10));
  AddConst(g.get(), "limit", Tensor::Scalar<int64_t>(1));
  AddConst(g.get(), "delta", Tensor::Scalar<int64_t>(-4));
  AddOp(g.get(), "Range", "range", {"start", "limit", "delta"});
  AddOp(g.get(), "Size", "size", {"range"});
  AddOp(g.get(), "Rank", "rank", {"range"});
  AddOp(g.get(), "OnesLike", "ones", {"range"});
  AddOp(g.get(), "ZerosLike", "zeros", {"range"});
  AddConst(g.get(), "dim", Tensor::Scalar<int32_t>(0));
  AddOp(g.get(), "ExpandDims", "expanded", {"range", "dim"});
  AddOp(g.get(), "Squeeze", "squeezed", {"expanded"});
  AddOp(g.get(), "StopGradient", "stopped", {"range"});
  std::vector<Tensor> out;
  TW_ASSERT_OK(RunFetches(g,
                          {"range:0", "size:0", "rank:0", "ones:0", "zeros:0",
                           "expanded:0", "squeezed:0", "stopped:0"},
                          &out));
  EXPECT_EQ(ToVector<int64_t>(out[0]), (std::vector<int64_t>{10, 6, 2}));
  EXPECT_EQ(ToVector<int32_t>(out[1]), (std::vector<int32_t>{3}));
  EXPECT_EQ(ToVector<int32_t>(out[2]), (std::vector<int32_t>{1}));
  EXPECT_EQ(ToVector<int64_t>(out[3]), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(ToVector<int64_t>(out[4]), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(out[5].shape(), TensorShape({1, 3}));
  EXPECT_EQ(out[6].shape(), TensorShape({3}));
  EXPECT_EQ(ToVector<int64_t>(out[7]), (std::vector<int64_t>{10, 6, 2}));
}

TEST(ArrayMiscOpsTest, RangeWithWrongDirectionIsRejectedAtConstruction) {
  Graph g;
  AddConst(&g, "start", Tensor::Scalar<int32_t>(1));
  AddConst(&g, "limit", Tensor::Scalar<int32_t>(5));
  AddConst(&g, "delta", Tensor::Scalar<int32_t>(-1));
  Status s = test::TryAddOp(&g, "Range", "r", {"start", "limit", "delta"});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(test::HasSubstr(s.message(), "start >= limit")) << s.message();
}

}  // namespace
}  // namespace tensorweave

#include <gtest/gtest.h>

#include "core/kernels/array_kernels_test_util.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::AttrInt;
using test::MakeTensor;
using test::RunFetches;
using test::ToVector;

TEST(ConcatSplitOpsTest, ConcatThenSplitVRoundTrips) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "a", MakeTensor<int32_t>(TensorShape({2, 1}), {1, 2}));
  AddConst(g.get(), "b",
           MakeTensor<int32_t>(TensorShape({2, 2}), {3, 4, 5, 6}));
  AddConst(g.get(), "axis", Tensor::Scalar<int32_t>(-1));
  AddOp(g.get(), "ConcatV2", "cat", {"a", "b", "axis"});
  AddConst(g.get(), "sizes", Tensor::Vector<int64_t>({-1, 2}));
  AddConst(g.get(), "dim", Tensor::Scalar<int32_t>(1));
  AddOp(g.get(), "SplitV", "split", {"cat", "sizes", "dim"},
        {{"num_split", AttrInt(2)}});
  AddOp(g.get(), "Pack", "pack", {"a", "a"}, {{"axis", AttrInt(1)}});
  AddOp(g.get(), "Unpack", "unpack", {"b"}, {{"num", AttrInt(2)}});
  std::vector<Tensor> out;
  TW_ASSERT_OK(RunFetches(
      g, {"cat:0", "split:0", "split:1", "pack:0", "unpack:1"}, &out));
  EXPECT_EQ(ToVector<int32_t>(out[0]),
            (std::vector<int32_t>{1, 3, 4, 2, 5, 6}));
  EXPECT_EQ(ToVector<int32_t>(out[1]), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(ToVector<int32_t>(out[2]), (std::vector<int32_t>{3, 4, 5, 6}));
  EXPECT_EQ(out[3].shape(), TensorShape({2, 2, 1}));
  EXPECT_EQ(ToVector<int32_t>(out[3]), (std::vector<int32_t>{1, 1, 2, 2}));
  EXPECT_EQ(ToVector<int32_t>(out[4]), (std::vector<int32_t>{5, 6}));
}

TEST(ConcatSplitOpsTest, MismatchedShapesAreRejectedAtConstruction) {
  Graph g;
  AddConst(&g, "a", Tensor(DT_FLOAT, TensorShape({2, 3})));
  AddConst(&g, "b", Tensor(DT_FLOAT, TensorShape({3, 3})));
  AddConst(&g, "axis", Tensor::Scalar<int32_t>(1));
  Status s = test::TryAddOp(&g, "ConcatV2", "cat", {"a", "b", "axis"});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(test::HasSubstr(s.message(), "Dimension 0")) << s.message();
  EXPECT_TRUE(test::HasSubstr(s.message(), "cat")) << s.message();
}

}  // namespace
}  // namespace tensorweave

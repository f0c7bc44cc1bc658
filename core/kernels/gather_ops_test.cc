#include <gtest/gtest.h>

#include "core/kernels/array_kernels_test_util.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::MakeTensor;
using test::RunFetches;
using test::ToVector;

TEST(GatherOpsTest, GatherAlongAxisOne) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "p",
           MakeTensor<float>(TensorShape({2, 3}), {0, 1, 2, 3, 4, 5}));
  AddConst(g.get(), "i", Tensor::Vector<int64_t>({2, 0, 2}));
  AddConst(g.get(), "axis", Tensor::Scalar<int32_t>(1));
  AddOp(g.get(), "GatherV2", "gather", {"p", "i", "axis"});
  std::vector<Tensor> out;
  TW_ASSERT_OK(RunFetches(g, {"gather:0"}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({2, 3}));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{2, 0, 2, 5, 3, 5}));
}

TEST(GatherOpsTest, OutOfRangeIndexIsAnErrorNamingIndexAndNode) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "p", Tensor::Vector<float>({1, 2, 3}));
  AddConst(g.get(), "i",
           MakeTensor<int32_t>(TensorShape({2, 2}), {0, 1, 2, 3}));
  AddOp(g.get(), "Gather", "lookup", {"p", "i"});
  std::vector<Tensor> out;
  Status s = RunFetches(g, {"lookup:0"}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(test::HasSubstr(s.message(), "indices[1,1] = 3 is not in [0, 3)"))
      << s.message();
  EXPECT_TRUE(test::HasSubstr(s.message(), "[[node lookup")) << s.message();
}

TEST(GatherOpsTest, UnsortedSegmentSumDropsNegativeIdsAndRejectsLargeOnes) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "d",
           MakeTensor<double>(TensorShape({4, 2}), {1, 2, 3, 4, 5, 6, 7, 8}));
  AddConst(g.get(), "ids", Tensor::Vector<int32_t>({1, -1, 1, 0}));
  AddConst(g.get(), "bad_ids", Tensor::Vector<int32_t>({1, 0, 2, 0}));
  AddConst(g.get(), "n", Tensor::Scalar<int32_t>(2));
  AddOp(g.get(), "UnsortedSegmentSum", "sum", {"d", "ids", "n"});
  AddOp(g.get(), "UnsortedSegmentSum", "bad", {"d", "bad_ids", "n"});
  std::vector<Tensor> out;
  TW_ASSERT_OK(RunFetches(g, {"sum:0"}, &out));
  EXPECT_EQ(ToVector<double>(out[0]), (std::vector<double>{7, 8, 6, 8}));
  Status s = RunFetches(g, {"bad:0"}, &out);
  EXPECT_TRUE(
      test::HasSubstr(s.message(), "segment_ids[2] = 2 is out of range"))
      << s.message();
}

TEST(GatherOpsTest, OneHotAndWhere) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "i", Tensor::Vector<int64_t>({1, 3, -1}));
  AddConst(g.get(), "depth", Tensor::Scalar<int32_t>(3));
  AddConst(g.get(), "on", Tensor::Scalar<int32_t>(7));
  AddConst(g.get(), "off", Tensor::Scalar<int32_t>(0));
  AddOp(g.get(), "OneHot", "oh", {"i", "depth", "on", "off"},
        {{"axis", test::AttrInt(0)}});
  AddOp(g.get(), "Where", "where", {"oh"});
  std::vector<Tensor> out;
  TW_ASSERT_OK(RunFetches(g, {"oh:0", "where:0"}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({3, 3}));
  EXPECT_EQ(ToVector<int32_t>(out[0]),
            (std::vector<int32_t>{0, 0, 0, 7, 0, 0, 0, 0, 0}));
  EXPECT_EQ(ToVector<int64_t>(out[1]), (std::vector<int64_t>{1, 0}));
}

}  // namespace
}  // namespace tensorweave

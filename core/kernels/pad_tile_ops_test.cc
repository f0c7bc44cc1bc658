#include <gtest/gtest.h>

#include "core/kernels/array_kernels_test_util.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::AttrString;
using test::MakeTensor;
using test::RunFetches;
using test::ToVector;

TEST(PadTileOpsTest, PadMirrorPadAndTile) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "x", Tensor::Vector<float>({1, 2, 3}));
  AddConst(g.get(), "p", MakeTensor<int32_t>(TensorShape({1, 2}), {2, 1}));
  AddConst(g.get(), "c", Tensor::Scalar<float>(9));
  AddOp(g.get(), "PadV2", "pad", {"x", "p", "c"});
  AddOp(g.get(), "MirrorPad", "reflect", {"x", "p"},
        {{"mode", AttrString("REFLECT")}});
  AddOp(g.get(), "MirrorPad", "symmetric", {"x", "p"},
        {{"mode", AttrString("SYMMETRIC")}});
  AddConst(g.get(), "m", Tensor::Vector<int64_t>({2}));
  AddOp(g.get(), "Tile", "tile", {"x", "m"});
  std::vector<Tensor> out;
  TW_ASSERT_OK(
      RunFetches(g, {"pad:0", "reflect:0", "symmetric:0", "tile:0"}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{9, 9, 1, 2, 3, 9}));
  EXPECT_EQ(ToVector<float>(out[1]), (std::vector<float>{3, 2, 1, 2, 3, 2}));
  EXPECT_EQ(ToVector<float>(out[2]), (std::vector<float>{2, 1, 1, 2, 3, 3}));
  EXPECT_EQ(ToVector<float>(out[3]), (std::vector<float>{1, 2, 3, 1, 2, 3}));
}

TEST(PadTileOpsTest, ReflectPaddingAsLargeAsTheDimensionIsAnError) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "x", Tensor::Vector<float>({1, 2}));
  test::AddPlaceholder(g.get(), "p", DT_INT32, PartialShape({1, 2}));
  AddOp(g.get(), "MirrorPad", "mp", {"x", "p"},
        {{"mode", AttrString("REFLECT")}});
  Session session(g, SessionOptions());
  std::vector<Tensor> out;
  Status s =
      session.Run({{"p:0", MakeTensor<int32_t>(TensorShape({1, 2}), {2, 0})}},
                  {"mp:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(test::HasSubstr(s.message(), "REFLECT")) << s.message();
  EXPECT_TRUE(test::HasSubstr(s.message(), "[[node mp")) << s.message();
}

}  // namespace
}  // namespace tensorweave

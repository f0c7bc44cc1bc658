// Dilation2D and its backprops on a small image worked out by hand, and
// their errors.
#include <gtest/gtest.h>

#include <vector>

#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::AttrInts;
using test::Attrs;
using test::ExpectInvalidArgument;
using test::MakeTensor;
using test::ToVector;

Attrs DilationAttrs(const char* padding) {
  Attrs a = {{"strides", AttrInts({1, 1, 1, 1})},
             {"rates", AttrInts({1, 1, 1, 1})}};
  a["padding"].set_s(padding);
  return a;
}

TEST(DilationOpsTest, ValuesAndBackpropsByHand) {
  // One row [1, 5, 2, 4], filter [0, -1]: windows (1+0, 5-1) -> 4 at x=1,
  // (5+0, 2-1) -> 5 at x=1, (2+0, 4-1) -> 3 at x=3.
  const Tensor x = MakeTensor<float>({1, 1, 4, 1}, {1, 5, 2, 4});
  const Tensor f = MakeTensor<float>({1, 2, 1}, {0, -1});
  const Attrs attrs = DilationAttrs("VALID");
  EXPECT_EQ(ToVector<float>(test::RunOne("Dilation2D", {x, f}, attrs)),
            (std::vector<float>{4, 5, 3}));
  const Tensor g = MakeTensor<float>({1, 1, 3, 1}, {1, 10, 100});
  EXPECT_EQ(ToVector<float>(
                test::RunOne("Dilation2DBackpropInput", {x, f, g}, attrs)),
            (std::vector<float>{0, 11, 0, 100}));
  EXPECT_EQ(ToVector<float>(
                test::RunOne("Dilation2DBackpropFilter", {x, f, g}, attrs)),
            (std::vector<float>{10, 101}));
}

TEST(DilationOpsTest, BadInputsAreInvalidArgument) {
  Tensor out;
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("Dilation2D",
                                {Tensor(DT_FLOAT, TensorShape({1, 3, 3, 2})),
                                 Tensor(DT_FLOAT, TensorShape({2, 2, 3}))},
                                DilationAttrs("SAME"), &out),
      "depth");
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("Dilation2DBackpropInput",
                                {Tensor(DT_FLOAT, TensorShape({1, 3, 3, 1})),
                                 Tensor(DT_FLOAT, TensorShape({2, 2, 1})),
                                 Tensor(DT_FLOAT, TensorShape({1, 3, 3, 1}))},
                                DilationAttrs("VALID"), &out),
      "out_backprop");
}

}  // namespace
}  // namespace tensorweave

// Cast, Shape, Reshape, Fill, Identity and Const kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::AttrType;
using test::HasSubstr;
using test::MakeTensor;
using test::RunOpOnPlaceholders;
using test::ToVector;

Status Cast(const Tensor& x, DataType dst, Tensor* out) {
  return RunOpOnPlaceholders("Cast", {x}, {{"DstT", AttrType(dst)}}, out);
}

TEST(CastOpTest, FloatToIntClampsAndTruncates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = MakeTensor<float>(
      {9}, {2.7f, -2.7f, 0.0f, nan, 1e10f, -1e10f, inf, -inf, 2147483520.0f});
  Tensor y;
  TW_ASSERT_OK(Cast(x, DT_INT32, &y));
  EXPECT_EQ(y.dtype(), DT_INT32);
  EXPECT_EQ(ToVector<int32_t>(y),
            (std::vector<int32_t>{2, -2, 0, 0, INT32_MAX, INT32_MIN, INT32_MAX,
                                  INT32_MIN, 2147483520}));
  TW_ASSERT_OK(Cast(x, DT_UINT8, &y));
  EXPECT_EQ(ToVector<uint8_t>(y),
            (std::vector<uint8_t>{2, 0, 0, 0, 255, 0, 255, 0, 255}));
  TW_ASSERT_OK(Cast(x, DT_INT64, &y));
  std::vector<int64_t> got = ToVector<int64_t>(y);
  EXPECT_EQ(got[0], 2);
  EXPECT_EQ(got[3], 0);
  EXPECT_EQ(got[4], 10000000000LL);
  EXPECT_EQ(got[6], INT64_MAX);
  EXPECT_EQ(got[7], INT64_MIN);
  Tensor d = MakeTensor<double>({4}, {1e300, -1e300, 255.9, -0.9});
  TW_ASSERT_OK(Cast(d, DT_INT64, &y));
  EXPECT_EQ(ToVector<int64_t>(y),
            (std::vector<int64_t>{INT64_MAX, INT64_MIN, 255, 0}));
  TW_ASSERT_OK(Cast(d, DT_UINT8, &y));
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{255, 0, 255, 0}));
}

TEST(CastOpTest, ToAndFromBool) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor y;
  TW_ASSERT_OK(
      Cast(MakeTensor<float>({4}, {0.0f, -0.0f, 0.5f, nan}), DT_BOOL, &y));
  EXPECT_EQ(ToVector<bool>(y), (std::vector<bool>{false, false, true, true}));
  TW_ASSERT_OK(Cast(MakeTensor<int32_t>({3}, {0, -3, 256}), DT_BOOL, &y));
  EXPECT_EQ(ToVector<bool>(y), (std::vector<bool>{false, true, true}));
  TW_ASSERT_OK(
      Cast(MakeTensor<int64_t>({2}, {int64_t{1} << 40, 0}), DT_BOOL, &y));
  EXPECT_EQ(ToVector<bool>(y), (std::vector<bool>{true, false}));
  TW_ASSERT_OK(Cast(MakeTensor<bool>({2}, {true, false}), DT_FLOAT, &y));
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{1, 0}));
  TW_ASSERT_OK(Cast(MakeTensor<bool>({2}, {true, false}), DT_INT64, &y));
  EXPECT_EQ(ToVector<int64_t>(y), (std::vector<int64_t>{1, 0}));
}

TEST(CastOpTest, IntegerAndFloatConversions) {
  Tensor y;
  TW_ASSERT_OK(Cast(MakeTensor<int32_t>({3}, {-1, 7, 300}), DT_FLOAT, &y));
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{-1, 7, 300}));
  TW_ASSERT_OK(Cast(MakeTensor<uint8_t>({2}, {255, 3}), DT_INT32, &y));
  EXPECT_EQ(ToVector<int32_t>(y), (std::vector<int32_t>{255, 3}));
  TW_ASSERT_OK(Cast(MakeTensor<double>({2}, {0.1, -1.5}), DT_FLOAT, &y));
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{0.1f, -1.5f}));
  TW_ASSERT_OK(
      Cast(MakeTensor<int64_t>({1}, {int64_t{1} << 33}), DT_DOUBLE, &y));
  EXPECT_EQ(ToVector<double>(y), (std::vector<double>{8589934592.0}));
  // Same dtype: the value itself; shapes preserved, empty works.
  Tensor x = MakeTensor<float>({2, 1}, {1, 2});
  TW_ASSERT_OK(Cast(x, DT_FLOAT, &y));
  EXPECT_TRUE(y.SameContents(x));
  TW_ASSERT_OK(Cast(Tensor(DT_INT32, TensorShape({0, 3})), DT_DOUBLE, &y));
  EXPECT_EQ(y.shape(), TensorShape({0, 3}));
  EXPECT_EQ(y.dtype(), DT_DOUBLE);
  // Strings are not castable.
  Status s = Cast(Tensor::Scalar<std::string>("1"), DT_INT32, &y);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(HasSubstr(s.message(), "SrcT")) << s;
}

TEST(ShapeOpTest, Shapes) {
  Tensor y;
  TW_ASSERT_OK(RunOpOnPlaceholders(
      "Shape", {Tensor(DT_FLOAT, TensorShape({2, 0, 5}))}, {}, &y));
  EXPECT_EQ(y.dtype(), DT_INT32);
  EXPECT_EQ(ToVector<int32_t>(y), (std::vector<int32_t>{2, 0, 5}));
  TW_ASSERT_OK(RunOpOnPlaceholders("Shape", {Tensor::Scalar<std::string>("s")},
                                   {{"out_type", AttrType(DT_INT64)}}, &y));
  EXPECT_EQ(y.dtype(), DT_INT64);
  EXPECT_EQ(y.shape(), TensorShape({0}));
  TW_ASSERT_OK(RunOpOnPlaceholders("Shape", {Tensor(DT_BOOL, TensorShape({7}))},
                                   {{"out_type", AttrType(DT_INT64)}}, &y));
  EXPECT_EQ(ToVector<int64_t>(y), (std::vector<int64_t>{7}));
}

TEST(ReshapeOpTest, ReshapesAsView) {
  Tensor x =
      MakeTensor<int32_t>({2, 6}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  Tensor y;
  TW_ASSERT_OK(RunOpOnPlaceholders(
      "Reshape", {x, Tensor::Vector<int32_t>({3, -1})}, {}, &y));
  EXPECT_EQ(y.shape(), TensorShape({3, 4}));
  EXPECT_EQ(ToVector<int32_t>(y), ToVector<int32_t>(x));
  TW_ASSERT_OK(RunOpOnPlaceholders("Reshape",
                                   {x, Tensor::Vector<int64_t>({-1})}, {}, &y));
  EXPECT_EQ(y.shape(), TensorShape({12}));
  TW_ASSERT_OK(RunOpOnPlaceholders(
      "Reshape",
      {Tensor::Vector<float>({5}), Tensor(DT_INT32, TensorShape({0}))}, {},
      &y));
  EXPECT_EQ(y.rank(), 0);
  EXPECT_EQ(y.data<float>()[0], 5.0f);
  TW_ASSERT_OK(RunOpOnPlaceholders("Reshape",
                                   {Tensor::Vector<std::string>({"a", "b"}),
                                    Tensor::Vector<int32_t>({2, 1})},
                                   {}, &y));
  EXPECT_EQ(y.shape(), TensorShape({2, 1}));
  EXPECT_EQ(y.data<std::string>()[1], "b");

  Status s = RunOpOnPlaceholders("Reshape",
                                 {x, Tensor::Vector<int32_t>({5, 2})}, {}, &y);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "12 values")) << s;
  s = RunOpOnPlaceholders("Reshape", {x, Tensor::Vector<int32_t>({-1, 5})}, {},
                          &y);
  EXPECT_TRUE(HasSubstr(s.message(), "cannot be reshaped")) << s;
  s = RunOpOnPlaceholders("Reshape", {x, Tensor::Vector<int32_t>({-1, -1})}, {},
                          &y);
  EXPECT_TRUE(HasSubstr(s.message(), "only one input size may be -1")) << s;
  s = RunOpOnPlaceholders("Reshape", {x, Tensor::Vector<int32_t>({-2, -6})}, {},
                          &y);
  EXPECT_TRUE(HasSubstr(s.message(), "non-negative")) << s;
  s = RunOpOnPlaceholders("Reshape", {x, MakeTensor<int32_t>({1, 2}, {3, 4})},
                          {}, &y);
  EXPECT_FALSE(s.ok());
}

TEST(FillOpTest, Fills) {
  Tensor y;
  TW_ASSERT_OK(RunOpOnPlaceholders(
      "Fill", {Tensor::Vector<int32_t>({2, 3}), Tensor::Scalar<float>(1.5f)},
      {}, &y));
  EXPECT_EQ(y.shape(), TensorShape({2, 3}));
  EXPECT_EQ(ToVector<float>(y), std::vector<float>(6, 1.5f));
  TW_ASSERT_OK(RunOpOnPlaceholders(
      "Fill", {Tensor::Vector<int64_t>({3}), Tensor::Scalar<std::string>("ab")},
      {}, &y));
  EXPECT_EQ(ToVector<std::string>(y), std::vector<std::string>(3, "ab"));
  TW_ASSERT_OK(RunOpOnPlaceholders(
      "Fill", {Tensor::Vector<int32_t>({2, 0}), Tensor::Scalar<bool>(true)}, {},
      &y));
  EXPECT_EQ(y.shape(), TensorShape({2, 0}));
  TW_ASSERT_OK(RunOpOnPlaceholders(
      "Fill", {Tensor(DT_INT32, TensorShape({0})), Tensor::Scalar<uint8_t>(9)},
      {}, &y));
  EXPECT_EQ(y.rank(), 0);
  EXPECT_EQ(y.data<uint8_t>()[0], 9);
  Status s = RunOpOnPlaceholders(
      "Fill", {Tensor::Vector<int32_t>({2, -1}), Tensor::Scalar<float>(0)}, {},
      &y);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "negative")) << s;
  s = RunOpOnPlaceholders(
      "Fill", {Tensor::Vector<int32_t>({2}), Tensor::Vector<float>({1, 2})}, {},
      &y);
  EXPECT_TRUE(HasSubstr(s.message(), "value must be a scalar")) << s;
}

TEST(IdentityOpTest, PassesThrough) {
  for (const Tensor& x :
       {MakeTensor<float>({2}, {1, 2}), Tensor::Scalar<std::string>("str"),
        MakeTensor<bool>({1, 1}, {true}), Tensor(DT_INT64, TensorShape({0}))}) {
    Tensor y;
    TW_ASSERT_OK(RunOpOnPlaceholders("Identity", {x}, {}, &y));
    EXPECT_TRUE(y.SameContents(x)) << x.DebugString();
  }
}

TEST(ConstOpTest, ValueFromAttr) {
  auto g = std::make_shared<Graph>();
  test::AddConst(g.get(), "c", MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4}));
  test::AddConst(g.get(), "s", Tensor::Vector<std::string>({"x", ""}));
  Session sess(g, SessionOptions());
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {"c:0", "s:0"}, {}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({2, 2}));
  EXPECT_EQ(ToVector<int64_t>(out[0]), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(ToVector<std::string>(out[1]), (std::vector<std::string>{"x", ""}));
}

}  // namespace
}  // namespace tensorweave

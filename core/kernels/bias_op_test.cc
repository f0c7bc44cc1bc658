// BiasAdd and BiasAddGrad in both layouts against plain loops written here,
// and their errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::AttrString;
using test::ExpectInvalidArgument;
using test::MakeTensor;
using test::RandomValues;
using test::ToVector;

// The channel of flat index i of `shape` in `data_format` (NHWC: the last
// dim; NCHW: the third from last).
int64_t ChannelOf(const TensorShape& shape, const std::string& data_format,
                  int64_t i) {
  const int dim = data_format == "NCHW" ? shape.rank() - 3 : shape.rank() - 1;
  int64_t inner = 1;
  for (int d = dim + 1; d < shape.rank(); ++d) inner *= shape.dim(d);
  return i / inner % shape.dim(dim);
}

template <typename T>
void CheckLayouts(double tol) {
  struct Case {
    TensorShape shape;
    const char* data_format;
  };
  const std::vector<Case> cases = {
      {TensorShape({4, 3}), "NHWC"},
      {TensorShape({2, 5, 5, 6}), "NHWC"},
      {TensorShape({2, 3, 4, 4}), "NCHW"},
      {TensorShape({3, 7, 2}), "NCHW"},
      {TensorShape({2, 3, 2, 2, 17}), "NHWC"},
      {TensorShape({1, 1, 1, 1}), "NCHW"},
  };
  for (const Case& c : cases) {
    const std::string what = c.shape.ToString() + " " + c.data_format;
    const int dim = std::string(c.data_format) == "NCHW" ? c.shape.rank() - 3
                                                         : c.shape.rank() - 1;
    const int64_t channels = c.shape.dim(dim);
    const auto value = RandomValues<T>(c.shape.num_elements(), 11);
    const auto bias = RandomValues<T>(channels, 12);
    std::vector<T> sum_ref(value.size());
    std::vector<double> grad_ref(channels, 0.0);
    for (int64_t i = 0; i < c.shape.num_elements(); ++i) {
      const int64_t ch = ChannelOf(c.shape, c.data_format, i);
      sum_ref[i] = value[i] + bias[ch];
      grad_ref[ch] += value[i];
    }
    const test::Attrs attrs = {{"data_format", AttrString(c.data_format)}};
    const Tensor out = test::RunOne(
        "BiasAdd",
        {MakeTensor<T>(c.shape, value), MakeTensor<T>({channels}, bias)},
        attrs);
    EXPECT_EQ(ToVector<T>(out), sum_ref) << what;
    const auto grad = ToVector<T>(
        test::RunOne("BiasAddGrad", {MakeTensor<T>(c.shape, value)}, attrs));
    ASSERT_EQ(grad.size(), static_cast<size_t>(channels)) << what;
    for (int64_t ch = 0; ch < channels; ++ch) {
      EXPECT_NEAR(grad[ch], grad_ref[ch], tol) << what << " channel " << ch;
    }
  }
}

TEST(BiasOpTest, FloatMatchesReference) { CheckLayouts<float>(1e-5); }
TEST(BiasOpTest, DoubleMatchesReference) { CheckLayouts<double>(1e-12); }

TEST(BiasOpTest, Integers) {
  const Tensor out =
      test::RunOne("BiasAdd", {MakeTensor<int32_t>({2, 2}, {1, 2, 3, 4}),
                               MakeTensor<int32_t>({2}, {10, -20})});
  EXPECT_EQ(ToVector<int32_t>(out), (std::vector<int32_t>{11, -18, 13, -16}));
  const Tensor grad = test::RunOne(
      "BiasAddGrad", {MakeTensor<int64_t>({3, 2}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(ToVector<int64_t>(grad), (std::vector<int64_t>{9, 12}));
}

TEST(BiasOpTest, EmptyValue) {
  // No rows: nothing to add, and a gradient of zeros.
  const Tensor out =
      test::RunOne("BiasAdd", {Tensor(DT_FLOAT, TensorShape({0, 3})),
                               MakeTensor<float>({3}, {1, 2, 3})});
  EXPECT_EQ(out.shape(), TensorShape({0, 3}));
  EXPECT_EQ(ToVector<float>(test::RunOne(
                "BiasAddGrad", {Tensor(DT_FLOAT, TensorShape({0, 3}))})),
            (std::vector<float>{0, 0, 0}));
}

TEST(BiasOpTest, BadInputsAreInvalidArgument) {
  Tensor out;
  // A bias of the wrong length, NHWC and NCHW.
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("BiasAdd",
                                {Tensor(DT_FLOAT, TensorShape({2, 3})),
                                 Tensor(DT_FLOAT, TensorShape({2}))},
                                {}, &out),
      "bias must be a vector of 3");
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("BiasAdd",
                                {Tensor(DT_FLOAT, TensorShape({1, 4, 2, 2})),
                                 Tensor(DT_FLOAT, TensorShape({2}))},
                                {{"data_format", AttrString("NCHW")}}, &out),
      "bias must be a vector of 4");
  // A bias that is not a vector.
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("BiasAdd",
                                {Tensor(DT_FLOAT, TensorShape({2, 3})),
                                 Tensor(DT_FLOAT, TensorShape({1, 3}))},
                                {}, &out),
      "bias");
  // A value of too low a rank.
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("BiasAdd",
                                {Tensor(DT_FLOAT, TensorShape({3})),
                                 Tensor(DT_FLOAT, TensorShape({3}))},
                                {}, &out),
      "rank");
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("BiasAddGrad",
                                {Tensor(DT_FLOAT, TensorShape({3, 3}))},
                                {{"data_format", AttrString("NCHW")}}, &out),
      "rank");
}

}  // namespace
}  // namespace tensorweave

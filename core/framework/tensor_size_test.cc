#include "core/framework/tensor_size.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/framework/graph.pb.h"
#include "core/framework/tensor.h"
#include "core/framework/tensor_shape.h"

namespace tensorweave {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

bool HasSubstr(const std::string& s, const std::string& sub) {
  return s.find(sub) != std::string::npos;
}

TEST(TensorSizeTest, MultiplyWithoutOverflow) {
  int64_t out = -7;
  EXPECT_TRUE(
      MultiplyWithoutOverflow(int64_t{1} << 31, int64_t{1} << 31, &out));
  EXPECT_EQ(out, int64_t{1} << 62);
  EXPECT_TRUE(MultiplyWithoutOverflow(kMax, 1, &out));
  EXPECT_EQ(out, kMax);
  EXPECT_TRUE(MultiplyWithoutOverflow(kMax, 0, &out));
  EXPECT_EQ(out, 0);
  out = -7;
  EXPECT_FALSE(
      MultiplyWithoutOverflow(int64_t{1} << 32, int64_t{1} << 31, &out));
  EXPECT_EQ(out, -7);  // untouched on overflow
  EXPECT_FALSE(MultiplyWithoutOverflow(kMax, 2, &out));
  EXPECT_FALSE(
      MultiplyWithoutOverflow(int64_t{3037000500}, int64_t{3037000500}, &out));
  EXPECT_TRUE(
      MultiplyWithoutOverflow(int64_t{3037000499}, int64_t{3037000499}, &out));
  EXPECT_EQ(out, int64_t{3037000499} * int64_t{3037000499});
}

TEST(TensorSizeTest, AddWithoutOverflow) {
  int64_t out = -7;
  EXPECT_TRUE(AddWithoutOverflow(int64_t{1} << 61, int64_t{1} << 61, &out));
  EXPECT_EQ(out, int64_t{1} << 62);
  EXPECT_TRUE(AddWithoutOverflow(kMax - 1, 1, &out));
  EXPECT_EQ(out, kMax);
  out = -7;
  EXPECT_FALSE(AddWithoutOverflow(kMax, 1, &out));
  EXPECT_EQ(out, -7);
  EXPECT_FALSE(AddWithoutOverflow(int64_t{1} << 62, int64_t{1} << 62, &out));
}

TEST(TensorSizeTest, NumElementsOf) {
  int64_t n = -1;
  EXPECT_TRUE(NumElementsOf({}, &n).ok());
  EXPECT_EQ(n, 1);
  EXPECT_TRUE(NumElementsOf({2, 3, 4}, &n).ok());
  EXPECT_EQ(n, 24);
  // A zero anywhere gives 0, even after dims whose product overflows.
  EXPECT_TRUE(NumElementsOf({int64_t{1} << 40, int64_t{1} << 40, 0}, &n).ok());
  EXPECT_EQ(n, 0);
  Status s = NumElementsOf({int64_t{1} << 32, int64_t{1} << 32}, &n);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "too many elements")) << s.message();
  s = NumElementsOf({3, -1}, &n);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "negative")) << s.message();
}

TEST(TensorSizeTest, TensorByteSize) {
  int64_t bytes = 0;
  EXPECT_TRUE(TensorByteSize(DT_FLOAT, 10, &bytes));
  EXPECT_EQ(bytes, 40);
  EXPECT_TRUE(TensorByteSize(DT_STRING, 2, &bytes));
  EXPECT_EQ(bytes, static_cast<int64_t>(2 * sizeof(std::string)));
  // 2^62 floats: 2^64 bytes wraps to 0 in unchecked arithmetic.
  EXPECT_FALSE(TensorByteSize(DT_FLOAT, int64_t{1} << 62, &bytes));
  EXPECT_FALSE(TensorByteSize(DT_INT64, int64_t{1} << 61, &bytes));
  EXPECT_TRUE(TensorByteSize(DT_UINT8, kMax, &bytes));
}

TEST(TensorSizeTest, CheckTensorAllocationNamesShapeAndType) {
  Status s = CheckTensorAllocation(
      DT_FLOAT, TensorShape({int64_t{1} << 31, int64_t{1} << 31}));
  EXPECT_EQ(s.code(), Code::kResourceExhausted);
  EXPECT_TRUE(HasSubstr(s.message(), "[2147483648,2147483648]")) << s.message();
  EXPECT_TRUE(HasSubstr(s.message(), "float32")) << s.message();
  s = CheckTensorAllocation(DT_INT32, TensorShape({2, -3}));
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "int32")) << s.message();
  s = CheckTensorAllocation(DT_INT32, TensorShape({kMax, 2}));
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(CheckTensorAllocation(DT_DOUBLE, TensorShape({3, 4})).ok());
  EXPECT_TRUE(CheckTensorAllocation(DT_DOUBLE, TensorShape({kMax, 0})).ok());
}

TEST(TensorSizeTest, LimitIsEnforcedAndAdjustable) {
  const int64_t saved = MaxTensorBytes();
  EXPECT_GT(saved, 0);
  SetMaxTensorBytes(1000);
  EXPECT_TRUE(CheckTensorAllocation(DT_FLOAT, TensorShape({250})).ok());
  Status s = CheckTensorAllocation(DT_FLOAT, TensorShape({251}));
  EXPECT_EQ(s.code(), Code::kResourceExhausted);
  EXPECT_TRUE(HasSubstr(s.message(), "1004 bytes")) << s.message();
  Tensor t;
  EXPECT_EQ(Tensor::Allocate(DT_FLOAT, TensorShape({251}), &t).code(),
            Code::kResourceExhausted);
  EXPECT_FALSE(t.valid());
  EXPECT_TRUE(Tensor::Allocate(DT_FLOAT, TensorShape({250}), &t).ok());
  EXPECT_EQ(t.num_elements(), 250);
  SetMaxTensorBytes(saved);
  EXPECT_EQ(MaxTensorBytes(), saved);
}

TEST(TensorSizeTest, AllocatingConstructorThrowsInsteadOfWrapping) {
  // The byte size 2^64 used to wrap to a 0-byte buffer.
  try {
    Tensor t(DT_FLOAT, TensorShape({int64_t{1} << 31, int64_t{1} << 31}));
    FAIL() << "no exception";
  } catch (const TensorAllocationError& e) {
    EXPECT_TRUE(HasSubstr(e.what(), "[2147483648,2147483648]")) << e.what();
  }
  EXPECT_THROW(Tensor(DT_FLOAT, TensorShape({-1})), std::bad_alloc);
}

TEST(TensorSizeTest, AllocateReportsFailedAllocation) {
  // Under the limit's arithmetic but more than malloc can give.
  const int64_t saved = MaxTensorBytes();
  SetMaxTensorBytes(kMax);
  Tensor t;
  Status s = Tensor::Allocate(DT_UINT8, TensorShape({int64_t{1} << 62}), &t);
  EXPECT_EQ(s.code(), Code::kResourceExhausted);
  EXPECT_TRUE(HasSubstr(s.message(), "[4611686018427387904]")) << s.message();
  SetMaxTensorBytes(saved);
}

TEST(TensorSizeTest, ReshapedChecksTheElementCount) {
  Tensor t(DT_FLOAT, TensorShape({16}));
  Tensor out;
  // 2^32 * 2^32 * 16 wraps to 0 and 2^33 * (2^31+1) * 1 to 2^33: never 16.
  EXPECT_FALSE(
      t.Reshaped(TensorShape({int64_t{1} << 32, int64_t{1} << 32, 16}), &out)
          .ok());
  EXPECT_FALSE(t.Reshaped(TensorShape({-4, -4}), &out).ok());
  EXPECT_TRUE(t.Reshaped(TensorShape({4, 4}), &out).ok());
}

TEST(TensorSizeTest, FromProtoRefusesAHugeBroadcastShape) {
  // One value broadcast to 2^62 floats: the byte size used to wrap.
  TensorProto proto;
  proto.set_dtype(static_cast<::tensorweave::DataType>(DT_FLOAT));
  proto.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 31);
  proto.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 31);
  proto.add_float_val(1.0f);
  Tensor t;
  Status s = Tensor::FromProto(proto, &t);
  // InvalidArgument, as TensorFlow's ParseTensor for a proto it cannot load.
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "[2147483648,2147483648]")) << s.message();
}

}  // namespace
}  // namespace tensorweave

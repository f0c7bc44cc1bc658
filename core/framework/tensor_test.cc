#include "core/framework/tensor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "core/framework/attr_value.h"
#include "core/framework/graph.pb.h"
#include "core/framework/graph_test_util.h"
#include "core/framework/tensor_shape.h"
#include "core/framework/types.h"

namespace tensorweave {
namespace {

using test::MakeTensor;
using test::ToVector;

bool HasSubstr(const std::string& s, const std::string& sub) {
  return s.find(sub) != std::string::npos;
}

// ---------------------------------------------------------------- types ---

TEST(TypesTest, NamesAndSizes) {
  EXPECT_EQ(DataTypeName(DT_FLOAT), "float32");
  EXPECT_EQ(DataTypeName(DT_DOUBLE), "float64");
  EXPECT_EQ(DataTypeName(DT_STRING), "string");
  DataType t;
  ASSERT_TRUE(DataTypeFromName("double", &t));
  EXPECT_EQ(t, DT_DOUBLE);
  ASSERT_TRUE(DataTypeFromName("float", &t));
  EXPECT_EQ(t, DT_FLOAT);
  EXPECT_FALSE(DataTypeFromName("qint8", &t));
  EXPECT_EQ(DataTypeSize(DT_FLOAT), 4u);
  EXPECT_EQ(DataTypeSize(DT_INT64), 8u);
  EXPECT_EQ(DataTypeSize(DT_UINT8), 1u);
  EXPECT_EQ(DataTypeSize(DT_BOOL), 1u);
  EXPECT_EQ(DataTypeSize(DT_STRING), 0u);
  EXPECT_TRUE(IsValidDataType(DT_INT32));
  EXPECT_FALSE(IsValidDataType(0));
  EXPECT_FALSE(IsValidDataType(11));  // qint8
  EXPECT_EQ(DataTypeSize(DT_COMPLEX64), 8u);
  EXPECT_EQ(DataTypeSize(DT_COMPLEX128), 16u);
  EXPECT_TRUE(DataTypeIsComplex(DT_COMPLEX64));
  EXPECT_FALSE(DataTypeIsFloating(DT_COMPLEX128));
  EXPECT_FALSE(IsValidDataType(100));
  for (DataType dt : AllDataTypes()) {
    DataType back;
    ASSERT_TRUE(DataTypeFromName(DataTypeName(dt), &back)) << dt;
    EXPECT_EQ(back, dt);
  }
}

// -------------------------------------------------------- TensorShape ---

TEST(TensorShapeTest, BuildValidates) {
  TensorShape s;
  TW_EXPECT_OK(TensorShape::Build({2, 3, 0}, &s));
  EXPECT_EQ(s, TensorShape({2, 3, 0}));
  EXPECT_EQ(s.num_elements(), 0);

  Status st = TensorShape::Build({2, -3}, &s);
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(st.message(), "negative")) << st.message();

  const int64_t big = int64_t{1} << 32;
  st = TensorShape::Build({big, big}, &s);
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(st.message(), "too many elements")) << st.message();
  // 2^31 * 2^31 fits (2^62); 2^31 * 2^31 * 2 == 2^63 does not.
  const int64_t half = int64_t{1} << 31;
  TW_EXPECT_OK(TensorShape::Build({half, half}, &s));
  EXPECT_FALSE(TensorShape::Build({half, half, 2}, &s).ok());
  // A zero dim makes any product fit.
  TW_EXPECT_OK(TensorShape::Build({0, big, big}, &s));
  EXPECT_EQ(s.num_elements(), 0);
}

TEST(TensorShapeTest, ToString) {
  EXPECT_EQ(TensorShape().ToString(), "[]");
  EXPECT_EQ(TensorShape({2, 3}).ToString(), "[2,3]");
  EXPECT_EQ(PartialShape({-1, 3}).ToString(), "[?,3]");
  EXPECT_EQ(PartialShape::UnknownRank().ToString(), "<unknown>");
  EXPECT_EQ(PartialShape({}).ToString(), "[]");
}

TEST(PartialShapeTest, CompatibleAndMerge) {
  PartialShape unknown;
  PartialShape a({-1, 3}), b({2, -1}), c({2, 4}), d({2, 3, 1});
  EXPECT_TRUE(a.IsCompatibleWith(b));
  EXPECT_TRUE(a.IsCompatibleWith(unknown));
  EXPECT_TRUE(unknown.IsCompatibleWith(d));
  EXPECT_FALSE(a.IsCompatibleWith(c));
  EXPECT_FALSE(a.IsCompatibleWith(d));  // rank differs
  EXPECT_TRUE(a.IsCompatibleWith(TensorShape({7, 3})));
  EXPECT_FALSE(a.IsCompatibleWith(TensorShape({7, 4})));

  PartialShape m;
  TW_EXPECT_OK(a.Merge(b, &m));
  EXPECT_EQ(m, PartialShape({2, 3}));
  TW_EXPECT_OK(unknown.Merge(a, &m));
  EXPECT_EQ(m, a);
  TW_EXPECT_OK(a.Merge(unknown, &m));
  EXPECT_EQ(m, a);
  Status s = a.Merge(c, &m);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "[?,3]")) << s.message();
  EXPECT_FALSE(a.Merge(d, &m).ok());

  EXPECT_TRUE(PartialShape({2, 3}).IsFullyDefined());
  EXPECT_FALSE(a.IsFullyDefined());
  EXPECT_FALSE(unknown.IsFullyDefined());
  EXPECT_EQ(PartialShape({2, 3}).num_elements(), 6);
  EXPECT_EQ(a.num_elements(), -1);
  EXPECT_EQ(unknown.rank(), -1);
  EXPECT_NE(PartialShape::Unknown(0), unknown);  // scalar vs unknown rank
}

TEST(PartialShapeTest, ProtoRoundTrip) {
  for (const PartialShape& s :
       {PartialShape(), PartialShape({}), PartialShape({-1, 0, 5})}) {
    TensorShapeProto proto;
    s.ToProto(&proto);
    PartialShape back;
    TW_EXPECT_OK(PartialShape::FromProto(proto, &back));
    EXPECT_EQ(back, s) << s.ToString();
  }
  TensorShapeProto bad;
  bad.add_dim()->set_size(-2);
  PartialShape out;
  EXPECT_FALSE(PartialShape::FromProto(bad, &out).ok());
  TensorShapeProto both;
  both.set_unknown_rank(true);
  both.add_dim()->set_size(2);
  EXPECT_FALSE(PartialShape::FromProto(both, &out).ok());
}

// ------------------------------------------------------------- Tensor ---

TEST(TensorTest, BuffersAre64ByteAligned) {
  for (DataType dt : AllDataTypes()) {
    for (int64_t n : {0, 1, 3, 17, 1000}) {
      Tensor t(dt, TensorShape({n}));
      ASSERT_NE(t.raw_data(), nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % kTensorAlignment,
                0u)
          << DataTypeName(dt) << " n=" << n;
    }
  }
  auto buf = TensorBuffer::Allocate(1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buf->data()) % 64, 0u);
  EXPECT_TRUE(buf->owned());
}

// Small tensors' blocks are recycled per thread (tensor.cc): a block freed
// on another thread than its allocation's, reused there, and the threads'
// caches freed at their exit (ASan/TSan see every one of these).
TEST(TensorTest, SmallBuffersRecycledAcrossThreads) {
  constexpr int kTensors = 300;  // more than a thread keeps
  std::vector<Tensor> made(kTensors);
  std::thread maker([&] {
    for (int i = 0; i < kTensors; ++i) {
      made[i] = Tensor(DT_FLOAT, TensorShape({i % 16}));
      for (int j = 0; j < i % 16; ++j) made[i].data<float>()[j] = i + j;
    }
  });
  maker.join();
  std::thread user([&] {
    for (int i = 0; i < kTensors; ++i) {
      for (int j = 0; j < i % 16; ++j) {
        ASSERT_EQ(made[i].data<float>()[j], static_cast<float>(i + j));
      }
      made[i] = Tensor();  // freed here, on another thread
      Tensor reused(DT_INT64, TensorShape({8}));  // from this thread's cache
      EXPECT_EQ(
          reinterpret_cast<uintptr_t>(reused.raw_data()) % kTensorAlignment,
          0u);
      reused.data<int64_t>()[7] = i;
      EXPECT_EQ(reused.data<int64_t>()[7], i);
    }
  });
  user.join();
}

TEST(TensorTest, HugeBuffersAreHugePageAligned) {
  // From 4 MiB, buffers are 2 MiB aligned (transparent huge pages).
  for (int64_t rows : {1024, 1500, 2048}) {
    Tensor t(DT_FLOAT, TensorShape({rows, 1024}));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % (size_t{2} << 20), 0u)
        << rows;
    t.data<float>()[t.num_elements() - 1] = 1.f;  // the last element is ours
  }
  Tensor small(DT_FLOAT, TensorShape({512, 1024}));  // 2 MiB: small pages
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small.raw_data()) % kTensorAlignment,
            0u);
}

TEST(TensorTest, BasicsAndFactories) {
  Tensor invalid;
  EXPECT_FALSE(invalid.valid());
  EXPECT_EQ(invalid.raw_data(), nullptr);

  Tensor s = Tensor::Scalar<double>(2.5);
  EXPECT_EQ(s.dtype(), DT_DOUBLE);
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.num_elements(), 1);
  EXPECT_EQ(s.data<double>()[0], 2.5);

  Tensor v = Tensor::Vector<int32_t>({1, 2, 3});
  EXPECT_EQ(v.shape(), TensorShape({3}));
  EXPECT_EQ(v.num_bytes(), 12u);
  EXPECT_EQ(ToVector<int32_t>(v), (std::vector<int32_t>{1, 2, 3}));

  Tensor strs = Tensor::Vector<std::string>({"a", "bc"});
  EXPECT_EQ(strs.dtype(), DT_STRING);
  EXPECT_EQ(strs.data<std::string>()[1], "bc");
  EXPECT_EQ(strs.num_bytes(), 0u);
}

TEST(TensorTest, ReshapedIsZeroCopyView) {
  Tensor t = MakeTensor<float>({2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor r;
  TW_ASSERT_OK(t.Reshaped(TensorShape({3, 2}), &r));
  EXPECT_EQ(r.shape(), TensorShape({3, 2}));
  EXPECT_EQ(r.raw_data(), t.raw_data());
  EXPECT_EQ(r.buffer(), t.buffer());
  r.data<float>()[5] = 42;
  EXPECT_EQ(t.data<float>()[5], 42);
  EXPECT_FALSE(t.BufferUniquelyOwned());

  Status s = t.Reshaped(TensorShape({4}), &r);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "6 elements")) << s.message();
}

TEST(TensorTest, SliceIsZeroCopyView) {
  Tensor t = MakeTensor<int64_t>({4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  Tensor rows = t.Slice(1, 3);
  EXPECT_EQ(rows.shape(), TensorShape({2, 2}));
  EXPECT_EQ(ToVector<int64_t>(rows), (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(rows.raw_data(), t.data<int64_t>() + 2);
  rows.data<int64_t>()[0] = -1;
  EXPECT_EQ(t.data<int64_t>()[2], -1);
  Tensor empty = t.Slice(2, 2);
  EXPECT_EQ(empty.num_elements(), 0);

  Tensor strs = MakeTensor<std::string>({3}, {"x", "y", "z"});
  Tensor tail = strs.Slice(1, 3);
  EXPECT_EQ(ToVector<std::string>(tail), (std::vector<std::string>{"y", "z"}));
  tail.data<std::string>()[0] = "Y";
  EXPECT_EQ(strs.data<std::string>()[1], "Y");
}

TEST(TensorTest, DeepCopyIsIndependent) {
  Tensor t = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  Tensor copy = t.DeepCopy();
  EXPECT_NE(copy.raw_data(), t.raw_data());
  EXPECT_TRUE(copy.SameContents(t));
  EXPECT_TRUE(copy.BufferUniquelyOwned());
  t.data<float>()[0] = 100;
  EXPECT_EQ(copy.data<float>()[0], 1);
  EXPECT_FALSE(copy.SameContents(t));

  // A deep copy of a slice copies only the slice.
  Tensor slice_copy = t.Slice(1, 2).DeepCopy();
  EXPECT_EQ(ToVector<float>(slice_copy), (std::vector<float>{3, 4}));

  Tensor s = MakeTensor<std::string>({2}, {"hello", "world"});
  Tensor scopy = s.DeepCopy();
  s.data<std::string>()[0] = "changed";
  EXPECT_EQ(scopy.data<std::string>()[0], "hello");
}

TEST(TensorTest, BorrowedBufferReleasedOnce) {
  int released = 0;
  static float storage[4] = {1, 2, 3, 4};
  {
    auto buf = TensorBuffer::Borrow(storage, sizeof(storage),
                                    [&released] { ++released; });
    EXPECT_FALSE(buf->owned());
    Tensor t(DT_FLOAT, TensorShape({4}), buf);
    Tensor copy = t;
    buf.reset();
    EXPECT_FALSE(t.BufferUniquelyOwned());  // borrowed: never reused
    EXPECT_EQ(t.data<float>()[3], 4);
    EXPECT_EQ(released, 0);
  }
  EXPECT_EQ(released, 1);
}

TEST(TensorTest, LargeBuffersAreRecycled) {
  // A freed large buffer serves the next allocation of the same size.
  void* first;
  {
    Tensor t(DT_FLOAT, TensorShape({784, 512}));
    first = t.raw_data();
    t.data<float>()[0] = 1.5f;
  }
  const size_t cached = TensorBuffer::CachedBytesForTesting();
  EXPECT_GE(cached, size_t{784 * 512 * 4});
  Tensor again(DT_FLOAT, TensorShape({512, 784}));
  EXPECT_EQ(again.raw_data(), first);
  EXPECT_EQ(TensorBuffer::CachedBytesForTesting(), cached - 784 * 512 * 4);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(again.raw_data()) % kTensorAlignment,
            0u);
  // Another size does not take it; small buffers are never cached.
  Tensor other(DT_FLOAT, TensorShape({1000, 512}));
  EXPECT_NE(other.raw_data(), first);
  { Tensor small(DT_FLOAT, TensorShape({16})); }
  EXPECT_EQ(TensorBuffer::CachedBytesForTesting(), cached - 784 * 512 * 4);
}

TEST(TensorTest, BufferCacheIsBounded) {
  // 80 freed 4 MiB buffers: the cache keeps at most 256 MiB of them; a
  // 128 MiB buffer (over a quarter of that) is freed rather than kept.
  {
    std::vector<Tensor> many;
    for (int i = 0; i < 80; ++i) {
      many.emplace_back(DT_FLOAT, TensorShape({1 << 20}));
    }
  }
  EXPECT_LE(TensorBuffer::CachedBytesForTesting(), size_t{256} << 20);
  EXPECT_GE(TensorBuffer::CachedBytesForTesting(), size_t{252} << 20);
  const size_t before = TensorBuffer::CachedBytesForTesting();
  { Tensor huge(DT_FLOAT, TensorShape({32 << 20})); }
  EXPECT_EQ(TensorBuffer::CachedBytesForTesting(), before);
  // Buffers of a new size evict older ones rather than being dropped.
  { Tensor fresh(DT_FLOAT, TensorShape({3 << 20})); }
  EXPECT_LE(TensorBuffer::CachedBytesForTesting(), size_t{256} << 20);
  Tensor fresh2(DT_FLOAT, TensorShape({3 << 20}));
  void* p = fresh2.raw_data();
  fresh2 = Tensor();
  Tensor fresh3(DT_FLOAT, TensorShape({3 << 20}));
  EXPECT_EQ(fresh3.raw_data(), p);
}

TEST(TensorTest, SameContents) {
  Tensor a = MakeTensor<int32_t>({2}, {1, 2});
  EXPECT_TRUE(a.SameContents(MakeTensor<int32_t>({2}, {1, 2})));
  EXPECT_FALSE(a.SameContents(MakeTensor<int32_t>({2}, {1, 3})));
  EXPECT_FALSE(a.SameContents(MakeTensor<int32_t>({1, 2}, {1, 2})));
  EXPECT_FALSE(a.SameContents(MakeTensor<int64_t>({2}, {1, 2})));
}

// Fills a tensor of any dtype with distinct, dtype-appropriate values.
Tensor Sample(DataType dt, const TensorShape& shape) {
  Tensor t(dt, shape);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    switch (dt) {
      case DT_FLOAT:
        t.data<float>()[i] = 0.5f * i - 3.25f;
        break;
      case DT_DOUBLE:
        t.data<double>()[i] = 1e-3 * i - 7.0;
        break;
      case DT_INT32:
        t.data<int32_t>()[i] = static_cast<int32_t>(i * 100003 - 500000);
        break;
      case DT_UINT8:
        t.data<uint8_t>()[i] = static_cast<uint8_t>(i * 37);
        break;
      case DT_INT64:
        t.data<int64_t>()[i] = (int64_t{1} << 40) * (i - 2);
        break;
      case DT_BOOL:
        t.data<bool>()[i] = i % 3 == 0;
        break;
      case DT_STRING:
        t.data<std::string>()[i] = std::string(i, 'a') + std::to_string(i);
        break;
      case DT_INT8:
        t.data<int8_t>()[i] = static_cast<int8_t>(i * 37 - 100);
        break;
      case DT_INT16:
        t.data<int16_t>()[i] = static_cast<int16_t>(i * 3001 - 30000);
        break;
      case DT_UINT16:
        t.data<uint16_t>()[i] = static_cast<uint16_t>(i * 4099);
        break;
      case DT_UINT32:
        t.data<uint32_t>()[i] = static_cast<uint32_t>(i * 400000009u);
        break;
      case DT_UINT64:
        t.data<uint64_t>()[i] = (uint64_t{1} << 63) + i;
        break;
      case DT_HALF:
        t.data<half>()[i] = half(0.25f * i - 3.0f);
        break;
      case DT_BFLOAT16:
        t.data<bfloat16>()[i] = bfloat16(0.25f * i - 3.0f);
        break;
      case DT_COMPLEX64:
        t.data<complex64>()[i] = complex64(0.5f * i - 1.0f, -0.25f * i);
        break;
      case DT_COMPLEX128:
        t.data<complex128>()[i] = complex128(1e-3 * i, 7.0 - i);
        break;
      default:
        ADD_FAILURE() << "dtype " << dt;
    }
  }
  return t;
}

TEST(TensorProtoTest, RoundTripEveryDtype) {
  for (DataType dt : AllDataTypes()) {
    for (const TensorShape& shape :
         {TensorShape(), TensorShape({0}), TensorShape({5}),
          TensorShape({2, 3}), TensorShape({3, 0, 2})}) {
      Tensor t = Sample(dt, shape);
      TensorProto proto;
      t.ToProto(&proto);
      EXPECT_EQ(proto.dtype(), dt);
      Tensor back;
      TW_ASSERT_OK(Tensor::FromProto(proto, &back));
      EXPECT_TRUE(back.SameContents(t))
          << DataTypeName(dt) << " " << shape.ToString() << ": "
          << back.DebugString() << " vs " << t.DebugString();
      EXPECT_NE(back.raw_data(), t.raw_data());
      // Also through the wire format.
      std::string wire;
      ASSERT_TRUE(proto.SerializeToString(&wire));
      TensorProto parsed;
      ASSERT_TRUE(parsed.ParseFromString(wire));
      Tensor back2;
      TW_ASSERT_OK(Tensor::FromProto(parsed, &back2));
      EXPECT_TRUE(back2.SameContents(t)) << DataTypeName(dt);
    }
  }
}

TEST(TensorProtoTest, RoundTripOfSliceUsesSliceOnly) {
  Tensor t = Sample(DT_INT32, TensorShape({4, 2}));
  Tensor slice = t.Slice(2, 4);
  TensorProto proto;
  slice.ToProto(&proto);
  EXPECT_EQ(proto.tensor_content().size(), 16u);
  Tensor back;
  TW_ASSERT_OK(Tensor::FromProto(proto, &back));
  EXPECT_TRUE(back.SameContents(slice));
  EXPECT_EQ(back.data<int32_t>()[0], t.data<int32_t>()[4]);
}

TEST(TensorProtoTest, FromProtoErrors) {
  Tensor out;
  // Wrong content size.
  TensorProto p;
  p.set_dtype(DT_FLOAT);
  p.mutable_tensor_shape()->add_dim()->set_size(3);
  p.set_tensor_content(std::string(8, '\0'));
  Status s = Tensor::FromProto(p, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "8 bytes")) << s.message();
  EXPECT_TRUE(HasSubstr(s.message(), "12")) << s.message();
  EXPECT_FALSE(out.valid());  // untouched on error

  // Content for an empty tensor: ignored, as TensorFlow does.
  TensorProto p0;
  p0.set_dtype(DT_INT32);
  p0.mutable_tensor_shape()->add_dim()->set_size(0);
  p0.set_tensor_content(std::string(4, '\0'));
  TW_EXPECT_OK(Tensor::FromProto(p0, &out));
  EXPECT_EQ(out.shape(), TensorShape({0}));
  out = Tensor();

  // Bad dtypes.
  for (int bad : {0, 11, 20, 99}) {  // 11: qint8, 20: resource
    TensorProto pb;
    pb.set_dtype(static_cast<::tensorweave::DataType>(bad));
    s = Tensor::FromProto(pb, &out);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << bad;
    EXPECT_TRUE(HasSubstr(s.message(), "dtype")) << s.message();
  }

  // Partially unknown and unknown-rank shapes.
  TensorProto pu;
  pu.set_dtype(DT_FLOAT);
  pu.mutable_tensor_shape()->add_dim()->set_size(2);
  pu.mutable_tensor_shape()->add_dim()->set_size(-1);
  pu.add_float_val(1.0f);
  s = Tensor::FromProto(pu, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "[2,?]")) << s.message();
  EXPECT_TRUE(HasSubstr(s.message(), "not fully defined")) << s.message();
  TensorProto pr;
  pr.set_dtype(DT_FLOAT);
  pr.mutable_tensor_shape()->set_unknown_rank(true);
  EXPECT_FALSE(Tensor::FromProto(pr, &out).ok());

  // Shape too large.
  TensorProto big;
  big.set_dtype(DT_FLOAT);
  big.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 40);
  big.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 40);
  EXPECT_FALSE(Tensor::FromProto(big, &out).ok());

  // A negative dimension.
  TensorProto pn;
  pn.set_dtype(DT_FLOAT);
  pn.mutable_tensor_shape()->add_dim()->set_size(-7);
  pn.add_float_val(1.0f);
  EXPECT_EQ(Tensor::FromProto(pn, &out).code(), Code::kInvalidArgument);
  EXPECT_FALSE(out.valid());
}

TEST(TensorProtoTest, SingleValueIsBroadcast) {
  Tensor out;
  TensorProto pf;
  pf.set_dtype(DT_FLOAT);
  pf.mutable_tensor_shape()->add_dim()->set_size(2);
  pf.mutable_tensor_shape()->add_dim()->set_size(3);
  pf.add_float_val(1.5f);
  TW_ASSERT_OK(Tensor::FromProto(pf, &out));
  EXPECT_EQ(out.shape(), TensorShape({2, 3}));
  EXPECT_EQ(ToVector<float>(out), std::vector<float>(6, 1.5f));

  TensorProto pd;
  pd.set_dtype(DT_DOUBLE);
  pd.mutable_tensor_shape()->add_dim()->set_size(3);
  pd.add_double_val(-2.0);
  TW_ASSERT_OK(Tensor::FromProto(pd, &out));
  EXPECT_EQ(ToVector<double>(out), std::vector<double>(3, -2.0));

  TensorProto pi;
  pi.set_dtype(DT_INT32);
  pi.mutable_tensor_shape()->add_dim()->set_size(4);
  pi.add_int_val(7);
  TW_ASSERT_OK(Tensor::FromProto(pi, &out));
  EXPECT_EQ(ToVector<int32_t>(out), std::vector<int32_t>(4, 7));

  TensorProto pu;
  pu.set_dtype(DT_UINT8);
  pu.mutable_tensor_shape()->add_dim()->set_size(2);
  pu.add_int_val(200);
  TW_ASSERT_OK(Tensor::FromProto(pu, &out));
  EXPECT_EQ(ToVector<uint8_t>(out), std::vector<uint8_t>(2, 200));

  TensorProto pl;
  pl.set_dtype(DT_INT64);
  pl.mutable_tensor_shape()->add_dim()->set_size(2);
  pl.add_int64_val(int64_t{1} << 50);
  TW_ASSERT_OK(Tensor::FromProto(pl, &out));
  EXPECT_EQ(ToVector<int64_t>(out), std::vector<int64_t>(2, int64_t{1} << 50));

  TensorProto pb;
  pb.set_dtype(DT_BOOL);
  pb.mutable_tensor_shape()->add_dim()->set_size(3);
  pb.add_bool_val(true);
  TW_ASSERT_OK(Tensor::FromProto(pb, &out));
  EXPECT_EQ(ToVector<bool>(out), std::vector<bool>(3, true));

  TensorProto ps;
  ps.set_dtype(DT_STRING);
  ps.mutable_tensor_shape()->add_dim()->set_size(2);
  ps.add_string_val("same");
  TW_ASSERT_OK(Tensor::FromProto(ps, &out));
  EXPECT_EQ(ToVector<std::string>(out), std::vector<std::string>(2, "same"));

  // All values given: used as they are. A scalar with no shape: one value.
  TensorProto pall;
  pall.set_dtype(DT_INT64);
  pall.mutable_tensor_shape()->add_dim()->set_size(3);
  for (int64_t v : {5, 6, 7}) pall.add_int64_val(v);
  TW_ASSERT_OK(Tensor::FromProto(pall, &out));
  EXPECT_EQ(ToVector<int64_t>(out), (std::vector<int64_t>{5, 6, 7}));
  TensorProto scalar;
  scalar.set_dtype(DT_FLOAT);
  scalar.add_float_val(3.0f);
  TW_ASSERT_OK(Tensor::FromProto(scalar, &out));
  EXPECT_EQ(out.rank(), 0);
  EXPECT_EQ(out.data<float>()[0], 3.0f);
}

// TensorFlow's FromProto: K < N values are followed by copies of the last,
// none fill zeros (empty strings), more than N are cut to N.
TEST(TensorProtoTest, ValueCountsAsTensorFlow) {
  Tensor out;
  TensorProto pv;
  pv.set_dtype(DT_INT32);
  pv.mutable_tensor_shape()->add_dim()->set_size(4);
  pv.add_int_val(1);
  pv.add_int_val(2);
  TW_ASSERT_OK(Tensor::FromProto(pv, &out));
  EXPECT_EQ(ToVector<int32_t>(out), (std::vector<int32_t>{1, 2, 2, 2}));

  TensorProto many;
  many.set_dtype(DT_FLOAT);
  many.mutable_tensor_shape()->add_dim()->set_size(2);
  for (float v : {1.f, 2.f, 3.f, 4.f}) many.add_float_val(v);
  TW_ASSERT_OK(Tensor::FromProto(many, &out));
  EXPECT_EQ(ToVector<float>(out), (std::vector<float>{1.f, 2.f}));

  TensorProto none;
  none.set_dtype(DT_DOUBLE);
  none.mutable_tensor_shape()->add_dim()->set_size(3);
  TW_ASSERT_OK(Tensor::FromProto(none, &out));
  EXPECT_EQ(ToVector<double>(out), std::vector<double>(3, 0.0));

  TensorProto ps;
  ps.set_dtype(DT_STRING);
  ps.mutable_tensor_shape()->add_dim()->set_size(3);
  ps.add_string_val("a");
  ps.add_string_val("b");
  TW_ASSERT_OK(Tensor::FromProto(ps, &out));
  EXPECT_EQ(ToVector<std::string>(out),
            (std::vector<std::string>{"a", "b", "b"}));
  TensorProto pse;
  pse.set_dtype(DT_STRING);
  pse.mutable_tensor_shape()->add_dim()->set_size(2);
  TW_ASSERT_OK(Tensor::FromProto(pse, &out));
  EXPECT_EQ(ToVector<std::string>(out), std::vector<std::string>(2, ""));

  // int_val into int8 wraps as a C++ cast, as TensorFlow (300 -> 44).
  TensorProto p8;
  p8.set_dtype(DT_INT8);
  p8.mutable_tensor_shape()->add_dim()->set_size(2);
  p8.add_int_val(300);
  p8.add_int_val(-1);
  TW_ASSERT_OK(Tensor::FromProto(p8, &out));
  EXPECT_EQ(ToVector<int8_t>(out), (std::vector<int8_t>{44, -1}));
}

// Strings in tensor_content, TensorFlow's encoding (Tensor::
// AsProtoTensorContent): the varint32 lengths, then the bytes.
TEST(TensorProtoTest, StringsFromTensorContent) {
  const std::string long_string(200, 'x');  // a two-byte length: 0xc8 0x01
  TensorProto p;
  p.set_dtype(DT_STRING);
  p.mutable_tensor_shape()->add_dim()->set_size(3);
  p.set_tensor_content(std::string("\x02\x00\xc8\x01", 4) + "ab" + long_string);
  Tensor out;
  TW_ASSERT_OK(Tensor::FromProto(p, &out));
  EXPECT_EQ(ToVector<std::string>(out),
            (std::vector<std::string>{"ab", "", long_string}));

  struct Bad {
    std::string content;
    const char* why;
  };
  for (const Bad& bad : std::vector<Bad>{
           {std::string("\x02\x00", 2), "too short"},
           {std::string("\x02\x00\x01", 3) + "abcd", "bytes for strings"},
           {std::string("\x02\x00\x05", 3) + "ab", "bytes for strings"},
           {std::string("\xff\xff\xff\xff\xff\x0f", 6), "malformed"},
           {std::string("\x80\x80\x80", 3), "malformed"},
       }) {
    TensorProto pb = p;
    pb.set_tensor_content(bad.content);
    Tensor t;
    Status s = Tensor::FromProto(pb, &t);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << bad.why;
    EXPECT_TRUE(HasSubstr(s.message(), bad.why)) << s.message();
    EXPECT_TRUE(HasSubstr(s.message(), "string tensor of shape [3]"))
        << s.message();
    EXPECT_FALSE(t.valid());
  }
}

// Hostile shapes: every one an InvalidArgument naming the shape, never an
// allocation (TensorFlow's ParseTensor answers InvalidArgument too).
TEST(TensorProtoTest, HostileShapesAreInvalidArgument) {
  struct Case {
    std::vector<int64_t> dims;
    DataType dtype;
    const char* shape;
  };
  for (const Case& c : std::vector<Case>{
           {{int64_t{1} << 40}, DT_FLOAT, "[1099511627776]"},
           {{int64_t{1} << 31, int64_t{1} << 31}, DT_DOUBLE, "[2147483648,"},
           {{int64_t{1} << 40, int64_t{1} << 40}, DT_INT8, "[1099511627776,"},
           {{INT64_MAX}, DT_FLOAT, "9223372036854775807"},
           {{INT64_MAX / 2}, DT_STRING, "4611686018427387903"},
           {{3, -2}, DT_INT32, "-2"},
       }) {
    for (int values : {0, 1, 2}) {
      TensorProto p;
      p.set_dtype(static_cast<::tensorweave::DataType>(c.dtype));
      for (int64_t d : c.dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
      for (int i = 0; i < values; ++i) {
        if (c.dtype == DT_STRING) p.add_string_val("s");
        if (c.dtype == DT_FLOAT) p.add_float_val(1.0f);
        if (c.dtype == DT_DOUBLE) p.add_double_val(1.0);
        if (c.dtype == DT_INT8 || c.dtype == DT_INT32) p.add_int_val(1);
      }
      Tensor out;
      Status s = Tensor::FromProto(p, &out);
      EXPECT_EQ(s.code(), Code::kInvalidArgument) << c.shape << s.message();
      EXPECT_TRUE(HasSubstr(s.message(), c.shape)) << s.message();
      EXPECT_FALSE(out.valid());
    }
  }
  // Content that lies about the shape, either way.
  for (int64_t d : {int64_t{3}, int64_t{1} << 40, INT64_MAX}) {
    TensorProto p;
    p.set_dtype(DT_FLOAT);
    p.mutable_tensor_shape()->add_dim()->set_size(d);
    p.set_tensor_content(std::string(16, '\0'));
    Tensor out;
    EXPECT_EQ(Tensor::FromProto(p, &out).code(), Code::kInvalidArgument) << d;
  }
}

// A fill larger than the memory that is free is refused before allocating,
// even under a per-tensor limit that would allow it.
TEST(TensorProtoTest, FillBeyondAvailableMemoryIsRefused) {
  SetMaxTensorBytes(INT64_MAX);
  TensorProto p;
  p.set_dtype(DT_FLOAT);
  p.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 44);  // 64 TiB
  p.add_float_val(2.0f);
  Tensor out;
  Status s = Tensor::FromProto(p, &out);
  SetMaxTensorBytes(0);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "memory available")) << s.message();
  EXPECT_FALSE(out.valid());
}

// Printing a tensor attr (error messages, node summaries) decodes only a
// small tensor: a huge fill prints its dtype and shape.
TEST(TensorProtoTest, AttrValueToStringOfAHugeFill) {
  AttrValue huge;
  huge.mutable_tensor()->set_dtype(DT_FLOAT);
  huge.mutable_tensor()->mutable_tensor_shape()->add_dim()->set_size(int64_t{1}
                                                                     << 33);
  huge.mutable_tensor()->add_float_val(1.0f);
  EXPECT_EQ(AttrValueToString(huge), "Tensor<float32 [8589934592]> [...]");
  huge.mutable_tensor()->mutable_tensor_shape()->mutable_dim(0)->set_size(-4);
  EXPECT_EQ(AttrValueToString(huge), "<invalid tensor>");
  AttrValue small;
  Tensor::Vector<int32_t>({1, 2}).ToProto(small.mutable_tensor());
  EXPECT_EQ(AttrValueToString(small), "Tensor<int32 [2]> [1, 2]");
}

TEST(TensorTest, DebugString) {
  Tensor t = MakeTensor<int32_t>({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(t.DebugString(3), "Tensor<int32 [2,5]> [0, 1, 2, ...]");
  EXPECT_EQ(MakeTensor<uint8_t>({2}, {1, 255}).DebugString(),
            "Tensor<uint8 [2]> [1, 255]");
  EXPECT_EQ(Tensor().DebugString(), "Tensor<invalid(0) []>");
}

TEST(StatusTest, Basics) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.code(), Code::kOk);
  Status s = errors::NotFound("no ", 3, " things");
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_EQ(s.message(), "no 3 things");
  Status c = s.WithContext("while x");
  EXPECT_EQ(c.message(), "while x: no 3 things");
  EXPECT_EQ(s.message(), "no 3 things");
  EXPECT_TRUE(HasSubstr(s.ToString(), "no 3 things"));
}

}  // namespace
}  // namespace tensorweave

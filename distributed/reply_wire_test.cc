// The binary RunGraph reply: what is written reads back the same, and every
// malformed byte string is InvalidArgument (never a crash or an allocation
// its bytes cannot back).
#include "distributed/reply_wire.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tensorweave {
namespace {

Tensor Floats(const std::vector<int64_t>& shape,
              const std::vector<float>& values) {
  Tensor t(DT_FLOAT, TensorShape(shape));
  for (size_t i = 0; i < values.size(); ++i) t.data<float>()[i] = values[i];
  return t;
}

TEST(ReplyWireTest, RoundTripsAndRejectsMalformedBytes) {
  Tensor strings(DT_STRING, TensorShape({2}));
  strings.data<std::string>()[0] = "ab";
  strings.data<std::string>()[1] = std::string("\0x", 2);
  const std::vector<Tensor> outputs = {Floats({2, 2}, {1, 2, 3, 4}), strings,
                                       Tensor(DT_INT64, TensorShape({0}))};
  const std::vector<SentValue> sent = {
      {"k1", Tensor::Scalar<int32_t>(-7), false}, {"k2", Tensor(), true}};
  std::string bytes(RunGraphReplySize(outputs, sent), '\xff');
  WriteRunGraphReply(outputs, sent, bytes.data());
  std::vector<Tensor> got;
  std::vector<SentValue> got_sent;
  Status read = ReadRunGraphReply(bytes.data(), bytes.size(), &got, &got_sent);
  ASSERT_TRUE(read.ok()) << read.ToString();
  ASSERT_EQ(got.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(got[i].SameContents(outputs[i]));
  ASSERT_EQ(got_sent.size(), 2u);
  EXPECT_EQ(got_sent[0].key, "k1");
  EXPECT_FALSE(got_sent[0].is_dead);
  EXPECT_TRUE(got_sent[0].value.SameContents(sent[0].value));
  EXPECT_EQ(got_sent[1].key, "k2");
  EXPECT_TRUE(got_sent[1].is_dead);
  EXPECT_FALSE(got_sent[1].value.valid());
  // Every truncation, trailing bytes, a bad magic, an unknown dtype, a byte
  // length that does not match the shape: InvalidArgument, no crash.
  for (size_t n = 0; n < bytes.size(); ++n) {
    Status s = ReadRunGraphReply(bytes.data(), n, &got, &got_sent);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << n;
  }
  auto expect_invalid = [&](std::string b, const std::string& message) {
    Status s = ReadRunGraphReply(b.data(), b.size(), &got, &got_sent);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
    EXPECT_NE(s.message().find(message), std::string::npos) << s.ToString();
  };
  expect_invalid(bytes + "x", "1 bytes after its values");
  std::string bad = bytes;
  bad[0] = 'X';
  expect_invalid(bad, "bad magic");
  bad = bytes;
  bad[12] = 77;  // the first output's dtype
  expect_invalid(bad, "unknown dtype 77");
  bad = bytes;
  bad[20] = 3;  // its first dimension: 3x2 floats, 16 bytes
  expect_invalid(bad, "does not have 16 bytes");
  bad = bytes;
  bad[4] = '\xff';  // 255 outputs in a short message
  expect_invalid(bad, "255 outputs");
}

}  // namespace
}  // namespace tensorweave

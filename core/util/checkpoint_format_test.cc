// Checkpoint files: round trip, the safetensors layout, and every failure
// path a reader must detect (nothing is returned on error).
#include "core/util/checkpoint_format.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/util/crc32c.h"
#include "core/util/json.h"

namespace tensorweave {
namespace checkpoint {
namespace {

std::string TempPrefix(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/ckpt_" + std::to_string(getpid()) +
         "/" + name;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

Tensor Floats(std::vector<float> v, TensorShape shape) {
  Tensor t(DT_FLOAT, shape);
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

std::string SaveExample(const std::string& name) {
  std::string prefix = TempPrefix(name);
  Tensor w = Floats({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  Tensor step = Tensor::Scalar<int64_t>(42);
  Status s = Write(prefix, {"w", "global_step"}, {w, step});
  EXPECT_TRUE(s.ok()) << s.ToString();
  return prefix;
}

std::vector<TensorRequest> Requests() {
  return {{"w", DT_FLOAT, PartialShape({2, 3})},
          {"global_step", DT_INT64, PartialShape({})}};
}

TEST(Crc32cTest, KnownValue) {
  // The standard check value of CRC-32C.
  EXPECT_EQ(Crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(Crc32cExtend(Crc32c("1234", 4), "56789", 5), 0xE3069283u);
}

TEST(JsonTest, RoundTripAndErrors) {
  Json j;
  ASSERT_TRUE(
      Json::Parse(R"( {"a": [1, -2, {"b": "x\"\u00e9"}], "c": null} )", &j)
          .ok());
  EXPECT_EQ(j.Find("a")->items()[1].int_value(), -2);
  EXPECT_EQ(j.Find("a")->items()[2].Find("b")->string_value(), "x\"\xc3\xa9");
  Json again;
  ASSERT_TRUE(Json::Parse(j.Dump(), &again).ok());
  EXPECT_EQ(again.Dump(), j.Dump());
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "\"abc", "{} x",
                          "99999999999999999999", "{\"a\":1,\"a\":2}"}) {
    EXPECT_FALSE(Json::Parse(bad, &j).ok()) << bad;
  }
  EXPECT_FALSE(Json::Parse(std::string(1000, '['), &j).ok());
}

TEST(CheckpointTest, RoundTrip) {
  std::string prefix = SaveExample("round_trip");
  std::vector<Tensor> out;
  Status s = Read(prefix, Requests(), &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(
      out[0].SameContents(Floats({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}))));
  EXPECT_EQ(out[1].data<int64_t>()[0], 42);
  // A subset, with unknown shapes.
  s = Read(prefix, {{"global_step", DT_INT64, PartialShape()}}, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out.size(), 1u);
}

TEST(CheckpointTest, SafetensorsLayout) {
  std::string data = ReadFile(SaveExample("layout") + kDataSuffix);
  ASSERT_GE(data.size(), 8u);
  uint64_t header_len;
  std::memcpy(&header_len, data.data(), 8);
  EXPECT_EQ((8 + header_len) % 8, 0u);
  Json header;
  ASSERT_TRUE(Json::Parse(data.substr(8, header_len), &header).ok());
  const Json* w = header.Find("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->Find("dtype")->string_value(), "F32");
  EXPECT_EQ(w->Find("shape")->Dump(), "[2,3]");
  // global_step sorts first: [0, 8), then w: [8, 32).
  EXPECT_EQ(w->Find("data_offsets")->Dump(), "[8,32]");
  EXPECT_EQ(data.size(), 8 + header_len + 32);
}

TEST(CheckpointTest, MissingCheckpointIsNotFound) {
  std::vector<Tensor> out;
  Status s = Read(TempPrefix("nothing_here"), Requests(), &out);
  EXPECT_EQ(s.code(), Code::kNotFound) << s.ToString();
}

TEST(CheckpointTest, TruncatedFileIsDataLoss) {
  std::string prefix = SaveExample("truncated");
  std::string data = ReadFile(prefix + kDataSuffix);
  WriteFile(prefix + kDataSuffix, data.substr(0, data.size() - 3));
  std::vector<Tensor> out;
  Status s = Read(prefix, Requests(), &out);
  EXPECT_EQ(s.code(), Code::kDataLoss) << s.ToString();
  EXPECT_NE(s.message().find("truncated"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find(prefix + kDataSuffix), std::string::npos);
  EXPECT_TRUE(out.empty());
}

TEST(CheckpointTest, CorruptedByteIsDataLossNamingTheTensor) {
  std::string prefix = SaveExample("corrupt");
  std::string data = ReadFile(prefix + kDataSuffix);
  data[data.size() - 1] ^= 0x40;  // the last byte belongs to "w"
  WriteFile(prefix + kDataSuffix, data);
  std::vector<Tensor> out;
  Status s = Read(prefix, Requests(), &out);
  EXPECT_EQ(s.code(), Code::kDataLoss) << s.ToString();
  EXPECT_NE(s.message().find("tensor 'w'"), std::string::npos) << s.ToString();
  EXPECT_TRUE(out.empty());
  // Even a request not touching "w" fails: the checkpoint is corrupt.
  s = Read(prefix, {{"global_step", DT_INT64, PartialShape({})}}, &out);
  EXPECT_EQ(s.code(), Code::kDataLoss) << s.ToString();
}

TEST(CheckpointTest, CorruptedHeaderOrManifestIsDataLoss) {
  std::string prefix = SaveExample("corrupt_header");
  std::string data = ReadFile(prefix + kDataSuffix);
  data[10] = '#';
  WriteFile(prefix + kDataSuffix, data);
  std::vector<Tensor> out;
  Status s = Read(prefix, Requests(), &out);
  EXPECT_EQ(s.code(), Code::kDataLoss) << s.ToString();

  prefix = SaveExample("corrupt_manifest");
  WriteFile(prefix + kManifestSuffix, "{\"format\": ");
  s = Read(prefix, Requests(), &out);
  EXPECT_EQ(s.code(), Code::kDataLoss) << s.ToString();
  EXPECT_NE(s.message().find(kManifestSuffix), std::string::npos);
}

TEST(CheckpointTest, MissingTensorAndMismatchesAreErrors) {
  std::string prefix = SaveExample("mismatch");
  std::vector<Tensor> out;
  Status s = Read(prefix, {{"b", DT_FLOAT, PartialShape()}}, &out);
  EXPECT_EQ(s.code(), Code::kNotFound) << s.ToString();
  EXPECT_NE(s.message().find("tensor 'b' not found"), std::string::npos);
  s = Read(prefix, {{"w", DT_DOUBLE, PartialShape()}}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("is float32, but float64"), std::string::npos)
      << s.ToString();
  s = Read(prefix, {{"w", DT_FLOAT, PartialShape({3, 2})}}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("[2,3]"), std::string::npos) << s.ToString();
  EXPECT_TRUE(out.empty());
}

TEST(CheckpointTest, WriteErrors) {
  Tensor t = Tensor::Scalar<float>(1);
  EXPECT_EQ(Write(TempPrefix("dup"), {"a", "a"}, {t, t}).code(),
            Code::kInvalidArgument);
  Tensor s(DT_STRING, TensorShape({}));
  EXPECT_EQ(Write(TempPrefix("str"), {"s"}, {s}).code(), Code::kUnimplemented);
  // No temporary files are left behind.
  EXPECT_FALSE(std::ifstream(TempPrefix("str") + kDataSuffix).good());
}

TEST(TensorSliceTest, ParsesTensorFlowSpecs) {
  TensorSlice box;
  ASSERT_TRUE(ParseTensorSlice("10 4 3,5:-", &box).ok());
  EXPECT_EQ(box.full_shape, (std::vector<int64_t>{10, 4}));
  EXPECT_EQ(box.start, (std::vector<int64_t>{3, 0}));
  EXPECT_EQ(box.length, (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(box.ToString(), "10 4 3,5:0,4");
  for (const char* bad : {"10", "10 4 0,5", "10 4 0,11:-", "10 4 -1,2:-",
                          "10 4 0,5:-:-", "x 0,1", "10 4 0;5:-", "7 3,5"}) {
    Status s = ParseTensorSlice(bad, &box);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find(bad), std::string::npos) << s.ToString();
  }
}

// A 4x3 tensor saved as rows 0-2 and 3, read whole, in other slices, and a
// whole tensor read in a slice.
TEST(CheckpointTest, SlicesAreAssembledWhateverThePartitioning) {
  const std::string prefix = TempPrefix("slices");
  std::vector<float> all(12);
  for (int i = 0; i < 12; ++i) all[i] = static_cast<float>(i);
  Tensor top = Floats({0, 1, 2, 3, 4, 5, 6, 7, 8}, TensorShape({3, 3}));
  Tensor bottom = Floats({9, 10, 11}, TensorShape({1, 3}));
  Tensor whole = Floats(all, TensorShape({4, 3}));
  ASSERT_TRUE(Write(prefix, {"emb", "emb", "w"}, {top, bottom, whole},
                    {"4 3 0,3:0,3", "4 3 3,1:-", ""})
                  .ok());
  std::vector<Tensor> out;
  Status s = Read(prefix,
                  {{"emb", DT_FLOAT, PartialShape(), ""},
                   {"emb", DT_FLOAT, PartialShape(), "4 3 1,3:1,2"},
                   {"w", DT_FLOAT, PartialShape(), "4 3 2,2:-"}},
                  &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(out[0].SameContents(whole));
  EXPECT_TRUE(
      out[1].SameContents(Floats({4, 5, 7, 8, 10, 11}, TensorShape({3, 2}))));
  EXPECT_TRUE(
      out[2].SameContents(Floats({6, 7, 8, 9, 10, 11}, TensorShape({2, 3}))));
  // Another full shape, and a region no saved slice covers.
  s = Read(prefix, {{"emb", DT_FLOAT, PartialShape(), "5 3 0,1:-"}}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  ASSERT_TRUE(Write(prefix, {"emb"}, {top}, {"4 3 0,3:-"}).ok());
  s = Read(prefix, {{"emb", DT_FLOAT, PartialShape(), ""}}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("hold 9 of the 12"), std::string::npos)
      << s.ToString();
}

TEST(CheckpointTest, OverlappingOrMixedSlicesAreRefused) {
  const std::string prefix = TempPrefix("bad_slices");
  Tensor rows = Floats({0, 1, 2, 3, 4, 5}, TensorShape({2, 3}));
  Status s =
      Write(prefix, {"e", "e"}, {rows, rows}, {"4 3 0,2:-", "4 3 1,2:-"});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("overlap"), std::string::npos) << s.ToString();
  s = Write(prefix, {"e", "e"}, {rows, rows}, {"4 3 0,2:-", ""});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  s = Write(prefix, {"e"}, {rows}, {"4 3 0,3:-"});  // shape [3,3] != [2,3]
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace checkpoint
}  // namespace tensorweave

// The integrity trailer: CRC-32 against known values, every single-byte
// corruption of a checksummed model rejected, skipping the check, old files
// without a trailer, and copied buffers that the caller may overwrite.
#include "lite/runtime/checksum.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "lite/runtime/interpreter.h"
#include "lite/runtime/model.h"
#include "lite/runtime/testing/model_builder.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
namespace {

using testing::AlignedBytes;

// Bit-at-a-time CRC-32, the definition the table-driven one must match.
uint32_t SlowCrc32(const uint8_t* p, size_t n) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k)
      crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

AlignedBytes Sealed(const AlignedBytes& model) {
  std::vector<uint8_t> bytes(model.size() + kIntegrityTrailerSize);
  memcpy(bytes.data(), model.data(), model.size());
  AppendIntegrityTrailer(bytes.data(), model.size());
  return AlignedBytes(bytes.data(), bytes.size());
}

Status Load(const AlignedBytes& bytes, const ModelOptions& options,
            std::unique_ptr<Model>* model) {
  return Model::CreateFromBuffer(bytes.data(), bytes.size(), options, model);
}

TEST(Crc32Test, KnownValues) {
  EXPECT_EQ(Crc32("", 0), 0u);
  EXPECT_EQ(Crc32("123456789", 9), 0xCBF43926u);  // the standard check value
  EXPECT_EQ(Crc32("The quick brown fox jumps over the lazy dog", 43),
            0x414FA339u);
}

TEST(Crc32Test, MatchesBitwiseDefinitionAtEveryAlignmentAndSplit) {
  std::vector<uint8_t> data(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = (i * 2654435761u) >> 13;
  for (size_t start = 0; start < 9; ++start) {
    for (size_t n : {0, 1, 7, 8, 9, 63, 500, 991}) {
      const uint8_t* p = data.data() + start;
      ASSERT_EQ(Crc32(p, n), SlowCrc32(p, n)) << start << " " << n;
      ASSERT_EQ(Crc32(p + n / 3, n - n / 3, Crc32(p, n / 3)), SlowCrc32(p, n));
    }
  }
}

TEST(IntegrityTest, SealedModelLoadsAndRuns) {
  AlignedBytes plain = testing::BuildMlp({6, 5, 3}, 1, 1);
  AlignedBytes sealed = Sealed(plain);
  std::unique_ptr<Model> model;
  Status status = Load(sealed, ModelOptions(), &model);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(model->has_checksum());
  EXPECT_EQ(model->checksum(), SlowCrc32(sealed.data(), sealed.size() - 8));
  // A file written before the trailer existed loads as before.
  ASSERT_TRUE(Load(plain, ModelOptions(), &model).ok());
  EXPECT_FALSE(model->has_checksum());
}

TEST(IntegrityTest, EverySingleByteCorruptionIsRejected) {
  AlignedBytes sealed = Sealed(testing::BuildMlp({6, 5, 3}, 1, 1));
  const std::string expected = [&] {
    char text[32];
    snprintf(text, sizeof(text), "expected 0x%08x",
             SlowCrc32(sealed.data(), sealed.size() - 8));
    return std::string(text);
  }();
  std::vector<uint8_t> bytes(sealed.data(), sealed.data() + sealed.size());
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xFF, 0x5A}) {
      bytes[i] ^= mask;
      AlignedBytes corrupt(bytes.data(), bytes.size());
      std::unique_ptr<Model> model;
      Status status = Load(corrupt, ModelOptions(), &model);
      ASSERT_EQ(status.code(), StatusCode::kInvalidModel) << i;
      ASSERT_NE(std::string(status.message()).find("model is corrupt"),
                std::string::npos)
          << i << ": " << status.message();
      if (i < bytes.size() - kIntegrityTrailerSize) {
        ASSERT_NE(std::string(status.message()).find(expected),
                  std::string::npos)
            << status.message();
      }
      bytes[i] ^= mask;
    }
  }
}

TEST(IntegrityTest, SkippingTheChecksumKeepsStructuralVerification) {
  AlignedBytes sealed = Sealed(testing::BuildMlp({6, 5, 3}, 1, 1));
  std::vector<uint8_t> bytes(sealed.data(), sealed.data() + sealed.size());
  bytes[bytes.size() - 20] ^= 0x01;  // inside the flatbuffer
  AlignedBytes corrupt(bytes.data(), bytes.size());
  ModelOptions skip;
  skip.verify_checksum = false;
  std::unique_ptr<Model> model;
  EXPECT_FALSE(Load(corrupt, ModelOptions(), &model).ok());
  EXPECT_TRUE(Load(sealed, skip, &model).ok());
  bytes[5] ^= 0x01;  // the file identifier
  AlignedBytes garbled(bytes.data(), bytes.size());
  Status status = Load(garbled, skip, &model);
  EXPECT_NE(std::string(status.message()).find("not a .twl model"),
            std::string::npos)
      << status.message();
}

std::vector<float> RunMlp(const Model* model) {
  OpResolver resolver;
  EXPECT_TRUE(RegisterBuiltinKernels(&resolver).ok());
  std::unique_ptr<Interpreter> interpreter;
  EXPECT_TRUE(
      Interpreter::Create(model, &resolver, InterpreterOptions(), &interpreter)
          .ok());
  Status status = interpreter->AllocateTensors();
  EXPECT_TRUE(status.ok()) << status.message();
  if (!status.ok()) return {};
  Tensor* input = interpreter->input(0);
  for (int64_t i = 0; i < input->num_elements(); ++i) {
    input->data_as<float>()[i] = 0.25f * static_cast<float>(i) - 0.5f;
  }
  EXPECT_TRUE(interpreter->Invoke().ok());
  const Tensor* output = interpreter->output(0);
  return std::vector<float>(output->data_as<float>(),
                            output->data_as<float>() + output->num_elements());
}

TEST(ModelCopyTest, CallerMayOverwriteACopiedBuffer) {
  AlignedBytes bytes = testing::BuildMlp({6, 5, 3}, 1, 1);
  std::unique_ptr<Model> borrowed;
  ASSERT_TRUE(Load(bytes, ModelOptions(), &borrowed).ok());
  const std::vector<float> expected = RunMlp(borrowed.get());
  ASSERT_FALSE(expected.empty());
  // Misaligned on purpose: a copy has no alignment requirement.
  std::vector<uint8_t> caller(bytes.size() + 1);
  memcpy(caller.data() + 1, bytes.data(), bytes.size());
  ModelOptions copy;
  copy.copy_buffer = true;
  std::unique_ptr<Model> model;
  Status status =
      Model::CreateFromBuffer(caller.data() + 1, bytes.size(), copy, &model);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_NE(model->data(), caller.data() + 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(model->data()) % 64, 0u);
  memset(caller.data(), 0xFF, caller.size());
  caller.clear();
  caller.shrink_to_fit();
  EXPECT_EQ(RunMlp(model.get()), expected);
}

}  // namespace
}  // namespace twl

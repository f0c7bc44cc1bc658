// CRC-32: every kernel this CPU runs (the table, PCLMULQDQ folding, ARMv8
// CRC32) against known values, the bit-at-a-time definition and each other
// at every alignment, length and continuation. The integrity trailer: every
// single-byte corruption of a checksummed model rejected, skipping the check,
// old files without a trailer, and copied buffers that the caller may
// overwrite.
#include "lite/runtime/checksum.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "lite/runtime/interpreter.h"
#include "lite/runtime/model.h"
#include "lite/runtime/testing/model_builder.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
namespace {

using testing::AlignedBytes;

// Bit-at-a-time CRC-32, the definition the kernels must match.
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

// Every kernel this CPU runs, the table (the reference) first.
std::vector<Crc32Kernel> SupportedKernels() {
  std::vector<Crc32Kernel> kernels;
  for (Crc32Kernel kernel :
       {Crc32Kernel::kTable, Crc32Kernel::kPclmul, Crc32Kernel::kArmCrc32}) {
    if (Crc32KernelSupported(kernel)) kernels.push_back(kernel);
  }
  return kernels;
}

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> bytes(n);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng() >> 24);
  return bytes;
}

TEST(Crc32Test, KernelSelection) {
  const Crc32Kernel best = Crc32DefaultKernel();
  std::cout << "Crc32 runs the " << Crc32KernelName(best) << " kernel\n";
  EXPECT_TRUE(Crc32KernelSupported(best));
  EXPECT_TRUE(Crc32KernelSupported(Crc32Kernel::kTable));
#if defined(__x86_64__)
  __builtin_cpu_init();
  const bool pclmul =
      __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  EXPECT_EQ(Crc32KernelSupported(Crc32Kernel::kPclmul), pclmul);
  EXPECT_EQ(best == Crc32Kernel::kPclmul, pclmul);
  EXPECT_FALSE(Crc32KernelSupported(Crc32Kernel::kArmCrc32));
#elif defined(__aarch64__) && defined(__linux__)
  // Every ARMv8.1 CPU, and qemu-aarch64's default, has CRC32.
  EXPECT_EQ(best, Crc32Kernel::kArmCrc32);
#endif
}

TEST(Crc32Test, KnownValues) {
  for (Crc32Kernel kernel : SupportedKernels()) {
    SCOPED_TRACE(Crc32KernelName(kernel));
    EXPECT_EQ(Crc32With(kernel, "", 0), 0u);
    EXPECT_EQ(Crc32With(kernel, "123456789", 9), 0xCBF43926u);  // check value
    EXPECT_EQ(
        Crc32With(kernel, "The quick brown fox jumps over the lazy dog", 43),
        0x414FA339u);
    // 1 MiB of zeros and of 0xFF bytes (python3 -c "import zlib; print(
    // hex(zlib.crc32(bytes(1 << 20))), hex(zlib.crc32(b'\xff' * (1 << 20))))").
    std::vector<uint8_t> bytes(1 << 20, 0);
    EXPECT_EQ(Crc32With(kernel, bytes.data(), bytes.size()), 0xA738EA1Cu);
    std::fill(bytes.begin(), bytes.end(), 0xFF);
    EXPECT_EQ(Crc32With(kernel, bytes.data(), bytes.size()), 0x956BAC74u);
  }
  EXPECT_EQ(Crc32("123456789", 9), 0xCBF43926u);
}

TEST(Crc32Test, TableMatchesBitwiseDefinitionAtEveryAlignmentAndSplit) {
  const std::vector<uint8_t> data = RandomBytes(1100, 1);
  for (size_t start = 0; start < 9; ++start) {
    for (size_t n : {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 500, 991, 1091}) {
      const uint8_t* p = data.data() + start;
      ASSERT_EQ(Crc32With(Crc32Kernel::kTable, p, n), SlowCrc32(p, n))
          << start << " " << n;
      ASSERT_EQ(Crc32With(Crc32Kernel::kTable, p + n / 3, n - n / 3,
                          Crc32With(Crc32Kernel::kTable, p, n / 3)),
                SlowCrc32(p, n));
    }
  }
}

// Each kernel against the table on lengths 0..4096 (all of 0..300, where
// the fast kernels change strategy, and random ones above) at every
// alignment 0..63, whole and continued from a CRC of a random prefix.
TEST(Crc32Test, KernelsMatchTheTableAtEveryAlignmentAndLength) {
  const std::vector<uint8_t> data = RandomBytes(4096 + 64, 2);
  std::mt19937 rng(3);
  for (Crc32Kernel kernel : SupportedKernels()) {
    SCOPED_TRACE(Crc32KernelName(kernel));
    for (size_t offset = 0; offset < 64; ++offset) {
      std::vector<size_t> lengths;
      for (size_t n = 0; n <= 300; ++n) lengths.push_back(n);
      for (int i = 0; i < 40; ++i) lengths.push_back(rng() % 4097);
      lengths.push_back(4096);
      for (size_t n : lengths) {
        const uint8_t* p = data.data() + offset;
        const uint32_t expected = Crc32With(Crc32Kernel::kTable, p, n);
        ASSERT_EQ(Crc32With(kernel, p, n), expected) << offset << " " << n;
        const size_t split = n == 0 ? 0 : rng() % (n + 1);
        ASSERT_EQ(Crc32With(kernel, p + split, n - split,
                            Crc32With(kernel, p, split)),
                  expected)
            << offset << " " << n << " split at " << split;
        const uint32_t seed = rng();  // any CRC to continue from
        ASSERT_EQ(Crc32With(kernel, p, n, seed),
                  Crc32With(Crc32Kernel::kTable, p, n, seed))
            << offset << " " << n << " from " << seed;
      }
    }
  }
}

TEST(Crc32Test, KernelsMatchOnLargeBuffers) {
  const std::vector<uint8_t> data = RandomBytes((16 << 20) + 100, 4);
  // One against the bit-at-a-time definition.
  const size_t bitwise_size = (1 << 20) + 13;
  const uint32_t bitwise = SlowCrc32(data.data() + 3, bitwise_size);
  for (Crc32Kernel kernel : SupportedKernels()) {
    SCOPED_TRACE(Crc32KernelName(kernel));
    EXPECT_EQ(Crc32With(kernel, data.data() + 3, bitwise_size), bitwise);
  }
  for (size_t n :
       {size_t{16} << 20, (size_t{16} << 20) + 99, size_t{14900001}}) {
    const uint32_t expected = Crc32With(Crc32Kernel::kTable, data.data(), n);
    for (Crc32Kernel kernel : SupportedKernels()) {
      SCOPED_TRACE(Crc32KernelName(kernel));
      EXPECT_EQ(Crc32With(kernel, data.data(), n), expected) << n;
      EXPECT_EQ(Crc32With(kernel, data.data() + n / 2, n - n / 2,
                          Crc32With(kernel, data.data(), n / 2)),
                expected)
          << n;
    }
    EXPECT_EQ(Crc32(data.data(), n), expected);
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

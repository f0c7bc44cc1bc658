// Malformed models, without a fuzzing engine: truncations, every
// single-byte corruption of small valid models, and random multi-byte
// mutations, all through the fuzzer's entry point. Each must either load
// and run or be rejected with an error; never crash (run under
// --config=asan to also catch memory errors).
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "lite/fuzz/regression_inputs.h"
#include "lite/runtime/interpreter.h"
#include "lite/runtime/testing/model_builder.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
int RunModelBytes(const uint8_t* data, size_t size);

namespace {

using testing::AlignedBytes;

std::vector<AlignedBytes> Seeds() {
  return {testing::BuildMlp({6, 5, 3}, 1, 1), testing::BuildManyOpsModel(),
          testing::BuildRecurrentModel(), testing::BuildIndexOpsModel(),
          testing::BuildDetectorTailModel()};
}

TEST(ModelFuzzerTest, SeedsRun) {
  for (const AlignedBytes& seed : Seeds()) {
    EXPECT_EQ(RunModelBytes(seed.data(), seed.size()), 2);
    std::unique_ptr<Model> model;
    ASSERT_TRUE(Model::CreateFromBuffer(seed.data(), seed.size(), &model).ok());
    OpResolver resolver;
    ASSERT_TRUE(RegisterBuiltinKernels(&resolver).ok());
    std::unique_ptr<Interpreter> interpreter;
    ASSERT_TRUE(Interpreter::Create(model.get(), &resolver,
                                    InterpreterOptions(), &interpreter)
                    .ok());
    Status status = interpreter->AllocateTensors();
    ASSERT_TRUE(status.ok()) << status.message();
    status = interpreter->Invoke();
    ASSERT_TRUE(status.ok()) << status.message();
  }
}

// Inputs libFuzzer crashed on: each now loads and is refused by a kernel
// (under --config=asan a read past the buffer would fail the test).
TEST(ModelFuzzerTest, RegressionInputs) {
  // Options type NONE with a table: read as absent, so the GRU's default
  // hidden_size 0 is refused in prepare.
  EXPECT_EQ(RunModelBytes(fuzz_regressions::kOptionsTypeNoneWithTable,
                          sizeof(fuzz_regressions::kOptionsTypeNoneWithTable)),
            1);
  // No list of graph inputs: loads as a graph without inputs, and fails
  // later (the interpreter once read through the absent list).
  EXPECT_EQ(RunModelBytes(fuzz_regressions::kGraphWithoutInputList,
                          sizeof(fuzz_regressions::kGraphWithoutInputList)),
            1);
  // An LSTM of batch 0 (no scratch planned): runs to empty outputs without
  // forming a pointer from the null scratch buffer.
  EXPECT_EQ(RunModelBytes(fuzz_regressions::kRecurrentWithoutScratch,
                          sizeof(fuzz_regressions::kRecurrentWithoutScratch)),
            2);
}

TEST(ModelFuzzerTest, EveryTruncationIsRejected) {
  for (const AlignedBytes& seed : Seeds()) {
    for (size_t size = 0; size < seed.size(); ++size) {
      ASSERT_EQ(RunModelBytes(seed.data(), size), 0) << size;
    }
  }
}

TEST(ModelFuzzerTest, EverySingleByteCorruption) {
  int outcomes[3] = {};
  for (const AlignedBytes& seed : Seeds()) {
    std::vector<uint8_t> bytes(seed.data(), seed.data() + seed.size());
    for (size_t i = 0; i < bytes.size(); ++i) {
      for (uint8_t mask : {0x01, 0x80, 0xFF}) {
        bytes[i] ^= mask;
        outcomes[RunModelBytes(bytes.data(), bytes.size())]++;
        bytes[i] ^= mask;
      }
    }
  }
  // Both verdicts must occur; what matters is that none crashed.
  EXPECT_GT(outcomes[0], 0);
  EXPECT_GT(outcomes[2], 0);
  printf("rejected %d, failed after loading %d, ran %d\n", outcomes[0],
         outcomes[1], outcomes[2]);
}

TEST(ModelFuzzerTest, RandomMultiByteMutations) {
  std::mt19937 rng(1234);
  for (const AlignedBytes& seed : Seeds()) {
    std::vector<uint8_t> bytes(seed.data(), seed.data() + seed.size());
    for (int iteration = 0; iteration < 3000; ++iteration) {
      std::vector<uint8_t> mutated = bytes;
      int edits = 1 + rng() % 8;
      for (int e = 0; e < edits; ++e) {
        size_t at = rng() % mutated.size();
        switch (rng() % 3) {
          case 0:
            mutated[at] = static_cast<uint8_t>(rng());
            break;
          case 1:  // write a large little-endian int32
            for (int k = 0; k < 4 && at + k < mutated.size(); ++k) {
              mutated[at + k] = k == 3 ? 0x7f : 0xff;
            }
            break;
          default:  // small int32 (-1, 0, 1, ...)
            for (int k = 0; k < 4 && at + k < mutated.size(); ++k) {
              mutated[at + k] = k == 0 ? static_cast<uint8_t>(rng() % 3 - 1)
                                       : (rng() % 2 ? 0xff : 0);
            }
        }
      }
      RunModelBytes(mutated.data(), mutated.size());
    }
  }
}

TEST(ModelFuzzerTest, GarbageAndEmpty) {
  std::mt19937 rng(5);
  std::vector<uint8_t> garbage(4096);
  for (int i = 0; i < 200; ++i) {
    for (uint8_t& b : garbage) b = static_cast<uint8_t>(rng());
    memcpy(garbage.data() + 4, "TWL1", 4);  // pass the identifier check
    EXPECT_EQ(RunModelBytes(garbage.data(), garbage.size()), 0);
  }
  EXPECT_EQ(RunModelBytes(nullptr, 0), 0);
}

}  // namespace
}  // namespace twl

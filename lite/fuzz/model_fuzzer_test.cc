// Malformed models, without a fuzzing engine: truncations, every
// single-byte corruption of small valid models, and random multi-byte
// mutations, all through the fuzzer's entry point. Each must either load
// and run or be rejected with an error; never crash (run under
// --config=asan to also catch memory errors).
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "lite/runtime/interpreter.h"
#include "lite/runtime/testing/model_builder.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
int RunModelBytes(const uint8_t* data, size_t size);

namespace {

using testing::ActivationFunctionType;
using testing::AlignedBytes;
using testing::BuiltinOperator;
using testing::ModelBuilder;
using testing::Padding;

// A model touching many ops, with small constant shape operands.
AlignedBytes ManyOpsModel() {
  ModelBuilder b;
  auto f = DataType::kFloat32;
  int x = b.AddTensor(f, {1, 6, 6, 2}, "x");
  int w = b.AddConstant<float>({3, 3, 3, 2}, testing::RandomFloats(54, 1));
  int c = b.AddTensor(f, {}, "conv");
  b.AddOperator(BuiltinOperator::CONV_2D, {x, w, -1}, {c},
                b.Conv2D(Padding::SAME, 1, 1, ActivationFunctionType::RELU));
  int dw = b.AddConstant<float>({1, 3, 3, 3}, testing::RandomFloats(27, 2));
  int d = b.AddTensor(f, {}, "dw");
  b.AddOperator(BuiltinOperator::DEPTHWISE_CONV_2D, {c, dw}, {d},
                b.DepthwiseConv2D(Padding::VALID, 1, 1, 1));
  int p = b.AddTensor(f, {}, "pool");
  b.AddOperator(BuiltinOperator::AVERAGE_POOL_2D, {d}, {p},
                b.Pool2D(Padding::SAME, 2, 2, 2, 2));
  int perm = b.AddConstant<int32_t>({4}, {0, 3, 1, 2});
  int t = b.AddTensor(f, {}, "transpose");
  b.AddOperator(BuiltinOperator::TRANSPOSE, {p, perm}, {t});
  int pads = b.AddConstant<int32_t>({4, 2}, {0, 0, 0, 0, 1, 1, 0, 1});
  int padded = b.AddTensor(f, {}, "pad");
  b.AddOperator(BuiltinOperator::PAD, {t, pads}, {padded});
  int begin = b.AddConstant<int32_t>({4}, {0, 0, 1, 0});
  int end = b.AddConstant<int32_t>({4}, {0, 2, 4, 3});
  int strides = b.AddConstant<int32_t>({4}, {1, 1, 1, 1});
  int ss = b.AddTensor(f, {}, "strided");
  b.AddOperator(BuiltinOperator::STRIDED_SLICE, {padded, begin, end, strides},
                {ss}, b.StridedSlice(1, 1, 0, 0, 0));
  int axes = b.AddConstant<int32_t>({1}, {1});
  int mean = b.AddTensor(f, {}, "mean");
  b.AddOperator(BuiltinOperator::MEAN, {ss, axes}, {mean}, b.Reducer(false));
  int shape = b.AddConstant<int32_t>({2}, {1, -1});
  int flat = b.AddTensor(f, {}, "flat");
  b.AddOperator(BuiltinOperator::RESHAPE, {mean, shape}, {flat});
  int cat = b.AddTensor(f, {}, "concat");
  b.AddOperator(BuiltinOperator::CONCATENATION, {flat, flat}, {cat},
                b.Concatenation(1));
  int idx = b.AddConstant<int32_t>({3}, {0, 2, 1});
  int g = b.AddTensor(f, {}, "gather");
  b.AddOperator(BuiltinOperator::GATHER, {cat, idx}, {g}, b.Gather(1));
  int e = b.AddTensor(f, {}, "exp");
  b.AddOperator(BuiltinOperator::EXP, {g}, {e});
  int sum = b.AddTensor(f, {}, "add");
  b.AddOperator(BuiltinOperator::ADD, {e, g}, {sum},
                b.Arithmetic(ActivationFunctionType::RELU6));
  int axis = b.AddConstant<int32_t>({}, {1});
  int am = b.AddTensor(DataType::kInt64, {}, "argmax");
  b.AddOperator(BuiltinOperator::ARG_MAX, {sum, axis}, {am},
                b.ArgMax(DataType::kInt64));
  int mm = b.AddTensor(f, {}, "matmul");
  b.AddOperator(BuiltinOperator::BATCH_MATMUL, {sum, sum}, {mm},
                b.BatchMatMul(false, true));
  int cast = b.AddTensor(DataType::kInt32, {}, "cast");
  b.AddOperator(BuiltinOperator::CAST, {mm}, {cast});
  b.SetInputs({x});
  b.SetOutputs({am, cast});
  return b.Finish();
}

std::vector<AlignedBytes> Seeds() {
  return {testing::BuildMlp({6, 5, 3}, 1, 1), ManyOpsModel()};
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

// Interpreter: end-to-end runs, arena planning, no allocation in Invoke,
// resizing, lookups and error paths.
#include "lite/runtime/interpreter.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>
#include <string>

#include "lite/runtime/testing/model_builder.h"
#include "lite/runtime/testing/test_models.h"

// Counts every global allocation in this test binary.
static std::atomic<long> g_allocations{0};
void* operator new(size_t size) {
  g_allocations++;
  void* p = malloc(size == 0 ? 1 : size);
  if (p == nullptr) abort();
  return p;
}
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  g_allocations++;
  return malloc(size == 0 ? 1 : size);
}
void* operator new[](size_t size) { return operator new(size); }
void* operator new[](size_t size, const std::nothrow_t& t) noexcept {
  return operator new(size, t);
}
void operator delete(void* p) noexcept { free(p); }
void operator delete(void* p, size_t) noexcept { free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { free(p); }
void operator delete[](void* p) noexcept { free(p); }
void operator delete[](void* p, size_t) noexcept { free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { free(p); }

namespace twl {
namespace {

using testing::AlignedBytes;

struct Loaded {
  AlignedBytes bytes;
  std::unique_ptr<Model> model;
  OpResolver resolver;
  std::unique_ptr<Interpreter> interpreter;
};

std::unique_ptr<Loaded> Load(AlignedBytes bytes, int threads = 2) {
  auto l = std::make_unique<Loaded>();
  l->bytes = bytes;
  EXPECT_TRUE(RegisterBuiltinKernels(&l->resolver).ok());
  Status s =
      Model::CreateFromBuffer(l->bytes.data(), l->bytes.size(), &l->model);
  EXPECT_TRUE(s.ok()) << s.message();
  InterpreterOptions options;
  options.num_threads = threads;
  s = Interpreter::Create(l->model.get(), &l->resolver, options,
                          &l->interpreter);
  EXPECT_TRUE(s.ok()) << s.message();
  return l;
}

// Hand-computed: y = softmax(relu(x W1^T + b1) W2^T + b2).
TEST(InterpreterTest, MlpMatchesHandComputation) {
  auto l = Load(testing::BuildMlp({6, 5, 3}, 2, 7));
  Interpreter* in = l->interpreter.get();
  ASSERT_TRUE(in->AllocateTensors().ok());
  std::vector<float> x = testing::RandomFloats(12, 99);
  memcpy(in->input(0)->data, x.data(), 48);
  ASSERT_TRUE(in->Invoke().ok()) << in->error_message();
  const float* w1 = in->tensor(1)->data_as<float>();
  const float* b1 = in->tensor(2)->data_as<float>();
  const float* w2 = in->tensor(4)->data_as<float>();
  const float* b2 = in->tensor(5)->data_as<float>();
  for (int r = 0; r < 2; ++r) {
    float h[5], z[3], sum = 0;
    for (int o = 0; o < 5; ++o) {
      h[o] = b1[o];
      for (int i = 0; i < 6; ++i) h[o] += x[r * 6 + i] * w1[o * 6 + i];
      h[o] = std::max(h[o], 0.f);
    }
    for (int o = 0; o < 3; ++o) {
      z[o] = b2[o];
      for (int i = 0; i < 5; ++i) z[o] += h[i] * w2[o * 5 + i];
      sum += std::exp(z[o]);
    }
    for (int o = 0; o < 3; ++o) {
      EXPECT_NEAR(in->output(0)->data_as<float>()[r * 3 + o],
                  std::exp(z[o]) / sum, 1e-5);
    }
  }
}

TEST(InterpreterTest, ConstantsAreZeroCopy) {
  auto l = Load(testing::BuildMlp({8, 4, 2}, 1, 1));
  const Tensor* w = l->interpreter->tensor(1);
  ASSERT_TRUE(w->is_constant);
  EXPECT_GE(w->data_as<uint8_t>(), l->bytes.data());
  EXPECT_LT(w->data_as<uint8_t>(), l->bytes.data() + l->bytes.size());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(w->data) % 64, 0u);
}

TEST(InterpreterTest, InvokeAllocatesNothingAndArenaIsStable) {
  auto l = Load(testing::BuildMlp({784, 512, 512, 10}, 4, 1), 2);
  Interpreter* in = l->interpreter.get();
  ASSERT_TRUE(in->AllocateTensors().ok());
  const uint8_t* arena = in->arena();
  void* input = in->input(0)->data;
  ASSERT_TRUE(in->Invoke().ok());  // warm up threads
  long before = g_allocations.load();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(in->Invoke().ok());
  EXPECT_EQ(g_allocations.load(), before);
  ASSERT_TRUE(in->AllocateTensors().ok());  // no-op: nothing changed
  EXPECT_EQ(in->arena(), arena);
  EXPECT_EQ(in->input(0)->data, input);
  // All intermediates share one arena, smaller than their sum (reuse).
  size_t sum = 0;
  for (int t = 0; t < in->num_tensors(); ++t) {
    if (!in->tensor(t)->is_constant) sum += in->tensor(t)->bytes;
  }
  EXPECT_LT(in->arena_size(), sum);
  for (int t = 0; t < in->num_tensors(); ++t) {
    const Tensor* tensor = in->tensor(t);
    if (tensor->is_constant) continue;
    EXPECT_GE(tensor->data_as<uint8_t>(), in->arena());
    EXPECT_LE(tensor->data_as<uint8_t>() + tensor->bytes,
              in->arena() + in->arena_size());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(tensor->data) % 64, 0u);
  }
}

TEST(InterpreterTest, LeNetInvokeAllocatesNothing) {
  for (int threads : {1, 2}) {
    auto l = Load(testing::BuildLeNet(3, 1), threads);
    Interpreter* in = l->interpreter.get();
    ASSERT_TRUE(in->AllocateTensors().ok());
    ASSERT_TRUE(in->Invoke().ok()) << in->error_message();
    long before = g_allocations.load();
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(in->Invoke().ok());
    EXPECT_EQ(g_allocations.load(), before);
    EXPECT_EQ(in->output(0)->shape, Shape({3, 10}));
  }
}

TEST(InterpreterTest, RecurrentInvokeAllocatesNothing) {
  for (int threads : {1, 2}) {
    auto l = Load(testing::BuildRecurrentModel(), threads);
    Interpreter* in = l->interpreter.get();
    ASSERT_TRUE(in->AllocateTensors().ok());
    std::vector<float> x = testing::RandomFloats(24, 3);
    memcpy(in->input(0)->data, x.data(), 24 * 4);
    ASSERT_TRUE(in->Invoke().ok()) << in->error_message();
    long before = g_allocations.load();
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(in->Invoke().ok());
    EXPECT_EQ(g_allocations.load(), before);
    EXPECT_EQ(in->output(0)->shape, Shape({2, 4, 1, 3}));
  }
}

TEST(InterpreterTest, ManyOpsInvokeAllocatesNothing) {
  auto l = Load(testing::BuildManyOpsModel(), 2);
  Interpreter* in = l->interpreter.get();
  ASSERT_TRUE(in->AllocateTensors().ok());
  std::vector<float> x = testing::RandomFloats(72, 3);
  memcpy(in->input(0)->data, x.data(), 72 * 4);
  ASSERT_TRUE(in->Invoke().ok()) << in->error_message();
  long before = g_allocations.load();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(in->Invoke().ok());
  EXPECT_EQ(g_allocations.load(), before);
}

TEST(InterpreterTest, InputsSurviveInvoke) {
  // x -> x^2 -> x^4 -> x^8: the intermediates outlive x's only use, so a
  // planner that let x die after op 0 would put x^4 over it. Invoking
  // again without setting x again must give the same output.
  testing::ModelBuilder b;
  int x = b.AddTensor(DataType::kFloat32, {1, 256}, "x");
  int t[3];
  for (int& i : t) i = b.AddTensor(DataType::kFloat32, {1, 256});
  b.AddOperator(BuiltinOperator::SQUARE, {x}, {t[0]});
  b.AddOperator(BuiltinOperator::SQUARE, {t[0]}, {t[1]});
  b.AddOperator(BuiltinOperator::SQUARE, {t[1]}, {t[2]});
  b.SetInputs({x});
  b.SetOutputs({t[2]});
  auto l = Load(b.Finish(), 1);
  Interpreter* in = l->interpreter.get();
  ASSERT_TRUE(in->AllocateTensors().ok());
  std::vector<float> v(256);
  for (int i = 0; i < 256; ++i) v[i] = 1.f + i / 512.f;
  memcpy(in->input(0)->data, v.data(), 256 * 4);
  for (int run = 0; run < 2; ++run) {
    ASSERT_TRUE(in->Invoke().ok()) << in->error_message();
    EXPECT_EQ(memcmp(in->input(0)->data, v.data(), 256 * 4), 0) << run;
    const float* out = in->output(0)->data_as<float>();
    for (int i = 0; i < 256; ++i) {
      ASSERT_FLOAT_EQ(out[i], std::pow(v[i], 8.f)) << run << " " << i;
    }
  }
}

TEST(InterpreterTest, ResizeInputReplans) {
  auto l = Load(testing::BuildMlp({8, 4, 3}, 1, 3));
  Interpreter* in = l->interpreter.get();
  ASSERT_TRUE(in->AllocateTensors().ok());
  size_t small = in->arena_size();
  ASSERT_TRUE(in->ResizeInputTensor(0, Shape({16, 8})).ok());
  EXPECT_FALSE(in->tensors_allocated());
  EXPECT_EQ(in->Invoke().code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(in->AllocateTensors().ok());
  EXPECT_GT(in->arena_size(), small);
  EXPECT_EQ(in->output(0)->shape, Shape({16, 3}));
  // Row r of a batch equals the same row run alone.
  std::vector<float> x = testing::RandomFloats(16 * 8, 5);
  memcpy(in->input(0)->data, x.data(), x.size() * 4);
  ASSERT_TRUE(in->Invoke().ok());
  std::vector<float> batched(in->output(0)->data_as<float>(),
                             in->output(0)->data_as<float>() + 48);
  ASSERT_TRUE(in->ResizeInputTensor(0, Shape({1, 8})).ok());
  ASSERT_TRUE(in->AllocateTensors().ok());
  memcpy(in->input(0)->data, x.data() + 5 * 8, 32);
  ASSERT_TRUE(in->Invoke().ok());
  for (int o = 0; o < 3; ++o) {
    EXPECT_NEAR(in->output(0)->data_as<float>()[o], batched[5 * 3 + o], 1e-6);
  }
  EXPECT_FALSE(in->ResizeInputTensor(0, Shape({1, 8, 1})).ok());
  EXPECT_NE(std::string(in->error_message()).find("rank"), std::string::npos);
  EXPECT_FALSE(in->ResizeInputTensor(3, Shape({1, 8})).ok());
}

// FullyConnected packs its weights slice by slice and drops the mapped
// file's pages of each slice; the results must not change, also when a
// re-plan packs again from pages re-read from the file.
TEST(InterpreterTest, MappedWeightsReleasedAfterPackingStayCorrect) {
  AlignedBytes bytes = testing::BuildMlp({700, 300, 10}, 2, 11);
  std::string path = ::testing::TempDir() + "/released_mlp.twl";
  ASSERT_TRUE(bytes.WriteFile(path));
  OpResolver resolver;
  ASSERT_TRUE(RegisterBuiltinKernels(&resolver).ok());
  std::unique_ptr<Model> mapped;
  ASSERT_TRUE(Model::CreateFromFile(path.c_str(), &mapped).ok());
  std::unique_ptr<Interpreter> in;
  ASSERT_TRUE(
      Interpreter::Create(mapped.get(), &resolver, InterpreterOptions(), &in)
          .ok());
  auto reference = Load(bytes);
  InterpreterOptions ref_options;
  ref_options.use_reference_kernels = true;
  ASSERT_TRUE(Interpreter::Create(reference->model.get(), &resolver,
                                  ref_options, &reference->interpreter)
                  .ok());
  for (int batch : {2, 3}) {
    ASSERT_TRUE(in->ResizeInputTensor(0, Shape({batch, 700})).ok());
    ASSERT_TRUE(
        reference->interpreter->ResizeInputTensor(0, Shape({batch, 700})).ok());
    ASSERT_TRUE(in->AllocateTensors().ok());
    ASSERT_TRUE(reference->interpreter->AllocateTensors().ok());
    std::vector<float> x = testing::RandomFloats(batch * 700, batch);
    memcpy(in->input(0)->data, x.data(), x.size() * 4);
    memcpy(reference->interpreter->input(0)->data, x.data(), x.size() * 4);
    ASSERT_TRUE(in->Invoke().ok()) << in->error_message();
    ASSERT_TRUE(reference->interpreter->Invoke().ok());
    for (int i = 0; i < batch * 10; ++i) {
      EXPECT_NEAR(in->output(0)->data_as<float>()[i],
                  reference->interpreter->output(0)->data_as<float>()[i], 1e-5)
          << "batch " << batch << ", element " << i;
    }
  }
  unlink(path.c_str());
}

TEST(InterpreterTest, PrepareErrorsNameTheOperator) {
  auto l = Load(testing::BuildMlp({8, 4, 3}, 1, 3));
  Interpreter* in = l->interpreter.get();
  ASSERT_TRUE(in->ResizeInputTensor(0, Shape({2, 7})).ok());
  Status s = in->AllocateTensors();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(std::string(s.message()).rfind("operator 0 (FULLY_CONNECTED): ", 0),
            0u)
      << s.message();
}

TEST(InterpreterTest, LookupsByNameAndSignature) {
  auto l = Load(testing::BuildMlp({8, 4, 3}, 1, 3));
  Interpreter* in = l->interpreter.get();
  EXPECT_EQ(in->FindInput("input"), 0);
  EXPECT_EQ(in->FindInput("nope"), -1);
  EXPECT_EQ(in->FindOutput("probs"), 0);
  ASSERT_EQ(in->num_signatures(), 1);
  EXPECT_STREQ(in->signature_key(0), "serving_default");
  EXPECT_EQ(in->FindSignatureTensor("serving_default", "x", true),
            in->input(0));
  EXPECT_EQ(in->FindSignatureTensor("serving_default", "probs", false),
            in->output(0));
  EXPECT_EQ(in->FindSignatureTensor("serving_default", "x", false), nullptr);
  EXPECT_EQ(in->FindSignatureTensor("other", "x", true), nullptr);
}

TEST(InterpreterTest, MissingKernelIsReported) {
  AlignedBytes bytes = testing::BuildMlp({8, 4, 3}, 1, 3);
  std::unique_ptr<Model> model;
  ASSERT_TRUE(Model::CreateFromBuffer(bytes.data(), bytes.size(), &model).ok());
  OpResolver empty;
  std::unique_ptr<Interpreter> in;
  Status s =
      Interpreter::Create(model.get(), &empty, InterpreterOptions(), &in);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_STREQ(s.message(),
               "operator 0 (FULLY_CONNECTED) version 1: no kernel registered");
}

TEST(InterpreterTest, ArenaLimit) {
  AlignedBytes bytes = testing::BuildMlp({8, 4, 3}, 1, 3);
  std::unique_ptr<Model> model;
  ASSERT_TRUE(Model::CreateFromBuffer(bytes.data(), bytes.size(), &model).ok());
  OpResolver resolver;
  ASSERT_TRUE(RegisterBuiltinKernels(&resolver).ok());
  InterpreterOptions options;
  options.max_arena_bytes = 64;
  std::unique_ptr<Interpreter> in;
  ASSERT_TRUE(Interpreter::Create(model.get(), &resolver, options, &in).ok());
  EXPECT_EQ(in->AllocateTensors().code(), StatusCode::kResourceExhausted);
}

TEST(InterpreterTest, ResolverRejectsDuplicatesAndOverflow) {
  OpResolver resolver;
  ASSERT_TRUE(RegisterBuiltinKernels(&resolver).ok());
  EXPECT_FALSE(RegisterBuiltinKernels(&resolver).ok());
}

}  // namespace
}  // namespace twl

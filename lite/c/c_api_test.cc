// The C API, including its failure paths.
#include "lite/c/c_api.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "lite/runtime/checksum.h"
#include "lite/runtime/testing/test_models.h"

namespace {

using twl::testing::AlignedBytes;

class CApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bytes_ = twl::testing::BuildMlp({6, 5, 3}, 1, 11);
    model_ = twl_model_create_from_buffer(bytes_.data(), bytes_.size());
    ASSERT_NE(model_, nullptr) << twl_last_error_message();
    TwlInterpreterOptions* options = twl_interpreter_options_create();
    twl_interpreter_options_set_num_threads(options, 2);
    interpreter_ = twl_interpreter_create(model_, options);
    twl_interpreter_options_delete(options);
    ASSERT_NE(interpreter_, nullptr) << twl_last_error_message();
  }
  void TearDown() override {
    twl_interpreter_delete(interpreter_);
    twl_model_delete(model_);
  }
  AlignedBytes bytes_;
  TwlModel* model_ = nullptr;
  TwlInterpreter* interpreter_ = nullptr;
};

TEST_F(CApiTest, RunsModel) {
  ASSERT_EQ(twl_interpreter_allocate_tensors(interpreter_), kTwlOk);
  EXPECT_EQ(twl_interpreter_get_input_count(interpreter_), 1);
  EXPECT_EQ(twl_interpreter_get_output_count(interpreter_), 1);
  TwlTensor* input = twl_interpreter_get_input_tensor(interpreter_, 0);
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(twl_tensor_type(input), kTwlFloat32);
  EXPECT_EQ(twl_tensor_num_dims(input), 2);
  EXPECT_EQ(twl_tensor_dim(input, 1), 6);
  EXPECT_EQ(twl_tensor_dim(input, 2), -1);
  EXPECT_EQ(twl_tensor_byte_size(input), 24u);
  EXPECT_STREQ(twl_tensor_name(input), "input");
  float x[6] = {1, -2, 3, -4, 5, -6};
  ASSERT_EQ(twl_tensor_copy_from_buffer(input, x, sizeof(x)), kTwlOk);
  ASSERT_EQ(twl_interpreter_invoke(interpreter_), kTwlOk);
  const TwlTensor* output = twl_interpreter_get_output_tensor(interpreter_, 0);
  float y[3];
  ASSERT_EQ(twl_tensor_copy_to_buffer(output, y, sizeof(y)), kTwlOk);
  EXPECT_NEAR(y[0] + y[1] + y[2], 1.f, 1e-5);  // softmax
  EXPECT_EQ(twl_tensor_data(output),
            static_cast<const void*>(twl_tensor_data(output)));
}

// The reference kernels give the optimized kernels' result.
TEST_F(CApiTest, ReferenceKernelsAgree) {
  TwlInterpreterOptions* options = twl_interpreter_options_create();
  twl_interpreter_options_set_use_reference_kernels(options, 1);
  TwlInterpreter* reference = twl_interpreter_create(model_, options);
  twl_interpreter_options_delete(options);
  ASSERT_NE(reference, nullptr) << twl_last_error_message();
  float x[6] = {1, -2, 3, -4, 5, -6};
  float y[2][3];
  TwlInterpreter* interpreters[2] = {interpreter_, reference};
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(twl_interpreter_allocate_tensors(interpreters[i]), kTwlOk);
    ASSERT_EQ(
        twl_tensor_copy_from_buffer(
            twl_interpreter_get_input_tensor(interpreters[i], 0), x, sizeof(x)),
        kTwlOk);
    ASSERT_EQ(twl_interpreter_invoke(interpreters[i]), kTwlOk);
    ASSERT_EQ(twl_tensor_copy_to_buffer(
                  twl_interpreter_get_output_tensor(interpreters[i], 0), y[i],
                  sizeof(y[i])),
              kTwlOk);
  }
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(y[0][j], y[1][j], 1e-5);
  twl_interpreter_delete(reference);
  twl_interpreter_options_set_use_reference_kernels(nullptr, 1);  // no crash
}

struct ProfileLog {
  std::vector<std::pair<int, std::string>> calls;
  double total_us = 0;
};

void RecordOp(void* user_data, int node, const char* op_name, double us) {
  auto* log = static_cast<ProfileLog*>(user_data);
  log->calls.emplace_back(node, op_name);
  log->total_us += us;
}

TEST_F(CApiTest, OpProfilerSeesEveryOpOfEveryInvoke) {
  ASSERT_EQ(twl_interpreter_allocate_tensors(interpreter_), kTwlOk);
  ProfileLog log;
  twl_interpreter_set_op_profiler(interpreter_, RecordOp, &log);
  ASSERT_EQ(twl_interpreter_invoke(interpreter_), kTwlOk);
  ASSERT_EQ(twl_interpreter_invoke(interpreter_), kTwlOk);
  // The MLP 6-5-3: two FULLY_CONNECTED and a SOFTMAX, twice.
  std::vector<std::pair<int, std::string>> once = {
      {0, "FULLY_CONNECTED"}, {1, "FULLY_CONNECTED"}, {2, "SOFTMAX"}};
  std::vector<std::pair<int, std::string>> twice = once;
  twice.insert(twice.end(), once.begin(), once.end());
  EXPECT_EQ(log.calls, twice);
  EXPECT_GE(log.total_us, 0.0);
  twl_interpreter_set_op_profiler(interpreter_, nullptr, nullptr);
  ASSERT_EQ(twl_interpreter_invoke(interpreter_), kTwlOk);
  EXPECT_EQ(log.calls.size(), 6u);
  twl_interpreter_set_op_profiler(nullptr, RecordOp, &log);  // no crash
}

TEST_F(CApiTest, LookupsByNameAndSignature) {
  EXPECT_EQ(twl_interpreter_get_input_tensor_by_name(interpreter_, "input"),
            twl_interpreter_get_input_tensor(interpreter_, 0));
  EXPECT_EQ(twl_interpreter_get_input_tensor_by_name(interpreter_, "nope"),
            nullptr);
  EXPECT_EQ(twl_interpreter_get_output_tensor_by_name(interpreter_, "probs"),
            twl_interpreter_get_output_tensor(interpreter_, 0));
  EXPECT_EQ(twl_interpreter_get_signature_input_tensor(interpreter_,
                                                       "serving_default", "x"),
            twl_interpreter_get_input_tensor(interpreter_, 0));
  EXPECT_EQ(twl_interpreter_get_signature_output_tensor(
                interpreter_, "serving_default", "probs"),
            twl_interpreter_get_output_tensor(interpreter_, 0));
  EXPECT_EQ(
      twl_interpreter_get_signature_input_tensor(interpreter_, "nope", "x"),
      nullptr);
}

TEST_F(CApiTest, ResizeInput) {
  int dims[2] = {4, 6};
  ASSERT_EQ(twl_interpreter_resize_input_tensor(interpreter_, 0, dims, 2),
            kTwlOk);
  EXPECT_EQ(twl_interpreter_invoke(interpreter_), kTwlFailedPrecondition);
  EXPECT_NE(std::string(twl_interpreter_error_message(interpreter_))
                .find("AllocateTensors"),
            std::string::npos);
  ASSERT_EQ(twl_interpreter_allocate_tensors(interpreter_), kTwlOk);
  EXPECT_EQ(
      twl_tensor_dim(twl_interpreter_get_output_tensor(interpreter_, 0), 0), 4);
  int bad[2] = {4, -1};
  EXPECT_EQ(twl_interpreter_resize_input_tensor(interpreter_, 0, bad, 2),
            kTwlInvalidArgument);
  EXPECT_EQ(twl_interpreter_resize_input_tensor(interpreter_, 0, dims, -5),
            kTwlInvalidArgument);  // was kTwlUnsupported, "exceeds the maximum"
  EXPECT_NE(std::string(twl_interpreter_error_message(interpreter_))
                .find("rank -5 is negative"),
            std::string::npos);
  EXPECT_EQ(twl_interpreter_resize_input_tensor(interpreter_, 5, dims, 2),
            kTwlInvalidArgument);
  EXPECT_NE(std::string(twl_interpreter_error_message(interpreter_))
                .find("out of range"),
            std::string::npos);
}

TEST_F(CApiTest, WrongIndexAndWrongByteSize) {
  EXPECT_EQ(twl_interpreter_get_input_tensor(interpreter_, 1), nullptr);
  EXPECT_EQ(twl_interpreter_get_input_tensor(interpreter_, -1), nullptr);
  EXPECT_EQ(twl_interpreter_get_output_tensor(interpreter_, 7), nullptr);
  ASSERT_EQ(twl_interpreter_allocate_tensors(interpreter_), kTwlOk);
  TwlTensor* input = twl_interpreter_get_input_tensor(interpreter_, 0);
  float x[5] = {};
  EXPECT_EQ(twl_tensor_copy_from_buffer(input, x, sizeof(x)),
            kTwlInvalidArgument);
  EXPECT_NE(std::string(twl_last_error_message()).find("holds 24 bytes"),
            std::string::npos);
  EXPECT_EQ(twl_tensor_copy_to_buffer(
                twl_interpreter_get_output_tensor(interpreter_, 0), x, 20),
            kTwlInvalidArgument);
  EXPECT_EQ(twl_tensor_copy_from_buffer(input, nullptr, 24),
            kTwlInvalidArgument);
}

TEST_F(CApiTest, ModelMayBeDeletedBeforeInterpreter) {
  twl_model_delete(model_);
  model_ = nullptr;
  ASSERT_EQ(twl_interpreter_allocate_tensors(interpreter_), kTwlOk);
  EXPECT_EQ(twl_interpreter_invoke(interpreter_), kTwlOk);
}

TEST(CApiOwnershipTest, CopiedBufferMayBeOverwritten) {
  AlignedBytes bytes = twl::testing::BuildMlp({6, 5, 3}, 1, 11);
  auto run = [](TwlModel* model) {
    TwlInterpreter* interpreter = twl_interpreter_create(model, nullptr);
    EXPECT_EQ(twl_interpreter_allocate_tensors(interpreter), kTwlOk);
    float x[6] = {1, -2, 3, -4, 5, -6};
    twl_tensor_copy_from_buffer(
        twl_interpreter_get_input_tensor(interpreter, 0), x, sizeof(x));
    EXPECT_EQ(twl_interpreter_invoke(interpreter), kTwlOk);
    std::vector<float> y(3);
    twl_tensor_copy_to_buffer(twl_interpreter_get_output_tensor(interpreter, 0),
                              y.data(), 12);
    twl_interpreter_delete(interpreter);
    return y;
  };
  TwlModel* borrowed = twl_model_create_from_buffer(bytes.data(), bytes.size());
  ASSERT_NE(borrowed, nullptr) << twl_last_error_message();
  const std::vector<float> expected = run(borrowed);
  twl_model_delete(borrowed);
  std::vector<uint8_t> caller(bytes.data(), bytes.data() + bytes.size());
  TwlModel* copied =
      twl_model_create_from_buffer_copy(caller.data(), caller.size());
  ASSERT_NE(copied, nullptr) << twl_last_error_message();
  std::fill(caller.begin(), caller.end(), 0xFF);
  EXPECT_EQ(run(copied), expected);
  twl_model_delete(copied);
}

TEST(CApiOwnershipTest, FlagsChecksumAndUnknownBits) {
  AlignedBytes plain = twl::testing::BuildMlp({6, 5, 3}, 1, 11);
  std::vector<uint8_t> sealed(plain.data(), plain.data() + plain.size());
  sealed.resize(plain.size() + 16);
  twl::AppendIntegrityTrailer(sealed.data(), plain.size());
  TwlModel* model = twl_model_create_from_buffer_with_flags(
      sealed.data(), sealed.size(), kTwlModelCopyBuffer);
  ASSERT_NE(model, nullptr) << twl_last_error_message();
  EXPECT_EQ(twl_model_has_checksum(model), 1);
  twl_model_delete(model);
  sealed[100] ^= 0x04;
  EXPECT_EQ(twl_model_create_from_buffer_copy(sealed.data(), sealed.size()),
            nullptr);
  EXPECT_NE(std::string(twl_last_error_message()).find("checksum mismatch"),
            std::string::npos)
      << twl_last_error_message();
  model = twl_model_create_from_buffer_with_flags(
      sealed.data(), sealed.size(),
      kTwlModelCopyBuffer | kTwlModelSkipChecksum);
  ASSERT_NE(model, nullptr) << twl_last_error_message();
  twl_model_delete(model);
  EXPECT_EQ(twl_model_create_from_buffer_with_flags(sealed.data(),
                                                    sealed.size(), 1u << 7),
            nullptr);
  EXPECT_NE(std::string(twl_last_error_message()).find("unknown model flags"),
            std::string::npos);
  std::string path = ::testing::TempDir() + "/corrupt.twl";
  FILE* f = fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  fwrite(sealed.data(), 1, sealed.size(), f);
  fclose(f);
  EXPECT_EQ(twl_model_create_from_file(path.c_str()), nullptr);
  model = twl_model_create_from_file_with_flags(path.c_str(),
                                                kTwlModelSkipChecksum);
  EXPECT_NE(model, nullptr) << twl_last_error_message();
  twl_model_delete(model);
}

TEST(CApiFailureTest, MissingFile) {
  EXPECT_EQ(twl_model_create_from_file("/no/such/model.twl"), nullptr);
  EXPECT_NE(std::string(twl_last_error_message()).find("/no/such/model.twl"),
            std::string::npos);
  EXPECT_EQ(twl_model_create_from_file(nullptr), nullptr);
}

TEST(CApiFailureTest, MalformedBuffer) {
  alignas(16) unsigned char garbage[64];
  for (int i = 0; i < 64; ++i) garbage[i] = static_cast<unsigned char>(i * 7);
  EXPECT_EQ(twl_model_create_from_buffer(garbage, sizeof(garbage)), nullptr);
  EXPECT_NE(std::string(twl_last_error_message()).find("not a .twl model"),
            std::string::npos);
  EXPECT_EQ(twl_model_create_from_buffer(nullptr, 10), nullptr);
  AlignedBytes bytes = twl::testing::BuildMlp({4, 2}, 1, 1);
  EXPECT_EQ(twl_model_create_from_buffer(bytes.data(), bytes.size() - 9),
            nullptr);
}

TEST(CApiFailureTest, NullHandles) {
  EXPECT_EQ(twl_interpreter_create(nullptr, nullptr), nullptr);
  EXPECT_EQ(twl_interpreter_invoke(nullptr), kTwlInvalidArgument);
  EXPECT_EQ(twl_interpreter_allocate_tensors(nullptr), kTwlInvalidArgument);
  EXPECT_EQ(twl_interpreter_get_input_count(nullptr), 0);
  EXPECT_EQ(twl_tensor_type(nullptr), kTwlNoType);
  EXPECT_EQ(twl_tensor_num_dims(nullptr), 0);
  EXPECT_EQ(twl_tensor_data(nullptr), nullptr);
  twl_model_delete(nullptr);
  twl_interpreter_delete(nullptr);
  twl_interpreter_options_delete(nullptr);
}

TEST(CApiFailureTest, BadThreadCount) {
  AlignedBytes bytes = twl::testing::BuildMlp({4, 2}, 1, 1);
  TwlModel* model = twl_model_create_from_buffer(bytes.data(), bytes.size());
  TwlInterpreterOptions* options = twl_interpreter_options_create();
  twl_interpreter_options_set_num_threads(options, 0);
  EXPECT_EQ(twl_interpreter_create(model, options), nullptr);
  EXPECT_NE(std::string(twl_last_error_message()).find("num_threads"),
            std::string::npos);
  twl_interpreter_options_delete(options);
  twl_model_delete(model);
}

TEST(CApiFileTest, LoadsFromFile) {
  AlignedBytes bytes = twl::testing::BuildMlp({4, 3}, 1, 1);
  std::string path = ::testing::TempDir() + "/c_api_model.twl";
  ASSERT_TRUE(bytes.WriteFile(path));
  TwlModel* model = twl_model_create_from_file(path.c_str());
  ASSERT_NE(model, nullptr) << twl_last_error_message();
  TwlInterpreter* interpreter = twl_interpreter_create(model, nullptr);
  ASSERT_NE(interpreter, nullptr);
  EXPECT_EQ(twl_interpreter_allocate_tensors(interpreter), kTwlOk);
  EXPECT_EQ(twl_interpreter_invoke(interpreter), kTwlOk);
  twl_interpreter_delete(interpreter);
  twl_model_delete(model);
  unlink(path.c_str());
}

}  // namespace

// Model loading and verification: valid models load without copying
// weights; each kind of invalid model is rejected with a message naming it.
#include "lite/runtime/model.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "lite/runtime/testing/model_builder.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
namespace {

using schema::BuiltinOperator;
using testing::AlignedBytes;
using testing::ModelBuilder;

std::string LoadError(const AlignedBytes& bytes) {
  std::unique_ptr<Model> model;
  Status status = Model::CreateFromBuffer(bytes.data(), bytes.size(), &model);
  return status.ok() ? "" : status.message();
}

// x[1,4] -> ADD(x, x) -> y, with hooks to break it.
AlignedBytes AddModel(int in_index = 0, int out_index = 1, int version = 1,
                      int opcode = 0) {
  ModelBuilder b;
  b.AddTensor(DataType::kFloat32, {1, 4}, "x");
  b.AddTensor(DataType::kFloat32, {1, 4}, "y");
  b.AddOperator(static_cast<BuiltinOperator>(opcode), {in_index, 0},
                {out_index}, b.Arithmetic(), version);
  b.SetInputs({0});
  b.SetOutputs({1});
  return b.Finish();
}

TEST(ModelTest, LoadsFromBufferWithoutCopy) {
  AlignedBytes bytes = testing::BuildMlp({8, 4, 2}, 1, 1);
  std::unique_ptr<Model> model;
  ASSERT_TRUE(Model::CreateFromBuffer(bytes.data(), bytes.size(), &model).ok());
  EXPECT_EQ(model->data(), bytes.data());
  EXPECT_EQ(model->fb()->version(), kSchemaVersion);
  // Every non-empty buffer is 64-byte aligned within the file.
  for (const auto* buffer : *model->fb()->buffers()) {
    if (buffer->data() && buffer->data()->size()) {
      EXPECT_EQ((buffer->data()->data() - bytes.data()) % 64, 0);
    }
  }
}

TEST(ModelTest, LoadsFromFileByMapping) {
  AlignedBytes bytes = testing::BuildMlp({8, 4, 2}, 1, 1);
  std::string path = ::testing::TempDir() + "/mlp.twl";
  ASSERT_TRUE(bytes.WriteFile(path));
  std::unique_ptr<Model> model;
  Status status = Model::CreateFromFile(path.c_str(), &model);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(model->data()) % 4096, 0u);
  EXPECT_EQ(model->size(), bytes.size());
  unlink(path.c_str());
}

TEST(ModelTest, MissingFile) {
  std::unique_ptr<Model> model;
  Status status = Model::CreateFromFile("/nonexistent/model.twl", &model);
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  EXPECT_NE(std::string(status.message()).find("/nonexistent/model.twl"),
            std::string::npos);
}

TEST(ModelTest, RejectsWrongIdentifierAndTruncation) {
  AlignedBytes bytes = AddModel();
  AlignedBytes wrong = bytes;
  wrong.data()[4] = 'X';
  EXPECT_NE(LoadError(wrong).find("file identifier"), std::string::npos);
  for (size_t size :
       {size_t{0}, size_t{7}, bytes.size() / 2, bytes.size() - 1}) {
    std::unique_ptr<Model> model;
    Status status = Model::CreateFromBuffer(bytes.data(), size, &model);
    EXPECT_FALSE(status.ok()) << size;
  }
}

TEST(ModelTest, RejectsOutOfRangeInput) {
  EXPECT_EQ(LoadError(AddModel(57)),
            "subgraph 0: operator 0 (ADD): input index 57 out of range (model "
            "has 2 tensors)");
}

TEST(ModelTest, RejectsTensorBothInputAndOutput) {
  ModelBuilder b;
  int x = b.AddTensor(DataType::kFloat32, {4}, "x");
  int y = b.AddTensor(DataType::kFloat32, {4}, "y");
  b.AddOperator(BuiltinOperator::ADD, {x, x}, {y});
  b.AddOperator(BuiltinOperator::ADD, {y, x}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  EXPECT_NE(LoadError(b.Finish()).find("both input 0 and output 0"),
            std::string::npos);
}

TEST(ModelTest, RejectsCycle) {
  // op0: a = b + x ; op1: b = a + x  (b is read before it is written)
  ModelBuilder b;
  int x = b.AddTensor(DataType::kFloat32, {4}, "x");
  int ta = b.AddTensor(DataType::kFloat32, {4}, "a");
  int tb = b.AddTensor(DataType::kFloat32, {4}, "b");
  b.AddOperator(BuiltinOperator::ADD, {tb, x}, {ta});
  b.AddOperator(BuiltinOperator::ADD, {ta, x}, {tb});
  b.SetInputs({x});
  b.SetOutputs({tb});
  EXPECT_NE(LoadError(b.Finish()).find("no earlier operator writes"),
            std::string::npos);
}

TEST(ModelTest, RejectsUnknownOpAndVersion) {
  EXPECT_NE(LoadError(AddModel(0, 1, 1, 999)).find("unknown op code 999"),
            std::string::npos);
  EXPECT_NE(LoadError(AddModel(0, 1, 7)).find("unsupported op version 7"),
            std::string::npos);
}

TEST(ModelTest, RejectsWrongOptionsType) {
  ModelBuilder b;
  b.AddTensor(DataType::kFloat32, {4}, "x");
  b.AddTensor(DataType::kFloat32, {4}, "y");
  b.AddOperator(BuiltinOperator::ADD, {0, 0}, {1}, b.Softmax());
  b.SetInputs({0});
  b.SetOutputs({1});
  EXPECT_NE(LoadError(b.Finish()).find("do not belong"), std::string::npos);
}

TEST(ModelTest, RejectsBufferSizeMismatchAndHugeShapes) {
  ModelBuilder b;
  b.AddConstant<float>({3, 4}, std::vector<float>(5), "w");
  b.SetOutputs({0});
  EXPECT_NE(LoadError(b.Finish()).find("holds 20 bytes"), std::string::npos);

  ModelBuilder h;
  h.AddTensor(DataType::kFloat32, {1 << 30, 1 << 30, 1 << 30}, "huge");
  h.AddTensor(DataType::kFloat32, {}, "y");
  h.AddOperator(BuiltinOperator::RELU, {0}, {1});
  h.SetInputs({0});
  h.SetOutputs({1});
  EXPECT_NE(LoadError(h.Finish()).find("exceeds"), std::string::npos);

  ModelBuilder n;
  n.AddTensor(DataType::kFloat32, {2, -3}, "negative");
  n.SetInputs({0});
  n.SetOutputs({0});
  EXPECT_NE(LoadError(n.Finish()).find("negative"), std::string::npos);
}

TEST(ModelTest, RejectsBadGraphOutputsAndSchemaVersion) {
  ModelBuilder b;
  b.AddTensor(DataType::kFloat32, {4}, "x");
  b.AddTensor(DataType::kFloat32, {4}, "never_written");
  b.SetInputs({0});
  b.SetOutputs({1});
  EXPECT_NE(LoadError(b.Finish()).find("never computed"), std::string::npos);

  ModelBuilder v;
  v.AddTensor(DataType::kFloat32, {4}, "x");
  v.SetInputs({0});
  v.SetOutputs({0});
  v.set_version(99);
  EXPECT_NE(LoadError(v.Finish()).find("schema version 99"), std::string::npos);
}

TEST(ModelTest, RejectsBadSignature) {
  ModelBuilder b;
  b.AddTensor(DataType::kFloat32, {4}, "x");
  b.SetInputs({0});
  b.SetOutputs({0});
  b.AddSignature("serve", {{"x", 42}}, {});
  EXPECT_NE(LoadError(b.Finish()).find("signature 0 'serve'"),
            std::string::npos);
}

TEST(ModelTest, RejectsUnalignedCallerBuffer) {
  AlignedBytes bytes = AddModel();
  std::vector<uint8_t> copy(bytes.size() + 1);
  memcpy(copy.data() + 1, bytes.data(), bytes.size());
  std::unique_ptr<Model> model;
  Status status =
      Model::CreateFromBuffer(copy.data() + 1, bytes.size(), &model);
  EXPECT_NE(std::string(status.message()).find("aligned"), std::string::npos);
}

}  // namespace
}  // namespace twl

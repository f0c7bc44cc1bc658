#include "lite/runtime/testing/test_models.h"

#include <cmath>
#include <random>
#include <string>

namespace twl {
namespace testing {

std::vector<float> RandomFloats(size_t n, uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> values(n);
  for (float& v : values) v = dist(rng);
  return values;
}

namespace {

int AddDense(ModelBuilder& b, int input, int in, int out, int batch,
             ActivationFunctionType act, uint32_t seed,
             const std::string& name) {
  float scale = 1.f / std::sqrt(static_cast<float>(in));
  int w = b.AddConstant<float>({out, in}, RandomFloats(out * in, seed, scale),
                               name + "/weights");
  int bias = b.AddConstant<float>({out}, RandomFloats(out, seed + 1, 0.1f),
                                  name + "/bias");
  int y = b.AddTensor(DataType::kFloat32, {batch, out}, name, {-1, out});
  b.AddOperator(BuiltinOperator::FULLY_CONNECTED, {input, w, bias}, {y},
                b.FullyConnected(act));
  return y;
}

}  // namespace

AlignedBytes BuildMlp(const std::vector<int>& sizes, int batch, uint32_t seed) {
  ModelBuilder b;
  int x = b.AddTensor(DataType::kFloat32, {batch, sizes[0]}, "input",
                      {-1, sizes[0]});
  int h = x;
  for (size_t i = 1; i < sizes.size(); ++i) {
    bool last = i + 1 == sizes.size();
    h = AddDense(
        b, h, sizes[i - 1], sizes[i], batch,
        last ? ActivationFunctionType::NONE : ActivationFunctionType::RELU,
        seed + 10 * i, "dense" + std::to_string(i));
  }
  int probs = b.AddTensor(DataType::kFloat32, {batch, sizes.back()}, "probs",
                          {-1, sizes.back()});
  b.AddOperator(BuiltinOperator::SOFTMAX, {h}, {probs}, b.Softmax(1.f));
  b.SetInputs({x});
  b.SetOutputs({probs});
  b.AddSignature("serving_default", {{"x", x}}, {{"probs", probs}});
  b.AddMetadata("producer", "tensorweave lite test_models");
  return b.Finish();
}

AlignedBytes BuildLeNet(int batch, uint32_t seed) {
  ModelBuilder b;
  auto f32 = DataType::kFloat32;
  int x = b.AddTensor(f32, {batch, 28, 28, 1}, "image", {-1, 28, 28, 1});
  auto conv = [&](int input, int cin, int cout, const char* name) {
    float scale = 1.f / std::sqrt(25.f * cin);
    int w = b.AddConstant<float>({cout, 5, 5, cin},
                                 RandomFloats(cout * 25 * cin, seed++, scale),
                                 std::string(name) + "/filter");
    int bias = b.AddConstant<float>({cout}, RandomFloats(cout, seed++, 0.1f),
                                    std::string(name) + "/bias");
    int y = b.AddTensor(f32, {}, name);
    b.AddOperator(BuiltinOperator::CONV_2D, {input, w, bias}, {y},
                  b.Conv2D(Padding::VALID, 1, 1, ActivationFunctionType::RELU));
    int p = b.AddTensor(f32, {}, std::string(name) + "/pool");
    b.AddOperator(BuiltinOperator::MAX_POOL_2D, {y}, {p},
                  b.Pool2D(Padding::VALID, 2, 2, 2, 2));
    return p;
  };
  int p1 = conv(x, 1, 6, "conv1");
  int p2 = conv(p1, 6, 16, "conv2");
  int shape = b.AddConstant<int32_t>({2}, {-1, 256}, "flatten/shape");
  int flat = b.AddTensor(f32, {}, "flatten");
  b.AddOperator(BuiltinOperator::RESHAPE, {p2, shape}, {flat});
  int h = AddDense(b, flat, 256, 120, batch, ActivationFunctionType::RELU,
                   seed + 100, "fc1");
  h = AddDense(b, h, 120, 84, batch, ActivationFunctionType::RELU, seed + 200,
               "fc2");
  h = AddDense(b, h, 84, 10, batch, ActivationFunctionType::NONE, seed + 300,
               "logits");
  b.SetInputs({x});
  b.SetOutputs({h});
  b.AddSignature("serving_default", {{"image", x}}, {{"logits", h}});
  return b.Finish();
}

}  // namespace testing
}  // namespace twl

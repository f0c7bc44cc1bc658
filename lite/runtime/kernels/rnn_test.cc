// LSTM, GRU and RNN: the optimized path against the reference path over every
// option (directions, layouts, sequence lengths, initial states, peepholes,
// clip, input_forget, linear_before_reset, gate and cell activations), one
// step against the equations
// written out, and the errors. tests/test_converters_rnn.py checks both
// against onnxruntime.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using schema::RNNDirection;
using testing::BuiltinOperator;
using testing::OpModel;

std::vector<float> Random(int n, unsigned seed, float scale = 0.5f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

struct Case {
  bool lstm = true;
  bool rnn = false;  // with lstm false: RNN, not GRU
  RNNDirection direction = RNNDirection::FORWARD;
  bool batch_major = false;
  int steps = 5, batch = 3, input = 4, hidden = 6;
  bool bias = true, initial = true, peepholes = false;
  std::vector<int32_t> lengths;  // empty: none
  float clip = 0;
  bool input_forget = false, linear_before_reset = false;
  int threads = 2;
  schema::RNNActivation gate = schema::RNNActivation::SIGMOID;
  schema::RNNActivation act = schema::RNNActivation::TANH;
  float alpha = 0.2f, beta = 0.5f;
};

// Builds the op, runs optimized and reference paths and compares them.
void Check(const Case& c) {
  const int D = c.direction == RNNDirection::BIDIRECTIONAL ? 2 : 1;
  const int G = c.lstm ? 4 : (c.rnn ? 1 : 3), H = c.hidden, T = c.steps,
            N = c.batch;
  OpModel m;
  std::vector<int32_t> x_shape = c.batch_major
                                     ? std::vector<int32_t>{N, T, c.input}
                                     : std::vector<int32_t>{T, N, c.input};
  std::vector<int32_t> state_shape = c.batch_major
                                         ? std::vector<int32_t>{N, D, H}
                                         : std::vector<int32_t>{D, N, H};
  int x = m.AddInput(DataType::kFloat32, x_shape);
  int lens = c.lengths.empty() ? -1 : m.AddInput(DataType::kInt32, {N});
  int h0 = c.initial ? m.AddInput(DataType::kFloat32, state_shape) : -1;
  int c0 =
      c.initial && c.lstm ? m.AddInput(DataType::kFloat32, state_shape) : -1;
  int w =
      m.AddConst<float>({D, G * H, c.input}, Random(D * G * H * c.input, 1));
  int r = m.AddConst<float>({D, G * H, H}, Random(D * G * H * H, 2));
  int b =
      c.bias ? m.AddConst<float>({D, 2 * G * H}, Random(D * 2 * G * H, 3)) : -1;
  std::vector<int32_t> outs = {m.AddOutput(DataType::kFloat32),
                               m.AddOutput(DataType::kFloat32)};
  if (c.lstm) {
    outs.push_back(m.AddOutput(DataType::kFloat32));
    int p =
        c.peepholes ? m.AddConst<float>({D, 3 * H}, Random(D * 3 * H, 4)) : -1;
    m.AddOp(BuiltinOperator::LSTM, {x, w, r, b, lens, h0, c0, p}, outs,
            {schema::BuiltinOptions::LSTMOptions,
             schema::CreateLSTMOptions(m.builder().fbb(), H, c.direction,
                                       c.batch_major, c.clip, c.input_forget,
                                       c.gate, c.act, c.alpha, c.beta)
                 .Union()});
  } else if (c.rnn) {
    m.AddOp(
        BuiltinOperator::RNN, {x, w, r, b, lens, h0}, outs,
        {schema::BuiltinOptions::RNNOptions,
         schema::CreateRNNOptions(m.builder().fbb(), H, c.direction,
                                  c.batch_major, c.clip, c.act, c.alpha, c.beta)
             .Union()});
  } else {
    m.AddOp(BuiltinOperator::GRU, {x, w, r, b, lens, h0}, outs,
            {schema::BuiltinOptions::GRUOptions,
             schema::CreateGRUOptions(
                 m.builder().fbb(), H, c.direction, c.batch_major, c.clip,
                 c.linear_before_reset, c.gate, c.act, c.alpha, c.beta)
                 .Union()});
  }
  Status st = m.Build(c.threads);
  ASSERT_TRUE(st.ok()) << st.message();
  int input = 0;
  m.SetInput<float>(input++, Random(T * N * c.input, 5, 1.5f));
  if (lens >= 0) m.SetInput<int32_t>(input++, c.lengths);
  if (h0 >= 0) m.SetInput<float>(input++, Random(D * N * H, 6));
  if (c0 >= 0) m.SetInput<float>(input++, Random(D * N * H, 7));
  st = m.Invoke();
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(m.CompareWithReference(), "");
  std::vector<int32_t> y_shape = c.batch_major
                                     ? std::vector<int32_t>{N, T, D, H}
                                     : std::vector<int32_t>{T, D, N, H};
  EXPECT_EQ(m.OutputShape(0), y_shape);
  EXPECT_EQ(m.OutputShape(1), state_shape);
  // Steps past a sequence's end are zeros in Y.
  auto y = m.GetOutput<float>(0);
  for (int n = 0; n < N && !c.lengths.empty(); ++n) {
    for (int t = c.lengths[n]; t < T; ++t) {
      for (int d = 0; d < D; ++d) {
        const int at = c.batch_major ? ((n * T + t) * D + d) * H
                                     : ((t * D + d) * N + n) * H;
        for (int j = 0; j < H; ++j) ASSERT_EQ(y[at + j], 0.f) << n << "," << t;
      }
    }
  }
}

TEST(LstmTest, Forward) { Check(Case()); }

// Keras' recurrent_activation hard_sigmoid (Keras 2's 0.2 x + 0.5, Keras 3's
// x / 6 + 0.5) and activation relu, on both paths, with several threads.
TEST(LstmTest, HardSigmoidGatesReluCell) {
  for (int threads : {1, 2}) {
    Case c;
    c.threads = threads;
    c.gate = schema::RNNActivation::HARD_SIGMOID;
    c.direction = RNNDirection::BIDIRECTIONAL;
    c.lengths = {5, 2, 0};
    c.peepholes = true;
    c.hidden = 72;
    Check(c);
    c.act = schema::RNNActivation::RELU;
    c.alpha = 1.f / 6;
    c.input_forget = true;
    Check(c);
  }
}
TEST(GruTest, HardSigmoidGatesBothResetModes) {
  for (bool linear_before_reset : {true, false}) {
    Case c;
    c.lstm = false;
    c.linear_before_reset = linear_before_reset;
    c.gate = schema::RNNActivation::HARD_SIGMOID;
    c.lengths = {1, 5, 4};
    c.hidden = 40;
    Check(c);
    c.act = schema::RNNActivation::RELU;
    c.gate = schema::RNNActivation::TANH;
    c.clip = 0.8f;
    Check(c);
  }
}
TEST(RnnTest, ReluAndHardSigmoid) {
  for (auto act :
       {schema::RNNActivation::RELU, schema::RNNActivation::HARD_SIGMOID,
        schema::RNNActivation::SIGMOID}) {
    Case c;
    c.lstm = false;
    c.rnn = true;
    c.act = act;
    c.hidden = 96;
    c.direction = RNNDirection::REVERSE;
    Check(c);
  }
}

// One LSTM step (hidden 1, no recurrence to speak of) against the equations
// written out with hard sigmoid gates and relu cell activation.
TEST(LstmTest, HardSigmoidReluOneStepEquations) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, 1, 1});
  // Gates i, o, f, c: pre-activations x * w + b.
  int w = m.AddConst<float>({1, 4, 1}, {1.f, 2.f, -1.f, 3.f});
  int r = m.AddConst<float>({1, 4, 1}, {0.f, 0.f, 0.f, 0.f});
  int b = m.AddConst<float>({1, 8}, {0.5f, 0.f, 0.f, -1.f, 0, 0, 0, 0});
  int c0 = m.AddInput(DataType::kFloat32, {1, 1, 1});
  std::vector<int32_t> outs = {m.AddOutput(DataType::kFloat32),
                               m.AddOutput(DataType::kFloat32),
                               m.AddOutput(DataType::kFloat32)};
  m.AddOp(BuiltinOperator::LSTM, {x, w, r, b, -1, -1, c0}, outs,
          {schema::BuiltinOptions::LSTMOptions,
           schema::CreateLSTMOptions(m.builder().fbb(), 1,
                                     RNNDirection::FORWARD, false, 0, false,
                                     schema::RNNActivation::HARD_SIGMOID,
                                     schema::RNNActivation::RELU, 0.25f, 0.4f)
               .Union()});
  ASSERT_TRUE(m.Build(1).ok());
  m.SetInput<float>(0, {0.8f});
  m.SetInput<float>(1, {0.3f});
  ASSERT_TRUE(m.Invoke().ok());
  auto hs = [](float v) {
    return std::min(1.f, std::max(0.f, 0.25f * v + 0.4f));
  };
  const float i = hs(0.8f + 0.5f), o = hs(1.6f), f = hs(-0.8f);
  const float cell = f * 0.3f + i * std::max(0.f, 2.4f - 1.f);
  EXPECT_NEAR(m.GetOutput<float>(2)[0], cell, 1e-6);
  EXPECT_NEAR(m.GetOutput<float>(0)[0], o * std::max(0.f, cell), 1e-6);
  EXPECT_EQ(m.CompareWithReference(), "");
}
TEST(LstmTest, ReverseWithoutBiasOrInitialState) {
  Case c;
  c.direction = RNNDirection::REVERSE;
  c.bias = c.initial = false;
  Check(c);
}
TEST(LstmTest, BidirectionalSequenceLengthsPeepholes) {
  Case c;
  c.direction = RNNDirection::BIDIRECTIONAL;
  c.lengths = {5, 2, 0};
  c.peepholes = true;
  Check(c);
}
TEST(LstmTest, BatchMajorClipInputForget) {
  Case c;
  c.batch_major = true;
  c.direction = RNNDirection::BIDIRECTIONAL;
  c.lengths = {3, 5, 1};
  c.clip = 0.7f;
  c.input_forget = true;
  Check(c);
}
TEST(LstmTest, WideHiddenBatchOne) {
  Case c;
  c.batch = 1;
  c.steps = 7;
  c.input = 33;
  c.hidden = 40;
  Check(c);
}
// Hidden sizes whose recurrent GEMM is split by units between threads (the
// steps in one parallel region), with chunks of unequal size, against the
// reference path.
TEST(LstmTest, UnitsSplitBetweenThreads) {
  for (int threads : {1, 2, 3}) {
    Case c;
    c.threads = threads;
    c.direction = RNNDirection::BIDIRECTIONAL;
    c.steps = 9;
    c.hidden = 72;
    c.input = 20;
    c.lengths = {9, 4, 0};
    c.peepholes = true;
    Check(c);
    c.direction = RNNDirection::REVERSE;
    c.batch_major = true;
    c.clip = 0.9f;
    c.input_forget = true;
    c.batch = 1;
    c.lengths.clear();
    c.hidden = 64;
    Check(c);
  }
}
TEST(GruTest, UnitsSplitBetweenThreads) {
  for (int threads : {2, 3}) {
    Case c;
    c.lstm = false;
    c.threads = threads;
    c.linear_before_reset = true;
    c.direction = RNNDirection::BIDIRECTIONAL;
    c.steps = 8;
    c.hidden = 88;
    c.lengths = {8, 2, 5};
    Check(c);
    c.linear_before_reset = false;  // not split: r * h first
    Check(c);
  }
}
TEST(RnnTest, UnitsSplitBetweenThreads) {
  Case c;
  c.lstm = false;
  c.rnn = true;
  c.batch = 2;
  c.steps = 6;
  c.hidden = 96;
  c.lengths = {6, 3};
  Check(c);
}
TEST(GruTest, Forward) {
  Case c;
  c.lstm = false;
  Check(c);
}
TEST(GruTest, LinearBeforeResetBidirectionalLengths) {
  Case c;
  c.lstm = false;
  c.linear_before_reset = true;
  c.direction = RNNDirection::BIDIRECTIONAL;
  c.lengths = {1, 5, 4};
  Check(c);
}
TEST(GruTest, ReverseBatchMajorClip) {
  Case c;
  c.lstm = false;
  c.direction = RNNDirection::REVERSE;
  c.batch_major = true;
  c.clip = 0.5f;
  c.bias = false;
  c.lengths = {2, 0, 5};
  Check(c);
}

TEST(RnnTest, Forward) {
  Case c;
  c.lstm = false;
  c.rnn = true;
  Check(c);
}
TEST(RnnTest, BidirectionalBatchMajorLengthsClip) {
  Case c;
  c.lstm = false;
  c.rnn = true;
  c.direction = RNNDirection::BIDIRECTIONAL;
  c.batch_major = true;
  c.lengths = {4, 0, 5};
  c.clip = 0.8f;
  Check(c);
}

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// One unit, one input, two steps: the equations written out.
TEST(LstmTest, MatchesTheEquations) {
  const float wi = 0.5f, wo = -0.3f, wf = 0.8f, wc = 0.2f;
  const float ri = 0.1f, ro = 0.4f, rf = -0.6f, rc = 0.9f;
  const float bi = 0.05f, bo = -0.1f, bf = 0.3f, bc = 0.0f;
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 1, 1});
  int w = m.AddConst<float>({1, 4, 1}, {wi, wo, wf, wc});
  int r = m.AddConst<float>({1, 4, 1}, {ri, ro, rf, rc});
  int b = m.AddConst<float>({1, 8}, {bi, bo, bf, bc, 0, 0, 0, 0});
  std::vector<int32_t> outs = {m.AddOutput(DataType::kFloat32),
                               m.AddOutput(DataType::kFloat32),
                               m.AddOutput(DataType::kFloat32)};
  m.AddOp(BuiltinOperator::LSTM, {x, w, r, b}, outs,
          m.builder().Lstm(1, RNNDirection::FORWARD));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1.5f, -2.f});
  ASSERT_TRUE(m.Invoke().ok());
  double h = 0, cell = 0;
  std::vector<double> ys;
  for (double xt : {1.5, -2.0}) {
    double i = Sigmoid(wi * xt + ri * h + bi);
    double o = Sigmoid(wo * xt + ro * h + bo);
    double f = Sigmoid(wf * xt + rf * h + bf);
    double g = std::tanh(wc * xt + rc * h + bc);
    cell = f * cell + i * g;
    h = o * std::tanh(cell);
    ys.push_back(h);
  }
  auto y = m.GetOutput<float>(0);
  ASSERT_EQ(y.size(), 2u);
  EXPECT_NEAR(y[0], ys[0], 1e-6);
  EXPECT_NEAR(y[1], ys[1], 1e-6);
  EXPECT_NEAR(m.GetOutput<float>(1)[0], h, 1e-6);
  EXPECT_NEAR(m.GetOutput<float>(2)[0], cell, 1e-6);
}

// Builds a GRU over X [2, 1, 3] with the given W shape and R of shape
// [1, 6, 2]; the Build status.
Status BuildGru(const std::vector<int32_t>& w_shape, int hidden,
                bool w_constant = true) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 1, 3});
  int n = 1;
  for (int d : w_shape) n *= d;
  int w = w_constant ? m.AddConst<float>(w_shape, Random(n, 1))
                     : m.AddInput(DataType::kFloat32, w_shape);
  int r = m.AddConst<float>({1, 6, 2}, Random(12, 2));  // hidden 2
  m.AddOp(BuiltinOperator::GRU, {x, w, r}, {m.AddOutput(DataType::kFloat32)},
          m.builder().Gru(hidden, RNNDirection::FORWARD));
  return m.Build();
}

TEST(GruTest, ErrorsNameTheOperand) {
  EXPECT_TRUE(BuildGru({1, 6, 3}, 2).ok());
  Status st = BuildGru({1, 6, 4}, 2);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(
      std::string(st.message()).find("W has shape [1,6,4]; expected [1, 6, 3]"),
      std::string::npos)
      << st.message();
  st = BuildGru({1, 8, 3}, 2);
  ASSERT_FALSE(st.ok());
  st = BuildGru({1, 6, 3}, 0);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("hidden_size 0"), std::string::npos)
      << st.message();
  st = BuildGru({1, 6, 3}, 2, /*w_constant=*/false);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("W must be a constant"),
            std::string::npos)
      << st.message();
}

TEST(LstmTest, SequenceLengthOutOfRangeIsAnError) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 2, 1});
  int lens = m.AddInput(DataType::kInt64, {2});
  int w = m.AddConst<float>({1, 4, 1}, Random(4, 1));
  int r = m.AddConst<float>({1, 4, 1}, Random(4, 2));
  m.AddOp(BuiltinOperator::LSTM, {x, w, r, -1, lens},
          {m.AddOutput(DataType::kFloat32)},
          m.builder().Lstm(1, RNNDirection::FORWARD));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 2, 3, 4});
  m.SetInput<int64_t>(1, {2, 3});
  Status st = m.Invoke();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("sequence_lens[1] = 3 is outside"),
            std::string::npos)
      << st.message();
  m.SetInput<int64_t>(1, {-1, 0});
  EXPECT_FALSE(m.Invoke().ok());
}

}  // namespace
}  // namespace twl

// The CPU kernel of _TwlRnn (core/ops/converter_ops.cc): ONNX's LSTM, GRU
// and RNN forward over a time-major sequence, one direction, optional
// sequence lengths, the gate and cell activations of its attributes. A
// reference for the converter's graphs (the lite runtime's kernels are the fast
// ones): plain loops over the step's products.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/tensor_size.h"

namespace tensorweave {
namespace {

float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

enum class Activation { kSigmoid, kTanh, kHardSigmoid, kRelu };

Activation ActivationNamed(const std::string& name) {
  return name == "Sigmoid"       ? Activation::kSigmoid
         : name == "Tanh"        ? Activation::kTanh
         : name == "HardSigmoid" ? Activation::kHardSigmoid
                                 : Activation::kRelu;
}

// out[n, g] = sum_k a[n, k] * w[g, k] (+ bias[g]) for n < rows, g < cols.
void TimesTransposed(const float* a, const float* w, const float* bias,
                     int64_t rows, int64_t cols, int64_t depth, float* out) {
  for (int64_t n = 0; n < rows; ++n) {
    for (int64_t g = 0; g < cols; ++g) {
      float sum = bias != nullptr ? bias[g] : 0.0f;
      for (int64_t k = 0; k < depth; ++k)
        sum += a[n * depth + k] * w[g * depth + k];
      out[n * cols + g] = sum;
    }
  }
}

class TwlRnnOp : public OpKernel {
 public:
  explicit TwlRnnOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string kind;
    ctx->SetStatus(ctx->GetAttr("kind", &kind));
    ctx->SetStatus(ctx->GetAttr("hidden_size", &hidden_));
    ctx->SetStatus(ctx->GetAttr("num_states", &num_states_));
    int64_t num_lengths = 0;
    ctx->SetStatus(ctx->GetAttr("num_lengths", &num_lengths));
    has_lengths_ = num_lengths == 1;
    ctx->SetStatus(ctx->GetAttr("linear_before_reset", &linear_before_reset_));
    std::string gate_activation, activation;
    ctx->SetStatus(ctx->GetAttr("gate_activation", &gate_activation));
    ctx->SetStatus(ctx->GetAttr("activation", &activation));
    ctx->SetStatus(ctx->GetAttr("activation_alpha", &alpha_));
    ctx->SetStatus(ctx->GetAttr("activation_beta", &beta_));
    gate_activation_ = ActivationNamed(gate_activation);
    activation_ = ActivationNamed(activation);
    kind_ = kind == "LSTM"  ? Kind::kLstm
            : kind == "GRU" ? Kind::kGru
                            : Kind::kRnn;
    gates_ = kind_ == Kind::kLstm ? 4 : kind_ == Kind::kGru ? 3 : 1;
  }

  float Apply(Activation a, float v) const {
    switch (a) {
      case Activation::kSigmoid:
        return Sigmoid(v);
      case Activation::kTanh:
        return std::tanh(v);
      case Activation::kHardSigmoid:
        return std::min(1.0f, std::max(0.0f, alpha_ * v + beta_));
      case Activation::kRelu:
        break;
    }
    return std::max(0.0f, v);
  }
  float Gate(float v) const { return Apply(gate_activation_, v); }
  float Act(float v) const { return Apply(activation_, v); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& w = ctx->input(1);
    const Tensor& r = ctx->input(2);
    const Tensor& b = ctx->input(3);
    OP_REQUIRES(ctx, x.shape().rank() == 3,
                errors::InvalidArgument("x must be [steps, batch, input], got ",
                                        x.shape().ToString()));
    const int64_t hidden = hidden_, steps = x.shape().dim(0),
                  batch = x.shape().dim(1), depth = x.shape().dim(2);
    // The scratch rows ([batch, gates * hidden]) must be a size that exists.
    int64_t gh, bias_size, scratch;
    OP_REQUIRES(
        ctx,
        MultiplyWithoutOverflow(gates_, hidden, &gh) &&
            MultiplyWithoutOverflow(2, gh, &bias_size) &&
            MultiplyWithoutOverflow(batch, gh, &scratch) &&
            scratch <= (int64_t{1} << 31),
        errors::InvalidArgument("a batch of ", batch, " and hidden_size ",
                                hidden, " are too large"));
    auto expect = [&](const Tensor& t, TensorShape want, const char* what) {
      return t.shape() == want
                 ? Status::OK()
                 : errors::InvalidArgument(what, " must be ", want.ToString(),
                                           ", got ", t.shape().ToString());
    };
    OP_REQUIRES_OK(ctx, expect(w, TensorShape({1, gh, depth}), "w"));
    OP_REQUIRES_OK(ctx, expect(r, TensorShape({1, gh, hidden}), "r"));
    OP_REQUIRES_OK(ctx, expect(b, TensorShape({1, bias_size}), "b"));
    const int num_states = num_states_;
    std::vector<std::vector<float>> state(num_states);
    for (int s = 0; s < num_states; ++s) {
      const Tensor& init = ctx->input(4 + s);
      OP_REQUIRES_OK(ctx, expect(init, TensorShape({1, batch, hidden}),
                                 "an initial state"));
      state[s].assign(init.data<float>(), init.data<float>() + batch * hidden);
    }
    // Each sequence's length: steps past it give zeros and keep the state.
    std::vector<int64_t> length(batch, steps);
    if (has_lengths_) {
      const Tensor& lengths = ctx->input(4 + num_states);
      OP_REQUIRES_OK(ctx,
                     expect(lengths, TensorShape({batch}), "sequence_lengths"));
      for (int64_t n = 0; n < batch; ++n) {
        length[n] = lengths.data<int32_t>()[n];
        OP_REQUIRES(ctx, length[n] >= 0 && length[n] <= steps,
                    errors::InvalidArgument(
                        "sequence_lengths[", n, "] = ", length[n],
                        " is outside [0, ", steps, "] (the steps of x)"));
      }
    }
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({steps, 1, batch, hidden}), &y));
    const float* wb = b.data<float>();
    const float* rb = wb + gh;
    std::vector<float> xg(batch * gh), hg(batch * gh), gated(batch * hidden);
    std::vector<float> reset_state(hidden);  // GRU without linear_before_reset
    std::vector<float>& h = state[0];
    for (int64_t t = 0; t < steps; ++t) {
      TimesTransposed(x.data<float>() + t * batch * depth, w.data<float>(), wb,
                      batch, gh, depth, xg.data());
      TimesTransposed(h.data(), r.data<float>(), rb, batch, gh, hidden,
                      hg.data());
      for (int64_t n = 0; n < batch; ++n) {
        const float* xs = &xg[n * gh];
        const float* hs = &hg[n * gh];
        const float* hn = &h[n * hidden];
        float* out = &gated[n * hidden];
        if (t >= length[n]) {  // past the end: the state kept
          std::copy(hn, hn + hidden, out);
          continue;
        }
        if (kind_ == Kind::kGru && !linear_before_reset_) {  // r * H, once
          for (int64_t k = 0; k < hidden; ++k) {
            reset_state[k] = Gate(xs[hidden + k] + hs[hidden + k]) * hn[k];
          }
        }
        for (int64_t j = 0; j < hidden; ++j) {
          if (kind_ == Kind::kLstm) {  // gates i, o, f, c
            float& c = state[1][n * hidden + j];
            const float i = Gate(xs[j] + hs[j]);
            const float o = Gate(xs[hidden + j] + hs[hidden + j]);
            const float f = Gate(xs[2 * hidden + j] + hs[2 * hidden + j]);
            const float g = Act(xs[3 * hidden + j] + hs[3 * hidden + j]);
            c = f * c + i * g;
            out[j] = o * Act(c);
          } else if (kind_ == Kind::kGru) {  // gates z, r, h
            const float z = Gate(xs[j] + hs[j]);
            float recurrent;             // the candidate's recurrent term
            if (linear_before_reset_) {  // r * (H R_h + Rb_h)
              recurrent =
                  Gate(xs[hidden + j] + hs[hidden + j]) * hs[2 * hidden + j];
            } else {  // (r * H) R_h + Rb_h
              const float* rh = r.data<float>() + (2 * hidden + j) * hidden;
              recurrent = rb[2 * hidden + j];
              for (int64_t k = 0; k < hidden; ++k) {
                recurrent += reset_state[k] * rh[k];
              }
            }
            out[j] = (1 - z) * Act(xs[2 * hidden + j] + recurrent) + z * hn[j];
          } else {
            out[j] = Act(xs[j] + hs[j]);
          }
        }
      }
      h = gated;
      float* y_t = y->data<float>() + t * batch * hidden;
      std::copy(h.begin(), h.end(), y_t);
      for (int64_t n = 0; n < batch; ++n) {
        if (t >= length[n]) std::fill_n(y_t + n * hidden, hidden, 0.0f);
      }
    }
    for (int s = 0; s < num_states; ++s) {
      Tensor* out;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(
                              1 + s, TensorShape({1, batch, hidden}), &out));
      std::copy(state[s].begin(), state[s].end(), out->data<float>());
      for (int64_t n = 0; n < batch; ++n) {  // a length of 0: zeros (ONNX's)
        if (length[n] == 0) {
          std::fill_n(out->data<float>() + n * hidden, hidden, 0.0f);
        }
      }
    }
  }

 private:
  enum class Kind { kLstm, kGru, kRnn };
  Kind kind_ = Kind::kRnn;
  int64_t hidden_ = 0, num_states_ = 1;
  bool has_lengths_ = false;
  int gates_ = 1;
  bool linear_before_reset_ = false;
  Activation gate_activation_ = Activation::kSigmoid;
  Activation activation_ = Activation::kTanh;
  float alpha_ = 0.2f, beta_ = 0.5f;
};

REGISTER_KERNEL(KernelDef("_TwlRnn"), TwlRnnOp);

}  // namespace
}  // namespace tensorweave

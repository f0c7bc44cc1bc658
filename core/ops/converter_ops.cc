// Ops the converters put in a frozen graph for a lite operator that no core
// op expresses (the .twl and ONNX writers infer the graph's shapes through
// the core). Their kernels (core/kernels/converter_ops.cc) are references.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"
#include "core/framework/tensor_size.h"

namespace tensorweave {
namespace {

// x [T, N, I], w [D, G*H, I], r [D, G*H, H], b [D, 2*G*H], num_states
// initial states [D, N, H] and num_lengths (0 or 1) sequence lengths [N];
// y [T, D, N, H] and the final states [D, N, H].
Status TwlRnnShape(InferenceContext* c) {
  int64_t hidden, num_states;
  std::string kind;
  TW_RETURN_IF_ERROR(c->GetAttr("hidden_size", &hidden));
  TW_RETURN_IF_ERROR(c->GetAttr("num_states", &num_states));
  int64_t num_lengths;
  TW_RETURN_IF_ERROR(c->GetAttr("num_lengths", &num_lengths));
  if (num_lengths > 1) {
    return errors::InvalidArgument("num_lengths ", num_lengths,
                                   " must be 0 or 1");
  }
  TW_RETURN_IF_ERROR(c->GetAttr("kind", &kind));
  const int64_t gates = kind == "LSTM" ? 4 : kind == "GRU" ? 3 : 1;
  int64_t gate_rows, bias_size;
  if (!MultiplyWithoutOverflow(gates, hidden, &gate_rows) ||
      !MultiplyWithoutOverflow(2, gate_rows, &bias_size)) {
    return errors::InvalidArgument("hidden_size ", hidden, " is too large");
  }
  if (num_states != (kind == "LSTM" ? 2 : 1)) {
    return errors::InvalidArgument("a ", kind, " has ", kind == "LSTM" ? 2 : 1,
                                   " states, got num_states ", num_states);
  }
  PartialShape x, w, r, b;
  TW_RETURN_IF_ERROR(c->WithRank(0, 3, &x));
  TW_RETURN_IF_ERROR(c->WithRank(1, 3, &w));
  TW_RETURN_IF_ERROR(c->WithRank(2, 3, &r));
  TW_RETURN_IF_ERROR(c->WithRank(3, 2, &b));
  const int64_t directions = w.dim(0);
  auto expect = [&](const PartialShape& s, int dim, int64_t want,
                    const char* what) -> Status {
    if (want >= 0 && s.dim(dim) >= 0 && s.dim(dim) != want) {
      return errors::InvalidArgument(what, " has ", s.dim(dim), " where the ",
                                     kind, " needs ", want);
    }
    return Status::OK();
  };
  TW_RETURN_IF_ERROR(expect(w, 1, gate_rows, "w's dim 1"));
  TW_RETURN_IF_ERROR(expect(w, 2, x.dim(2), "w's dim 2"));
  TW_RETURN_IF_ERROR(expect(r, 1, gate_rows, "r's dim 1"));
  TW_RETURN_IF_ERROR(expect(r, 2, hidden, "r's dim 2"));
  TW_RETURN_IF_ERROR(expect(b, 1, bias_size, "b's dim 1"));
  for (int i = 0; i < num_states; ++i) {
    PartialShape s;
    TW_RETURN_IF_ERROR(c->WithRank(4 + i, 3, &s));
    TW_RETURN_IF_ERROR(expect(s, 2, hidden, "an initial state's dim 2"));
    c->set_output(1 + i, PartialShape({directions, x.dim(1), hidden}));
  }
  if (num_lengths == 1) {
    PartialShape lengths;
    TW_RETURN_IF_ERROR(c->WithRank(4 + num_states, 1, &lengths));
    TW_RETURN_IF_ERROR(
        expect(lengths, 0, x.dim(1), "sequence_lengths' dim 0 (the batch)"));
  }
  c->set_output(0, PartialShape({x.dim(0), directions, x.dim(1), hidden}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("_TwlRnn")
    .Input("x: float")
    .Input("w: float")
    .Input("r: float")
    .Input("b: float")
    .Input("initial_states: num_states * float")
    .Input("sequence_lengths: num_lengths * int32")
    .Output("y: float")
    .Output("final_states: num_states * float")
    .Attr("kind: {'LSTM', 'GRU', 'RNN'}")
    .Attr("hidden_size: int >= 1")
    .Attr("num_states: int >= 1")
    .Attr("num_lengths: int >= 0 = 0")
    .Attr("linear_before_reset: bool = false")
    .Attr(
        "gate_activation: {'Sigmoid', 'Tanh', 'HardSigmoid', 'Relu'} = "
        "'Sigmoid'")
    .Attr("activation: {'Sigmoid', 'Tanh', 'HardSigmoid', 'Relu'} = 'Tanh'")
    .Attr("activation_alpha: float = 0.2")
    .Attr("activation_beta: float = 0.5")
    .SetShapeFn(TwlRnnShape)
    .Doc(
        "A recurrent layer over a time-major sequence with ONNX's LSTM, GRU "
        "or RNN semantics and operand layouts (the .twl LSTM/GRU/RNN "
        "operators): what the converter makes of a Keras recurrent layer's "
        "while loop. With sequence_lengths (each in [0, steps]), a "
        "sequence's steps past its length give zeros in y and leave its "
        "state alone; a length of 0 gives zero final states (ONNX's "
        "sequence_lens). gate_activation is ONNX's f (LSTM and GRU gates), "
        "activation its g and h (the cell, candidate or RNN state); "
        "HardSigmoid is max(0, min(1, activation_alpha * x + "
        "activation_beta)).");

}  // namespace tensorweave

// Ops that order work without computing values, and the primitives of
// dynamic control flow (the paper's section 3.4, after the dataflow machines
// of Arvind et al.): Switch and Merge build conditionals; Enter, Exit,
// NextIteration and LoopCond build loops, each iteration of which runs in a
// frame of its own. An untaken Switch output is *dead*: the executor skips
// the nodes it reaches, and a Merge fires on its first live input.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// A Merge's output: what its inputs' shapes have in common (an unknown
// dimension where they differ, an unknown rank where the ranks do).
Status MergeShape(InferenceContext* c) {
  PartialShape out = c->input(0);
  for (int i = 1; i < c->num_inputs() && out.known_rank(); ++i) {
    const PartialShape& in = c->input(i);
    if (!in.known_rank() || in.rank() != out.rank()) {
      out = PartialShape::UnknownRank();
      break;
    }
    std::vector<int64_t> dims = out.dims();
    for (int d = 0; d < in.rank(); ++d) {
      if (dims[d] != in.dim(d)) dims[d] = -1;
    }
    out = PartialShape(std::move(dims));
  }
  c->set_output(0, out);
  c->set_output(1, PartialShape({}));
  return Status::OK();
}

Status SwitchShape(InferenceContext* c) {
  PartialShape pred;
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &pred));
  c->set_output(0, c->input(0));
  c->set_output(1, c->input(0));
  return Status::OK();
}

// As TensorFlow: a loop variable's shape may change from one iteration to
// the next, so an Enter's output shape is unknown unless it is a loop
// constant; the while loop sets it from the input or the shape invariant.
Status EnterShape(InferenceContext* c) {
  bool is_constant = false;
  TW_RETURN_IF_ERROR(c->GetAttr("is_constant", &is_constant));
  c->set_output(0, is_constant ? c->input(0) : PartialShape::UnknownRank());
  return Status::OK();
}

Status LoopCondShape(InferenceContext* c) {
  PartialShape pred;
  TW_RETURN_IF_ERROR(c->WithRank(0, 0, &pred));
  c->set_output(0, PartialShape({}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("NoOp")
    .SetShapeFn(shape_fns::NoOutputs)
    .Doc("Does nothing; used to group control dependencies.");

REGISTER_OP("ControlTrigger")
    .SetShapeFn(shape_fns::NoOutputs)
    .Doc(
        "Does nothing, and runs even when its inputs are dead: a control "
        "edge from it is never dead.");

REGISTER_OP("Switch")
    .Input("data: T")
    .Input("pred: bool")
    .Output("output_false: T")
    .Output("output_true: T")
    .Attr("T: type")
    .SetShapeFn(SwitchShape)
    .Doc(
        "Forwards `data` to output_true if `pred` is true, else to "
        "output_false; the other output is dead.");

REGISTER_OP("RefSwitch")
    .Input("data: Ref(T)")
    .Input("pred: bool")
    .Output("output_false: Ref(T)")
    .Output("output_true: Ref(T)")
    .Attr("T: type")
    .SetShapeFn(SwitchShape)
    .Doc("Switch for a variable: forwards the reference.");

REGISTER_OP("Merge")
    .Input("inputs: N * T")
    .Output("output: T")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1")
    .SetShapeFn(MergeShape)
    .Doc(
        "Forwards the first of its inputs that is live, and its index; dead "
        "when every input is dead.");

REGISTER_OP("RefMerge")
    .Input("inputs: Ref(N * T)")
    .Output("output: Ref(T)")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1")
    .SetShapeFn(MergeShape)
    .Doc("Merge of variables: forwards the live reference.");

REGISTER_OP("Enter")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("frame_name: string")
    .Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(EnterShape)
    .Doc(
        "Makes `data` available in the child frame `frame_name` (a while "
        "loop): to its first iteration, or to every iteration when "
        "is_constant. At most parallel_iterations iterations run at once.");

REGISTER_OP("RefEnter")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .Attr("frame_name: string")
    .Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(EnterShape)
    .Doc("Enter for a variable: the loop reads and updates the variable.");

REGISTER_OP("Exit")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Leaves a while loop: makes `data` available to the parent frame.");

REGISTER_OP("RefExit")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Exit for a variable.");

REGISTER_OP("NextIteration")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Makes `data` available to the next iteration of its loop.");

REGISTER_OP("RefNextIteration")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("NextIteration for a variable.");

REGISTER_OP("LoopCond")
    .Input("input: bool")
    .Output("output: bool")
    .SetShapeFn(LoopCondShape)
    .Doc(
        "Forwards the loop's predicate: whether another iteration runs "
        "(its Switches take it as their pred).");

}  // namespace tensorweave

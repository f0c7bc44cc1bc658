// Remapping: MatMul + BiasAdd (+ Relu, Relu6, Elu, Tanh or Sigmoid) becomes
// one _FusedMatMul, Conv2D + BiasAdd (+ the same) one _FusedConv2D, with
// TensorFlow's op names and fused_ops attr; the fused kernels add the bias
// and apply the activation while writing the product. A node is absorbed
// only when nothing else reads its value (not fetched, one consumer): in a
// training graph whose activation gradient reads the BiasAdd output, only
// the product and the bias are fused. The fused node takes the name of the
// last node it replaces, so consumers and fetches of that value are
// unchanged.
#include "core/framework/op_def.h"
#include "core/framework/op_kernel.h"
#include "core/runtime/optimizers/graph_editor.h"

namespace tensorweave {
namespace optimizers {
namespace {

bool IsActivation(const std::string& op) {
  return op == "Relu" || op == "Relu6" || op == "Elu" || op == "Tanh" ||
         op == "Sigmoid";
}

// `node`'s output 0 is read by exactly one data edge, by nothing through a
// control edge that cannot move, and is neither fetched nor fed.
const Node* SoleConsumer(const PassContext& ctx, const Node* node) {
  if (!ctx.may_remove(node) || node->out_edges().size() != 1 ||
      node->num_outputs() != 1) {
    return nullptr;
  }
  return node->out_edges()[0].dst;
}

bool FloatType(const Node* node) {
  const DataType t = node->output_type(0);
  return t == DT_FLOAT || t == DT_DOUBLE;
}

std::string DataFormat(const Node* node) {
  std::string format = "NHWC";
  (void)GetAttr(node->attrs(), "data_format", &format);
  return format;
}

}  // namespace

int FuseBiasAndActivation(const PassContext& ctx, GraphEditor* editor) {
  const Graph& graph = ctx.graph();
  const bool have_matmul =
      KernelRegistry::Global()->HasKernel("_FusedMatMul", ctx.device_type());
  const bool have_conv =
      KernelRegistry::Global()->HasKernel("_FusedConv2D", ctx.device_type());
  int count = 0;
  for (int id = 0; id < graph.num_nodes(); ++id) {
    const Node* base = graph.node(id);
    const std::string& op = base->type_string();
    const bool matmul = op == "MatMul" && have_matmul;
    const bool conv = op == "Conv2D" && have_conv && DataFormat(base) == "NHWC";
    if (!(matmul || conv) || !FloatType(base) || editor->removed(base)) {
      continue;
    }
    const Node* bias = SoleConsumer(ctx, base);
    if (bias == nullptr || bias->type_string() != "BiasAdd" ||
        bias->out_edges().empty() || bias->input(0).node != base ||
        !ctx.may_rewrite(bias) || ctx.is_fed(bias, 0) ||
        DataFormat(bias) != "NHWC") {
      continue;
    }
    const Node* activation = SoleConsumer(ctx, bias);
    if (activation != nullptr &&
        (!IsActivation(activation->type_string()) ||
         !ctx.may_rewrite(activation) || activation->num_inputs() != 1)) {
      activation = nullptr;
    }
    const Node* last = activation != nullptr ? activation : bias;
    NodeDef fused;
    fused.set_name(last->name());
    fused.set_op(matmul ? "_FusedMatMul" : "_FusedConv2D");
    fused.set_device(last->device());
    for (int i = 0; i < 2; ++i) {
      const Endpoint& in = base->input(i);
      fused.add_input(TensorName(in.node->name(), in.index));
    }
    const Endpoint& b = bias->input(1);
    fused.add_input(TensorName(b.node->name(), b.index));
    auto& attrs = *fused.mutable_attr();
    // Only the attrs the fused op declares (a MatMul's grad_a/grad_b, say,
    // are not _FusedMatMul's: copied, the rewritten graph would not import).
    const OpDef* fused_def = OpRegistry::Global()->Find(fused.op());
    for (const auto& [name, value] : base->attrs()) {
      if (name == "_class") continue;
      if (fused_def != nullptr && name[0] != '_' &&
          fused_def->FindAttr(name) == nullptr) {
        continue;
      }
      attrs[name] = value;
    }
    attrs.erase("use_cudnn_on_gpu");
    if (conv) {
      attrs["use_cudnn_on_gpu"].set_b(true);
      attrs["explicit_paddings"].mutable_list();
    }
    attrs["num_args"].set_i(1);
    attrs["epsilon"].set_f(0.0001f);
    auto* ops = attrs["fused_ops"].mutable_list();
    ops->add_s("BiasAdd");
    if (activation != nullptr) ops->add_s(activation->type_string());
    std::vector<const Node*> parts = {base, bias};
    if (activation != nullptr) parts.push_back(activation);
    for (const Node* part : parts) {
      for (const std::string& c : ControlNames(part)) fused.add_input("^" + c);
    }
    *editor->Rewrite(last) = fused;
    for (const Node* part : parts) {
      if (part == last) continue;
      editor->ForwardControl(part, {last->name()});
      editor->Remove(part);
    }
    ++count;
  }
  return count;
}

}  // namespace optimizers
}  // namespace tensorweave

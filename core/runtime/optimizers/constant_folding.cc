// Constant folding: a node whose data inputs are all constants is run once,
// here, with the CPU kernels, and replaced by Const nodes holding its
// outputs; Shape, Size and Rank of statically known shapes become Const
// too. A node keeps its control inputs (and those of the constants it read),
// so that what it waited for still runs first. Not folded: stateful ops
// (variables, random ops, queues), control flow, fed tensors, nodes with
// reference inputs or outputs, values over max_constant_bytes, and nodes
// whose kernel fails here (the step reports that error when it runs them).
#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>

#include "core/framework/op_kernel.h"
#include "core/framework/resource.h"
#include "core/runtime/executor.h"
#include "core/runtime/optimizers/graph_editor.h"

namespace tensorweave {
namespace optimizers {
namespace {

bool NeverFold(const Node* node) {
  static const std::set<std::string>* ops = new std::set<std::string>{
      "Const",         "Placeholder",  "PlaceholderWithDefault",
      "PlaceholderV2", "_Send",        "_Recv",
      "_HostSend",     "_HostRecv",    "_Arg",
      "_Retval",       "VariableV2",   "Variable",
      "_FusedMatMul",  "_FusedConv2D", "Snapshot"};
  // A dataset op's output is a handle that owns its dataset only while the
  // step runs (core/data/dataset.h): never a constant.
  return node->is_stateful() || ops->count(node->type_string()) > 0 ||
         IsControlFlowOp(node->type_string()) ||
         node->type_string().find("Dataset") != std::string::npos;
}

// Runs `node` on `inputs` with the CPU kernels; its outputs in `outputs`.
Status Evaluate(const Node& node, const std::vector<Tensor>& inputs,
                ThreadPool* pool, std::vector<Tensor>* outputs) {
  if (!KernelRegistry::Global()->HasKernel(node.type_string(), DEVICE_CPU)) {
    return errors::Unimplemented("no CPU kernel");
  }
  GraphDef def;
  NodeDef copy = node.def();
  copy.clear_input();
  copy.clear_device();
  copy.set_name("folded");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "input_" + std::to_string(i);
    *def.add_node() = MakeConst(name, inputs[i], "");
    copy.add_input(name);
  }
  *def.add_node() = copy;
  Graph graph;
  std::vector<Node*> added;
  TW_RETURN_IF_ERROR(graph.ImportGraphDef(def, ImportOptions(), &added));
  ExecutorSpec spec;
  Node* folded = graph.FindNode("folded");
  for (int i = 0; i < folded->num_outputs(); ++i) {
    spec.fetches.push_back({folded, i});
  }
  std::unordered_map<int, std::unique_ptr<OpKernel>> kernels;
  std::unique_ptr<Executor> executor;
  TW_RETURN_IF_ERROR(Executor::Create(
      graph, spec,
      [&](const Node* n, OpKernel** kernel) {
        auto& slot = kernels[n->id()];
        TW_RETURN_IF_ERROR(
            KernelRegistry::Global()->CreateKernel(*n, DEVICE_CPU, &slot));
        if (slot->AsAsync() != nullptr) {
          return errors::Unimplemented("asynchronous kernel");
        }
        *kernel = slot.get();
        return Status::OK();
      },
      &executor));
  ResourceMgr resources;
  StepContext step;
  step.resource_mgr = &resources;
  step.inter_op_pool = pool;
  return executor->Run(step, {}, outputs);
}

// The value of Shape / Size / Rank of a statically known shape.
bool MaterializeShape(const Node* node, Tensor* value) {
  const std::string& op = node->type_string();
  if (op != "Shape" && op != "Size" && op != "Rank") return false;
  if (node->num_inputs() != 1 || node->input_is_ref(0)) return false;
  const PartialShape& shape =
      node->input(0).node->output_shape(node->input(0).index);
  if (!shape.known_rank()) return false;
  const DataType dtype = node->output_type(0);
  if (dtype != DT_INT32 && dtype != DT_INT64) return false;
  std::vector<int64_t> values;
  if (op == "Rank") {
    values.push_back(shape.rank());
  } else {
    if (!shape.IsFullyDefined()) return false;
    if (op == "Shape") {
      values = shape.dims();
    } else {
      values.push_back(shape.num_elements());
    }
  }
  TensorShape out_shape;
  if (op == "Shape") out_shape.AddDim(static_cast<int64_t>(values.size()));
  *value = Tensor(dtype, out_shape);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DT_INT32) {
      if (values[i] > INT32_MAX) return false;
      value->data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    } else {
      value->data<int64_t>()[i] = values[i];
    }
  }
  return true;
}

}  // namespace

int FoldConstants(const PassContext& ctx, GraphEditor* editor) {
  const Graph& graph = ctx.graph();
  const int n = graph.num_nodes();
  // Per node: its folded outputs, and the control inputs a replacement must
  // keep (its own and those of the constants it read, transitively).
  std::vector<std::vector<Tensor>> values(n);
  std::vector<std::vector<std::string>> controls(n);
  std::vector<bool> materialized(n, false);
  int folded = 0;
  for (int id = 0; id < n; ++id) {
    const Node* node = graph.node(id);
    controls[id] = ControlNames(node);
    if (node->type_string() == "Const") continue;
    if (!ctx.may_rewrite(node) || NeverFold(node) || ctx.has_ref(node)) {
      continue;
    }
    Tensor shape_value;
    if (MaterializeShape(node, &shape_value)) {
      // The input still runs first (as TF keeps it): an error it reports is
      // not lost. (A fed input is there from the start; a control edge on
      // its node would run it.)
      if (!ctx.has_fed_output(node->input(0).node)) {
        controls[id].push_back(node->input(0).node->name());
      }
      values[id].push_back(shape_value);
      materialized[id] = true;
      continue;
    }
    if (node->num_inputs() == 0) continue;
    std::vector<Tensor> inputs;
    std::vector<std::string> input_controls = controls[id];
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Endpoint& src = node->input(i);
      const int src_id = src.node->id();
      const Tensor* c = ctx.constant(src);
      if (c != nullptr) {
        inputs.push_back(*c);
      } else if (!values[src_id].empty() && !ctx.is_fed(src.node, src.index)) {
        inputs.push_back(values[src_id][src.index]);
      } else {
        break;
      }
      for (const std::string& name : controls[src_id]) {
        input_controls.push_back(name);
      }
    }
    if (static_cast<int>(inputs.size()) != node->num_inputs()) continue;
    std::vector<Tensor> outputs;
    if (!Evaluate(*node, inputs, ctx.pool(), &outputs).ok()) continue;
    bool small = true;
    for (const Tensor& t : outputs) {
      small = small && static_cast<int64_t>(t.num_bytes()) <=
                           ctx.options().max_constant_bytes;
    }
    if (!small) continue;
    values[id] = std::move(outputs);
    // Without duplicates: the lists merge along every path of the folded
    // subgraph, which would otherwise grow exponentially with its depth.
    std::sort(input_controls.begin(), input_controls.end());
    input_controls.erase(
        std::unique(input_controls.begin(), input_controls.end()),
        input_controls.end());
    controls[id] = std::move(input_controls);
  }
  for (int id = 0; id < n; ++id) {
    const Node* node = graph.node(id);
    if (values[id].empty()) continue;
    if (node->num_outputs() == 1) {
      NodeDef* def = editor->Rewrite(node);
      NodeDef replacement =
          MakeConst(node->name(), values[id][0], def->device());
      for (const std::string& c : controls[id]) replacement.add_input("^" + c);
      *def = std::move(replacement);
      ++folded;
    } else if (ctx.may_remove(node)) {
      std::vector<std::string> names;
      for (int i = 0; i < node->num_outputs(); ++i) {
        NodeDef c = MakeConst(node->name() + "/folded_" + std::to_string(i),
                              values[id][i], node->device());
        for (const std::string& name : controls[id]) c.add_input("^" + name);
        names.push_back(editor->Add(std::move(c)));
        editor->Forward(node, i, names.back());
      }
      editor->ForwardControl(node, names);
      editor->Remove(node);
      ++folded;
    }
  }
  return folded;
}

}  // namespace optimizers
}  // namespace tensorweave

#include "core/runtime/graph_optimizer.h"

#include <set>

#include "core/runtime/optimizers/graph_editor.h"

namespace tensorweave {

bool IsControlFlowOp(const std::string& op) {
  static const std::set<std::string>* ops = new std::set<std::string>{
      "Switch",        "RefSwitch",        "Merge",    "RefMerge",
      "Enter",         "RefEnter",         "Exit",     "RefExit",
      "NextIteration", "RefNextIteration", "LoopCond", "ControlTrigger"};
  return ops->count(op) > 0;
}

namespace {

using optimizers::GraphEditor;
using optimizers::PassContext;
using optimizers::TensorName;

// The step's nodes as a GraphDef of their own. A fed tensor whose node the
// step does not run becomes a Placeholder (named as the node for output 0,
// else "<node>/fed_<index>"), so that nothing upstream of a feed is kept.
// `names` maps each fed tensor to its name in the result.
void StepGraphDef(const Graph& graph, const ExecutorSpec& spec, GraphDef* def,
                  std::map<std::string, std::string>* names) {
  const std::vector<bool> needed = NodesNeeded(graph, spec);
  std::set<std::string> taken;
  for (int id = 0; id < graph.num_nodes(); ++id) {
    if (needed[id]) taken.insert(graph.node(id)->name());
  }
  for (const Endpoint& e : spec.feeds) {
    const std::string tensor = TensorName(e.node->name(), e.index);
    if (names->count(tensor) > 0) continue;
    if (needed[e.node->id()]) {
      (*names)[tensor] = tensor;
      continue;
    }
    std::string name = e.index == 0
                           ? e.node->name()
                           : e.node->name() + "/fed_" + std::to_string(e.index);
    for (int k = 1; taken.count(name) > 0; ++k) {
      name = e.node->name() + "/fed_" + std::to_string(e.index) + "_" +
             std::to_string(k);
    }
    taken.insert(name);
    NodeDef* ph = def->add_node();
    ph->set_name(name);
    ph->set_op("Placeholder");
    ph->set_device(e.node->device());
    (*ph->mutable_attr())["dtype"].set_type(e.node->output_type(e.index));
    e.node->output_shape(e.index).ToProto(
        (*ph->mutable_attr())["shape"].mutable_shape());
    (*names)[tensor] = name;
  }
  for (int id = 0; id < graph.num_nodes(); ++id) {
    if (!needed[id]) continue;
    const Node* node = graph.node(id);
    NodeDef* copy = def->add_node();
    *copy = node->def();
    copy->clear_input();
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Endpoint& src = node->input(i);
      const std::string tensor = TensorName(src.node->name(), src.index);
      auto fed = names->find(tensor);
      copy->add_input(fed != names->end() ? fed->second : tensor);
    }
    for (const Node* c : node->control_inputs()) {
      copy->add_input("^" + c->name());
    }
  }
}

Status Import(const GraphDef& def, std::unique_ptr<Graph>* graph) {
  *graph = std::make_unique<Graph>();
  std::vector<Node*> added;
  return (*graph)->ImportGraphDef(def, ImportOptions(), &added);
}

}  // namespace

Status OptimizeGraph(const Graph& graph, const ExecutorSpec& spec,
                     const GraphOptimizerOptions& options,
                     const std::string& device_type, ThreadPool* pool,
                     OptimizedGraph* out) {
  GraphDef def;
  std::map<std::string, std::string> fed_names;
  StepGraphDef(graph, spec, &def, &fed_names);
  // What every pass keeps: fed, fetched and targeted nodes.
  std::set<std::string> keep, fed;
  for (const auto& [original, name] : fed_names) {
    fed.insert(name);
    std::string node;
    int index;
    optimizers::ParseTensor(name, &node, &index);
    keep.insert(node);
    out->rewritten.insert(node);  // a Placeholder stand-in, or kept as is
  }
  std::vector<std::string> fetches;
  for (const Endpoint& e : spec.fetches) {
    const std::string tensor = TensorName(e.node->name(), e.index);
    auto it = fed_names.find(tensor);
    fetches.push_back(it != fed_names.end() ? it->second : tensor);
    std::string node;
    int index;
    optimizers::ParseTensor(fetches.back(), &node, &index);
    keep.insert(node);
  }
  for (const Node* target : spec.targets) keep.insert(target->name());
  // Stand-ins are new nodes; a fed node the step also runs is the graph's.
  for (const Endpoint& e : spec.feeds) {
    if (fed_names[TensorName(e.node->name(), e.index)] ==
        TensorName(e.node->name(), e.index)) {
      out->rewritten.erase(e.node->name());
    }
  }

  using Pass = int (*)(const PassContext&, GraphEditor*);
  struct Step {
    const char* name;
    bool enabled;
    Pass pass;
  };
  const std::vector<Step> round = {
      {"constant_folding", options.constant_folding, optimizers::FoldConstants},
      {"arithmetic_optimization", options.arithmetic_optimization,
       optimizers::SimplifyArithmetic},
      {"common_subexpression_elimination",
       options.common_subexpression_elimination,
       optimizers::EliminateCommonSubexpressions},
      {"dependency_optimization", options.dependency_optimization,
       optimizers::RemoveIdentityAndNoOps},
  };
  std::vector<Step> steps = round;  // two rounds, as TF's meta optimizer
  steps.insert(steps.end(), round.begin(), round.end());
  steps.push_back(
      {"remapping", options.remapping, optimizers::FuseBiasAndActivation});
  std::unique_ptr<Graph> current;
  TW_RETURN_IF_ERROR(Import(def, &current));
  for (const Step& step : steps) {
    if (!step.enabled) continue;
    PassContext ctx(*current, keep, fed, options, device_type, pool);
    GraphEditor editor(*current);
    const int count = step.pass(ctx, &editor);
    out->counts[step.name] += count;
    if (count == 0) continue;
    GraphDef next;
    TW_RETURN_IF_ERROR(
        editor.Finish(keep, options.model_pruning, &next, &out->rewritten));
    std::unique_ptr<Graph> imported;
    Status s = Import(next, &imported);
    if (!s.ok()) {
      return errors::Internal(
          "graph optimization (", step.name,
          ") made a graph that does not import: ", s.message());
    }
    current = std::move(imported);
  }
  out->graph = std::move(current);
  out->spec = ExecutorSpec();
  for (const Endpoint& e : spec.feeds) {
    Endpoint mapped;
    TW_RETURN_IF_ERROR(out->graph->ParseTensorName(
        fed_names[TensorName(e.node->name(), e.index)], &mapped));
    out->spec.feeds.push_back(mapped);
  }
  for (const std::string& name : fetches) {
    Endpoint mapped;
    TW_RETURN_IF_ERROR(out->graph->ParseTensorName(name, &mapped));
    out->spec.fetches.push_back(mapped);
  }
  for (const Node* target : spec.targets) {
    Node* mapped = out->graph->FindNode(target->name());
    if (mapped == nullptr) {
      return errors::Internal("graph optimization lost the target '",
                              target->name(), "'");
    }
    out->spec.targets.push_back(mapped);
  }
  return Status::OK();
}

}  // namespace tensorweave

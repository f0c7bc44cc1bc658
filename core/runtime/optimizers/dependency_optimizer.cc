// Common-subexpression elimination and the removal of Identity and NoOp
// nodes.
//
// CSE: two nodes with the same op, data inputs (in order), control inputs
// (as a set), attrs and device compute the same values; the later one is
// dropped and its consumers read the first. Never merged: stateful ops
// (two RandomUniform nodes draw different numbers), placeholders, fed or
// frozen nodes, nodes with reference inputs or outputs.
//
// Identity (not of a reference: reading a variable snapshots it) and NoOp
// nodes that no step keeps are bypassed: consumers of an Identity read its
// input and wait for its control inputs; nodes that waited for either wait
// for what it waited for. A NoOp is removed only when that does not add
// edges (fan-in times fan-out at most fan-in plus fan-out), as TF's
// dependency optimizer.
#include <algorithm>
#include <map>

#include "core/runtime/optimizers/graph_editor.h"

namespace tensorweave {
namespace optimizers {
namespace {

std::string AttrKey(const Node* node) {
  std::map<std::string, std::string> sorted;
  for (const auto& [name, value] : node->attrs()) {
    sorted[name] = value.SerializeAsString();
  }
  std::string key;
  for (const auto& [name, value] : sorted) {
    key += name + "=" + std::to_string(value.size()) + ":" + value + ";";
  }
  return key;
}

bool NeverMerge(const PassContext& ctx, const Node* node) {
  const std::string& op = node->type_string();
  return node->is_stateful() || op == "Placeholder" ||
         op == "PlaceholderWithDefault" || op == "_Recv" || op == "_Send" ||
         op == "NoOp" || IsControlFlowOp(op) || ctx.has_ref(node) ||
         !ctx.may_rewrite(node);
}

}  // namespace

int EliminateCommonSubexpressions(const PassContext& ctx, GraphEditor* editor) {
  const Graph& graph = ctx.graph();
  std::vector<int> representative(graph.num_nodes());
  std::map<std::string, const Node*> seen;
  int merged = 0;
  for (int id = 0; id < graph.num_nodes(); ++id) {
    const Node* node = graph.node(id);
    representative[id] = id;
    if (NeverMerge(ctx, node)) continue;
    std::string key = node->type_string() + "|" + node->device() + "|";
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Endpoint& src = node->input(i);
      key += std::to_string(representative[src.node->id()]) + ":" +
             std::to_string(src.index) + ",";
    }
    std::vector<int> controls;
    for (const Node* c : node->control_inputs()) {
      controls.push_back(representative[c->id()]);
    }
    std::sort(controls.begin(), controls.end());
    controls.erase(std::unique(controls.begin(), controls.end()),
                   controls.end());
    key += "|";
    for (int c : controls) key += std::to_string(c) + ",";
    key += "|" + AttrKey(node);
    auto [it, inserted] = seen.emplace(key, node);
    if (inserted) continue;
    const Node* first = it->second;
    if (!ctx.may_remove(node)) {
      // A kept duplicate stays; a later duplicate merges into it instead.
      continue;
    }
    for (int i = 0; i < node->num_outputs(); ++i) {
      editor->Forward(node, i, TensorName(first->name(), i));
    }
    editor->ForwardControl(node, {first->name()});
    editor->Remove(node);
    representative[id] = first->id();
    ++merged;
  }
  return merged;
}

int RemoveIdentityAndNoOps(const PassContext& ctx, GraphEditor* editor) {
  const Graph& graph = ctx.graph();
  int removed = 0;
  for (int id = 0; id < graph.num_nodes(); ++id) {
    const Node* node = graph.node(id);
    if (!ctx.may_remove(node) || ctx.has_ref(node)) continue;
    const std::string& op = node->type_string();
    std::vector<std::string> controls = ControlNames(node);
    if (op == "Identity" && node->num_inputs() == 1) {
      const Endpoint& src = node->input(0);
      editor->Forward(node, 0, TensorName(src.node->name(), src.index),
                      controls);
      // A fed node must not become a control input (it would then run).
      if (!ctx.has_fed_output(src.node)) controls.push_back(src.node->name());
      editor->ForwardControl(node, controls);
      editor->Remove(node);
      ++removed;
    } else if (op == "NoOp") {
      const size_t fan_in = controls.size();
      const size_t fan_out = node->control_outputs().size();
      if (fan_in * fan_out > fan_in + fan_out) continue;
      editor->ForwardControl(node, controls);
      editor->Remove(node);
      ++removed;
    }
  }
  return removed;
}

}  // namespace optimizers
}  // namespace tensorweave

// What the optimization passes share: a read-only view of the step's graph
// with what each node may undergo (PassContext), and a GraphEditor that
// records the rewrites and writes the rewritten GraphDef. A Graph only grows,
// so each pass reads one imported Graph and writes a GraphDef that the
// driver imports again for the next pass (which so sees fresh shapes).
#ifndef TENSORWEAVE_CORE_RUNTIME_OPTIMIZERS_GRAPH_EDITOR_H_
#define TENSORWEAVE_CORE_RUNTIME_OPTIMIZERS_GRAPH_EDITOR_H_

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/framework/graph.h"
#include "core/runtime/graph_optimizer.h"

namespace tensorweave {
namespace optimizers {

// "x:0" -> ("x", 0), "x" -> ("x", 0); false for "^x" or a malformed name.
bool ParseTensor(const std::string& tensor, std::string* node, int* index);
std::string TensorName(const std::string& node, int index);  // "x", "x:1"

class PassContext {
 public:
  // `keep`: nodes a step fetches, targets or feeds (by name); `fed`: the fed
  // tensors ("x:0").
  PassContext(const Graph& graph, const std::set<std::string>& keep,
              const std::set<std::string>& fed,
              const GraphOptimizerOptions& options,
              const std::string& device_type, ThreadPool* pool);

  const Graph& graph() const { return graph_; }
  const GraphOptimizerOptions& options() const { return options_; }
  const std::string& device_type() const { return device_type_; }
  ThreadPool* pool() const { return pool_; }

  bool is_fed(const Node* node, int index) const;
  bool has_fed_output(const Node* node) const;
  // Fetched, targeted or fed: keeps its name, op and outputs.
  bool is_kept(const Node* node) const { return kept_[node->id()]; }
  // A control-flow op or downstream of one: left exactly as it is.
  bool is_frozen(const Node* node) const { return frozen_[node->id()]; }
  // May be rewritten in place (same name and outputs).
  bool may_rewrite(const Node* node) const {
    return !frozen_[node->id()] && !has_fed_output(node);
  }
  // May disappear (its consumers re-pointed): not kept, not frozen, no
  // frozen consumer.
  bool may_remove(const Node* node) const {
    return !kept_[node->id()] && !frozen_[node->id()] &&
           !frozen_consumer_[node->id()] && !has_fed_output(node);
  }
  // The value of a Const node whose output is not fed; null otherwise.
  const Tensor* constant(const Endpoint& e) const;
  // Data edges out of `node` (from any output).
  int num_data_consumers(const Node* node) const {
    return static_cast<int>(node->out_edges().size());
  }
  // Reads or produces a reference (a variable): reading one snapshots it,
  // so such a node is never merged, folded or bypassed.
  bool has_ref(const Node* node) const;

 private:
  const Graph& graph_;
  const GraphOptimizerOptions& options_;
  std::string device_type_;
  ThreadPool* pool_;
  std::set<std::string> fed_;
  std::vector<bool> kept_, frozen_, frozen_consumer_, fed_node_;
};

class GraphEditor {
 public:
  explicit GraphEditor(const Graph& graph);

  // The node's definition, to change in place (it keeps its name); the node
  // then gets a kernel of its own.
  NodeDef* Rewrite(const Node* node);
  // Drops the node; the caller forwards its outputs and control edges.
  void Remove(const Node* node);
  bool removed(const Node* node) const { return removed_[node->id()]; }
  // Consumers of node:index read `tensor` instead and also wait for the
  // nodes `controls`.
  void Forward(const Node* node, int index, const std::string& tensor,
               const std::vector<std::string>& controls = {});
  // Nodes that waited for `node` wait for `nodes` instead.
  void ForwardControl(const Node* node, const std::vector<std::string>& nodes);
  // Adds a node (its name made unique from def.name()); returns the name.
  std::string Add(NodeDef def);

  // The rewritten graph: without removed nodes, with consumers re-pointed;
  // with `prune`, only what `roots` (node names) need. Adds the names of the
  // created or changed nodes to `rewritten`.
  Status Finish(const std::set<std::string>& roots, bool prune, GraphDef* out,
                std::set<std::string>* rewritten);

 private:
  void ResolveControl(const std::string& name, int depth,
                      std::vector<std::string>* out) const;
  std::string ResolveTensor(const std::string& tensor,
                            std::vector<std::string>* controls) const;

  const Graph& graph_;
  std::vector<NodeDef> defs_;  // by node id
  std::vector<bool> removed_;
  std::vector<NodeDef> added_;
  std::set<std::string> names_;
  std::set<std::string> rewritten_;
  std::map<std::string, std::pair<std::string, std::vector<std::string>>>
      data_forward_;
  std::map<std::string, std::vector<std::string>> control_forward_;
};

// The control inputs of `node`, by name.
std::vector<std::string> ControlNames(const Node* node);

// A Const NodeDef holding `value`.
NodeDef MakeConst(const std::string& name, const Tensor& value,
                  const std::string& device);

// The passes: each returns how many rewrites it made.
int FoldConstants(const PassContext& ctx, GraphEditor* editor);
int SimplifyArithmetic(const PassContext& ctx, GraphEditor* editor);
int EliminateCommonSubexpressions(const PassContext& ctx, GraphEditor* editor);
int RemoveIdentityAndNoOps(const PassContext& ctx, GraphEditor* editor);
int FuseBiasAndActivation(const PassContext& ctx, GraphEditor* editor);

}  // namespace optimizers
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_RUNTIME_OPTIMIZERS_GRAPH_EDITOR_H_

// Graph optimization before execution (the paper's "common subexpression
// elimination, constant folding" and TensorFlow's Grappler passes that
// matter most on one device): the session hands over the pruned nodes of a
// step and gets back a smaller graph that computes the same fetches.
//
// Passes, each switchable (GraphOptimizerOptions), run in this order:
//   constant folding   nodes whose data inputs are all constants (and Shape,
//                      Size, Rank of statically known shapes) are evaluated
//                      once with the CPU kernels and become Const nodes;
//   arithmetic         x*1, 1*x, x+0, 0+x, x-0, x/1 (only where the static
//                      shapes prove the result has x's shape and dtype),
//                      Transpose of Transpose with inverse perms, Reshape of
//                      Reshape, ExpandDims/Squeeze pairs;
//   CSE                nodes with the same op, inputs, control inputs, attrs
//                      and device are merged (never stateful ones);
//   dependency         Identity and NoOp nodes are bypassed (a removed
//                      node's control inputs move to its consumers);
//   remapping          MatMul + BiasAdd (+ activation) -> _FusedMatMul,
//                      Conv2D + BiasAdd (+ activation) -> _FusedConv2D, when
//                      the intermediate values are used nowhere else;
//   model pruning      nodes no fetch or target needs any more are dropped.
// Never touched: stateful ops, fed tensors (never treated as constants),
// nodes a step fetches or targets (they keep their names and outputs), and
// the control-flow ops (Switch, Merge, Enter, Exit, NextIteration, LoopCond,
// ControlTrigger and their Ref forms) together with every node that has one
// of them among its transitive inputs, data or control.
#ifndef TENSORWEAVE_CORE_RUNTIME_GRAPH_OPTIMIZER_H_
#define TENSORWEAVE_CORE_RUNTIME_GRAPH_OPTIMIZER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "core/framework/graph.h"
#include "core/runtime/executor.h"

namespace tensorweave {

class ThreadPool;

struct GraphOptimizerOptions {
  bool constant_folding = true;
  bool arithmetic_optimization = true;
  bool common_subexpression_elimination = true;
  bool dependency_optimization = true;
  bool remapping = true;
  bool model_pruning = true;
  // A folded value larger than this stays computed at run time (TF's
  // max_folded_constant_in_bytes; its default 10 MB).
  int64_t max_constant_bytes = int64_t{10} << 20;

  bool any() const {
    return constant_folding || arithmetic_optimization ||
           common_subexpression_elimination || dependency_optimization ||
           remapping || model_pruning;
  }
};

// The result: a graph of its own, the step's spec resolved in it, and the
// names of the nodes the passes created or changed (they need kernels of
// their own; every other node is a node of the input graph, unchanged).
struct OptimizedGraph {
  std::unique_ptr<Graph> graph;
  ExecutorSpec spec;
  std::set<std::string> rewritten;
  // How often each pass fired ("constant_folding" -> nodes folded, ...).
  std::map<std::string, int> counts;
};

// Optimizes the nodes `spec` needs in `graph` (NodesNeeded) for a step run
// on `device_type` (fusions only where that device has the fused kernel).
// Constant folding runs kernels on the CPU with `pool` (may be null).
Status OptimizeGraph(const Graph& graph, const ExecutorSpec& spec,
                     const GraphOptimizerOptions& options,
                     const std::string& device_type, ThreadPool* pool,
                     OptimizedGraph* out);

// True for the control-flow ops the passes leave alone.
bool IsControlFlowOp(const std::string& op);

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_RUNTIME_GRAPH_OPTIMIZER_H_

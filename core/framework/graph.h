// Graph: nodes (operations) and the data and control edges between them.
// A graph only grows: nodes are never removed or changed once added, so
// sessions may run a graph while more nodes are added to it.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_GRAPH_H_
#define TENSORWEAVE_CORE_FRAMEWORK_GRAPH_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/framework/attr_value.h"
#include "core/framework/graph.pb.h"
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"
#include "core/framework/tensor.h"
#include "core/framework/tensor_shape.h"

namespace tensorweave {

class Node;

// One output of a node: node->name() + ":" + index.
struct Endpoint {
  Node* node = nullptr;
  int index = 0;
  std::string ToString() const;
};

// A data edge from `src` output `src_output` to `dst` input `dst_input`.
struct Edge {
  Node* src;
  int src_output;
  Node* dst;
  int dst_input;
};

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return def_.name(); }
  const std::string& type_string() const { return def_.op(); }
  const std::string& device() const { return def_.device(); }
  const OpDef& op_def() const { return *op_def_; }
  const NodeDef& def() const { return def_; }
  const AttrMap& attrs() const { return def_.attr(); }
  bool is_stateful() const { return op_def_->is_stateful; }

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const Endpoint& input(int i) const { return inputs_[i]; }
  DataType input_type(int i) const { return input_types_[i]; }
  bool input_is_ref(int i) const { return input_is_ref_[i]; }
  const std::vector<Node*>& control_inputs() const { return control_inputs_; }

  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType output_type(int i) const { return output_types_[i]; }
  bool output_is_ref(int i) const { return output_is_ref_[i]; }
  const PartialShape& output_shape(int i) const { return output_shapes_[i]; }
  // Data edges out of this node, in the order they were added.
  const std::vector<Edge>& out_edges() const { return out_edges_; }
  const std::vector<Node*>& control_outputs() const { return control_outputs_; }

  // The value of a Const node; null for other ops.
  const Tensor* constant_value() const {
    return constant_.valid() ? &constant_ : nullptr;
  }
  // What graph construction knows of output i's value when it is a small
  // int32/int64 scalar or vector (partial_value.h); Unknown otherwise.
  const PartialValue& partial_value(int i) const { return partial_values_[i]; }
  // "'name' (op: 'Type')" for messages.
  std::string DebugName() const;

 private:
  friend class Graph;
  int id_ = -1;
  NodeDef def_;
  const OpDef* op_def_ = nullptr;
  std::vector<Endpoint> inputs_;
  std::vector<DataType> input_types_;
  std::vector<bool> input_is_ref_;
  std::vector<Node*> control_inputs_;
  std::vector<DataType> output_types_;
  std::vector<bool> output_is_ref_;
  std::vector<PartialShape> output_shapes_;
  std::vector<PartialValue> partial_values_;
  std::vector<Edge> out_edges_;
  std::vector<Node*> control_outputs_;
  Tensor constant_;
};

struct ImportOptions {
  // Prefix for the imported names ("import" gives "import/x").
  std::string prefix;
  // Imported tensors ("x:0") replaced by tensors of this graph.
  std::map<std::string, Endpoint> input_map;
};

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Validates `def` against its op (inputs exist and have the right dtypes,
  // attrs are complete and allowed), fills default attrs and the type and
  // length attrs implied by the inputs, infers output shapes, and adds the
  // node. Every error names the node and its op.
  Status AddNode(NodeDef def, Node** node);

  // Refines the static shape of output `index` of `node` by merging `shape`
  // into it (tf.Tensor.set_shape): nodes added later see the refined shape.
  // InvalidArgument when the two are incompatible.
  Status RefineOutputShape(Node* node, int index, const PartialShape& shape);

  // Sets the device `node` asks for (TF's Operation._set_device): for the
  // Python device functions, which see the created op and run before it is
  // returned to the caller, so before any step can reach the node.
  void SetRequestedDevice(Node* node, const std::string& device);

  // Re-points data input `index` of `dst` at `src` (TF's
  // Operation._update_input): how a while loop's Merge, created with its
  // Enter twice, gets the NextIteration back edge that closes the loop. The
  // new source must have the input's dtype (and be a ref where one is
  // needed). Shapes inferred before are kept: the caller (the while loop)
  // checks its shape invariants.
  Status UpdateInput(Node* dst, int index, const Endpoint& src);

  int num_nodes() const;
  Node* node(int id) const;
  Node* FindNode(const std::string& name) const;
  // Parses "name", "name:1" or "^name" against this graph.
  Status ParseTensorName(const std::string& tensor_name,
                         Endpoint* endpoint) const;

  void ToGraphDef(GraphDef* graph_def) const;
  // Adds the nodes of `graph_def` (in any order; they are sorted by their
  // dependencies). On error nothing is added.
  Status ImportGraphDef(const GraphDef& graph_def, const ImportOptions& options,
                        std::vector<Node*>* added);

 private:
  Status AddNodeLocked(NodeDef def, Node** node);
  Status UpdateInputLocked(Node* dst, int index, const Endpoint& src);

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::unordered_map<std::string, Node*> by_name_;
};

// Resolves the dtypes of an input or output arg of `op` under `attrs`.
Status ArgTypes(const OpDef& op, const AttrMap& attrs, const ArgDef& arg,
                std::vector<DataType>* types);

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_GRAPH_H_

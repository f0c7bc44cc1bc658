#include "core/runtime/optimizers/graph_editor.h"

#include <algorithm>
#include <cstdlib>

namespace tensorweave {
namespace optimizers {

bool ParseTensor(const std::string& tensor, std::string* node, int* index) {
  if (tensor.empty() || tensor[0] == '^') return false;
  const size_t colon = tensor.rfind(':');
  if (colon == std::string::npos) {
    *node = tensor;
    *index = 0;
    return true;
  }
  const std::string digits = tensor.substr(colon + 1);
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) {
        return c >= '0' && c <= '9';
      })) {
    *node = tensor;
    *index = 0;
    return true;
  }
  *node = tensor.substr(0, colon);
  *index = std::atoi(digits.c_str());
  return true;
}

std::string TensorName(const std::string& node, int index) {
  return index == 0 ? node : node + ":" + std::to_string(index);
}

std::vector<std::string> ControlNames(const Node* node) {
  std::vector<std::string> names;
  for (const Node* c : node->control_inputs()) names.push_back(c->name());
  return names;
}

NodeDef MakeConst(const std::string& name, const Tensor& value,
                  const std::string& device) {
  NodeDef def;
  def.set_name(name);
  def.set_op("Const");
  def.set_device(device);
  (*def.mutable_attr())["dtype"].set_type(value.dtype());
  value.ToProto((*def.mutable_attr())["value"].mutable_tensor());
  return def;
}

// --- PassContext -------------------------------------------------------------

PassContext::PassContext(const Graph& graph, const std::set<std::string>& keep,
                         const std::set<std::string>& fed,
                         const GraphOptimizerOptions& options,
                         const std::string& device_type, ThreadPool* pool)
    : graph_(graph),
      options_(options),
      device_type_(device_type),
      pool_(pool),
      fed_(fed) {
  const int n = graph.num_nodes();
  kept_.assign(n, false);
  frozen_.assign(n, false);
  frozen_consumer_.assign(n, false);
  fed_node_.assign(n, false);
  for (const std::string& tensor : fed) {
    std::string name;
    int index;
    if (!ParseTensor(tensor, &name, &index)) continue;
    if (const Node* node = graph.FindNode(name)) fed_node_[node->id()] = true;
  }
  for (int id = 0; id < n; ++id) {
    const Node* node = graph.node(id);
    kept_[id] = keep.count(node->name()) > 0;
    // Graph order is topological: inputs come first.
    bool frozen = IsControlFlowOp(node->type_string());
    for (int i = 0; i < node->num_inputs() && !frozen; ++i) {
      frozen = frozen_[node->input(i).node->id()];
    }
    for (const Node* c : node->control_inputs()) {
      frozen = frozen || frozen_[c->id()];
    }
    frozen_[id] = frozen;
    if (frozen) {
      for (int i = 0; i < node->num_inputs(); ++i) {
        frozen_consumer_[node->input(i).node->id()] = true;
      }
      for (const Node* c : node->control_inputs()) {
        frozen_consumer_[c->id()] = true;
      }
    }
  }
}

bool PassContext::is_fed(const Node* node, int index) const {
  return fed_node_[node->id()] &&
         fed_.count(TensorName(node->name(), index)) > 0;
}

bool PassContext::has_fed_output(const Node* node) const {
  return fed_node_[node->id()];
}

const Tensor* PassContext::constant(const Endpoint& e) const {
  if (e.node->type_string() != "Const" || is_fed(e.node, e.index)) {
    return nullptr;
  }
  return e.node->constant_value();
}

bool PassContext::has_ref(const Node* node) const {
  for (int i = 0; i < node->num_inputs(); ++i) {
    const Endpoint& src = node->input(i);
    if (node->input_is_ref(i) || src.node->output_is_ref(src.index)) {
      return true;
    }
  }
  for (int i = 0; i < node->num_outputs(); ++i) {
    if (node->output_is_ref(i)) return true;
  }
  return false;
}

// --- GraphEditor -------------------------------------------------------------

GraphEditor::GraphEditor(const Graph& graph) : graph_(graph) {
  const int n = graph.num_nodes();
  defs_.reserve(n);
  for (int id = 0; id < n; ++id) {
    defs_.push_back(graph.node(id)->def());
    names_.insert(graph.node(id)->name());
  }
  removed_.assign(n, false);
}

NodeDef* GraphEditor::Rewrite(const Node* node) {
  rewritten_.insert(node->name());
  return &defs_[node->id()];
}

void GraphEditor::Remove(const Node* node) { removed_[node->id()] = true; }

void GraphEditor::Forward(const Node* node, int index,
                          const std::string& tensor,
                          const std::vector<std::string>& controls) {
  data_forward_[node->name() + ":" + std::to_string(index)] = {tensor,
                                                               controls};
}

void GraphEditor::ForwardControl(const Node* node,
                                 const std::vector<std::string>& nodes) {
  control_forward_[node->name()] = nodes;
}

std::string GraphEditor::Add(NodeDef def) {
  std::string name = def.name();
  for (int k = 1; names_.count(name) > 0; ++k) {
    name = def.name() + "_" + std::to_string(k);
  }
  def.set_name(name);
  names_.insert(name);
  rewritten_.insert(name);
  added_.push_back(std::move(def));
  return name;
}

void GraphEditor::ResolveControl(const std::string& name, int depth,
                                 std::vector<std::string>* out) const {
  auto it = control_forward_.find(name);
  if (it == control_forward_.end() || depth > 10000) {
    const Node* node = graph_.FindNode(name);
    if (node != nullptr && removed_[node->id()]) return;
    if (std::find(out->begin(), out->end(), name) == out->end()) {
      out->push_back(name);
    }
    return;
  }
  for (const std::string& next : it->second) {
    ResolveControl(next, depth + 1, out);
  }
}

std::string GraphEditor::ResolveTensor(
    const std::string& tensor, std::vector<std::string>* controls) const {
  std::string node;
  int index;
  if (!ParseTensor(tensor, &node, &index)) return tensor;
  std::string key = node + ":" + std::to_string(index);
  for (int depth = 0; depth < 10000; ++depth) {
    auto it = data_forward_.find(key);
    if (it == data_forward_.end()) break;
    for (const std::string& c : it->second.second) {
      ResolveControl(c, 0, controls);
    }
    if (!ParseTensor(it->second.first, &node, &index)) break;
    key = node + ":" + std::to_string(index);
  }
  return TensorName(node, index);
}

Status GraphEditor::Finish(const std::set<std::string>& roots, bool prune,
                           GraphDef* out, std::set<std::string>* rewritten) {
  std::vector<NodeDef> defs;
  for (size_t id = 0; id < defs_.size(); ++id) {
    if (!removed_[id]) defs.push_back(defs_[id]);
  }
  defs.insert(defs.end(), added_.begin(), added_.end());
  std::map<std::string, int> index;
  for (size_t i = 0; i < defs.size(); ++i) index[defs[i].name()] = i;
  for (NodeDef& def : defs) {
    std::vector<std::string> data, controls;
    for (const std::string& input : def.input()) {
      if (!input.empty() && input[0] == '^') {
        ResolveControl(input.substr(1), 0, &controls);
      } else {
        data.push_back(ResolveTensor(input, &controls));
      }
    }
    def.clear_input();
    for (const std::string& d : data) {
      std::string node;
      int i;
      ParseTensor(d, &node, &i);
      if (index.count(node) == 0) {
        return errors::Internal("graph optimization left node '", def.name(),
                                "' reading the removed '", d, "'");
      }
      def.add_input(d);
    }
    for (const std::string& c : controls) {
      if (c == def.name() || index.count(c) == 0) continue;
      def.add_input("^" + c);
    }
  }
  std::vector<bool> keep(defs.size(), !prune);
  if (prune) {
    std::vector<int> stack;
    for (const std::string& root : roots) {
      auto it = index.find(root);
      if (it != index.end()) stack.push_back(it->second);
    }
    while (!stack.empty()) {
      int i = stack.back();
      stack.pop_back();
      if (keep[i]) continue;
      keep[i] = true;
      for (const std::string& input : defs[i].input()) {
        std::string node;
        int k;
        if (input[0] == '^') {
          node = input.substr(1);
        } else {
          ParseTensor(input, &node, &k);
        }
        stack.push_back(index[node]);
      }
    }
  }
  out->Clear();
  for (size_t i = 0; i < defs.size(); ++i) {
    if (keep[i]) *out->add_node() = std::move(defs[i]);
  }
  rewritten->insert(rewritten_.begin(), rewritten_.end());
  return Status::OK();
}

}  // namespace optimizers
}  // namespace tensorweave

#include "core/framework/graph.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <set>
#include <sstream>

#include "core/framework/partial_value.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

std::string Endpoint::ToString() const {
  return node == nullptr ? "<null>"
                         : node->name() + ":" + std::to_string(index);
}

std::string Node::DebugName() const {
  return "'" + name() + "' (op: '" + type_string() + "')";
}

Status ArgTypes(const OpDef& op, const AttrMap& attrs, const ArgDef& arg,
                std::vector<DataType>* types) {
  types->clear();
  if (!arg.type_list_attr.empty()) {
    return GetAttr(attrs, arg.type_list_attr, types);
  }
  DataType dtype = arg.type;
  if (!arg.type_attr.empty()) {
    TW_RETURN_IF_ERROR(GetAttr(attrs, arg.type_attr, &dtype));
  }
  int64_t count = 1;
  if (!arg.number_attr.empty()) {
    TW_RETURN_IF_ERROR(GetAttr(attrs, arg.number_attr, &count));
    // The length of a list of inputs or outputs: a negative or absurd
    // value (2^62) is an error, not a vector that cannot be allocated.
    constexpr int64_t kMaxArgListLength = int64_t{1} << 20;
    if (count < 0 || count > kMaxArgListLength) {
      return errors::InvalidArgument(
          "attr '", arg.number_attr, "' = ", count, " (the length of '",
          arg.name, "') must be in [0, ", kMaxArgListLength, "]");
    }
  }
  types->assign(count, dtype);
  return Status::OK();
}

namespace {

bool IsValidNodeName(const std::string& name) {
  if (name.empty() || name[0] == '/' || name[0] == '_') return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
          c == '-' || c == '/' || c == '>')) {
      return false;
    }
  }
  return true;
}

// Splits "name:3" / "name" / "^name".
bool SplitTensorName(const std::string& tensor_name, std::string* node_name,
                     int* index, bool* is_control) {
  *is_control = !tensor_name.empty() && tensor_name[0] == '^';
  std::string rest = *is_control ? tensor_name.substr(1) : tensor_name;
  *index = 0;
  size_t colon = rest.rfind(':');
  if (colon != std::string::npos && !*is_control) {
    std::string digits = rest.substr(colon + 1);
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), ::isdigit)) {
      return false;
    }
    *index = std::stoi(digits);
    rest = rest.substr(0, colon);
  }
  *node_name = rest;
  return !rest.empty();
}

// Fills attrs implied by the inputs (T from an input's dtype, N from the
// number of inputs), then defaults; checks that every attr is known,
// present, of its kind and allowed.
Status CompleteAttrs(const OpDef& op, const std::vector<DataType>& input_dtypes,
                     NodeDef* def) {
  auto* attrs = def->mutable_attr();
  for (const auto& entry : *attrs) {
    // Names starting with '_' are internal attrs no op declares (TF's
    // `_class` colocation groups): kept as given, not checked.
    if (entry.first.rfind('_', 0) == 0) continue;
    if (op.FindAttr(entry.first) == nullptr) {
      return errors::InvalidArgument("NodeDef mentions attr '", entry.first,
                                     "' not in op '", op.name, "'");
    }
  }
  // Number attrs: with a single list input, N is what the fixed inputs
  // leave; otherwise it must be given.
  int list_args = 0, fixed = 0;
  for (const auto& arg : op.inputs) {
    if (arg.is_list()) {
      ++list_args;
    } else {
      ++fixed;
    }
  }
  for (const auto& arg : op.inputs) {
    if (!arg.number_attr.empty() && !attrs->count(arg.number_attr) &&
        list_args == 1) {
      (*attrs)[arg.number_attr].set_i(
          static_cast<int64_t>(input_dtypes.size()) - fixed);
    }
  }
  // Type attrs from the inputs, in order.
  size_t pos = 0;
  for (const auto& arg : op.inputs) {
    int64_t count = 1;
    if (!arg.number_attr.empty()) {
      auto it = attrs->find(arg.number_attr);
      if (it == attrs->end()) {
        return errors::InvalidArgument("missing attr '", arg.number_attr,
                                       "' (length of input '", arg.name, "')");
      }
      count = it->second.i();
    }
    if (!arg.type_list_attr.empty()) {
      auto it = attrs->find(arg.type_list_attr);
      if (it == attrs->end()) {
        return errors::InvalidArgument("missing attr '", arg.type_list_attr,
                                       "' (dtypes of input '", arg.name, "')");
      }
      count = it->second.list().type_size();
    }
    if (count < 0 || pos + count > input_dtypes.size()) break;
    if (!arg.type_attr.empty() && !attrs->count(arg.type_attr) && count > 0) {
      (*attrs)[arg.type_attr].set_type(
          static_cast<::tensorweave::DataType>(input_dtypes[pos]));
    }
    pos += count;
  }
  for (const auto& attr : op.attrs) {
    auto it = attrs->find(attr.name);
    if (it == attrs->end()) {
      if (!attr.has_default) {
        return errors::InvalidArgument("missing attr '", attr.name,
                                       "' of type ", attr.type);
      }
      (*attrs)[attr.name] = attr.default_value;
      continue;
    }
    const AttrValue& value = it->second;
    Status kind = CheckAttrKind(value, attr.type);
    if (!kind.ok()) return kind.WithContext("attr '" + attr.name + "'");
    if (!attr.allowed_types.empty()) {
      std::vector<int> types;
      if (attr.type == "type") {
        types.push_back(value.type());
      } else {
        types.assign(value.list().type().begin(), value.list().type().end());
      }
      for (int t : types) {
        if (std::find(attr.allowed_types.begin(), attr.allowed_types.end(),
                      t) == attr.allowed_types.end()) {
          std::string allowed;
          for (DataType a : attr.allowed_types) {
            allowed += (allowed.empty() ? "" : ", ") + DataTypeName(a);
          }
          return errors::InvalidArgument(
              "value for attr '", attr.name, "' of ",
              DataTypeName(static_cast<DataType>(t)),
              " is not in the list of allowed values: ", allowed);
        }
      }
    }
    if (!attr.allowed_strings.empty() &&
        std::find(attr.allowed_strings.begin(), attr.allowed_strings.end(),
                  value.s()) == attr.allowed_strings.end()) {
      std::string allowed;
      for (const auto& a : attr.allowed_strings) {
        allowed += (allowed.empty() ? "'" : ", '") + a + "'";
      }
      return errors::InvalidArgument(
          "value for attr '", attr.name, "' of '", value.s(),
          "' is not in the list of allowed values: ", allowed);
    }
    if (attr.has_minimum) {
      int64_t n =
          attr.type == "int"
              ? value.i()
              : std::max({value.list().i_size(), value.list().type_size(),
                          value.list().s_size(), value.list().f_size(),
                          value.list().shape_size()});
      if (n < attr.minimum) {
        return errors::InvalidArgument("value for attr '", attr.name, "' is ",
                                       n, ", less than the minimum ",
                                       attr.minimum);
      }
    }
  }
  return Status::OK();
}

}  // namespace

int Graph::num_nodes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(nodes_.size());
}

void Graph::SetRequestedDevice(Node* node, const std::string& device) {
  std::lock_guard<std::mutex> lock(mu_);
  node->def_.set_device(device);
}

Status Graph::RefineOutputShape(Node* node, int index,
                                const PartialShape& shape) {
  std::lock_guard<std::mutex> lock(mu_);
  if (index < 0 || index >= node->num_outputs()) {
    return errors::InvalidArgument(node->DebugName(), " has no output ", index);
  }
  PartialShape merged;
  if (!node->output_shapes_[index].Merge(shape, &merged).ok()) {
    return errors::InvalidArgument(
        "Shapes ", node->output_shapes_[index].ToString(), " and ",
        shape.ToString(), " are not compatible (output ", index, " of ",
        node->DebugName(), ")");
  }
  node->output_shapes_[index] = merged;
  node->partial_values_[index] = EvaluatePartialValue(*node, index);
  return Status::OK();
}

Node* Graph::node(int id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return id >= 0 && id < static_cast<int>(nodes_.size()) ? nodes_[id].get()
                                                         : nullptr;
}

Node* Graph::FindNode(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

Status Graph::ParseTensorName(const std::string& tensor_name,
                              Endpoint* endpoint) const {
  std::string node_name;
  int index;
  bool is_control;
  if (!SplitTensorName(tensor_name, &node_name, &index, &is_control)) {
    return errors::InvalidArgument("'", tensor_name,
                                   "' is not a valid tensor name");
  }
  Node* node = FindNode(node_name);
  if (node == nullptr) {
    return errors::NotFound("no node named '", node_name, "' in the graph");
  }
  if (is_control) index = -1;
  if (index >= node->num_outputs()) {
    return errors::InvalidArgument("node ", node->DebugName(), " has ",
                                   node->num_outputs(), " outputs; '",
                                   tensor_name, "' is out of range");
  }
  *endpoint = Endpoint{node, index};
  return Status::OK();
}

Status Graph::AddNode(NodeDef def, Node** node) {
  std::lock_guard<std::mutex> lock(mu_);
  return AddNodeLocked(std::move(def), node);
}

namespace {

// An attr value as TensorFlow's SummarizeAttrValue writes it (DT_FLOAT, [2,3],
// true, "s").
std::string SummarizeAttrValue(const AttrValue& v) {
  auto shape = [](const TensorShapeProto& proto) {
    PartialShape shape;
    return PartialShape::FromProto(proto, &shape).ok() ? shape.ToString()
                                                       : std::string("?");
  };
  auto quote = [](const std::string& s) { return "\"" + s + "\""; };
  switch (v.value_case()) {
    case AttrValue::kS:
      return quote(v.s());
    case AttrValue::kI:
      return std::to_string(v.i());
    case AttrValue::kF: {
      std::ostringstream out;
      out << v.f();
      return out.str();
    }
    case AttrValue::kB:
      return v.b() ? "true" : "false";
    case AttrValue::kType:
      return DataType_Name(v.type());
    case AttrValue::kShape:
      return shape(v.shape());
    case AttrValue::kTensor:
      return "<tensor>";
    case AttrValue::kPlaceholder:
      return "$" + v.placeholder();
    case AttrValue::kFunc:
      return v.func().name();
    case AttrValue::kList: {
      std::vector<std::string> items;
      const auto& l = v.list();
      for (const auto& s : l.s()) items.push_back(quote(s));
      for (int64_t i : l.i()) items.push_back(std::to_string(i));
      for (float f : l.f()) {
        std::ostringstream out;
        out << f;
        items.push_back(out.str());
      }
      for (bool b : l.b()) items.push_back(b ? "true" : "false");
      for (int t : l.type()) {
        items.push_back(DataType_Name(static_cast<DataType>(t)));
      }
      for (const auto& s : l.shape()) items.push_back(shape(s));
      for (int k = 0; k < l.tensor_size(); ++k) items.push_back("<tensor>");
      std::string out = "[";
      for (size_t k = 0; k < items.size(); ++k) {
        out += (k ? ", " : "") + items[k];
      }
      return out + "]";
    }
    default:
      return "";
  }
}

// A node as TensorFlow's SummarizeNodeDef writes it in shape errors:
// "{{node add}} = AddV2[T=DT_FLOAT](a, b)" (attrs sorted by name, output 0
// of an input named without ":0").
std::string SummarizeNodeDef(const NodeDef& def) {
  std::vector<std::string> names;
  for (const auto& attr : def.attr()) names.push_back(attr.first);
  std::sort(names.begin(), names.end());
  std::string out = "{{node " + def.name() + "}} = " + def.op() + "[";
  for (size_t k = 0; k < names.size(); ++k) {
    out += (k ? ", " : "") + names[k] + "=" +
           SummarizeAttrValue(def.attr().at(names[k]));
  }
  out += "](";
  for (int k = 0; k < def.input_size(); ++k) {
    std::string input = def.input(k);
    if (input.size() > 2 && input.compare(input.size() - 2, 2, ":0") == 0) {
      input.resize(input.size() - 2);
    }
    out += (k ? ", " : "") + input;
  }
  return out + ")";
}

}  // namespace

Status Graph::AddNodeLocked(NodeDef def, Node** out) {
  const std::string where =
      " for node '" + def.name() + "' (op: '" + def.op() + "')";
  const OpDef* op = OpRegistry::Global()->Find(def.op());
  if (op == nullptr) {
    return errors::NotFound("Op type not registered '", def.op(), "'", where);
  }
  if (!IsValidNodeName(def.name())) {
    return errors::InvalidArgument("'", def.name(),
                                   "' is not a valid node name", where);
  }
  if (by_name_.count(def.name())) {
    return errors::InvalidArgument("a node named '", def.name(),
                                   "' already exists in the graph");
  }
  auto node = std::make_unique<Node>();
  node->op_def_ = op;
  // Resolve inputs: data inputs first, then control inputs.
  std::vector<DataType> input_dtypes;
  for (const std::string& input : def.input()) {
    std::string name;
    int index;
    bool is_control;
    if (!SplitTensorName(input, &name, &index, &is_control)) {
      return errors::InvalidArgument("malformed input '", input, "'", where);
    }
    auto it = by_name_.find(name);
    if (it == by_name_.end()) {
      return errors::NotFound("input '", input, "' names no node in the graph",
                              where);
    }
    Node* src = it->second;
    if (is_control) {
      node->control_inputs_.push_back(src);
      continue;
    }
    if (!node->control_inputs_.empty()) {
      return errors::InvalidArgument("data input '", input,
                                     "' follows a control input", where);
    }
    if (index >= src->num_outputs()) {
      return errors::InvalidArgument("input '", input, "': node '", name,
                                     "' has only ", src->num_outputs(),
                                     " outputs", where);
    }
    node->inputs_.push_back(Endpoint{src, index});
    input_dtypes.push_back(src->output_type(index));
  }
  Status status = CompleteAttrs(*op, input_dtypes, &def);
  if (!status.ok()) return Status(status.code(), status.message() + where);
  // Check the inputs against the op's input args.
  size_t pos = 0;
  for (const auto& arg : op->inputs) {
    std::vector<DataType> types;
    Status s = ArgTypes(*op, def.attr(), arg, &types);
    if (!s.ok()) return errors::InvalidArgument(s.message(), where);
    for (size_t k = 0; k < types.size(); ++k, ++pos) {
      if (pos >= node->inputs_.size()) {
        return errors::InvalidArgument("expected more inputs: input '",
                                       arg.name, "' is missing (got ",
                                       node->inputs_.size(), " inputs)", where);
      }
      const Endpoint& src = node->inputs_[pos];
      if (input_dtypes[pos] != types[k]) {
        return errors::InvalidArgument(
            "Input '", arg.name, "' has type ", DataTypeName(input_dtypes[pos]),
            " (from '", src.ToString(),
            "') that does not match the expected type ", DataTypeName(types[k]),
            where);
      }
      if (arg.is_ref && !src.node->output_is_ref(src.index)) {
        return errors::InvalidArgument("Input '", arg.name,
                                       "' must be a variable (a ref), but '",
                                       src.ToString(), "' is a value", where);
      }
      node->input_types_.push_back(types[k]);
      node->input_is_ref_.push_back(arg.is_ref);
    }
  }
  if (pos != node->inputs_.size()) {
    return errors::InvalidArgument("op expects ", pos, " inputs, got ",
                                   node->inputs_.size(), where);
  }
  for (const auto& arg : op->outputs) {
    std::vector<DataType> types;
    Status s = ArgTypes(*op, def.attr(), arg, &types);
    if (!s.ok()) return errors::InvalidArgument(s.message(), where);
    for (DataType t : types) {
      node->output_types_.push_back(t);
      node->output_is_ref_.push_back(arg.is_ref);
    }
  }
  if (def.op() == "Const") {
    Status s = GetAttr(def.attr(), "value", &node->constant_);
    if (!s.ok()) return errors::InvalidArgument(s.message(), where);
  }
  // Shape inference.
  // Each input's value where it is known: a constant, or an integer tensor
  // that partial evaluation fully determines (materialized here, so that
  // shape functions see it as they see a constant).
  std::vector<PartialShape> shapes;
  std::vector<const Tensor*> values;
  std::vector<PartialValue> partial_values;
  std::deque<Tensor> materialized;
  for (const Endpoint& src : node->inputs_) {
    shapes.push_back(src.node->output_shape(src.index));
    const PartialValue& partial = src.node->partial_value(src.index);
    const Tensor* value = src.node->constant_value();
    if (value == nullptr && partial.fully_known()) {
      materialized.push_back(
          partial.ToTensor(src.node->output_type(src.index)));
      value = &materialized.back();
    }
    values.push_back(value);
    partial_values.push_back(partial);
  }
  InferenceContext ctx(&def.attr(), shapes, node->input_types_, values,
                       node->num_outputs());
  ctx.set_input_partial_values(std::move(partial_values));
  Status shape_status = op->shape_fn(&ctx);
  if (!shape_status.ok()) {
    // TensorFlow's wording: "... for '{{node add}} = AddV2[T=DT_FLOAT](a, b)'
    // with input shapes: [2,3], [2,4]."
    return Status(shape_status.code(),
                  shape_status.message() + " for '" + SummarizeNodeDef(def) +
                      "' with input shapes: " + ctx.InputShapesString() + ".");
  }
  node->output_shapes_ = ctx.outputs();
  // Commit.
  node->def_ = std::move(def);
  for (int i = 0; i < node->num_outputs(); ++i) {
    node->partial_values_.push_back(EvaluatePartialValue(*node, i));
  }
  node->id_ = static_cast<int>(nodes_.size());
  Node* raw = node.get();
  for (int i = 0; i < raw->num_inputs(); ++i) {
    const Endpoint& src = raw->inputs_[i];
    src.node->out_edges_.push_back(Edge{src.node, src.index, raw, i});
  }
  for (Node* src : raw->control_inputs_) src->control_outputs_.push_back(raw);
  by_name_[raw->name()] = raw;
  nodes_.push_back(std::move(node));
  *out = raw;
  return Status::OK();
}

Status Graph::UpdateInput(Node* dst, int index, const Endpoint& src) {
  std::lock_guard<std::mutex> lock(mu_);
  return UpdateInputLocked(dst, index, src);
}

Status Graph::UpdateInputLocked(Node* dst, int index, const Endpoint& src) {
  if (index < 0 || index >= dst->num_inputs()) {
    return errors::InvalidArgument("node ", dst->DebugName(), " has no input ",
                                   index);
  }
  if (src.index < 0 || src.index >= src.node->num_outputs()) {
    return errors::InvalidArgument("node ", src.node->DebugName(),
                                   " has no output ", src.index);
  }
  if (src.node->output_type(src.index) != dst->input_type(index)) {
    return errors::InvalidArgument(
        "Input ", index, " of node ", dst->DebugName(), " has type ",
        DataTypeName(dst->input_type(index)), ", but '", src.ToString(),
        "' is ", DataTypeName(src.node->output_type(src.index)));
  }
  if (dst->input_is_ref(index) && !src.node->output_is_ref(src.index)) {
    return errors::InvalidArgument("Input ", index, " of node ",
                                   dst->DebugName(), " must be a ref, but '",
                                   src.ToString(), "' is a value");
  }
  Endpoint& old = dst->inputs_[index];
  auto& edges = old.node->out_edges_;
  edges.erase(std::find_if(edges.begin(), edges.end(), [&](const Edge& e) {
    return e.dst == dst && e.dst_input == index;
  }));
  old = src;
  src.node->out_edges_.push_back(Edge{src.node, src.index, dst, index});
  dst->def_.set_input(index, src.ToString());
  return Status::OK();
}

void Graph::ToGraphDef(GraphDef* graph_def) const {
  std::lock_guard<std::mutex> lock(mu_);
  graph_def->Clear();
  graph_def->mutable_versions()->set_producer(1);
  for (const auto& node : nodes_) *graph_def->add_node() = node->def();
}

Status Graph::ImportGraphDef(const GraphDef& graph_def,
                             const ImportOptions& options,
                             std::vector<Node*>* added) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string prefix = options.prefix.empty() ? "" : options.prefix + "/";
  // Index the imported nodes and order them by their dependencies.
  std::unordered_map<std::string, int> index;
  for (int i = 0; i < graph_def.node_size(); ++i) {
    const std::string& name = graph_def.node(i).name();
    if (!index.emplace(name, i).second) {
      return errors::InvalidArgument("GraphDef has two nodes named '", name,
                                     "'");
    }
  }
  std::vector<int> pending(graph_def.node_size(), 0);
  std::vector<std::vector<int>> consumers(graph_def.node_size());
  std::vector<NodeDef> defs(graph_def.node().begin(), graph_def.node().end());
  // A while loop's back edges (a Merge's input from a NextIteration) close
  // cycles: the Merge is added first with another input in their place, and
  // they are set once every node exists.
  struct BackEdge {
    int dst;
    int input;
    std::string src;
  };
  std::vector<BackEdge> back_edges;
  for (int i = 0; i < graph_def.node_size(); ++i) {
    NodeDef& def = defs[i];
    const bool is_merge = def.op() == "Merge" || def.op() == "RefMerge";
    int input_index = -1;
    for (std::string& input : *def.mutable_input()) {
      ++input_index;
      std::string name;
      int out_index;
      bool is_control;
      if (!SplitTensorName(input, &name, &out_index, &is_control)) {
        return errors::InvalidArgument("node '", def.name(),
                                       "' has malformed input '", input, "'");
      }
      std::string key = name + ":" + std::to_string(out_index);
      auto mapped = options.input_map.find(key);
      if (!is_control && mapped != options.input_map.end()) {
        input = mapped->second.ToString();
        continue;
      }
      auto it = index.find(name);
      if (it == index.end()) {
        return errors::InvalidArgument("node '", def.name(), "' has input '",
                                       input,
                                       "', which is not in the GraphDef");
      }
      // Keep the input's spelling ("x" stays "x", "x:0" stays "x:0") so
      // that a round trip through ImportGraphDef preserves the NodeDefs.
      const bool explicit_index =
          !is_control && input.find(':') != std::string::npos;
      input = (is_control ? "^" : "") + prefix + name +
              (explicit_index ? ":" + std::to_string(out_index) : "");
      const std::string& src_op = graph_def.node(it->second).op();
      if (is_merge && !is_control &&
          (src_op == "NextIteration" || src_op == "RefNextIteration")) {
        back_edges.push_back({i, input_index, input});
        continue;
      }
      ++pending[i];
      consumers[it->second].push_back(i);
    }
    def.set_name(prefix + def.name());
    // TF's import prefixes the colocation groups too: "loc:@x" -> "loc:@p/x".
    auto colocation = def.mutable_attr()->find("_class");
    if (!prefix.empty() && colocation != def.mutable_attr()->end()) {
      auto* groups = colocation->second.mutable_list();
      for (int k = 0; k < groups->s_size(); ++k) {
        const std::string& group = groups->s(k);
        if (group.rfind("loc:@", 0) == 0) {
          groups->set_s(k, "loc:@" + prefix + group.substr(5));
        }
      }
    }
  }
  // Among the ready nodes, the earliest in the GraphDef goes first, so that
  // a GraphDef already in topological order keeps its order.
  std::set<int> ready;
  for (int i = 0; i < graph_def.node_size(); ++i) {
    if (pending[i] == 0) ready.insert(i);
  }
  std::vector<int> order;
  while (!ready.empty()) {
    int i = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(i);
    for (int c : consumers[i]) {
      if (--pending[c] == 0) ready.insert(c);
    }
  }
  if (order.size() != defs.size()) {
    for (int i = 0; i < graph_def.node_size(); ++i) {
      if (pending[i] > 0) {
        return errors::InvalidArgument("GraphDef has a cycle through node '",
                                       graph_def.node(i).name(), "'");
      }
    }
  }
  // A Merge is added with a forward input in place of each back edge.
  for (const BackEdge& b : back_edges) {
    NodeDef& def = defs[b.dst];
    int forward = -1;
    for (int k = 0; k < def.input_size(); ++k) {
      const std::string& in = def.input(k);
      bool is_back = false;
      for (const BackEdge& o : back_edges) {
        if (o.dst == b.dst && o.input == k) is_back = true;
      }
      if (!is_back && !in.empty() && in[0] != '^') {
        forward = k;
        break;
      }
    }
    if (forward < 0) {
      return errors::InvalidArgument("node '", def.name(),
                                     "' (op: 'Merge') has only back edges "
                                     "from NextIteration nodes as inputs");
    }
    def.set_input(b.input, def.input(forward));
  }
  const size_t first_new = nodes_.size();
  const size_t first_added = added != nullptr ? added->size() : 0;
  std::vector<Node*> by_index(defs.size(), nullptr);
  Status s;
  for (int i : order) {
    Node* node;
    s = AddNodeLocked(defs[i], &node);
    if (!s.ok()) break;
    by_index[i] = node;
    if (added != nullptr) added->push_back(node);
  }
  for (size_t k = 0; s.ok() && k < back_edges.size(); ++k) {
    const BackEdge& b = back_edges[k];
    std::string name;
    int index;
    bool is_control;
    SplitTensorName(b.src, &name, &index, &is_control);
    s = UpdateInputLocked(by_index[b.dst], b.input,
                          Endpoint{by_name_.at(name), index});
  }
  {
    if (!s.ok()) {
      // Roll back: the new nodes are last, and only they point at each other
      // or have edges recorded on older nodes.
      for (size_t k = nodes_.size(); k-- > first_new;) {
        Node* doomed = nodes_[k].get();
        for (const Endpoint& src : doomed->inputs_) {
          auto& edges = src.node->out_edges_;
          edges.erase(
              std::remove_if(edges.begin(), edges.end(),
                             [&](const Edge& e) { return e.dst == doomed; }),
              edges.end());
        }
        for (Node* src : doomed->control_inputs_) {
          auto& outs = src->control_outputs_;
          outs.erase(std::remove(outs.begin(), outs.end(), doomed), outs.end());
        }
        by_name_.erase(doomed->name());
        nodes_.pop_back();
      }
      // Do not hand out pointers to the removed nodes.
      if (added != nullptr) added->resize(first_added);
      return s;
    }
  }
  return Status::OK();
}

}  // namespace tensorweave

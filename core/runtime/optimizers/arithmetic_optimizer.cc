// Arithmetic simplification: rewrites that the static shapes and dtypes
// prove exact. x*1, 1*x, x+0, 0+x, x-0, x/1 become Identity(x) only when the
// constant's broadcast leaves x's shape unchanged (x*ones([3]) with x of
// shape [1] broadcasts to [3]: not a no-op); Transpose(Transpose(x, p), q)
// with q undoing p becomes Identity(x); Reshape(Reshape(x, s), t) becomes
// Reshape(x, t); ExpandDims then Squeeze of the same axis (and Squeeze of a
// static 1 then ExpandDims back) becomes Identity(x). The rewritten node
// keeps its name; the dependency pass then removes the Identity where it
// may.
#include <algorithm>

#include "core/runtime/optimizers/graph_editor.h"

namespace tensorweave {
namespace optimizers {
namespace {

// Every element of `t` equals `value` (numeric dtypes only).
bool AllEqual(const Tensor& t, double value) {
  bool result = false;
  Status s =
      DispatchType<float, double, int32_t, int64_t>(t.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const T* data = t.data<T>();
        result = std::all_of(data, data + t.num_elements(),
                             [&](T v) { return v == static_cast<T>(value); });
        return Status::OK();
      });
  return s.ok() && result;
}

// Broadcasting x against constant c gives x's shape.
bool BroadcastKeepsShape(const PartialShape& x, const TensorShape& c) {
  if (!x.known_rank() || c.rank() > x.rank()) return false;
  for (int i = 1; i <= c.rank(); ++i) {
    const int64_t cd = c.dim(c.rank() - i);
    const int64_t xd = x.dim(x.rank() - i);
    if (cd != 1 && cd != xd) return false;
  }
  return true;
}

// Rewrites `node` into Identity(tensor), keeping its control inputs and
// adding `extra_controls`.
void MakeIdentity(const Node* node, const std::string& tensor,
                  const std::vector<std::string>& extra_controls,
                  GraphEditor* editor) {
  NodeDef* def = editor->Rewrite(node);
  const AttrValue t = def->attr().at("T");
  def->set_op("Identity");
  def->clear_input();
  def->add_input(tensor);
  for (const std::string& c : ControlNames(node)) def->add_input("^" + c);
  for (const std::string& c : extra_controls) def->add_input("^" + c);
  auto* attrs = def->mutable_attr();
  for (auto it = attrs->begin(); it != attrs->end();) {
    it = it->first == "_class" ? std::next(it) : attrs->erase(it);
  }
  (*attrs)["T"] = t;
}

std::string Name(const Endpoint& e) {
  return TensorName(e.node->name(), e.index);
}

bool ConstInts(const PassContext& ctx, const Endpoint& e,
               std::vector<int64_t>* out) {
  const Tensor* t = ctx.constant(e);
  if (t == nullptr) return false;
  out->clear();
  for (int64_t i = 0; i < t->num_elements(); ++i) {
    if (t->dtype() == DT_INT32) {
      out->push_back(t->data<int32_t>()[i]);
    } else if (t->dtype() == DT_INT64) {
      out->push_back(t->data<int64_t>()[i]);
    } else {
      return false;
    }
  }
  return true;
}

// x op c (or c op x for the commutative ones) with c neutral: the x side.
bool NeutralOperand(const PassContext& ctx, const Node* node, Endpoint* x) {
  const std::string& op = node->type_string();
  double neutral;
  bool commutative;
  if (op == "Mul") {
    neutral = 1, commutative = true;
  } else if (op == "Add" || op == "AddV2") {
    neutral = 0, commutative = true;
  } else if (op == "Sub") {
    neutral = 0, commutative = false;
  } else if (op == "Div" || op == "RealDiv") {
    neutral = 1, commutative = false;
  } else {
    return false;
  }
  if (node->num_inputs() != 2) return false;
  for (int side = 1; side >= (commutative ? 0 : 1); --side) {
    const Tensor* c = ctx.constant(node->input(side));
    const Endpoint& other = node->input(1 - side);
    if (c == nullptr || !AllEqual(*c, neutral)) continue;
    if (other.node->output_type(other.index) != node->output_type(0)) continue;
    if (!BroadcastKeepsShape(other.node->output_shape(other.index),
                             c->shape())) {
      continue;
    }
    *x = other;
    return true;
  }
  return false;
}

// The producer of input `i` when it is `op`, not fed and read only here.
const Node* Producer(const PassContext& ctx, const Node* node, int i,
                     const std::string& op) {
  const Endpoint& src = node->input(i);
  if (src.node->type_string() != op || ctx.is_fed(src.node, src.index) ||
      ctx.is_frozen(src.node)) {
    return nullptr;
  }
  return src.node;
}

int Normalize(int64_t axis, int rank) {
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace

int SimplifyArithmetic(const PassContext& ctx, GraphEditor* editor) {
  const Graph& graph = ctx.graph();
  int rewrites = 0;
  for (int id = 0; id < graph.num_nodes(); ++id) {
    const Node* node = graph.node(id);
    if (!ctx.may_rewrite(node) || ctx.has_ref(node)) continue;
    const std::string& op = node->type_string();
    Endpoint x;
    if (NeutralOperand(ctx, node, &x)) {
      MakeIdentity(node, Name(x), {}, editor);
      ++rewrites;
    } else if (op == "Transpose") {
      const Node* inner = Producer(ctx, node, 0, "Transpose");
      std::vector<int64_t> p, q;
      if (inner == nullptr || !ConstInts(ctx, inner->input(1), &p) ||
          !ConstInts(ctx, node->input(1), &q) || p.size() != q.size()) {
        continue;
      }
      bool inverse = true;
      for (size_t i = 0; i < q.size(); ++i) {
        inverse = inverse && q[i] >= 0 &&
                  q[i] < static_cast<int64_t>(p.size()) &&
                  p[q[i]] == static_cast<int64_t>(i);
      }
      if (!inverse) continue;
      MakeIdentity(node, Name(inner->input(0)), ControlNames(inner), editor);
      ++rewrites;
    } else if (op == "Reshape") {
      const Node* inner = Producer(ctx, node, 0, "Reshape");
      if (inner == nullptr) continue;
      NodeDef* def = editor->Rewrite(node);
      def->set_input(0, Name(inner->input(0)));
      for (const std::string& c : ControlNames(inner)) def->add_input("^" + c);
      ++rewrites;
    } else if (op == "Squeeze") {
      // ExpandDims(x, a) then Squeeze([d]) of the same axis.
      const Node* inner = Producer(ctx, node, 0, "ExpandDims");
      std::vector<int64_t> dims, axis;
      if (inner == nullptr ||
          !GetAttr(node->attrs(), "squeeze_dims", &dims).ok() ||
          dims.size() != 1 || !ConstInts(ctx, inner->input(1), &axis) ||
          axis.size() != 1) {
        continue;
      }
      const Endpoint& src = inner->input(0);
      const PartialShape& shape = src.node->output_shape(src.index);
      if (!shape.known_rank()) continue;
      const int rank = shape.rank() + 1;  // of the expanded tensor
      if (Normalize(axis[0], rank) != Normalize(dims[0], rank)) continue;
      MakeIdentity(node, Name(src), ControlNames(inner), editor);
      ++rewrites;
    } else if (op == "ExpandDims") {
      // Squeeze([d]) of a static 1 then ExpandDims back at d.
      const Node* inner = Producer(ctx, node, 0, "Squeeze");
      std::vector<int64_t> dims, axis;
      if (inner == nullptr ||
          !GetAttr(inner->attrs(), "squeeze_dims", &dims).ok() ||
          dims.size() != 1 || !ConstInts(ctx, node->input(1), &axis) ||
          axis.size() != 1) {
        continue;
      }
      const Endpoint& src = inner->input(0);
      const PartialShape& shape = src.node->output_shape(src.index);
      if (!shape.known_rank()) continue;
      const int d = Normalize(dims[0], shape.rank());
      if (d < 0 || d >= shape.rank() || shape.dim(d) != 1) continue;
      if (Normalize(axis[0], shape.rank()) != d) continue;
      MakeIdentity(node, Name(src), ControlNames(inner), editor);
      ++rewrites;
    }
  }
  return rewrites;
}

}  // namespace optimizers
}  // namespace tensorweave

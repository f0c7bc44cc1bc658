// Test helpers: building graphs node by node, making and reading tensors.
// Header-only; used by the framework, runtime and kernels tests.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_GRAPH_TEST_UTIL_H_
#define TENSORWEAVE_CORE_FRAMEWORK_GRAPH_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/framework/graph.h"
#include "core/framework/status.h"
#include "core/framework/tensor.h"

namespace tensorweave {
namespace test {

using Attrs = std::map<std::string, AttrValue>;

inline AttrValue AttrType(DataType dtype) {
  AttrValue v;
  v.set_type(static_cast<::tensorweave::DataType>(dtype));
  return v;
}
inline AttrValue AttrBool(bool b) {
  AttrValue v;
  v.set_b(b);
  return v;
}
inline AttrValue AttrInt(int64_t i) {
  AttrValue v;
  v.set_i(i);
  return v;
}
inline AttrValue AttrString(const std::string& s) {
  AttrValue v;
  v.set_s(s);
  return v;
}
inline AttrValue AttrShape(const PartialShape& shape) {
  AttrValue v;
  shape.ToProto(v.mutable_shape());
  return v;
}
inline AttrValue AttrTensor(const Tensor& t) {
  AttrValue v;
  t.ToProto(v.mutable_tensor());
  return v;
}

inline NodeDef MakeNodeDef(const std::string& op, const std::string& name,
                           const std::vector<std::string>& inputs,
                           const Attrs& attrs = {}) {
  NodeDef def;
  def.set_name(name);
  def.set_op(op);
  for (const auto& in : inputs) def.add_input(in);
  for (const auto& [k, v] : attrs) (*def.mutable_attr())[k] = v;
  return def;
}

// Adds a node; returns the status (for failure-path tests).
inline Status TryAddOp(Graph* graph, const std::string& op,
                       const std::string& name,
                       const std::vector<std::string>& inputs,
                       const Attrs& attrs = {}, Node** out = nullptr) {
  Node* node = nullptr;
  Status s = graph->AddNode(MakeNodeDef(op, name, inputs, attrs), &node);
  if (out != nullptr) *out = s.ok() ? node : nullptr;
  return s;
}

// Adds a node that must be valid; records a test failure otherwise.
inline Node* AddOp(Graph* graph, const std::string& op, const std::string& name,
                   const std::vector<std::string>& inputs,
                   const Attrs& attrs = {}) {
  Node* node = nullptr;
  Status s = TryAddOp(graph, op, name, inputs, attrs, &node);
  if (!s.ok()) ADD_FAILURE() << "AddOp(" << op << ", " << name << "): " << s;
  return node;
}

inline Node* AddConst(Graph* graph, const std::string& name,
                      const Tensor& value) {
  return AddOp(
      graph, "Const", name, {},
      {{"value", AttrTensor(value)}, {"dtype", AttrType(value.dtype())}});
}

inline Node* AddPlaceholder(Graph* graph, const std::string& name,
                            DataType dtype,
                            const PartialShape& shape = PartialShape()) {
  return AddOp(graph, "Placeholder", name, {},
               {{"dtype", AttrType(dtype)}, {"shape", AttrShape(shape)}});
}

inline Node* AddVariable(Graph* graph, const std::string& name, DataType dtype,
                         const PartialShape& shape) {
  return AddOp(graph, "VariableV2", name, {},
               {{"dtype", AttrType(dtype)}, {"shape", AttrShape(shape)}});
}

template <typename T>
Tensor MakeTensor(const TensorShape& shape, const std::vector<T>& values) {
  Tensor t(DataTypeOf<T>::value, shape);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.num_elements());
  for (int64_t i = 0;
       i < t.num_elements() && i < static_cast<int64_t>(values.size()); ++i) {
    t.data<T>()[i] = values[i];
  }
  return t;
}

template <typename T>
std::vector<T> ToVector(const Tensor& t) {
  std::vector<T> out;
  if (t.dtype() != DataTypeOf<T>::value) {
    ADD_FAILURE() << "ToVector: tensor is " << DataTypeName(t.dtype());
    return out;
  }
  for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(t.data<T>()[i]);
  return out;
}

}  // namespace test

inline std::ostream& operator<<(std::ostream& os, const Status& s) {
  return os << s.ToString();
}

}  // namespace tensorweave

#define TW_EXPECT_OK(expr)                       \
  do {                                           \
    ::tensorweave::Status _tw_s = (expr);        \
    EXPECT_TRUE(_tw_s.ok()) << _tw_s.ToString(); \
  } while (0)
#define TW_ASSERT_OK(expr)                       \
  do {                                           \
    ::tensorweave::Status _tw_s = (expr);        \
    ASSERT_TRUE(_tw_s.ok()) << _tw_s.ToString(); \
  } while (0)

#endif  // TENSORWEAVE_CORE_FRAMEWORK_GRAPH_TEST_UTIL_H_

// The op registry: each op is defined once, with its typed inputs and
// outputs, attrs (defaults, allowed values), shape function and doc. Python
// wrappers, gradients, kernels and converters all key on the op's name.
//
//   REGISTER_OP("MatMul")
//       .Input("a: T")
//       .Input("b: T")
//       .Output("product: T")
//       .Attr("transpose_a: bool = false")
//       .Attr("T: {float32, float64, int32, int64}")
//       .SetShapeFn(MatMulShape)
//       .Doc("Multiplies matrix a by matrix b.");
#ifndef TENSORWEAVE_CORE_FRAMEWORK_OP_DEF_H_
#define TENSORWEAVE_CORE_FRAMEWORK_OP_DEF_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/framework/graph.pb.h"
#include "core/framework/status.h"
#include "core/framework/types.h"

namespace tensorweave {

class InferenceContext;
using ShapeFn = std::function<Status(InferenceContext*)>;

// One input or output of an op. Its dtype is fixed (`type`), taken from a
// type attr (`type_attr`), or, for a list, `number_attr` copies of
// `type_attr` or the dtypes listed by `type_list_attr`.
struct ArgDef {
  std::string name;
  DataType type = DT_INVALID;
  std::string type_attr;
  std::string number_attr;
  std::string type_list_attr;
  bool is_ref = false;
  bool is_list() const {
    return !number_attr.empty() || !type_list_attr.empty();
  }
};

struct AttrDef {
  std::string name;
  std::string type;  // "int", "float", "bool", "string", "type", "shape",
                     // "tensor", "func", "list(<one of those>)"
  bool has_default = false;
  AttrValue default_value;
  std::vector<DataType> allowed_types;       // for "type" / "list(type)"
  std::vector<std::string> allowed_strings;  // for "string"
  bool has_minimum = false;
  int64_t minimum = 0;  // for "int" (value) and "list(...)" (length)
};

struct OpDef {
  std::string name;
  std::vector<ArgDef> inputs;
  std::vector<ArgDef> outputs;
  std::vector<AttrDef> attrs;
  bool is_stateful = false;
  // Runs before a node of this op may be added to a graph.
  ShapeFn shape_fn;
  std::string doc;

  const AttrDef* FindAttr(const std::string& attr_name) const;
};

class OpRegistry {
 public:
  static OpRegistry* Global();
  // Fails if an op of that name is already registered.
  Status Register(OpDef op_def);
  // Null when unknown.
  const OpDef* Find(const std::string& name) const;
  Status LookUp(const std::string& name, const OpDef** op_def) const;
  std::vector<std::string> ListOps() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<OpDef>> ops_;
};

class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string name);
  // "name: T", "name: float32", "name: Ref(T)", "name: N * T",
  // "name: Tlist" (a list(type) attr).
  OpDefBuilder& Input(const std::string& spec);
  OpDefBuilder& Output(const std::string& spec);
  // "T: type", "T: {float32, int32}", "N: int >= 1", "keep_dims: bool =
  // false", "padding: {'SAME', 'VALID'}", "shape: shape = unknown",
  // "perm: list(int) = [0, 1]".
  OpDefBuilder& Attr(const std::string& spec);
  OpDefBuilder& SetIsStateful();
  OpDefBuilder& SetShapeFn(ShapeFn fn);
  OpDefBuilder& Doc(std::string doc);
  // Parses everything; the first spec error, if any, is returned.
  Status Finalize(OpDef* op_def) const;

 private:
  OpDef op_def_;
  std::vector<std::string> input_specs_, output_specs_, attr_specs_;
};

// Registers at static-initialization time; a malformed definition aborts
// the process with the spec error (it is a programming error).
struct OpRegistrar {
  OpRegistrar(const OpDefBuilder& builder);  // NOLINT
};

#define REGISTER_OP(name) REGISTER_OP_UNIQ_HELPER(__COUNTER__, name)
#define REGISTER_OP_UNIQ_HELPER(ctr, name) REGISTER_OP_UNIQ(ctr, name)
#define REGISTER_OP_UNIQ(ctr, name)                       \
  static ::tensorweave::OpRegistrar tw_op_registrar_##ctr \
      __attribute__((unused)) = ::tensorweave::OpDefBuilder(name)

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_OP_DEF_H_

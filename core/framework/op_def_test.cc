#include "core/framework/op_def.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

bool HasSubstr(const std::string& s, const std::string& sub) {
  return s.find(sub) != std::string::npos;
}

OpDefBuilder Builder(const std::string& name) {
  OpDefBuilder b(name);
  b.SetShapeFn(shape_fns::UnknownShape);
  return b;
}

TEST(OpDefBuilderTest, ArgForms) {
  OpDef op;
  TW_ASSERT_OK(Builder("ArgForms")
                   .Input("a: T")
                   .Input("b: float32")
                   .Input("c: Ref(T)")
                   .Input("d: N * T")
                   .Input("e: Tlist")
                   .Input("f: Ref(int64)")
                   .Output("out: double")
                   .Attr("T: type")
                   .Attr("N: int")
                   .Attr("Tlist: list(type)")
                   .Finalize(&op));
  EXPECT_EQ(op.name, "ArgForms");
  ASSERT_EQ(op.inputs.size(), 6u);
  const ArgDef& a = op.inputs[0];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.type_attr, "T");
  EXPECT_EQ(a.type, DT_INVALID);
  EXPECT_FALSE(a.is_ref);
  EXPECT_FALSE(a.is_list());
  const ArgDef& b = op.inputs[1];
  EXPECT_EQ(b.type, DT_FLOAT);
  EXPECT_TRUE(b.type_attr.empty());
  const ArgDef& c = op.inputs[2];
  EXPECT_TRUE(c.is_ref);
  EXPECT_EQ(c.type_attr, "T");
  const ArgDef& d = op.inputs[3];
  EXPECT_EQ(d.number_attr, "N");
  EXPECT_EQ(d.type_attr, "T");
  EXPECT_TRUE(d.is_list());
  const ArgDef& e = op.inputs[4];
  EXPECT_EQ(e.type_list_attr, "Tlist");
  EXPECT_TRUE(e.type_attr.empty());
  EXPECT_TRUE(e.is_list());
  const ArgDef& f = op.inputs[5];
  EXPECT_TRUE(f.is_ref);
  EXPECT_EQ(f.type, DT_INT64);
  ASSERT_EQ(op.outputs.size(), 1u);
  EXPECT_EQ(op.outputs[0].type, DT_DOUBLE);
  EXPECT_FALSE(op.is_stateful);
}

TEST(OpDefBuilderTest, AttrForms) {
  OpDef op;
  TW_ASSERT_OK(Builder("AttrForms")
                   .Attr("T: {float32, int32}")
                   .Attr("U: {numbertype} = int64")
                   .Attr("V: type = float64")
                   .Attr("N: int >= 2")
                   .Attr("M: int >= 0 = 3")
                   .Attr("L: list(type) >= 1")
                   .Attr("keep_dims: bool = false")
                   .Attr("flag: bool = true")
                   .Attr("alpha: float = 0.25")
                   .Attr("count: int = -7")
                   .Attr("padding: {'SAME', 'VALID'} = 'SAME'")
                   .Attr("label: string = 'hi'")
                   .Attr("empty: string = ''")
                   .Attr("shape: shape = unknown")
                   .Attr("fixed: shape = [2, -1, 3]")
                   .Attr("scalar: shape = []")
                   .Attr("perm: list(int) = [0, 1]")
                   .Attr("none: list(int) = []")
                   .Attr("fs: list(float) = [0.5, 2]")
                   .Attr("ss: list(string) = ['a', 'b']")
                   .Attr("ts: list(type) = [int32, float32]")
                   .Attr("value: tensor")
                   .Attr("fn: func")
                   .SetIsStateful()
                   .Doc("doc text")
                   .Finalize(&op));
  EXPECT_TRUE(op.is_stateful);
  EXPECT_EQ(op.doc, "doc text");
  ASSERT_EQ(op.attrs.size(), 23u);

  const AttrDef* t = op.FindAttr("T");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->type, "type");
  EXPECT_EQ(t->allowed_types, (std::vector<DataType>{DT_FLOAT, DT_INT32}));
  EXPECT_FALSE(t->has_default);

  const AttrDef* u = op.FindAttr("U");
  EXPECT_EQ(u->type, "type");
  EXPECT_EQ(u->allowed_types.size(), 14u);  // numbertype (with complex)
  ASSERT_TRUE(u->has_default);
  EXPECT_EQ(u->default_value.type(), DT_INT64);
  EXPECT_EQ(op.FindAttr("V")->default_value.type(), DT_DOUBLE);

  const AttrDef* n = op.FindAttr("N");
  EXPECT_EQ(n->type, "int");
  EXPECT_TRUE(n->has_minimum);
  EXPECT_EQ(n->minimum, 2);
  EXPECT_FALSE(n->has_default);

  const AttrDef* m = op.FindAttr("M");
  EXPECT_EQ(m->type, "int");
  EXPECT_TRUE(m->has_minimum);
  EXPECT_EQ(m->minimum, 0);
  ASSERT_TRUE(m->has_default);
  EXPECT_EQ(m->default_value.i(), 3);

  const AttrDef* l = op.FindAttr("L");
  EXPECT_EQ(l->type, "list(type)");
  EXPECT_EQ(l->minimum, 1);

  EXPECT_EQ(op.FindAttr("keep_dims")->default_value.value_case(),
            AttrValue::kB);
  EXPECT_FALSE(op.FindAttr("keep_dims")->default_value.b());
  EXPECT_TRUE(op.FindAttr("flag")->default_value.b());
  EXPECT_FLOAT_EQ(op.FindAttr("alpha")->default_value.f(), 0.25f);
  EXPECT_EQ(op.FindAttr("count")->default_value.i(), -7);

  const AttrDef* padding = op.FindAttr("padding");
  EXPECT_EQ(padding->type, "string");
  EXPECT_EQ(padding->allowed_strings,
            (std::vector<std::string>{"SAME", "VALID"}));
  EXPECT_EQ(padding->default_value.s(), "SAME");
  EXPECT_EQ(op.FindAttr("label")->default_value.s(), "hi");
  ASSERT_TRUE(op.FindAttr("empty")->has_default);
  EXPECT_EQ(op.FindAttr("empty")->default_value.value_case(), AttrValue::kS);
  EXPECT_EQ(op.FindAttr("empty")->default_value.s(), "");

  const AttrDef* shape = op.FindAttr("shape");
  EXPECT_EQ(shape->type, "shape");
  ASSERT_TRUE(shape->has_default);
  EXPECT_TRUE(shape->default_value.shape().unknown_rank());
  PartialShape fixed;
  TW_ASSERT_OK(PartialShape::FromProto(
      op.FindAttr("fixed")->default_value.shape(), &fixed));
  EXPECT_EQ(fixed, PartialShape({2, -1, 3}));
  PartialShape scalar;
  TW_ASSERT_OK(PartialShape::FromProto(
      op.FindAttr("scalar")->default_value.shape(), &scalar));
  EXPECT_EQ(scalar, PartialShape({}));

  const AttrDef* perm = op.FindAttr("perm");
  EXPECT_EQ(perm->type, "list(int)");
  ASSERT_EQ(perm->default_value.list().i_size(), 2);
  EXPECT_EQ(perm->default_value.list().i(0), 0);
  EXPECT_EQ(perm->default_value.list().i(1), 1);
  const AttrDef* none = op.FindAttr("none");
  ASSERT_TRUE(none->has_default);
  EXPECT_EQ(none->default_value.value_case(), AttrValue::kList);
  EXPECT_EQ(none->default_value.list().i_size(), 0);
  const auto& fs = op.FindAttr("fs")->default_value.list();
  ASSERT_EQ(fs.f_size(), 2);
  EXPECT_FLOAT_EQ(fs.f(0), 0.5f);
  EXPECT_FLOAT_EQ(fs.f(1), 2.0f);
  const auto& ss = op.FindAttr("ss")->default_value.list();
  ASSERT_EQ(ss.s_size(), 2);
  EXPECT_EQ(ss.s(0), "a");
  EXPECT_EQ(ss.s(1), "b");
  const auto& ts = op.FindAttr("ts")->default_value.list();
  ASSERT_EQ(ts.type_size(), 2);
  EXPECT_EQ(ts.type(0), DT_INT32);
  EXPECT_EQ(ts.type(1), DT_FLOAT);
  EXPECT_EQ(op.FindAttr("value")->type, "tensor");
  EXPECT_EQ(op.FindAttr("fn")->type, "func");
  EXPECT_EQ(op.FindAttr("missing"), nullptr);
}

void ExpectBadSpec(const OpDefBuilder& builder, const std::string& fragment) {
  OpDef op;
  Status s = builder.Finalize(&op);
  EXPECT_FALSE(s.ok()) << "expected an error containing '" << fragment << "'";
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), fragment))
      << "message: " << s.message() << "\nexpected: " << fragment;
}

TEST(OpDefBuilderTest, BadSpecsRejected) {
  ExpectBadSpec(Builder("B").Input("x T"), "has no ':'");
  ExpectBadSpec(Builder("B").Input("1x: float32"), "bad arg name");
  ExpectBadSpec(Builder("B").Input("x: T"), "undeclared attr 'T'");
  ExpectBadSpec(Builder("B").Input("x: N * float32"), "undeclared attr 'N'");
  ExpectBadSpec(Builder("B").Output("y: Q").Attr("T: type"),
                "undeclared attr 'Q'");
  ExpectBadSpec(Builder("B").Input("x: [T]").Attr("T: type"), "bad type");
  ExpectBadSpec(Builder("B").Attr("T type"), "has no ':'");
  ExpectBadSpec(Builder("B").Attr("2T: type"), "bad attr name");
  ExpectBadSpec(Builder("B").Attr("T: integer"), "unknown attr type 'integer'");
  ExpectBadSpec(Builder("B").Attr("T: {float32, qint8}"),
                "bad allowed value 'qint8'");
  ExpectBadSpec(Builder("B").Attr("b: bool = yes"), "bad bool default 'yes'");
  ExpectBadSpec(Builder("B").Attr("t: type = qint8"),
                "bad type default 'qint8'");
  ExpectBadSpec(Builder("B").Attr("s: shape = 2, 3"),
                "bad shape default '2, 3'");
  ExpectBadSpec(Builder("B").Attr("l: list(int) = 1"), "bad list default");
  ExpectBadSpec(Builder("B").Attr("l: list(type) = [int32, what]"),
                "bad type 'what'");
  ExpectBadSpec(Builder("B").Attr("v: tensor = 1"), "no defaults");
  // The error names the spec it comes from.
  ExpectBadSpec(Builder("B").Attr("b: bool = 1"), "attr spec 'b: bool = 1'");
  // No shape function.
  OpDef op;
  Status s = OpDefBuilder("NoShapeFn").Attr("T: type").Finalize(&op);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(HasSubstr(s.message(), "'NoShapeFn' has no shape function"))
      << s.message();
}

TEST(OpRegistryTest, RegisterFindAndDuplicates) {
  OpRegistry registry;
  OpDef op;
  TW_ASSERT_OK(Builder("Local").Input("x: float32").Finalize(&op));
  TW_EXPECT_OK(registry.Register(op));
  EXPECT_NE(registry.Find("Local"), nullptr);
  Status s = registry.Register(op);
  EXPECT_EQ(s.code(), Code::kAlreadyExists);
  const OpDef* found = nullptr;
  s = registry.LookUp("Nope", &found);
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_TRUE(HasSubstr(s.message(), "'Nope'"));
  EXPECT_EQ(registry.ListOps(), std::vector<std::string>{"Local"});
}

TEST(OpRegistryTest, CoreOpsAreRegistered) {
  std::vector<std::string> ops = OpRegistry::Global()->ListOps();
  for (const char* name :
       {"Const", "Placeholder", "Identity", "Shape", "Reshape", "Fill", "NoOp",
        "Add", "Sub", "Mul", "Div", "Neg", "Cast", "MatMul", "VariableV2",
        "Assign", "AssignAdd", "AssignSub", "IsVariableInitialized"}) {
    EXPECT_NE(std::find(ops.begin(), ops.end(), name), ops.end()) << name;
  }
}

TEST(OpRegistryTest, EveryOpHasShapeFnAndCpuKernel) {
  std::vector<std::string> ops = OpRegistry::Global()->ListOps();
  ASSERT_FALSE(ops.empty());
  for (const std::string& name : ops) {
    const OpDef* op = OpRegistry::Global()->Find(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_TRUE(static_cast<bool>(op->shape_fn)) << name;
    EXPECT_FALSE(op->doc.empty()) << name << " has no doc";
    EXPECT_TRUE(KernelRegistry::Global()->HasKernel(name, DEVICE_CPU))
        << "op '" << name << "' has no CPU kernel";
    // Every arg refers to declared attrs (Finalize checked this too).
    for (const auto* args : {&op->inputs, &op->outputs}) {
      for (const ArgDef& arg : *args) {
        if (!arg.type_attr.empty()) {
          EXPECT_NE(op->FindAttr(arg.type_attr), nullptr) << name;
        } else if (arg.type_list_attr.empty()) {
          EXPECT_NE(arg.type, DT_INVALID) << name << " arg " << arg.name;
        }
      }
    }
  }
  // Kernels registered only for known ops.
  for (const std::string& name : KernelRegistry::Global()->RegisteredOps()) {
    EXPECT_NE(OpRegistry::Global()->Find(name), nullptr)
        << "kernel for unregistered op " << name;
  }
  // Kernels are per device type: Add has a GPU registration here only for
  // int32 shape arithmetic in host memory (the CUDA kernels are in the GPU
  // library), and none for a type no device has.
  EXPECT_TRUE(KernelRegistry::Global()->HasKernel("Add", "GPU"));
  EXPECT_FALSE(KernelRegistry::Global()->HasKernel("Add", "TPU"));
  EXPECT_FALSE(KernelRegistry::Global()->HasKernel("NoSuchOp", DEVICE_CPU));
}

}  // namespace
}  // namespace tensorweave

#include "core/framework/graph.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::AddPlaceholder;
using test::AddVariable;
using test::AttrBool;
using test::AttrInt;
using test::AttrShape;
using test::AttrTensor;
using test::AttrType;
using test::MakeNodeDef;
using test::MakeTensor;
using test::TryAddOp;

bool HasSubstr(const std::string& s, const std::string& sub) {
  return s.find(sub) != std::string::npos;
}
#define EXPECT_HAS(status, fragment)                   \
  EXPECT_TRUE(HasSubstr((status).message(), fragment)) \
      << "message: " << (status).message() << "\nexpected: " << (fragment)

Tensor F(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = i;
  return t;
}

// ------------------------------------------------------------ AddNode ---

TEST(GraphAddNodeTest, InfersTypeAttrAndFillsDefaults) {
  Graph g;
  Node* a = AddConst(&g, "a", F({2, 3}));
  Node* b = AddConst(&g, "b", F({3, 4}));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->output_type(0), DT_FLOAT);
  EXPECT_EQ(a->output_shape(0), PartialShape({2, 3}));
  ASSERT_NE(a->constant_value(), nullptr);
  EXPECT_TRUE(a->constant_value()->SameContents(F({2, 3})));

  Node* mm = AddOp(&g, "MatMul", "mm", {"a", "b:0"});
  ASSERT_NE(mm, nullptr);
  DataType t;
  TW_ASSERT_OK(GetAttr(mm->attrs(), "T", &t));
  EXPECT_EQ(t, DT_FLOAT);
  bool ta = true, tb = true;
  TW_ASSERT_OK(GetAttr(mm->attrs(), "transpose_a", &ta));
  TW_ASSERT_OK(GetAttr(mm->attrs(), "transpose_b", &tb));
  EXPECT_FALSE(ta);
  EXPECT_FALSE(tb);
  EXPECT_EQ(mm->output_type(0), DT_FLOAT);
  EXPECT_EQ(mm->output_shape(0), PartialShape({2, 4}));
  EXPECT_EQ(mm->constant_value(), nullptr);
  EXPECT_EQ(mm->num_inputs(), 2);
  EXPECT_EQ(mm->input(0).node, a);
  EXPECT_EQ(mm->input(1).node, b);
  EXPECT_EQ(mm->input_type(1), DT_FLOAT);
  ASSERT_EQ(a->out_edges().size(), 1u);
  EXPECT_EQ(a->out_edges()[0].dst, mm);
  EXPECT_EQ(b->out_edges()[0].dst_input, 1);
  EXPECT_EQ(mm->DebugName(), "'mm' (op: 'MatMul')");

  Node* shape = AddOp(&g, "Shape", "shape", {"mm"});
  DataType out_type;
  TW_ASSERT_OK(GetAttr(shape->attrs(), "out_type", &out_type));
  EXPECT_EQ(out_type, DT_INT32);
  EXPECT_EQ(shape->output_type(0), DT_INT32);
  EXPECT_EQ(shape->output_shape(0), PartialShape({2}));

  // Transposes are honoured by shape inference.
  Node* mmt =
      AddOp(&g, "MatMul", "mmt", {"a", "a"}, {{"transpose_a", AttrBool(true)}});
  EXPECT_EQ(mmt->output_shape(0), PartialShape({3, 3}));

  // Explicit T that agrees with the inputs is fine.
  EXPECT_NE(AddOp(&g, "Add", "add", {"a", "a"}, {{"T", AttrType(DT_FLOAT)}}),
            nullptr);
  EXPECT_EQ(g.num_nodes(), 6);
  EXPECT_EQ(g.FindNode("add")->id(), 5);
  EXPECT_EQ(g.node(5)->name(), "add");
  EXPECT_EQ(g.node(6), nullptr);
  EXPECT_EQ(g.node(-1), nullptr);
  EXPECT_EQ(g.FindNode("zzz"), nullptr);
}

TEST(GraphAddNodeTest, ControlInputs) {
  Graph g;
  AddConst(&g, "a", F({}));
  Node* noop = AddOp(&g, "NoOp", "init", {"^a"});
  ASSERT_NE(noop, nullptr);
  EXPECT_EQ(noop->num_inputs(), 0);
  EXPECT_EQ(noop->num_outputs(), 0);
  ASSERT_EQ(noop->control_inputs().size(), 1u);
  EXPECT_EQ(noop->control_inputs()[0]->name(), "a");
  EXPECT_EQ(g.FindNode("a")->control_outputs().size(), 1u);
  // A data input after a control input is malformed.
  Status s = TryAddOp(&g, "Identity", "late", {"^a", "a"});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "follows a control input");
}

TEST(GraphAddNodeTest, DtypeMismatchNamesNodeAndOp) {
  Graph g;
  AddConst(&g, "f", F({2}));
  AddConst(&g, "i", Tensor::Vector<int32_t>({1, 2}));
  Status s = TryAddOp(&g, "Add", "bad_add", {"f", "i"});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "for node 'bad_add' (op: 'Add')");
  EXPECT_HAS(s, "int32");
  EXPECT_HAS(s, "float32");
  EXPECT_HAS(s, "Input 'y'");
  // Explicit T that disagrees with the first input.
  s = TryAddOp(&g, "Add", "bad_t", {"f", "f"}, {{"T", AttrType(DT_INT32)}});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "Input 'x'");
  EXPECT_HAS(s, "'bad_t'");
  EXPECT_EQ(g.num_nodes(), 2);
  EXPECT_EQ(g.FindNode("bad_add"), nullptr);
  EXPECT_TRUE(g.FindNode("f")->out_edges().empty());
}

TEST(GraphAddNodeTest, Errors) {
  Graph g;
  AddConst(&g, "a", F({2, 2}));

  Status s = TryAddOp(&g, "NoSuchOp", "x", {});
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_HAS(s, "Op type not registered 'NoSuchOp'");
  EXPECT_HAS(s, "'x'");

  s = TryAddOp(&g, "Const", "a", {},
               {{"value", AttrTensor(F({}))}, {"dtype", AttrType(DT_FLOAT)}});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "'a' already exists");

  for (const char* bad_name : {"", "_x", "/x", "a b", "x:0"}) {
    s = TryAddOp(&g, "NoOp", bad_name, {});
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << bad_name;
    EXPECT_HAS(s, "not a valid node name");
  }

  s = TryAddOp(&g, "Identity", "id1", {"ghost"});
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_HAS(s, "'ghost'");
  EXPECT_HAS(s, "'id1' (op: 'Identity')");
  s = TryAddOp(&g, "Identity", "id2", {"a:1"});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "has only 1 outputs");
  for (const char* malformed : {"a:", "a:x", ":0", "^", "a:-1"}) {
    s = TryAddOp(&g, "Identity", "id3", {malformed});
    EXPECT_FALSE(s.ok()) << malformed;
    EXPECT_HAS(s, "'id3'");
  }

  // Wrong number of inputs.
  s = TryAddOp(&g, "Add", "one", {"a"});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "expected more inputs");
  EXPECT_HAS(s, "'y'");
  s = TryAddOp(&g, "Add", "three", {"a", "a", "a"});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "op expects 2 inputs, got 3");
  s = TryAddOp(&g, "Neg", "none", {});
  EXPECT_FALSE(s.ok());
  EXPECT_HAS(s, "'none'");

  // Missing required attr; unknown attr; attr of the wrong kind.
  s = TryAddOp(&g, "Placeholder", "p", {});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "missing attr 'dtype'");
  s = TryAddOp(&g, "NoOp", "n", {}, {{"bogus", AttrInt(1)}});
  EXPECT_HAS(s, "attr 'bogus' not in op 'NoOp'");
  s = TryAddOp(&g, "MatMul", "mm", {"a", "a"}, {{"transpose_a", AttrInt(1)}});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "transpose_a");
  EXPECT_HAS(s, "'mm'");

  // Ref input required.
  s = TryAddOp(&g, "Assign", "assign", {"a", "a"});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "must be a variable");
  EXPECT_HAS(s, "'assign' (op: 'Assign')");

  // Disallowed attr value: Add on strings, MatMul on uint8, Shape to float.
  AddConst(&g, "s", Tensor::Vector<std::string>({"x"}));
  s = TryAddOp(&g, "Add", "sadd", {"s", "s"});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "value for attr 'T' of string is not in the list of allowed");
  EXPECT_HAS(s, "'sadd' (op: 'Add')");
  AddConst(&g, "u", MakeTensor<uint8_t>({1, 1}, {1}));
  s = TryAddOp(&g, "MatMul", "umm", {"u", "u"});
  EXPECT_HAS(s, "not in the list of allowed values");
  s = TryAddOp(&g, "Shape", "fshape", {"a"},
               {{"out_type", AttrType(DT_FLOAT)}});
  EXPECT_HAS(s, "out_type");

  // Const whose value disagrees with dtype.
  s = TryAddOp(&g, "Const", "c", {},
               {{"value", AttrTensor(F({}))}, {"dtype", AttrType(DT_INT32)}});
  EXPECT_FALSE(s.ok());
  EXPECT_HAS(s, "'{{node c}} = Const[");

  // None of the failures added anything.
  EXPECT_EQ(g.num_nodes(), 3);
  EXPECT_TRUE(g.FindNode("a")->out_edges().empty());
}

TEST(GraphAddNodeTest, AssignOnVariable) {
  Graph g;
  Node* v = AddVariable(&g, "v", DT_FLOAT, PartialShape({2}));
  ASSERT_NE(v, nullptr);
  EXPECT_TRUE(v->output_is_ref(0));
  EXPECT_TRUE(v->is_stateful());
  AddConst(&g, "init", F({2}));
  Node* assign = AddOp(&g, "Assign", "assign", {"v", "init"});
  ASSERT_NE(assign, nullptr);
  EXPECT_TRUE(assign->input_is_ref(0));
  EXPECT_FALSE(assign->input_is_ref(1));
  EXPECT_TRUE(assign->output_is_ref(0));
  EXPECT_EQ(assign->output_shape(0), PartialShape({2}));
  // Shape mismatch with validate_shape.
  AddConst(&g, "three", F({3}));
  Status s = TryAddOp(&g, "Assign", "bad", {"v", "three"});
  EXPECT_FALSE(s.ok());
  EXPECT_HAS(s, "{{node bad}} = Assign[");
  EXPECT_HAS(s, "with input shapes: [2], [3].");
  Node* loose = AddOp(&g, "Assign", "loose", {"v", "three"},
                      {{"validate_shape", AttrBool(false)}});
  ASSERT_NE(loose, nullptr);
  EXPECT_EQ(loose->output_shape(0), PartialShape({3}));
  // AssignAdd: numbers only.
  AddVariable(&g, "sv", DT_STRING, PartialShape({}));
  AddConst(&g, "str", Tensor::Scalar<std::string>("x"));
  s = TryAddOp(&g, "AssignAdd", "sadd", {"sv", "str"});
  EXPECT_HAS(s, "not in the list of allowed values");
}

TEST(GraphShapeInferenceTest, MatMulDimensionMismatch) {
  Graph g;
  AddConst(&g, "a", F({2, 3}));
  AddConst(&g, "b", F({4, 5}));
  Status s = TryAddOp(&g, "MatMul", "my_matmul", {"a", "b"});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "Dimensions must be equal, but are 3 and 4");
  EXPECT_HAS(s, "my_matmul");
  EXPECT_HAS(s, "with input shapes");
  EXPECT_HAS(s, "[2,3], [4,5]");
  // Rank errors.
  AddConst(&g, "v", F({3}));
  s = TryAddOp(&g, "MatMul", "mv", {"a", "v"});
  EXPECT_HAS(s, "Shape must be rank 2 but is rank 1");
  // Unknown dims are fine and propagate.
  AddPlaceholder(&g, "p", DT_FLOAT, PartialShape({-1, -1}));
  Node* mm = AddOp(&g, "MatMul", "pm", {"p", "b"});
  EXPECT_EQ(mm->output_shape(0), PartialShape({-1, 5}));
  AddPlaceholder(&g, "u", DT_FLOAT);
  Node* um = AddOp(&g, "MatMul", "um", {"a", "u"});
  EXPECT_EQ(um->output_shape(0), PartialShape({2, -1}));
}

TEST(GraphShapeInferenceTest, Reshape) {
  Graph g;
  AddConst(&g, "x", F({2, 6}));
  AddConst(&g, "to_m1_4", Tensor::Vector<int32_t>({-1, 4}));
  Node* r = AddOp(&g, "Reshape", "r", {"x", "to_m1_4"});
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->output_shape(0), PartialShape({3, 4}));
  AddConst(&g, "to_m1", Tensor::Vector<int64_t>({-1}));
  Node* flat = AddOp(&g, "Reshape", "flat", {"x", "to_m1"});
  EXPECT_EQ(flat->output_shape(0), PartialShape({12}));
  DataType tshape;
  TW_ASSERT_OK(GetAttr(flat->attrs(), "Tshape", &tshape));
  EXPECT_EQ(tshape, DT_INT64);

  AddConst(&g, "to5", Tensor::Vector<int32_t>({5}));
  Status s = TryAddOp(&g, "Reshape", "bad", {"x", "to5"});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "Cannot reshape a tensor with 12 elements to shape [5]");
  EXPECT_HAS(s,
             "'{{node bad}} = Reshape[T=DT_FLOAT, Tshape=DT_INT32](x, to5)'");
  AddConst(&g, "to_m1_5", Tensor::Vector<int32_t>({-1, 5}));
  s = TryAddOp(&g, "Reshape", "bad2", {"x", "to_m1_5"});
  EXPECT_HAS(s, "cannot be inferred");
  AddConst(&g, "two_m1", Tensor::Vector<int32_t>({-1, -1}));
  s = TryAddOp(&g, "Reshape", "bad3", {"x", "two_m1"});
  EXPECT_HAS(s, "only one input size may be -1");
  AddConst(&g, "neg", Tensor::Vector<int32_t>({-2, -6}));
  s = TryAddOp(&g, "Reshape", "bad4", {"x", "neg"});
  EXPECT_HAS(s, "negative dimension -2");

  // Unknown input shape: the target shape as given.
  AddPlaceholder(&g, "p", DT_FLOAT);
  Node* pr = AddOp(&g, "Reshape", "pr", {"p", "to_m1_4"});
  EXPECT_EQ(pr->output_shape(0), PartialShape({-1, 4}));
  // Non-constant target of known length: rank known only.
  AddPlaceholder(&g, "dims", DT_INT32, PartialShape({3}));
  Node* dr = AddOp(&g, "Reshape", "dr", {"x", "dims"});
  EXPECT_EQ(dr->output_shape(0), PartialShape::Unknown(3));
  AddPlaceholder(&g, "dims2", DT_INT32);
  Node* dr2 = AddOp(&g, "Reshape", "dr2", {"x", "dims2"});
  EXPECT_FALSE(dr2->output_shape(0).known_rank());
}

TEST(GraphShapeInferenceTest, FillAndShape) {
  Graph g;
  AddConst(&g, "dims", Tensor::Vector<int32_t>({2, 0, 3}));
  AddConst(&g, "val", Tensor::Scalar<double>(1.0));
  Node* fill = AddOp(&g, "Fill", "fill", {"dims", "val"});
  EXPECT_EQ(fill->output_shape(0), PartialShape({2, 0, 3}));
  EXPECT_EQ(fill->output_type(0), DT_DOUBLE);
  AddConst(&g, "mat", F({2, 2}));
  Status s = TryAddOp(&g, "Fill", "badfill", {"dims", "mat"});
  EXPECT_HAS(s, "Shape must be rank 0 but is rank 2");
  AddPlaceholder(&g, "u", DT_FLOAT);
  Node* shape =
      AddOp(&g, "Shape", "shape", {"u"}, {{"out_type", AttrType(DT_INT64)}});
  EXPECT_EQ(shape->output_shape(0), PartialShape::Unknown(1));
  EXPECT_EQ(shape->output_type(0), DT_INT64);
}

TEST(GraphShapeInferenceTest, Broadcasting) {
  struct Case {
    PartialShape x, y, out;
  };
  const PartialShape unknown;
  const std::vector<Case> cases = {
      {PartialShape({2, 1, 3}), PartialShape({4, 1}), PartialShape({2, 4, 3})},
      {PartialShape({}), PartialShape({5, 2}), PartialShape({5, 2})},
      {PartialShape({5, 2}), PartialShape({}), PartialShape({5, 2})},
      {PartialShape({0, 3}), PartialShape({1, 3}), PartialShape({0, 3})},
      {PartialShape({1}), PartialShape({0}), PartialShape({0})},
      {PartialShape({-1, 3}), PartialShape({4, 3}), PartialShape({4, 3})},
      {PartialShape({-1, 3}), PartialShape({1, 3}), PartialShape({-1, 3})},
      {PartialShape({-1, 3}), PartialShape({-1, 1}), PartialShape({-1, 3})},
      {PartialShape({-1}), PartialShape({2, 1}), PartialShape({2, -1})},
      {unknown, PartialShape({2}), unknown},
      {PartialShape({3}), unknown, unknown},
  };
  int i = 0;
  for (const Case& c : cases) {
    Graph g;
    AddPlaceholder(&g, "x", DT_FLOAT, c.x);
    AddPlaceholder(&g, "y", DT_FLOAT, c.y);
    Node* add = AddOp(&g, "Add", "add", {"x", "y"});
    ASSERT_NE(add, nullptr) << i;
    EXPECT_EQ(add->output_shape(0), c.out)
        << "case " << i << ": " << c.x.ToString() << " + " << c.y.ToString()
        << " gave " << add->output_shape(0).ToString();
    PartialShape direct;
    TW_EXPECT_OK(InferenceContext::BroadcastShapes(c.x, c.y, &direct));
    EXPECT_EQ(direct, c.out);
    ++i;
  }
  Graph g;
  AddPlaceholder(&g, "x", DT_FLOAT, PartialShape({2, 3}));
  AddPlaceholder(&g, "y", DT_FLOAT, PartialShape({3, 2}));
  Status s = TryAddOp(&g, "Mul", "mul", {"x", "y"});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "Dimensions must be equal, but are 2 and 3");
  EXPECT_HAS(s, "for '{{node mul}} = Mul[T=DT_FLOAT](x, y)'");
  EXPECT_HAS(s, "with input shapes: [2,3], [3,2].");
}

TEST(GraphTest, ParseTensorName) {
  Graph g;
  Node* a = AddConst(&g, "scope/a", F({}));
  Endpoint e;
  TW_ASSERT_OK(g.ParseTensorName("scope/a", &e));
  EXPECT_EQ(e.node, a);
  EXPECT_EQ(e.index, 0);
  EXPECT_EQ(e.ToString(), "scope/a:0");
  TW_ASSERT_OK(g.ParseTensorName("scope/a:0", &e));
  EXPECT_EQ(e.index, 0);
  TW_ASSERT_OK(g.ParseTensorName("^scope/a", &e));
  EXPECT_EQ(e.index, -1);
  EXPECT_EQ(g.ParseTensorName("scope/a:1", &e).code(), Code::kInvalidArgument);
  EXPECT_EQ(g.ParseTensorName("b:0", &e).code(), Code::kNotFound);
  EXPECT_EQ(g.ParseTensorName("a:b", &e).code(), Code::kInvalidArgument);
  EXPECT_EQ(g.ParseTensorName("", &e).code(), Code::kInvalidArgument);
  EXPECT_EQ(Endpoint().ToString(), "<null>");
}

// ----------------------------------------------------------- GraphDef ---

// A graph that uses most features: consts, placeholders, variables, refs,
// control inputs, non-default attrs, both input spellings.
void BuildSample(Graph* g) {
  AddConst(g, "a", F({2, 3}));
  AddConst(g, "b", F({3, 2}));
  AddPlaceholder(g, "p", DT_FLOAT, PartialShape({-1, 2}));
  AddOp(g, "MatMul", "mm", {"a:0", "b"}, {{"transpose_b", AttrBool(false)}});
  AddOp(g, "MatMul", "mmt", {"b", "a"},
        {{"transpose_a", AttrBool(true)}, {"transpose_b", AttrBool(true)}});
  AddOp(g, "Add", "sum", {"mm", "p:0"});
  AddVariable(g, "v", DT_FLOAT, PartialShape({2, 2}));
  AddOp(g, "Assign", "init", {"v", "mm"});
  AddOp(g, "AssignAdd", "update", {"v", "sum", "^init"});
  AddOp(g, "NoOp", "group", {"^update", "^mmt"});
  AddConst(g, "strs", Tensor::Vector<std::string>({"x", "yz"}));
}

std::string StripPrefix(const std::string& s, const std::string& prefix) {
  if (s.rfind("^" + prefix, 0) == 0) return "^" + s.substr(prefix.size() + 1);
  if (s.rfind(prefix, 0) == 0) return s.substr(prefix.size());
  return s;
}

TEST(GraphDefTest, RoundTripWithPrefix) {
  Graph g;
  BuildSample(&g);
  ASSERT_EQ(g.num_nodes(), 11);
  GraphDef def;
  g.ToGraphDef(&def);
  ASSERT_EQ(def.node_size(), 11);
  EXPECT_EQ(def.node(3).name(), "mm");
  // Defaults and inferred attrs are in the NodeDef.
  EXPECT_TRUE(def.node(5).attr().count("T"));
  EXPECT_TRUE(def.node(7).attr().count("use_locking"));

  Graph g2;
  AddConst(&g2, "existing", F({}));
  ImportOptions opts;
  opts.prefix = "imp";
  std::vector<Node*> added;
  TW_ASSERT_OK(g2.ImportGraphDef(def, opts, &added));
  ASSERT_EQ(added.size(), 11u);
  EXPECT_EQ(g2.num_nodes(), 12);
  Node* mm = g2.FindNode("imp/mm");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->input(0).node, g2.FindNode("imp/a"));
  EXPECT_EQ(mm->output_shape(0), PartialShape({2, 2}));
  EXPECT_EQ(g2.FindNode("imp/group")->control_inputs().size(), 2u);

  GraphDef def2;
  g2.ToGraphDef(&def2);
  ASSERT_EQ(def2.node_size(), 12);
  for (int i = 0; i < def.node_size(); ++i) {
    NodeDef n = def2.node(i + 1);
    n.set_name(StripPrefix(n.name(), "imp/"));
    for (auto& in : *n.mutable_input()) in = StripPrefix(in, "imp/");
    EXPECT_TRUE(
        google::protobuf::util::MessageDifferencer::Equals(n, def.node(i)))
        << "imported:\n"
        << n.DebugString() << "original:\n"
        << def.node(i).DebugString();
    EXPECT_EQ(def2.node(i + 1).name(), "imp/" + def.node(i).name());
  }

  // Without a prefix into an empty graph: identical GraphDef.
  Graph g3;
  TW_ASSERT_OK(g3.ImportGraphDef(def, ImportOptions(), nullptr));
  GraphDef def3;
  g3.ToGraphDef(&def3);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(def3, def))
      << def3.DebugString();

  // Importing the same names twice fails and adds nothing.
  Status s = g3.ImportGraphDef(def, ImportOptions(), nullptr);
  EXPECT_FALSE(s.ok());
  EXPECT_HAS(s, "already exists");
  EXPECT_EQ(g3.num_nodes(), 11);
}

TEST(GraphDefTest, ImportNonTopologicalOrder) {
  Graph g;
  BuildSample(&g);
  GraphDef def;
  g.ToGraphDef(&def);
  GraphDef reversed;
  for (int i = def.node_size() - 1; i >= 0; --i) {
    *reversed.add_node() = def.node(i);
  }
  Graph g2;
  std::vector<Node*> added;
  TW_ASSERT_OK(g2.ImportGraphDef(reversed, ImportOptions(), &added));
  EXPECT_EQ(g2.num_nodes(), 11);
  // Every node comes after its inputs.
  for (int id = 0; id < g2.num_nodes(); ++id) {
    Node* n = g2.node(id);
    for (int i = 0; i < n->num_inputs(); ++i) {
      EXPECT_LT(n->input(i).node->id(), id) << n->name();
    }
    for (Node* c : n->control_inputs()) EXPECT_LT(c->id(), id) << n->name();
  }
  EXPECT_EQ(g2.FindNode("sum")->output_shape(0), PartialShape({2, 2}));
}

TEST(GraphDefTest, CycleRejected) {
  GraphDef def;
  *def.add_node() = MakeNodeDef(
      "Const", "c", {},
      {{"value", AttrTensor(F({}))}, {"dtype", AttrType(DT_FLOAT)}});
  *def.add_node() = MakeNodeDef("Add", "x", {"c", "y"});
  *def.add_node() = MakeNodeDef("Identity", "y", {"x"});
  Graph g;
  Status s = g.ImportGraphDef(def, ImportOptions(), nullptr);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "cycle");
  EXPECT_TRUE(HasSubstr(s.message(), "'x'") || HasSubstr(s.message(), "'y'"))
      << s.message();
  EXPECT_EQ(g.num_nodes(), 0);

  // A control-edge cycle too.
  GraphDef ctl;
  *ctl.add_node() = MakeNodeDef("NoOp", "n1", {"^n2"});
  *ctl.add_node() = MakeNodeDef("NoOp", "n2", {"^n1"});
  s = g.ImportGraphDef(ctl, ImportOptions(), nullptr);
  EXPECT_HAS(s, "cycle");
  // Self loop.
  GraphDef self;
  *self.add_node() = MakeNodeDef("NoOp", "me", {"^me"});
  s = g.ImportGraphDef(self, ImportOptions(), nullptr);
  EXPECT_HAS(s, "cycle through node 'me'");
  EXPECT_EQ(g.num_nodes(), 0);
}

TEST(GraphDefTest, InputMapReplacesTensor) {
  Graph src;
  AddPlaceholder(&src, "x", DT_FLOAT, PartialShape({2}));
  AddConst(&src, "one", Tensor::Vector<float>({1, 1}));
  AddOp(&src, "Add", "y", {"x", "one"});
  AddOp(&src, "Mul", "z", {"x:0", "y"});
  AddOp(&src, "NoOp", "dep", {"^x"});
  GraphDef def;
  src.ToGraphDef(&def);

  Graph g;
  Node* mine = AddConst(&g, "mine", Tensor::Vector<float>({3, 4}));
  ImportOptions opts;
  opts.prefix = "imp";
  opts.input_map["x:0"] = Endpoint{mine, 0};
  TW_ASSERT_OK(g.ImportGraphDef(def, opts, nullptr));
  Node* y = g.FindNode("imp/y");
  Node* z = g.FindNode("imp/z");
  ASSERT_NE(y, nullptr);
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(y->input(0).node, mine);
  EXPECT_EQ(z->input(0).node, mine);
  EXPECT_EQ(z->input(1).node, y);
  EXPECT_EQ(y->def().input(0), "mine:0");
  EXPECT_EQ(mine->out_edges().size(), 2u);
  // Control inputs are not remapped.
  EXPECT_EQ(g.FindNode("imp/dep")->control_inputs()[0], g.FindNode("imp/x"));

  // A mapped tensor of the wrong dtype is rejected, and nothing is added.
  Graph g2;
  Node* ints = AddConst(&g2, "ints", Tensor::Vector<int32_t>({3, 4}));
  ImportOptions bad;
  bad.input_map["x:0"] = Endpoint{ints, 0};
  std::vector<Node*> added;
  Status s = g2.ImportGraphDef(def, bad, &added);
  EXPECT_FALSE(s.ok());
  EXPECT_HAS(s, "'y' (op: 'Add')");
  EXPECT_EQ(g2.num_nodes(), 1);
  EXPECT_TRUE(ints->out_edges().empty());
  EXPECT_TRUE(added.empty()) << "added holds pointers to removed nodes";
}

TEST(GraphDefTest, MissingInputRejected) {
  GraphDef def;
  *def.add_node() = MakeNodeDef("Identity", "id", {"ghost:0"});
  Graph g;
  AddConst(&g, "ghost", F({}));  // in the graph, but not in the GraphDef
  Status s = g.ImportGraphDef(def, ImportOptions(), nullptr);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "'ghost:0'");
  EXPECT_HAS(s, "not in the GraphDef");
  EXPECT_EQ(g.num_nodes(), 1);

  GraphDef dup;
  *dup.add_node() = MakeNodeDef("NoOp", "n", {});
  *dup.add_node() = MakeNodeDef("NoOp", "n", {});
  s = g.ImportGraphDef(dup, ImportOptions(), nullptr);
  EXPECT_HAS(s, "two nodes named 'n'");
}

TEST(GraphDefTest, FailingImportAddsNothing) {
  Graph g;
  Node* base = AddConst(&g, "base", F({2, 3}));
  GraphDef def;
  *def.add_node() = MakeNodeDef(
      "Const", "k", {},
      {{"value", AttrTensor(F({4, 5}))}, {"dtype", AttrType(DT_FLOAT)}});
  *def.add_node() = MakeNodeDef("Identity", "ok", {"src"});
  *def.add_node() = MakeNodeDef("NoOp", "ctl", {"^ok"});
  *def.add_node() = MakeNodeDef("MatMul", "bad", {"src", "k"});
  *def.add_node() =
      MakeNodeDef("Placeholder", "src", {}, {{"dtype", AttrType(DT_FLOAT)}});
  ImportOptions opts;
  opts.prefix = "imp";
  opts.input_map["src:0"] = Endpoint{base, 0};
  std::vector<Node*> added;
  Status s = g.ImportGraphDef(def, opts, &added);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "Dimensions must be equal");
  EXPECT_HAS(s, "{{node imp/bad}}");
  EXPECT_EQ(g.num_nodes(), 1);
  EXPECT_TRUE(base->out_edges().empty());
  EXPECT_TRUE(base->control_outputs().empty());
  EXPECT_TRUE(added.empty());
  for (const char* name : {"imp/k", "imp/ok", "imp/ctl", "imp/bad"}) {
    EXPECT_EQ(g.FindNode(name), nullptr) << name;
  }
  // The graph is still usable, and the names are free again.
  def.mutable_node(0)->clear_attr();
  (*def.mutable_node(0)->mutable_attr())["value"] = AttrTensor(F({3, 5}));
  (*def.mutable_node(0)->mutable_attr())["dtype"] = AttrType(DT_FLOAT);
  TW_ASSERT_OK(g.ImportGraphDef(def, opts, &added));
  EXPECT_EQ(g.num_nodes(), 6);
  EXPECT_EQ(added.size(), 5u);
  EXPECT_EQ(g.FindNode("imp/bad")->output_shape(0), PartialShape({2, 5}));
  EXPECT_EQ(base->out_edges().size(), 2u);
}

}  // namespace
}  // namespace tensorweave

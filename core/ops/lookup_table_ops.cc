// Lookup tables (tf.lookup): a hash table is a session resource named by a
// string handle (as a queue's): HashTableV2 filled once by an initializer op,
// the mutable tables changed by LookupTableInsertV2 / LookupTableRemoveV2;
// all read by LookupTableFindV2.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status ScalarHandleShape(InferenceContext* c) {
  c->set_output(0, PartialShape({}));
  return Status::OK();
}

// A mutable table's value_shape: fully defined, at most 2^24 elements.
Status MutableTableShape(InferenceContext* c) {
  PartialShape value_shape;
  TW_RETURN_IF_ERROR(c->GetAttr("value_shape", &value_shape));
  // The product is bounded as it goes (dims up to 2^63 - 1 would overflow
  // num_elements()).
  constexpr int64_t kMaxElements = int64_t{1} << 24;
  bool small = value_shape.known_rank() && value_shape.IsFullyDefined();
  int64_t elements = 1;
  for (int64_t d : value_shape.dims()) {
    if (!small) break;
    small = d <= kMaxElements && (elements *= d) <= kMaxElements;
  }
  if (!small) {
    return errors::InvalidArgument(
        "value_shape must be fully defined with at most 2^24 elements, got ",
        value_shape.ToString());
  }
  return ScalarHandleShape(c);
}

// (The kernel checks that initial_num_buckets is a power of 2 of at least 4
// and that max_load_factor is in (0, 1), as TF's; here only the bound.)
Status DenseTableShape(InferenceContext* c) {
  int64_t buckets = 0;
  TW_RETURN_IF_ERROR(c->GetAttr("initial_num_buckets", &buckets));
  if (buckets > (int64_t{1} << 22)) {
    return errors::InvalidArgument(
        "initial_num_buckets must be at most 2^22, got: ", buckets);
  }
  return MutableTableShape(c);
}

// Keys' shape for a scalar default value; a table of vector values looks up
// keys' shape + value_shape, unknown here (the handle does not carry it).
Status FindShape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 0, &unused));
  const PartialShape& fallback = c->input(2);
  c->set_output(0, fallback.known_rank() && fallback.rank() == 0
                       ? c->input(1)
                       : PartialShape::UnknownRank());
  return Status::OK();
}

// keys and values hold one entry per row: their first dims agree.
Status ImportShape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 0, &unused));
  const PartialShape& keys = c->input(1);
  const PartialShape& values = c->input(2);
  if (keys.known_rank() && values.known_rank() && keys.rank() >= 1 &&
      values.rank() >= 1 && keys.dim(0) >= 0 && values.dim(0) >= 0 &&
      keys.dim(0) != values.dim(0)) {
    return errors::InvalidArgument(
        "Dimensions must be equal, but are ", keys.dim(0), " and ",
        values.dim(0),
        " for keys and values; input shapes: ", c->InputShapesString());
  }
  return Status::OK();
}

Status HandleShape(InferenceContext* c) {
  PartialShape unused;
  return c->WithRank(0, 0, &unused);
}

// (A dense table exports its buckets: keys [n, 1].)
Status ExportShape(InferenceContext* c) {
  c->set_output(0, PartialShape::UnknownRank());
  c->set_output(1, PartialShape::UnknownRank());
  return Status::OK();
}

}  // namespace

REGISTER_OP("HashTableV2")
    .Output("table_handle: string")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("use_node_name_sharing: bool = false")
    .Attr("key_dtype: {string, int32, int64}")
    .Attr("value_dtype: {string, int32, int64, float, double, bool}")
    .SetIsStateful()
    .SetShapeFn(ScalarHandleShape)
    .Doc(
        "An immutable hash table, empty until an initializer op fills it; "
        "its handle.");

REGISTER_OP("MutableHashTableV2")
    .Output("table_handle: string")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("use_node_name_sharing: bool = false")
    .Attr("key_dtype: {string, int32, int64}")
    .Attr("value_dtype: {string, int32, int64, float, double, bool}")
    .SetIsStateful()
    .SetShapeFn(ScalarHandleShape)
    .Doc("An empty mutable hash table of scalar values; its handle.");

REGISTER_OP("MutableHashTableOfTensorsV2")
    .Output("table_handle: string")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("use_node_name_sharing: bool = false")
    .Attr("key_dtype: {string, int32, int64}")
    .Attr("value_dtype: {string, int32, int64, float, double, bool}")
    .Attr("value_shape: shape = []")
    .SetIsStateful()
    .SetShapeFn(MutableTableShape)
    .Doc("An empty mutable hash table of values of value_shape; its handle.");

REGISTER_OP("MutableDenseHashTableV2")
    .Input("empty_key: key_dtype")
    .Input("deleted_key: key_dtype")
    .Output("table_handle: string")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("use_node_name_sharing: bool = false")
    .Attr("key_dtype: {string, int32, int64}")
    .Attr("value_dtype: {string, int32, int64, float, double, bool}")
    .Attr("value_shape: shape = []")
    .Attr("initial_num_buckets: int = 131072")
    .Attr("max_load_factor: float = 0.8")
    .SetIsStateful()
    .SetShapeFn(DenseTableShape)
    .Doc(
        "An empty mutable hash table stored in open-addressed buckets "
        "(empty_key marks a free one, deleted_key a removed entry; neither "
        "may be a key); its handle.");

REGISTER_OP("LookupTableInsertV2")
    .Input("table_handle: string")
    .Input("keys: Tin")
    .Input("values: Tout")
    .Attr("Tin: type")
    .Attr("Tout: type")
    .SetIsStateful()
    .SetShapeFn(HandleShape)
    .Doc(
        "Maps each key to its value (values: keys' shape + the table's "
        "value_shape), replacing values already there.");

REGISTER_OP("LookupTableRemoveV2")
    .Input("table_handle: string")
    .Input("keys: Tin")
    .Attr("Tin: type")
    .SetIsStateful()
    .SetShapeFn(HandleShape)
    .Doc("Removes the keys from a mutable table (absent keys: nothing).");

REGISTER_OP("InitializeTableV2")
    .Input("table_handle: string")
    .Input("keys: Tkey")
    .Input("values: Tval")
    .Attr("Tkey: type")
    .Attr("Tval: type")
    .SetIsStateful()
    .SetShapeFn(ImportShape)
    .Doc(
        "Fills a table with keys[i] -> values[i] (again with the same data: "
        "nothing; with other data: FailedPrecondition).");

REGISTER_OP("LookupTableImportV2")
    .Input("table_handle: string")
    .Input("keys: Tin")
    .Input("values: Tout")
    .Attr("Tin: type")
    .Attr("Tout: type")
    .SetIsStateful()
    .SetShapeFn(ImportShape)
    .Doc("Replaces a table's contents with keys[i] -> values[i].");

REGISTER_OP("InitializeTableFromTextFileV2")
    .Input("table_handle: string")
    .Input("filename: string")
    .Attr("key_index: int >= -2")
    .Attr("value_index: int >= -2")
    .Attr("vocab_size: int >= -1 = -1")
    .Attr("delimiter: string = '\t'")
    .Attr("offset: int = 0")
    .SetIsStateful()
    .SetShapeFn(HandleShape)
    .Doc(
        "Fills a table from a text file, one entry per line: key and value "
        "are the line's fields key_index / value_index split at delimiter, "
        "-2 the whole line, -1 the line number (plus offset); at most "
        "vocab_size lines (-1: all).");

REGISTER_OP("LookupTableFindV2")
    .Input("table_handle: string")
    .Input("keys: Tin")
    .Input("default_value: Tout")
    .Output("values: Tout")
    .Attr("Tin: type")
    .Attr("Tout: type")
    .SetIsStateful()
    .SetShapeFn(FindShape)
    .Doc("Each key's value, default_value for keys not in the table.");

REGISTER_OP("LookupTableSizeV2")
    .Input("table_handle: string")
    .Output("size: int64")
    .SetIsStateful()
    .SetShapeFn(ScalarHandleShape)
    .Doc("How many entries the table holds.");

REGISTER_OP("LookupTableExportV2")
    .Input("table_handle: string")
    .Output("keys: Tkeys")
    .Output("values: Tvalues")
    .Attr("Tkeys: type")
    .Attr("Tvalues: type")
    .SetIsStateful()
    .SetShapeFn(ExportShape)
    .Doc("The table's keys and values, in no particular order.");

}  // namespace tensorweave

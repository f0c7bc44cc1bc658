// Lookup tables (tf.lookup): a hash table is a session resource named by a
// string handle (as a queue's), filled once by an initializer op and read by
// LookupTableFindV2.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status ScalarHandleShape(InferenceContext* c) {
  c->set_output(0, PartialShape({}));
  return Status::OK();
}

Status FindShape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 0, &unused));
  c->set_output(0, c->input(1));
  return Status::OK();
}

Status ImportShape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 0, &unused));
  return Status::OK();
}

Status ExportShape(InferenceContext* c) {
  c->set_output(0, PartialShape({-1}));
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
    .SetShapeFn(ImportShape)
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

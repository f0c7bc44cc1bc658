// tf.data transformations that run a function per element (map, filter,
// flat_map, interleave). The function is a string attr holding a serialized
// function (python/tensorweave/_src/data/function.py writes it,
// core/data/captured_function.h reads it); the tensors of the outer graph
// that the function uses come in as `other_arguments`. Every op outputs a
// scalar string dataset handle (TensorFlow: a variant).
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

namespace {

Status DatasetHandleOutput(InferenceContext* c) {
  PartialShape input;
  TW_RETURN_IF_ERROR(c->WithRank(0, 0, &input));
  c->set_output(0, PartialShape({}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("MapDataset")
    .Input("input_dataset: string")
    .Input("other_arguments: Targuments")
    .Output("handle: string")
    .Attr("f: string")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("use_inter_op_parallelism: bool = true")
    .Attr("preserve_cardinality: bool = false")
    .Attr("force_synchronous: bool = false")
    .Attr("metadata: string = ''")
    .SetShapeFn(DatasetHandleOutput)
    .Doc(
        "The dataset of f(element, *other_arguments) for each element of "
        "input_dataset. f failing with OutOfRange ends the dataset.");

REGISTER_OP("ParallelMapDatasetV2")
    .Input("input_dataset: string")
    .Input("other_arguments: Targuments")
    .Input("num_parallel_calls: int64")
    .Output("handle: string")
    .Attr("f: string")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("use_inter_op_parallelism: bool = true")
    .Attr("deterministic: string = 'default'")
    .Attr("preserve_cardinality: bool = false")
    .Attr("use_unbounded_threadpool: bool = false")
    .Attr("metadata: string = ''")
    .SetShapeFn(DatasetHandleOutput)
    .Doc(
        "MapDataset with num_parallel_calls calls of f at once (-1: one per "
        "core) on the iterator's threads; elements keep the input order "
        "unless deterministic is 'false'.");

REGISTER_OP("FilterDataset")
    .Input("input_dataset: string")
    .Input("other_arguments: Targuments")
    .Output("handle: string")
    .Attr("predicate: string")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(DatasetHandleOutput)
    .Doc(
        "The elements of input_dataset for which predicate (returning one "
        "scalar bool) is true.");

REGISTER_OP("FlatMapDataset")
    .Input("input_dataset: string")
    .Input("other_arguments: Targuments")
    .Output("handle: string")
    .Attr("f: string")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(DatasetHandleOutput)
    .Doc(
        "The concatenation of the datasets f (returning one dataset handle) "
        "makes of each element of input_dataset.");

REGISTER_OP("InterleaveDataset")
    .Input("input_dataset: string")
    .Input("other_arguments: Targuments")
    .Input("cycle_length: int64")
    .Input("block_length: int64")
    .Output("handle: string")
    .Attr("f: string")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(DatasetHandleOutput)
    .Doc(
        "The elements of the datasets f makes of input_dataset's elements, "
        "cycle_length of them at once, block_length elements from each in "
        "turn (TensorFlow's order).");

REGISTER_OP("ParallelInterleaveDatasetV4")
    .Input("input_dataset: string")
    .Input("other_arguments: Targuments")
    .Input("cycle_length: int64")
    .Input("block_length: int64")
    .Input("buffer_output_elements: int64")
    .Input("prefetch_input_elements: int64")
    .Input("num_parallel_calls: int64")
    .Output("handle: string")
    .Attr("f: string")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .Attr("deterministic: string = 'default'")
    .SetShapeFn(DatasetHandleOutput)
    .Doc(
        "InterleaveDataset whose input datasets are read ahead on the "
        "iterator's threads; the order is InterleaveDataset's.");

}  // namespace tensorweave

// tf.data: the dataset sources, the transformations that take no function,
// the iterator ops and DatasetCardinality (core/data/dataset.h). A dataset op
// outputs a scalar string handle that owns its dataset (TensorFlow's is a
// DT_VARIANT tensor); iterator handles name a resource of the session, as the
// queues' do. The function transformations (MapDataset, ...) and the file
// datasets are defined beside their kernels' owners' ops. The dataset ops
// are stateful so that constant folding never runs one at optimization time
// (its handle would outlive the dataset it owns).
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

namespace {

Status ScalarOutput(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape({}));
  }
  return Status::OK();
}

// The output_shapes attr, one output per shape (IteratorGetNext).
Status OutputShapesAttr(InferenceContext* c) {
  std::vector<PartialShape> shapes;
  TW_RETURN_IF_ERROR(c->GetAttr("output_shapes", &shapes));
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, i < static_cast<int>(shapes.size())
                         ? shapes[i]
                         : PartialShape::UnknownRank());
  }
  return Status::OK();
}

Status NoOutputs(InferenceContext*) { return Status::OK(); }

}  // namespace

// Sources.

REGISTER_OP("TensorDataset")
    .Input("components: Toutput_types")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("Toutput_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(ScalarOutput)
    .Doc("A dataset of one element: the components.");

REGISTER_OP("TensorSliceDataset")
    .Input("components: Toutput_types")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("Toutput_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("is_files: bool = false")
    .Attr("metadata: string = ''")
    .Attr("replicate_on_split: bool = false")
    .SetShapeFn(ScalarOutput)
    .Doc(
        "A dataset of the slices of the components along dimension 0 (the "
        "same size in every component).");

REGISTER_OP("RangeDataset")
    .Input("start: int64")
    .Input("stop: int64")
    .Input("step: int64")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .Attr("replicate_on_split: bool = false")
    .SetShapeFn(ScalarOutput)
    .Doc("The int64 scalars start, start + step, ... up to stop (excluded).");

// Transformations.

REGISTER_OP("BatchDatasetV2")
    .Input("input_dataset: string")
    .Input("batch_size: int64")
    .Input("drop_remainder: bool")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("parallel_copy: bool = false")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(ScalarOutput)
    .Doc(
        "Stacks batch_size consecutive elements; the last batch may be "
        "smaller unless drop_remainder.");

REGISTER_OP("PaddedBatchDatasetV2")
    .Input("input_dataset: string")
    .Input("batch_size: int64")
    .Input("padded_shapes: N * int64")
    .Input("padding_values: Toutput_types")
    .Input("drop_remainder: bool")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("parallel_copy: bool = false")
    .Attr("Toutput_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .Attr("N: int >= 1")
    .SetShapeFn(ScalarOutput)
    .Doc(
        "Batches elements padded to padded_shapes (a -1 dim: the longest in "
        "the batch) with padding_values.");

REGISTER_OP("ShuffleDataset")
    .Input("input_dataset: string")
    .Input("buffer_size: int64")
    .Input("seed: int64")
    .Input("seed2: int64")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("reshuffle_each_iteration: bool = true")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(ScalarOutput)
    .Doc(
        "Shuffles through a buffer of buffer_size elements. seed and seed2 "
        "both 0: seeded at random.");

REGISTER_OP("RepeatDataset")
    .Input("input_dataset: string")
    .Input("count: int64")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(ScalarOutput)
    .Doc("Repeats the input count times (-1: forever).");

REGISTER_OP("TakeDataset")
    .Input("input_dataset: string")
    .Input("count: int64")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(ScalarOutput)
    .Doc("The first count elements of the input (-1: all).");

REGISTER_OP("SkipDataset")
    .Input("input_dataset: string")
    .Input("count: int64")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(ScalarOutput)
    .Doc("The input without its first count elements (-1: all).");

REGISTER_OP("ShardDataset")
    .Input("input_dataset: string")
    .Input("num_shards: int64")
    .Input("index: int64")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("require_non_empty: bool = false")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(ScalarOutput)
    .Doc("Every num_shards-th element of the input, from element index.");

REGISTER_OP("ZipDataset")
    .Input("input_datasets: N * string")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .Attr("N: int >= 1")
    .SetShapeFn(ScalarOutput)
    .Doc(
        "Elements made of one element of each input; ends with the shortest "
        "input.");

REGISTER_OP("ConcatenateDataset")
    .Input("input_dataset: string")
    .Input("another_dataset: string")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(ScalarOutput)
    .Doc("The elements of input_dataset, then those of another_dataset.");

REGISTER_OP("PrefetchDataset")
    .Input("input_dataset: string")
    .Input("buffer_size: int64")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .Attr("slack_period: int = 0")
    .Attr("legacy_autotune: bool = true")
    .Attr("buffer_size_min: int = 0")
    .SetShapeFn(ScalarOutput)
    .Doc(
        "Produces the input's elements ahead on a background thread into a "
        "buffer of buffer_size elements (-1: AUTOTUNE).");

REGISTER_OP("CacheDataset")
    .Input("input_dataset: string")
    .Input("filename: string")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(ScalarOutput)
    .Doc(
        "The input's elements, kept by the first complete pass (in memory for "
        "filename \"\", else in files filename.*) and replayed afterwards.");

REGISTER_OP("UnbatchDataset")
    .Input("input_dataset: string")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(ScalarOutput)
    .Doc("The slices along dimension 0 of each input element.");

REGISTER_OP("DatasetCardinality")
    .Input("input_dataset: string")
    .Output("cardinality: int64")
    .Attr("cardinality_options: string = ''")
    .SetShapeFn(ScalarOutput)
    .Doc("The number of elements of the dataset; -1 infinite, -2 unknown.");

// Iterators.

REGISTER_OP("IteratorV2")
    .Output("handle: string")
    .Attr("shared_name: string")
    .Attr("container: string")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetIsStateful()
    .SetShapeFn(ScalarOutput)
    .Doc(
        "An iterator resource of the session, uninitialized until a "
        "MakeIterator starts it on a dataset.");

REGISTER_OP("OneShotIterator")
    .Input("dataset: string")
    .Output("handle: string")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarOutput)
    .Doc(
        "An iterator started on the dataset of the first step that runs it; "
        "later steps ignore the input (TensorFlow's takes a "
        "dataset_factory function instead).");

REGISTER_OP("MakeIterator")
    .Input("dataset: string")
    .Input("iterator: string")
    .SetIsStateful()
    .SetShapeFn(NoOutputs)
    .Doc(
        "(Re)starts the iterator on the dataset, whose dtypes and shapes must "
        "be the iterator's.");

REGISTER_OP("IteratorGetNext")
    .Input("iterator: string")
    .Output("components: output_types")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetIsStateful()
    .SetShapeFn(OutputShapesAttr)
    .Doc(
        "The iterator's next element; OutOfRange once the dataset is "
        "exhausted.");

REGISTER_OP("IteratorGetNextOrEnd")
    .Input("iterator: string")
    .Output("has_value: bool")
    .Output("components: output_types")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      std::vector<PartialShape> shapes;
      TW_RETURN_IF_ERROR(c->GetAttr("output_shapes", &shapes));
      c->set_output(0, PartialShape({}));
      for (int i = 1; i < c->num_outputs(); ++i) {
        c->set_output(i, i - 1 < static_cast<int>(shapes.size())
                             ? shapes[i - 1]
                             : PartialShape::UnknownRank());
      }
      return Status::OK();
    })
    .Doc(
        "The iterator's next element and true; once the dataset is exhausted, "
        "false and zeros (unknown dimensions 0): TensorFlow's "
        "IteratorGetNextAsOptional, its optional as (has_value, value).");

REGISTER_OP("IteratorToStringHandle")
    .Input("resource_handle: string")
    .Output("string_handle: string")
    .SetIsStateful()
    .SetShapeFn(ScalarOutput)
    .Doc("A string naming the iterator, for IteratorFromStringHandleV2.");

REGISTER_OP("IteratorFromStringHandleV2")
    .Input("string_handle: string")
    .Output("resource_handle: string")
    .Attr("output_types: list(type) >= 0 = []")
    .Attr("output_shapes: list(shape) >= 0 = []")
    .SetIsStateful()
    .SetShapeFn(ScalarOutput)
    .Doc(
        "The iterator a string handle names; its dtypes and shapes must be "
        "output_types/output_shapes when given.");

REGISTER_OP("PrivateThreadPoolDataset")
    .Input("input_dataset: string")
    .Input("num_threads: int64")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn(ScalarOutput)
    .Doc(
        "The input's elements, its functions' ops (map, filter, interleave, "
        "...) run on a pool of num_threads threads of its own (0: one per "
        "core) made for each iterator (tf.data.Options' "
        "threading.private_threadpool_size).");

REGISTER_OP("MaxIntraOpParallelismDataset")
    .Input("input_dataset: string")
    .Input("max_intra_op_parallelism: int64")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn(ScalarOutput)
    .Doc(
        "The input's elements, each kernel of its functions splitting its "
        "work over at most max_intra_op_parallelism threads (0: the "
        "session's intra-op setting; tf.data.Options' "
        "threading.max_intra_op_parallelism).");

}  // namespace tensorweave

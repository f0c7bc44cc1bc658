// tf.data in the C++ runtime: datasets, their iterators, and the kernels that
// build them.
//
// A dataset is an immutable description of a sequence of elements (an element
// is a tuple of tensors, its components). Graph ops build datasets: each
// dataset op outputs a scalar string *handle* tensor that owns its dataset
// (HandleRegistry), where TensorFlow outputs a DT_VARIANT tensor. An iterator
// walks a dataset once; iterators are the only mutable state, and live in the
// session's ResourceMgr (IteratorV2 / OneShotIterator), so that successive
// Session.run calls continue where the last one stopped. Background work
// (prefetch, parallel map) runs on the iterator's own threads, which end when
// the iterator is destroyed (Session.close, a new MakeIterator).
#ifndef TENSORWEAVE_CORE_DATA_DATASET_H_
#define TENSORWEAVE_CORE_DATA_DATASET_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/status.h"
#include "core/framework/tensor.h"
#include "core/framework/tensor_shape.h"
#include "core/framework/types.h"

namespace tensorweave {
namespace data {

// One element of a dataset: its components, in order.
using Element = std::vector<Tensor>;
using DataTypeVector = std::vector<DataType>;

// What an iterator may use while it produces elements. Owned by the iterator
// resource; outlives every iterator made from it.
struct IteratorContext {
  ResourceMgr* resource_mgr = nullptr;  // the session's (functions' kernels)
  ThreadPool* intra_op_pool = nullptr;  // the session's (functions' kernels)
  // A PrivateThreadPoolDataset's own pool: every function call of the
  // pipeline (map, filter, interleave, ...) runs there, all its ops; null:
  // the calls start on the caller's thread and hand ops on to the process's
  // shared function pool (captured_function.cc).
  ThreadPool* function_pool = nullptr;
};

class IteratorBase {
 public:
  virtual ~IteratorBase() = default;

  // Produces the next element into `out`, or sets `*end_of_sequence` (and
  // leaves `out` empty) once the dataset is exhausted; every later call says
  // end of sequence again. An error is returned as is and ends nothing: the
  // caller sees it from IteratorGetNext. Calls are serialized by the caller
  // (IteratorGetNext holds the iterator resource's lock); an iterator that
  // works in the background synchronizes with its own threads.
  virtual Status GetNext(IteratorContext* ctx, Element* out,
                         bool* end_of_sequence) = 0;
};

// Cardinality() values that are not a count.
constexpr int64_t kInfiniteCardinality = -1;
constexpr int64_t kUnknownCardinality = -2;

class DatasetBase {
 public:
  DatasetBase(DataTypeVector output_dtypes,
              std::vector<PartialShape> output_shapes)
      : output_dtypes_(std::move(output_dtypes)),
        output_shapes_(std::move(output_shapes)) {}
  virtual ~DatasetBase() = default;

  const DataTypeVector& output_dtypes() const { return output_dtypes_; }
  const std::vector<PartialShape>& output_shapes() const {
    return output_shapes_;
  }

  // A new iterator over the whole dataset, positioned at its start. `ctx`
  // is the context its GetNext calls will get. Iterators share nothing
  // mutable: any number may walk one dataset at once.
  virtual Status MakeIterator(IteratorContext* ctx,
                              std::unique_ptr<IteratorBase>* out) const = 0;

  // The number of elements, kInfiniteCardinality or kUnknownCardinality.
  virtual int64_t Cardinality() const { return kUnknownCardinality; }

  // For errors and debugging, e.g. "BatchDataset(TensorSliceDataset)".
  virtual std::string DebugString() const = 0;

 private:
  const DataTypeVector output_dtypes_;
  const std::vector<PartialShape> output_shapes_;
};

using DatasetPtr = std::shared_ptr<const DatasetBase>;

// The handle tensor (a scalar string) that owns `dataset`.
Tensor MakeDatasetHandle(DatasetPtr dataset);

// The dataset a handle names. A tensor that is not a dataset handle is
// InvalidArgument (naming `what`, e.g. "input_dataset").
Status GetDatasetFromHandle(const Tensor& handle, const char* what,
                            DatasetPtr* dataset);

// Checks that an element matches the declared component dtypes and shapes;
// the error names `who` (the dataset or op) and the component.
Status CheckElement(const std::string& who, const DataTypeVector& dtypes,
                    const std::vector<PartialShape>& shapes,
                    const Element& element);

// The base of every op that outputs a dataset: MakeDataset builds it from the
// op's inputs and attrs; Compute outputs its handle. The constructor reads
// the `output_types` (or `Toutput_types`) and `output_shapes` attrs that every
// dataset op has.
class DatasetOpKernel : public OpKernel {
 public:
  explicit DatasetOpKernel(OpKernelConstruction* ctx);
  void Compute(OpKernelContext* ctx) final;

 protected:
  virtual Status MakeDataset(OpKernelContext* ctx, DatasetPtr* out) = 0;

  const DataTypeVector& output_dtypes() const { return output_dtypes_; }
  const std::vector<PartialShape>& output_shapes() const {
    return output_shapes_;
  }

 private:
  DataTypeVector output_dtypes_;
  std::vector<PartialShape> output_shapes_;
};

// The base of the transformations: input 0 is the input dataset.
class UnaryDatasetOpKernel : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr* out) final;
  virtual Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                             DatasetPtr* out) = 0;
};

// Reads a scalar input of an integer type (int64 or int32) as int64; any
// other dtype or shape is InvalidArgument naming `name`.
Status ParseScalarInput(OpKernelContext* ctx, int index, const char* name,
                        int64_t* value);

}  // namespace data
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_DATA_DATASET_H_

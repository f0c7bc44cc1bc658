// The functions of tf.data transformations (map, filter, flat_map,
// interleave): traced in Python (python/tensorweave/_src/data/function.py)
// into a graph of their own, serialized into the op's `f` / `predicate`
// string attr, and run here once per element on the graph executor.
//
// The serialized form (written by function.py; one line each, then the
// graph):
//   "twfn1\n" name "\n" num_args "\n" arg tensor names, one a line,
//   num_rets "\n" ret tensor names, one a line, then a GraphDef's bytes.
// The args are Placeholder nodes of the graph: first an element's
// components, then the captured inputs (the op's `other_arguments`).
#ifndef TENSORWEAVE_CORE_DATA_CAPTURED_FUNCTION_H_
#define TENSORWEAVE_CORE_DATA_CAPTURED_FUNCTION_H_

#include <memory>
#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/framework/graph.h"
#include "core/runtime/executor.h"

namespace tensorweave {
namespace data {

// A serialized function made runnable: its graph imported, its kernels
// built for the host and an executor prepared, once (an op's kernel
// construction); then run any number of times, from any threads at once.
// Its kernels (a random op's state, a py_func) are shared by every run.
class CapturedFunction {
 public:
  // `who` names the op that owns the function, for errors (e.g.
  // "MapDataset 'map'"). A malformed serialization or a graph that does not
  // import is InvalidArgument naming `who`.
  static Status Create(const std::string& serialized, const std::string& who,
                       std::shared_ptr<const CapturedFunction>* out);
  ~CapturedFunction();

  const std::string& name() const { return name_; }
  // "MapDataset 'map' function 'map_fn'": the prefix of the run errors.
  const std::string& who() const { return who_; }
  int num_args() const { return static_cast<int>(arg_dtypes_.size()); }
  int num_rets() const { return static_cast<int>(ret_from_arg_.size()); }

  // Runs the function on `element` followed by `captured` (its args in
  // order) and returns its results in `rets`. Args of the wrong number or
  // dtype are InvalidArgument; the function's own errors are returned as
  // they are (OutOfRange included: the caller decides what it means).
  Status Run(IteratorContext* ctx, const Element& element,
             const std::vector<Tensor>& captured,
             std::vector<Tensor>* rets) const;

  // Run, then checks the results against `dtypes` and `shapes` (the op's
  // declared output_types / output_shapes): InvalidArgument naming the
  // function.
  Status RunAndCheck(IteratorContext* ctx, const Element& element,
                     const std::vector<Tensor>& captured,
                     const DataTypeVector& dtypes,
                     const std::vector<PartialShape>& shapes,
                     std::vector<Tensor>* rets) const;

 private:
  CapturedFunction() = default;

  std::string name_;
  std::string who_;
  std::unique_ptr<Graph> graph_;
  std::vector<std::unique_ptr<OpKernel>> kernels_;  // by node id
  std::unique_ptr<Executor> executor_;              // null: no fetches
  std::vector<DataType> arg_dtypes_;
  // Ret i is arg ret_from_arg_[i] (a function returning an input as is), or
  // (-1) fetch ret_fetch_[i] of the executor.
  std::vector<int> ret_from_arg_;
  std::vector<int> ret_fetch_;
};

// Reads the function attr `attr` (e.g. "f") of the kernel being built and
// makes it runnable; errors name the node.
Status CreateFunctionFromAttr(OpKernelConstruction* ctx,
                              const std::string& attr,
                              std::shared_ptr<const CapturedFunction>* out);

// The captured inputs of a function op: inputs [first, first + count).
std::vector<Tensor> CapturedInputs(OpKernelContext* ctx, int first, int count);

}  // namespace data
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_DATA_CAPTURED_FUNCTION_H_

// DynamicPartition and DynamicStitch (TF1's tf.dynamic_partition and
// tf.dynamic_stitch).
#include <algorithm>
#include <vector>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

REGISTER_OP("DynamicPartition")
    .Input("data: T")
    .Input("partitions: int32")
    .Output("outputs: num_partitions * T")
    .Attr("num_partitions: int >= 1")
    .Attr("T: type")
    .SetShapeFn([](InferenceContext* c) {
      const PartialShape& data = c->input(0);
      const PartialShape& partitions = c->input(1);
      PartialShape out = PartialShape::UnknownRank();
      if (partitions.known_rank() && data.known_rank()) {
        if (data.rank() < partitions.rank() ||
            !PartialShape(
                 std::vector<int64_t>(data.dims().begin(),
                                      data.dims().begin() + partitions.rank()))
                 .IsCompatibleWith(partitions)) {
          return errors::InvalidArgument(
              "data.shape must start with partitions.shape: data ",
              data.ToString(), ", partitions ", partitions.ToString());
        }
        std::vector<int64_t> dims = {-1};
        for (int i = partitions.rank(); i < data.rank(); ++i) {
          dims.push_back(data.dim(i));
        }
        out = PartialShape(dims);
      }
      for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
      return Status::OK();
    })
    .Doc(
        "Splits data into num_partitions tensors: output i holds the slices "
        "data[j, ...] with partitions[j] == i, in order.");

REGISTER_OP("DynamicStitch")
    .Input("indices: N * int32")
    .Input("data: N * T")
    .Output("merged: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .SetShapeFn([](InferenceContext* c) {
      const int n = c->num_inputs() / 2;
      // merged: [max(indices) + 1] + data[0].shape[indices[0].rank:].
      int64_t first = 0;
      for (int i = 0; i < n; ++i) {
        const Tensor* t = c->input_value(i);
        if (t == nullptr) {
          first = -1;
          break;
        }
        for (int64_t j = 0; j < t->num_elements(); ++j) {
          // In int64: index INT32_MAX + 1 does not fit an int32.
          first = std::max<int64_t>(
              first, static_cast<int64_t>(t->data<int32_t>()[j]) + 1);
        }
      }
      const PartialShape& idx = c->input(0);
      const PartialShape& data = c->input(n);
      if (!idx.known_rank() || !data.known_rank()) {
        c->set_output(0, PartialShape::UnknownRank());
        return Status::OK();
      }
      if (data.rank() < idx.rank()) {
        return errors::InvalidArgument(
            "data[0].shape must start with indices[0].shape: data[0] ",
            data.ToString(), ", indices[0] ", idx.ToString());
      }
      std::vector<int64_t> dims = {first};
      for (int i = idx.rank(); i < data.rank(); ++i)
        dims.push_back(data.dim(i));
      c->set_output(0, PartialShape(dims));
      return Status::OK();
    })
    .Doc(
        "merged[indices[m][i], ...] = data[m][i, ...] (later m win); rows "
        "no index names are zeros.");

}  // namespace tensorweave

// Shape errors in TensorFlow's words, for the shape functions of several op
// files.
#ifndef TENSORWEAVE_CORE_OPS_SHAPE_ERRORS_H_
#define TENSORWEAVE_CORE_OPS_SHAPE_ERRORS_H_

#include "core/framework/shape_inference.h"

namespace tensorweave {

// TF's InferenceContext::Merge wording for two shapes that do not merge.
inline Status MergeError(const PartialShape& a, const PartialShape& b) {
  if (a.known_rank() && b.known_rank() && a.rank() != b.rank()) {
    return errors::InvalidArgument("Shapes must be equal rank, but are ",
                                   a.rank(), " and ", b.rank());
  }
  for (int i = 0; a.known_rank() && b.known_rank() && i < a.rank(); ++i) {
    if (a.dim(i) >= 0 && b.dim(i) >= 0 && a.dim(i) != b.dim(i)) {
      return errors::InvalidArgument(
          "Dimension ", i, " in both shapes must be equal, but are ", a.dim(i),
          " and ", b.dim(i), ". Shapes are ", a.ToString(), " and ",
          b.ToString(), ".");
    }
  }
  return errors::InvalidArgument("Shapes ", a.ToString(), " and ", b.ToString(),
                                 " are not compatible");
}

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_OPS_SHAPE_ERRORS_H_

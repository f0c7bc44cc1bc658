// Whole-file ops (tf.io.read_file, write_file, matching_files): host-only,
// stateful (they touch the file system).
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status ScalarInput(InferenceContext* c, int i, const char* what) {
  PartialShape unused;
  if (!c->WithRank(i, 0, &unused).ok()) {
    return errors::InvalidArgument(what, " must be a scalar, got shape ",
                                   c->input(i).ToString());
  }
  return Status::OK();
}

}  // namespace

REGISTER_OP("ReadFile")
    .Input("filename: string")
    .Output("contents: string")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(ScalarInput(c, 0, "filename"));
      c->set_output(0, PartialShape({}));
      return Status::OK();
    })
    .Doc("The bytes of file `filename`. NotFound when it does not exist.");

REGISTER_OP("WriteFile")
    .Input("filename: string")
    .Input("contents: string")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(ScalarInput(c, 0, "filename"));
      return ScalarInput(c, 1, "contents");
    })
    .Doc(
        "Writes `contents` to file `filename` (replacing it), creating its "
        "directory when needed.");

REGISTER_OP("MatchingFiles")
    .Input("pattern: string")
    .Output("filenames: string")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      PartialShape pattern = c->input(0);
      if (pattern.known_rank() && pattern.rank() > 1) {
        return errors::InvalidArgument(
            "pattern must be a scalar or a vector, got shape ",
            pattern.ToString());
      }
      c->set_output(0, PartialShape({-1}));
      return Status::OK();
    })
    .Doc(
        "The paths matching the glob pattern(s) (a scalar or a vector), "
        "sorted.");

}  // namespace tensorweave

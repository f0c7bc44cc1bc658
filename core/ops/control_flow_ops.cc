// Ops that order work without computing values.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

REGISTER_OP("NoOp")
    .SetShapeFn(shape_fns::NoOutputs)
    .Doc("Does nothing; used to group control dependencies.");

}  // namespace tensorweave

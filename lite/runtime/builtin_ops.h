// Facts about each builtin operator: name, known versions, options table.
#ifndef TENSORWEAVE_LITE_RUNTIME_BUILTIN_OPS_H_
#define TENSORWEAVE_LITE_RUNTIME_BUILTIN_OPS_H_

#include "lite/schema/twl_generated.h"

namespace twl {

using schema::BuiltinOperator;
using schema::BuiltinOptions;

// True when `op` is a value of the BuiltinOperator enum.
bool IsKnownOp(int op);
// "CONV_2D"; "UNKNOWN" for values outside the enum.
const char* OpName(BuiltinOperator op);
// Highest op version this runtime understands (versions start at 1).
int MaxOpVersion(BuiltinOperator op);
// The options table type an operator may carry (NONE: takes no options).
BuiltinOptions ExpectedOptions(BuiltinOperator op);

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_BUILTIN_OPS_H_

// The kernel fuzzer's generator: from an op's definition in the registry
// and a seed, a small graph around one node of that op. Attributes, input
// shapes and input values are random, biased towards the values that break
// kernels: 0, -1, empty dimensions, 2^31, 2^62, int64 max/min, NaN and inf.
// The same (op, seed) always gives the same case.
#ifndef TENSORWEAVE_CORE_FUZZ_CASE_GENERATOR_H_
#define TENSORWEAVE_CORE_FUZZ_CASE_GENERATOR_H_

#include <cstdint>

#include "core/framework/op_def.h"
#include "core/fuzz/fuzz_case.pb.h"

namespace tensorweave {
namespace fuzz {

// Builds the case for `op` from `seed`. The node under test is named
// "target"; its inputs are Const nodes, fed Placeholders or (for reference
// inputs) variables, initialized by `init_targets` most of the time.
FuzzCase GenerateCase(const OpDef& op, uint64_t seed);

}  // namespace fuzz
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FUZZ_CASE_GENERATOR_H_

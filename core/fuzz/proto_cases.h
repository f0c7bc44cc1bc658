// Cases for the ops whose attributes name a protobuf message type
// (DecodeProtoV2, EncodeProto): random attribute strings would only ever
// name no message, so most cases name a real one (tensorweave.TensorProto,
// from "local://" or a "bytes://" FileDescriptorSet) with fields and dtypes
// that fit, and feed DecodeProtoV2 random wire-format bytes (valid fields,
// wrong wire types, truncations, garbage) or text, and EncodeProto values
// and sizes of matching shapes (sizes sometimes out of range).
#ifndef TENSORWEAVE_CORE_FUZZ_PROTO_CASES_H_
#define TENSORWEAVE_CORE_FUZZ_PROTO_CASES_H_

#include <cstdint>

#include "core/fuzz/fuzz_case.pb.h"

namespace tensorweave {
namespace fuzz {

// Whether `op` gets its cases reshaped by ReshapeProtoCase.
bool IsProtoOp(const std::string& op);

// Rewrites most cases of a proto op (as GenerateCase made them, target node
// last) as described above; leaves the rest as they are.
void ReshapeProtoCase(uint64_t seed, FuzzCase* c);

}  // namespace fuzz
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FUZZ_PROTO_CASES_H_

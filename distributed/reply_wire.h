// The binary form of a RunGraph reply that a master asked for (the RunGraph
// of a part run before the master's own, distributed/master.py): the
// fetched values, then the values the step sent to the master's task,
// written and read in C++ (no JSON, no Python object per value).
//
// Layout (integers little-endian):
//   "TWR1", u32 outputs, u32 sent
//   outputs x tensor
//   sent x (u32 key length, key, u8 is_dead, tensor)
// tensor: i32 dtype, u32 dims, i64 dim x dims, then
//   numeric: u64 byte length, the bytes;
//   string:  (u64 length, the bytes) per element, row-major.
#ifndef TENSORWEAVE_DISTRIBUTED_REPLY_WIRE_H_
#define TENSORWEAVE_DISTRIBUTED_REPLY_WIRE_H_

#include <cstddef>
#include <vector>

#include "core/framework/status.h"
#include "core/framework/tensor.h"
#include "distributed/rendezvous_mgr.h"

namespace tensorweave {

// The byte size of the reply of `outputs` and `sent`.
size_t RunGraphReplySize(const std::vector<Tensor>& outputs,
                         const std::vector<SentValue>& sent);
// Writes it to `out` (RunGraphReplySize bytes).
void WriteRunGraphReply(const std::vector<Tensor>& outputs,
                        const std::vector<SentValue>& sent, char* out);
// Reads a reply: InvalidArgument naming what is wrong when the bytes are not
// one (truncated, trailing bytes, an unknown dtype, a shape that does not
// match its bytes); ResourceExhausted for a tensor too big to allocate.
Status ReadRunGraphReply(const char* data, size_t size,
                         std::vector<Tensor>* outputs,
                         std::vector<SentValue>* sent);

}  // namespace tensorweave

#endif  // TENSORWEAVE_DISTRIBUTED_REPLY_WIRE_H_

// The rendezvous as the _Send and _Recv nodes of one iteration of one loop
// frame see it. A partitioned loop sends a value across devices once per
// iteration, so a key names the frame instance and the iteration in its last
// field ("<frame id>:<iteration>", TensorFlow's frame_iter); the kernels build
// their key once, with "0:0" (the step's root frame), and the executor hands
// the nodes inside a loop this view, which rewrites that field.
//
// A frame instance's id is the same on every device and task of the step: it
// is derived from the enclosing instance's id, the enclosing iteration and
// the frame's name (the root frame's id is 0).
#ifndef TENSORWEAVE_CORE_RUNTIME_FRAME_RENDEZVOUS_H_
#define TENSORWEAVE_CORE_RUNTIME_FRAME_RENDEZVOUS_H_

#include <cstdint>
#include <string>

#include "core/framework/rendezvous.h"

namespace tensorweave {

// The id of the instance of the loop `frame_name` started in iteration
// `parent_iter` of the frame instance `parent_id`.
uint64_t ChildFrameId(uint64_t parent_id, int64_t parent_iter,
                      const std::string& frame_name);

class FrameIterRendezvous : public Rendezvous {
 public:
  FrameIterRendezvous(Rendezvous* base, uint64_t frame_id, int64_t iter);

  // `key` (as CreateKey makes it) with its last field naming the frame
  // instance and iteration.
  static std::string KeyFor(const std::string& key, uint64_t frame_id,
                            int64_t iter);

  Status Send(const std::string& key, const Tensor& value,
              bool is_dead) override;
  void RecvAsync(const std::string& key, DoneCallback done) override;
  void StartAbort(const Status& status) override;

 private:
  std::string Rewrite(const std::string& key) const;
  Rendezvous* const base_;
  const std::string frame_iter_;  // the last field of every key
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_RUNTIME_FRAME_RENDEZVOUS_H_

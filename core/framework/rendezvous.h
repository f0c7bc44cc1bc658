// Rendezvous: where a _Send leaves a tensor and the matching _Recv picks it
// up. Keys name the sending device (with its incarnation), the receiving
// device and the tensor, so one key is one transfer of one step. The
// interface has an in-process implementation here (one per step, shared by
// the step's partitions) and a remote one in the distributed runtime.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_RENDEZVOUS_H_
#define TENSORWEAVE_CORE_FRAMEWORK_RENDEZVOUS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/framework/status.h"
#include "core/framework/tensor.h"

namespace tensorweave {

class Rendezvous {
 public:
  // Called once with the value (or the error that ended the wait).
  using DoneCallback =
      std::function<void(const Status&, const Tensor& value, bool is_dead)>;

  virtual ~Rendezvous() = default;

  // "<src_device>;<incarnation, hex>;<dst_device>;<tensor_name>;0:0" (the
  // last field names the loop frame and iteration, as TensorFlow's keys).
  static std::string CreateKey(const std::string& src_device,
                               uint64_t src_incarnation,
                               const std::string& dst_device,
                               const std::string& tensor_name);
  // The fields of a key CreateKey made; InvalidArgument naming the key when
  // it is malformed.
  struct ParsedKey {
    std::string src_device;
    uint64_t src_incarnation = 0;
    std::string dst_device;
    std::string tensor_name;
    std::string frame;
  };
  static Status ParseKey(const std::string& key, ParsedKey* parsed);

  // Hands over `value` under `key`. A second Send of one key is an error
  // (each key is one transfer); after StartAbort, the abort status.
  virtual Status Send(const std::string& key, const Tensor& value,
                      bool is_dead) = 0;
  // Calls `done` once the value of `key` is there: at once when it is
  // already, else from the thread that sends it (or aborts).
  virtual void RecvAsync(const std::string& key, DoneCallback done) = 0;
  // Fails every pending and later Recv and Send with `status` (a step that
  // failed or was cancelled).
  virtual void StartAbort(const Status& status) = 0;
};

// The in-process rendezvous: a table of values waiting for their receiver
// and receivers waiting for their value.
class LocalRendezvous : public Rendezvous {
 public:
  LocalRendezvous();
  ~LocalRendezvous() override;

  Status Send(const std::string& key, const Tensor& value,
              bool is_dead) override;
  void RecvAsync(const std::string& key, DoneCallback done) override;
  void StartAbort(const Status& status) override;

  // Entries (values or receivers) still waiting: zero once a step's
  // transfers have all happened.
  size_t NumPending() const;
  // LocalRendezvous objects alive in the process (tests check that steps do
  // not leak them).
  static int64_t NumLive();

 private:
  struct Item {
    bool has_value = false;  // else: a receiver is waiting
    Tensor value;
    bool is_dead = false;
    DoneCallback waiter;
  };
  mutable std::mutex mu_;
  std::unordered_map<std::string, Item> table_;
  Status abort_status_;
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_RENDEZVOUS_H_

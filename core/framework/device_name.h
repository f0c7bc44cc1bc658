// DeviceName: a full or partial device name in TensorFlow's grammar
// (DeviceNameUtils), legacy forms included:
//   "/job:w/replica:0/task:1/device:GPU:0"   a full name
//   "/job:w/task:1/gpu:0", "/gpu:0", "/cpu:*" legacy type:id components
//   "/device:CPU:*", "/job:ps", ""            partial specs
//   "CPU:0", "gpu:1"                          a bare type:id
// Types are stored upper-case ("CPU", "GPU"); "*" for a field means unset.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_DEVICE_NAME_H_
#define TENSORWEAVE_CORE_FRAMEWORK_DEVICE_NAME_H_

#include <string>

#include "core/framework/status.h"

namespace tensorweave {

struct DeviceName {
  bool has_job = false;
  std::string job;
  bool has_replica = false;
  int replica = 0;
  bool has_task = false;
  int task = 0;
  bool has_type = false;
  std::string type;
  bool has_id = false;
  int id = 0;

  // Parses `text` into `*out` (reset first); false when malformed.
  static bool Parse(const std::string& text, DeviceName* out);

  // The canonical form of the set fields only, e.g.
  // "/job:w/replica:0/task:1/device:GPU:0", "/device:CPU:*" (type without id
  // is written with "*"), "" for an empty spec.
  std::string ToString() const;

  // Every field is set.
  bool IsFullySpecified() const;

  // Every field set here equals that field of `device`.
  bool Matches(const DeviceName& device) const;

  // TF's MergeDevNames: fields set in `other` and unset here are taken; a
  // field set in both must agree, else InvalidArgument naming both names.
  // With allow_soft_placement, a type conflict clears the type and id and an
  // id conflict clears the id instead (TF's placer: the group may then go to
  // any device).
  Status MergeFrom(const DeviceName& other, bool allow_soft_placement = false);

  bool operator==(const DeviceName& other) const;
  bool operator!=(const DeviceName& other) const { return !(*this == other); }
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_DEVICE_NAME_H_

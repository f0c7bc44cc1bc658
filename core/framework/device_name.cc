#include "core/framework/device_name.h"

#include <cctype>
#include <climits>

namespace tensorweave {
namespace {

bool ConsumePrefix(const std::string& text, size_t* pos, const char* prefix) {
  size_t n = std::char_traits<char>::length(prefix);
  if (text.compare(*pos, n, prefix) != 0) return false;
  *pos += n;
  return true;
}

// A non-negative decimal number that fits in an int.
bool ConsumeNumber(const std::string& text, size_t* pos, int* value) {
  size_t start = *pos;
  long long parsed = 0;
  while (*pos < text.size() &&
         std::isdigit(static_cast<unsigned char>(text[*pos]))) {
    parsed = parsed * 10 + (text[*pos] - '0');
    if (parsed > INT_MAX) return false;
    ++*pos;
  }
  *value = static_cast<int>(parsed);
  return *pos > start;
}

// A job name: a lower-case letter, then lower-case letters, digits and '_'.
bool ConsumeJobName(const std::string& text, size_t* pos, std::string* job) {
  size_t start = *pos;
  if (*pos >= text.size() ||
      !std::islower(static_cast<unsigned char>(text[*pos])))
    return false;
  while (*pos < text.size()) {
    unsigned char c = text[*pos];
    if (!std::islower(c) && !std::isdigit(c) && c != '_') break;
    ++*pos;
  }
  *job = text.substr(start, *pos - start);
  return true;
}

// A device type: a letter, then letters, digits and '_'; stored upper-case.
bool ConsumeDeviceType(const std::string& text, size_t* pos,
                       std::string* type) {
  if (*pos >= text.size() ||
      !std::isalpha(static_cast<unsigned char>(text[*pos])))
    return false;
  type->clear();
  while (*pos < text.size()) {
    unsigned char c = text[*pos];
    if (!std::isalnum(c) && c != '_') break;
    type->push_back(static_cast<char>(std::toupper(c)));
    ++*pos;
  }
  return true;
}

// "*" (unset) or a number.
bool ConsumeOptionalNumber(const std::string& text, size_t* pos, bool* has,
                           int* value) {
  *has = !ConsumePrefix(text, pos, "*");
  return !*has || ConsumeNumber(text, pos, value);
}

// "<type>:<id>" with id a number or "*".
bool ConsumeTypeAndId(const std::string& text, size_t* pos, DeviceName* out) {
  if (!ConsumeDeviceType(text, pos, &out->type)) return false;
  out->has_type = true;
  if (!ConsumePrefix(text, pos, ":")) return false;
  return ConsumeOptionalNumber(text, pos, &out->has_id, &out->id);
}

// The legacy components "/cpu:" and "/gpu:" (any case) at `pos`.
bool IsLegacyDevice(const std::string& text, size_t pos) {
  if (text.size() < pos + 5 || text[pos] != '/' || text[pos + 4] != ':')
    return false;
  std::string type;
  for (size_t i = pos + 1; i < pos + 4; ++i)
    type.push_back(std::tolower(static_cast<unsigned char>(text[i])));
  return type == "cpu" || type == "gpu";
}

}  // namespace

bool DeviceName::Parse(const std::string& text, DeviceName* out) {
  *out = DeviceName();
  if (text.empty() || text == "/") return true;
  size_t pos = 0;
  if (text[0] != '/') {  // a bare "CPU:0"
    return ConsumeTypeAndId(text, &pos, out) && pos == text.size();
  }
  while (pos < text.size()) {
    if (ConsumePrefix(text, &pos, "/job:")) {
      out->has_job = !ConsumePrefix(text, &pos, "*");
      if (out->has_job && !ConsumeJobName(text, &pos, &out->job)) return false;
    } else if (ConsumePrefix(text, &pos, "/replica:")) {
      if (!ConsumeOptionalNumber(text, &pos, &out->has_replica, &out->replica))
        return false;
    } else if (ConsumePrefix(text, &pos, "/task:")) {
      if (!ConsumeOptionalNumber(text, &pos, &out->has_task, &out->task))
        return false;
    } else if (ConsumePrefix(text, &pos, "/device:")) {
      out->has_type = !ConsumePrefix(text, &pos, "*");
      if (out->has_type && !ConsumeDeviceType(text, &pos, &out->type))
        return false;
      out->has_id = false;
      if (ConsumePrefix(text, &pos, ":") &&
          !ConsumeOptionalNumber(text, &pos, &out->has_id, &out->id)) {
        return false;
      }
    } else if (IsLegacyDevice(text, pos)) {  // "/cpu:0", "/GPU:*"
      ++pos;
      if (!ConsumeTypeAndId(text, &pos, out)) return false;
    } else {
      return false;
    }
  }
  return true;
}

std::string DeviceName::ToString() const {
  std::string out;
  if (has_job) out += "/job:" + job;
  if (has_replica) out += "/replica:" + std::to_string(replica);
  if (has_task) out += "/task:" + std::to_string(task);
  if (has_type || has_id) {
    out += "/device:" + (has_type ? type : std::string("*")) + ":" +
           (has_id ? std::to_string(id) : std::string("*"));
  }
  return out;
}

bool DeviceName::IsFullySpecified() const {
  return has_job && has_replica && has_task && has_type && has_id;
}

bool DeviceName::Matches(const DeviceName& device) const {
  if (has_job && (!device.has_job || job != device.job)) return false;
  if (has_replica && (!device.has_replica || replica != device.replica))
    return false;
  if (has_task && (!device.has_task || task != device.task)) return false;
  if (has_type && (!device.has_type || type != device.type)) return false;
  if (has_id && (!device.has_id || id != device.id)) return false;
  return true;
}

Status DeviceName::MergeFrom(const DeviceName& other,
                             bool allow_soft_placement) {
  auto incompatible = [&](const char* what) {
    return errors::InvalidArgument("Cannot merge devices with incompatible ",
                                   what, ": '", ToString(), "' and '",
                                   other.ToString(), "'");
  };
  if (other.has_job) {
    if (has_job && job != other.job) return incompatible("jobs");
    has_job = true;
    job = other.job;
  }
  if (other.has_replica) {
    if (has_replica && replica != other.replica)
      return incompatible("replicas");
    has_replica = true;
    replica = other.replica;
  }
  if (other.has_task) {
    if (has_task && task != other.task) return incompatible("tasks");
    has_task = true;
    task = other.task;
  }
  if (other.has_type) {
    if (has_type && type != other.type) {
      if (!allow_soft_placement) return incompatible("types");
      has_type = has_id = false;  // soft placement: any device
      return Status::OK();
    }
    has_type = true;
    type = other.type;
  }
  if (other.has_id) {
    if (has_id && id != other.id) {
      if (!allow_soft_placement) return incompatible("ids");
      has_id = false;  // soft placement: any device of the type
      return Status::OK();
    }
    has_id = true;
    id = other.id;
  }
  return Status::OK();
}

bool DeviceName::operator==(const DeviceName& other) const {
  return has_job == other.has_job && (!has_job || job == other.job) &&
         has_replica == other.has_replica &&
         (!has_replica || replica == other.replica) &&
         has_task == other.has_task && (!has_task || task == other.task) &&
         has_type == other.has_type && (!has_type || type == other.type) &&
         has_id == other.has_id && (!has_id || id == other.id);
}

}  // namespace tensorweave

// A small JSON value, parser and writer: enough for checkpoint headers and
// manifests, which are untrusted input (depth and size are bounded; every
// malformation is an error, never a crash).
#ifndef TENSORWEAVE_CORE_UTIL_JSON_H_
#define TENSORWEAVE_CORE_UTIL_JSON_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/framework/status.h"

namespace tensorweave {

class Json {
 public:
  enum Kind { kNull, kBool, kInt, kDouble, kString, kArray, kObject };

  Json() = default;
  static Json Int(int64_t v);
  static Json String(std::string s);
  static Json Array(std::vector<Json> items);
  static Json Object();

  Kind kind() const { return kind_; }
  bool is_int() const { return kind_ == kInt; }
  bool is_string() const { return kind_ == kString; }
  bool is_array() const { return kind_ == kArray; }
  bool is_object() const { return kind_ == kObject; }
  int64_t int_value() const { return int_; }
  const std::string& string_value() const { return string_; }
  const std::vector<Json>& items() const { return items_; }
  // Objects keep their keys sorted.
  const std::map<std::string, Json>& members() const { return members_; }
  // Null when absent (or when this is not an object).
  const Json* Find(const std::string& key) const;
  void Set(const std::string& key, Json value) {
    members_[key] = std::move(value);
  }

  std::string Dump() const;
  // Parses exactly one value (surrounding whitespace allowed).
  static Status Parse(const std::string& text, Json* out);

 private:
  friend class JsonParser;
  Kind kind_ = kNull;
  bool bool_ = false;
  int64_t int_ = 0;
  double double_ = 0;
  std::string string_;
  std::vector<Json> items_;
  std::map<std::string, Json> members_;
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_UTIL_JSON_H_

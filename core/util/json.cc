#include "core/util/json.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tensorweave {

Json Json::Int(int64_t v) {
  Json j;
  j.kind_ = kInt;
  j.int_ = v;
  return j;
}
Json Json::String(std::string s) {
  Json j;
  j.kind_ = kString;
  j.string_ = std::move(s);
  return j;
}
Json Json::Array(std::vector<Json> items) {
  Json j;
  j.kind_ = kArray;
  j.items_ = std::move(items);
  return j;
}
Json Json::Object() {
  Json j;
  j.kind_ = kObject;
  return j;
}

const Json* Json::Find(const std::string& key) const {
  auto it = members_.find(key);
  return it == members_.end() ? nullptr : &it->second;
}

namespace {

void DumpString(const std::string& s, std::string* out) {
  out->push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          *out += buf;
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

void DumpValue(const Json& j, std::string* out) {
  switch (j.kind()) {
    case Json::kNull:
      *out += "null";
      break;
    case Json::kBool:
    case Json::kDouble:
      *out += "null";  // not written by checkpoints
      break;
    case Json::kInt:
      *out += std::to_string(j.int_value());
      break;
    case Json::kString:
      DumpString(j.string_value(), out);
      break;
    case Json::kArray: {
      out->push_back('[');
      bool first = true;
      for (const Json& item : j.items()) {
        if (!first) out->push_back(',');
        first = false;
        DumpValue(item, out);
      }
      out->push_back(']');
      break;
    }
    case Json::kObject: {
      out->push_back('{');
      bool first = true;
      for (const auto& [key, value] : j.members()) {
        if (!first) out->push_back(',');
        first = false;
        DumpString(key, out);
        out->push_back(':');
        DumpValue(value, out);
      }
      out->push_back('}');
      break;
    }
  }
}

}  // namespace

std::string Json::Dump() const {
  std::string out;
  DumpValue(*this, &out);
  return out;
}

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : text_(text) {}

  Status ParseAll(Json* out) {
    TW_RETURN_IF_ERROR(ParseValue(out, 0));
    SkipSpace();
    if (pos_ != text_.size()) return Error("trailing characters");
    return Status::OK();
  }

 private:
  static constexpr int kMaxDepth = 64;

  Status Error(const std::string& what) const {
    return errors::InvalidArgument("invalid JSON at offset ", pos_, ": ", what);
  }
  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' ||
            text_[pos_] == '\t')) {
      ++pos_;
    }
  }
  bool Consume(const char* word) {
    size_t n = std::char_traits<char>::length(word);
    if (text_.compare(pos_, n, word) != 0) return false;
    pos_ += n;
    return true;
  }

  Status ParseValue(Json* out, int depth) {
    if (depth > kMaxDepth) return Error("nested too deeply");
    SkipSpace();
    if (pos_ >= text_.size()) return Error("unexpected end");
    char c = text_[pos_];
    if (c == '{') return ParseObject(out, depth);
    if (c == '[') return ParseArray(out, depth);
    if (c == '"') {
      out->kind_ = Json::kString;
      return ParseString(&out->string_);
    }
    if (Consume("null")) {
      out->kind_ = Json::kNull;
      return Status::OK();
    }
    if (Consume("true") || Consume("false")) {
      out->kind_ = Json::kBool;
      out->bool_ = text_[pos_ - 1] == 'e' && text_[pos_ - 2] == 'u';
      return Status::OK();
    }
    if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(out);
    return Error(std::string("unexpected character '") + c + "'");
  }

  Status ParseNumber(Json* out) {
    size_t start = pos_;
    if (text_[pos_] == '-') ++pos_;
    bool integral = true;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c >= '0' && c <= '9') {
        ++pos_;
      } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
        integral = false;
        ++pos_;
      } else {
        break;
      }
    }
    std::string number = text_.substr(start, pos_ - start);
    if (number == "-" || number.empty()) return Error("bad number");
    char* end = nullptr;
    errno = 0;
    if (integral) {
      long long v = std::strtoll(number.c_str(), &end, 10);
      if (errno == ERANGE || *end != '\0') return Error("integer out of range");
      out->kind_ = Json::kInt;
      out->int_ = v;
    } else {
      double v = std::strtod(number.c_str(), &end);
      if (*end != '\0' || !std::isfinite(v)) return Error("bad number");
      out->kind_ = Json::kDouble;
      out->double_ = v;
    }
    return Status::OK();
  }

  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  Status ParseHex4(uint32_t* cp) {
    if (pos_ + 4 > text_.size()) return Error("short \\u escape");
    *cp = 0;
    for (int i = 0; i < 4; ++i) {
      char h = text_[pos_++];
      int v = (h >= '0' && h <= '9')   ? h - '0'
              : (h >= 'a' && h <= 'f') ? h - 'a' + 10
              : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                       : -1;
      if (v < 0) return Error("bad \\u escape");
      *cp = *cp * 16 + v;
    }
    return Status::OK();
  }

  Status ParseString(std::string* out) {
    ++pos_;  // the opening quote
    out->clear();
    while (true) {
      if (pos_ >= text_.size()) return Error("unterminated string");
      char c = text_[pos_++];
      if (c == '"') return Status::OK();
      if (static_cast<unsigned char>(c) < 0x20) {
        return Error("control character in string");
      }
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return Error("unterminated escape");
      char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t cp;
          TW_RETURN_IF_ERROR(ParseHex4(&cp));
          if (cp >= 0xD800 && cp < 0xDC00) {
            uint32_t low;
            if (!Consume("\\u")) return Error("lone surrogate");
            TW_RETURN_IF_ERROR(ParseHex4(&low));
            if (low < 0xDC00 || low >= 0xE000) return Error("bad surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          AppendUtf8(cp, out);
          break;
        }
        default:
          return Error("bad escape");
      }
    }
  }

  Status ParseArray(Json* out, int depth) {
    ++pos_;
    out->kind_ = Json::kArray;
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return Status::OK();
    }
    while (true) {
      Json item;
      TW_RETURN_IF_ERROR(ParseValue(&item, depth + 1));
      out->items_.push_back(std::move(item));
      SkipSpace();
      if (pos_ >= text_.size()) return Error("unterminated array");
      char c = text_[pos_++];
      if (c == ']') return Status::OK();
      if (c != ',') return Error("expected ',' or ']'");
    }
  }

  Status ParseObject(Json* out, int depth) {
    ++pos_;
    out->kind_ = Json::kObject;
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return Status::OK();
    }
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"') {
        return Error("expected a key");
      }
      std::string key;
      TW_RETURN_IF_ERROR(ParseString(&key));
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ':') {
        return Error("expected ':'");
      }
      ++pos_;
      Json value;
      TW_RETURN_IF_ERROR(ParseValue(&value, depth + 1));
      if (!out->members_.emplace(key, std::move(value)).second) {
        return Error("duplicate key '" + key + "'");
      }
      SkipSpace();
      if (pos_ >= text_.size()) return Error("unterminated object");
      char c = text_[pos_++];
      if (c == '}') return Status::OK();
      if (c != ',') return Error("expected ',' or '}'");
    }
  }

  const std::string& text_;
  size_t pos_ = 0;
};

Status Json::Parse(const std::string& text, Json* out) {
  *out = Json();
  return JsonParser(text).ParseAll(out);
}

}  // namespace tensorweave

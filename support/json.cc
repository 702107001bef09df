#include "support/json.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace tf::json {

const char* kind_name(Value::Kind k) {
  switch (k) {
    case Value::Kind::Null: return "null";
    case Value::Kind::Bool: return "a boolean";
    case Value::Kind::Int: return "an integer";
    case Value::Kind::Double: return "a number";
    case Value::Kind::String: return "a string";
    case Value::Kind::Array: return "an array";
    case Value::Kind::Object: return "an object";
  }
  return "?";
}

namespace {
[[noreturn]] void wrong_kind(const char* want, Value::Kind got) {
  throw ParseError(std::string("expected ") + want + ", got " + kind_name(got));
}
}  // namespace

Value Value::array(std::vector<Value> items) {
  Value v;
  v.kind_ = Kind::Array;
  v.arr_ = std::make_shared<std::vector<Value>>(std::move(items));
  return v;
}

Value Value::object() {
  Value v;
  v.kind_ = Kind::Object;
  v.obj_ = std::make_shared<std::vector<std::pair<std::string, Value>>>();
  return v;
}

bool Value::as_bool() const {
  if (kind_ != Kind::Bool) wrong_kind("a boolean", kind_);
  return b_;
}

int64_t Value::as_int() const {
  if (kind_ == Kind::Int) return i_;
  if (kind_ == Kind::Double && std::nearbyint(d_) == d_ && std::fabs(d_) < 9.0e15) return static_cast<int64_t>(d_);
  wrong_kind("an integer", kind_);
}

double Value::as_double() const {
  if (kind_ == Kind::Int) return static_cast<double>(i_);
  if (kind_ != Kind::Double) wrong_kind("a number", kind_);
  return d_;
}

const std::string& Value::as_string() const {
  if (kind_ != Kind::String) wrong_kind("a string", kind_);
  return s_;
}

const std::vector<Value>& Value::items() const {
  if (kind_ != Kind::Array) wrong_kind("an array", kind_);
  return *arr_;
}

std::vector<Value>& Value::items() {
  if (kind_ != Kind::Array) wrong_kind("an array", kind_);
  return *arr_;
}

const std::vector<std::pair<std::string, Value>>& Value::members() const {
  if (kind_ != Kind::Object) wrong_kind("an object", kind_);
  return *obj_;
}

Value& Value::set(const std::string& key, Value v) {
  if (kind_ != Kind::Object) wrong_kind("an object", kind_);
  for (auto& [k, val] : *obj_) {
    if (k == key) return val = std::move(v);
  }
  obj_->emplace_back(key, std::move(v));
  return obj_->back().second;
}

const Value* Value::find(const std::string& key) const {
  if (kind_ != Kind::Object) return nullptr;
  for (const auto& [k, val] : *obj_) {
    if (k == key) return &val;
  }
  return nullptr;
}

const Value& Value::at(const std::string& key) const {
  const Value* v = find(key);
  if (!v) throw ParseError("missing key \"" + key + "\"");
  return *v;
}

Value& Value::push(Value v) {
  if (kind_ != Kind::Array) wrong_kind("an array", kind_);
  arr_->push_back(std::move(v));
  return arr_->back();
}

size_t Value::size() const {
  if (kind_ == Kind::Array) return arr_->size();
  if (kind_ == Kind::Object) return obj_->size();
  return 0;
}

bool Value::operator==(const Value& o) const {
  if (is_number() && o.is_number()) {
    if (kind_ == Kind::Int && o.kind_ == Kind::Int) return i_ == o.i_;
    return as_double() == o.as_double();
  }
  if (kind_ != o.kind_) return false;
  switch (kind_) {
    case Kind::Null: return true;
    case Kind::Bool: return b_ == o.b_;
    case Kind::String: return s_ == o.s_;
    case Kind::Array: return *arr_ == *o.arr_;
    case Kind::Object: return *obj_ == *o.obj_;
    default: return false;
  }
}

// ---------------------------------------------------------------- writer

namespace {

void write_string(std::ostringstream& os, const std::string& s) {
  os << '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': os << "\\\""; break;
      case '\\': os << "\\\\"; break;
      case '\n': os << "\\n"; break;
      case '\r': os << "\\r"; break;
      case '\t': os << "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          os << buf;
        } else {
          os << c;
        }
    }
  }
  os << '"';
}

void write(std::ostringstream& os, const Value& v, int indent, int depth) {
  auto newline = [&](int d) {
    if (indent < 0) return;
    os << '\n' << std::string(static_cast<size_t>(indent * d), ' ');
  };
  switch (v.kind()) {
    case Value::Kind::Null: os << "null"; return;
    case Value::Kind::Bool: os << (v.as_bool() ? "true" : "false"); return;
    case Value::Kind::Int: os << v.as_int(); return;
    case Value::Kind::Double: {
      double d = v.as_double();
      if (!std::isfinite(d)) {
        os << "null";  // JSON has no inf/nan
        return;
      }
      // The shortest of %.15g / %.17g that reads back exactly: records must round-trip.
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.15g", d);
      if (std::strtod(buf, nullptr) != d) std::snprintf(buf, sizeof buf, "%.17g", d);
      std::string text = buf;
      if (text.find_first_of(".eEn") == std::string::npos) text += ".0";  // stays a double when read back
      os << text;
      return;
    }
    case Value::Kind::String: write_string(os, v.as_string()); return;
    case Value::Kind::Array: {
      const auto& items = v.items();
      if (items.empty()) {
        os << "[]";
        return;
      }
      // Arrays of scalars stay on one line: shapes and repeats read better that way.
      bool scalars = true;
      for (const auto& i : items) scalars &= !(i.is_array() || i.is_object());
      os << '[';
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) os << (scalars || indent < 0 ? (indent < 0 ? "," : ", ") : ",");
        if (!scalars) newline(depth + 1);
        write(os, items[i], indent, depth + 1);
      }
      if (!scalars) newline(depth);
      os << ']';
      return;
    }
    case Value::Kind::Object: {
      const auto& members = v.members();
      if (members.empty()) {
        os << "{}";
        return;
      }
      os << '{';
      for (size_t i = 0; i < members.size(); ++i) {
        if (i) os << ',';
        newline(depth + 1);
        write_string(os, members[i].first);
        os << (indent < 0 ? ":" : ": ");
        write(os, members[i].second, indent, depth + 1);
      }
      newline(depth);
      os << '}';
      return;
    }
  }
}

// ---------------------------------------------------------------- parser

class Parser {
 public:
  explicit Parser(const std::string& t) : t_(t) {}

  Value parse_document() {
    skip_ws();
    Value v = parse_value(0);
    skip_ws();
    if (pos_ != t_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < t_.size(); ++i) {
      if (t_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw ParseError("invalid JSON at line " + std::to_string(line) + ", column " + std::to_string(col) + ": " + what);
  }

  void skip_ws() {
    while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r')) ++pos_;
  }

  bool consume(const char* word) {
    size_t n = std::char_traits<char>::length(word);
    if (t_.compare(pos_, n, word) == 0) {
      pos_ += n;
      return true;
    }
    return false;
  }

  Value parse_value(int depth) {
    if (depth > 256) fail("nesting deeper than 256 levels");
    if (pos_ >= t_.size()) fail("expected a value, found the end of the text");
    char c = t_[pos_];
    if (c == '{') return parse_object(depth);
    if (c == '[') return parse_array(depth);
    if (c == '"') return Value(parse_string());
    if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
    if (consume("true")) return Value(true);
    if (consume("false")) return Value(false);
    if (consume("null")) return Value();
    fail(std::string("unexpected character '") + c + "'");
  }

  Value parse_object(int depth) {
    Value obj = Value::object();
    ++pos_;
    skip_ws();
    if (pos_ < t_.size() && t_[pos_] == '}') {
      ++pos_;
      return obj;
    }
    for (;;) {
      skip_ws();
      if (pos_ >= t_.size() || t_[pos_] != '"') fail("expected a quoted key");
      std::string key = parse_string();
      skip_ws();
      if (pos_ >= t_.size() || t_[pos_] != ':') fail("expected ':' after key \"" + key + "\"");
      ++pos_;
      skip_ws();
      if (obj.find(key)) fail("duplicate key \"" + key + "\"");
      obj.set(key, parse_value(depth + 1));
      skip_ws();
      if (pos_ < t_.size() && t_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < t_.size() && t_[pos_] == '}') {
        ++pos_;
        return obj;
      }
      fail("expected ',' or '}' in object");
    }
  }

  Value parse_array(int depth) {
    Value arr = Value::array();
    ++pos_;
    skip_ws();
    if (pos_ < t_.size() && t_[pos_] == ']') {
      ++pos_;
      return arr;
    }
    for (;;) {
      skip_ws();
      arr.push(parse_value(depth + 1));
      skip_ws();
      if (pos_ < t_.size() && t_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < t_.size() && t_[pos_] == ']') {
        ++pos_;
        return arr;
      }
      fail("expected ',' or ']' in array");
    }
  }

  std::string parse_string() {
    ++pos_;  // opening quote
    std::string out;
    while (pos_ < t_.size()) {
      char c = t_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character inside a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= t_.size()) break;
      char e = t_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (pos_ + 4 > t_.size()) fail("truncated \\u escape");
          unsigned cp = 0;
          for (int i = 0; i < 4; ++i) {
            char h = t_[pos_++];
            cp <<= 4;
            if (h >= '0' && h <= '9') cp |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f') cp |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') cp |= static_cast<unsigned>(h - 'A' + 10);
            else fail("bad hex digit in \\u escape");
          }
          // UTF-8 encode (surrogate pairs are passed through as two code points; configs are ASCII).
          if (cp < 0x80) {
            out += static_cast<char>(cp);
          } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          }
          break;
        }
        default: fail(std::string("unknown escape '\\") + e + "'");
      }
    }
    fail("unterminated string");
  }

  Value parse_number() {
    size_t start = pos_;
    if (t_[pos_] == '-') ++pos_;
    if (pos_ >= t_.size() || !isdigit(static_cast<unsigned char>(t_[pos_]))) fail("expected a digit");
    if (t_[pos_] == '0' && pos_ + 1 < t_.size() && isdigit(static_cast<unsigned char>(t_[pos_ + 1]))) {
      fail("numbers may not have leading zeros");
    }
    bool is_float = false;
    while (pos_ < t_.size()) {
      char c = t_[pos_];
      if (isdigit(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || (c == '-' && is_float)) {
        is_float = true;
        ++pos_;
      } else {
        break;
      }
    }
    std::string num = t_.substr(start, pos_ - start);
    char* end = nullptr;
    if (!is_float) {
      errno = 0;
      long long v = std::strtoll(num.c_str(), &end, 10);
      if (errno == 0 && end && *end == '\0') return Value(static_cast<int64_t>(v));
    }
    double d = std::strtod(num.c_str(), &end);
    if (!end || *end != '\0' || !std::isfinite(d)) {
      pos_ = start;
      fail("malformed number '" + num + "'");
    }
    return Value(d);
  }

  const std::string& t_;
  size_t pos_ = 0;
};

}  // namespace

std::string Value::dump(int indent) const {
  std::ostringstream os;
  write(os, *this, indent, 0);
  return os.str();
}

Value parse(const std::string& text) { return Parser(text).parse_document(); }

}  // namespace tf::json

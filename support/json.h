// A small JSON value with a strict parser and a writer: configs, `--json` output, benchmark results.
// Objects keep insertion order so what tunefarm writes reads in a stable, meaningful order.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tf::json {

class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Value {
 public:
  enum class Kind { Null, Bool, Int, Double, String, Array, Object };

  Value() = default;
  Value(std::nullptr_t) {}                                   // NOLINT
  Value(bool b) : kind_(Kind::Bool), b_(b) {}                // NOLINT
  Value(int v) : kind_(Kind::Int), i_(v) {}                  // NOLINT
  Value(int64_t v) : kind_(Kind::Int), i_(v) {}              // NOLINT
  Value(double v) : kind_(Kind::Double), d_(v) {}            // NOLINT
  Value(const char* s) : kind_(Kind::String), s_(s) {}       // NOLINT
  Value(std::string s) : kind_(Kind::String), s_(std::move(s)) {}  // NOLINT

  static Value array(std::vector<Value> items = {});
  static Value object();

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::Null; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_int() const { return kind_ == Kind::Int; }
  bool is_number() const { return kind_ == Kind::Int || kind_ == Kind::Double; }
  bool is_string() const { return kind_ == Kind::String; }
  bool is_array() const { return kind_ == Kind::Array; }
  bool is_object() const { return kind_ == Kind::Object; }

  // Accessors throw ParseError naming the expected kind when the value is another.
  bool as_bool() const;
  int64_t as_int() const;
  double as_double() const;
  const std::string& as_string() const;
  const std::vector<Value>& items() const;
  std::vector<Value>& items();
  const std::vector<std::pair<std::string, Value>>& members() const;

  // Objects: set replaces an existing key in place.
  Value& set(const std::string& key, Value v);
  const Value* find(const std::string& key) const;
  const Value& at(const std::string& key) const;  // throws ParseError when missing
  Value& push(Value v);                           // arrays
  size_t size() const;

  std::string dump(int indent = -1) const;  // compact when indent < 0
  bool operator==(const Value& o) const;
  bool operator!=(const Value& o) const { return !(*this == o); }

 private:
  Kind kind_ = Kind::Null;
  bool b_ = false;
  int64_t i_ = 0;
  double d_ = 0;
  std::string s_;
  std::shared_ptr<std::vector<Value>> arr_;
  std::shared_ptr<std::vector<std::pair<std::string, Value>>> obj_;
};

// Strict RFC 8259 parsing; errors say what was expected and at which line and column.
Value parse(const std::string& text);

const char* kind_name(Value::Kind k);

}  // namespace tf::json

#include "compiler/ops/shape_json.h"

#include <map>

#include "compiler/error.h"
#include "compiler/ops/operator.h"

namespace tf::ops {
namespace {

const char* kind_of(const Json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a fraction";
  if (v.is_array()) return "a list";
  if (v.is_object()) return "an object";
  return "null";
}

int64_t integer(const Json& v, const std::string& where) {
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))) {
    throw CompileError(where + ": expected an integer extent, got " +
                       (v.is_number_integer() ? v.dump() : std::string(kind_of(v))));
  }
  return v.get<int64_t>();
}

}  // namespace

std::vector<int64_t> shape_from_json(const std::string& op, const Json& shape, const std::string& where) {
  if (shape.is_array()) {
    std::vector<int64_t> out;
    for (size_t d = 0; d < shape.size(); ++d) out.push_back(integer(shape[d], where + "[" + std::to_string(d) + "]"));
    return out;
  }
  try {
    if (shape.is_string()) return parse_shape(op, shape.get<std::string>());
    if (shape.is_object()) {
      std::map<std::string, int64_t> named;
      for (const auto& [name, value] : shape.items()) named[name] = integer(value, where + "." + name);
      return find_operator(op).shape_from_named(named);
    }
  } catch (const CompileError& e) {
    const std::string what = e.what();
    throw CompileError(what.rfind(where, 0) == 0 ? what : where + ": " + what);
  }
  throw CompileError(
      where + ": expected a list of extents, a string like \"n=1,c=64,...\" or an object of named extents, got " +
      kind_of(shape));
}

}  // namespace tf::ops

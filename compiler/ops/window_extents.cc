#include "compiler/ops/window_extents.h"

#include <algorithm>

#include "compiler/error.h"

namespace tf::ops {

NamedExtents::NamedExtents(const std::map<std::string, int64_t>& named, const std::vector<std::string>& known,
                           std::string what, std::string example)
    : named_(named), what_(std::move(what)), example_(std::move(example)) {
  for (const auto& [name, value] : named) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw CompileError(what_ + " shape: unknown extent '" + name + "' (known: " + list + ")");
    }
  }
}

int64_t NamedExtents::get(const std::string& name, std::optional<int64_t> fallback) const {
  if (auto it = named_.find(name); it != named_.end()) return it->second;
  if (!fallback) throw CompileError(what_ + " shape: " + name + "= is missing (e.g. " + example_ + ")");
  return *fallback;
}

NamedExtents::Pads NamedExtents::pads() const {
  const int64_t pad = get("pad", 0);
  return {get("pad_top", pad), get("pad_left", pad), get("pad_bottom", pad), get("pad_right", pad)};
}

FailField shape_field_failure(const std::string& op, const std::string& shape_text) {
  return [prefix = op + " shape " + shape_text + ": "](const std::string& field, const std::string& why) {
    throw CompileError(prefix + field + " " + why);
  };
}

void check_positive_extents(const ExtentFields& fields, const FailField& fail) {
  for (const auto& [field, value] : fields) {
    if (value <= 0) fail(field, "= " + std::to_string(value) + " must be positive");
    if (value > (int64_t{1} << 24)) fail(field, "= " + std::to_string(value) + " is absurdly large");
  }
}

void check_pads(const ExtentFields& pads, std::optional<int64_t> largest, const FailField& fail) {
  for (const auto& [field, value] : pads) {
    if (value < 0) fail(field, "= " + std::to_string(value) + " must not be negative");
    if (largest && value > *largest) fail(field, "= " + std::to_string(value) + " is absurdly large");
  }
}

void check_groups(int64_t groups, const char* groups_field, int64_t c, int64_t k, const FailField& fail) {
  const std::string text = "= " + std::to_string(groups);
  if (c % groups != 0) fail(groups_field, text + " does not divide c = " + std::to_string(c));
  if (k % groups != 0) fail(groups_field, text + " does not divide k = " + std::to_string(k));
}

std::string pads_text(int64_t top, int64_t left, int64_t bottom, int64_t right) {
  if (top == left && top == bottom && top == right) return top ? ",pad=" + std::to_string(top) : "";
  return ",pad_top=" + std::to_string(top) + ",pad_left=" + std::to_string(left) +
         ",pad_bottom=" + std::to_string(bottom) + ",pad_right=" + std::to_string(right);
}

}  // namespace tf::ops

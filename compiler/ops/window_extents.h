// What the shapes of the sliding-window ops (conv2d, conv3d, pools, resize) share: named extents
// with defaults and the pad= shorthand for four sides, the checks on window extents, pads and
// groups with the error that names the shape and the field, and the pads as a user types them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tf::ops {

// A shape's named extents, every name known (else CompileError "<what> shape: unknown extent
// 'x' (known: ...)").
class NamedExtents {
 public:
  NamedExtents(const std::map<std::string, int64_t>& named, const std::vector<std::string>& known, std::string what,
               std::string example);
  // The extent, else the fallback, else CompileError "<what> shape: NAME= is missing (e.g. EXAMPLE)".
  int64_t get(const std::string& name, std::optional<int64_t> fallback) const;

  struct Pads {
    int64_t top = 0, left = 0, bottom = 0, right = 0;
  };
  // pad_top, pad_left, pad_bottom, pad_right, each defaulting to pad= (itself defaulting to 0).
  Pads pads() const;

 private:
  const std::map<std::string, int64_t>& named_;
  std::string what_, example_;
};

using ExtentFields = std::vector<std::pair<const char*, int64_t>>;
using FailField = std::function<void(const std::string& field, const std::string& why)>;
// What a shape's check calls on a field that makes no sense: throws CompileError
// "<op> shape <shape_text>: <field> <why>".
FailField shape_field_failure(const std::string& op, const std::string& shape_text);
// fail() on the first extent that is not positive or is absurdly large (above 2^24).
void check_positive_extents(const ExtentFields& fields, const FailField& fail);
// fail() on the first pad that is negative or (when `largest` is given) above it.
void check_pads(const ExtentFields& pads, std::optional<int64_t> largest, const FailField& fail);
// fail() on the field `groups_field` unless `groups` divides both the input channels c and the
// output channels k.
void check_groups(int64_t groups, const char* groups_field, int64_t c, int64_t k, const FailField& fail);

// ",pad=P" when the four sides agree (nothing when they are 0), else each side.
std::string pads_text(int64_t top, int64_t left, int64_t bottom, int64_t right);

}  // namespace tf::ops

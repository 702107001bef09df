// Integer knob choices as the operator templates declare them: tile sizes capped by the extent
// they tile, and the default picked by the size a template prefers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "support/json.h"

namespace tf::space {

// `options` (ascending) up to the first that reaches `extent`: choices beyond the extent only
// repeat a smaller tile with more guarded overhang, so the smallest such one is kept and small
// shapes get a small space.
std::vector<Json> capped_choices(const std::vector<int64_t>& options, int64_t extent);

// The choice equal to `wanted`, else the largest below it, else the first (choices ascending).
size_t index_of_choice(const std::vector<Json>& choices, int64_t wanted);

}  // namespace tf::space

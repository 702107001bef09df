// A workload's shape as suites and job files write it: a list of extents in the op's positional
// order ([1, 64, 56, 56, ...]), the text a user types ("n=1,c=64,h=56,w=56,k=64,r=3,s=3,pad=1"),
// or an object of named extents ({"n": 1, "c": 64, ...}), the op supplying defaults.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/json.h"

namespace tf::ops {

// The positional extents; CompileError whose message starts with `where` (e.g.
// "workloads[1].shape") and names the extent or element that is wrong. A list is taken as it is
// (check_workload judges its values); the named forms need a known op.
std::vector<int64_t> shape_from_json(const std::string& op, const Json& shape, const std::string& where);

}  // namespace tf::ops

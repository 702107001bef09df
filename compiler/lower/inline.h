// compute_inline: each stage's body with the bodies of inlined stages substituted for their reads.
#pragma once

#include <unordered_map>

#include "compiler/schedule/schedule.h"

namespace tf::lower {

// Every non-input stage's body, inlined stages substituted (transitively).
std::unordered_map<const schedule::Stage*, ir::Expr> inline_bodies(const schedule::Schedule& s);

}  // namespace tf::lower

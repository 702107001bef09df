// Bound inference: how much of each stage to compute, and how long each of its loops runs.
//
// An output (or a stage at the root) computes its whole tensor. A stage computed at a consumer's
// loop computes only the region that one iteration of that loop reads: the consumer's loops outside
// the attach point are fixed, those inside sweep their range, and the consumer's index expressions
// evaluated over that gives the region (an affine start, a constant extent). A stage computed at a
// loop of a stage that does not read it directly (its readers are computed inside that one) gets the
// union of its readers' reads, every loop of the stages in between sweeping its range.
#pragma once

#include <unordered_map>
#include <vector>

#include "compiler/schedule/schedule.h"

namespace tf::lower {

struct StageDomain {
  // Per root axis: the absolute first index computed (symbolic in the consumer's outer loops for an
  // attached stage, 0 otherwise) and how many indices are computed.
  std::vector<ir::Expr> region_min;
  std::vector<int64_t> region_extent;
  // The loop extent of every iteration variable of the stage: root, reduction and derived.
  std::unordered_map<const ir::IterVarNode*, int64_t> extent;
  // Root axes whose splits overhang the region (a factor that does not divide): they need guards.
  std::unordered_map<const ir::IterVarNode*, bool> overhang;

  int64_t extent_of(const ir::IterVar& iv) const { return extent.at(iv.get()); }
};

using Bounds = std::unordered_map<const schedule::Stage*, StageDomain>;

// `bodies` holds each stage's body after inlining (see lower/inline.h).
Bounds infer_bounds(const schedule::Schedule& s, const std::unordered_map<const schedule::Stage*, ir::Expr>& bodies);

// Each root and reduction axis of `stage` as an expression of its leaf loop variables, relative to
// the region start (0-based).
std::unordered_map<const ir::IterVarNode*, ir::Expr> root_values(const schedule::Stage& stage, const StageDomain& dom);

}  // namespace tf::lower

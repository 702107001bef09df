// Intervals of integer index expressions over loop ranges: the second half of the affine analysis
// (affine.h). Bound inference asks for symbolic intervals (rows [o*6, o*6 + 5] of a tile whose
// outer loop o is fixed), the passes and the tuner's access features for constant ones.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "compiler/analysis/affine.h"
#include "compiler/ir/ir.h"

namespace tf::analysis {

// Inclusive constant range.
struct Range {
  int64_t lo, hi;
};

// Inclusive bounds, each an affine form.
struct Interval {
  AffineForm lo, hi;
  static Interval point(const AffineForm& v) { return {v, v}; }
  static Interval range(int64_t lo, int64_t hi) { return {AffineForm::constant(lo), AffineForm::constant(hi)}; }
  // The constant range, when both bounds are constants.
  std::optional<Range> as_range() const;
};

// The intervals of the variables that vary (loop variables, over their loops).
using IntervalEnv = std::unordered_map<const ir::VarNode*, Interval>;

// What a variable outside the env stands for.
enum class FreeVars {
  // One fixed, unknown value: the variable, and any non-linear expression of such variables only,
  // is a single symbolic point, so it cancels against itself (floormod(f, 3)*24 + i spans 24).
  Symbolic,
  // Any value: an expression using it has no interval, but floormod(x, k) is still in [0, k).
  Unbounded,
};

// The interval e (a scalar or vector integer; a vector over all its lanes) takes over env, or
// nullopt when e is beyond the analysis: callers then assume the worst (the whole tensor, a guard
// kept), which is always correct.
std::optional<Interval> eval_interval(const ir::Expr& e, const IntervalEnv& env, FreeVars free);
std::optional<Interval> eval_interval(const AffineForm& f, const IntervalEnv& env, FreeVars free);

// Constant ranges, variables outside env unbounded.
std::optional<Range> const_range(const ir::Expr& e, const IntervalEnv& env);
std::optional<Range> const_range(const AffineForm& f, const IntervalEnv& env);

}  // namespace tf::analysis

// Symbolic intervals of index expressions, for bound inference.
//
// A bound is kept as an affine form sum(coeff * atom) + constant, where an atom is a variable or an
// opaque subexpression. Keeping bounds affine is what lets region extents come out as constants:
// rows [o*6, o*6 + 5] have extent 6 whatever o is.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "compiler/ir/ir.h"

namespace tf::lower {

class Affine {
 public:
  Affine() = default;
  static Affine constant(int64_t c);
  static Affine atom(const ir::Expr& e);

  Affine operator+(const Affine& o) const;
  Affine operator-(const Affine& o) const;
  Affine scaled(int64_t k) const;
  // The constant value when there are no atoms.
  std::optional<int64_t> as_constant() const;
  int64_t constant_part() const { return constant_; }
  ir::Expr to_expr() const;

 private:
  struct Term {
    ir::Expr atom;
    int64_t coeff;
  };
  void add_term(const ir::Expr& atom, int64_t coeff);
  std::vector<Term> terms_;
  int64_t constant_ = 0;
};

struct Interval {
  Affine lo, hi;  // inclusive
};

// Ranges of the variables that vary; a variable not in the map is a single symbolic point.
using IntervalEnv = std::unordered_map<const ir::VarNode*, Interval>;

// The interval e takes over env, or nullopt when e is beyond affine arithmetic (then callers fall
// back to the whole tensor, which is always correct).
std::optional<Interval> eval_interval(const ir::Expr& e, const IntervalEnv& env);

}  // namespace tf::lower

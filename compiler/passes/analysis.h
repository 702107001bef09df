// Analyses the passes share (internal to passes/): structural equality, integer linear forms, and
// constant ranges of index expressions under known loop ranges.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "compiler/ir/ir.h"

namespace tf::passes {

// Same computation, node by node (variables and buffers by identity).
bool structurally_equal(const ir::Expr& a, const ir::Expr& b);

// Inclusive constant range.
struct Range {
  int64_t lo, hi;
};
using RangeMap = std::unordered_map<const ir::VarNode*, Range>;

// A scalar integer expression as sum(coeff * atom) + constant, atoms being variables or
// non-linear subexpressions. Adding two forms cancels equal atoms, which is what turns
// (o*8 + i) - o*8 into i.
class LinearForm {
 public:
  struct Term {
    ir::Expr atom;
    int64_t coeff;
  };
  static LinearForm of(const ir::Expr& e);  // e must be a scalar integer
  static LinearForm constant(int64_t c);

  void add(const LinearForm& o, int64_t scale = 1);
  void scale(int64_t k);
  const std::vector<Term>& terms() const { return terms_; }
  int64_t constant_part() const { return constant_; }
  void set_constant(int64_t c) { constant_ = c; }
  bool is_constant() const { return terms_.empty(); }
  int64_t coeff_of(const ir::VarNode* v) const;  // 0 when absent
  // Rebuilds an expression: terms in order, constant last.
  ir::Expr to_expr(ir::DataType t) const;
  // The range over `ranges`, or nullopt when some atom's range is unknown.
  std::optional<Range> range(const RangeMap& ranges) const;

 private:
  void add_term(const ir::Expr& atom, int64_t coeff);
  std::vector<Term> terms_;
  int64_t constant_ = 0;
};

// Constant range of a scalar integer expression, when known.
std::optional<Range> const_range(const ir::Expr& e, const RangeMap& ranges);

int64_t floor_div(int64_t a, int64_t b);
int64_t floor_mod(int64_t a, int64_t b);

}  // namespace tf::passes

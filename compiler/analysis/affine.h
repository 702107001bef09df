// The one affine analysis of the compiler and the tuner: integer index expressions as linear forms
// (this file), and the intervals they take over loop ranges (interval.h).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/ir/ir.h"

namespace tf::analysis {

int64_t floor_div(int64_t a, int64_t b);
int64_t floor_mod(int64_t a, int64_t b);

// sum(coeff * atom) + constant, atoms being variables or subexpressions that are not linear
// (floordiv, a product of two variables, ...). Adding two forms cancels structurally equal atoms,
// which is what turns (o*8 + i) - o*8 into i and keeps the extent of rows [o*6, o*6 + 5] a constant.
class AffineForm {
 public:
  struct Term {
    ir::Expr atom;
    int64_t coeff;
  };
  AffineForm() = default;
  static AffineForm constant(int64_t c);
  static AffineForm atom(const ir::Expr& e);
  // Reads + and - and products with a constant; every other node is an atom.
  static AffineForm of(const ir::Expr& e);

  void add(const AffineForm& o, int64_t scale = 1);
  void scale(int64_t k);
  AffineForm operator+(const AffineForm& o) const;
  AffineForm operator-(const AffineForm& o) const;
  AffineForm scaled(int64_t k) const;

  const std::vector<Term>& terms() const { return terms_; }
  int64_t constant_part() const { return constant_; }
  void set_constant(int64_t c) { constant_ = c; }
  bool is_constant() const { return terms_.empty(); }
  std::optional<int64_t> as_constant() const;
  int64_t coeff_of(const ir::VarNode* v) const;  // 0 when absent
  // Terms in order, positive ones first (a*x + b*y - c*z), the constant last.
  ir::Expr to_expr(ir::DataType t = ir::DataType::int64()) const;

 private:
  void add_term(const ir::Expr& atom, int64_t coeff);
  std::vector<Term> terms_;
  int64_t constant_ = 0;
};

}  // namespace tf::analysis

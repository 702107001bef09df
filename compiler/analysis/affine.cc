#include "compiler/analysis/affine.h"

#include "compiler/analysis/structural_equal.h"

namespace tf::analysis {

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

AffineForm AffineForm::constant(int64_t c) {
  AffineForm f;
  f.constant_ = c;
  return f;
}

AffineForm AffineForm::atom(const ir::Expr& e) {
  AffineForm f;
  f.add_term(e, 1);
  return f;
}

AffineForm AffineForm::of(const ir::Expr& e) {
  if (const auto* i = e.as<ir::IntImmNode>()) return constant(i->value);
  if (const auto* b = e.as<ir::BinaryNode>()) {
    if (b->op == ir::BinaryOp::Add || b->op == ir::BinaryOp::Sub) {
      AffineForm f = of(b->a);
      f.add(of(b->b), b->op == ir::BinaryOp::Add ? 1 : -1);
      return f;
    }
    if (b->op == ir::BinaryOp::Mul) {
      AffineForm x = of(b->a), y = of(b->b);
      if (y.is_constant()) {
        x.scale(y.constant_);
        return x;
      }
      if (x.is_constant()) {
        y.scale(x.constant_);
        return y;
      }
    }
  }
  return atom(e);
}

void AffineForm::add_term(const ir::Expr& atom, int64_t coeff) {
  if (coeff == 0) return;
  for (size_t i = 0; i < terms_.size(); ++i) {
    if (structurally_equal(terms_[i].atom, atom)) {
      terms_[i].coeff += coeff;
      if (terms_[i].coeff == 0) terms_.erase(terms_.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
  terms_.push_back({atom, coeff});
}

void AffineForm::add(const AffineForm& o, int64_t scale) {
  for (const auto& t : o.terms_) add_term(t.atom, t.coeff * scale);
  constant_ += o.constant_ * scale;
}

void AffineForm::scale(int64_t k) {
  if (k == 0) {
    terms_.clear();
    constant_ = 0;
    return;
  }
  for (auto& t : terms_) t.coeff *= k;
  constant_ *= k;
}

AffineForm AffineForm::operator+(const AffineForm& o) const {
  AffineForm r = *this;
  r.add(o);
  return r;
}

AffineForm AffineForm::operator-(const AffineForm& o) const {
  AffineForm r = *this;
  r.add(o, -1);
  return r;
}

AffineForm AffineForm::scaled(int64_t k) const {
  AffineForm r = *this;
  r.scale(k);
  return r;
}

std::optional<int64_t> AffineForm::as_constant() const {
  if (!terms_.empty()) return std::nullopt;
  return constant_;
}

int64_t AffineForm::coeff_of(const ir::VarNode* v) const {
  for (const auto& t : terms_) {
    if (t.atom.get() == v) return t.coeff;
  }
  return 0;
}

ir::Expr AffineForm::to_expr(ir::DataType t) const {
  ir::Expr e;
  // Positive terms first so the result reads a*x + b*y - c*z rather than starting with a negation.
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& term : terms_) {
      if ((term.coeff > 0) != (pass == 0)) continue;
      const int64_t mag = term.coeff > 0 ? term.coeff : -term.coeff;
      ir::Expr x = mag == 1 ? term.atom : term.atom * ir::make_int(mag, t);
      if (!e) {
        e = term.coeff > 0 ? x : ir::make_int(0, t) - x;
      } else {
        e = term.coeff > 0 ? e + x : e - x;
      }
    }
  }
  if (!e) return ir::make_int(constant_, t);
  if (constant_ > 0) e = e + ir::make_int(constant_, t);
  if (constant_ < 0) e = e - ir::make_int(-constant_, t);
  return e;
}

}  // namespace tf::analysis

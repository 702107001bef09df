#include "compiler/lower/interval.h"

#include "compiler/ir/substitute.h"

#include "compiler/ir/printer.h"

namespace tf::lower {
namespace {

// Atoms compare by structure, so the same subexpression built twice cancels.
bool same_atom(const ir::Expr& a, const ir::Expr& b) {
  if (a.same_as(b)) return true;
  if (a->kind != b->kind) return false;
  if (a.as<ir::VarNode>()) return false;  // variables are identities
  return ir::to_string(a) == ir::to_string(b);
}

int64_t floordiv_int(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace

Affine Affine::constant(int64_t c) {
  Affine a;
  a.constant_ = c;
  return a;
}

Affine Affine::atom(const ir::Expr& e) {
  Affine a;
  a.add_term(e, 1);
  return a;
}

void Affine::add_term(const ir::Expr& atom, int64_t coeff) {
  if (coeff == 0) return;
  for (size_t i = 0; i < terms_.size(); ++i) {
    if (same_atom(terms_[i].atom, atom)) {
      terms_[i].coeff += coeff;
      if (terms_[i].coeff == 0) terms_.erase(terms_.begin() + static_cast<long>(i));
      return;
    }
  }
  terms_.push_back({atom, coeff});
}

Affine Affine::operator+(const Affine& o) const {
  Affine r = *this;
  for (const auto& t : o.terms_) r.add_term(t.atom, t.coeff);
  r.constant_ += o.constant_;
  return r;
}

Affine Affine::operator-(const Affine& o) const { return *this + o.scaled(-1); }

Affine Affine::scaled(int64_t k) const {
  Affine r;
  if (k == 0) return r;
  for (const auto& t : terms_) r.terms_.push_back({t.atom, t.coeff * k});
  r.constant_ = constant_ * k;
  return r;
}

std::optional<int64_t> Affine::as_constant() const {
  if (!terms_.empty()) return std::nullopt;
  return constant_;
}

ir::Expr Affine::to_expr() const {
  ir::Expr e;
  for (const auto& t : terms_) {
    ir::Expr term = t.coeff == 1 ? t.atom : t.atom * ir::make_int(t.coeff);
    e = e ? e + term : term;
  }
  if (!e) return ir::make_int(constant_);
  if (constant_ != 0) e = e + ir::make_int(constant_);
  return e;
}

std::optional<Interval> eval_interval(const ir::Expr& e, const IntervalEnv& env) {
  using ir::BinaryOp;
  if (!e || !e.type().is_int() || e.type().is_vector()) return std::nullopt;
  if (auto* i = e.as<ir::IntImmNode>()) return Interval{Affine::constant(i->value), Affine::constant(i->value)};
  if (auto* v = e.as<ir::VarNode>()) {
    auto it = env.find(v);
    if (it != env.end()) return it->second;
    return Interval{Affine::atom(e), Affine::atom(e)};
  }
  if (auto* c = e.as<ir::CastNode>()) {
    if (c->value.type().is_int()) return eval_interval(c->value, env);
    return std::nullopt;
  }
  auto* b = e.as<ir::BinaryNode>();
  if (!b) return std::nullopt;
  // An expression of fixed variables only is one symbolic point, whatever its operators: keeping it
  // an atom keeps the tile of a fused loop (floormod(f, 3) * 24 + i) exactly as wide as the tile.
  if (b->op == BinaryOp::FloorDiv || b->op == BinaryOp::FloorMod || b->op == BinaryOp::Div || b->op == BinaryOp::Mod ||
      b->op == BinaryOp::Min || b->op == BinaryOp::Max) {
    bool varies = false;
    for (const auto* v : ir::vars_used(e)) varies |= env.count(v) > 0;
    if (!varies) return Interval{Affine::atom(e), Affine::atom(e)};
  }
  auto a = eval_interval(b->a, env);
  auto c = eval_interval(b->b, env);
  if (!a || !c) return std::nullopt;
  switch (b->op) {
    case BinaryOp::Add: return Interval{a->lo + c->lo, a->hi + c->hi};
    case BinaryOp::Sub: return Interval{a->lo - c->hi, a->hi - c->lo};
    case BinaryOp::Mul: {
      auto k = c->lo.as_constant();
      const Interval* x = &*a;
      if (!k || c->hi.as_constant() != k) {
        k = a->lo.as_constant();
        x = &*c;
        if (!k || a->hi.as_constant() != k) return std::nullopt;
      }
      if (*k >= 0) return Interval{x->lo.scaled(*k), x->hi.scaled(*k)};
      return Interval{x->hi.scaled(*k), x->lo.scaled(*k)};
    }
    case BinaryOp::FloorDiv:
    case BinaryOp::FloorMod: {
      auto k = c->lo.as_constant();
      if (!k || c->hi.as_constant() != k || *k <= 0) return std::nullopt;
      auto lo = a->lo.as_constant(), hi = a->hi.as_constant();
      if (b->op == BinaryOp::FloorMod) {
        if (lo && hi && floordiv_int(*lo, *k) == floordiv_int(*hi, *k)) {
          return Interval{Affine::constant(*lo - floordiv_int(*lo, *k) * *k), Affine::constant(*hi - floordiv_int(*hi, *k) * *k)};
        }
        return Interval{Affine::constant(0), Affine::constant(*k - 1)};
      }
      if (lo && hi) return Interval{Affine::constant(floordiv_int(*lo, *k)), Affine::constant(floordiv_int(*hi, *k))};
      // A symbolic point stays a (structural) atom so it cancels against itself.
      ir::Expr lo_e = a->lo.to_expr(), hi_e = a->hi.to_expr();
      return Interval{Affine::atom(ir::floordiv(lo_e, *k)), Affine::atom(ir::floordiv(hi_e, *k))};
    }
    case BinaryOp::Min:
    case BinaryOp::Max: {
      auto d_lo = (a->lo - c->lo).as_constant(), d_hi = (a->hi - c->hi).as_constant();
      if (!d_lo || !d_hi) return std::nullopt;
      bool is_min = b->op == BinaryOp::Min;
      Affine lo = (*d_lo <= 0) == is_min ? a->lo : c->lo;
      Affine hi = (*d_hi <= 0) == is_min ? a->hi : c->hi;
      return Interval{lo, hi};
    }
    default: return std::nullopt;
  }
}

}  // namespace tf::lower

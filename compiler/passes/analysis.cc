#include "compiler/passes/analysis.h"

#include <algorithm>

namespace tf::passes {

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

bool structurally_equal(const ir::Expr& a, const ir::Expr& b) {
  if (a.same_as(b)) return true;
  if (!a || !b || a->kind != b->kind || a.type() != b.type()) return false;
  switch (a->kind) {
    case ir::ExprKind::IntImm: return a.as<ir::IntImmNode>()->value == b.as<ir::IntImmNode>()->value;
    case ir::ExprKind::FloatImm: return a.as<ir::FloatImmNode>()->value == b.as<ir::FloatImmNode>()->value;
    case ir::ExprKind::Var: return false;  // identity only, checked above
    case ir::ExprKind::Binary: {
      auto *x = a.as<ir::BinaryNode>(), *y = b.as<ir::BinaryNode>();
      return x->op == y->op && structurally_equal(x->a, y->a) && structurally_equal(x->b, y->b);
    }
    case ir::ExprKind::Not: return structurally_equal(a.as<ir::NotNode>()->a, b.as<ir::NotNode>()->a);
    case ir::ExprKind::Select: {
      auto *x = a.as<ir::SelectNode>(), *y = b.as<ir::SelectNode>();
      return structurally_equal(x->cond, y->cond) && structurally_equal(x->true_value, y->true_value) &&
             structurally_equal(x->false_value, y->false_value);
    }
    case ir::ExprKind::Cast: return structurally_equal(a.as<ir::CastNode>()->value, b.as<ir::CastNode>()->value);
    case ir::ExprKind::Call: {
      auto *x = a.as<ir::CallNode>(), *y = b.as<ir::CallNode>();
      if (x->func != y->func || x->args.size() != y->args.size()) return false;
      for (size_t i = 0; i < x->args.size(); ++i) {
        if (!structurally_equal(x->args[i], y->args[i])) return false;
      }
      return true;
    }
    case ir::ExprKind::Load: {
      auto *x = a.as<ir::LoadNode>(), *y = b.as<ir::LoadNode>();
      return x->buffer == y->buffer && structurally_equal(x->index, y->index);
    }
    case ir::ExprKind::Ramp: {
      auto *x = a.as<ir::RampNode>(), *y = b.as<ir::RampNode>();
      return x->lanes == y->lanes && structurally_equal(x->base, y->base) && structurally_equal(x->stride, y->stride);
    }
    case ir::ExprKind::Broadcast: {
      auto *x = a.as<ir::BroadcastNode>(), *y = b.as<ir::BroadcastNode>();
      return x->lanes == y->lanes && structurally_equal(x->value, y->value);
    }
    case ir::ExprKind::TensorLoad:
    case ir::ExprKind::Reduce: return false;  // gone after lowering; never worth comparing
  }
  return false;
}

// ---------------------------------------------------------------- LinearForm

LinearForm LinearForm::constant(int64_t c) {
  LinearForm f;
  f.constant_ = c;
  return f;
}

LinearForm LinearForm::of(const ir::Expr& e) {
  if (const auto* i = e.as<ir::IntImmNode>()) return constant(i->value);
  if (const auto* b = e.as<ir::BinaryNode>()) {
    if (b->op == ir::BinaryOp::Add || b->op == ir::BinaryOp::Sub) {
      LinearForm f = of(b->a);
      f.add(of(b->b), b->op == ir::BinaryOp::Add ? 1 : -1);
      return f;
    }
    if (b->op == ir::BinaryOp::Mul) {
      LinearForm x = of(b->a), y = of(b->b);
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
  LinearForm f;
  f.add_term(e, 1);
  return f;
}

void LinearForm::add_term(const ir::Expr& atom, int64_t coeff) {
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

void LinearForm::add(const LinearForm& o, int64_t scale) {
  for (const auto& t : o.terms_) add_term(t.atom, t.coeff * scale);
  constant_ += o.constant_ * scale;
}

void LinearForm::scale(int64_t k) {
  if (k == 0) {
    terms_.clear();
    constant_ = 0;
    return;
  }
  for (auto& t : terms_) t.coeff *= k;
  constant_ *= k;
}

int64_t LinearForm::coeff_of(const ir::VarNode* v) const {
  for (const auto& t : terms_) {
    if (t.atom.get() == v) return t.coeff;
  }
  return 0;
}

ir::Expr LinearForm::to_expr(ir::DataType t) const {
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

std::optional<Range> LinearForm::range(const RangeMap& ranges) const {
  Range r{constant_, constant_};
  for (const auto& t : terms_) {
    auto a = const_range(t.atom, ranges);
    if (!a) return std::nullopt;
    int64_t x = a->lo * t.coeff, y = a->hi * t.coeff;
    r.lo += std::min(x, y);
    r.hi += std::max(x, y);
  }
  return r;
}

// ---------------------------------------------------------------- ranges

std::optional<Range> const_range(const ir::Expr& e, const RangeMap& ranges) {
  if (!e || !e.type().is_scalar() || !(e.type().is_int() || e.type().is_uint())) return std::nullopt;
  if (const auto* i = e.as<ir::IntImmNode>()) return Range{i->value, i->value};
  if (const auto* v = e.as<ir::VarNode>()) {
    auto it = ranges.find(v);
    if (it == ranges.end()) return std::nullopt;
    return it->second;
  }
  if (const auto* c = e.as<ir::CastNode>()) {
    if (c->value.type().is_int() && c->value.type().bits <= e.type().bits) return const_range(c->value, ranges);
    return std::nullopt;
  }
  if (const auto* s = e.as<ir::SelectNode>()) {
    auto a = const_range(s->true_value, ranges), b = const_range(s->false_value, ranges);
    if (!a || !b) return std::nullopt;
    return Range{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
  }
  const auto* b = e.as<ir::BinaryNode>();
  if (!b) return std::nullopt;
  using Op = ir::BinaryOp;
  switch (b->op) {
    case Op::Add:
    case Op::Sub: return LinearForm::of(e).range(ranges);
    case Op::Mul: {
      auto x = const_range(b->a, ranges), y = const_range(b->b, ranges);
      if (!x || !y) return std::nullopt;
      int64_t c[4] = {x->lo * y->lo, x->lo * y->hi, x->hi * y->lo, x->hi * y->hi};
      return Range{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
    }
    case Op::Div:
    case Op::Mod:
    case Op::FloorDiv:
    case Op::FloorMod: {
      auto x = const_range(b->a, ranges);
      int64_t k = 0;
      if (!ir::is_const_int(b->b, &k) || k <= 0) return std::nullopt;
      const bool floor_op = b->op == Op::FloorDiv || b->op == Op::FloorMod;
      const bool is_div = b->op == Op::Div || b->op == Op::FloorDiv;
      if (!x) {
        if (!is_div && floor_op) return Range{0, k - 1};
        return std::nullopt;
      }
      if (!floor_op && x->lo < 0) return std::nullopt;  // C semantics differ below zero
      if (is_div) return Range{floor_div(x->lo, k), floor_div(x->hi, k)};
      if (floor_div(x->lo, k) == floor_div(x->hi, k)) return Range{floor_mod(x->lo, k), floor_mod(x->hi, k)};
      return Range{0, k - 1};
    }
    case Op::Min:
    case Op::Max: {
      auto x = const_range(b->a, ranges), y = const_range(b->b, ranges);
      if (!x || !y) return std::nullopt;
      if (b->op == Op::Min) return Range{std::min(x->lo, y->lo), std::min(x->hi, y->hi)};
      return Range{std::max(x->lo, y->lo), std::max(x->hi, y->hi)};
    }
    default: return std::nullopt;
  }
}

}  // namespace tf::passes

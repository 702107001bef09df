#include "compiler/analysis/interval.h"

#include <algorithm>

#include "compiler/ir/substitute.h"

namespace tf::analysis {

std::optional<Range> Interval::as_range() const {
  auto l = lo.as_constant(), h = hi.as_constant();
  if (!l || !h) return std::nullopt;
  return Range{*l, *h};
}

namespace {

// The smaller (is_min) or larger of two bounds, when their difference is a constant.
std::optional<AffineForm> pick(const AffineForm& a, const AffineForm& b, bool is_min) {
  auto d = (a - b).as_constant();
  if (!d) return std::nullopt;
  return (*d <= 0) == is_min ? a : b;
}

class Evaluator {
 public:
  Evaluator(const IntervalEnv& env, FreeVars free) : env_(env), free_(free) {}

  std::optional<Interval> eval(const ir::Expr& e) const {
    if (!e || !(e.type().is_int() || e.type().is_uint())) return std::nullopt;
    if (const auto* i = e.as<ir::IntImmNode>()) return Interval::range(i->value, i->value);
    if (const auto* v = e.as<ir::VarNode>()) {
      auto it = env_.find(v);
      if (it != env_.end()) return it->second;
      if (free_ == FreeVars::Symbolic) return Interval::point(AffineForm::atom(e));
      return std::nullopt;
    }
    if (const auto* c = e.as<ir::CastNode>()) {
      // Widening keeps every value; a narrowing cast may wrap.
      if (c->value.type().is_int() && c->value.type().bits <= e.type().bits) return eval(c->value);
      return std::nullopt;
    }
    if (const auto* b = e.as<ir::BroadcastNode>()) return eval(b->value);
    if (const auto* r = e.as<ir::RampNode>()) return ramp(r);
    if (const auto* s = e.as<ir::SelectNode>()) {
      if (is_fixed(e)) return Interval::point(AffineForm::atom(e));
      return hull(eval(s->true_value), eval(s->false_value));
    }
    const auto* b = e.as<ir::BinaryNode>();
    if (!b) return std::nullopt;
    using Op = ir::BinaryOp;
    switch (b->op) {
      case Op::Add:
      case Op::Sub: return eval(AffineForm::of(e));
      case Op::Mul: return mul(e, b);
      case Op::Div:
      case Op::Mod:
      case Op::FloorDiv:
      case Op::FloorMod:
        if (is_fixed(e)) return Interval::point(AffineForm::atom(e));
        return div_mod(e, b);
      case Op::Min:
      case Op::Max: {
        if (is_fixed(e)) return Interval::point(AffineForm::atom(e));
        auto x = eval(b->a), y = eval(b->b);
        if (!x || !y) return std::nullopt;
        const bool is_min = b->op == Op::Min;
        auto lo = pick(x->lo, y->lo, is_min), hi = pick(x->hi, y->hi, is_min);
        if (!lo || !hi) return std::nullopt;
        return Interval{*lo, *hi};
      }
      default: return std::nullopt;
    }
  }

  std::optional<Interval> eval(const AffineForm& f) const {
    Interval r = Interval::range(f.constant_part(), f.constant_part());
    for (const auto& t : f.terms()) {
      auto a = eval(t.atom);
      if (!a) return std::nullopt;
      r.lo.add(t.coeff > 0 ? a->lo : a->hi, t.coeff);
      r.hi.add(t.coeff > 0 ? a->hi : a->lo, t.coeff);
    }
    return r;
  }

 private:
  // An expression of fixed variables only is one symbolic point, whatever its operators: kept an
  // atom, it cancels against itself where interval arithmetic on its parts would widen.
  bool is_fixed(const ir::Expr& e) const {
    if (free_ != FreeVars::Symbolic) return false;
    auto vars = ir::vars_used(e);
    if (vars.empty()) return false;  // a constant: fold it instead
    for (const auto* v : vars) {
      if (env_.count(v)) return false;
    }
    return true;
  }

  static std::optional<Interval> hull(const std::optional<Interval>& a, const std::optional<Interval>& b) {
    if (!a || !b) return std::nullopt;
    auto lo = pick(a->lo, b->lo, true), hi = pick(a->hi, b->hi, false);
    if (!lo || !hi) return std::nullopt;
    return Interval{*lo, *hi};
  }

  std::optional<Interval> ramp(const ir::RampNode* r) const {
    auto base = eval(r->base);
    auto stride = eval(r->stride);
    if (!base || !stride) return std::nullopt;
    auto s = stride->as_range();
    if (!s) return std::nullopt;
    const int64_t last = r->lanes - 1;
    Interval out = *base;
    out.lo.add(AffineForm::constant(std::min<int64_t>(0, s->lo * last)));
    out.hi.add(AffineForm::constant(std::max<int64_t>(0, s->hi * last)));
    return out;
  }

  std::optional<Interval> mul(const ir::Expr& e, const ir::BinaryNode* b) const {
    auto x = eval(b->a), y = eval(b->b);
    if (x && y) {
      for (int side = 0; side < 2; ++side) {
        const Interval& k_iv = side == 0 ? *y : *x;
        const Interval& v = side == 0 ? *x : *y;
        auto k = k_iv.as_range();
        if (!k || k->lo != k->hi) continue;
        if (k->lo >= 0) return Interval{v.lo.scaled(k->lo), v.hi.scaled(k->lo)};
        return Interval{v.hi.scaled(k->lo), v.lo.scaled(k->lo)};
      }
      auto rx = x->as_range(), ry = y->as_range();
      if (rx && ry) {
        const int64_t c[4] = {rx->lo * ry->lo, rx->lo * ry->hi, rx->hi * ry->lo, rx->hi * ry->hi};
        return Interval::range(*std::min_element(c, c + 4), *std::max_element(c, c + 4));
      }
    }
    if (is_fixed(e)) return Interval::point(AffineForm::atom(e));
    return std::nullopt;
  }

  // Division by a positive constant k. C's Div and Mod agree with the floor forms on values that
  // are known not to be negative, and on nothing else.
  std::optional<Interval> div_mod(const ir::Expr& e, const ir::BinaryNode* b) const {
    using Op = ir::BinaryOp;
    auto kr = eval(b->b);
    auto k_range = kr ? kr->as_range() : std::nullopt;
    if (!k_range || k_range->lo != k_range->hi || k_range->lo <= 0) return std::nullopt;
    const int64_t k = k_range->lo;
    const bool is_div = b->op == Op::Div || b->op == Op::FloorDiv;
    const bool floor_op = b->op == Op::FloorDiv || b->op == Op::FloorMod;
    auto x = eval(b->a);
    if (!x) {
      if (b->op == Op::FloorMod) return Interval::range(0, k - 1);
      return std::nullopt;
    }
    auto r = x->as_range();
    if (!floor_op && (!r || r->lo < 0)) return std::nullopt;
    if (r) {
      if (is_div) return Interval::range(floor_div(r->lo, k), floor_div(r->hi, k));
      if (floor_div(r->lo, k) == floor_div(r->hi, k)) return Interval::range(floor_mod(r->lo, k), floor_mod(r->hi, k));
      return Interval::range(0, k - 1);
    }
    if (!is_div) return Interval::range(0, k - 1);
    // A symbolic bound stays a (structural) atom so it cancels against itself.
    const ir::DataType t = e.type();
    auto bound = [&](const AffineForm& f) {
      if (auto c = f.as_constant()) return AffineForm::constant(floor_div(*c, k));
      // Terms that are multiples of k leave the division exactly: the rows [o*4, o*4 + 3] of a
      // stride-2 phase split are [o*2, o*2 + 1], a constant extent.
      AffineForm quotient = AffineForm::constant(floor_div(f.constant_part(), k));
      bool exact = true;
      for (const auto& term : f.terms()) {
        if (term.coeff % k != 0) exact = false;
        quotient.add(AffineForm::atom(term.atom), term.coeff / k);
      }
      if (exact) return quotient;
      return AffineForm::atom(ir::floordiv(f.to_expr(t), ir::make_int(k, t)));
    };
    return Interval{bound(x->lo), bound(x->hi)};
  }

  const IntervalEnv& env_;
  FreeVars free_;
};

}  // namespace

std::optional<Interval> eval_interval(const ir::Expr& e, const IntervalEnv& env, FreeVars free) {
  return Evaluator(env, free).eval(e);
}

std::optional<Interval> eval_interval(const AffineForm& f, const IntervalEnv& env, FreeVars free) {
  return Evaluator(env, free).eval(f);
}

std::optional<Range> const_range(const ir::Expr& e, const IntervalEnv& env) {
  auto iv = eval_interval(e, env, FreeVars::Unbounded);
  return iv ? iv->as_range() : std::nullopt;
}

std::optional<Range> const_range(const AffineForm& f, const IntervalEnv& env) {
  auto iv = eval_interval(f, env, FreeVars::Unbounded);
  return iv ? iv->as_range() : std::nullopt;
}

}  // namespace tf::analysis

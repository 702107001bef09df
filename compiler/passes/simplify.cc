// Simplification: constant folding, identities, canonical linear index forms, floordiv/floormod
// and comparisons decided by the ranges of the enclosing loops, dead code removal.
#include <cmath>

#include "compiler/analysis/interval.h"
#include "compiler/analysis/structural_equal.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/substitute.h"
#include "compiler/passes/passes.h"

namespace tf::passes {
namespace {

using analysis::AffineForm;
using analysis::const_range;
using analysis::floor_div;
using analysis::floor_mod;
using analysis::Interval;
using analysis::Range;
using analysis::structurally_equal;

using ir::BinaryOp;
using ir::Expr;
using ir::Stmt;

bool is_const_bool(const Expr& e, bool* value) {
  int64_t v = 0;
  if (!e.type().is_bool() || !ir::is_const_int(e, &v)) return false;
  *value = v != 0;
  return true;
}

Expr make_bool(bool v) { return ir::make_int(v ? 1 : 0, ir::DataType::boolean()); }

bool compare(BinaryOp op, double a, double b) {
  switch (op) {
    case BinaryOp::EQ: return a == b;
    case BinaryOp::NE: return a != b;
    case BinaryOp::LT: return a < b;
    case BinaryOp::LE: return a <= b;
    case BinaryOp::GT: return a > b;
    case BinaryOp::GE: return a >= b;
    default: return false;
  }
}

// Decides `d op 0` from d's range, when the range settles it.
std::optional<bool> decide(BinaryOp op, const Range& d) {
  switch (op) {
    case BinaryOp::LT:
      if (d.hi < 0) return true;
      if (d.lo >= 0) return false;
      break;
    case BinaryOp::LE:
      if (d.hi <= 0) return true;
      if (d.lo > 0) return false;
      break;
    case BinaryOp::GT:
      if (d.lo > 0) return true;
      if (d.hi <= 0) return false;
      break;
    case BinaryOp::GE:
      if (d.lo >= 0) return true;
      if (d.hi < 0) return false;
      break;
    case BinaryOp::EQ:
      if (d.lo == 0 && d.hi == 0) return true;
      if (d.lo > 0 || d.hi < 0) return false;
      break;
    case BinaryOp::NE:
      if (d.lo == 0 && d.hi == 0) return false;
      if (d.lo > 0 || d.hi < 0) return true;
      break;
    default: break;
  }
  return std::nullopt;
}

BinaryOp negate(BinaryOp op) {
  switch (op) {
    case BinaryOp::LT: return BinaryOp::GE;
    case BinaryOp::LE: return BinaryOp::GT;
    case BinaryOp::GT: return BinaryOp::LE;
    case BinaryOp::GE: return BinaryOp::LT;
    case BinaryOp::EQ: return BinaryOp::NE;
    default: return BinaryOp::EQ;
  }
}

class Simplifier : public ir::IRMutator {
 public:
  using ir::IRMutator::mutate;

 protected:
  Expr visit(const ir::BinaryNode* n, const Expr& self) override {
    Expr a = mutate(n->a), b = mutate(n->b);
    const ir::DataType t = a.type();
    if (t.is_vector()) return vector_binary(n->op, a, b);
    if (t.is_float()) return float_binary(n->op, a, b);
    if (t.is_bool()) return bool_binary(n->op, a, b);
    return int_binary(n->op, a, b);
  }

  Expr visit(const ir::NotNode* n, const Expr& self) override {
    Expr a = mutate(n->a);
    bool v = false;
    if (is_const_bool(a, &v)) return make_bool(!v);
    if (const auto* b = a.as<ir::BinaryNode>()) {
      if (ir::is_comparison(b->op) && b->a.type().is_scalar() && !b->a.type().is_float()) {
        return ir::make_binary(negate(b->op), b->a, b->b);
      }
    }
    if (const auto* inner = a.as<ir::NotNode>()) return inner->a;
    return a.same_as(n->a) ? self : ir::make_not(a);
  }

  Expr visit(const ir::SelectNode* n, const Expr& self) override {
    Expr c = mutate(n->cond);
    bool v = false;
    if (is_const_bool(c, &v) && c.type().is_scalar()) return mutate(v ? n->true_value : n->false_value);
    Expr t = mutate(n->true_value), f = mutate(n->false_value);
    if (structurally_equal(t, f)) return t;
    return ir::make_select(c, t, f);
  }

  Expr visit(const ir::CastNode* n, const Expr& self) override {
    Expr v = mutate(n->value);
    if (v.type() == n->type) return v;
    if (n->type.is_scalar()) {
      if (const auto* i = v.as<ir::IntImmNode>()) {
        if (n->type.is_float()) return ir::make_float(static_cast<double>(i->value), n->type);
        if (n->type.is_int() && n->type.bits == 64) return ir::make_int(i->value, n->type);
      }
    }
    return v.same_as(n->value) ? self : ir::make_cast(n->type, v);
  }

  Expr visit(const ir::RampNode* n, const Expr& self) override {
    Expr base = mutate(n->base), stride = mutate(n->stride);
    if (ir::is_zero(stride)) return ir::make_broadcast(base, n->lanes);
    if (base.same_as(n->base) && stride.same_as(n->stride)) return self;
    return ir::make_ramp(base, stride, n->lanes);
  }

  Expr visit(const ir::LoadNode* n, const Expr& self) override {
    Expr index = mutate(n->index);
    // Every lane reads the same element: one scalar load, broadcast.
    if (const auto* b = index.as<ir::BroadcastNode>())
      return ir::make_broadcast(ir::make_load(n->buffer, b->value), b->lanes);
    return index.same_as(n->index) ? self : ir::make_load(n->buffer, index);
  }

  Stmt visit(const ir::ForNode* n, const Stmt& self) override {
    Expr min = mutate(n->min), extent = mutate(n->extent);
    int64_t lo = 0, ext = 0;
    const bool const_min = ir::is_const_int(min, &lo), const_ext = ir::is_const_int(extent, &ext);
    if (const_ext && ext <= 0) return Stmt();
    if (const_ext && ext == 1) return mutate(ir::substitute(n->body, {{n->var.get(), min}}));
    Stmt body;
    if (const_min && const_ext) {
      ranges_[n->var.get()] = Interval::range(lo, lo + ext - 1);
      body = mutate(n->body);
      ranges_.erase(n->var.get());
    } else {
      body = mutate(n->body);
    }
    if (!body) return Stmt();
    if (min.same_as(n->min) && extent.same_as(n->extent) && body.same_as(n->body)) return self;
    return ir::make_for(n->var, min, extent, n->for_kind, body);
  }

  Stmt visit(const ir::IfThenElseNode* n, const Stmt& self) override {
    Expr c = mutate(n->cond);
    bool v = false;
    if (is_const_bool(c, &v)) return mutate(v ? n->then_case : n->else_case);
    Stmt t = mutate(n->then_case), e = mutate(n->else_case);
    if (!t && !e) return Stmt();
    if (!t) return ir::make_if(mutate(ir::make_not(c)), e);
    if (c.same_as(n->cond) && t.same_as(n->then_case) && e.same_as(n->else_case)) return self;
    return ir::make_if(c, t, e);
  }

  Stmt visit(const ir::LetStmtNode* n, const Stmt& self) override {
    Expr value = mutate(n->value);
    // Constants and plain variables are free to repeat; substituting them exposes more folding.
    if (value.as<ir::IntImmNode>() || value.as<ir::VarNode>() || value.as<ir::FloatImmNode>()) {
      return mutate(ir::substitute(n->body, {{n->var.get(), value}}));
    }
    auto r = const_range(value, ranges_);
    if (r) ranges_[n->var.get()] = Interval::range(r->lo, r->hi);
    Stmt body = mutate(n->body);
    if (r) ranges_.erase(n->var.get());
    if (!body) return Stmt();
    if (value.same_as(n->value) && body.same_as(n->body)) return self;
    return ir::make_let(n->var, value, body);
  }

  Stmt visit(const ir::AllocateNode* n, const Stmt& self) override {
    Stmt body = mutate(n->body);
    if (!body) return Stmt();
    return body.same_as(n->body) ? self : ir::make_allocate(n->buffer, body);
  }

  Stmt visit(const ir::SeqNode* n, const Stmt& self) override {
    std::vector<Stmt> out;
    bool changed = false;
    for (const auto& s : n->stmts) {
      Stmt m = mutate(s);
      changed |= !m.same_as(s);
      if (m) out.push_back(m);
    }
    if (!changed) return self;
    return ir::make_seq(out);
  }

 private:
  Expr float_binary(BinaryOp op, const Expr& a, const Expr& b) {
    const auto *x = a.as<ir::FloatImmNode>(), *y = b.as<ir::FloatImmNode>();
    if (x && y) {
      if (ir::is_comparison(op)) return make_bool(compare(op, x->value, y->value));
      double r = 0;
      switch (op) {
        case BinaryOp::Add: r = x->value + y->value; break;
        case BinaryOp::Sub: r = x->value - y->value; break;
        case BinaryOp::Mul: r = x->value * y->value; break;
        case BinaryOp::Div: r = x->value / y->value; break;
        case BinaryOp::Min: r = std::min(x->value, y->value); break;
        case BinaryOp::Max: r = std::max(x->value, y->value); break;
        default: return ir::make_binary(op, a, b);
      }
      // Fold in the operand precision, as the kernel would compute it.
      if (a.type().bits == 32) r = static_cast<float>(r);
      return ir::make_float(r, a.type());
    }
    // x * 1 and x / 1 are exact for every x, -0 and NaN included.
    if (op == BinaryOp::Mul && y && y->value == 1.0) return a;
    if (op == BinaryOp::Mul && x && x->value == 1.0) return b;
    if (op == BinaryOp::Div && y && y->value == 1.0) return a;
    return ir::make_binary(op, a, b);
  }

  Expr bool_binary(BinaryOp op, const Expr& a, const Expr& b) {
    bool x = false, y = false;
    const bool cx = is_const_bool(a, &x), cy = is_const_bool(b, &y);
    switch (op) {
      case BinaryOp::And:
        if (cx) return x ? b : make_bool(false);
        if (cy) return y ? a : make_bool(false);
        if (structurally_equal(a, b)) return a;
        break;
      case BinaryOp::Or:
        if (cx) return x ? make_bool(true) : b;
        if (cy) return y ? make_bool(true) : a;
        if (structurally_equal(a, b)) return a;
        break;
      case BinaryOp::EQ:
        if (cx && cy) return make_bool(x == y);
        break;
      case BinaryOp::NE:
        if (cx && cy) return make_bool(x != y);
        break;
      default: break;
    }
    return ir::make_binary(op, a, b);
  }

  Expr int_binary(BinaryOp op, const Expr& a, const Expr& b) {
    const ir::DataType t = a.type();
    int64_t x = 0, y = 0;
    const bool cx = ir::is_const_int(a, &x), cy = ir::is_const_int(b, &y);
    switch (op) {
      case BinaryOp::Add:
      case BinaryOp::Sub:
      case BinaryOp::Mul: {
        if (op == BinaryOp::Mul && !cx && !cy) {
          auto ra = const_range(a, ranges_), rb = const_range(b, ranges_);
          if ((ra && ra->lo == 0 && ra->hi == 0) || (rb && rb->lo == 0 && rb->hi == 0)) return ir::make_int(0, t);
          return ir::make_binary(op, a, b);
        }
        if (op == BinaryOp::Mul) return AffineForm::of(ir::make_binary(op, a, b)).to_expr(t);
        AffineForm f = AffineForm::of(a);
        f.add(AffineForm::of(b), op == BinaryOp::Sub ? -1 : 1);
        return f.to_expr(t);
      }
      case BinaryOp::Div:
      case BinaryOp::Mod:
      case BinaryOp::FloorDiv:
      case BinaryOp::FloorMod: {
        if (cy && y == 0) return ir::make_binary(op, a, b);  // keep: the kernel's behaviour, not ours
        if (cx && cy) {
          switch (op) {
            case BinaryOp::Div: return ir::make_int(x / y, t);
            case BinaryOp::Mod: return ir::make_int(x % y, t);
            case BinaryOp::FloorDiv: return ir::make_int(floor_div(x, y), t);
            default: return ir::make_int(floor_mod(x, y), t);
          }
        }
        if (!cy || y < 0) return ir::make_binary(op, a, b);
        const bool is_div = op == BinaryOp::Div || op == BinaryOp::FloorDiv;
        if (y == 1) return is_div ? a : ir::make_int(0, t);
        if (op == BinaryOp::Div || op == BinaryOp::Mod) {
          auto ra = const_range(a, ranges_);
          if (!ra || ra->lo < 0) return ir::make_binary(op, a, b);  // C semantics below zero
        }
        return floor_div_mod(is_div, a, y);
      }
      case BinaryOp::Min:
      case BinaryOp::Max: {
        if (structurally_equal(a, b)) return a;
        const bool is_min = op == BinaryOp::Min;
        if (cx && cy) return ir::make_int(is_min ? std::min(x, y) : std::max(x, y), t);
        AffineForm d = AffineForm::of(a);
        d.add(AffineForm::of(b), -1);
        if (auto r = const_range(d, ranges_)) {
          if (r->hi <= 0) return is_min ? a : b;
          if (r->lo >= 0) return is_min ? b : a;
        }
        return ir::make_binary(op, a, b);
      }
      default: break;
    }
    if (ir::is_comparison(op)) return compare_ints(op, a, b);
    return ir::make_binary(op, a, b);
  }

  // floordiv / floormod of a linear form by k > 0: the terms that are multiples of k leave the
  // division, and the remainder's range often settles the rest.
  Expr floor_div_mod(bool is_div, const Expr& a, int64_t k) {
    const ir::DataType t = a.type();
    AffineForm f = AffineForm::of(a);
    AffineForm quotient, rest;
    for (const auto& term : f.terms()) {
      AffineForm one = AffineForm::of(term.atom);
      if (term.coeff % k == 0) {
        quotient.add(one, term.coeff / k);
      } else {
        rest.add(one, term.coeff);
      }
    }
    quotient.set_constant(floor_div(f.constant_part(), k));
    rest.set_constant(floor_mod(f.constant_part(), k));
    auto r = const_range(rest, ranges_);
    if (r && floor_div(r->lo, k) == floor_div(r->hi, k)) {
      const int64_t q = floor_div(r->lo, k);
      if (is_div) {
        quotient.add(AffineForm::constant(q));
        return quotient.to_expr(t);
      }
      rest.add(AffineForm::constant(-q * k));
      return rest.to_expr(t);
    }
    Expr rest_e = rest.to_expr(t);
    if (!is_div) return ir::floormod(rest_e, ir::make_int(k, t));
    quotient.add(AffineForm::of(ir::floordiv(rest_e, ir::make_int(k, t))));
    return quotient.to_expr(t);
  }

  Expr compare_ints(BinaryOp op, const Expr& a, const Expr& b) {
    AffineForm d = AffineForm::of(a);
    d.add(AffineForm::of(b), -1);
    if (auto r = const_range(d, ranges_)) {
      if (auto v = decide(op, *r)) return make_bool(*v);
    }
    // Canonical: terms on the left, the constant on the right (o*16 + i < 1000).
    const int64_t c = -d.constant_part();
    d.set_constant(0);
    return ir::make_binary(op, d.to_expr(a.type()), ir::make_int(c, a.type()));
  }

  Expr vector_binary(BinaryOp op, const Expr& a, const Expr& b) {
    const auto *ba = a.as<ir::BroadcastNode>(), *bb = b.as<ir::BroadcastNode>();
    if (ba && bb) return ir::make_broadcast(mutate(ir::make_binary(op, ba->value, bb->value)), ba->lanes);
    const auto *ra = a.as<ir::RampNode>(), *rb = b.as<ir::RampNode>();
    if (op == BinaryOp::Add || op == BinaryOp::Sub) {
      const bool add = op == BinaryOp::Add;
      if (ra && rb) {
        return ir::make_ramp(mutate(ir::make_binary(op, ra->base, rb->base)),
                             mutate(ir::make_binary(op, ra->stride, rb->stride)), ra->lanes);
      }
      if (ra && bb) return ir::make_ramp(mutate(ir::make_binary(op, ra->base, bb->value)), ra->stride, ra->lanes);
      if (ba && rb) {
        Expr stride = add ? rb->stride : mutate(ir::make_int(0, rb->stride.type()) - rb->stride);
        return ir::make_ramp(mutate(ir::make_binary(op, ba->value, rb->base)), stride, rb->lanes);
      }
    }
    if (op == BinaryOp::Mul) {
      if (ra && bb) return ir::make_ramp(mutate(ra->base * bb->value), mutate(ra->stride * bb->value), ra->lanes);
      if (ba && rb) return ir::make_ramp(mutate(ba->value * rb->base), mutate(ba->value * rb->stride), rb->lanes);
    }
    // floordiv / floormod of a ramp that stays within one multiple of k: the quotient is the same
    // for every lane (the packed-panel index of a lane inside a panel).
    if (ra && bb && (op == BinaryOp::FloorDiv || op == BinaryOp::FloorMod)) {
      int64_t k = 0;
      if (ir::is_const_int(bb->value, &k) && k > 0) {
        const ir::DataType t = ra->base.type();
        Expr k_e = ir::make_int(k, t);
        Expr last = mutate(ra->base + ra->stride * ir::make_int(ra->lanes - 1, t));
        Expr q0 = mutate(ir::floordiv(ra->base, k_e)), q1 = mutate(ir::floordiv(last, k_e));
        if (structurally_equal(q0, q1)) {
          if (op == BinaryOp::FloorDiv) return ir::make_broadcast(q0, ra->lanes);
          return ir::make_ramp(mutate(ra->base - q0 * k_e), ra->stride, ra->lanes);
        }
      }
    }
    if (a.type().is_float() && op == BinaryOp::Mul) {
      if (bb && bb->value.as<ir::FloatImmNode>() && bb->value.as<ir::FloatImmNode>()->value == 1.0) return a;
    }
    return ir::make_binary(op, a, b);
  }

  analysis::IntervalEnv ranges_;
};

}  // namespace

ir::Expr simplify(const ir::Expr& e) { return Simplifier().mutate(e); }
ir::Stmt simplify(const ir::Stmt& s) { return Simplifier().mutate(s); }

}  // namespace tf::passes

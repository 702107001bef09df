// The interpreter declared in ir_interpreter.h, and tests of it. Named *_test.cc so the test
// target (which globs *_test.cc) builds it without a CMake change.
#include "ir_interpreter.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "compiler/ir/printer.h"

namespace tf::testing_support {

using namespace ir;  // NOLINT: this file is all IR

namespace {

[[noreturn]] void fail(const std::string& what, const Expr& e) { throw std::runtime_error(what + ": " + to_string(e)); }

double round_to(DataType t, double v) {
  if (t.is_float()) return static_cast<double>(static_cast<float>(v));
  if (t.is_bool()) return v != 0 ? 1 : 0;
  return v;
}

int64_t as_int(double v) { return static_cast<int64_t>(v); }

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace

void IrInterpreter::bind(const Buffer& b, std::vector<double>* data) {
  if (static_cast<int64_t>(data->size()) != b->num_elements()) {
    throw std::runtime_error("buffer " + b->name + ": wrong size");
  }
  buffers_[b.get()] = data;
}

void IrInterpreter::run(const Stmt& s) { exec(s); }

void IrInterpreter::run(const LoweredFunc& f, const std::vector<std::vector<double>*>& args) {
  if (args.size() != f.args.size()) throw std::runtime_error("wrong argument count");
  for (size_t i = 0; i < args.size(); ++i) bind(f.args[i], args[i]);
  exec(f.body);
}

std::vector<double>& IrInterpreter::storage(const BufferNode* b) {
  auto it = buffers_.find(b);
  if (it == buffers_.end() || !it->second) throw std::runtime_error("buffer " + b->name + " is not bound");
  return *it->second;
}

IrInterpreter::Value IrInterpreter::eval(const Expr& e) {
  Value r;
  r.type = e.type();
  const int n = r.type.lanes;
  if (n > kMaxLanes) fail("too many lanes", e);
  switch (e->kind) {
    case ExprKind::IntImm: r.v[0] = static_cast<double>(e.as<IntImmNode>()->value); return r;
    case ExprKind::FloatImm: r.v[0] = round_to(r.type, e.as<FloatImmNode>()->value); return r;
    case ExprKind::Var: {
      auto it = vars_.find(e.as<VarNode>());
      if (it == vars_.end()) fail("unbound variable", e);
      return it->second;
    }
    case ExprKind::Binary: {
      auto* b = e.as<BinaryNode>();
      Value x = eval(b->a), y = eval(b->b);
      if (x.type != y.type) fail("binary operands of different types " + x.type.str() + ", " + y.type.str(), e);
      if (x.type.lanes != n) fail("binary result lanes differ from operands", e);
      const bool fl = x.type.is_float();
      for (int i = 0; i < n; ++i) {
        double a = x.v[i], c = y.v[i], o = 0;
        int64_t ia = as_int(a), ic = as_int(c);
        switch (b->op) {
          case BinaryOp::Add: o = fl ? a + c : static_cast<double>(ia + ic); break;
          case BinaryOp::Sub: o = fl ? a - c : static_cast<double>(ia - ic); break;
          case BinaryOp::Mul: o = fl ? a * c : static_cast<double>(ia * ic); break;
          case BinaryOp::Div:
            if (!fl && ic == 0) fail("division by zero", e);
            o = fl ? a / c : static_cast<double>(ia / ic);
            break;
          case BinaryOp::Mod:
            if (ic == 0) fail("division by zero", e);
            o = static_cast<double>(ia % ic);
            break;
          case BinaryOp::FloorDiv:
            if (ic == 0) fail("division by zero", e);
            o = static_cast<double>(floor_div(ia, ic));
            break;
          case BinaryOp::FloorMod:
            if (ic == 0) fail("division by zero", e);
            o = static_cast<double>(ia - floor_div(ia, ic) * ic);
            break;
          case BinaryOp::Min: o = std::fmin(a, c); break;
          case BinaryOp::Max: o = std::fmax(a, c); break;
          case BinaryOp::EQ: o = a == c; break;
          case BinaryOp::NE: o = a != c; break;
          case BinaryOp::LT: o = a < c; break;
          case BinaryOp::LE: o = a <= c; break;
          case BinaryOp::GT: o = a > c; break;
          case BinaryOp::GE: o = a >= c; break;
          case BinaryOp::And: o = (a != 0) && (c != 0); break;
          case BinaryOp::Or: o = (a != 0) || (c != 0); break;
        }
        r.v[i] = round_to(r.type, o);
      }
      return r;
    }
    case ExprKind::Not: {
      Value x = eval(e.as<NotNode>()->a);
      for (int i = 0; i < n; ++i) r.v[i] = x.v[i] == 0 ? 1 : 0;
      return r;
    }
    case ExprKind::Select: {
      auto* s = e.as<SelectNode>();
      Value c = eval(s->cond), t = eval(s->true_value), f = eval(s->false_value);
      if (t.type != f.type || t.type != r.type) fail("select branches of different types", e);
      if (c.type.lanes != n) fail("select condition lanes differ from value lanes", e);
      for (int i = 0; i < n; ++i) r.v[i] = c.v[i] != 0 ? t.v[i] : f.v[i];
      return r;
    }
    case ExprKind::Cast: {
      Value x = eval(e.as<CastNode>()->value);
      if (x.type.lanes != n) fail("cast changes lanes", e);
      for (int i = 0; i < n; ++i) r.v[i] = round_to(r.type, r.type.is_float() ? x.v[i] : std::trunc(x.v[i]));
      return r;
    }
    case ExprKind::Call: {
      auto* c = e.as<CallNode>();
      std::vector<Value> args;
      for (const auto& a : c->args) {
        args.push_back(eval(a));
        if (args.back().type != r.type) fail("call argument type differs from result", e);
      }
      for (int i = 0; i < n; ++i) {
        double a = args[0].v[i], o = 0;
        switch (c->func) {
          case Intrinsic::Exp: o = std::exp(a); break;
          case Intrinsic::Log: o = std::log(a); break;
          case Intrinsic::Sqrt: o = std::sqrt(a); break;
          case Intrinsic::Fma: o = std::fma(a, args[1].v[i], args[2].v[i]); break;
          case Intrinsic::Abs: o = std::fabs(a); break;
          case Intrinsic::Floor: o = std::floor(a); break;
          case Intrinsic::Ceil: o = std::ceil(a); break;
          case Intrinsic::Tanh: o = std::tanh(a); break;
          case Intrinsic::Erf: o = std::erf(a); break;
          case Intrinsic::Sigmoid: o = 1.0 / (1.0 + std::exp(-a)); break;
          case Intrinsic::Rsqrt: o = 1.0 / std::sqrt(a); break;
          case Intrinsic::Round: o = std::nearbyint(a); break;
          case Intrinsic::Sin: o = std::sin(a); break;
          case Intrinsic::Cos: o = std::cos(a); break;
          case Intrinsic::Tan: o = std::tan(a); break;
          case Intrinsic::Asin: o = std::asin(a); break;
          case Intrinsic::Acos: o = std::acos(a); break;
          case Intrinsic::Atan: o = std::atan(a); break;
          case Intrinsic::Gelu: o = 0.5 * a * (1 + std::erf(a * std::sqrt(0.5))); break;
        }
        r.v[i] = round_to(r.type, o);
      }
      return r;
    }
    case ExprKind::Load: {
      auto* l = e.as<LoadNode>();
      Value idx = eval(l->index);
      if (idx.type.lanes != n) fail("load index lanes differ from value lanes", e);
      auto& buf = storage(l->buffer.get());
      for (int i = 0; i < n; ++i) {
        int64_t k = as_int(idx.v[i]);
        if (k < 0 || k >= static_cast<int64_t>(buf.size())) fail("load out of bounds at " + std::to_string(k), e);
        r.v[i] = buf[static_cast<size_t>(k)];
      }
      return r;
    }
    case ExprKind::Ramp: {
      auto* rp = e.as<RampNode>();
      Value b = eval(rp->base), s = eval(rp->stride);
      if (!b.type.is_scalar() || !s.type.is_scalar() || !b.type.is_int())
        fail("ramp needs scalar int base and stride", e);
      for (int i = 0; i < n; ++i) r.v[i] = b.v[0] + i * s.v[0];
      return r;
    }
    case ExprKind::Broadcast: {
      Value x = eval(e.as<BroadcastNode>()->value);
      if (!x.type.is_scalar()) fail("broadcast of a vector", e);
      for (int i = 0; i < n; ++i) r.v[i] = x.v[0];
      return r;
    }
    case ExprKind::TensorLoad:
    case ExprKind::Reduce: fail("not lowered", e);
  }
  fail("unknown expression", e);
}

void IrInterpreter::exec(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::For: {
      auto* f = s.as<ForNode>();
      Value mn = eval(f->min), ext = eval(f->extent);
      if (!mn.type.is_scalar() || !ext.type.is_scalar()) throw std::runtime_error("vector loop bounds");
      auto saved = vars_.find(f->var.get()) != vars_.end() ? std::optional<Value>(vars_[f->var.get()]) : std::nullopt;
      Value v;
      v.type = f->var->type;
      for (int64_t i = as_int(mn.v[0]), end = i + as_int(ext.v[0]); i < end; ++i) {
        v.v[0] = static_cast<double>(i);
        vars_[f->var.get()] = v;
        exec(f->body);
      }
      if (saved)
        vars_[f->var.get()] = *saved;
      else
        vars_.erase(f->var.get());
      return;
    }
    case StmtKind::Store: {
      auto* st = s.as<StoreNode>();
      Value idx = eval(st->index), val = eval(st->value);
      if (idx.type.lanes != val.type.lanes)
        throw std::runtime_error("store index and value lanes differ: " + to_string(s));
      if (val.type.element_of() != st->buffer->dtype) throw std::runtime_error("store of wrong type: " + to_string(s));
      auto& buf = storage(st->buffer.get());
      for (int i = 0; i < idx.type.lanes; ++i) {
        int64_t k = as_int(idx.v[i]);
        if (k < 0 || k >= static_cast<int64_t>(buf.size())) {
          throw std::runtime_error("store out of bounds at " + std::to_string(k) + ": " + to_string(s));
        }
        buf[static_cast<size_t>(k)] = val.v[i];
      }
      ++stores_;
      return;
    }
    case StmtKind::Allocate: {
      auto* a = s.as<AllocateNode>();
      std::vector<double> mem(static_cast<size_t>(a->buffer->num_elements()), std::numeric_limits<double>::quiet_NaN());
      auto it = buffers_.find(a->buffer.get());
      std::vector<double>* saved = it == buffers_.end() ? nullptr : it->second;
      buffers_[a->buffer.get()] = &mem;
      exec(a->body);
      buffers_[a->buffer.get()] = saved;
      return;
    }
    case StmtKind::Seq:
      for (const auto& c : s.as<SeqNode>()->stmts) exec(c);
      return;
    case StmtKind::IfThenElse: {
      auto* i = s.as<IfThenElseNode>();
      Value c = eval(i->cond);
      if (!c.type.is_scalar()) throw std::runtime_error("vector if condition");
      exec(c.v[0] != 0 ? i->then_case : i->else_case);
      return;
    }
    case StmtKind::LetStmt: {
      auto* l = s.as<LetStmtNode>();
      Value v = eval(l->value);
      auto saved = vars_.find(l->var.get()) != vars_.end() ? std::optional<Value>(vars_[l->var.get()]) : std::nullopt;
      vars_[l->var.get()] = v;
      exec(l->body);
      if (saved)
        vars_[l->var.get()] = *saved;
      else
        vars_.erase(l->var.get());
      return;
    }
    case StmtKind::Prefetch:  // a hint: only its index is evaluated
      eval(s.as<PrefetchNode>()->index);
      return;
  }
}

}  // namespace tf::testing_support

// ---------------------------------------------------------------- tests of the interpreter

#include <gtest/gtest.h>

namespace tf::testing_support {
namespace {

TEST(PassesInterpreter, FloorSemanticsAndVectors) {
  Buffer out = make_buffer("out", DataType::int64(), {8}, MemoryScope::Arg);
  std::vector<double> data(8, 0);
  IrInterpreter in;
  in.bind(out, &data);
  in.run(make_seq({make_store(out, 0, floordiv(Expr(-7), Expr(2))), make_store(out, 1, floormod(Expr(-7), Expr(2))),
                   make_store(out, 2, Expr(-7) / Expr(2)), make_store(out, 3, Expr(-7) % Expr(2))}));
  EXPECT_EQ(data[0], -4);
  EXPECT_EQ(data[1], 1);
  EXPECT_EQ(data[2], -3);
  EXPECT_EQ(data[3], -1);
  in.run(make_store(out, make_ramp(4, 1, 4), make_ramp(10, 2, 4)));
  EXPECT_EQ(data[4], 10);
  EXPECT_EQ(data[7], 16);
}

TEST(PassesInterpreter, RejectsOutOfBoundsAndContractViolations) {
  Buffer out = make_buffer("out", DataType::float32(), {8}, MemoryScope::Arg);
  std::vector<double> data(8, 0);
  IrInterpreter in;
  in.bind(out, &data);
  EXPECT_THROW(in.run(make_store(out, make_ramp(4, 1, 8), make_broadcast(Expr(1.0f), 8))), std::runtime_error);
  // Codegen needs same-type operands; a hand-made node that mixes lanes must be caught.
  Expr mixed(std::make_shared<const BinaryNode>(DataType::float32(4), BinaryOp::Add, make_broadcast(Expr(1.0f), 4),
                                                Expr(1.0f)));
  EXPECT_THROW(in.run(make_store(out, make_ramp(0, 1, 4), mixed)), std::runtime_error);
}

}  // namespace
}  // namespace tf::testing_support

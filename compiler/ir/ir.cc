#include "compiler/ir/ir.h"

#include <sstream>

namespace tf::ir {

std::string DataType::str() const {
  std::string s;
  if (is_bool()) {
    s = "bool";
  } else {
    s = code == Int ? "int" : code == UInt ? "uint" : "float";
    s += std::to_string(bits);
  }
  if (lanes > 1) s += "x" + std::to_string(lanes);
  return s;
}

bool DataType::parse(const std::string& s, DataType* out) {
  static const struct {
    const char* name;
    DataType t;
  } kTypes[] = {
      {"float32", float32()}, {"float16", float16()}, {"int64", int64()},  {"int32", int32()},
      {"int8", int8()},       {"uint8", uint8()},     {"bool", boolean()},
  };
  for (const auto& e : kTypes) {
    if (s == e.name) {
      *out = e.t;
      return true;
    }
  }
  return false;
}

int64_t BufferNode::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

const char* binary_op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::Mod: return "%";
    case BinaryOp::FloorDiv: return "floordiv";
    case BinaryOp::FloorMod: return "floormod";
    case BinaryOp::Min: return "min";
    case BinaryOp::Max: return "max";
    case BinaryOp::EQ: return "==";
    case BinaryOp::NE: return "!=";
    case BinaryOp::LT: return "<";
    case BinaryOp::LE: return "<=";
    case BinaryOp::GT: return ">";
    case BinaryOp::GE: return ">=";
    case BinaryOp::And: return "&&";
    case BinaryOp::Or: return "||";
  }
  return "?";
}

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::EQ || op == BinaryOp::NE || op == BinaryOp::LT || op == BinaryOp::LE || op == BinaryOp::GT ||
         op == BinaryOp::GE;
}

const char* intrinsic_name(Intrinsic f) {
  switch (f) {
    case Intrinsic::Exp: return "exp";
    case Intrinsic::Log: return "log";
    case Intrinsic::Sqrt: return "sqrt";
    case Intrinsic::Fma: return "fma";
    case Intrinsic::Abs: return "abs";
    case Intrinsic::Floor: return "floor";
    case Intrinsic::Ceil: return "ceil";
    case Intrinsic::Tanh: return "tanh";
    case Intrinsic::Erf: return "erf";
    case Intrinsic::Sigmoid: return "sigmoid";
    case Intrinsic::Rsqrt: return "rsqrt";
    case Intrinsic::Round: return "round";
    case Intrinsic::Sin: return "sin";
    case Intrinsic::Cos: return "cos";
    case Intrinsic::Tan: return "tan";
    case Intrinsic::Asin: return "asin";
    case Intrinsic::Acos: return "acos";
    case Intrinsic::Atan: return "atan";
    case Intrinsic::Gelu: return "gelu";
    case Intrinsic::DotU8S8: return "dot_u8s8";
    case Intrinsic::DotU8S8Centered: return "dot_u8s8_centered";
    case Intrinsic::Fence: return "fence";
  }
  return "?";
}

const char* reduce_kind_name(ReduceKind k) {
  switch (k) {
    case ReduceKind::Sum: return "sum";
    case ReduceKind::Max: return "max";
    case ReduceKind::Min: return "min";
    case ReduceKind::Prod: return "prod";
  }
  return "?";
}

const char* for_kind_name(ForKind k) {
  switch (k) {
    case ForKind::Serial: return "for";
    case ForKind::Parallel: return "parallel";
    case ForKind::Vectorized: return "vectorized";
    case ForKind::Unrolled: return "unrolled";
  }
  return "?";
}

// ---------------------------------------------------------------- literals

Expr::Expr(int v) : Expr(make_int(v)) {}
Expr::Expr(int64_t v) : Expr(make_int(v)) {}
Expr::Expr(float v) : Expr(make_float(v)) {}
Expr::Expr(double v) : Expr(make_float(v)) {}

Var make_var(const std::string& name, DataType t) { return std::make_shared<const VarNode>(t, name); }

Buffer make_buffer(const std::string& name, DataType t, std::vector<int64_t> shape, MemoryScope scope) {
  if (t.is_vector()) throw CompileError("buffer '" + name + "': element type must be scalar, got " + t.str());
  for (int64_t d : shape) {
    if (d <= 0) throw CompileError("buffer '" + name + "': extent " + std::to_string(d) + " is not positive");
  }
  return std::make_shared<const BufferNode>(name, t, std::move(shape), scope);
}

IterVar make_iter_var(const std::string& name, int64_t min, int64_t extent, IterKind kind) {
  if (extent <= 0) throw CompileError("axis '" + name + "': extent " + std::to_string(extent) + " is not positive");
  return std::make_shared<const IterVarNode>(make_var(name), min, extent, kind);
}

Expr make_int(int64_t v, DataType t) {
  if (t.is_vector()) return make_broadcast(make_int(v, t.element_of()), t.lanes);
  if (t.is_float()) return make_float(static_cast<double>(v), t);
  return Expr(std::make_shared<const IntImmNode>(t, v));
}

Expr make_float(double v, DataType t) {
  if (t.is_vector()) return make_broadcast(make_float(v, t.element_of()), t.lanes);
  if (!t.is_float()) return make_int(static_cast<int64_t>(v), t);
  return Expr(std::make_shared<const FloatImmNode>(t, v));
}

Expr make_const(DataType t, double v) { return t.is_float() ? make_float(v, t) : make_int(static_cast<int64_t>(v), t); }

namespace {

// These checks run for every IR node built, so a message is only composed once a check fails.
void require(bool ok, const char* what) {
  if (!ok) throw CompileError(what);
}
template <typename MakeMessage>
void require(bool ok, const MakeMessage& what) {
  if (!ok) throw CompileError(what());
}

// Brings two operands to one type: an immediate adopts the other side's element type, an int meets
// a float as a float, a scalar is broadcast to the other side's lanes.
void match_types(Expr& a, Expr& b, const char* op) {
  require(a && b, [&] { return std::string("operator ") + op + ": null operand"; });
  DataType ta = a.type(), tb = b.type();
  if (ta.element_of() != tb.element_of()) {
    bool a_imm = a.as<IntImmNode>() || a.as<FloatImmNode>();
    bool b_imm = b.as<IntImmNode>() || b.as<FloatImmNode>();
    // a adopts b's type when it is the immediate (and b not), or an int meeting b's float.
    const bool a_adopts = (a_imm && !b_imm) || (a_imm == b_imm && tb.is_float() && !ta.is_float());
    const bool b_adopts = (b_imm && !a_imm) || (a_imm == b_imm && ta.is_float() && !tb.is_float());
    if (a_adopts) {
      a = make_cast(tb.element_of().with_lanes(ta.lanes), a);
    } else if (b_adopts) {
      b = make_cast(ta.element_of().with_lanes(tb.lanes), b);
    } else if (ta.bits != tb.bits && ta.code == tb.code) {
      if (ta.bits < tb.bits)
        a = make_cast(tb.element_of().with_lanes(ta.lanes), a);
      else
        b = make_cast(ta.element_of().with_lanes(tb.lanes), b);
    } else {
      throw CompileError(std::string("operator ") + op + ": cannot combine " + ta.str() + " and " + tb.str());
    }
  }
  ta = a.type();
  tb = b.type();
  if (ta.lanes != tb.lanes) {
    if (ta.lanes == 1)
      a = make_broadcast(a, tb.lanes);
    else if (tb.lanes == 1)
      b = make_broadcast(b, ta.lanes);
    else
      throw CompileError(std::string("operator ") + op + ": lanes differ, " + ta.str() + " vs " + tb.str());
  }
}

}  // namespace

Expr make_binary(BinaryOp op, Expr a, Expr b) {
  match_types(a, b, binary_op_name(op));
  DataType t = a.type();
  if (op == BinaryOp::And || op == BinaryOp::Or) {
    require(t.is_bool(),
            [&] { return std::string("operator ") + binary_op_name(op) + " needs bool operands, got " + t.str(); });
  }
  if (op == BinaryOp::FloorDiv || op == BinaryOp::FloorMod || op == BinaryOp::Mod) {
    require(!t.is_float(), [&] { return std::string(binary_op_name(op)) + " needs integer operands, got " + t.str(); });
  }
  if (is_comparison(op)) t = DataType::boolean(t.lanes);
  return Expr(std::make_shared<const BinaryNode>(t, op, std::move(a), std::move(b)));
}

Expr make_not(Expr a) {
  require(a && a.type().is_bool(), "operator !: operand must be bool");
  DataType t = a.type();
  return Expr(std::make_shared<const NotNode>(t, std::move(a)));
}

Expr make_select(Expr c, Expr t, Expr f) {
  require(c && c.type().element_of().is_bool(), "select: condition must be bool");
  match_types(t, f, "select");
  DataType ty = t.type();
  if (c.type().lanes != ty.lanes) {
    if (c.type().lanes == 1) {
      // A scalar condition selects whole vectors; keep it scalar.
    } else if (ty.lanes == 1) {
      t = make_broadcast(t, c.type().lanes);
      f = make_broadcast(f, c.type().lanes);
      ty = t.type();
    } else {
      throw CompileError("select: condition lanes differ from value lanes");
    }
  }
  return Expr(std::make_shared<const SelectNode>(ty, std::move(c), std::move(t), std::move(f)));
}

Expr make_cast(DataType t, Expr v) {
  require(static_cast<bool>(v), "cast: null operand");
  if (v.type() == t) return v;
  if (v.type().lanes == 1 && t.lanes > 1) return make_broadcast(make_cast(t.element_of(), v), t.lanes);
  require(v.type().lanes == t.lanes, [&] { return "cast: lanes differ, " + v.type().str() + " to " + t.str(); });
  if (auto* i = v.as<IntImmNode>()) return make_const(t, static_cast<double>(i->value));
  if (auto* f = v.as<FloatImmNode>()) {
    if (t.is_float()) return make_float(f->value, t);
  }
  return Expr(std::make_shared<const CastNode>(t, std::move(v)));
}

namespace {

Expr make_dot_u8s8(Intrinsic f, std::vector<Expr> args) {
  const std::string name = intrinsic_name(f);
  require(args.size() == 3, [&] { return name + ": expects 3 arguments"; });
  const DataType acc = args[0].type(), a = args[1].type(), b = args[2].type();
  require(acc.is_int() && acc.bits == 32,
          [&] { return name + ": the accumulator must be int32 lanes, got " + acc.str(); });
  require(b.is_int() && b.bits == 8 && b.lanes == 4 * acc.lanes,
          [&] { return name + ": b must be 4 int8 per accumulator lane, got " + b.str() + " for " + acc.str(); });
  require(a.is_uint() && a.bits == 8 && (a.lanes == 4 || a.lanes == 4 * acc.lanes),
          [&] { return name + ": a must be 4 uint8 per accumulator lane (or 4 shared by all), got " + a.str(); });
  return Expr(std::make_shared<const CallNode>(acc, f, std::move(args)));
}

}  // namespace

Expr make_call(Intrinsic f, std::vector<Expr> args) {
  if (f == Intrinsic::DotU8S8 || f == Intrinsic::DotU8S8Centered) return make_dot_u8s8(f, std::move(args));
  size_t arity = f == Intrinsic::Fma ? 3 : 1;
  require(args.size() == arity,
          [&] { return std::string(intrinsic_name(f)) + ": expects " + std::to_string(arity) + " arguments"; });
  if (f == Intrinsic::Fma) {
    match_types(args[0], args[1], "fma");
    match_types(args[0], args[2], "fma");
    match_types(args[1], args[2], "fma");
  }
  DataType t = args[0].type();
  require(t.is_float() || f == Intrinsic::Abs,
          [&] { return std::string(intrinsic_name(f)) + ": needs a float operand, got " + t.str(); });
  return Expr(std::make_shared<const CallNode>(t, f, std::move(args)));
}

Expr make_load(Buffer buf, Expr index) {
  require(buf && index, "load: null buffer or index");
  require(index.type().is_int(),
          [&] { return "load from '" + buf->name + "': index must be an integer, got " + index.type().str(); });
  DataType t = buf->dtype.with_lanes(index.type().lanes);
  return Expr(std::make_shared<const LoadNode>(t, std::move(buf), std::move(index)));
}

Expr make_tensor_load(std::shared_ptr<const Producer> p, std::vector<Expr> indices) {
  require(p != nullptr, "tensor load: null tensor");
  require(indices.size() == p->shape().size(), [&] {
    return "tensor '" + p->name() + "' has " + std::to_string(p->shape().size()) + " dimensions, indexed with " +
           std::to_string(indices.size());
  });
  for (auto& i : indices) {
    require(static_cast<bool>(i), [&] { return "tensor '" + p->name() + "': null index"; });
    if (!i.type().is_int())
      throw CompileError("tensor '" + p->name() + "': index must be an integer, got " + i.type().str());
    if (i.type() != DataType::int64()) i = make_cast(DataType::int64(), i);
  }
  DataType t = p->dtype();
  return Expr(std::make_shared<const TensorLoadNode>(t, std::move(p), std::move(indices)));
}

Expr make_ramp(Expr base, Expr stride, int lanes) {
  require(base && stride && base.type().is_scalar() && stride.type().is_scalar(),
          "ramp: base and stride must be scalars");
  require(lanes > 1, "ramp: lanes must be > 1");
  match_types(base, stride, "ramp");
  DataType t = base.type().with_lanes(lanes);
  return Expr(std::make_shared<const RampNode>(t, std::move(base), std::move(stride), lanes));
}

Expr make_broadcast(Expr v, int lanes) {
  require(v && v.type().is_scalar(), "broadcast: value must be a scalar");
  if (lanes == 1) return v;
  DataType t = v.type().with_lanes(lanes);
  return Expr(std::make_shared<const BroadcastNode>(t, std::move(v), lanes));
}

Expr make_reduce(ReduceKind c, Expr source, std::vector<IterVar> axes) {
  require(static_cast<bool>(source), "reduce: null source");
  for (const auto& a : axes) {
    require(a && a->kind == IterKind::Reduce, [&] {
      return "reduce: axis '" + (a ? a->var->name : std::string("?")) +
             "' is not a reduction axis (make it with reduce_axis)";
    });
  }
  DataType t = source.type();
  return Expr(std::make_shared<const ReduceNode>(t, c, std::move(source), std::move(axes)));
}

Stmt make_for(Var v, Expr min, Expr extent, ForKind k, Stmt body) {
  require(v && static_cast<bool>(min) && static_cast<bool>(extent) && static_cast<bool>(body), "for: null part");
  return Stmt(std::make_shared<const ForNode>(std::move(v), std::move(min), std::move(extent), k, std::move(body)));
}

Stmt make_store(Buffer buf, Expr index, Expr value) {
  require(buf && index && value, "store: null part");
  require(index.type().is_int(), [&] { return "store to '" + buf->name + "': index must be an integer"; });
  require(value.type().element_of() == buf->dtype, [&] {
    return "store to '" + buf->name + "': value is " + value.type().str() + ", buffer holds " + buf->dtype.str();
  });
  if (value.type().lanes != index.type().lanes) {
    require(value.type().lanes == 1, [&] { return "store to '" + buf->name + "': value and index lanes differ"; });
    value = make_broadcast(value, index.type().lanes);
  }
  return Stmt(std::make_shared<const StoreNode>(std::move(buf), std::move(index), std::move(value)));
}

Stmt make_allocate(Buffer buf, Stmt body) {
  require(buf && body, "allocate: null part");
  return Stmt(std::make_shared<const AllocateNode>(std::move(buf), std::move(body)));
}

Stmt make_seq(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (auto& s : stmts) {
    if (!s) continue;
    if (auto* seq = s.as<SeqNode>()) {
      flat.insert(flat.end(), seq->stmts.begin(), seq->stmts.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.empty()) return Stmt();
  if (flat.size() == 1) return flat[0];
  return Stmt(std::make_shared<const SeqNode>(std::move(flat)));
}

Stmt make_if(Expr cond, Stmt then_case, Stmt else_case) {
  require(cond && then_case, "if: null part");
  require(cond.type().is_bool() && cond.type().is_scalar(), "if: condition must be a scalar bool");
  return Stmt(std::make_shared<const IfThenElseNode>(std::move(cond), std::move(then_case), std::move(else_case)));
}

Stmt make_let(Var v, Expr value, Stmt body) {
  require(v && value && body, "let: null part");
  return Stmt(std::make_shared<const LetStmtNode>(std::move(v), std::move(value), std::move(body)));
}

Stmt make_prefetch(Buffer buf, Expr index) {
  require(buf && index, "prefetch: null part");
  require(index.type().is_int() && index.type().is_scalar(),
          [&] { return "prefetch of '" + buf->name + "': index must be a scalar integer"; });
  return Stmt(std::make_shared<const PrefetchNode>(std::move(buf), std::move(index)));
}

Expr operator+(Expr a, Expr b) { return make_binary(BinaryOp::Add, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return make_binary(BinaryOp::Sub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return make_binary(BinaryOp::Mul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return make_binary(BinaryOp::Div, std::move(a), std::move(b)); }
Expr operator%(Expr a, Expr b) { return make_binary(BinaryOp::Mod, std::move(a), std::move(b)); }
Expr operator<(Expr a, Expr b) { return make_binary(BinaryOp::LT, std::move(a), std::move(b)); }
Expr operator<=(Expr a, Expr b) { return make_binary(BinaryOp::LE, std::move(a), std::move(b)); }
Expr operator>(Expr a, Expr b) { return make_binary(BinaryOp::GT, std::move(a), std::move(b)); }
Expr operator>=(Expr a, Expr b) { return make_binary(BinaryOp::GE, std::move(a), std::move(b)); }
Expr operator==(Expr a, Expr b) { return make_binary(BinaryOp::EQ, std::move(a), std::move(b)); }
Expr operator!=(Expr a, Expr b) { return make_binary(BinaryOp::NE, std::move(a), std::move(b)); }
Expr logical_and(Expr a, Expr b) { return make_binary(BinaryOp::And, std::move(a), std::move(b)); }
Expr logical_or(Expr a, Expr b) { return make_binary(BinaryOp::Or, std::move(a), std::move(b)); }
Expr floordiv(Expr a, Expr b) { return make_binary(BinaryOp::FloorDiv, std::move(a), std::move(b)); }
Expr floormod(Expr a, Expr b) { return make_binary(BinaryOp::FloorMod, std::move(a), std::move(b)); }
Expr min(Expr a, Expr b) { return make_binary(BinaryOp::Min, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return make_binary(BinaryOp::Max, std::move(a), std::move(b)); }

Expr combine(ReduceKind k, Expr acc, Expr v) {
  switch (k) {
    case ReduceKind::Sum: return std::move(acc) + std::move(v);
    case ReduceKind::Max: return max(std::move(acc), std::move(v));
    case ReduceKind::Min: return min(std::move(acc), std::move(v));
    case ReduceKind::Prod: return std::move(acc) * std::move(v);
  }
  return Expr();
}

bool is_const_int(const Expr& e, int64_t* value) {
  if (auto* i = e.as<IntImmNode>()) {
    if (value) *value = i->value;
    return true;
  }
  if (auto* b = e.as<BroadcastNode>()) return is_const_int(b->value, value);
  return false;
}

bool is_zero(const Expr& e) {
  int64_t v;
  if (is_const_int(e, &v)) return v == 0;
  if (auto* f = e.as<FloatImmNode>()) return f->value == 0.0;
  return false;
}

bool is_one(const Expr& e) {
  int64_t v;
  if (is_const_int(e, &v)) return v == 1;
  if (auto* f = e.as<FloatImmNode>()) return f->value == 1.0;
  return false;
}

}  // namespace tf::ir

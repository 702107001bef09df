// The loop-nest IR: immutable expression and statement nodes.
//
// Nodes are held by shared pointers to const, so a pass that does not change a subtree returns the
// same pointer and sharing is free. Variables and buffers are compared by identity (pointer), never
// by name: two loops may both be called "i".
//
// Expressions:  IntImm FloatImm Var Binary(+ - * / % floordiv floormod min max == != < <= > >= && ||)
//               Not Select Cast Call(intrinsic) Load(flat buffer) TensorLoad(multi-dim, before
//               lowering) Ramp Broadcast Reduce(in compute bodies, before lowering)
// Statements:   For(serial|parallel|vectorized|unrolled) Store Allocate Seq IfThenElse LetStmt Prefetch
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/error.h"
#include "compiler/ir/type.h"

namespace tf::ir {

enum class ExprKind : uint8_t {
  IntImm,
  FloatImm,
  Var,
  Binary,
  Not,
  Select,
  Cast,
  Call,
  Load,
  TensorLoad,
  Ramp,
  Broadcast,
  Reduce
};

enum class StmtKind : uint8_t { For, Store, Allocate, Seq, IfThenElse, LetStmt, Prefetch };

struct ExprNode {
  const ExprKind kind;
  const DataType type;
  ExprNode(ExprKind k, DataType t) : kind(k), type(t) {}
  virtual ~ExprNode() = default;
};

struct StmtNode {
  const StmtKind kind;
  explicit StmtNode(StmtKind k) : kind(k) {}
  virtual ~StmtNode() = default;
};

// A nullable handle to an immutable expression. Converts implicitly from integer and floating
// literals so index functions read naturally: A(i, k + 1) * 2.0f.
class Expr {
 public:
  Expr() = default;
  Expr(std::shared_ptr<const ExprNode> n) : node_(std::move(n)) {}  // NOLINT(implicit)
  Expr(int v);                                                      // NOLINT: int64 immediate
  Expr(int64_t v);                                                  // NOLINT: int64 immediate
  Expr(float v);                                                    // NOLINT: float32 immediate
  Expr(double v);  // NOLINT: float32 immediate (the IR is float32 first; cast for others)

  const ExprNode* get() const { return node_.get(); }
  const ExprNode* operator->() const { return node_.get(); }
  explicit operator bool() const { return node_ != nullptr; }
  const std::shared_ptr<const ExprNode>& ptr() const { return node_; }
  DataType type() const { return node_->type; }
  bool same_as(const Expr& o) const { return node_ == o.node_; }

  // Downcast when the kind matches, else nullptr.
  template <typename T>
  const T* as() const {
    return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
  }

 private:
  std::shared_ptr<const ExprNode> node_;
};

class Stmt {
 public:
  Stmt() = default;
  Stmt(std::shared_ptr<const StmtNode> n) : node_(std::move(n)) {}  // NOLINT(implicit)
  const StmtNode* get() const { return node_.get(); }
  const StmtNode* operator->() const { return node_.get(); }
  explicit operator bool() const { return node_ != nullptr; }
  bool same_as(const Stmt& o) const { return node_ == o.node_; }
  template <typename T>
  const T* as() const {
    return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
  }

 private:
  std::shared_ptr<const StmtNode> node_;
};

// ---------------------------------------------------------------- leaves

struct IntImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::IntImm;
  const int64_t value;
  IntImmNode(DataType t, int64_t v) : ExprNode(kKind, t), value(v) {}
};

struct FloatImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::FloatImm;
  const double value;
  FloatImmNode(DataType t, double v) : ExprNode(kKind, t), value(v) {}
};

struct VarNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Var;
  const std::string name;
  VarNode(DataType t, std::string n) : ExprNode(kKind, t), name(std::move(n)) {}
};
using Var = std::shared_ptr<const VarNode>;

// ---------------------------------------------------------------- buffers

// Where a buffer lives. Arg: passed in by the caller. Heap: allocated by the kernel (large
// intermediates such as a packed operand). Stack: small, per-iteration scratch that LLVM should
// promote to registers (the accumulators of cache_write).
enum class MemoryScope : uint8_t { Arg, Heap, Stack };

struct BufferNode {
  const std::string name;
  const DataType dtype;  // element type, scalar
  const std::vector<int64_t> shape;
  const MemoryScope scope;
  BufferNode(std::string n, DataType t, std::vector<int64_t> s, MemoryScope sc)
      : name(std::move(n)), dtype(t), shape(std::move(s)), scope(sc) {}
  int64_t num_elements() const;
};
using Buffer = std::shared_ptr<const BufferNode>;

// ---------------------------------------------------------------- operators

enum class BinaryOp : uint8_t {
  Add,
  Sub,
  Mul,
  Div,       // float: division; int: truncating, as C
  Mod,       // int: C remainder
  FloorDiv,  // int: rounds toward negative infinity
  FloorMod,  // int: result has the divisor's sign
  Min,
  Max,
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE,  // result is bool
  And,
  Or,  // operands and result are bool
};
const char* binary_op_name(BinaryOp op);
bool is_comparison(BinaryOp op);

struct BinaryNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Binary;
  const BinaryOp op;
  const Expr a, b;
  BinaryNode(DataType t, BinaryOp o, Expr x, Expr y) : ExprNode(kKind, t), op(o), a(std::move(x)), b(std::move(y)) {}
};

struct NotNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Not;
  const Expr a;
  NotNode(DataType t, Expr x) : ExprNode(kKind, t), a(std::move(x)) {}
};

struct SelectNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Select;
  const Expr cond, true_value, false_value;
  SelectNode(DataType t, Expr c, Expr tv, Expr fv)
      : ExprNode(kKind, t), cond(std::move(c)), true_value(std::move(tv)), false_value(std::move(fv)) {}
};

struct CastNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Cast;
  const Expr value;
  CastNode(DataType t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
};

// Float transcendentals (exp, log, tanh, erf, sigmoid, the trigonometric functions) become
// polynomials in codegen (codegen/fast_math.h): kernels call no libm. sqrt is an instruction; rsqrt
// is 1 / sqrt; floor, ceil and round (half to even) are instructions where the target has them and
// integer tricks where it does not.
enum class Intrinsic : uint8_t {
  Exp,
  Log,
  Sqrt,
  Fma,
  Abs,
  Floor,
  Ceil,
  Tanh,
  Erf,
  Sigmoid,
  Rsqrt,
  Round,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Gelu,
  // dot_u8s8(acc, a, b): int32 lanes acc[i] + sum over j < 4 of a[4i+j] * b[4i+j], a's bytes unsigned
  // and b's signed, without saturation: x86's vpdpbusd (VNNI). `a` may also be 4 bytes that every
  // lane shares (a broadcast input value of an int8 micro-kernel). passes::fuse_dot_products makes
  // it from four int8 multiply-accumulates into one accumulator.
  DotU8S8,
  // dot_u8s8_centered(acc, a, b): the same with a's bytes centred on 128, acc[i] + sum over j < 4 of
  // (a[4i+j] - 128) * b[4i+j], b within [-127, 127]. Where x86 has no VNNI it is exact in three
  // multiply-add steps per 4L products (pabsb and psignb make one pmaddubsw that cannot saturate),
  // where dot_u8s8 takes six; an int8 template folds 128 * sum(b) into its bias to use it.
  DotU8S8Centered,
  // fence(x): x as a kernel would store it; no multiply-add is contracted across it (an FMA would
  // skip the rounding the stored value has). DequantizeLinear's value inside a fused kernel.
  Fence,
};
const char* intrinsic_name(Intrinsic f);

struct CallNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Call;
  const Intrinsic func;
  const std::vector<Expr> args;
  CallNode(DataType t, Intrinsic f, std::vector<Expr> a) : ExprNode(kKind, t), func(f), args(std::move(a)) {}
};

// Flat, element-indexed load. A vector index (Ramp or any vector) gives a vector load/gather.
struct LoadNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Load;
  const Buffer buffer;
  const Expr index;
  LoadNode(DataType t, Buffer buf, Expr i) : ExprNode(kKind, t), buffer(std::move(buf)), index(std::move(i)) {}
};

// Something a TensorLoad reads: a te operation. Declared here so the IR does not depend on te/.
struct Producer {
  virtual ~Producer() = default;
  virtual const std::string& name() const = 0;
  virtual const std::vector<int64_t>& shape() const = 0;
  virtual DataType dtype() const = 0;
};

// Multi-dimensional read of a tensor in a compute body; lowering turns it into Load.
struct TensorLoadNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::TensorLoad;
  const std::shared_ptr<const Producer> producer;
  const std::vector<Expr> indices;
  TensorLoadNode(DataType t, std::shared_ptr<const Producer> p, std::vector<Expr> i)
      : ExprNode(kKind, t), producer(std::move(p)), indices(std::move(i)) {}
};

// base, base + stride, ..., base + (lanes-1)*stride.
struct RampNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Ramp;
  const Expr base, stride;
  const int lanes;
  RampNode(DataType t, Expr b, Expr s, int l)
      : ExprNode(kKind, t), base(std::move(b)), stride(std::move(s)), lanes(l) {}
};

struct BroadcastNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Broadcast;
  const Expr value;
  const int lanes;
  BroadcastNode(DataType t, Expr v, int l) : ExprNode(kKind, t), value(std::move(v)), lanes(l) {}
};

// A loop axis of a compute: data-parallel or reduction, with a constant range [min, min+extent).
enum class IterKind : uint8_t { DataPar, Reduce };
struct IterVarNode {
  const Var var;
  const int64_t min, extent;
  const IterKind kind;
  IterVarNode(Var v, int64_t mn, int64_t ext, IterKind k) : var(std::move(v)), min(mn), extent(ext), kind(k) {}
};
using IterVar = std::shared_ptr<const IterVarNode>;

enum class ReduceKind : uint8_t { Sum, Max, Min, Prod };
const char* reduce_kind_name(ReduceKind k);

struct ReduceNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Reduce;
  const ReduceKind combiner;
  const Expr source;
  const std::vector<IterVar> axes;
  ReduceNode(DataType t, ReduceKind c, Expr s, std::vector<IterVar> ax)
      : ExprNode(kKind, t), combiner(c), source(std::move(s)), axes(std::move(ax)) {}
};

// ---------------------------------------------------------------- statements

enum class ForKind : uint8_t { Serial, Parallel, Vectorized, Unrolled };
const char* for_kind_name(ForKind k);

struct ForNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::For;
  const Var var;
  const Expr min, extent;
  const ForKind for_kind;
  const Stmt body;
  ForNode(Var v, Expr mn, Expr ext, ForKind k, Stmt b)
      : StmtNode(kKind),
        var(std::move(v)),
        min(std::move(mn)),
        extent(std::move(ext)),
        for_kind(k),
        body(std::move(b)) {}
};

struct StoreNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Store;
  const Buffer buffer;
  const Expr index, value;
  StoreNode(Buffer buf, Expr i, Expr v)
      : StmtNode(kKind), buffer(std::move(buf)), index(std::move(i)), value(std::move(v)) {}
};

// Memory for `buffer` (its scope says where) live for the duration of body.
struct AllocateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Allocate;
  const Buffer buffer;
  const Stmt body;
  AllocateNode(Buffer buf, Stmt b) : StmtNode(kKind), buffer(std::move(buf)), body(std::move(b)) {}
};

struct SeqNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Seq;
  const std::vector<Stmt> stmts;
  explicit SeqNode(std::vector<Stmt> s) : StmtNode(kKind), stmts(std::move(s)) {}
};

struct IfThenElseNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::IfThenElse;
  const Expr cond;
  const Stmt then_case, else_case;  // else_case may be null
  IfThenElseNode(Expr c, Stmt t, Stmt e)
      : StmtNode(kKind), cond(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
};

struct LetStmtNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::LetStmt;
  const Var var;
  const Expr value;
  const Stmt body;
  LetStmtNode(Var v, Expr val, Stmt b)
      : StmtNode(kKind), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
};

// A hint that the cache line holding buffer[index] is read soon: brought toward the core (into L2)
// without waiting for it. It has no effect on what is computed, and an index past the buffer is
// harmless (a prefetch never faults), so a kernel may prefetch what a later iteration reads.
struct PrefetchNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Prefetch;
  const Buffer buffer;
  const Expr index;
  PrefetchNode(Buffer buf, Expr i) : StmtNode(kKind), buffer(std::move(buf)), index(std::move(i)) {}
};

// ---------------------------------------------------------------- construction
// Builders check their operands and throw tf::CompileError with a message naming what is wrong.
// Binary builders match types the way C does for a literal: an immediate takes the other side's
// type, a scalar is broadcast to the other side's lanes.

Var make_var(const std::string& name, DataType t = DataType::int64());
Buffer make_buffer(const std::string& name, DataType t, std::vector<int64_t> shape, MemoryScope scope);
IterVar make_iter_var(const std::string& name, int64_t min, int64_t extent, IterKind kind);

Expr make_int(int64_t v, DataType t = DataType::int64());
Expr make_float(double v, DataType t = DataType::float32());
Expr make_const(DataType t, double v);  // int or float immediate (broadcast if t is a vector)
Expr make_binary(BinaryOp op, Expr a, Expr b);
Expr make_not(Expr a);
Expr make_select(Expr c, Expr t, Expr f);
Expr make_cast(DataType t, Expr v);
Expr make_call(Intrinsic f, std::vector<Expr> args);
Expr make_load(Buffer buf, Expr index);
Expr make_tensor_load(std::shared_ptr<const Producer> p, std::vector<Expr> indices);
Expr make_ramp(Expr base, Expr stride, int lanes);
Expr make_broadcast(Expr v, int lanes);
Expr make_reduce(ReduceKind c, Expr source, std::vector<IterVar> axes);

Stmt make_for(Var v, Expr min, Expr extent, ForKind k, Stmt body);
Stmt make_store(Buffer buf, Expr index, Expr value);
Stmt make_allocate(Buffer buf, Stmt body);
Stmt make_seq(std::vector<Stmt> stmts);  // flattens nested Seq, drops null; one stmt returns it
Stmt make_if(Expr cond, Stmt then_case, Stmt else_case = Stmt());
Stmt make_let(Var v, Expr value, Stmt body);
Stmt make_prefetch(Buffer buf, Expr index);  // a scalar integer index

inline Expr to_expr(const Var& v) { return Expr(std::static_pointer_cast<const ExprNode>(v)); }

Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);
Expr operator%(Expr a, Expr b);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator==(Expr a, Expr b);
Expr operator!=(Expr a, Expr b);
// Named, not operator&& / ||: overloading those on a type that converts from int makes every
// `bool && Expr` ambiguous.
Expr logical_and(Expr a, Expr b);
Expr logical_or(Expr a, Expr b);
Expr floordiv(Expr a, Expr b);
Expr floormod(Expr a, Expr b);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
// One step of a reduction: acc + v, max(acc, v), min(acc, v) or acc * v.
Expr combine(ReduceKind k, Expr acc, Expr v);

// Constant queries.
bool is_const_int(const Expr& e, int64_t* value = nullptr);  // scalar IntImm, or Broadcast of one
bool is_zero(const Expr& e);
bool is_one(const Expr& e);

}  // namespace tf::ir

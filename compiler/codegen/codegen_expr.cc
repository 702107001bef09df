// Expressions: scalars and vectors, loads (contiguous, broadcast or gathered), intrinsics (the
// transcendental ones through fast_math.h: no libm calls).
#include <llvm/IR/Intrinsics.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Target/TargetMachine.h>

#include <cstdlib>
#include <numeric>

#include "compiler/codegen/codegen_llvm.h"
#include "compiler/codegen/dot_product.h"
#include "compiler/codegen/fast_math.h"
#include "compiler/ir/printer.h"

namespace tf::codegen {
namespace {

// The largest power of two that provably divides e (1 when nothing is known; zero is divisible by
// anything, so it reports the cap). Only powers of two matter for alignment, and keeping to them
// keeps the cap exact: capping an arbitrary multiple (1651667 -> 2^20) would invent divisibility.
int64_t known_pow2_factor(const ir::Expr& e) {
  constexpr int64_t kCap = int64_t{1} << 20;
  if (const auto* c = e.as<ir::IntImmNode>()) {
    if (c->value == 0) return kCap;
    const uint64_t v = static_cast<uint64_t>(c->value);
    return std::min<int64_t>(static_cast<int64_t>(v & (~v + 1)), kCap);
  }
  if (const auto* r = e.as<ir::RampNode>()) return std::min(known_pow2_factor(r->base), known_pow2_factor(r->stride));
  if (const auto* bc = e.as<ir::BroadcastNode>()) return known_pow2_factor(bc->value);
  if (const auto* bin = e.as<ir::BinaryNode>()) {
    switch (bin->op) {
      case ir::BinaryOp::Add:
      case ir::BinaryOp::Sub: return std::min(known_pow2_factor(bin->a), known_pow2_factor(bin->b));
      case ir::BinaryOp::Mul: return std::min(kCap, known_pow2_factor(bin->a) * known_pow2_factor(bin->b));
      default: return 1;
    }
  }
  return 1;
}

// Whether floor, ceil and roundeven are instructions: x86 has them from SSE4.1 on (before it LLVM
// calls libm's floorf), AArch64 always.
bool has_rounding(const llvm::TargetMachine& tm) {
  const llvm::Triple& triple = tm.getTargetTriple();
  if (triple.isX86()) return tm.getMCSubtargetInfo()->checkFeatures("+sse4.1");
  return triple.isAArch64();
}

bool is_dense_ramp(const ir::Expr& index) {
  const auto* r = index.as<ir::RampNode>();
  return r && ir::is_one(r->stride);
}

}  // namespace

llvm::Type* CodeGenLLVM::llvm_type(ir::DataType t) {
  llvm::Type* elem = nullptr;
  if (t.is_float()) {
    elem = t.bits == 16 ? b_.getHalfTy() : t.bits == 32 ? b_.getFloatTy() : t.bits == 64 ? b_.getDoubleTy() : nullptr;
  } else {
    elem = b_.getIntNTy(t.bits);
  }
  if (!elem) fail("unsupported type " + t.str());
  return t.is_vector() ? llvm::FixedVectorType::get(elem, t.lanes) : elem;
}

llvm::Value* CodeGenLLVM::buffer_pointer(const ir::Buffer& buf) const {
  auto it = fs_.buffers.find(buf.get());
  if (it == fs_.buffers.end()) fail("buffer '" + buf->name + "' is used outside its allocation");
  return it->second;
}

unsigned CodeGenLLVM::known_alignment(const ir::Buffer& buf, const ir::Expr& index) const {
  // Every buffer starts TF_BUFFER_ALIGNMENT-aligned: Arg pointers are checked by the entry, Heap
  // comes from aligned_alloc, Stack from an aligned alloca.
  int64_t multiple = known_pow2_factor(index);
  int64_t bytes = buf->dtype.bytes();
  int64_t align = bytes;
  while (align < 64 && multiple % 2 == 0) {
    align *= 2;
    multiple /= 2;
  }
  return static_cast<unsigned>(align);
}

llvm::Value* CodeGenLLVM::element_address(const ir::Buffer& buf, llvm::Value* index) {
  return b_.CreateInBoundsGEP(llvm_type(buf->dtype), buffer_pointer(buf), index);
}

llvm::Value* CodeGenLLVM::emit(const ir::Expr& e) {
  if (!e) fail("null expression");
  switch (e->kind) {
    case ir::ExprKind::IntImm: {
      const auto* n = e.as<ir::IntImmNode>();
      return llvm::ConstantInt::get(llvm_type(n->type), static_cast<uint64_t>(n->value),
                                    !n->type.is_uint() && !n->type.is_bool());
    }
    case ir::ExprKind::FloatImm: return llvm::ConstantFP::get(llvm_type(e.type()), e.as<ir::FloatImmNode>()->value);
    case ir::ExprKind::Var: {
      const auto* n = e.as<ir::VarNode>();
      auto it = fs_.vars.find(n);
      if (it == fs_.vars.end()) fail("variable '" + n->name + "' is used outside its scope");
      return it->second;
    }
    case ir::ExprKind::Binary: return emit_binary(e.as<ir::BinaryNode>());
    case ir::ExprKind::Not: return b_.CreateNot(emit(e.as<ir::NotNode>()->a));
    case ir::ExprKind::Select: {
      const auto* n = e.as<ir::SelectNode>();
      return b_.CreateSelect(emit(n->cond), emit(n->true_value), emit(n->false_value));
    }
    case ir::ExprKind::Cast: return emit_cast(e.as<ir::CastNode>());
    case ir::ExprKind::Call: return emit_call(e.as<ir::CallNode>());
    case ir::ExprKind::Load: return emit_load(e.as<ir::LoadNode>());
    case ir::ExprKind::Ramp: return emit_ramp(e.as<ir::RampNode>());
    case ir::ExprKind::Broadcast: {
      const auto* n = e.as<ir::BroadcastNode>();
      return b_.CreateVectorSplat(n->lanes, emit(n->value));
    }
    case ir::ExprKind::TensorLoad:
    case ir::ExprKind::Reduce: fail("expression was not lowered: " + ir::to_string(e));
  }
  fail("unknown expression kind");
}

llvm::Value* CodeGenLLVM::emit_ramp(const ir::RampNode* n) {
  llvm::Value* base = emit(n->base);
  llvm::Value* stride = emit(n->stride);
  std::vector<llvm::Constant*> steps;
  steps.reserve(n->lanes);
  for (int i = 0; i < n->lanes; ++i) steps.push_back(llvm::ConstantInt::get(base->getType(), i));
  llvm::Value* offsets = b_.CreateMul(b_.CreateVectorSplat(n->lanes, stride), llvm::ConstantVector::get(steps));
  return b_.CreateAdd(b_.CreateVectorSplat(n->lanes, base), offsets);
}

llvm::Value* CodeGenLLVM::emit_binary(const ir::BinaryNode* n) {
  llvm::Value* a = emit(n->a);
  llvm::Value* b = emit(n->b);
  const ir::DataType t = n->a.type();
  using Op = ir::BinaryOp;
  if (t.is_float()) {
    switch (n->op) {
      case Op::Add: return b_.CreateFAdd(a, b);
      case Op::Sub: return b_.CreateFSub(a, b);
      case Op::Mul: return b_.CreateFMul(a, b);
      case Op::Div: return b_.CreateFDiv(a, b);
      case Op::Mod: return b_.CreateFRem(a, b);
      case Op::Min: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, a, b);
      case Op::Max: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, a, b);
      case Op::EQ: return b_.CreateFCmpOEQ(a, b);
      case Op::NE: return b_.CreateFCmpUNE(a, b);
      case Op::LT: return b_.CreateFCmpOLT(a, b);
      case Op::LE: return b_.CreateFCmpOLE(a, b);
      case Op::GT: return b_.CreateFCmpOGT(a, b);
      case Op::GE: return b_.CreateFCmpOGE(a, b);
      default: fail(std::string("operator ") + ir::binary_op_name(n->op) + " on " + t.str());
    }
  }
  const bool is_signed = t.is_int();
  switch (n->op) {
    // Index arithmetic never wraps (extents are checked to stay far below 2^63), and saying so lets
    // LLVM reason about addresses.
    case Op::Add: return is_signed ? b_.CreateNSWAdd(a, b) : b_.CreateAdd(a, b);
    case Op::Sub: return is_signed ? b_.CreateNSWSub(a, b) : b_.CreateSub(a, b);
    case Op::Mul: return is_signed ? b_.CreateNSWMul(a, b) : b_.CreateMul(a, b);
    case Op::Div: return is_signed ? b_.CreateSDiv(a, b) : b_.CreateUDiv(a, b);
    case Op::Mod: return is_signed ? b_.CreateSRem(a, b) : b_.CreateURem(a, b);
    case Op::FloorDiv:
    case Op::FloorMod: {
      if (!is_signed) return n->op == Op::FloorDiv ? b_.CreateUDiv(a, b) : b_.CreateURem(a, b);
      int64_t k = 0;
      if (ir::is_const_int(n->b, &k) && k > 0) {
        // By a positive constant (every index split): the remainder is negative exactly when the
        // result must be adjusted, which is two instructions instead of seven.
        llvm::Value* q = b_.CreateSDiv(a, b);
        llvm::Value* r = b_.CreateSRem(a, b);
        llvm::Value* negative = b_.CreateICmpSLT(r, llvm::Constant::getNullValue(a->getType()));
        if (n->op == Op::FloorDiv) return b_.CreateSub(q, b_.CreateZExt(negative, a->getType()));
        return b_.CreateSelect(negative, b_.CreateAdd(r, b), r);
      }
      // C division truncates; floor division differs when the remainder is non-zero and its sign
      // differs from the divisor's.
      llvm::Value* q = b_.CreateSDiv(a, b);
      llvm::Value* r = b_.CreateSRem(a, b);
      llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
      llvm::Value* adjust =
          b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
      if (n->op == Op::FloorDiv)
        return b_.CreateSelect(adjust, b_.CreateSub(q, llvm::ConstantInt::get(a->getType(), 1)), q);
      return b_.CreateSelect(adjust, b_.CreateAdd(r, b), r);
    }
    case Op::Min: return b_.CreateBinaryIntrinsic(is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a, b);
    case Op::Max: return b_.CreateBinaryIntrinsic(is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a, b);
    case Op::EQ: return b_.CreateICmpEQ(a, b);
    case Op::NE: return b_.CreateICmpNE(a, b);
    case Op::LT: return is_signed ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b);
    case Op::LE: return is_signed ? b_.CreateICmpSLE(a, b) : b_.CreateICmpULE(a, b);
    case Op::GT: return is_signed ? b_.CreateICmpSGT(a, b) : b_.CreateICmpUGT(a, b);
    case Op::GE: return is_signed ? b_.CreateICmpSGE(a, b) : b_.CreateICmpUGE(a, b);
    case Op::And: return b_.CreateAnd(a, b);
    case Op::Or: return b_.CreateOr(a, b);
  }
  fail("unknown binary operator");
}

llvm::Value* CodeGenLLVM::emit_cast(const ir::CastNode* n) {
  llvm::Value* v = emit(n->value);
  const ir::DataType from = n->value.type(), to = n->type;
  llvm::Type* type = llvm_type(to);
  if (from == to) return v;
  if (to.is_bool()) {
    return from.is_float() ? b_.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()))
                           : b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  if (from.is_float() && to.is_float()) return b_.CreateFPCast(v, type);
  if (from.is_float()) return to.is_int() ? b_.CreateFPToSI(v, type) : b_.CreateFPToUI(v, type);
  if (to.is_float()) return from.is_int() ? b_.CreateSIToFP(v, type) : b_.CreateUIToFP(v, type);
  return b_.CreateIntCast(v, type, from.is_int());
}

llvm::Value* CodeGenLLVM::emit_call(const ir::CallNode* n) {
  std::vector<llvm::Value*> args;
  for (const auto& a : n->args) args.push_back(emit(a));
  llvm::Type* type = llvm_type(n->type);
  auto intrinsic = [&](llvm::Intrinsic::ID id) -> llvm::Value* {
    llvm::Function* f = llvm::Intrinsic::getDeclaration(module_.get(), id, {type});
    return b_.CreateCall(f, args);
  };
  auto float32_only = [&] {
    if (!n->type.is_float() || n->type.bits != 32)
      fail(std::string(ir::intrinsic_name(n->func)) + " is only supported on float32, got " + n->type.str());
  };
  switch (n->func) {
    case ir::Intrinsic::Exp: float32_only(); return fast_math::exp(b_, args[0]);
    case ir::Intrinsic::Log: float32_only(); return fast_math::log(b_, args[0]);
    case ir::Intrinsic::Tanh: float32_only(); return fast_math::tanh(b_, args[0]);
    case ir::Intrinsic::Erf: float32_only(); return fast_math::erf(b_, args[0]);
    case ir::Intrinsic::Sigmoid: float32_only(); return fast_math::sigmoid(b_, args[0]);
    case ir::Intrinsic::Sqrt: return intrinsic(llvm::Intrinsic::sqrt);
    case ir::Intrinsic::Rsqrt: return b_.CreateFDiv(llvm::ConstantFP::get(type, 1.0), intrinsic(llvm::Intrinsic::sqrt));
    case ir::Intrinsic::Fma: return intrinsic(llvm::Intrinsic::fma);
    case ir::Intrinsic::Sin: float32_only(); return fast_math::sin(b_, args[0]);
    case ir::Intrinsic::Cos: float32_only(); return fast_math::cos(b_, args[0]);
    case ir::Intrinsic::Tan: float32_only(); return fast_math::tan(b_, args[0]);
    case ir::Intrinsic::Asin: float32_only(); return fast_math::asin(b_, args[0]);
    case ir::Intrinsic::Acos: float32_only(); return fast_math::acos(b_, args[0]);
    case ir::Intrinsic::Atan: float32_only(); return fast_math::atan(b_, args[0]);
    case ir::Intrinsic::Gelu: float32_only(); return fast_math::gelu(b_, args[0]);
    case ir::Intrinsic::Floor:
      return has_rounding(tm_) ? intrinsic(llvm::Intrinsic::floor) : fast_math::floor(b_, args[0]);
    case ir::Intrinsic::Ceil:
      return has_rounding(tm_) ? intrinsic(llvm::Intrinsic::ceil) : fast_math::ceil(b_, args[0]);
    case ir::Intrinsic::Round:
      return has_rounding(tm_) ? intrinsic(llvm::Intrinsic::roundeven) : fast_math::round_even(b_, args[0]);
    case ir::Intrinsic::DotU8S8: return emit_dot_u8s8(b_, *module_, tm_, args[0], args[1], args[2]);
    case ir::Intrinsic::DotU8S8Centered:
      return emit_dot_u8s8(b_, *module_, tm_, args[0], args[1], args[2], /*centered=*/true);
    case ir::Intrinsic::Fence:
      // The backends that keep LLVM's arithmetic fence through instruction selection; elsewhere a
      // multiply-add may still be contracted across it (one rounding fewer, as in float chains).
      return tm_.getTargetTriple().isX86() ? intrinsic(llvm::Intrinsic::arithmetic_fence) : args[0];
    case ir::Intrinsic::Abs:
      if (n->type.is_float()) return intrinsic(llvm::Intrinsic::fabs);
      return b_.CreateCall(llvm::Intrinsic::getDeclaration(module_.get(), llvm::Intrinsic::abs, {type}),
                           {args[0], b_.getFalse()});
  }
  fail(std::string("unknown intrinsic ") + ir::intrinsic_name(n->func));
}

llvm::Value* CodeGenLLVM::emit_load(const ir::LoadNode* n) {
  llvm::Type* type = llvm_type(n->type);
  llvm::Type* elem = llvm_type(n->buffer->dtype);
  const int lanes = n->type.lanes;
  if (lanes == 1) {
    return b_.CreateAlignedLoad(elem, element_address(n->buffer, emit(n->index)),
                                llvm::Align(known_alignment(n->buffer, n->index)), n->buffer->name);
  }
  if (const auto* bc = n->index.as<ir::BroadcastNode>()) {
    llvm::Value* v = b_.CreateAlignedLoad(elem, element_address(n->buffer, emit(bc->value)),
                                          llvm::Align(known_alignment(n->buffer, bc->value)));
    return b_.CreateVectorSplat(lanes, v);
  }
  if (is_dense_ramp(n->index)) {
    const auto* r = n->index.as<ir::RampNode>();
    return b_.CreateAlignedLoad(type, element_address(n->buffer, emit(r->base)),
                                llvm::Align(known_alignment(n->buffer, r->base)), n->buffer->name);
  }
  llvm::Value* addresses = element_address(n->buffer, emit(n->index));
  return b_.CreateMaskedGather(type, addresses, llvm::Align(n->buffer->dtype.bytes()));
}

}  // namespace tf::codegen

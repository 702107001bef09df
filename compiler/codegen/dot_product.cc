#include "compiler/codegen/dot_product.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsAArch64.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/MC/MCSubtargetInfo.h>

#include <vector>

namespace tf::codegen {
namespace {

bool has(const llvm::TargetMachine& tm, const char* feature) { return tm.getMCSubtargetInfo()->checkFeatures(feature); }

// The x86 form for `lanes` int32 lanes, if the target has one: the EVEX forms need AVX-512 VNNI (and
// VL below 512 bits); AVX-VNNI has the 128- and 256-bit ones.
llvm::Intrinsic::ID x86_vpdpbusd(const llvm::TargetMachine& tm, int lanes) {
  if (!tm.getTargetTriple().isX86()) return llvm::Intrinsic::not_intrinsic;
  const bool evex = has(tm, "+avx512vnni");
  const bool vl = evex && has(tm, "+avx512vl");
  const bool vex = has(tm, "+avxvnni");
  if (lanes == 16 && evex) return llvm::Intrinsic::x86_avx512_vpdpbusd_512;
  if (lanes == 8 && (vl || vex)) return llvm::Intrinsic::x86_avx512_vpdpbusd_256;
  if (lanes == 4 && (vl || vex)) return llvm::Intrinsic::x86_avx512_vpdpbusd_128;
  return llvm::Intrinsic::not_intrinsic;
}

bool aarch64_usdot(const llvm::TargetMachine& tm, int lanes) {
  return tm.getTargetTriple().isAArch64() && has(tm, "+i8mm") && (lanes == 4 || lanes == 2);
}

// The bytes of `a` as L lanes of four: a shared group of four is splat.
llvm::Value* as_byte_groups(llvm::IRBuilder<>& b, llvm::Value* a, int lanes) {
  auto* type = llvm::cast<llvm::FixedVectorType>(a->getType());
  if (static_cast<int>(type->getNumElements()) == 4 * lanes) return a;
  llvm::Value* word = b.CreateBitCast(a, b.getInt32Ty());
  llvm::Value* words = b.CreateVectorSplat(lanes, word);
  return b.CreateBitCast(words, llvm::FixedVectorType::get(b.getInt8Ty(), 4 * lanes));
}

// Widened products summed in groups of four: what every target can do.
llvm::Value* generic(llvm::IRBuilder<>& b, llvm::Value* acc, llvm::Value* a, llvm::Value* w, int lanes) {
  auto* wide = llvm::FixedVectorType::get(b.getInt32Ty(), 4 * lanes);
  llvm::Value* products = b.CreateMul(b.CreateZExt(a, wide), b.CreateSExt(w, wide));
  llvm::Value* sum = acc;
  for (int j = 0; j < 4; ++j) {
    std::vector<int> pick(static_cast<size_t>(lanes));
    for (int i = 0; i < lanes; ++i) pick[static_cast<size_t>(i)] = 4 * i + j;
    sum = b.CreateAdd(sum, b.CreateShuffleVector(products, pick));
  }
  return sum;
}

}  // namespace

bool has_dot_u8s8_instruction(const llvm::TargetMachine& tm, int lanes) {
  return x86_vpdpbusd(tm, lanes) != llvm::Intrinsic::not_intrinsic || aarch64_usdot(tm, lanes);
}

llvm::Value* emit_dot_u8s8(llvm::IRBuilder<>& builder, llvm::Module& module, const llvm::TargetMachine& tm,
                           llvm::Value* acc, llvm::Value* a, llvm::Value* b) {
  const int lanes = static_cast<int>(llvm::cast<llvm::FixedVectorType>(acc->getType())->getNumElements());
  llvm::Value* bytes = as_byte_groups(builder, a, lanes);
  if (const llvm::Intrinsic::ID id = x86_vpdpbusd(tm, lanes); id != llvm::Intrinsic::not_intrinsic) {
    // The instruction reads its byte operands as int32 lanes.
    llvm::Type* words = acc->getType();
    llvm::Function* f = llvm::Intrinsic::getDeclaration(&module, id);
    return builder.CreateCall(f, {acc, builder.CreateBitCast(bytes, words), builder.CreateBitCast(b, words)});
  }
  if (aarch64_usdot(tm, lanes)) {
    llvm::Function* f = llvm::Intrinsic::getDeclaration(&module, llvm::Intrinsic::aarch64_neon_usdot,
                                                        {acc->getType(), bytes->getType()});
    return builder.CreateCall(f, {acc, bytes, b});
  }
  return generic(builder, acc, bytes, b, lanes);
}

}  // namespace tf::codegen

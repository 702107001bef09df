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

// The x86 multiply-add pair for `lanes` int32 lanes without VNNI: pmaddubsw (unsigned x signed
// bytes, adjacent products summed into saturating int16) and pmaddwd (int16 pairs into int32).
struct MultiplyAddPair {
  llvm::Intrinsic::ID bytes_to_words = llvm::Intrinsic::not_intrinsic, words_to_dwords = llvm::Intrinsic::not_intrinsic;
};

MultiplyAddPair x86_multiply_add(const llvm::TargetMachine& tm, int lanes) {
  if (!tm.getTargetTriple().isX86()) return {};
  if (lanes == 16 && has(tm, "+avx512bw"))
    return {llvm::Intrinsic::x86_avx512_pmaddubs_w_512, llvm::Intrinsic::x86_avx512_pmaddw_d_512};
  if (lanes == 8 && has(tm, "+avx2"))
    return {llvm::Intrinsic::x86_avx2_pmadd_ub_sw, llvm::Intrinsic::x86_avx2_pmadd_wd};
  if (lanes == 4 && has(tm, "+ssse3"))
    return {llvm::Intrinsic::x86_ssse3_pmadd_ub_sw_128, llvm::Intrinsic::x86_sse2_pmadd_wd};
  return {};
}

// pmaddubsw saturates when two adjacent products of a full-range unsigned byte add past int16
// (255 x 127 x 2), so the unsigned bytes go in two parts that cannot: their low seven bits
// (127 x 128 x 2 < 2^15) and their top bit, weighted 128 when the words become dwords. Exact, in
// six instructions per 4L multiply-adds where VNNI takes one.
llvm::Value* x86_exact_multiply_add(llvm::IRBuilder<>& b, llvm::Module& module, const MultiplyAddPair& ops,
                                    llvm::Value* acc, llvm::Value* a, llvm::Value* w, int lanes) {
  auto* bytes = llvm::cast<llvm::FixedVectorType>(a->getType());
  llvm::Value* low = b.CreateAnd(a, llvm::ConstantInt::get(bytes, 0x7f));
  llvm::Value* high = b.CreateLShr(a, llvm::ConstantInt::get(bytes, 7));
  llvm::Function* to_words = llvm::Intrinsic::getDeclaration(&module, ops.bytes_to_words);
  llvm::Function* to_dwords = llvm::Intrinsic::getDeclaration(&module, ops.words_to_dwords);
  auto* words = llvm::FixedVectorType::get(b.getInt16Ty(), 2 * lanes);
  llvm::Value* sum_low = b.CreateCall(to_dwords, {b.CreateCall(to_words, {low, w}), llvm::ConstantInt::get(words, 1)});
  llvm::Value* sum_high =
      b.CreateCall(to_dwords, {b.CreateCall(to_words, {high, w}), llvm::ConstantInt::get(words, 128)});
  return b.CreateAdd(acc, b.CreateAdd(sum_low, sum_high));
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
  if (const MultiplyAddPair pair = x86_multiply_add(tm, lanes); pair.bytes_to_words != llvm::Intrinsic::not_intrinsic)
    return x86_exact_multiply_add(builder, module, pair, acc, bytes, b, lanes);
  if (aarch64_usdot(tm, lanes)) {
    llvm::Function* f = llvm::Intrinsic::getDeclaration(&module, llvm::Intrinsic::aarch64_neon_usdot,
                                                        {acc->getType(), bytes->getType()});
    return builder.CreateCall(f, {acc, bytes, b});
  }
  return generic(builder, acc, bytes, b, lanes);
}

}  // namespace tf::codegen

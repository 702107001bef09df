#include "compiler/codegen/dot_product.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsAArch64.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/MC/MCSubtargetInfo.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "compiler/codegen/llvm_backend.h"
#include "compiler/codegen/target.h"

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

// Centred on 128, a's bytes are signed (a ^ 0x80 is a - 128): pabsb makes them unsigned magnitudes
// (128 included) and psignb moves their signs onto b, so one pmaddubsw multiplies pairs whose sum
// stays within int16 (128 x 127 x 2 < 2^15) and the product is exact in pabsb, psignb, pmaddubsw and
// pmaddwd, the first shared by every vector of weights the same bytes meet. b = -128 would lose its
// sign in psignb: the ops that make this form keep weights within [-127, 127].
llvm::Value* x86_centered_multiply_add(llvm::IRBuilder<>& b, llvm::Module& module, const MultiplyAddPair& ops,
                                       llvm::Value* acc, llvm::Value* a, llvm::Value* w, int lanes) {
  auto* bytes = llvm::cast<llvm::FixedVectorType>(a->getType());
  llvm::Value* centered = b.CreateXor(a, llvm::ConstantInt::get(bytes, 0x80));
  llvm::Function* abs = llvm::Intrinsic::getDeclaration(&module, llvm::Intrinsic::abs, {bytes});
  llvm::Value* magnitude = b.CreateCall(abs, {centered, b.getFalse()});
  llvm::Value* signed_w;
  if (lanes == 8 || lanes == 4) {
    const llvm::Intrinsic::ID psign =
        lanes == 8 ? llvm::Intrinsic::x86_avx2_psign_b : llvm::Intrinsic::x86_ssse3_psign_b_128;
    signed_w = b.CreateCall(llvm::Intrinsic::getDeclaration(&module, psign), {w, centered});
  } else {  // AVX-512BW has no vpsignb: negate under a mask (a zero byte's magnitude is 0 anyway)
    llvm::Value* negative = b.CreateICmpSLT(centered, llvm::Constant::getNullValue(bytes));
    signed_w = b.CreateSelect(negative, b.CreateNeg(w), w);
  }
  llvm::Function* to_words = llvm::Intrinsic::getDeclaration(&module, ops.bytes_to_words);
  llvm::Function* to_dwords = llvm::Intrinsic::getDeclaration(&module, ops.words_to_dwords);
  auto* words = llvm::FixedVectorType::get(b.getInt16Ty(), 2 * lanes);
  llvm::Value* pairs = b.CreateCall(to_words, {magnitude, signed_w});
  return b.CreateAdd(acc, b.CreateCall(to_dwords, {pairs, llvm::ConstantInt::get(words, 1)}));
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
llvm::Value* generic(llvm::IRBuilder<>& b, llvm::Value* acc, llvm::Value* a, llvm::Value* w, int lanes, bool centered) {
  auto* wide = llvm::FixedVectorType::get(b.getInt32Ty(), 4 * lanes);
  llvm::Value* x = b.CreateZExt(a, wide);
  if (centered) x = b.CreateSub(x, llvm::ConstantInt::get(wide, 128));
  llvm::Value* products = b.CreateMul(x, b.CreateSExt(w, wide));
  llvm::Value* sum = acc;
  for (int j = 0; j < 4; ++j) {
    std::vector<int> pick(static_cast<size_t>(lanes));
    for (int i = 0; i < lanes; ++i) pick[static_cast<size_t>(i)] = 4 * i + j;
    sum = b.CreateAdd(sum, b.CreateShuffleVector(products, pick));
  }
  return sum;
}

}  // namespace

namespace {

// What int8 planning and config spaces ask of a target (for every build and every space): worked
// out from one target machine per target string.
struct Int8DotForm {
  bool instruction = false;  // has_u8s8_dot_instruction
  bool centered = false;     // prefers_centered_int8
};

Int8DotForm int8_dot_form(const Target& target) {
  static std::mutex mu;
  static std::map<std::string, Int8DotForm> known;
  const std::string key = target.str();
  std::lock_guard<std::mutex> lock(mu);
  auto it = known.find(key);
  if (it == known.end()) {
    const auto tm = make_target_machine(target, 0);
    const int lanes = std::max(1, target.float32_lanes());
    Int8DotForm form;
    form.instruction = has_dot_u8s8_instruction(*tm, lanes);
    form.centered = tm->getTargetTriple().isX86() && !form.instruction &&
                    x86_multiply_add(*tm, lanes).bytes_to_words != llvm::Intrinsic::not_intrinsic;
    it = known.emplace(key, form).first;
  }
  return it->second;
}

}  // namespace

bool has_u8s8_dot_instruction(const Target& target) { return int8_dot_form(target).instruction; }

bool prefers_centered_int8(const Target& target) { return int8_dot_form(target).centered; }

bool has_dot_u8s8_instruction(const llvm::TargetMachine& tm, int lanes) {
  return x86_vpdpbusd(tm, lanes) != llvm::Intrinsic::not_intrinsic || aarch64_usdot(tm, lanes);
}

llvm::Value* emit_dot_u8s8(llvm::IRBuilder<>& builder, llvm::Module& module, const llvm::TargetMachine& tm,
                           llvm::Value* acc, llvm::Value* a, llvm::Value* b, bool centered) {
  const int lanes = static_cast<int>(llvm::cast<llvm::FixedVectorType>(acc->getType())->getNumElements());
  llvm::Value* bytes = as_byte_groups(builder, a, lanes);
  // A one-instruction dot product of the bytes, less (when centred) that of 128s with b: the same
  // for every byte group b meets, so computed once per vector of weights.
  auto less_offsets_if_centered = [&](auto&& dot) -> llvm::Value* {
    if (!centered) return dot(acc, bytes);
    llvm::Value* offsets = llvm::ConstantInt::get(bytes->getType(), 0x80);
    return builder.CreateSub(dot(acc, bytes), dot(llvm::Constant::getNullValue(acc->getType()), offsets));
  };
  if (const llvm::Intrinsic::ID id = x86_vpdpbusd(tm, lanes); id != llvm::Intrinsic::not_intrinsic) {
    // The instruction reads its byte operands as int32 lanes.
    llvm::Type* words = acc->getType();
    llvm::Function* f = llvm::Intrinsic::getDeclaration(&module, id);
    return less_offsets_if_centered([&](llvm::Value* sum, llvm::Value* x) -> llvm::Value* {
      return builder.CreateCall(f, {sum, builder.CreateBitCast(x, words), builder.CreateBitCast(b, words)});
    });
  }
  if (const MultiplyAddPair pair = x86_multiply_add(tm, lanes); pair.bytes_to_words != llvm::Intrinsic::not_intrinsic) {
    return centered ? x86_centered_multiply_add(builder, module, pair, acc, bytes, b, lanes)
                    : x86_exact_multiply_add(builder, module, pair, acc, bytes, b, lanes);
  }
  if (aarch64_usdot(tm, lanes)) {
    llvm::Function* f = llvm::Intrinsic::getDeclaration(&module, llvm::Intrinsic::aarch64_neon_usdot,
                                                        {acc->getType(), bytes->getType()});
    return less_offsets_if_centered([&](llvm::Value* sum, llvm::Value* x) -> llvm::Value* {
      return builder.CreateCall(f, {sum, x, b});
    });
  }
  return generic(builder, acc, bytes, b, lanes, centered);
}

}  // namespace tf::codegen

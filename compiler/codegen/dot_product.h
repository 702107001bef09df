// The 4-way int8 dot product (ir::Intrinsic::DotU8S8) as the target does it best: one VNNI
// instruction on x86 (vpdpbusd, AVX-512 VNNI or AVX-VNNI), pmaddubsw and pmaddwd on x86 without
// it (split so that nothing saturates), usdot on AArch64 with the int8 matrix extension, and
// widening multiplies with a pairwise sum elsewhere (the same value, slower).
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace tf::codegen {

// acc: <L x i32>; a: <4L x i8> (unsigned) or <4 x i8> shared by every lane; b: <4L x i8> (signed).
// `centered`: ir::Intrinsic::DotU8S8Centered, a's bytes less 128 (b within [-127, 127]).
llvm::Value* emit_dot_u8s8(llvm::IRBuilder<>& builder, llvm::Module& module, const llvm::TargetMachine& tm,
                           llvm::Value* acc, llvm::Value* a, llvm::Value* b, bool centered = false);

// Whether emit_dot_u8s8 is one instruction per `lanes` int32 lanes on this target.
bool has_dot_u8s8_instruction(const llvm::TargetMachine& tm, int lanes);

}  // namespace tf::codegen

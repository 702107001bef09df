#include "compiler/codegen/llvm_backend.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <cstdlib>
#include <fstream>
#include <mutex>

#include "compiler/codegen/llvm_init.h"
#include "compiler/error.h"

namespace tf::codegen {

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

namespace {

// What a scheduled kernel needs from LLVM, and no more: the passes already vectorized, unrolled and
// simplified the loops, so O3's loop optimizers only cost time (three times the compile time of this
// list, for the same GFLOPS on the packed dense tiles; unpacked wide tiles lose up to half, which
// CodegenOptions::llvm_o3 gets back). Inline the iteration functions (their noalias
// facts become scopes), promote the tile to registers (sroa), fold and hoist the index arithmetic.
// TUNEFARM_LLVM_PASSES overrides it, to experiment.
constexpr const char* kKernelPipeline =
    "cgscc(inline),function(sroa,early-cse<memssa>,instcombine,simplifycfg,loop(loop-rotate),loop-mssa(licm),"
    "instcombine,adce,simplifycfg)";

llvm::CodeGenOpt::Level codegen_level(int opt_level) {
  switch (opt_level) {
    case 0: return llvm::CodeGenOpt::None;
    case 1: return llvm::CodeGenOpt::Less;
    case 2: return llvm::CodeGenOpt::Default;
    default: return llvm::CodeGenOpt::Aggressive;
  }
}

}  // namespace

std::unique_ptr<llvm::TargetMachine> make_target_machine(const Target& target, int opt_level) {
  initialize_llvm();
  std::string error;
  const llvm::Target* backend = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (!backend) throw CompileError("target '" + target.str() + "': " + error);
  llvm::TargetOptions options;
  // Fusing a*b+c into one FMA is allowed (it is also more accurate); reassociation is not, so a
  // kernel's result does not depend on how LLVM happened to vectorize a sum.
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> tm(
      backend->createTargetMachine(target.triple, target.cpu, target.features, options, llvm::Reloc::PIC_,
                                   llvm::CodeModel::Small, codegen_level(opt_level)));
  if (!tm) throw CompileError("target '" + target.str() + "': LLVM could not create a target machine");
  return tm;
}

void optimize_module(llvm::Module& m, llvm::TargetMachine& tm, int opt_level, bool llvm_o3) {
  std::string broken;
  llvm::raw_string_ostream os(broken);
  if (llvm::verifyModule(m, &os))
    throw CompileError("internal error: invalid LLVM IR for " + m.getName().str() + ": " + os.str());
  if (opt_level <= 0) return;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  const char* custom = std::getenv("TUNEFARM_LLVM_PASSES");
  const std::string pipeline = custom && *custom ? custom : opt_level < 3 || llvm_o3 ? "" : kKernelPipeline;
  if (!pipeline.empty()) {
    if (auto err = pb.parsePassPipeline(mpm, pipeline)) {
      throw CompileError("LLVM pass pipeline '" + pipeline + "': " + llvm::toString(std::move(err)));
    }
  } else {
    mpm = pb.buildPerModuleDefaultPipeline(opt_level == 1   ? llvm::OptimizationLevel::O1
                                           : opt_level == 2 ? llvm::OptimizationLevel::O2
                                                            : llvm::OptimizationLevel::O3);
  }
  mpm.run(m, mam);
}

namespace {

std::string emit_file(llvm::Module& m, llvm::TargetMachine& tm, llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type)) {
    throw CompileError("target '" + tm.getTargetTriple().str() + "' cannot emit this kind of file");
  }
  pm.run(m);
  return std::string(buffer.begin(), buffer.end());
}

}  // namespace

std::string emit_object(llvm::Module& m, llvm::TargetMachine& tm) { return emit_file(m, tm, llvm::CGFT_ObjectFile); }

std::string emit_assembly(llvm::Module& m, llvm::TargetMachine& tm) {
  // Emitting runs codegen passes that may change the module; work on a copy.
  auto copy = llvm::CloneModule(m);
  return emit_file(*copy, tm, llvm::CGFT_AssemblyFile);
}

std::string module_to_string(const llvm::Module& m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, nullptr);
  return os.str();
}

void dump_module_if_asked(const llvm::Module& m) {
  const char* dir = std::getenv("TUNEFARM_DUMP_LLVM");
  if (!dir || !*dir) return;
  std::ofstream out(std::string(dir) + "/" + m.getName().str() + ".ll");
  out << module_to_string(m);
}

}  // namespace tf::codegen

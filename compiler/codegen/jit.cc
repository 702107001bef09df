// The in-process path: optimise the module, then hand it to ORC's LLJIT.
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/Support/Error.h>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/codegen_llvm.h"
#include "compiler/codegen/llvm_backend.h"
#include "compiler/error.h"

namespace tf::codegen {
namespace {

std::string to_message(llvm::Error e) { return llvm::toString(std::move(e)); }

class LLJitKernel : public JitKernel {
 public:
  LLJitKernel(std::unique_ptr<llvm::orc::LLJIT> jit, TFKernelFn entry, std::string ir, std::string assembly)
      : jit_(std::move(jit)), entry_(entry), ir_(std::move(ir)), assembly_(std::move(assembly)) {}
  TFKernelFn entry() const override { return entry_; }
  const std::string& llvm_ir() const override { return ir_; }
  const std::string& assembly() const override { return assembly_; }

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;  // owns the code entry_ points into
  TFKernelFn entry_;
  std::string ir_, assembly_;
};

}  // namespace

std::unique_ptr<JitKernel> compile_jit(const ir::LoweredFunc& f, const Target& target, const CodegenOptions& opts) {
  std::string why;
  if (!host_can_run(target, &why)) {
    throw CompileError("cannot JIT kernel '" + f.name + "': " + why +
                       "; build a shared library for such a board instead");
  }
  auto tm = make_target_machine(target, opts.opt_level);
  auto ctx = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> m = CodeGenLLVM(*ctx, *tm, target).build(f);
  dump_module_if_asked(*m);
  optimize_module(*m, *tm, opts.opt_level, opts.llvm_o3);
  std::string ir = opts.keep_llvm_ir ? module_to_string(*m) : "";
  std::string assembly = opts.keep_assembly ? emit_assembly(*m, *tm) : "";

  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(target.triple)};
  jtmb.setCPU(target.cpu);
  llvm::SubtargetFeatures features(target.features);
  jtmb.addFeatures(features.getFeatures());
  jtmb.setCodeGenOptLevel(tm->getOptLevel());
  jtmb.getOptions().AllowFPOpFusion = llvm::FPOpFusion::Fast;
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create();
  if (!jit) throw CompileError("JIT for kernel '" + f.name + "': " + to_message(jit.takeError()));
  // aligned_alloc, free and libm come from this process.
  auto generator =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
  if (!generator) throw CompileError("JIT for kernel '" + f.name + "': " + to_message(generator.takeError()));
  (*jit)->getMainJITDylib().addGenerator(std::move(*generator));
  if (auto err = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx)))) {
    throw CompileError("JIT for kernel '" + f.name + "': " + to_message(std::move(err)));
  }
  auto entry = (*jit)->lookup(f.name);
  if (!entry) throw CompileError("JIT for kernel '" + f.name + "': " + to_message(entry.takeError()));
  auto slot = (*jit)->lookup(TF_PARALLEL_FOR_SYMBOL);
  if (!slot) throw CompileError("JIT for kernel '" + f.name + "': " + to_message(slot.takeError()));
  *slot->toPtr<TFParallelForFn*>() = &tf_runtime_parallel_for;
  if (auto alloc_slot = (*jit)->lookup(TF_WORKSPACE_ALLOC_SYMBOL)) {
    *alloc_slot->toPtr<TFWorkspaceAllocFn*>() = &tf_runtime_workspace_alloc;
  } else {
    llvm::consumeError(alloc_slot.takeError());
  }
  if (auto free_slot = (*jit)->lookup(TF_WORKSPACE_FREE_SYMBOL)) {
    *free_slot->toPtr<TFWorkspaceFreeFn*>() = &tf_runtime_workspace_free;
  } else {
    llvm::consumeError(free_slot.takeError());
  }
  return std::make_unique<LLJitKernel>(std::move(*jit), entry->toPtr<TFKernelFn>(), std::move(ir), std::move(assembly));
}

}  // namespace tf::codegen

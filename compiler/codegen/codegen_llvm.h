// Translation of a lowered kernel into an LLVM module (internal to codegen/).
//
// The module holds:
//   - `<name>`: the C-ABI entry (runtime/kernel_abi.h). It checks argument count, ranks, extents,
//     dtypes and alignment, then calls the body with bare pointers.
//   - `<name>.body`: internal, its buffer parameters noalias and 64-byte aligned, which is what lets
//     LLVM keep accumulators in registers and hoist loads across stores to other buffers.
//   - `<name>.par<N>`: one outlined function per parallel loop, called by the runtime's launcher.
//   - `__tf_parallel_for`: the launcher pointer the loader fills in (null: parallel loops run serially).
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/codegen/target.h"
#include "compiler/ir/function.h"
#include "compiler/ir/ir.h"

namespace llvm {
class TargetMachine;
}

namespace tf::codegen {

class CodeGenLLVM {
 public:
  CodeGenLLVM(llvm::LLVMContext& ctx, llvm::TargetMachine& tm, const Target& target);
  // Builds the module; throws tf::CompileError naming the kernel on IR it cannot translate.
  std::unique_ptr<llvm::Module> build(const ir::LoweredFunc& f);

 private:
  // ---- functions (codegen_llvm.cc)
  llvm::Function* make_body(const ir::LoweredFunc& f);
  void make_entry(const ir::LoweredFunc& f, llvm::Function* body);
  void set_kernel_attributes(llvm::Function* fn);

  // ---- statements (codegen_stmt.cc)
  void emit(const ir::Stmt& s);
  void emit_for(const ir::ForNode* n);
  void emit_serial_loop(const ir::ForNode* n);
  void emit_store(const ir::StoreNode* n);
  void emit_prefetch(const ir::PrefetchNode* n);
  void emit_allocate(const ir::AllocateNode* n);
  void emit_if(const ir::IfThenElseNode* n);
  // Leaves the current function with `status` (non-zero: an error), from anywhere in its body.
  void emit_fail(llvm::Value* status);

  // ---- parallel loops, outlined for the runtime's launcher (codegen_stmt.cc)
  // What a parallel loop's body uses from the enclosing function, passed to every iteration.
  struct ParallelCaptures {
    std::vector<const ir::VarNode*> vars;
    std::vector<llvm::Value*> values;  // of `vars`, in the enclosing function
    std::vector<ir::Buffer> buffers;
  };
  void emit_parallel_loop(const ir::ForNode* n);
  ParallelCaptures capture_outer_uses(const ir::Stmt& body) const;
  llvm::Function* emit_parallel_iteration(const ir::ForNode* n, const ParallelCaptures& captures,
                                          const std::string& name);
  llvm::StructType* parallel_closure_type(const ParallelCaptures& captures);
  llvm::Function* emit_parallel_task(llvm::Function* iteration, llvm::StructType* closure_type,
                                     const std::string& name);
  llvm::Value* emit_closure(const ir::ForNode* n, const ParallelCaptures& captures, llvm::StructType* closure_type,
                            const std::string& base);
  void emit_parallel_launch(llvm::Value* extent, llvm::Function* task, llvm::Value* closure, const std::string& base);
  void emit_launcher_call(llvm::Value* launcher, llvm::Value* extent, llvm::Function* task, llvm::Value* closure,
                          const std::string& base, llvm::BasicBlock* joined);
  void emit_tasks_in_order(llvm::Value* extent, llvm::Function* task, llvm::Value* closure, const std::string& base,
                           llvm::BasicBlock* joined);
  void emit_parallel_status_check(llvm::Value* closure, llvm::StructType* closure_type, const std::string& base);

  // ---- expressions (codegen_expr.cc)
  llvm::Value* emit(const ir::Expr& e);
  llvm::Value* emit_binary(const ir::BinaryNode* n);
  llvm::Value* emit_load(const ir::LoadNode* n);
  llvm::Value* emit_call(const ir::CallNode* n);
  llvm::Value* emit_cast(const ir::CastNode* n);
  llvm::Value* emit_ramp(const ir::RampNode* n);
  llvm::Value* element_address(const ir::Buffer& buf, llvm::Value* index);
  // Bytes the address buffer[index] is known to be aligned to (buffers start 64-byte aligned).
  unsigned known_alignment(const ir::Buffer& buf, const ir::Expr& index) const;
  llvm::Type* llvm_type(ir::DataType t);

  llvm::Value* buffer_pointer(const ir::Buffer& buf) const;
  [[noreturn]] void fail(const std::string& what) const;

  llvm::LLVMContext& ctx_;
  llvm::TargetMachine& tm_;
  const Target& target_;
  std::unique_ptr<llvm::Module> module_;
  llvm::IRBuilder<> b_;
  llvm::GlobalVariable* parallel_for_ = nullptr;
  llvm::GlobalVariable* workspace_alloc_ = nullptr;
  llvm::GlobalVariable* workspace_free_ = nullptr;
  std::string name_;
  int num_parallel_ = 0;

  // State of the function being emitted; saved and replaced while outlining a parallel loop.
  struct FunctionState {
    llvm::Function* fn = nullptr;
    llvm::BasicBlock* alloca_block = nullptr;  // the entry block: allocas there are promotable
    llvm::Value* error_slot = nullptr;         // in outlined bodies: where to report a failure
    std::unordered_map<const ir::VarNode*, llvm::Value*> vars;
    std::unordered_map<const ir::BufferNode*, llvm::Value*> buffers;
    std::unordered_map<const ir::VarNode*, std::pair<int64_t, int64_t>> ranges;  // loop var: min, extent
  };
  FunctionState fs_;
};

}  // namespace tf::codegen

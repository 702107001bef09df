// The kernel's functions: the checked C-ABI entry and the unchecked body it calls.
#include "compiler/codegen/codegen_llvm.h"

#include <llvm/IR/Attributes.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Target/TargetMachine.h>

#include "compiler/codegen/abi_dtype.h"
#include "compiler/error.h"
#include "runtime/kernel_abi.h"

namespace tf::codegen {

CodeGenLLVM::CodeGenLLVM(llvm::LLVMContext& ctx, llvm::TargetMachine& tm, const Target& target)
    : ctx_(ctx), tm_(tm), target_(target), b_(ctx) {}

void CodeGenLLVM::fail(const std::string& what) const {
  throw CompileError("codegen of kernel '" + name_ + "': " + what);
}

std::unique_ptr<llvm::Module> CodeGenLLVM::build(const ir::LoweredFunc& f) {
  name_ = f.name;
  module_ = std::make_unique<llvm::Module>(f.name, ctx_);
  module_->setTargetTriple(tm_.getTargetTriple().str());
  module_->setDataLayout(tm_.createDataLayout());
  // The launcher slot. Exported with default visibility so the loader (dlsym) and the JIT (lookup)
  // can find it and store the runtime's launcher.
  parallel_for_ = new llvm::GlobalVariable(*module_, b_.getPtrTy(), false, llvm::GlobalValue::ExternalLinkage,
                                           llvm::ConstantPointerNull::get(b_.getPtrTy()), TF_PARALLEL_FOR_SYMBOL);
  // The workspace allocator slots, filled the same way (null: aligned_alloc and free).
  workspace_alloc_ = new llvm::GlobalVariable(*module_, b_.getPtrTy(), false, llvm::GlobalValue::ExternalLinkage,
                                              llvm::ConstantPointerNull::get(b_.getPtrTy()), TF_WORKSPACE_ALLOC_SYMBOL);
  workspace_free_ = new llvm::GlobalVariable(*module_, b_.getPtrTy(), false, llvm::GlobalValue::ExternalLinkage,
                                             llvm::ConstantPointerNull::get(b_.getPtrTy()), TF_WORKSPACE_FREE_SYMBOL);
  llvm::Function* body = make_body(f);
  make_entry(f, body);
  return std::move(module_);
}

void CodeGenLLVM::set_kernel_attributes(llvm::Function* fn) {
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fn->addFnAttr("target-cpu", target_.cpu);
  if (!target_.features.empty()) fn->addFnAttr("target-features", target_.features);
  // Without these, a CPU tuned to prefer 256-bit vectors would split the 512-bit vectors a template
  // asked for in two.
  const std::string width = std::to_string(target_.vector_bits);
  fn->addFnAttr("prefer-vector-width", width);
  fn->addFnAttr("min-legal-vector-width", width);
}

llvm::Function* CodeGenLLVM::make_body(const ir::LoweredFunc& f) {
  std::vector<llvm::Type*> params(f.args.size(), b_.getPtrTy());
  auto* type = llvm::FunctionType::get(b_.getInt32Ty(), params, false);
  auto* fn = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, f.name + ".body", module_.get());
  set_kernel_attributes(fn);
  fs_ = FunctionState();
  fs_.fn = fn;
  for (size_t i = 0; i < f.args.size(); ++i) {
    llvm::Argument* a = fn->getArg(static_cast<unsigned>(i));
    a->setName(f.args[i]->name);
    // Distinct tensors never overlap (the entry is documented so), and every data pointer was checked
    // to be 64-byte aligned by the entry.
    a->addAttr(llvm::Attribute::NoAlias);
    a->addAttr(llvm::Attribute::NoCapture);
    a->addAttr(llvm::Attribute::getWithAlignment(ctx_, llvm::Align(TF_BUFFER_ALIGNMENT)));
    fs_.buffers[f.args[i].get()] = a;
  }
  fs_.alloca_block = llvm::BasicBlock::Create(ctx_, "entry", fn);
  auto* start = llvm::BasicBlock::Create(ctx_, "start", fn);
  b_.SetInsertPoint(start);
  emit(f.body);
  b_.CreateRet(b_.getInt32(TF_OK));
  b_.SetInsertPoint(fs_.alloca_block);
  b_.CreateBr(start);
  return fn;
}

void CodeGenLLVM::make_entry(const ir::LoweredFunc& f, llvm::Function* body) {
  auto* type = llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy(), b_.getInt32Ty()}, false);
  auto* fn = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, f.name, module_.get());
  set_kernel_attributes(fn);
  llvm::Value* args = fn->getArg(0);
  llvm::Value* num_args = fn->getArg(1);
  args->setName("args");
  num_args->setName("num_args");
  // struct TFBuffer { void* data; const int64_t* shape; int32_t ndim, dtype_code, dtype_bits, reserved; }
  llvm::StructType* tf_buffer = llvm::StructType::get(
      ctx_, {b_.getPtrTy(), b_.getPtrTy(), b_.getInt32Ty(), b_.getInt32Ty(), b_.getInt32Ty(), b_.getInt32Ty()});

  auto* entry = llvm::BasicBlock::Create(ctx_, "entry", fn);
  b_.SetInsertPoint(entry);
  // Each check branches to its own return so the caller learns exactly what was wrong.
  auto check = [&](llvm::Value* ok, int32_t status) {
    auto* bad = llvm::BasicBlock::Create(ctx_, "bad_arg", fn);
    auto* next = llvm::BasicBlock::Create(ctx_, "next", fn);
    b_.CreateCondBr(ok, next, bad, llvm::MDBuilder(ctx_).createBranchWeights(1 << 20, 1));
    b_.SetInsertPoint(bad);
    b_.CreateRet(b_.getInt32(status));
    b_.SetInsertPoint(next);
  };
  check(b_.CreateICmpEQ(num_args, b_.getInt32(static_cast<int32_t>(f.args.size()))), TF_ERR_NUM_ARGS);
  std::vector<llvm::Value*> data;
  for (size_t i = 0; i < f.args.size(); ++i) {
    const ir::Buffer& buf = f.args[i];
    llvm::Value* arg = b_.CreateConstInBoundsGEP1_64(tf_buffer, args, i, buf->name + ".arg");
    llvm::Value* ndim = b_.CreateLoad(b_.getInt32Ty(), b_.CreateStructGEP(tf_buffer, arg, 2));
    check(b_.CreateICmpEQ(ndim, b_.getInt32(static_cast<int32_t>(buf->shape.size()))), TF_ERR_NDIM);
    llvm::Value* shape = b_.CreateLoad(b_.getPtrTy(), b_.CreateStructGEP(tf_buffer, arg, 1));
    if (!buf->shape.empty()) check(b_.CreateIsNotNull(shape), TF_ERR_SHAPE);
    for (size_t d = 0; d < buf->shape.size(); ++d) {
      llvm::Value* extent = b_.CreateLoad(b_.getInt64Ty(), b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), shape, d));
      check(b_.CreateICmpEQ(extent, b_.getInt64(buf->shape[d])), TF_ERR_SHAPE);
    }
    const int32_t code = abi_dtype_code(buf->dtype);
    llvm::Value* dtype_code = b_.CreateLoad(b_.getInt32Ty(), b_.CreateStructGEP(tf_buffer, arg, 3));
    llvm::Value* dtype_bits = b_.CreateLoad(b_.getInt32Ty(), b_.CreateStructGEP(tf_buffer, arg, 4));
    check(b_.CreateAnd(b_.CreateICmpEQ(dtype_code, b_.getInt32(code)),
                       b_.CreateICmpEQ(dtype_bits, b_.getInt32(buf->dtype.bits))),
          TF_ERR_DTYPE);
    llvm::Value* ptr = b_.CreateLoad(b_.getPtrTy(), b_.CreateStructGEP(tf_buffer, arg, 0), buf->name);
    llvm::Value* misaligned =
        b_.CreateAnd(b_.CreatePtrToInt(ptr, b_.getInt64Ty()), b_.getInt64(TF_BUFFER_ALIGNMENT - 1));
    check(b_.CreateAnd(b_.CreateIsNotNull(ptr), b_.CreateICmpEQ(misaligned, b_.getInt64(0))), TF_ERR_ALIGNMENT);
    data.push_back(ptr);
  }
  b_.CreateRet(b_.CreateCall(body, data));
}

}  // namespace tf::codegen

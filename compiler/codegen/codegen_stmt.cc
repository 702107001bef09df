// Statements: loops (serial, and parallel ones outlined for the runtime's launcher), stores,
// allocations, branches, lets.
#include <llvm/IR/MDBuilder.h>

#include <set>

#include "compiler/codegen/codegen_llvm.h"
#include "compiler/ir/visitor.h"
#include "runtime/kernel_abi.h"

namespace tf::codegen {
namespace {

// The variables and buffers a statement refers to, in first-use order (deterministic output).
class UseCollector : public ir::IRVisitor {
 public:
  std::vector<const ir::VarNode*> vars;
  std::vector<ir::Buffer> buffers;

  using ir::IRVisitor::visit;

 protected:
  void visit(const ir::VarNode* n) override {
    if (seen_vars_.insert(n).second) vars.push_back(n);
  }
  void visit(const ir::LoadNode* n) override {
    add(n->buffer);
    ir::IRVisitor::visit(n);
  }
  void visit(const ir::StoreNode* n) override {
    add(n->buffer);
    ir::IRVisitor::visit(n);
  }
  void visit(const ir::PrefetchNode* n) override {
    add(n->buffer);
    ir::IRVisitor::visit(n);
  }

 private:
  void add(const ir::Buffer& b) {
    if (seen_buffers_.insert(b.get()).second) buffers.push_back(b);
  }
  std::set<const ir::VarNode*> seen_vars_;
  std::set<const ir::BufferNode*> seen_buffers_;
};

}  // namespace

void CodeGenLLVM::emit(const ir::Stmt& s) {
  if (!s) return;
  switch (s->kind) {
    case ir::StmtKind::For: return emit_for(s.as<ir::ForNode>());
    case ir::StmtKind::Store: return emit_store(s.as<ir::StoreNode>());
    case ir::StmtKind::Allocate: return emit_allocate(s.as<ir::AllocateNode>());
    case ir::StmtKind::Seq:
      for (const auto& st : s.as<ir::SeqNode>()->stmts) emit(st);
      return;
    case ir::StmtKind::IfThenElse: return emit_if(s.as<ir::IfThenElseNode>());
    case ir::StmtKind::LetStmt: {
      const auto* n = s.as<ir::LetStmtNode>();
      llvm::Value* v = emit(n->value);
      v->setName(n->var->name);
      fs_.vars[n->var.get()] = v;
      emit(n->body);
      fs_.vars.erase(n->var.get());
      return;
    }
    case ir::StmtKind::Prefetch: return emit_prefetch(s.as<ir::PrefetchNode>());
  }
}

void CodeGenLLVM::emit_for(const ir::ForNode* n) {
  // A vectorized or unrolled loop the passes left alone (they could not prove it legal, or its
  // extent is not constant) runs as a plain loop: always correct, and LLVM may still vectorize it.
  if (n->for_kind == ir::ForKind::Parallel) return emit_parallel_loop(n);
  emit_serial_loop(n);
}

void CodeGenLLVM::emit_serial_loop(const ir::ForNode* n) {
  llvm::Value* min = emit(n->min);
  llvm::Value* end = b_.CreateNSWAdd(min, emit(n->extent), n->var->name + ".end");
  llvm::BasicBlock* preheader = b_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx_, n->var->name + ".header", fs_.fn);
  auto* body = llvm::BasicBlock::Create(ctx_, n->var->name + ".body", fs_.fn);
  auto* exit = llvm::BasicBlock::Create(ctx_, n->var->name + ".exit", fs_.fn);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* i = b_.CreatePHI(min->getType(), 2, n->var->name);
  i->addIncoming(min, preheader);
  b_.CreateCondBr(b_.CreateICmpSLT(i, end), body, exit);
  b_.SetInsertPoint(body);
  fs_.vars[n->var.get()] = i;
  emit(n->body);
  fs_.vars.erase(n->var.get());
  llvm::Value* next = b_.CreateNSWAdd(i, llvm::ConstantInt::get(i->getType(), 1));
  i->addIncoming(next, b_.GetInsertBlock());
  llvm::BranchInst* latch = b_.CreateBr(header);
  {
    // Vectorizing and unrolling are the schedule's decisions, made explicitly by the passes; LLVM
    // redoing them on every small leftover loop (ragged tile edges, unvectorized configs) costs
    // ten times the compile time, and would make `vectorize: false` mean "maybe".
    llvm::MDNode* self_ref = llvm::MDNode::getTemporary(ctx_, {}).release();
    llvm::Metadata* no_vectorize[] = {llvm::MDString::get(ctx_, "llvm.loop.vectorize.enable"),
                                      llvm::ConstantAsMetadata::get(b_.getFalse())};
    llvm::Metadata* no_unroll[] = {llvm::MDString::get(ctx_, "llvm.loop.unroll.disable")};
    llvm::MDNode* loop_id =
        llvm::MDNode::get(ctx_, {self_ref, llvm::MDNode::get(ctx_, no_vectorize), llvm::MDNode::get(ctx_, no_unroll)});
    loop_id->replaceOperandWith(0, loop_id);
    llvm::MDNode::deleteTemporary(self_ref);
    latch->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
  }
  b_.SetInsertPoint(exit);
}

// A parallel loop becomes three pieces:
//   <name>.par<N>.body(i64 iter, vars..., buffers...) -> i32: one iteration, buffers noalias so the
//     inliner keeps the aliasing facts the main body has;
//   <name>.par<N>(i64 task, ptr closure): what the launcher calls; unpacks the closure, runs the
//     iteration, records a failure in the closure;
//   at the loop's place: pack the closure, call the launcher (or run the tasks in order when no
//   launcher is installed), then return any failure.
void CodeGenLLVM::emit_parallel_loop(const ir::ForNode* n) {
  const std::string base = name_ + ".par" + std::to_string(num_parallel_++);
  const ParallelCaptures captures = capture_outer_uses(n->body);
  llvm::Function* iteration = emit_parallel_iteration(n, captures, base + ".body");
  llvm::StructType* closure_type = parallel_closure_type(captures);
  llvm::Function* task = emit_parallel_task(iteration, closure_type, base);
  llvm::Value* closure = emit_closure(n, captures, closure_type, base);
  emit_parallel_launch(emit(n->extent), task, closure, base);
  emit_parallel_status_check(closure, closure_type, base);
}

// The variables and buffers of the enclosing function the body uses: what each iteration is passed.
CodeGenLLVM::ParallelCaptures CodeGenLLVM::capture_outer_uses(const ir::Stmt& body) const {
  UseCollector uses;
  uses.visit(body);
  ParallelCaptures captures;
  for (const auto* v : uses.vars) {
    auto it = fs_.vars.find(v);
    if (it != fs_.vars.end()) {
      captures.vars.push_back(v);
      captures.values.push_back(it->second);
    }
  }
  for (const auto& buf : uses.buffers) {
    if (fs_.buffers.count(buf.get())) captures.buffers.push_back(buf);
  }
  return captures;
}

// One iteration as a function of its own: (i64 iter, vars..., buffers...) -> i32 status.
llvm::Function* CodeGenLLVM::emit_parallel_iteration(const ir::ForNode* n, const ParallelCaptures& captures,
                                                     const std::string& name) {
  std::vector<llvm::Type*> params{b_.getInt64Ty()};
  for (auto* v : captures.values) params.push_back(v->getType());
  for (size_t i = 0; i < captures.buffers.size(); ++i) params.push_back(b_.getPtrTy());
  auto* iter_fn = llvm::Function::Create(llvm::FunctionType::get(b_.getInt32Ty(), params, false),
                                         llvm::GlobalValue::InternalLinkage, name, module_.get());
  set_kernel_attributes(iter_fn);

  FunctionState outer = std::move(fs_);
  llvm::IRBuilderBase::InsertPointGuard outer_ip(b_);
  fs_ = FunctionState();
  fs_.fn = iter_fn;
  fs_.vars[n->var.get()] = iter_fn->getArg(0);
  iter_fn->getArg(0)->setName(n->var->name);
  for (size_t i = 0; i < captures.vars.size(); ++i) {
    llvm::Argument* a = iter_fn->getArg(static_cast<unsigned>(1 + i));
    a->setName(captures.vars[i]->name);
    fs_.vars[captures.vars[i]] = a;
  }
  for (size_t i = 0; i < captures.buffers.size(); ++i) {
    llvm::Argument* a = iter_fn->getArg(static_cast<unsigned>(1 + captures.vars.size() + i));
    a->setName(captures.buffers[i]->name);
    a->addAttr(llvm::Attribute::NoAlias);
    a->addAttr(llvm::Attribute::getWithAlignment(ctx_, llvm::Align(TF_BUFFER_ALIGNMENT)));
    fs_.buffers[captures.buffers[i].get()] = a;
  }
  fs_.alloca_block = llvm::BasicBlock::Create(ctx_, "entry", iter_fn);
  auto* start = llvm::BasicBlock::Create(ctx_, "start", iter_fn);
  b_.SetInsertPoint(start);
  emit(n->body);
  b_.CreateRet(b_.getInt32(TF_OK));
  b_.SetInsertPoint(fs_.alloca_block);
  b_.CreateBr(start);
  fs_ = std::move(outer);
  return iter_fn;
}

// closure = { i32 status, i64 min, vars..., buffers... }
llvm::StructType* CodeGenLLVM::parallel_closure_type(const ParallelCaptures& captures) {
  std::vector<llvm::Type*> fields{b_.getInt32Ty(), b_.getInt64Ty()};
  for (auto* v : captures.values) fields.push_back(v->getType());
  for (size_t i = 0; i < captures.buffers.size(); ++i) fields.push_back(b_.getPtrTy());
  return llvm::StructType::get(ctx_, fields);
}

// The function the launcher calls per task: unpacks the closure, runs the iteration min + task, and
// records a failure in the closure.
llvm::Function* CodeGenLLVM::emit_parallel_task(llvm::Function* iteration, llvm::StructType* closure_type,
                                                const std::string& name) {
  auto* task_fn =
      llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), {b_.getInt64Ty(), b_.getPtrTy()}, false),
                             llvm::GlobalValue::InternalLinkage, name, module_.get());
  set_kernel_attributes(task_fn);
  llvm::IRBuilderBase::InsertPointGuard outer_ip(b_);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", task_fn));
  llvm::Value* closure = task_fn->getArg(1);
  llvm::Value* min = b_.CreateLoad(b_.getInt64Ty(), b_.CreateStructGEP(closure_type, closure, 1));
  std::vector<llvm::Value*> call_args{b_.CreateNSWAdd(min, task_fn->getArg(0))};
  for (unsigned i = 2; i < closure_type->getNumElements(); ++i) {
    call_args.push_back(b_.CreateLoad(closure_type->getElementType(i), b_.CreateStructGEP(closure_type, closure, i)));
  }
  llvm::Value* status = b_.CreateCall(iteration, call_args);
  auto* failed = llvm::BasicBlock::Create(ctx_, "failed", task_fn);
  auto* done = llvm::BasicBlock::Create(ctx_, "done", task_fn);
  b_.CreateCondBr(b_.CreateICmpNE(status, b_.getInt32(TF_OK)), failed, done);
  b_.SetInsertPoint(failed);
  // Any failing task's status will do; the store races benignly with other failing tasks.
  b_.CreateStore(status, b_.CreateStructGEP(closure_type, closure, 0))->setAtomic(llvm::AtomicOrdering::Monotonic);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  b_.CreateRetVoid();
  return task_fn;
}

// The closure on the enclosing function's stack, filled: status OK, the loop's min, the captures.
llvm::Value* CodeGenLLVM::emit_closure(const ir::ForNode* n, const ParallelCaptures& captures,
                                       llvm::StructType* closure_type, const std::string& base) {
  llvm::Value* closure;
  {
    llvm::IRBuilder<> ab(fs_.alloca_block, fs_.alloca_block->begin());
    closure = ab.CreateAlloca(closure_type, nullptr, base + ".closure");
  }
  b_.CreateStore(b_.getInt32(TF_OK), b_.CreateStructGEP(closure_type, closure, 0));
  b_.CreateStore(emit(n->min), b_.CreateStructGEP(closure_type, closure, 1));
  for (size_t i = 0; i < captures.values.size(); ++i) {
    b_.CreateStore(captures.values[i], b_.CreateStructGEP(closure_type, closure, static_cast<unsigned>(2 + i)));
  }
  for (size_t i = 0; i < captures.buffers.size(); ++i) {
    b_.CreateStore(buffer_pointer(captures.buffers[i]),
                   b_.CreateStructGEP(closure_type, closure, static_cast<unsigned>(2 + captures.values.size() + i)));
  }
  return closure;
}

// `extent` tasks through the launcher when one is installed, else in order; both join at
// <base>.joined, where the insert point is left.
void CodeGenLLVM::emit_parallel_launch(llvm::Value* extent, llvm::Function* task, llvm::Value* closure,
                                       const std::string& base) {
  llvm::Value* launcher = b_.CreateLoad(b_.getPtrTy(), parallel_for_, "launcher");
  auto* launch = llvm::BasicBlock::Create(ctx_, base + ".launch", fs_.fn);
  auto* serial = llvm::BasicBlock::Create(ctx_, base + ".serial", fs_.fn);
  auto* joined = llvm::BasicBlock::Create(ctx_, base + ".joined", fs_.fn);
  b_.CreateCondBr(b_.CreateIsNotNull(launcher), launch, serial);
  b_.SetInsertPoint(launch);
  emit_launcher_call(launcher, extent, task, closure, base, joined);
  b_.SetInsertPoint(serial);
  emit_tasks_in_order(extent, task, closure, base, joined);
  b_.SetInsertPoint(joined);
}

// The launcher runs the tasks and returns non-zero when it could not: TF_ERR_PARALLEL.
void CodeGenLLVM::emit_launcher_call(llvm::Value* launcher, llvm::Value* extent, llvm::Function* task,
                                     llvm::Value* closure, const std::string& base, llvm::BasicBlock* joined) {
  auto* launcher_type =
      llvm::FunctionType::get(b_.getInt32Ty(), {b_.getInt64Ty(), b_.getPtrTy(), b_.getPtrTy()}, false);
  llvm::Value* launched = b_.CreateCall(launcher_type, launcher, {extent, task, closure});
  auto* launch_ok = llvm::BasicBlock::Create(ctx_, base + ".launched", fs_.fn);
  auto* launch_failed = llvm::BasicBlock::Create(ctx_, base + ".launch_failed", fs_.fn);
  b_.CreateCondBr(b_.CreateICmpEQ(launched, b_.getInt32(0)), launch_ok, launch_failed);
  b_.SetInsertPoint(launch_failed);
  emit_fail(b_.getInt32(TF_ERR_PARALLEL));
  b_.SetInsertPoint(launch_ok);
  b_.CreateBr(joined);
}

// No launcher installed (a host that loaded the module without the runtime): run in order.
void CodeGenLLVM::emit_tasks_in_order(llvm::Value* extent, llvm::Function* task, llvm::Value* closure,
                                      const std::string& base, llvm::BasicBlock* joined) {
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx_, base + ".serial.header", fs_.fn);
  auto* step = llvm::BasicBlock::Create(ctx_, base + ".serial.step", fs_.fn);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* t = b_.CreatePHI(b_.getInt64Ty(), 2, "task");
  t->addIncoming(b_.getInt64(0), pre);
  b_.CreateCondBr(b_.CreateICmpSLT(t, extent), step, joined);
  b_.SetInsertPoint(step);
  b_.CreateCall(task, {t, closure});
  t->addIncoming(b_.CreateNSWAdd(t, b_.getInt64(1)), step);
  b_.CreateBr(header);
}

// Leaves the enclosing function with the status any failing task recorded in the closure.
void CodeGenLLVM::emit_parallel_status_check(llvm::Value* closure, llvm::StructType* closure_type,
                                             const std::string& base) {
  llvm::Value* status = b_.CreateLoad(b_.getInt32Ty(), b_.CreateStructGEP(closure_type, closure, 0));
  auto* ok = llvm::BasicBlock::Create(ctx_, base + ".ok", fs_.fn);
  auto* failed = llvm::BasicBlock::Create(ctx_, base + ".failed", fs_.fn);
  b_.CreateCondBr(b_.CreateICmpEQ(status, b_.getInt32(TF_OK)), ok, failed);
  b_.SetInsertPoint(failed);
  emit_fail(status);
  b_.SetInsertPoint(ok);
}

void CodeGenLLVM::emit_fail(llvm::Value* status) { b_.CreateRet(status); }

void CodeGenLLVM::emit_store(const ir::StoreNode* n) {
  llvm::Value* value = emit(n->value);
  const int lanes = n->value.type().lanes;
  if (lanes == 1) {
    b_.CreateAlignedStore(value, element_address(n->buffer, emit(n->index)),
                          llvm::Align(known_alignment(n->buffer, n->index)));
    return;
  }
  const auto* r = n->index.as<ir::RampNode>();
  if (r && ir::is_one(r->stride)) {
    b_.CreateAlignedStore(value, element_address(n->buffer, emit(r->base)),
                          llvm::Align(known_alignment(n->buffer, r->base)));
    return;
  }
  llvm::Value* addresses = element_address(n->buffer, emit(n->index));
  b_.CreateMaskedScatter(value, addresses, llvm::Align(n->buffer->dtype.bytes()));
}

void CodeGenLLVM::emit_prefetch(const ir::PrefetchNode* n) {
  // Not an inbounds address: a kernel may prefetch past its buffer, which is harmless.
  llvm::Value* address = b_.CreateGEP(llvm_type(n->buffer->dtype), buffer_pointer(n->buffer), emit(n->index));
  // Read, locality 2 (x86 prefetcht1: into L2, where a micro-kernel's next panel waits), data cache.
  b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {address->getType()},
                     {address, b_.getInt32(0), b_.getInt32(2), b_.getInt32(1)});
}

void CodeGenLLVM::emit_allocate(const ir::AllocateNode* n) {
  const ir::Buffer& buf = n->buffer;
  llvm::Type* elem = llvm_type(buf->dtype);
  const int64_t count = std::max<int64_t>(1, buf->num_elements());
  if (buf->scope == ir::MemoryScope::Stack) {
    // In the entry block, so SROA can split it into registers (the accumulators of a micro-kernel).
    llvm::IRBuilder<> ab(fs_.alloca_block, fs_.alloca_block->begin());
    llvm::AllocaInst* a = ab.CreateAlloca(llvm::ArrayType::get(elem, static_cast<uint64_t>(count)), nullptr, buf->name);
    a->setAlignment(llvm::Align(TF_BUFFER_ALIGNMENT));
    fs_.buffers[buf.get()] = a;
    emit(n->body);
    fs_.buffers.erase(buf.get());
    return;
  }
  if (buf->scope != ir::MemoryScope::Heap) fail("buffer '" + buf->name + "' is allocated but is an argument");
  // aligned_alloc wants a size that is a multiple of the alignment.
  const int64_t bytes =
      (count * buf->dtype.bytes() + TF_BUFFER_ALIGNMENT - 1) / TF_BUFFER_ALIGNMENT * TF_BUFFER_ALIGNMENT;
  llvm::FunctionCallee alloc =
      module_->getOrInsertFunction("aligned_alloc", b_.getPtrTy(), b_.getInt64Ty(), b_.getInt64Ty());
  llvm::FunctionCallee release = module_->getOrInsertFunction("free", b_.getVoidTy(), b_.getPtrTy());
  // The loader's allocator when it installed one (runtime/kernel_abi.h), else the C library's.
  llvm::FunctionType* hook_alloc_type = llvm::FunctionType::get(b_.getPtrTy(), {b_.getInt64Ty()}, false);
  llvm::FunctionType* hook_free_type = llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy()}, false);
  llvm::Value* hook_alloc = b_.CreateLoad(b_.getPtrTy(), workspace_alloc_, "workspace_alloc");
  auto* via_hook = llvm::BasicBlock::Create(ctx_, buf->name + ".hook_alloc", fs_.fn);
  auto* via_libc = llvm::BasicBlock::Create(ctx_, buf->name + ".libc_alloc", fs_.fn);
  auto* got = llvm::BasicBlock::Create(ctx_, buf->name + ".got", fs_.fn);
  b_.CreateCondBr(b_.CreateIsNull(hook_alloc), via_libc, via_hook);
  b_.SetInsertPoint(via_hook);
  llvm::Value* p_hook = b_.CreateCall(hook_alloc_type, hook_alloc, {b_.getInt64(bytes)});
  b_.CreateBr(got);
  b_.SetInsertPoint(via_libc);
  llvm::Value* p_libc = b_.CreateCall(alloc, {b_.getInt64(TF_BUFFER_ALIGNMENT), b_.getInt64(bytes)});
  b_.CreateBr(got);
  b_.SetInsertPoint(got);
  llvm::PHINode* p = b_.CreatePHI(b_.getPtrTy(), 2, buf->name);
  p->addIncoming(p_hook, via_hook);
  p->addIncoming(p_libc, via_libc);
  auto* failed = llvm::BasicBlock::Create(ctx_, buf->name + ".alloc_failed", fs_.fn);
  auto* ok = llvm::BasicBlock::Create(ctx_, buf->name + ".allocated", fs_.fn);
  b_.CreateCondBr(b_.CreateIsNull(p), failed, ok, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
  b_.SetInsertPoint(failed);
  emit_fail(b_.getInt32(TF_ERR_ALLOC));
  b_.SetInsertPoint(ok);
  fs_.buffers[buf.get()] = p;
  emit(n->body);
  fs_.buffers.erase(buf.get());
  llvm::Value* hook_free = b_.CreateLoad(b_.getPtrTy(), workspace_free_, "workspace_free");
  auto* free_hook = llvm::BasicBlock::Create(ctx_, buf->name + ".hook_free", fs_.fn);
  auto* free_libc = llvm::BasicBlock::Create(ctx_, buf->name + ".libc_free", fs_.fn);
  auto* freed = llvm::BasicBlock::Create(ctx_, buf->name + ".freed", fs_.fn);
  b_.CreateCondBr(b_.CreateIsNull(hook_free), free_libc, free_hook);
  b_.SetInsertPoint(free_hook);
  b_.CreateCall(hook_free_type, hook_free, {p});
  b_.CreateBr(freed);
  b_.SetInsertPoint(free_libc);
  b_.CreateCall(release, {p});
  b_.CreateBr(freed);
  b_.SetInsertPoint(freed);
}

void CodeGenLLVM::emit_if(const ir::IfThenElseNode* n) {
  llvm::Value* cond = emit(n->cond);
  if (!cond->getType()->isIntegerTy(1)) fail("an if condition must be a scalar bool");
  auto* then_block = llvm::BasicBlock::Create(ctx_, "then", fs_.fn);
  auto* merge = llvm::BasicBlock::Create(ctx_, "endif", fs_.fn);
  auto* else_block = n->else_case ? llvm::BasicBlock::Create(ctx_, "else", fs_.fn) : merge;
  b_.CreateCondBr(cond, then_block, else_block);
  b_.SetInsertPoint(then_block);
  emit(n->then_case);
  b_.CreateBr(merge);
  if (n->else_case) {
    b_.SetInsertPoint(else_block);
    emit(n->else_case);
    b_.CreateBr(merge);
  }
  b_.SetInsertPoint(merge);
}

}  // namespace tf::codegen

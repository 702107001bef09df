#include "compiler/ir/verify.h"

#include <set>
#include <string>

#include "compiler/ir/visitor.h"

namespace tf::ir {
namespace {

class ScopeChecker : public IRVisitor {
 public:
  explicit ScopeChecker(const LoweredFunc& f) : kernel_(f.name) {
    for (const auto& b : f.args) {
      if (b->scope != MemoryScope::Arg) fail("argument '" + b->name + "' is not an Arg buffer");
      buffers_.insert(b.get());
    }
  }

  using IRVisitor::visit;

 protected:
  void visit(const VarNode* n) override {
    if (!vars_.count(n)) fail("variable '" + n->name + "' is read outside the loop or let that binds it");
  }
  void visit(const LoadNode* n) override {
    check_buffer(n->buffer, "loads from");
    IRVisitor::visit(n);
  }
  void visit(const StoreNode* n) override {
    check_buffer(n->buffer, "stores to");
    IRVisitor::visit(n);
  }
  void visit(const PrefetchNode* n) override {
    check_buffer(n->buffer, "prefetches from");
    IRVisitor::visit(n);
  }
  void visit(const TensorLoadNode* n) override {
    fail("a tensor read of '" + n->producer->name() + "' is left unlowered");
  }
  void visit(const ReduceNode*) override { fail("a reduction is left unlowered"); }

  void visit(const ForNode* n) override {
    visit(n->min);
    visit(n->extent);
    in_scope_of(n->var, [&] { visit(n->body); });
  }
  void visit(const LetStmtNode* n) override {
    visit(n->value);
    in_scope_of(n->var, [&] { visit(n->body); });
  }
  void visit(const AllocateNode* n) override {
    if (n->buffer->scope == MemoryScope::Arg) fail("allocates '" + n->buffer->name + "' as an Arg buffer");
    if (!buffers_.insert(n->buffer.get()).second) fail("allocates '" + n->buffer->name + "' inside its own allocation");
    visit(n->body);
    buffers_.erase(n->buffer.get());
  }

 private:
  template <typename Body>
  void in_scope_of(const Var& v, Body body) {
    if (!vars_.insert(v.get()).second) fail("variable '" + v->name + "' is bound again inside its own scope");
    body();
    vars_.erase(v.get());
  }
  void check_buffer(const Buffer& b, const char* access) {
    if (!buffers_.count(b.get()))
      fail(std::string(access) + " '" + b->name + "', which is neither an argument nor allocated around it");
  }
  [[noreturn]] void fail(const std::string& what) const { throw CompileError("kernel " + kernel_ + ": " + what); }

  std::string kernel_;
  std::set<const VarNode*> vars_;
  std::set<const BufferNode*> buffers_;
};

}  // namespace

void verify(const LoweredFunc& f) { ScopeChecker(f).visit(f.body); }

}  // namespace tf::ir

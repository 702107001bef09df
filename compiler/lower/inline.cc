#include "compiler/lower/inline.h"

#include "compiler/ir/mutator.h"
#include "compiler/ir/substitute.h"

namespace tf::lower {
namespace {

class InlineReads : public ir::IRMutator {
 public:
  explicit InlineReads(const schedule::Schedule& s) : s_(s) {}
  using ir::IRMutator::mutate;

 protected:
  using ir::IRMutator::visit;
  ir::Expr visit(const ir::TensorLoadNode* n, const ir::Expr& self) override {
    ir::Expr loaded = ir::IRMutator::visit(n, self);
    const auto* load = loaded.as<ir::TensorLoadNode>();
    const schedule::Stage* st = s_.find(load->producer.get());
    if (!st || st->attach_type() != schedule::AttachType::Inline) return loaded;
    ir::VarMap args;
    for (size_t d = 0; d < st->root_axes().size(); ++d) args[st->root_axes()[d]->var.get()] = load->indices[d];
    // The inlined body may itself read inlined stages.
    return mutate(ir::substitute(st->body(), args));
  }

 private:
  const schedule::Schedule& s_;
};

}  // namespace

std::unordered_map<const schedule::Stage*, ir::Expr> inline_bodies(const schedule::Schedule& s) {
  std::unordered_map<const schedule::Stage*, ir::Expr> bodies;
  InlineReads inliner(s);
  for (const auto& st : s.stages()) {
    if (st->is_placeholder()) continue;
    const ir::Expr& body = st->body();
    if (auto* r = body.as<ir::ReduceNode>()) {
      ir::Expr src = inliner.mutate(r->source);
      bodies[st.get()] = src.same_as(r->source) ? body : ir::make_reduce(r->combiner, src, r->axes);
    } else {
      bodies[st.get()] = inliner.mutate(body);
    }
  }
  return bodies;
}

}  // namespace tf::lower

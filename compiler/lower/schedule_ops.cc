#include "compiler/lower/schedule_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "compiler/ir/mutator.h"
#include "compiler/ir/substitute.h"

namespace tf::lower {

using schedule::AttachType;
using schedule::Stage;

namespace {

// Stack scratch above this size goes to the heap: a tile of accumulators is a few KiB, a packed
// panel is far bigger and would overflow a worker thread's stack.
constexpr int64_t kMaxStackBytes = 64 * 1024;

ir::Expr flatten(const std::vector<ir::Expr>& idx, const std::vector<int64_t>& shape) {
  ir::Expr flat;
  for (size_t d = 0; d < idx.size(); ++d) {
    flat = flat ? flat * ir::make_int(shape[d]) + idx[d] : idx[d];
  }
  return flat;
}

ir::Expr identity_of(ir::ReduceKind k, ir::DataType t) {
  switch (k) {
    case ir::ReduceKind::Sum: return ir::make_const(t, 0);
    case ir::ReduceKind::Max:
      if (t.is_float()) return ir::make_float(-std::numeric_limits<double>::infinity(), t);
      if (t.code == ir::DataType::UInt) return ir::make_int(0, t);
      return ir::make_int(std::numeric_limits<int64_t>::min() >> (64 - t.bits), t);
    case ir::ReduceKind::Min:
      if (t.is_float()) return ir::make_float(std::numeric_limits<double>::infinity(), t);
      if (t.code == ir::DataType::UInt && t.bits < 64) return ir::make_int((int64_t{1} << t.bits) - 1, t);
      return ir::make_int(std::numeric_limits<int64_t>::max() >> (64 - t.bits), t);
    case ir::ReduceKind::Prod: return ir::make_const(t, 1);
  }
  return ir::Expr();
}

ir::Stmt guarded(const std::vector<ir::Expr>& conds, ir::Stmt s) {
  ir::Expr all;
  for (const auto& c : conds) all = all ? ir::logical_and(all, c) : c;
  return all ? ir::make_if(all, s) : s;
}

class NestBuilder {
 public:
  NestBuilder(const schedule::Schedule& s, const std::unordered_map<const Stage*, ir::Expr>& bodies,
              const Bounds& bounds)
      : s_(s), bodies_(bodies), bounds_(bounds) {}

  ir::LoweredFunc build(const std::string& name) {
    ir::LoweredFunc f;
    f.name = name;
    for (const auto& t : s_.inputs()) f.args.push_back(make_arg(*s_.find(t.op().get())));
    for (const auto& t : s_.outputs()) f.args.push_back(make_arg(*s_.find(t.op().get())));
    std::vector<ir::Stmt> program;
    std::vector<ir::Buffer> heap;
    for (const auto& st : s_.stages()) {
      if (st->is_placeholder() || st->attach_type() == AttachType::Inline) continue;
      if (st->attach_type() == AttachType::Scope) {
        attached_[{st->attach_stage(), st->attach_ivar().get()}].push_back(st.get());
        continue;
      }
      if (!st->is_output()) {
        heap.push_back(ir::make_buffer(st->name(), st->op()->dtype(), st->op()->shape(), ir::MemoryScope::Heap));
        buffers_[st->op().get()] = heap.back();
      }
    }
    for (const auto& st : s_.stages()) {
      if (st->is_placeholder() || st->attach_type() != AttachType::Root) continue;
      program.push_back(build_stage(*st));
    }
    ir::Stmt body = ir::make_seq(program);
    for (auto it = heap.rbegin(); it != heap.rend(); ++it) body = ir::make_allocate(*it, body);
    f.body = body;
    return f;
  }

 private:
  ir::Buffer make_arg(const Stage& st) {
    auto buf = ir::make_buffer(st.name(), st.op()->dtype(), st.op()->shape(), ir::MemoryScope::Arg);
    buffers_[st.op().get()] = buf;
    return buf;
  }

  // Tensor reads become loads of the producer's buffer, relative to the region it holds.
  class FlattenReads : public ir::IRMutator {
   public:
    explicit FlattenReads(NestBuilder& b) : b_(b) {}
    using ir::IRMutator::mutate;

   protected:
    using ir::IRMutator::visit;
    ir::Expr visit(const ir::TensorLoadNode* n, const ir::Expr& self) override {
      std::vector<ir::Expr> idx;
      for (const auto& i : n->indices) idx.push_back(mutate(i));
      const Stage* producer = b_.s_.find(n->producer.get());
      auto buf = b_.buffers_.find(n->producer.get());
      if (!producer || buf == b_.buffers_.end()) {
        throw CompileError("lowering: tensor '" + n->producer->name() + "' is read before it is computed");
      }
      const StageDomain* dom = producer->is_placeholder() ? nullptr : &b_.bounds_.at(producer);
      if (dom && producer->attach_type() == AttachType::Scope) {
        for (size_t d = 0; d < idx.size(); ++d) idx[d] = idx[d] - dom->region_min[d];
      }
      return ir::make_load(buf->second, flatten(idx, buf->second->shape));
    }

   private:
    NestBuilder& b_;
  };

  ir::Stmt build_stage(const Stage& st) {
    const StageDomain& dom = bounds_.at(&st);
    const auto& shape = st.op()->shape();
    bool attached = st.attach_type() == AttachType::Scope;
    // Stages computed inside this one need their buffers before this body's reads are flattened.
    for (const auto& [key, producers] : attached_) {
      if (key.first != &st) continue;
      for (const Stage* p : producers) make_region_buffer(*p);
    }
    const ir::Buffer& buf = buffers_.at(st.op().get());
    auto rel = root_values(st, dom);

    ir::VarMap absolute;
    std::vector<ir::Expr> store_idx, dp_guards, all_guards;
    for (size_t d = 0; d < st.root_axes().size(); ++d) {
      const auto& ax = st.root_axes()[d];
      ir::Expr r = rel.at(ax.get());
      ir::Expr abs = ir::is_zero(dom.region_min[d]) ? r : dom.region_min[d] + r;
      absolute[ax->var.get()] = abs;
      store_idx.push_back(attached ? r : abs);
      if (dom.overhang.count(ax.get())) dp_guards.push_back(r < ir::make_int(dom.region_extent[d]));
      int64_t start;
      bool inside = ir::is_const_int(dom.region_min[d], &start) && start + dom.region_extent[d] <= shape[d];
      if (attached && !inside) dp_guards.push_back(abs < ir::make_int(shape[d]));
    }
    all_guards = dp_guards;
    for (const auto& ax : st.reduce_axes()) {
      ir::Expr r = rel.at(ax.get());
      absolute[ax->var.get()] = ax->min == 0 ? r : r + ir::make_int(ax->min);
      if (dom.overhang.count(ax.get())) all_guards.push_back(r < ir::make_int(dom.extent_of(ax)));
    }
    ir::Expr flat = flatten(store_idx, buf->shape);

    FlattenReads reads(*this);
    const ir::Expr& body = bodies_.at(&st);
    const auto* reduce = body.as<ir::ReduceNode>();
    ir::Stmt init, update;
    if (reduce) {
      ir::Expr src = reads.mutate(ir::substitute(reduce->source, absolute));
      update =
          guarded(all_guards, ir::make_store(buf, flat, ir::combine(reduce->combiner, ir::make_load(buf, flat), src)));
      init = guarded(dp_guards, ir::make_store(buf, flat, identity_of(reduce->combiner, body.type())));
    } else {
      update = guarded(all_guards, ir::make_store(buf, flat, reads.mutate(ir::substitute(body, absolute))));
    }

    const auto& leaves = st.leaf_iter_vars();
    size_t first_reduce = leaves.size();
    for (size_t l = 0; l < leaves.size(); ++l) {
      if (leaves[l]->kind == ir::IterKind::Reduce) {
        first_reduce = l;
        break;
      }
    }
    ir::Stmt inner = update;
    if (reduce && first_reduce == leaves.size()) inner = ir::make_seq({init, update});
    check_prefetches(st);
    for (size_t l = leaves.size(); l-- > 0;) {
      inner = place_attached(st, leaves[l], inner);
      inner = place_prefetches(st, leaves[l], inner);
      inner = ir::make_for(leaves[l]->var, ir::make_int(0), ir::make_int(dom.extent_of(leaves[l])),
                           st.for_kind(leaves[l]), inner);
      if (reduce && l == first_reduce) {
        ir::Stmt init_nest = init;
        for (size_t k = leaves.size(); k-- > first_reduce + 1;) {
          if (leaves[k]->kind == ir::IterKind::Reduce) continue;
          init_nest = ir::make_for(leaves[k]->var, ir::make_int(0), ir::make_int(dom.extent_of(leaves[k])),
                                   st.for_kind(leaves[k]), init_nest);
        }
        inner = ir::make_seq({init_nest, inner});
      }
    }
    return inner;
  }

  void check_prefetches(const Stage& st) const {
    const auto& leaves = st.leaf_iter_vars();
    for (const auto& p : st.prefetches()) {
      if (std::find(leaves.begin(), leaves.end(), p.at) == leaves.end()) {
        throw CompileError("lowering: stage '" + st.name() + "' prefetches '" + p.input->name() + "' at loop '" +
                           p.at->var->name + "', which was split or fused afterwards");
      }
    }
  }

  // A stage's prefetches at loop `leaf` run first in that loop's body.
  ir::Stmt place_prefetches(const Stage& st, const ir::IterVar& leaf, ir::Stmt inner) {
    std::vector<ir::Stmt> body;
    for (const auto& p : st.prefetches()) {
      if (p.at != leaf) continue;
      const ir::Buffer& buf = buffers_.at(p.input.get());
      body.push_back(ir::make_prefetch(buf, flatten(p.indices, buf->shape)));
    }
    if (body.empty()) return inner;
    body.push_back(inner);
    return ir::make_seq(body);
  }

  // An attached stage holds only its region: a few KiB of accumulators live on the stack.
  void make_region_buffer(const Stage& st) {
    const StageDomain& dom = bounds_.at(&st);
    int64_t bytes = st.op()->dtype().bytes();
    for (int64_t e : dom.region_extent) bytes *= e;
    buffers_[st.op().get()] = ir::make_buffer(st.name(), st.op()->dtype(), dom.region_extent,
                                              bytes <= kMaxStackBytes ? ir::MemoryScope::Stack : ir::MemoryScope::Heap);
  }

  // Stages computed at `st`'s loop `leaf` run first in that loop's body, in producer order.
  ir::Stmt place_attached(const Stage& st, const ir::IterVar& leaf, ir::Stmt inner) {
    auto it = attached_.find({&st, leaf.get()});
    if (it == attached_.end()) return inner;
    for (auto p = it->second.rbegin(); p != it->second.rend(); ++p) {
      ir::Stmt nest = build_stage(**p);
      inner = ir::make_allocate(buffers_.at((*p)->op().get()), ir::make_seq({nest, inner}));
    }
    return inner;
  }

  const schedule::Schedule& s_;
  const std::unordered_map<const Stage*, ir::Expr>& bodies_;
  const Bounds& bounds_;
  std::unordered_map<const ir::Producer*, ir::Buffer> buffers_;
  std::map<std::pair<const Stage*, const ir::IterVarNode*>, std::vector<const Stage*>> attached_;
};

}  // namespace

ir::LoweredFunc schedule_ops(const schedule::Schedule& s, const std::unordered_map<const Stage*, ir::Expr>& bodies,
                             const Bounds& bounds, const std::string& name) {
  NestBuilder b(s, bodies, bounds);
  return b.build(name);
}

}  // namespace tf::lower

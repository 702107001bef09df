#include "compiler/schedule/schedule.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "compiler/ir/substitute.h"

namespace tf::schedule {

// ---------------------------------------------------------------- Stage

Stage::Stage(Schedule* owner, te::Operation op, bool is_output)
    : owner_(owner), op_(std::move(op)), is_output_(is_output) {
  if (auto* c = dynamic_cast<const te::ComputeOpNode*>(op_.get())) {
    axes_ = c->axis;
    reduce_axes_ = c->reduce_axis;
    body_ = c->body;
    leaves_ = axes_;
    leaves_.insert(leaves_.end(), reduce_axes_.begin(), reduce_axes_.end());
  }
}

void Stage::fail(const std::string& what) const { throw CompileError("stage '" + name() + "': " + what); }

IterVar Stage::axis(size_t i) const {
  if (i >= axes_.size()) fail("has " + std::to_string(axes_.size()) + " axes, asked for axis " + std::to_string(i));
  return axes_[i];
}

IterVar Stage::reduce_axis(size_t i) const {
  if (i >= reduce_axes_.size()) {
    fail("has " + std::to_string(reduce_axes_.size()) + " reduction axes, asked for " + std::to_string(i));
  }
  return reduce_axes_[i];
}

size_t Stage::leaf_index(const IterVar& iv, const char* primitive) const {
  if (is_placeholder()) fail(std::string(primitive) + ": an input has no loops to schedule");
  if (!iv) fail(std::string(primitive) + ": null axis");
  auto it = std::find(leaves_.begin(), leaves_.end(), iv);
  if (it == leaves_.end()) {
    fail(std::string(primitive) + ": axis '" + iv->var->name +
         "' is not a loop of this stage (already split or fused, or another stage's axis)");
  }
  return static_cast<size_t>(it - leaves_.begin());
}

bool Stage::is_reduce(const IterVar& iv) const { return iv->kind == ir::IterKind::Reduce; }

std::pair<IterVar, IterVar> Stage::split(const IterVar& parent, int64_t factor) {
  size_t pos = leaf_index(parent, "split");
  if (factor < 1)
    fail("split: factor " + std::to_string(factor) + " for axis '" + parent->var->name + "' must be >= 1");
  int64_t outer_extent = (parent->extent + factor - 1) / factor;
  IterVar outer = ir::make_iter_var(parent->var->name + ".outer", 0, outer_extent, parent->kind);
  IterVar inner = ir::make_iter_var(parent->var->name + ".inner", 0, factor, parent->kind);
  relations_.push_back({Relation::Split, {parent, outer, inner, factor}, {}});
  leaves_[pos] = outer;
  leaves_.insert(leaves_.begin() + static_cast<long>(pos) + 1, inner);
  return {outer, inner};
}

std::pair<IterVar, IterVar> Stage::split_nparts(const IterVar& parent, int64_t nparts) {
  leaf_index(parent, "split");
  if (nparts < 1)
    fail("split: nparts " + std::to_string(nparts) + " for axis '" + parent->var->name + "' must be >= 1");
  return split(parent, (parent->extent + nparts - 1) / nparts);
}

std::array<IterVar, 4> Stage::tile(const IterVar& x, const IterVar& y, int64_t x_factor, int64_t y_factor) {
  auto [xo, xi] = split(x, x_factor);
  auto [yo, yi] = split(y, y_factor);
  reorder({xo, yo, xi, yi});
  return {xo, yo, xi, yi};
}

void Stage::reorder(const std::vector<IterVar>& order) {
  std::vector<size_t> positions;
  std::unordered_set<const ir::IterVarNode*> seen;
  for (const auto& iv : order) {
    positions.push_back(leaf_index(iv, "reorder"));
    if (!seen.insert(iv.get()).second) fail("reorder: axis '" + iv->var->name + "' is named twice");
  }
  std::vector<size_t> slots = positions;
  std::sort(slots.begin(), slots.end());
  std::vector<IterVar> next = leaves_;
  for (size_t i = 0; i < order.size(); ++i) next[slots[i]] = order[i];
  leaves_ = std::move(next);
}

IterVar Stage::fuse(const IterVar& outer, const IterVar& inner) {
  size_t po = leaf_index(outer, "fuse"), pi = leaf_index(inner, "fuse");
  if (pi != po + 1) {
    fail("fuse: '" + outer->var->name + "' and '" + inner->var->name + "' must be adjacent loops, outer first");
  }
  if (is_reduce(outer) != is_reduce(inner)) {
    fail("fuse: cannot fuse data-parallel and reduction axes ('" + outer->var->name + "', '" + inner->var->name + "')");
  }
  IterVar fused = ir::make_iter_var(outer->var->name + "." + inner->var->name + ".fused", 0,
                                    outer->extent * inner->extent, outer->kind);
  relations_.push_back({Relation::Fuse, {}, {outer, inner, fused}});
  leaves_[po] = fused;
  leaves_.erase(leaves_.begin() + static_cast<long>(pi));
  // Stages computed at the inner loop now run once per fused iteration, the same place.
  for (auto& st : owner_->stages_) {
    if (st->attach_stage_ == this && (st->attach_ivar_ == inner || st->attach_ivar_ == outer)) {
      if (st->attach_ivar_ == outer) {
        fail("fuse: stage '" + st->name() + "' is computed at '" + outer->var->name +
             "'; fusing it with an inner loop would change what that stage computes per iteration");
      }
      st->attach_ivar_ = fused;
    }
  }
  return fused;
}

void Stage::set_kind(const IterVar& iv, ForKind kind, const char* primitive) {
  leaf_index(iv, primitive);
  for (auto& [v, k] : kinds_) {
    if (v == iv) {
      k = kind;
      return;
    }
  }
  kinds_.emplace_back(iv, kind);
}

void Stage::vectorize(const IterVar& iv) {
  leaf_index(iv, "vectorize");
  if (is_reduce(iv)) {
    fail("vectorize: axis '" + iv->var->name + "' is a reduction axis; vectorizing it would race on the accumulator");
  }
  set_kind(iv, ForKind::Vectorized, "vectorize");
}

void Stage::parallel(const IterVar& iv) {
  leaf_index(iv, "parallel");
  if (is_reduce(iv)) fail("parallel: axis '" + iv->var->name + "' is a reduction axis; threads would race on it");
  set_kind(iv, ForKind::Parallel, "parallel");
}

void Stage::unroll(const IterVar& iv) { set_kind(iv, ForKind::Unrolled, "unroll"); }

void Stage::prefetch(const Tensor& t, const IterVar& iv, std::vector<ir::Expr> indices) {
  leaf_index(iv, "prefetch");
  if (!t.op() || !t.op()->is_placeholder()) fail("prefetch: only an input of the kernel can be prefetched");
  if (indices.size() != t.shape().size()) {
    fail("prefetch: " + std::to_string(indices.size()) + " indices for the " + std::to_string(t.shape().size()) +
         "-d input '" + t.op()->name() + "'");
  }
  for (const auto& i : indices) {
    if (!i || !i.type().is_int() || !i.type().is_scalar())
      fail("prefetch: an index of '" + t.op()->name() + "' is not a scalar integer");
  }
  const ForKind k = for_kind(iv);
  if (k == ForKind::Vectorized || k == ForKind::Parallel) {
    fail("prefetch: loop '" + iv->var->name + "' is " + (k == ForKind::Vectorized ? "vectorized" : "parallel") +
         "; prefetch at a serial or unrolled loop");
  }
  prefetches_.push_back({iv, t.op(), std::move(indices)});
}

ForKind Stage::for_kind(const IterVar& iv) const {
  for (const auto& [v, k] : kinds_) {
    if (v == iv) return k;
  }
  return ForKind::Serial;
}

void Stage::compute_at(Stage& parent, const IterVar& iv) {
  if (is_placeholder()) fail("compute_at: an input is not computed");
  if (is_output_) fail("compute_at: an output is computed at its root");
  if (&parent == this) fail("compute_at: a stage cannot be computed inside itself");
  if (!iv) fail("compute_at: null axis");
  auto it = std::find(parent.leaves_.begin(), parent.leaves_.end(), iv);
  if (it == parent.leaves_.end()) {
    fail("compute_at: stage '" + parent.name() + "' has no loop '" + iv->var->name + "'");
  }
  // Every reader must run inside `parent`: `parent` itself, or a stage already computed inside it
  // (an input transform feeding a GEMM tile that the output stage computes at its channel loop).
  const auto consumers = owner_->consumers_of(op_.get());
  if (std::none_of(consumers.begin(), consumers.end(), [&](const Stage* c) { return c->nested_in(parent); })) {
    fail("compute_at: stage '" + parent.name() + "' does not read '" + name() + "', nor computes a stage that does");
  }
  for (const Stage* c : consumers) {
    if (!c->nested_in(parent)) {
      fail("compute_at: '" + c->name() + "' also reads it, outside '" + parent.name() + "''s loop '" + iv->var->name +
           "'");
    }
  }
  attach_type_ = AttachType::Scope;
  attach_stage_ = &parent;
  attach_ivar_ = iv;
}

bool Stage::nested_in(const Stage& outer) const {
  for (const Stage* s = this; s; s = s->attach_type_ == AttachType::Scope ? s->attach_stage_ : nullptr) {
    if (s == &outer) return true;
  }
  return false;
}

void Stage::compute_inline() {
  if (is_placeholder()) fail("compute_inline: an input cannot be inlined");
  if (is_output_) fail("compute_inline: an output must be computed, not inlined");
  if (!reduce_axes_.empty()) fail("compute_inline: a reduction cannot be inlined into its consumers");
  attach_type_ = AttachType::Inline;
  attach_stage_ = nullptr;
  attach_ivar_ = nullptr;
}

// ---------------------------------------------------------------- Schedule

Schedule::Schedule(std::vector<Tensor> outputs) : outputs_(std::move(outputs)) {
  std::unordered_set<const te::OperationNode*> visited;
  std::function<void(const te::Operation&, bool)> visit = [&](const te::Operation& op, bool is_output) {
    if (!visited.insert(op.get()).second) return;
    if (auto* c = dynamic_cast<const te::ComputeOpNode*>(op.get())) {
      for (const auto& in : te::read_operations(c->body)) visit(in, false);
    }
    stages_.push_back(std::unique_ptr<Stage>(new Stage(this, op, is_output)));
  };
  for (const auto& t : outputs_) {
    if (!t.op()) throw CompileError("schedule: an output tensor is undefined");
    if (t.op()->is_placeholder()) throw CompileError("schedule: output '" + t.name() + "' is an input");
    visit(t.op(), true);
  }
}

Stage& Schedule::operator[](const Tensor& t) { return (*this)[t.op().get()]; }

Stage& Schedule::operator[](const te::OperationNode* op) {
  for (auto& s : stages_) {
    if (s->op_.get() == op) return *s;
  }
  throw CompileError("schedule: tensor '" + (op ? op->name() : std::string("?")) + "' is not part of this schedule");
}

const Stage* Schedule::find(const ir::Producer* p) const {
  for (const auto& s : stages_) {
    if (s->op_.get() == p) return s.get();
  }
  return nullptr;
}

std::vector<const Stage*> Schedule::consumers_of(const te::OperationNode* op) const {
  std::vector<const Stage*> out;
  for (const auto& s : stages_) {
    for (const auto& r : s->reads()) {
      if (r.get() == op) {
        out.push_back(s.get());
        break;
      }
    }
  }
  return out;
}

std::vector<Tensor> Schedule::inputs() const {
  if (!input_order_.empty()) return input_order_;
  std::vector<Tensor> in;
  for (const auto& s : stages_) {
    if (s->is_placeholder()) in.emplace_back(s->op_);
  }
  return in;
}

void Schedule::set_input_order(std::vector<Tensor> inputs) {
  std::vector<Tensor> read = this->inputs();
  for (const auto& t : inputs) {
    auto it = std::find_if(read.begin(), read.end(), [&](const Tensor& r) { return r.op() == t.op(); });
    if (it == read.end()) throw CompileError("schedule: input '" + t.name() + "' is not read, or named twice");
    read.erase(it);
  }
  if (!read.empty())
    throw CompileError("schedule: input '" + read.front().name() + "' is read but has no place among the arguments");
  input_order_ = std::move(inputs);
}

Tensor Schedule::cache_write(const Tensor& t) {
  Stage& st = (*this)[t];
  if (st.is_placeholder()) st.fail("cache_write: an input is not computed");
  if (st.attach_type_ != AttachType::Root || !st.relations_.empty()) {
    st.fail("cache_write: call it before splitting, fusing or placing the stage");
  }
  // The local stage computes exactly what the stage did, on fresh axes of its own.
  ir::VarMap remap;
  std::vector<IterVar> axes, reduce;
  for (const auto& a : st.axes_) {
    axes.push_back(ir::make_iter_var(a->var->name + ".c", a->min, a->extent, a->kind));
    remap[a->var.get()] = ir::to_expr(axes.back()->var);
  }
  for (const auto& a : st.reduce_axes_) {
    reduce.push_back(ir::make_iter_var(a->var->name, a->min, a->extent, a->kind));
    remap[a->var.get()] = ir::to_expr(reduce.back()->var);
  }
  ir::Expr body = st.body_;
  if (auto* r = body.as<ir::ReduceNode>()) {
    body = ir::make_reduce(r->combiner, ir::substitute(r->source, remap), reduce);
  } else {
    body = ir::substitute(body, remap);
  }
  auto local_op = std::make_shared<const te::ComputeOpNode>(st.name() + ".local", axes, reduce, body);
  Tensor local(local_op);

  // The original stage now copies the local result, on new axes.
  std::vector<IterVar> copy_axes;
  std::vector<ir::Expr> idx;
  for (const auto& a : st.axes_) {
    copy_axes.push_back(ir::make_iter_var(a->var->name, a->min, a->extent, a->kind));
    idx.push_back(ir::to_expr(copy_axes.back()->var));
  }
  st.axes_ = copy_axes;
  st.reduce_axes_.clear();
  st.body_ = local(idx);
  st.leaves_ = copy_axes;
  st.kinds_.clear();

  auto pos = std::find_if(stages_.begin(), stages_.end(), [&](const auto& s) { return s.get() == &st; });
  stages_.insert(pos, std::unique_ptr<Stage>(new Stage(this, local_op, false)));
  return local;
}

}  // namespace tf::schedule

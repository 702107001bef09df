#include "tuner/access_features.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "compiler/analysis/interval.h"
#include "compiler/analysis/structural_equal.h"
#include "compiler/ir/substitute.h"
#include "compiler/ir/visitor.h"

namespace tf::tuner {

float log2p(double v) { return static_cast<float>(std::log2(1.0 + std::max(0.0, v))); }

namespace {

int64_t const_extent(const ir::ForNode* loop) {
  int64_t e = 1;
  // A loop whose extent is not a constant (a ragged edge) counts once: its range is unknown here.
  if (!ir::is_const_int(loop->extent, &e)) e = 1;
  return std::max<int64_t>(e, 1);
}

int lanes_of(const ir::Expr& index) { return std::max(1, static_cast<int>(index.type().lanes)); }

// Serial and parallel loops are the levels of the nest; unrolled and vectorized loops are the body
// of an iteration (in the rolled nest the features read, they are still loops).
bool is_level(const ir::ForNode* loop) {
  return loop->for_kind == ir::ForKind::Serial || loop->for_kind == ir::ForKind::Parallel;
}

// The innermost loop doing the most work (trips x statements), and the loops around it.
class HottestLoop : public ir::IRVisitor {
 public:
  std::vector<const ir::ForNode*> chain;  // outermost first; empty when the kernel has no loop
  using ir::IRVisitor::visit;

 protected:
  void visit(const ir::ForNode* n) override {
    if (!is_level(n)) {
      body_trips_.push_back(body_trips() * static_cast<double>(const_extent(n)));
      ir::IRVisitor::visit(n);
      body_trips_.pop_back();
      return;
    }
    stack_.push_back(n);
    const size_t before = innermost_seen_;
    const double stores_before = stores_;
    ir::IRVisitor::visit(n);
    if (innermost_seen_ == before) {  // no level inside: an innermost loop
      ++innermost_seen_;
      double trips = 1;
      for (const auto* l : stack_) trips *= static_cast<double>(const_extent(l));
      const double work = trips * (stores_ - stores_before);
      if (work > best_work_) {
        best_work_ = work;
        chain = stack_;
      }
    }
    stack_.pop_back();
  }
  void visit(const ir::StoreNode* n) override {
    stores_ += body_trips();
    ir::IRVisitor::visit(n);
  }

 private:
  double body_trips() const { return body_trips_.empty() ? 1.0 : body_trips_.back(); }
  std::vector<const ir::ForNode*> stack_;
  std::vector<double> body_trips_;  // of the unrolled and vectorized loops around a statement
  size_t innermost_seen_ = 0;
  double stores_ = 0, best_work_ = -1;
};

struct BufferUse {
  double lo = 1e300, hi = -1e300;
  bool span_known = true;
  double distinct = 0;  // upper bound on distinct elements: per access, the extents its index varies over
  double accessed = 0;  // elements accessed, counting repeats
  const ir::BufferNode* buffer = nullptr;
};

// Every access inside one run of a loop: which buffer, over which range, how often.
class AccessCollector : public ir::IRVisitor {
 public:
  std::map<const ir::BufferNode*, BufferUse> uses;
  using ir::IRVisitor::visit;

  void run(const ir::ForNode* loop) { visit(loop); }

 protected:
  void visit(const ir::ForNode* n) override {
    int64_t lo = 0;
    ir::is_const_int(n->min, &lo);
    const int64_t ext = const_extent(n);
    env_[n->var.get()] = analysis::Interval::range(lo, lo + ext - 1);
    extents_[n->var.get()] = static_cast<double>(ext);
    trips_.push_back((trips_.empty() ? 1.0 : trips_.back()) * static_cast<double>(ext));
    ir::IRVisitor::visit(n);
    trips_.pop_back();
  }
  void visit(const ir::LoadNode* n) override {
    record(n->buffer, n->index);
    ir::IRVisitor::visit(n);
  }
  void visit(const ir::StoreNode* n) override {
    record(n->buffer, n->index);
    ir::IRVisitor::visit(n);
  }

 private:
  void record(const ir::Buffer& buffer, const ir::Expr& index) {
    BufferUse& u = uses[buffer.get()];
    u.buffer = buffer.get();
    const double lanes = lanes_of(index);
    u.accessed += (trips_.empty() ? 1.0 : trips_.back()) * lanes;
    const auto used = ir::vars_used(index);
    double distinct = lanes;
    for (const auto* v : used) {
      auto it = extents_.find(v);
      if (it != extents_.end()) distinct *= it->second;
      // A variable of a loop outside the one described is fixed during its run; any one value
      // gives the span, 0 is the first.
      env_.emplace(v, analysis::Interval::range(0, 0));
    }
    u.distinct += distinct;
    if (auto s = analysis::const_range(index, env_)) {
      u.lo = std::min(u.lo, static_cast<double>(s->lo));
      u.hi = std::max(u.hi, static_cast<double>(s->hi));
    } else {
      u.span_known = false;
    }
  }

  analysis::IntervalEnv env_;
  std::unordered_map<const ir::VarNode*, double> extents_;
  std::vector<double> trips_;
};

// Instructions in one iteration of the hottest loop, its unrolled and vectorized loops expanded as
// code generation will: float arithmetic (a vector operation counts once), and distinct accesses to
// memory other than a stack (register-tile) buffer, as an access that does not vary with an
// unrolled loop is loaded once for all its copies.
class IterationMix : public ir::IRVisitor {
 public:
  double float_ops = 0;
  double memory_ops() const {
    double n = 0;
    for (const auto& a : accesses_) n += a.copies;
    return n;
  }
  using ir::IRVisitor::visit;

 protected:
  void visit(const ir::ForNode* n) override {
    loops_.push_back(n);
    ir::IRVisitor::visit(n);
    loops_.pop_back();
  }
  void visit(const ir::BinaryNode* n) override {
    if (n->type.is_float()) {
      double copies = 1;
      for (const auto* l : loops_) {
        if (l->for_kind != ir::ForKind::Vectorized) copies *= static_cast<double>(const_extent(l));
      }
      float_ops += copies;
    }
    ir::IRVisitor::visit(n);
  }
  void visit(const ir::LoadNode* n) override {
    access(n->buffer.get(), n->index);
    ir::IRVisitor::visit(n);
  }
  void visit(const ir::StoreNode* n) override {
    access(n->buffer.get(), n->index);
    ir::IRVisitor::visit(n);
  }

 private:
  struct Access {
    const ir::BufferNode* buffer;
    ir::Expr index;
    double copies;
  };
  void access(const ir::BufferNode* buffer, const ir::Expr& index) {
    if (buffer->scope == ir::MemoryScope::Stack) return;
    for (const auto& a : accesses_) {
      if (a.buffer == buffer && analysis::structurally_equal(a.index, index)) return;
    }
    const auto used = ir::vars_used(index);
    double copies = 1;
    for (const auto* l : loops_) {
      if (l->for_kind != ir::ForKind::Vectorized && used.count(l->var.get()))
        copies *= static_cast<double>(const_extent(l));
    }
    accesses_.push_back({buffer, index, copies});
  }
  std::vector<const ir::ForNode*> loops_;  // inside the hottest loop
  std::vector<Access> accesses_;
};

constexpr int kPerLevel = 4 + 2 * kAccessBuffersPerLevel;

}  // namespace

int access_feature_count() { return kAccessLevels * kPerLevel + 3; }

std::vector<float> access_features(const ir::LoweredFunc& func) {
  std::vector<float> f(static_cast<size_t>(access_feature_count()), 0.0f);
  HottestLoop hot;
  hot.visit(func.body);
  for (int level = 0; level < kAccessLevels && level < static_cast<int>(hot.chain.size()); ++level) {
    const ir::ForNode* loop = hot.chain[hot.chain.size() - 1 - static_cast<size_t>(level)];
    AccessCollector c;
    c.run(loop);
    double memory_bytes = 0, stack_bytes = 0;
    std::vector<std::pair<double, double>> buffers;  // bytes, reuse
    for (const auto& [node, u] : c.uses) {
      double elems = u.distinct;
      if (u.span_known && u.hi >= u.lo) elems = std::min(elems, u.hi - u.lo + 1);
      elems = std::max(elems, 1.0);
      const double bytes = elems * u.buffer->dtype.bytes();
      if (u.buffer->scope == ir::MemoryScope::Stack) {
        stack_bytes += bytes;
      } else {
        memory_bytes += bytes;
        buffers.emplace_back(bytes, u.accessed / elems);
      }
    }
    // Buffers of equal footprint by reuse: `uses` is keyed by address, so without the tie-break
    // their order (and the features) would change from one process to the next.
    std::sort(buffers.begin(), buffers.end(), [](const auto& a, const auto& b) { return a > b; });
    float* out = f.data() + static_cast<size_t>(level) * kPerLevel;
    out[0] = log2p(static_cast<double>(const_extent(loop)));
    out[1] = loop->for_kind == ir::ForKind::Parallel ? 1.0f : 0.0f;
    out[2] = log2p(memory_bytes);
    out[3] = log2p(stack_bytes);
    for (int b = 0; b < kAccessBuffersPerLevel && b < static_cast<int>(buffers.size()); ++b) {
      out[4 + 2 * b] = log2p(buffers[static_cast<size_t>(b)].first);
      out[5 + 2 * b] = log2p(buffers[static_cast<size_t>(b)].second);
    }
  }
  if (!hot.chain.empty()) {
    IterationMix mix;
    mix.visit(hot.chain.back()->body);
    float* out = f.data() + static_cast<size_t>(kAccessLevels) * kPerLevel;
    out[0] = log2p(mix.float_ops);
    out[1] = log2p(mix.memory_ops());
    out[2] = static_cast<float>(mix.float_ops / std::max(1.0, mix.memory_ops()));
  }
  return f;
}

}  // namespace tf::tuner

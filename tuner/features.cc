#include "tuner/features.h"

#include <cmath>

#include "compiler/ir/visitor.h"
#include "tuner/access_features.h"

namespace tf::tuner {
namespace {

// Reads the rolled nest (lower::LowerStage::Rolled): unrolled and vectorized loops are still loops,
// counted as the copies and vector lanes code generation will make of them.
class NestSummary : public ir::IRVisitor {
 public:
  double vector_lanes_stored = 0, scalar_stores = 0, loads = 0, guards = 0, stack_bytes = 0, heap_bytes = 0;
  double parallel_extent = 0, innermost_extent_sum = 0, innermost_loops = 0, statements = 0;
  double selects = 0, float_ops = 0;  // executed, one per lane (a vectorized loop's lanes are its trips)
  int max_depth = 0;
  double max_lanes = 1;

  using ir::IRVisitor::visit;

 protected:
  void visit(const ir::ForNode* n) override {
    int64_t ext = 1;
    ir::is_const_int(n->extent, &ext);
    ext = std::max<int64_t>(ext, 1);
    trips_.push_back(trip() * static_cast<double>(ext));
    if (n->for_kind == ir::ForKind::Vectorized || n->for_kind == ir::ForKind::Unrolled) {
      const bool vector = n->for_kind == ir::ForKind::Vectorized;
      if (vector) max_lanes = std::max(max_lanes, static_cast<double>(ext));
      (vector ? lanes_ : copies_).push_back((vector ? lanes() : copies()) * static_cast<double>(ext));
      ir::IRVisitor::visit(n);
      (vector ? lanes_ : copies_).pop_back();
      trips_.pop_back();
      return;
    }
    if (n->for_kind == ir::ForKind::Parallel) parallel_extent = std::max(parallel_extent, static_cast<double>(ext));
    ++depth_;
    max_depth = std::max(max_depth, depth_);
    const double inner_before = innermost_loops;
    ir::IRVisitor::visit(n);
    if (innermost_loops == inner_before) {  // no serial or parallel loop inside: innermost
      innermost_extent_sum += static_cast<double>(ext);
      ++innermost_loops;
    }
    --depth_;
    trips_.pop_back();
  }
  void visit(const ir::StoreNode* n) override {
    statements += copies();
    if (lanes() > 1) {
      vector_lanes_stored += trip();
    } else {
      scalar_stores += trip();
    }
    ir::IRVisitor::visit(n);
  }
  void visit(const ir::LoadNode* n) override {
    loads += trip();
    ir::IRVisitor::visit(n);
  }
  void visit(const ir::SelectNode* n) override {
    selects += trip();
    ir::IRVisitor::visit(n);
  }
  void visit(const ir::BinaryNode* n) override {
    if (n->type.is_float()) float_ops += trip();
    ir::IRVisitor::visit(n);
  }
  void visit(const ir::IfThenElseNode* n) override {
    guards += trip();
    ir::IRVisitor::visit(n);
  }
  void visit(const ir::AllocateNode* n) override {
    const double bytes = static_cast<double>(n->buffer->num_elements()) * n->buffer->dtype.bytes();
    if (n->buffer->scope == ir::MemoryScope::Stack) stack_bytes = std::max(stack_bytes, bytes);
    if (n->buffer->scope == ir::MemoryScope::Heap) heap_bytes += bytes;
    ir::IRVisitor::visit(n);
  }

 private:
  double trip() const { return trips_.empty() ? 1.0 : trips_.back(); }
  double lanes() const { return lanes_.empty() ? 1.0 : lanes_.back(); }
  double copies() const { return copies_.empty() ? 1.0 : copies_.back(); }
  std::vector<double> trips_, lanes_, copies_;
  int depth_ = 0;
};

}  // namespace

std::vector<float> knob_features(const space::Config& cfg) {
  std::vector<float> f;
  const Json v = cfg.to_json();
  for (const auto& [name, value] : v.items()) {
    if (value.is_boolean()) {
      f.push_back(value.get<bool>() ? 1.0f : 0.0f);
    } else if (value.is_number_integer()) {
      f.push_back(log2p(static_cast<double>(value.get<int64_t>())));
    } else {
      f.push_back(0.0f);
    }
  }
  // Choice positions too: they order strings ("mn" < "nm") and keep ties between equal values apart.
  for (size_t c : cfg.choices()) f.push_back(static_cast<float>(c));
  return f;
}

constexpr size_t kLoopNestFeatures = 12;
constexpr size_t kWorkFeatures = 4;

namespace {

std::vector<float> summary_features(const NestSummary& s) {
  const double total = s.vector_lanes_stored + s.scalar_stores;
  return {log2p(s.vector_lanes_stored),
          log2p(s.scalar_stores),
          static_cast<float>(total > 0 ? s.vector_lanes_stored / total : 0),
          log2p(s.max_lanes),
          static_cast<float>(total > 0 ? s.loads / total : 0),
          log2p(s.guards),
          log2p(s.stack_bytes),
          log2p(s.heap_bytes),
          log2p(s.parallel_extent),
          log2p(s.innermost_loops > 0 ? s.innermost_extent_sum / s.innermost_loops : 0),
          static_cast<float>(s.max_depth),
          log2p(s.statements)};
}

// The work the kernel does against the work the operator needs: redundant arithmetic (tiles past a
// ragged edge computed and thrown away), guarded reads (padding read through a select), and loads
// per operation, all relative, so they mean the same on every shape.
std::vector<float> work_features(const NestSummary& s, double op_flops) {
  const double flops = std::max(1.0, s.float_ops);
  return {static_cast<float>(s.float_ops / std::max(1.0, op_flops)), static_cast<float>(s.selects / flops),
          log2p(s.selects), static_cast<float>(s.loads / flops)};
}

}  // namespace

std::vector<float> loop_nest_features(const ir::LoweredFunc& func) {
  NestSummary s;
  s.visit(func.body);
  return summary_features(s);
}

std::string feature_set_name(FeatureSet set) {
  switch (set) {
    case FeatureSet::Knobs: return "v1 knobs";
    case FeatureSet::LoopNest: return "v2 knobs + loop nest + footprints";
    case FeatureSet::Program: return "v3 program only (loop nest, footprints, work)";
  }
  return "v" + std::to_string(static_cast<int64_t>(set));
}

std::vector<FeatureSet> all_feature_sets() { return {FeatureSet::Knobs, FeatureSet::LoopNest, FeatureSet::Program}; }

std::vector<float> candidate_features(const compiler::Task& task, const space::Config& cfg, FeatureSet set) {
  std::vector<float> f = set == FeatureSet::Program ? std::vector<float>{} : knob_features(cfg);
  if (set == FeatureSet::Knobs) return f;
  const size_t width = f.size() + kLoopNestFeatures + static_cast<size_t>(access_feature_count()) +
                       (set == FeatureSet::Program ? kWorkFeatures : 0);
  try {
    const ir::LoweredFunc func = task.lower(cfg, lower::LowerStage::Rolled);
    NestSummary s;
    s.visit(func.body);
    const std::vector<float> nest = summary_features(s), access = access_features(func);
    f.insert(f.end(), nest.begin(), nest.end());
    f.insert(f.end(), access.begin(), access.end());
    if (set == FeatureSet::Program) {
      const std::vector<float> work = work_features(s, static_cast<double>(task.op().flops(task.workload().shape)));
      f.insert(f.end(), work.begin(), work.end());
    }
  } catch (const std::exception&) {
    f.assign(width, 0.0f);
    if (set != FeatureSet::Program) {
      const std::vector<float> knobs = knob_features(cfg);
      std::copy(knobs.begin(), knobs.end(), f.begin());
    }
  }
  return f;
}

}  // namespace tf::tuner

// Schedules: how the loops of each stage run, without changing what is computed.
//
//   Schedule s({C});
//   Tensor CC = s.cache_write(C);                 // accumulate in a local tile, write back once
//   auto [mo, no, mi, ni] = s[C].tile(s[C].axis(0), s[C].axis(1), 6, 16);
//   s[CC].compute_at(s[C], no);
//   s[C].vectorize(ni);
//
// Every primitive checks its arguments when called and throws tf::CompileError naming the stage and
// the axis, so an illegal schedule never reaches lowering.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/te/tensor.h"

namespace tf::schedule {

using ir::ForKind;
using ir::IterVar;
using te::Tensor;

// parent = outer * factor + inner. The inner extent is `factor`; the outer extent is rounded up, and
// lowering guards the overhang when factor does not divide the parent's extent.
struct SplitRelation {
  IterVar parent, outer, inner;
  int64_t factor;
};

// fused iterates outer x inner: outer = fused / extent(inner), inner = fused % extent(inner).
struct FuseRelation {
  IterVar outer, inner, fused;
};

struct Relation {
  enum Kind { Split, Fuse } kind;
  SplitRelation split;
  FuseRelation fuse;
};

enum class AttachType { Root, Inline, Scope };

class Schedule;

class Stage {
 public:
  // The operation consumers read (identity for TensorLoads); after cache_write its body changes.
  const te::Operation& op() const { return op_; }
  const std::string& name() const { return op_->name(); }
  bool is_placeholder() const { return op_->is_placeholder(); }
  bool is_output() const { return is_output_; }

  // What the stage computes: root axes, reduction axes and body (a Reduce for a reduction).
  IterVar axis(size_t i) const;
  IterVar reduce_axis(size_t i) const;
  const std::vector<IterVar>& root_axes() const { return axes_; }
  const std::vector<IterVar>& reduce_axes() const { return reduce_axes_; }
  const ir::Expr& body() const { return body_; }

  std::pair<IterVar, IterVar> split(const IterVar& parent, int64_t factor);
  std::pair<IterVar, IterVar> split_nparts(const IterVar& parent, int64_t nparts);
  // {x.outer, y.outer, x.inner, y.inner}, in that loop order.
  std::array<IterVar, 4> tile(const IterVar& x, const IterVar& y, int64_t x_factor, int64_t y_factor);
  // Puts the named leaves in this order, in the positions they occupy now.
  void reorder(const std::vector<IterVar>& order);
  // outer and inner must be adjacent leaves, outer first, both data-parallel or both reduction.
  IterVar fuse(const IterVar& outer, const IterVar& inner);
  void vectorize(const IterVar& iv);
  void parallel(const IterVar& iv);
  void unroll(const IterVar& iv);
  // Computes this stage inside `parent`'s loop `iv`, only the region that iteration reads. Every
  // stage reading this one must be `parent` or already computed inside it (compute_at'd there, at
  // `iv` or a loop inside it, directly or through other attached stages).
  void compute_at(Stage& parent, const IterVar& iv);
  // This stage is `outer` or is computed inside it (through a chain of compute_at).
  bool nested_in(const Stage& outer) const;
  // Substitutes this stage's body into its consumers; it gets no loops or memory of its own.
  void compute_inline();
  // At the start of each iteration of leaf `iv`, asks for the cache line holding input `t`'s element
  // at `indices`, so that what a later iteration reads is on its way before it is needed (a panel a
  // micro-kernel streams from memory). The indices may use the variables of `iv` and of the loops
  // around it; an element past `t` is harmless. Computes nothing.
  void prefetch(const Tensor& t, const IterVar& iv, std::vector<ir::Expr> indices);

  // For lowering.
  const std::vector<IterVar>& leaf_iter_vars() const { return leaves_; }
  const std::vector<Relation>& relations() const { return relations_; }
  ForKind for_kind(const IterVar& iv) const;
  AttachType attach_type() const { return attach_type_; }
  const Stage* attach_stage() const { return attach_stage_; }
  const IterVar& attach_ivar() const { return attach_ivar_; }
  // The operations this stage's body reads.
  std::vector<te::Operation> reads() const { return te::read_operations(body_); }
  struct Prefetch {
    IterVar at;
    te::Operation input;
    std::vector<ir::Expr> indices;
  };
  const std::vector<Prefetch>& prefetches() const { return prefetches_; }

 private:
  friend class Schedule;
  Stage(Schedule* owner, te::Operation op, bool is_output);
  size_t leaf_index(const IterVar& iv, const char* primitive) const;
  bool is_reduce(const IterVar& iv) const;
  void set_kind(const IterVar& iv, ForKind kind, const char* primitive);
  [[noreturn]] void fail(const std::string& what) const;

  Schedule* owner_;
  te::Operation op_;
  bool is_output_;
  std::vector<IterVar> axes_, reduce_axes_;
  ir::Expr body_;
  std::vector<IterVar> leaves_;
  std::vector<Relation> relations_;
  std::vector<std::pair<IterVar, ForKind>> kinds_;
  std::vector<Prefetch> prefetches_;
  AttachType attach_type_ = AttachType::Root;
  Stage* attach_stage_ = nullptr;
  IterVar attach_ivar_;
};

class Schedule {
 public:
  // A schedule for everything `outputs` depend on, every stage at its root to begin with.
  explicit Schedule(std::vector<Tensor> outputs);
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  Stage& operator[](const Tensor& t);
  Stage& operator[](const te::OperationNode* op);
  const Stage* find(const ir::Producer* p) const;

  // Makes `t` copy from a new local tensor that does the computing (returned); `t`'s axes are
  // new afterwards, so take them from s[t] again. The local stage is placed with compute_at.
  Tensor cache_write(const Tensor& t);

  // Producers before consumers.
  const std::vector<std::unique_ptr<Stage>>& stages() const { return stages_; }
  const std::vector<Tensor>& outputs() const { return outputs_; }
  // Placeholders in kernel argument order: the order the computation first reads them, unless
  // set_input_order gave another (an elementwise expression may read x1 before x0).
  std::vector<Tensor> inputs() const;
  // Throws CompileError unless `inputs` are this schedule's placeholders, each once.
  void set_input_order(std::vector<Tensor> inputs);

  // Stages whose body reads `op`.
  std::vector<const Stage*> consumers_of(const te::OperationNode* op) const;

 private:
  friend class Stage;
  std::vector<Tensor> outputs_;
  std::vector<std::unique_ptr<Stage>> stages_;
  std::vector<Tensor> input_order_;  // empty: first-read order
};

}  // namespace tf::schedule

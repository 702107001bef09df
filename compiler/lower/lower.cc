// The whole lowering pipeline, in order. Each step is one file; read them in this order.
#include "compiler/lower/lower.h"

#include <algorithm>

#include "compiler/ir/verify.h"
#include "compiler/lower/bound.h"
#include "compiler/lower/inline.h"
#include "compiler/lower/schedule_ops.h"
#include "compiler/passes/passes.h"

namespace tf::lower {
namespace {

constexpr const char* kScheduleOps = "schedule_ops";

struct LoweringPass {
  const char* name;
  LowerStage stage;  // the first stage whose lowering runs it
  ir::Stmt (*run)(const ir::Stmt&);
};

// Read top to bottom: what a loop nest goes through before code generation. The Rolled stage stops
// before unrolling, which is what multiplies the IR.
const std::vector<LoweringPass>& lowering_passes() {
  static const std::vector<LoweringPass> passes = {
      {"simplify", LowerStage::Rolled, passes::simplify},  // fold constants, cancel affine terms, drop proven guards
      {"partition_loops", LowerStage::Rolled,
       passes::partition_loops},  // hoist split-overhang guards out of inner loops
      {"simplify", LowerStage::Rolled, passes::simplify},
      {"unroll_loops", LowerStage::Full, passes::unroll_loops},  // unrolled loops become copies with constant indices
      {"simplify", LowerStage::Full, passes::simplify},
      {"partition_loops", LowerStage::Full,
       passes::partition_loops},  // with constants unrolled in, cut ragged vector edges
      {"simplify", LowerStage::Full, passes::simplify},
      {"vectorize_loops", LowerStage::Full, passes::vectorize_loops},  // vectorized loops become vector statements
      {"simplify", LowerStage::Full, passes::simplify},                // fold the constant indices unrolling produced
      {"fuse_dot_products", LowerStage::Full, passes::fuse_dot_products},  // int8 multiply-adds in fours: VNNI's form
  };
  return passes;
}

void finish_pass(const char* pass, const ir::LoweredFunc& f, const LowerOptions& opts) {
#ifndef NDEBUG
  try {
    ir::verify(f);
  } catch (const CompileError& e) {
    throw CompileError(std::string("lowering pass ") + pass + " left invalid IR: " + e.what());
  }
#endif
  if (opts.after_pass) opts.after_pass(pass, f);
}

}  // namespace

ir::LoweredFunc lower(const schedule::Schedule& s, const std::string& name, const LowerOptions& opts) {
  // 1. compute_inline: substitute inlined stages into their consumers.
  auto bodies = inline_bodies(s);
  // 2. Bound inference: the region each stage computes and the extent of every loop.
  Bounds bounds = infer_bounds(s, bodies);
  // 3. Loop nests: one per stage, attached stages inside their consumers, reads flattened.
  ir::LoweredFunc f = schedule_ops(s, bodies, bounds, name);
  finish_pass(kScheduleOps, f, opts);
  // 4. The passes the stage asks for.
  for (const auto& pass : lowering_passes()) {
    if (opts.stage < pass.stage) continue;
    f.body = pass.run(f.body);
    finish_pass(pass.name, f, opts);
  }
  return f;
}

std::vector<std::string> lower_pass_names() {
  std::vector<std::string> names = {kScheduleOps};
  for (const auto& pass : lowering_passes()) {
    if (std::find(names.begin(), names.end(), pass.name) == names.end()) names.push_back(pass.name);
  }
  return names;
}

}  // namespace tf::lower

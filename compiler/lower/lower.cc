// The whole lowering pipeline, in order. Each step is one file; read them in this order.
#include "compiler/lower/lower.h"

#include "compiler/lower/bound.h"
#include "compiler/lower/inline.h"
#include "compiler/lower/schedule_ops.h"
#include "compiler/passes/passes.h"

namespace tf::lower {

ir::LoweredFunc lower(const schedule::Schedule& s, const std::string& name, const LowerOptions& opts) {
  // 1. compute_inline: substitute inlined stages into their consumers.
  auto bodies = inline_bodies(s);
  // 2. Bound inference: the region each stage computes and the extent of every loop.
  Bounds bounds = infer_bounds(s, bodies);
  // 3. Loop nests: one per stage, attached stages inside their consumers, reads flattened.
  ir::LoweredFunc f = schedule_ops(s, bodies, bounds, name);
  if (opts.stage == LowerStage::Scheduled) return f;
  // 4. Passes.
  ir::Stmt body = f.body;
  body = passes::simplify(body);         // fold constants, cancel affine terms, drop proven guards
  body = passes::partition_loops(body);  // hoist split-overhang guards out of inner loops
  body = passes::simplify(body);
  if (opts.stage == LowerStage::Rolled) {
    f.body = body;
    return f;
  }
  body = passes::unroll_loops(body);     // unrolled loops become copies with constant indices
  body = passes::simplify(body);
  body = passes::partition_loops(body);  // with constants unrolled in, cut ragged vector edges
  body = passes::simplify(body);
  body = passes::vectorize_loops(body);  // vectorized loops become vector statements
  body = passes::simplify(body);         // fold the constant indices unrolling produced
  f.body = body;
  return f;
}

}  // namespace tf::lower

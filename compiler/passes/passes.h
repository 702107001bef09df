// The lowering passes, one per file. Each takes a statement and returns an equivalent one; none
// changes what the program computes. lower/lower.cc runs them in order as one readable pipeline.
#pragma once

#include "compiler/ir/ir.h"

namespace tf::passes {

// Constant folding, arithmetic identities (x*1, x+0, min(x,x), ...), canonical ordering of affine
// index expressions so that (o*8 + i) - o*8 becomes i, floordiv/floormod of affine terms whose
// range is known from the enclosing loops ((o*8 + i)/8 -> o when i is in [0, 8)), and comparisons
// decided from loop ranges (o*16 + i < 1024 -> true for o in [0,64), i in [0,16)), which removes
// guards that always hold. Dead branches, empty loops and loops of extent 1 are removed.
ir::Expr simplify(const ir::Expr& e);
ir::Stmt simplify(const ir::Stmt& s);

// Guard hoisting by loop partitioning. A loop whose body is guarded by a condition that is affine
// in the loop variable (the tail guard of a split that does not divide its axis) is split into a
// main loop where the guard always holds (guard removed) and a tail loop that keeps it, so the
// inner loops of the main part carry no branch. A condition that fails on the first iterations
// instead (a padded image's top and left edges) cuts a head off the same way. Select conditions
// count too, for loops of four iterations or more that stay select-free for at least half of them.
ir::Stmt partition_loops(const ir::Stmt& s);

// Replaces each ForKind::Unrolled loop of constant extent by that many copies of its body with the
// loop variable substituted; an unrolled loop whose extent is not constant stays a serial loop.
ir::Stmt unroll_loops(const ir::Stmt& s);

// Replaces each ForKind::Vectorized loop of constant extent by one vector statement: the loop
// variable becomes Ramp(min, 1, extent), scalars are broadcast, loads and stores become vector
// loads and stores. A loop that cannot be vectorized legally (an inner loop, a guard that depends on
// the lane, a store whose index does not depend on the lane) is kept as a serial loop, so the
// result is always correct.
ir::Stmt vectorize_loops(const ir::Stmt& s);

// Four adjacent int8 multiply-accumulates into one int32 vector (an int8 template's reduction over
// a group of four input channels, unrolled inside its vector lanes) become one dot_u8s8 call, the
// VNNI instruction's form; whatever does not match that shape exactly is left as it was.
ir::Stmt fuse_dot_products(const ir::Stmt& s);

}  // namespace tf::passes

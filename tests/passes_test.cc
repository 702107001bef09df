// The lowering passes: rewrites checked on hand-built IR, and whole pipelines checked for meaning
// by interpreting real dense kernels (ir_interpreter.h) against the operator's reference.
#include <gtest/gtest.h>

#include <random>

#include "compiler/compiler.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/passes.h"
#include "ir_counts.h"
#include "ir_interpreter.h"

namespace tf {
namespace {

using namespace ir;  // NOLINT: tests build IR by hand

Expr V(const Var& v) { return to_expr(v); }

using testing_support::count_nodes;
using testing_support::IrCounts;

// ---------------------------------------------------------------- simplify

TEST(PassesSimplify, CancelsAffineTerms) {
  Var mo = make_var("mo"), mi = make_var("mi"), mc = make_var("mc"), a = make_var("a"), b = make_var("b");
  EXPECT_EQ(to_string(passes::simplify(((V(mo) * 1 + V(mi)) * 1 + V(mc)) - (V(mo) + V(mi)))), "mc");
  EXPECT_EQ(to_string(passes::simplify((V(a) * 8 + V(b)) - V(a) * 8)), "b");
  EXPECT_EQ(to_string(passes::simplify((V(a) + 3) * 4 - V(a) * 2 - 12)), "(a * 2)");
  EXPECT_EQ(to_string(passes::simplify(V(a) - V(a))), "0");
}

TEST(PassesSimplify, FoldsConstants) {
  EXPECT_EQ(to_string(passes::simplify(Expr(3) * 4 + floordiv(Expr(-7), Expr(2)))), "8");
  EXPECT_EQ(to_string(passes::simplify(floormod(Expr(-7), Expr(2)))), "1");
  EXPECT_EQ(to_string(passes::simplify(Expr(1.5f) * Expr(2.0f))), "3.0f");
  Buffer x = make_buffer("x", DataType::float32(), {4}, MemoryScope::Arg);
  Expr load = make_load(x, 0);
  EXPECT_EQ(to_string(passes::simplify(load * 1.0f)), "x[0]");
  // x + 0.0 is not x for x = -0.0: left alone.
  EXPECT_EQ(to_string(passes::simplify(load + 0.0f)), "(x[0] + 0.0f)");
  EXPECT_EQ(to_string(passes::simplify(min(Expr(3), Expr(5)) + max(Expr(3), Expr(5)))), "8");
}

TEST(PassesSimplify, UsesLoopRangesForDivisionsAndGuards) {
  Var o = make_var("o"), i = make_var("i");
  Buffer out = make_buffer("out", DataType::int64(), {1024}, MemoryScope::Arg);
  Expr idx = V(o) * 8 + V(i);
  Stmt body = make_if(idx < 40, make_store(out, idx, floordiv(idx, 8) * 100 + floormod(idx, 8)));
  Stmt s = make_for(o, 0, 5, ForKind::Serial, make_for(i, 0, 8, ForKind::Serial, body));
  std::string r = to_string(passes::simplify(s));
  EXPECT_EQ(r.find("if"), std::string::npos) << r;
  EXPECT_NE(r.find("out[((o * 8) + i)] = ((o * 100) + i);"), std::string::npos) << r;

  // One past the range: the guard must stay.
  Stmt s2 = make_for(o, 0, 6, ForKind::Serial, make_for(i, 0, 8, ForKind::Serial, body));
  EXPECT_NE(to_string(passes::simplify(s2)).find("if"), std::string::npos);
}

TEST(PassesSimplify, DropsDeadBranchesAndTrivialLoops) {
  Var o = make_var("o"), i = make_var("i"), z = make_var("z");
  Buffer out = make_buffer("out", DataType::int64(), {64}, MemoryScope::Arg);
  Stmt never = make_if(V(o) >= 4, make_store(out, V(o), 1), make_store(out, V(o), 2));
  Stmt s = make_for(o, 0, 4, ForKind::Serial, never);
  EXPECT_EQ(to_string(passes::simplify(s)), "for (o = 0; o < 4; ++o) {\n  out[o] = 2;\n}\n");
  Stmt one = make_for(i, 3, 1, ForKind::Serial, make_store(out, V(i) * 2, V(i)));
  EXPECT_EQ(to_string(passes::simplify(one)), "out[6] = 3;\n");
  Stmt empty = make_for(z, 0, 0, ForKind::Serial, make_store(out, V(z), 0));
  EXPECT_FALSE(passes::simplify(make_seq({empty, empty})));
  Var b = make_var("b", DataType::boolean());
  EXPECT_EQ(to_string(passes::simplify(logical_and(V(o) < V(o) + 1, V(b)))), "b");
}

TEST(PassesSimplify, VectorRules) {
  Var b = make_var("b"), x = make_var("x");
  EXPECT_EQ(to_string(passes::simplify(make_ramp(V(b), 1, 8) + make_broadcast(V(x), 8))), "ramp((b + x), 1, 8)");
  EXPECT_EQ(to_string(passes::simplify(make_broadcast(V(b), 4) + make_broadcast(V(x) - V(b), 4))), "x4(x)");
  EXPECT_EQ(to_string(passes::simplify(make_ramp(V(b), 1, 8) * make_broadcast(Expr(2), 8))), "ramp((b * 2), 2, 8)");
  EXPECT_EQ(to_string(passes::simplify(make_ramp(V(b) * 8, 1, 8) - make_broadcast(V(b) * 8, 8))), "ramp(0, 1, 8)");
  EXPECT_EQ(to_string(passes::simplify(floordiv(make_ramp(V(b) * 16, 1, 8), make_broadcast(Expr(16), 8)))), "x8(b)");
  Buffer t = make_buffer("t", DataType::float32(), {64}, MemoryScope::Arg);
  EXPECT_EQ(
      to_string(passes::simplify(make_load(t, floordiv(make_ramp(V(b) * 16, 1, 8), make_broadcast(Expr(16), 8))))),
      "x8(t[b])");
}

// ---------------------------------------------------------------- partition_loops

TEST(PassesPartition, HoistsOverhangGuardOutOfMainLoop) {
  Var o = make_var("o"), i = make_var("i");
  Buffer out = make_buffer("out", DataType::float32(), {75}, MemoryScope::Arg);
  Stmt body = make_if(V(o) * 8 + V(i) < 75, make_store(out, V(o) * 8 + V(i), 1.0f));
  Stmt s = make_for(o, 0, 10, ForKind::Serial, make_for(i, 0, 8, ForKind::Serial, body));
  Stmt p = passes::simplify(passes::partition_loops(s));
  auto* seq = p.as<SeqNode>();
  ASSERT_TRUE(seq) << to_string(p);
  ASSERT_EQ(seq->stmts.size(), 2u) << to_string(p);
  auto* main = seq->stmts[0].as<ForNode>();
  ASSERT_TRUE(main);
  EXPECT_TRUE(is_const_int(main->extent) && main->extent.as<IntImmNode>()->value == 9) << to_string(p);
  EXPECT_EQ(count_nodes(seq->stmts[0]).ifs, 0) << to_string(p);
  // The tail o = 9 is a single iteration; partitioning its inner loop leaves no guard at all.
  EXPECT_EQ(to_string(seq->stmts[1]), "for (i = 0; i < 3; ++i) {\n  out[(i + 72)] = 1.0f;\n}\n");

  // Same result as before, every element written once.
  std::vector<double> a(75, 0), b(75, 0);
  testing_support::IrInterpreter ia, ib;
  ia.bind(out, &a);
  ia.run(s);
  ib.bind(out, &b);
  ib.run(p);
  EXPECT_EQ(a, b);
}

TEST(PassesPartition, FusedLoopGuardThroughFloordiv) {
  Var f = make_var("f"), m = make_var("m");
  Buffer out = make_buffer("out", DataType::float32(), {64}, MemoryScope::Arg);
  Expr row = floordiv(V(f), 2) * 12 + V(m);
  Stmt s = make_for(f, 0, 8, ForKind::Parallel,
                    make_for(m, 0, 12, ForKind::Serial, make_if(row < 37, make_store(out, row, 1.0f))));
  Stmt p = passes::simplify(passes::partition_loops(s));
  auto* seq = p.as<SeqNode>();
  ASSERT_TRUE(seq) << to_string(p);
  EXPECT_EQ(count_nodes(seq->stmts[0]).ifs, 0) << to_string(p);
  std::vector<double> a(64, 0), b(64, 0);
  testing_support::IrInterpreter ia, ib;
  ia.bind(out, &a);
  ia.run(s);
  ib.bind(out, &b);
  ib.run(p);
  EXPECT_EQ(a, b);
}

TEST(PassesPartition, LeavesNonMonotoneGuardsAlone) {
  Var f = make_var("f"), n = make_var("n");
  Buffer out = make_buffer("out", DataType::float32(), {64}, MemoryScope::Arg);
  Expr col = floormod(V(f), 2) * 32 + V(n);
  Stmt s = make_for(f, 0, 8, ForKind::Serial,
                    make_for(n, 0, 32, ForKind::Serial, make_if(col < 45, make_store(out, col, 1.0f))));
  Stmt p = passes::partition_loops(s);
  EXPECT_TRUE(p.as<ForNode>()) << to_string(p);
}

// ---------------------------------------------------------------- unroll_loops

TEST(PassesUnroll, CopiesBodyAndCapsLongLoops) {
  Var i = make_var("i"), j = make_var("j");
  Buffer out = make_buffer("out", DataType::int64(), {200}, MemoryScope::Arg);
  Stmt s = make_for(i, 0, 4, ForKind::Unrolled, make_store(out, V(i) * 2, V(i)));
  Stmt u = passes::simplify(passes::unroll_loops(s));
  EXPECT_EQ(to_string(u), "out[0] = 0;\nout[2] = 1;\nout[4] = 2;\nout[6] = 3;\n");
  Stmt long_loop = make_for(j, 0, 100, ForKind::Unrolled, make_store(out, V(j), V(j)));
  const Stmt unrolled = passes::unroll_loops(long_loop);
  auto* f = unrolled.as<ForNode>();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->for_kind, ForKind::Serial);
}

// A select over the unrolled variable keeps only its taken branch in each copy: with two nested
// unrolled loops over a select chain of their cases, copying every branch would cost the square.
TEST(PassesUnroll, EachCopyKeepsOnlyTheSelectBranchItsConstantTakes) {
  Var i = make_var("i"), x = make_var("x");
  Buffer out = make_buffer("out", DataType::int64(), {4}, MemoryScope::Arg);
  Expr chain = make_select(V(i) == Expr(0), V(x) + 10, make_select(V(i) == Expr(1), V(x) * 3, V(x) - V(i)));
  Stmt u = passes::unroll_loops(make_for(i, 0, 3, ForKind::Unrolled, make_store(out, V(i), chain)));
  EXPECT_EQ(to_string(u), "out[0] = (x + 10);\nout[1] = (x * 3);\nout[2] = (x - 2);\n");
  // A condition the constant does not decide stays a select.
  Stmt kept = passes::unroll_loops(
      make_for(i, 0, 2, ForKind::Unrolled, make_store(out, V(i), make_select(V(x) == V(i), V(x), Expr(7)))));
  EXPECT_EQ(to_string(kept), "out[0] = select((x == 0), x, 7);\nout[1] = select((x == 1), x, 7);\n");
}

// ---------------------------------------------------------------- vectorize_loops

TEST(PassesVectorize, TileUpdateBecomesRampsAndBroadcastScalar) {
  Var m = make_var("m"), k = make_var("k"), n = make_var("n");
  const int64_t K = 70;
  Buffer cl = make_buffer("Cl", DataType::float32(), {64}, MemoryScope::Stack);
  Buffer a = make_buffer("A", DataType::float32(), {8 * K}, MemoryScope::Arg);
  Buffer b = make_buffer("B", DataType::float32(), {K * 64}, MemoryScope::Arg);
  Expr ci = V(m) * 8 + V(n);
  Stmt body = make_store(cl, ci, make_load(cl, ci) + make_load(a, V(m) * K + V(k)) * make_load(b, V(k) * 64 + V(n)));
  Stmt s = make_for(n, 0, 8, ForKind::Vectorized, body);
  Stmt v = passes::simplify(passes::vectorize_loops(s));
  EXPECT_EQ(
      to_string(v),
      "Cl[ramp((m * 8), 1, 8)] = (Cl[ramp((m * 8), 1, 8)] + (x8(A[((m * 70) + k)]) * B[ramp((k * 64), 1, 8)]));\n");
}

TEST(PassesVectorize, KeepsIllegalLoopsSerial) {
  Var n = make_var("n"), j = make_var("j");
  Buffer acc = make_buffer("acc", DataType::float32(), {1}, MemoryScope::Stack);
  Buffer x = make_buffer("x", DataType::float32(), {64}, MemoryScope::Arg);
  auto kind_after = [](const Stmt& s) {
    const Stmt vectorized = passes::vectorize_loops(s);
    auto* f = vectorized.as<ForNode>();
    return f ? f->for_kind : ForKind::Vectorized;
  };
  // A reduction into one element.
  EXPECT_EQ(
      kind_after(make_for(n, 0, 8, ForKind::Vectorized, make_store(acc, 0, make_load(acc, 0) + make_load(x, V(n))))),
      ForKind::Serial);
  // A guard that depends on the lane.
  EXPECT_EQ(kind_after(make_for(n, 0, 8, ForKind::Vectorized, make_if(V(n) < V(j), make_store(x, V(n), 1.0f)))),
            ForKind::Serial);
  // An inner loop.
  EXPECT_EQ(kind_after(make_for(n, 0, 8, ForKind::Vectorized,
                                make_for(j, 0, 2, ForKind::Serial, make_store(x, V(n) * 2 + V(j), 1.0f)))),
            ForKind::Serial);
  // A read of another lane's element of a buffer the loop writes.
  EXPECT_EQ(kind_after(make_for(n, 0, 8, ForKind::Vectorized, make_store(x, V(n) + 1, make_load(x, V(n))))),
            ForKind::Serial);
}

TEST(PassesVectorize, HoistsLaneInvariantGuard) {
  Var n = make_var("n"), j = make_var("j");
  Buffer x = make_buffer("x", DataType::float32(), {64}, MemoryScope::Arg);
  Stmt s = make_for(n, 0, 8, ForKind::Vectorized, make_if(V(j) < 3, make_store(x, V(j) * 8 + V(n), 1.0f)));
  EXPECT_EQ(to_string(passes::simplify(passes::vectorize_loops(s))),
            "if ((j < 3)) {\n  x[ramp((j * 8), 1, 8)] = x8(1.0f);\n}\n");
}

// ---------------------------------------------------------------- whole pipeline on dense

std::vector<double> random_data(size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<double> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// Interprets the kernel of each config and compares it with the operator's reference.
void expect_lowered_configs_correct(const std::string& op, std::vector<int64_t> shape, int samples, uint64_t seed,
                                    const std::vector<std::string>& configs = {}) {
  compiler::Task task({op, shape}, codegen::host_target());
  std::mt19937_64 rng(seed);
  auto in_shapes = task.op().input_shapes(shape);
  std::vector<std::vector<double>> inputs;
  std::vector<std::vector<float>> inputs_f;
  for (const auto& s : in_shapes) {
    size_t n = 1;
    for (int64_t d : s) n *= static_cast<size_t>(d);
    inputs.push_back(random_data(n, rng));
    inputs_f.emplace_back(inputs.back().begin(), inputs.back().end());
  }
  std::vector<const float*> ptrs;
  for (auto& v : inputs_f) ptrs.push_back(v.data());
  std::vector<float> expected, tol;
  task.op().reference(shape, ptrs, &expected, &tol);

  std::vector<int64_t> indices = {0, task.space().default_config().index(), task.space().size() - 1};
  for (int i = 0; i < samples; ++i)
    indices.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(task.space().size())));
  for (const auto& c : configs) indices.push_back(task.parse_config(c).index());
  // Returns the number of wrong output elements, or -1 when the interpreter rejected the IR.
  auto run = [&](const LoweredFunc& f) {
    std::vector<std::vector<double>> bufs = inputs;
    bufs.emplace_back(expected.size(), std::numeric_limits<double>::quiet_NaN());
    std::vector<std::vector<double>*> args;
    for (auto& b : bufs) args.push_back(&b);
    testing_support::IrInterpreter interp;
    try {
      interp.run(f, args);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
      return -1;
    }
    int bad = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
      if (!(std::fabs(bufs.back()[i] - expected[i]) <= tol[i] * 4 + 1e-6)) ++bad;
    }
    return bad;
  };
  for (size_t n = 0; n < indices.size(); ++n) {
    auto cfg = task.space().at(indices[n]);
    SCOPED_TRACE(task.workload().str() + " config " + std::to_string(indices[n]) + " " + cfg.str());
    // The nest as scheduled, without passes, validates the interpreter and the harness.
    if (n < 2) {
      ASSERT_EQ(run(task.lower(cfg, lower::LowerStage::Scheduled)), 0);
    }
    LoweredFunc f = task.lower(cfg);
    EXPECT_EQ(count_nodes(f.body).vector_fors, 0) << "vectorized/unrolled loops must not survive the passes";
    int bad = run(f);
    EXPECT_EQ(bad, 0) << to_string(f);
    if (bad) return;  // one listing is enough
  }
}

TEST(PassesDense, RandomConfigsOnOddShapeMatchReference) {
  expect_lowered_configs_correct("dense", {37, 45, 70}, 40, 11);
}
TEST(PassesDense, RandomConfigsOnTinyShapesMatchReference) {
  expect_lowered_configs_correct("dense", {7, 13, 129}, 20, 12);
  expect_lowered_configs_correct("dense", {1, 1, 1}, 5, 13);
}
TEST(PassesDense, RandomConfigsOnDividingShapeMatchReference) {
  expect_lowered_configs_correct("dense", {48, 64, 256}, 10, 14);
}
TEST(PassesDense, EpilogueVariantsMatchReference) {
  expect_lowered_configs_correct("dense_bias_relu", {37, 45, 70}, 15, 15);
  expect_lowered_configs_correct("dense_nt", {19, 24, 33}, 8, 16);
}

TEST(PassesDense, NoBranchWhenTilesDivide) {
  compiler::Task task({"dense", {64, 64, 64}}, codegen::host_target());
  LoweredFunc f = task.lower(task.parse_config(R"({"mr":4,"nr":16})"));
  IrCounts c = count_nodes(f.body);
  EXPECT_EQ(c.ifs, 0) << to_string(f);
  EXPECT_GT(c.ramps, 0) << to_string(f);
}

// In 37x45x70 with one-vector column tiles the tiles overhang N; the main part of the partitioned
// column loop must carry no branch, and its stores must be contiguous vectors.
TEST(PassesDense, MainPartOfOddShapeIsBranchFree) {
  compiler::Task task({"dense", {37, 45, 70}}, codegen::host_target());
  LoweredFunc f =
      task.lower(task.parse_config(R"({"mr":1,"nr":16,"mb":1,"unroll_k":1,"pack_b":false,"parallel":false})"));
  struct FindMain : IRVisitor {
    using IRVisitor::visit;
    const ForNode* main = nullptr;
    void visit(const ForNode* n) override {
      if (!main && n->var->name == "n.outer") main = n;
      IRVisitor::visit(n);
    }
  } finder;
  finder.visit(f.body);
  ASSERT_TRUE(finder.main) << to_string(f);
  IrCounts c = count_nodes(finder.main->body);
  EXPECT_EQ(c.ifs, 0) << to_string(f);
  EXPECT_GT(c.ramps, 0) << to_string(f);
  EXPECT_EQ(c.fors, 1) << "only the k loop should remain inside the main column loop\n" << to_string(f);
}

// Simplify only folds and removes: it never copies a loop or a statement (a blow-up there once
// made lowering slow), and a second run has nothing left to do.
TEST(PassesDense, SimplifyShrinksTheNestAndIsIdempotent) {
  compiler::Task task({"dense", {37, 45, 70}}, codegen::host_target());
  auto cfg = task.parse_config(R"({"mr":6,"nr":32,"pack_b":true,"unroll_k":4,"mb":2,"parallel":true})");
  LoweredFunc raw = task.lower(cfg, lower::LowerStage::Scheduled);
  Stmt once = passes::simplify(raw.body);
  const IrCounts before = count_nodes(raw.body), after = count_nodes(once);
  EXPECT_LE(after.fors, before.fors) << to_string(once);
  EXPECT_LE(after.stores, before.stores) << to_string(once);
  EXPECT_LE(after.ifs, before.ifs) << to_string(once);
  EXPECT_LE(to_string(once).size(), to_string(raw.body).size());
  // Idempotent: a second run changes nothing.
  EXPECT_EQ(to_string(passes::simplify(once)), to_string(once));
  LoweredFunc full = task.lower(cfg);
  EXPECT_EQ(to_string(passes::simplify(full.body)), to_string(full.body));
}

}  // namespace
}  // namespace tf

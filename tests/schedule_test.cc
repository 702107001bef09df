#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "compiler/lower/lower.h"
#include "compiler/schedule/schedule.h"
#include "tests/ir_interpreter.h"

namespace tf {
namespace {

using ir::DataType;
using te::Tensor;

struct Matmul {
  Tensor A, B, C;
  Matmul(int64_t M, int64_t N, int64_t K) {
    A = te::placeholder({M, K}, DataType::float32(), "A");
    B = te::placeholder({K, N}, DataType::float32(), "B");
    auto k = te::reduce_axis(K, "k");
    C = te::compute(
        {M, N},
        [&](const te::Indices& i) { return te::sum(A(i[0], ir::to_expr(k->var)) * B(ir::to_expr(k->var), i[1]), {k}); },
        "C");
  }
};

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

TEST(Schedule, SplitTileReorderFuseChangeTheLeaves) {
  Matmul mm(64, 32, 16);
  schedule::Schedule s({mm.C});
  auto& c = s[mm.C];
  auto [io, jo, ii, ji] = c.tile(c.axis(0), c.axis(1), 8, 4);
  EXPECT_EQ(io->extent, 8);
  EXPECT_EQ(ii->extent, 8);
  ASSERT_EQ(c.leaf_iter_vars().size(), 5u);
  EXPECT_EQ(c.leaf_iter_vars()[0], io);
  EXPECT_EQ(c.leaf_iter_vars()[1], jo);
  EXPECT_EQ(c.leaf_iter_vars()[2], ii);
  EXPECT_EQ(c.leaf_iter_vars()[3], ji);
  auto f = c.fuse(io, jo);
  EXPECT_EQ(f->extent, 64);
  EXPECT_EQ(c.leaf_iter_vars()[0], f);
  c.reorder({c.reduce_axis(0), ii});
  EXPECT_EQ(c.leaf_iter_vars()[1], c.reduce_axis(0));
  EXPECT_EQ(c.leaf_iter_vars()[3], ii);
}

TEST(Schedule, SplitByNpartsRoundsTheFactorUp) {
  Matmul mm(10, 8, 8);
  schedule::Schedule s({mm.C});
  auto [o, i] = s[mm.C].split_nparts(s[mm.C].axis(0), 3);
  EXPECT_EQ(o->extent, 3);
  EXPECT_EQ(i->extent, 4);
}

TEST(Schedule, IllegalPrimitivesNameTheStageAndAxis) {
  Matmul mm(16, 16, 16);
  schedule::Schedule s({mm.C});
  auto& c = s[mm.C];
  EXPECT_NE(
      message_of([&] { c.vectorize(c.reduce_axis(0)); }).find("stage 'C': vectorize: axis 'k' is a reduction axis"),
      std::string::npos);
  EXPECT_NE(message_of([&] { c.parallel(c.reduce_axis(0)); }).find("reduction axis"), std::string::npos);
  auto [o, i] = c.split(c.axis(0), 4);
  EXPECT_NE(message_of([&] { c.split(c.axis(0), 2); }).find("axis 'i' is not a loop of this stage"), std::string::npos);
  EXPECT_NE(message_of([&] { c.split(o, 0); }).find("factor 0"), std::string::npos);
  EXPECT_NE(message_of([&] { c.fuse(i, o); }).find("must be adjacent"), std::string::npos);
  EXPECT_NE(message_of([&] { c.reorder({o, o}); }).find("named twice"), std::string::npos);
  EXPECT_NE(message_of([&] { s[mm.A].split(o, 2); }).find("stage 'A'"), std::string::npos);
  EXPECT_NE(message_of([&] { c.compute_inline(); }).find("output"), std::string::npos);
  EXPECT_NE(message_of([&] { s[mm.A].compute_at(c, o); }).find("an input is not computed"), std::string::npos);
}

TEST(Schedule, ComputeAtNeedsALoopOfAConsumer) {
  Matmul mm(16, 16, 16);
  Tensor D = te::compute(
      {16, 16}, [&](const te::Indices& i) { return mm.C(i[0], i[1]) * 2.0f; }, "D");
  schedule::Schedule s({D});
  auto& d = s[D];
  auto& c = s[mm.C];
  EXPECT_NE(message_of([&] { c.compute_at(d, c.axis(0)); }).find("stage 'D' has no loop 'i'"), std::string::npos);
  EXPECT_NE(message_of([&] { c.compute_at(c, c.axis(0)); }).find("inside itself"), std::string::npos);
  EXPECT_EQ(message_of([&] { c.compute_at(d, d.axis(0)); }), "");
  EXPECT_EQ(c.attach_type(), schedule::AttachType::Scope);
}

TEST(Schedule, CacheWriteInsertsALocalStageBeforeTheOriginal) {
  Matmul mm(16, 16, 16);
  schedule::Schedule s({mm.C});
  Tensor local = s.cache_write(mm.C);
  EXPECT_EQ(local.name(), "C.local");
  const auto& stages = s.stages();
  ASSERT_EQ(stages.size(), 4u);  // A, B, C.local, C
  EXPECT_EQ(stages[2]->name(), "C.local");
  EXPECT_EQ(stages[3]->name(), "C");
  EXPECT_TRUE(s[mm.C].reduce_axes().empty());
  EXPECT_EQ(s[local].reduce_axes().size(), 1u);
  EXPECT_NE(message_of([&] {
              s[mm.C].split(s[mm.C].axis(0), 4);
              s.cache_write(mm.C);
            }).find("before splitting"),
            std::string::npos);
}

TEST(Te, RejectsBadShapesAndNestedReductions) {
  EXPECT_THROW(te::placeholder({4, 0}, DataType::float32(), "A"), CompileError);
  EXPECT_THROW(te::placeholder({int64_t{1} << 30, int64_t{1} << 30}, DataType::float32(), "A"), CompileError);
  Tensor A = te::placeholder({4, 4}, DataType::float32(), "A");
  auto k = te::reduce_axis(4, "k");
  EXPECT_THROW(te::compute(
                   {4}, [&](const te::Indices& i) { return te::sum(A(i[0], ir::to_expr(k->var)), {k}) + 1.0f; }, "B"),
               CompileError);
  EXPECT_THROW(A(1), CompileError);  // wrong rank
}

TEST(Lower, BoundInferenceGivesAttachedStagesTheirTileRegion) {
  Matmul mm(64, 64, 32);
  schedule::Schedule s({mm.C});
  Tensor local = s.cache_write(mm.C);
  auto& c = s[mm.C];
  auto [io, jo, ii, ji] = c.tile(c.axis(0), c.axis(1), 4, 16);
  s[local].compute_at(c, jo);
  lower::LowerOptions raw;
  raw.stage = lower::LowerStage::Scheduled;
  std::string text = ir::to_string(lower::lower(s, "mm", raw));
  // The local buffer holds one 4x16 tile, not the whole 64x64 tensor.
  EXPECT_NE(text.find("float32 C.local[64];  // local"), std::string::npos) << text;
  EXPECT_NE(text.find("void mm(float32 A[64][32], float32 B[32][64], float32 C[64][64])"), std::string::npos) << text;
}

// P is read only by Q, and Q is computed inside R's tile loop: P computed at that loop too holds
// the union of what Q's iterations there read (8 outputs of a 2-tap window: 9 values), and the
// stored values are the whole computation's.
TEST(Lower, StageComputedWhereItsReaderIsGetsTheReadersRegion) {
  Tensor a = te::placeholder({65}, DataType::float32(), "A");
  Tensor p = te::compute(
      {65}, [&](const te::Indices& i) { return a(i[0]) * ir::make_float(2.0); }, "P");
  Tensor q = te::compute(
      {64}, [&](const te::Indices& i) { return p(i[0]) + p(i[0] + ir::make_int(1)); }, "Q");
  Tensor r = te::compute(
      {64}, [&](const te::Indices& i) { return q(i[0]) + ir::make_float(1.0); }, "R");
  schedule::Schedule s({r});
  auto& rs = s[r];
  auto [io, ii] = rs.split(rs.axis(0), 8);
  // Before Q is inside R, R neither reads P nor computes a stage that does.
  EXPECT_NE(message_of([&] { s[p].compute_at(rs, io); }).find("nor computes a stage that does"), std::string::npos);
  s[q].compute_at(rs, io);
  EXPECT_EQ(message_of([&] { s[p].compute_at(rs, io); }), "");
  lower::LowerOptions raw;
  raw.stage = lower::LowerStage::Scheduled;
  const std::string text = ir::to_string(lower::lower(s, "chain", raw));
  EXPECT_NE(text.find("float32 P[9];"), std::string::npos) << text;
  EXPECT_NE(text.find("float32 Q[8];"), std::string::npos) << text;

  std::vector<double> in(65), out(64);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(i % 7) - 3;
  testing_support::IrInterpreter interp;
  interp.run(lower::lower(s, "chain"), {&in, &out});
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], 2 * in[i] + 2 * in[i + 1] + 1) << i;
}

TEST(Lower, NonDividingSplitGetsAGuard) {
  Matmul mm(10, 8, 8);
  schedule::Schedule s({mm.C});
  auto [o, i] = s[mm.C].split(s[mm.C].axis(0), 4);
  lower::LowerOptions raw;
  raw.stage = lower::LowerStage::Scheduled;
  std::string text = ir::to_string(lower::lower(s, "mm", raw));
  EXPECT_NE(text.find("(((i.outer * 4) + i.inner) < 10)"), std::string::npos) << text;
  EXPECT_NE(text.find("for (i.outer = 0; i.outer < 3; ++i.outer)"), std::string::npos) << text;
}

TEST(Lower, InlinedStagesDisappearIntoTheirConsumers) {
  Tensor A = te::placeholder({8}, DataType::float32(), "A");
  Tensor B = te::compute(
      {8}, [&](const te::Indices& i) { return A(i[0]) * 2.0f; }, "B");
  Tensor C = te::compute(
      {8}, [&](const te::Indices& i) { return B(i[0]) + 1.0f; }, "C");
  schedule::Schedule s({C});
  s[B].compute_inline();
  lower::LowerOptions raw;
  raw.stage = lower::LowerStage::Scheduled;
  std::string text = ir::to_string(lower::lower(s, "f", raw));
  EXPECT_EQ(text.find("B["), std::string::npos) << text;
  EXPECT_NE(text.find("C[i] = ((A[i] * 2.0f) + 1.0f);"), std::string::npos) << text;
}

TEST(Schedule, PrefetchTakesAnInputItsIndicesAndASerialLoop) {
  Matmul mm(16, 16, 16);
  schedule::Schedule s({mm.C});
  auto& c = s[mm.C];
  auto [o, i] = c.split(c.axis(1), 4);
  c.vectorize(i);
  const ir::Expr k = ir::to_expr(c.reduce_axis(0)->var);
  EXPECT_NE(message_of([&] { c.prefetch(mm.C, o, {k, k}); }).find("only an input"), std::string::npos);
  EXPECT_NE(message_of([&] { c.prefetch(mm.B, o, {k}); }).find("1 indices for the 2-d input 'B'"), std::string::npos);
  EXPECT_NE(message_of([&] { c.prefetch(mm.B, i, {k, k}); }).find("loop 'j.inner' is vectorized"), std::string::npos);
  EXPECT_NE(message_of([&] {
              c.prefetch(mm.B, c.axis(0), {k, ir::make_float(1.0)});
            }).find("not a scalar integer"),
            std::string::npos);
  EXPECT_EQ(message_of([&] { c.prefetch(mm.B, c.reduce_axis(0), {k + 1, ir::make_int(0)}); }), "");
}

// A prefetch names the line a later iteration reads, placed first in its loop's body; it changes
// nothing that is computed, even when it names an element past the input.
TEST(Lower, PrefetchRunsFirstInItsLoopAndChangesNoResult) {
  Matmul mm(8, 8, 8);
  schedule::Schedule s({mm.C});
  auto& c = s[mm.C];
  const ir::Expr k = ir::to_expr(c.reduce_axis(0)->var);
  c.prefetch(mm.B, c.reduce_axis(0), {k + 4, ir::make_int(0)});
  lower::LowerOptions raw;
  raw.stage = lower::LowerStage::Scheduled;
  const std::string text = ir::to_string(lower::lower(s, "mm", raw));
  EXPECT_NE(text.find("for (k = 0; k < 8; ++k) {\n        prefetch(&B[(((k + 4) * 8) + 0)]);"), std::string::npos)
      << text;

  std::vector<double> a(64), b(64), out(64);
  for (size_t x = 0; x < a.size(); ++x) {
    a[x] = static_cast<double>(x % 5) - 2;
    b[x] = static_cast<double>(x % 3) - 1;
  }
  testing_support::IrInterpreter interp;
  interp.run(lower::lower(s, "mm"), {&a, &b, &out});
  for (int r = 0; r < 8; ++r) {
    for (int col = 0; col < 8; ++col) {
      double want = 0;
      for (int x = 0; x < 8; ++x) want += a[r * 8 + x] * b[x * 8 + col];
      EXPECT_EQ(out[r * 8 + col], want) << r << "," << col;
    }
  }
}

TEST(Lower, APrefetchAtALoopSplitAfterwardsIsRefused) {
  Matmul mm(8, 8, 8);
  schedule::Schedule s({mm.C});
  auto& c = s[mm.C];
  c.prefetch(mm.B, c.axis(0), {ir::make_int(0), ir::make_int(0)});
  c.split(c.axis(0), 2);
  EXPECT_NE(message_of([&] { lower::lower(s, "mm"); }).find("which was split or fused afterwards"), std::string::npos);
}

}  // namespace
}  // namespace tf

// The affine analysis (compiler/analysis/): linear forms, symbolic intervals for bound inference,
// constant ranges for the passes and the access features.
#include <gtest/gtest.h>

#include "compiler/analysis/interval.h"
#include "compiler/analysis/structural_equal.h"
#include "compiler/ir/printer.h"

namespace tf::analysis {
namespace {

using ir::Expr;
using ir::Var;

std::string str(const Expr& e) { return ir::to_string(e); }

TEST(AffineForm, CancelsEqualAtoms) {
  Var o = ir::make_var("o"), i = ir::make_var("i"), f = ir::make_var("f");
  AffineForm d = AffineForm::of((to_expr(o) * 8 + to_expr(i)) - to_expr(o) * 8);
  EXPECT_EQ(str(d.to_expr()), "i");
  EXPECT_EQ(d.coeff_of(i.get()), 1);
  EXPECT_EQ(d.coeff_of(o.get()), 0);
  // Structurally equal non-linear atoms built twice cancel too.
  AffineForm g = AffineForm::of(ir::floormod(to_expr(f), 3) * 24 + 5);
  g.add(AffineForm::of(ir::floormod(to_expr(f), 3) * 24), -1);
  EXPECT_EQ(g.as_constant(), std::optional<int64_t>(5));
}

TEST(AffineForm, ReadsProductsWithConstantsAndPrintsPositiveTermsFirst) {
  Var a = ir::make_var("a"), b = ir::make_var("b");
  AffineForm f = AffineForm::of((to_expr(a) + 3) * 4 - to_expr(b) * 2 - 12);
  EXPECT_EQ(f.coeff_of(a.get()), 4);
  EXPECT_EQ(f.coeff_of(b.get()), -2);
  EXPECT_EQ(f.constant_part(), 0);
  EXPECT_EQ(str((AffineForm::constant(-7) - AffineForm::of(to_expr(b)) + AffineForm::of(to_expr(a))).to_expr()),
            "((a - b) - 7)");
  // A product of two variables is one atom.
  EXPECT_EQ(AffineForm::of(to_expr(a) * to_expr(b)).terms().size(), 1u);
}

TEST(AffineForm, FloorDivisionRoundsTowardMinusInfinity) {
  EXPECT_EQ(floor_div(-7, 2), -4);
  EXPECT_EQ(floor_mod(-7, 2), 1);
  EXPECT_EQ(floor_div(7, 2), 3);
  EXPECT_EQ(floor_mod(6, 3), 0);
}

TEST(Interval, TileRowsOfAFixedOuterLoopHaveAConstantExtent) {
  Var o = ir::make_var("o"), i = ir::make_var("i");
  IntervalEnv env{{i.get(), Interval::range(0, 5)}};
  auto iv = eval_interval(to_expr(o) * 6 + to_expr(i), env, FreeVars::Symbolic);
  ASSERT_TRUE(iv);
  EXPECT_EQ(str(iv->lo.to_expr()), "(o * 6)");
  EXPECT_EQ((iv->hi - iv->lo).as_constant(), std::optional<int64_t>(5));
  // Unbounded, the same expression has no constant range.
  EXPECT_FALSE(const_range(to_expr(o) * 6 + to_expr(i), env));
}

TEST(Interval, ANonLinearExpressionOfFixedVariablesIsOnePoint) {
  Var f = ir::make_var("f"), i = ir::make_var("i");
  IntervalEnv env{{i.get(), Interval::range(0, 23)}};
  auto iv = eval_interval(ir::floormod(to_expr(f), 3) * 24 + to_expr(i), env, FreeVars::Symbolic);
  ASSERT_TRUE(iv);
  EXPECT_EQ((iv->hi - iv->lo).as_constant(), std::optional<int64_t>(23));
  // A floordiv whose symbolic terms the divisor divides is exact: 16o/8 is 2o, and the constant
  // part's quotient is added (23/8 -> 2).
  Var o = ir::make_var("o");
  auto q = eval_interval(ir::floordiv(to_expr(o) * 16 + to_expr(i), 8), env, FreeVars::Symbolic);
  ASSERT_TRUE(q);
  EXPECT_EQ(str(q->lo.to_expr()), "(o * 2)");
  EXPECT_EQ(str(q->hi.to_expr()), "((o * 2) + 2)");
  // One that does not divide them keeps its bounds as atoms that cancel where equal.
  auto r = eval_interval(ir::floordiv(to_expr(o) * 12 + to_expr(i), 8), env, FreeVars::Symbolic);
  ASSERT_TRUE(r);
  EXPECT_EQ(str(r->lo.to_expr()), "floordiv((o * 12), 8)");
  EXPECT_EQ(str(r->hi.to_expr()), "floordiv(((o * 12) + 23), 8)");
}

TEST(Interval, ConstantRangesOverLoops) {
  Var o = ir::make_var("o"), i = ir::make_var("i"), x = ir::make_var("x");
  IntervalEnv env{{o.get(), Interval::range(0, 63)}, {i.get(), Interval::range(0, 15)}};
  auto r = const_range(to_expr(o) * 16 + to_expr(i), env);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 0);
  EXPECT_EQ(r->hi, 1023);
  r = const_range(ir::floordiv(to_expr(o) * 16 + to_expr(i), 16), env);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->hi, 63);
  r = const_range(ir::floormod(to_expr(i) + 32, 16), env);  // one quotient: exact
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 0);
  EXPECT_EQ(r->hi, 15);
  r = const_range(ir::floormod(to_expr(i) + 3, 8), env);  // crosses a multiple of 8
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 0);
  EXPECT_EQ(r->hi, 7);
  r = const_range(to_expr(o) * to_expr(i), env);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->hi, 63 * 15);
  r = const_range(ir::min(to_expr(i), 9) - ir::max(to_expr(i), 4), env);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 0 - 15);
  EXPECT_EQ(r->hi, 9 - 4);
  // A variable nobody bounds: nothing, except what floormod guarantees and what cancels.
  EXPECT_FALSE(const_range(to_expr(x) + to_expr(i), env));
  r = const_range(ir::floormod(to_expr(x), 5), env);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->hi, 4);
  r = const_range((to_expr(x) + to_expr(i)) - to_expr(x), env);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->hi, 15);
}

TEST(Interval, CDivisionOnlyOfValuesThatCannotBeNegative) {
  Var i = ir::make_var("i"), s = ir::make_var("s");
  IntervalEnv env{{i.get(), Interval::range(0, 15)}, {s.get(), Interval::range(-4, 4)}};
  auto r = const_range(to_expr(i) / 4, env);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->hi, 3);
  EXPECT_FALSE(const_range(to_expr(s) / 4, env));
  EXPECT_FALSE(const_range(to_expr(s) % 4, env));
  EXPECT_FALSE(const_range(to_expr(i) / to_expr(i), env));  // the divisor must be a positive constant
}

TEST(Interval, VectorsSpanAllTheirLanes) {
  Var i = ir::make_var("i");
  IntervalEnv env{{i.get(), Interval::range(0, 3)}};
  auto r = const_range(ir::make_ramp(to_expr(i) * 16, 1, 8), env);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 0);
  EXPECT_EQ(r->hi, 3 * 16 + 7);
  r = const_range(ir::make_broadcast(to_expr(i) + 1, 8), env);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->hi, 4);
}

TEST(Interval, CastsThatMayWrapAndFloatsHaveNoRange) {
  Var i = ir::make_var("i");
  IntervalEnv env{{i.get(), Interval::range(0, 3)}};
  EXPECT_FALSE(const_range(ir::make_cast(ir::DataType::int32(), to_expr(i)), env));
  Var n = ir::make_var("n", ir::DataType::int32());
  IntervalEnv env32{{n.get(), Interval::range(0, 3)}};
  auto r = const_range(ir::make_cast(ir::DataType::int64(), to_expr(n)), env32);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->hi, 3);
  EXPECT_FALSE(const_range(ir::make_float(1.0), env));
}

TEST(StructuralEqual, ComparesNodesAndVariablesByIdentity) {
  Var a = ir::make_var("a"), a2 = ir::make_var("a");
  EXPECT_TRUE(structurally_equal(ir::floordiv(to_expr(a), 4), ir::floordiv(to_expr(a), 4)));
  EXPECT_FALSE(structurally_equal(ir::floordiv(to_expr(a), 4), ir::floordiv(to_expr(a2), 4)));
  EXPECT_FALSE(structurally_equal(to_expr(a) + 1, to_expr(a) + 2));
}

}  // namespace
}  // namespace tf::analysis

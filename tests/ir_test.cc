#include <gtest/gtest.h>

#include "compiler/ir/ir.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/substitute.h"

namespace tf::ir {
namespace {

TEST(IR, BuildersMatchLiteralTypesAndBroadcastScalars) {
  Var x = make_var("x");
  Expr e = to_expr(x) * 4 + 1;
  EXPECT_EQ(e.type(), DataType::int64());
  Expr f = make_cast(DataType::float32(), to_expr(x)) * 2.0;
  EXPECT_EQ(f.type(), DataType::float32());
  Expr v = make_ramp(to_expr(x), 1, 8) + to_expr(x);
  EXPECT_EQ(v.type(), DataType::int64(8));
  EXPECT_NE(v.as<BinaryNode>()->b.as<BroadcastNode>(), nullptr);
  EXPECT_EQ((to_expr(x) < 3).type(), DataType::boolean());
}

TEST(IR, BuildersRejectIllTypedOperands) {
  Var x = make_var("x");
  Expr fl = make_cast(DataType::float32(), to_expr(x));
  EXPECT_THROW(floormod(fl, fl), CompileError);
  EXPECT_THROW(logical_and(to_expr(x), to_expr(x)), CompileError);
  EXPECT_THROW(make_buffer("A", DataType::float32(), {4, 0}, MemoryScope::Arg), CompileError);
  EXPECT_THROW(make_iter_var("k", 0, -3, IterKind::Reduce), CompileError);
  Buffer b = make_buffer("A", DataType::float32(), {4}, MemoryScope::Arg);
  EXPECT_THROW(make_store(b, 0, to_expr(x)), CompileError);  // int64 into float32
}

TEST(IR, MutatorKeepsUntouchedSubtreesShared) {
  Var x = make_var("x"), y = make_var("y");
  Expr e = (to_expr(x) + 1) * (to_expr(y) + 2);
  IRMutator identity;
  EXPECT_TRUE(identity.mutate(e).same_as(e));
  Expr s = substitute(e, {{y.get(), make_int(5)}});
  EXPECT_FALSE(s.same_as(e));
  EXPECT_TRUE(s.as<BinaryNode>()->a.same_as(e.as<BinaryNode>()->a));
  EXPECT_EQ(to_string(s), "((x + 1) * (5 + 2))");
}

TEST(IR, PrinterShowsLoopNestAsPseudoC) {
  Buffer a = make_buffer("A", DataType::float32(), {16}, MemoryScope::Arg);
  Var i = make_var("i");
  Stmt loop = make_for(i, 0, 16, ForKind::Vectorized, make_store(a, to_expr(i), make_load(a, to_expr(i)) * 2.0f));
  std::string text = to_string(loop);
  EXPECT_NE(text.find("// vectorized"), std::string::npos) << text;
  EXPECT_NE(text.find("for (i = 0; i < 16; ++i) {"), std::string::npos) << text;
  EXPECT_NE(text.find("A[i] = (A[i] * 2.0f);"), std::string::npos) << text;
}

TEST(IR, SeqFlattensAndDropsEmpty) {
  Buffer a = make_buffer("A", DataType::float32(), {4}, MemoryScope::Arg);
  Stmt s1 = make_store(a, 0, 1.0f), s2 = make_store(a, 1, 2.0f);
  Stmt seq = make_seq({s1, Stmt(), make_seq({s2, s1})});
  ASSERT_NE(seq.as<SeqNode>(), nullptr);
  EXPECT_EQ(seq.as<SeqNode>()->stmts.size(), 3u);
  EXPECT_TRUE(make_seq({Stmt(), s1}).same_as(s1));
}

}  // namespace
}  // namespace tf::ir

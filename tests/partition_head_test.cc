// partition_loops on conditions that fail on a loop's first iterations (a padded image's top and
// left edges) and on select conditions: the loop is cut into head, main part and tail, the main
// part is guard- and select-free after simplify, and the program computes what it did.
#include <gtest/gtest.h>

#include <vector>

#include "compiler/ir/printer.h"
#include "compiler/passes/passes.h"
#include "ir_counts.h"
#include "ir_interpreter.h"

namespace tf {
namespace {

using namespace ir;  // NOLINT: tests build IR by hand

using testing_support::count_nodes;

int64_t extent_of(const Stmt& s) {
  const auto* f = s.as<ForNode>();
  return f && is_const_int(f->extent) ? f->extent.as<IntImmNode>()->value : -1;
}

void expect_same_result(const Stmt& a, const Stmt& b, const Buffer& in, const Buffer& out, int64_t in_size,
                        int64_t out_size) {
  std::vector<double> input(static_cast<size_t>(in_size));
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<double>(i % 7) + 1;
  std::vector<double> ra(static_cast<size_t>(out_size), 0), rb(static_cast<size_t>(out_size), 0);
  auto ia_in = input, ib_in = input;
  testing_support::IrInterpreter ia, ib;
  ia.bind(in, &ia_in);
  ia.bind(out, &ra);
  ia.run(a);
  ib.bind(in, &ib_in);
  ib.bind(out, &rb);
  ib.run(b);
  EXPECT_EQ(ra, rb);
}

// A 1-D convolution over 40 columns padded by one on each side, in tiles of 4 columns: the first
// tile reads the left padding, the last the right one, the eight between read neither.
TEST(PassesPartitionHead, PaddedTilesLoseTheirSelectsInTheInterior) {
  Var o = make_var("o"), i = make_var("i"), t = make_var("t");
  Buffer in = make_buffer("in", DataType::float32(), {40}, MemoryScope::Arg);
  Buffer out = make_buffer("out", DataType::float32(), {40 * 3}, MemoryScope::Arg);
  Expr x = to_expr(o) * 4 + to_expr(i) + to_expr(t) - 1;
  Expr clamped = min(max(x, Expr(int64_t{0})), Expr(int64_t{39}));
  Expr read =
      make_select(logical_and(x >= Expr(int64_t{0}), x < Expr(int64_t{40})), make_load(in, clamped), Expr(0.0f));
  Stmt s = make_for(o, 0, 10, ForKind::Serial,
                    make_for(i, 0, 4, ForKind::Serial,
                             make_for(t, 0, 3, ForKind::Serial,
                                      make_store(out, (to_expr(o) * 4 + to_expr(i)) * 3 + to_expr(t), read))));
  Stmt p = passes::simplify(passes::partition_loops(s));
  // simplify flattens the one-tile head and tail; the interior is the loop over o that is left.
  const auto* seq = p.as<SeqNode>();
  ASSERT_TRUE(seq) << to_string(p);
  Stmt interior;
  for (const auto& st : seq->stmts) {
    const auto* f = st.as<ForNode>();
    if (f && f->var.get() == o.get()) interior = st;
  }
  ASSERT_TRUE(interior) << to_string(p);
  EXPECT_EQ(extent_of(interior), 8) << to_string(p);
  EXPECT_EQ(count_nodes(interior).selects, 0) << to_string(p);
  EXPECT_GT(count_nodes(p).selects, 0) << "the edge tiles still read the padding\n" << to_string(p);
  expect_same_result(s, p, in, out, 40, 120);
}

TEST(PassesPartitionHead, GuardThatHoldsFromSomeIterationOnCutsAHead) {
  Var o = make_var("o"), i = make_var("i");
  Buffer in = make_buffer("in", DataType::float32(), {1}, MemoryScope::Arg);
  Buffer out = make_buffer("out", DataType::float32(), {80}, MemoryScope::Arg);
  Stmt body =
      make_if(to_expr(o) * 8 + to_expr(i) >= Expr(int64_t{21}), make_store(out, to_expr(o) * 8 + to_expr(i), 1.0f));
  Stmt s = make_for(o, 0, 10, ForKind::Serial, make_for(i, 0, 8, ForKind::Serial, body));
  Stmt p = passes::simplify(passes::partition_loops(s));
  const auto* seq = p.as<SeqNode>();
  ASSERT_TRUE(seq) << to_string(p);
  ASSERT_EQ(seq->stmts.size(), 2u) << to_string(p);
  EXPECT_EQ(extent_of(seq->stmts[1]), 7) << "o = 3..9 always passes\n" << to_string(p);
  EXPECT_EQ(count_nodes(seq->stmts[1]).ifs, 0) << to_string(p);
  expect_same_result(s, p, in, out, 1, 80);
}

// Three kernel taps of which one reads padding: cutting would copy the body for one select.
TEST(PassesPartitionHead, ShortLoopsKeepTheirSelects) {
  Var t = make_var("t");
  Buffer in = make_buffer("in", DataType::float32(), {4}, MemoryScope::Arg);
  Buffer out = make_buffer("out", DataType::float32(), {3}, MemoryScope::Arg);
  Expr x = to_expr(t) - 1;
  Stmt s =
      make_for(t, 0, 3, ForKind::Serial,
               make_store(out, to_expr(t),
                          make_select(x >= Expr(int64_t{0}), make_load(in, max(x, Expr(int64_t{0}))), Expr(0.0f))));
  Stmt p = passes::partition_loops(s);
  EXPECT_TRUE(p.as<ForNode>()) << to_string(p);
}

}  // namespace
}  // namespace tf

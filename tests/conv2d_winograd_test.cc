// Winograd convolution F(m x m, 3 x 3) on the blocked layouts (compiler/ops/winograd.h,
// conv2d_winograd.cc): the generated transforms compute a correlation; every epilogue, every m,
// odd shapes (ragged tiles, channels not a multiple of the block), padding 0 and 1, against the
// direct convolution with transformed weights and against the op's reference (what the tuner
// checks with random inputs) over sampled configs; the generated code's transforms hold no
// multiplies by 0 or 1; shapes Winograd cannot take are refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compiler/compiler.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/winograd.h"
#include "runtime/random_fill.h"
#include "runtime/thread_pool.h"
#include "tests/config_check.h"
#include "tests/op_kernel_run.h"

namespace tf {
namespace {

using testing_support::expect_configs_correct;

class Winograd : public ::testing::Test {
 protected:
  void SetUp() override { runtime::set_num_threads(2); }
};

// One row of the 1-D algorithm: y = A^T [(G g) (.) (B^T d)] is the correlation y_i = sum_k g_k d_{i+k}.
TEST_F(Winograd, TransformsComputeTheCorrelation) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (int64_t m : {2, 4, 6}) {
    const ops::WinogradMatrices& w = ops::winograd_matrices(m);
    ASSERT_EQ(w.alpha, m + 2);
    std::vector<double> g(3), d(static_cast<size_t>(w.alpha));
    for (auto& x : g) x = dist(rng);
    for (auto& x : d) x = dist(rng);
    std::vector<double> prod(static_cast<size_t>(w.alpha));
    for (int64_t a = 0; a < w.alpha; ++a) {
      double gg = 0, dd = 0;
      for (int k = 0; k < 3; ++k) gg += w.g[a][k] * g[k];
      for (int64_t j = 0; j < w.alpha; ++j) dd += w.bt[a][j] * d[j];
      prod[a] = gg * dd;
    }
    for (int64_t i = 0; i < m; ++i) {
      double y = 0, want = 0;
      for (int64_t a = 0; a < w.alpha; ++a) y += w.at[i][a] * prod[a];
      for (int k = 0; k < 3; ++k) want += g[k] * d[i + k];
      EXPECT_NEAR(y, want, 1e-12) << "F(" << m << ",3) output " << i;
    }
    // A^T and B^T are dyadic: their constants are exact in float32.
    for (const auto* mat : {&w.at, &w.bt}) {
      for (const auto& row : *mat) {
        for (double x : row) EXPECT_EQ(std::ldexp(x, 8), std::round(std::ldexp(x, 8))) << "F(" << m << ",3): " << x;
      }
    }
  }
  EXPECT_THROW(ops::winograd_matrices(3), CompileError);
}

// The kernel with a real transformed weight against the direct convolution of that weight:
// within the Winograd evaluation's float bound plus the direct reference's own.
void expect_matches_direct(const std::string& op, const std::string& shape_text, uint64_t seed) {
  SCOPED_TRACE(op + " " + shape_text);
  const auto shape = ops::parse_shape(op, shape_text);
  const auto sh = ops::Conv2dWinogradShape::from_vector(shape);
  const ops::Conv2dShape& c = sh.conv;
  std::vector<float> weight(static_cast<size_t>(c.k * c.c * 9));
  runtime::fill_uniform(weight.data(), static_cast<int64_t>(weight.size()), seed);
  const auto in_shapes = ops::find_operator(op).input_shapes(shape);
  std::vector<std::vector<float>> inputs;
  for (size_t i = 0; i < in_shapes.size(); ++i) {
    inputs.emplace_back(static_cast<size_t>(ops::element_count(in_shapes[i])));
    runtime::fill_uniform(inputs.back().data(), static_cast<int64_t>(inputs.back().size()),
                          runtime::input_seed(seed, static_cast<int>(i)));
  }
  // Padded channels of the blocked data are zero, as every NCHWc producer writes them.
  inputs[0] = ops::activation_to_blocked(
      ops::activation_from_blocked(inputs[0].data(), c.n, c.c, c.h * c.w, sh.ib).data(), c.n, c.c, c.h * c.w, sh.ib);
  inputs[1] = ops::winograd_weight_transform(weight.data(), sh, sh.m);
  const std::vector<float> got = testing_support::run_op_kernel(op, shape, inputs);

  const bool bias = inputs.size() > 2, residual = inputs.size() > 3;
  const bool relu = op.find("relu") != std::string::npos, clip = op.find("clip") != std::string::npos;
  std::vector<float> direct, direct_tol, wino, wino_tol;
  const auto packed = ops::weight_to_packed(weight.data(), c.k, c.c, 9, sh.ib, sh.ob);
  ops::conv2d_nchwc_reference(sh, inputs[0].data(), packed.data(), bias ? inputs[2].data() : nullptr,
                              residual ? inputs[3].data() : nullptr, relu, clip, &direct, &direct_tol);
  ops::conv2d_winograd_reference(sh, inputs[0].data(), inputs[1].data(), bias ? inputs[2].data() : nullptr,
                                 residual ? inputs[3].data() : nullptr, relu, clip, &wino, &wino_tol);
  ASSERT_EQ(got.size(), direct.size());
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - direct[i]);
    if (!(err <= wino_tol[i] + direct_tol[i]) && bad++ < 3) {
      ADD_FAILURE() << "at " << i << ": " << got[i] << " vs direct " << direct[i] << " (bound "
                    << wino_tol[i] + direct_tol[i] << ")";
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST_F(Winograd, EveryTileSizeAgainstTheDirectConvolution) {
  uint64_t seed = 10;
  for (int m : {2, 4, 6}) {
    const std::string ms = ",m=" + std::to_string(m);
    // Ragged tiles (11 and 13 are no multiple of m), channels below and above one block.
    expect_matches_direct("conv2d_winograd_nchwc", "c=7,h=11,w=13,k=11,r=3,s=3,pad=1" + ms, ++seed);
    expect_matches_direct("conv2d_winograd_nchwc", "c=19,h=9,w=10,k=13,r=3,s=3,ib=8,ob=8" + ms, ++seed);
    expect_matches_direct("conv2d_winograd_nchwc_bias_relu", "c=32,h=14,w=14,k=48,r=3,s=3,pad=1" + ms, ++seed);
    expect_matches_direct("conv2d_winograd_nchwc_bias_add_relu",
                          "n=2,c=5,h=8,w=7,k=6,r=3,s=3,pad_top=1,pad_left=0,pad_bottom=2,pad_right=1,ib=4,ob=4" + ms,
                          ++seed);
  }
}

TEST_F(Winograd, SampledConfigsAgreeWithTheReference) {
  uint64_t seed = 40;
  for (int m : {2, 4, 6}) {
    const std::string ms = ",m=" + std::to_string(m);
    // An F(6x6) kernel takes seconds to compile: fewer samples of it.
    const int samples = m == 6 ? 1 : 3;
    expect_configs_correct("conv2d_winograd_nchwc", "c=7,h=11,w=13,k=11,r=3,s=3,pad=1" + ms, samples, ++seed);
    expect_configs_correct("conv2d_winograd_nchwc", "c=37,h=7,w=23,k=41,r=3,s=3" + ms, samples, ++seed);
    expect_configs_correct("conv2d_winograd_nchwc", "n=3,c=5,h=8,w=9,k=7,r=3,s=3,pad=1,ib=2,ob=4" + ms, samples,
                           ++seed);
    expect_configs_correct("conv2d_winograd_nchwc", "c=64,h=28,w=28,k=64,r=3,s=3,pad=1" + ms, samples, ++seed, false);
  }
}

TEST_F(Winograd, EveryEpilogue) {
  uint64_t seed = 70;
  for (const std::string op : {"conv2d_winograd_nchwc_bias", "conv2d_winograd_nchwc_bias_relu",
                               "conv2d_winograd_nchwc_bias_add_relu", "conv2d_winograd_nchwc_bias_clip"}) {
    expect_configs_correct(op, "n=2,c=6,h=9,w=11,k=10,r=3,s=3,pad=1,ib=4,ob=4,m=2", 2, ++seed);
    expect_configs_correct(op, "c=24,h=7,w=13,k=20,r=3,s=3,pad_top=1,pad_left=0,pad_bottom=2,pad_right=1,m=4", 2,
                           ++seed);
    expect_configs_correct(op, "c=16,h=10,w=10,k=16,r=3,s=3,m=6", 1, ++seed, false);
  }
}

// Float multiplies by a constant 0 or +-1 in a lowered kernel.
struct TrivialMultiplies : ir::IRVisitor {
  using ir::IRVisitor::visit;
  int count = 0, multiplies = 0;
  static bool trivial(const ir::Expr& e) {
    const ir::Expr* x = &e;
    if (const auto* b = e.as<ir::BroadcastNode>()) x = &b->value;
    const auto* f = x->as<ir::FloatImmNode>();
    return f && (f->value == 0 || std::fabs(f->value) == 1);
  }
  void visit(const ir::BinaryNode* n) override {
    if (n->op == ir::BinaryOp::Mul && n->a.type().is_float()) {
      ++multiplies;
      if (trivial(n->a) || trivial(n->b)) ++count;
    }
    ir::IRVisitor::visit(n);
  }
};

TEST_F(Winograd, TransformsHoldNoMultipliesByZeroOrOne) {
  for (int m : {2, 4, 6}) {
    const std::string text = "c=16,h=14,w=14,k=16,r=3,s=3,pad=1,m=" + std::to_string(m);
    compiler::Task task({"conv2d_winograd_nchwc", ops::parse_shape("conv2d_winograd_nchwc", text)},
                        codegen::host_target());
    TrivialMultiplies v;
    v.visit(task.lower(task.space().default_config()).body);
    EXPECT_EQ(v.count, 0) << text;
    EXPECT_GT(v.multiplies, 0) << text;  // the GEMM's, and the transforms' other constants
  }
}

TEST_F(Winograd, RefusesShapesItCannotTake) {
  auto message = [](const std::string& text) {
    try {
      ops::check_workload({"conv2d_winograd_nchwc", ops::parse_shape("conv2d_winograd_nchwc", text)});
    } catch (const CompileError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message("c=8,h=9,w=9,k=8,r=3,s=3,stride=2,pad=1").find("stride = 2"), std::string::npos);
  EXPECT_NE(message("c=8,h=9,w=9,k=8,r=5,s=5,pad=2").find("r = 5"), std::string::npos);
  EXPECT_NE(message("c=8,h=9,w=9,k=8,r=3,s=1").find("s = 1"), std::string::npos);
  EXPECT_NE(message("c=8,h=9,w=9,k=8,r=3,s=3,dilation=2,pad=2").find("dilation = 2"), std::string::npos);
  EXPECT_NE(message("c=8,h=9,w=9,k=8,r=3,s=3,m=3").find("m = 3"), std::string::npos);
  EXPECT_NE(message("c=8,h=9,w=9,k=8,r=3,s=3,groups=2").find("groups = 2"), std::string::npos);
  EXPECT_EQ(message("c=8,h=9,w=9,k=8,r=3,s=3,pad=1,m=6"), "");
  // The named form carries m after the blocks; the positional form is conv2d_nchwc's plus m.
  const auto shape = ops::parse_shape("conv2d_winograd_nchwc", "c=8,h=9,w=9,k=8,r=3,s=3,pad=1,m=2");
  const auto nchwc = ops::parse_shape("conv2d_nchwc", "c=8,h=9,w=9,k=8,r=3,s=3,pad=1");
  ASSERT_EQ(shape.size(), nchwc.size() + 1);
  EXPECT_EQ(std::vector<int64_t>(shape.begin(), shape.end() - 1), nchwc);
  EXPECT_EQ(shape.back(), 2);
  EXPECT_EQ(ops::find_operator("conv2d_winograd_nchwc").shape_text(shape),
            "n=1,c=8,h=9,w=9,k=8,r=3,s=3,pad=1,ib=16,ob=16,m=2");
}

}  // namespace
}  // namespace tf

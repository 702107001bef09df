// Fused elementwise chains: the canonical text (one name per expression, read back by the parser),
// kernels built through compiler::Task from an operator instance, broadcasting of ranks 1..4
// against the double-precision reference, refusals naming the extent, and a library with exp and
// erf that a process without LLVM loads and runs, with no libm symbol in it.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include "compiler/compiler.h"
#include "compiler/ir/printer.h"
#include "compiler/kernel_runner.h"
#include "compiler/ops/elementwise.h"
#include "runtime/thread_pool.h"
#include "tests/elementwise_exprs.h"

namespace tf {
namespace {

using ops::ElementwiseKind;
using K = ElementwiseKind;

using testing_support::bin;
using testing_support::c;
using testing_support::un;
using testing_support::x;

// gelu(x) = 0.5 x (1 + erf(x / sqrt 2)), as BERT's exporters write it.
ops::ElementwiseExprPtr gelu(ops::ElementwiseExprPtr v) {
  return bin(K::Mul, bin(K::Mul, v, c(0.5)), bin(K::Add, c(1.0), un(K::Erf, bin(K::Div, v, c(1.4142135623730951)))));
}

void expect_correct(const ops::ElementwiseExprPtr& e, int rank, const std::vector<int64_t>& shape) {
  auto op = std::make_shared<ops::ElementwiseOperator>(e, rank);
  compiler::Task task(op, shape, codegen::host_target());
  compiler::KernelRunner runner(task.op(), shape, 3);
  for (int64_t idx = 0; idx < task.space().size(); ++idx) {
    auto cfg = task.space().at(idx);
    SCOPED_TRACE(op->name() + " " + op->shape_text(shape) + " config " + cfg.str());
    auto kernel = task.build_jit(cfg);
    ASSERT_EQ(runner.run(kernel->entry()), TF_OK);
    auto check = runner.check();
    EXPECT_TRUE(check.pass) << check.mismatches << " mismatches, max abs error " << check.max_abs_error << " at "
                            << check.first_mismatch << "\n"
                            << ir::to_string(task.lower(cfg));
    if (!check.pass) return;
  }
}

TEST(ElementwiseExpr, CanonicalTextReadsBack) {
  auto e = un(K::Relu, bin(K::Add, x(0), bin(K::Mul, x(1), c(0.5))));
  EXPECT_EQ(e->text(), "relu(add(x0,mul(x1,0.5)))");
  EXPECT_EQ(ops::ElementwiseOperator(e, 2).name(), "elementwise[relu(add(x0,mul(x1,0.5)))]");
  for (const auto& t : {std::string("relu(add(x0,mul(x1,0.5)))"), gelu(x(0))->text(),
                        std::string("clip(sub(x0,x2),-1,6)"), std::string("pow(sigmoid(neg(x0)),-0.5)"),
                        std::string("div(tanh(exp(x1)),sqrt(max(x0,1e-05)))"), std::string("min(x0,0.100000001)")}) {
    EXPECT_EQ(ops::parse_elementwise(t)->text(), ops::parse_elementwise(ops::parse_elementwise(t)->text())->text())
        << t;
  }
  // A constant prints as the shortest text of its float32: 0.1 and 0.100000001 are one float.
  EXPECT_EQ(c(0.1)->text(), "0.1");
  EXPECT_EQ(ops::parse_elementwise("min(x0,0.100000001)")->text(), "min(x0,0.1)");
  EXPECT_EQ(ops::parse_elementwise(gelu(x(0))->text())->text(), gelu(x(0))->text());
  EXPECT_EQ(e->num_inputs(), 2);
}

TEST(ElementwiseExpr, BadExpressionsAreRefused) {
  for (const char* t : {"relu(x0", "foo(x0)", "add(x0)", "x", "clip(x0,2,1)", "pow(x0,inf)", "add(x0,x1))", ""}) {
    EXPECT_THROW(ops::parse_elementwise(t), CompileError) << t;
  }
  try {
    ops::parse_elementwise("add(x0,frob(x1))");
    FAIL();
  } catch (const CompileError& err) {
    EXPECT_NE(std::string(err.what()).find("frob"), std::string::npos) << err.what();
    EXPECT_NE(std::string(err.what()).find("position 7"), std::string::npos) << err.what();
  }
  EXPECT_THROW(ops::ElementwiseOperator(nullptr, 2), CompileError);
  EXPECT_THROW(ops::ElementwiseOperator(x(0), 7), CompileError);
  EXPECT_THROW(ops::ElementwiseOperator(c(1.0), 1), CompileError);  // reads no input
}

TEST(Elementwise, IdenticalChainsShareAKernelName) {
  auto a = std::make_shared<ops::ElementwiseOperator>(gelu(x(0)), 2);
  auto b = std::make_shared<ops::ElementwiseOperator>(ops::parse_elementwise(gelu(x(0))->text()), 2);
  auto other = std::make_shared<ops::ElementwiseOperator>(un(K::Tanh, x(0)), 2);
  compiler::Task ta(a, {4, 16}, codegen::host_target()), tb(b, {4, 16}, codegen::host_target()),
      to(other, {4, 16}, codegen::host_target());
  EXPECT_EQ(ta.workload().str(), tb.workload().str());
  EXPECT_EQ(ta.kernel_name(), tb.kernel_name());
  EXPECT_NE(ta.kernel_name(), to.kernel_name());
  for (char ch : ta.kernel_name())
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') << ta.kernel_name();
  EXPECT_EQ(ta.kernel_name().rfind("tf_elementwise_", 0), 0u) << ta.kernel_name();
}

TEST(Elementwise, BroadcastingChainsMatchTheReference) {
  runtime::set_num_threads(2);
  // Rank 1, and a scalar-like input.
  expect_correct(bin(K::Add, x(0), x(1)), 1, {37, 1});
  // Rank 2: a bias row and GELU; odd widths.
  expect_correct(gelu(bin(K::Add, x(0), x(1))), 2, {5, 33, 1, 33});
  expect_correct(un(K::Relu, bin(K::Add, x(0), bin(K::Mul, x(1), c(0.5)))), 2, {3, 7, 3, 1});
  // Rank 3: both inputs broadcast along different axes (the output is their outer product's shape).
  expect_correct(bin(K::Mul, un(K::Sigmoid, x(0)), un(K::Tanh, x(1))), 3, {2, 1, 19, 1, 5, 19});
  // Rank 4, NCHW with a per-channel scale and shift; clip, sqrt of a positive value, exp, neg, pow.
  expect_correct(ops::ew_clip(bin(K::Add, bin(K::Mul, x(0), x(1)), x(2)), 0, 6), 4,
                 {1, 8, 5, 7, 1, 8, 1, 1, 1, 8, 1, 1});
  expect_correct(bin(K::Div, un(K::Exp, un(K::Neg, x(0))), un(K::Sqrt, bin(K::Add, ops::ew_pow(x(1), 2), c(1e-3)))), 4,
                 {2, 3, 4, 18, 1, 1, 4, 18});
  expect_correct(bin(K::Sub, bin(K::Max, x(0), x(1)), ops::ew_pow(un(K::Sigmoid, x(0)), 1.5)), 2, {64, 100, 64, 100});
  expect_correct(bin(K::Min, ops::ew_pow(bin(K::Add, x(0), c(2)), -0.5), ops::ew_pow(x(0), 3)), 3, {3, 4, 50});
}

TEST(Elementwise, ShapesThatDoNotBroadcastAreRefusedNamingTheExtent) {
  auto op = std::make_shared<ops::ElementwiseOperator>(bin(K::Add, x(0), x(1)), 2);
  try {
    compiler::Task task(op, {4, 16, 3, 16}, codegen::host_target());
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("x1_d0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(compiler::Task(op, {4, 16, 16}, codegen::host_target()), CompileError);  // one extent short
  EXPECT_THROW(compiler::Task(op, {4, 0, 1, 16}, codegen::host_target()), CompileError);
  EXPECT_EQ(op->shape_text({4, 16, 1, 16}), "x0=4x16,x1=1x16");
}

std::string run_command(const std::string& cmd, int* exit_code) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = ::pclose(p);
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

TEST(Elementwise, TranscendentalKernelLoadsWithoutLlvmOrLibm) {
  const int64_t rows = 3, cols = 45;
  auto op = std::make_shared<ops::ElementwiseOperator>(bin(K::Add, un(K::Exp, x(0)), un(K::Erf, x(0))), 2);
  compiler::Task task(op, {rows, cols}, codegen::host_target());
  auto lib = task.build_shared_library(task.space().default_config());
  char dir_template[] = "/tmp/tf-ew-loader-XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  std::ofstream(dir + "/kernel.so", std::ios::binary)
      .write(reinterpret_cast<const char*>(lib.bytes.data()), static_cast<std::streamsize>(lib.bytes.size()));
  std::vector<float> in(rows * cols);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uni(-4, 4);
  for (auto& v : in) v = uni(rng);
  std::ofstream(dir + "/x.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(in.data()), static_cast<std::streamsize>(in.size() * 4));
  std::ofstream(dir + "/y.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(in.data()), static_cast<std::streamsize>(in.size() * 4));
  std::ofstream(dir + "/spec.txt") << "float32 2 " << rows << " " << cols << " " << dir << "/x.bin\n"
                                   << "float32 2 " << rows << " " << cols << " " << dir << "/y.bin\n";
  int rc = 0;
  std::string out = run_command(
      std::string(TF_KERNEL_LOADER) + " " + dir + "/kernel.so " + lib.entry_symbol + " " + dir + "/spec.txt 2>&1", &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("libllvm_loaded 0"), std::string::npos) << out;
  std::vector<float> got(in.size());
  std::ifstream(dir + "/y.bin", std::ios::binary)
      .read(reinterpret_cast<char*>(got.data()), static_cast<std::streamsize>(got.size() * 4));
  for (size_t i = 0; i < in.size(); ++i) {
    const double want = std::exp(static_cast<double>(in[i])) + std::erf(static_cast<double>(in[i]));
    ASSERT_NEAR(got[i], want, 1e-6 * std::fabs(want) + 1e-6) << "x = " << in[i];
  }
  // Nothing the library leaves for the loader to resolve is a math function.
  std::string symbols = run_command("nm -D --undefined-only " + dir + "/kernel.so 2>&1", &rc);
  EXPECT_EQ(rc, 0) << symbols;
  for (const char* f : {"expf", "erff", "tanhf", "logf", "powf", "exp", "erf"}) {
    EXPECT_EQ(symbols.find(std::string(" ") + f + "\n"), std::string::npos) << f << " in\n" << symbols;
  }
  run_command("rm -rf " + dir, &rc);
}

}  // namespace
}  // namespace tf

// Whole-pipeline conformance with ONNX's own node tests (Debian libonnx-testdata): every node test
// imported, planned, built into a compiled model with default configs (build_model) and run by the
// model executor, its outputs compared with ONNX's expected ones. Each test ends in one of these
// ways, counted per op: it passes as ONNX feeds it; it passes once its float inputs after the first
// are constants (weights, as a model holds them: tunefarm's dense, batch norm, Clip and Pow take
// them only so); tunefarm refuses it by name (a CompileError naming the node, op
// or input: an op, attribute, dtype or opset it does not take), or it fails (wrong numbers or
// shapes, or any other error). A failure fails the test; so does a refusal that names nothing.
//
// TF_CONFORMANCE_TABLE=FILE writes the per-op counts as a markdown table (docs/conformance.md;
// scripts/conformance-table.sh); TF_CONFORMANCE_VERBOSE=1 prints every node test's outcome.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

#include "compiler/codegen/target.h"
#include "compiler/error.h"
#include "graph/build.h"
#include "graph/host_tensors.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "runtime/model/executor.h"
#include "tests/onnx_node_data.h"

namespace tf::graph {
namespace {

using testing::NodeTest;

// Per element |got - expected| <= relative * |expected| + kAbsolute: relative where the value is
// not tiny, and an absolute floor of float32 rounding scale for values near zero. A node test is
// one op (1e-4); a whole exported model sums over many layers in another order than PyTorch did,
// so it gets ONNX's own backend-test bound (1e-3).
constexpr double kNodeRelative = 1e-4;
constexpr double kModelRelative = 1e-3;
constexpr double kAbsolute = 1e-6;

enum class Verdict { Pass, PassConstantWeights, Refused, Fail };

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::PassConstantWeights: return "pass (constant weights)";
    case Verdict::Refused: return "refused";
    default: return "FAIL";
  }
}

struct Outcome {
  Verdict verdict = Verdict::Fail;
  std::string detail;  // the refusal or the failure
};

// "" when `got` is ONNX's expected output within the tolerance; else the first difference.
std::string compare(const std::string& out, const HostTensor& got, const Tensor& expected, double relative) {
  if (got.shape != expected.shape)
    return out + ": shape " + shape_str(got.shape) + ", expected " + shape_str(expected.shape);
  if (got.dtype != expected.dtype)
    return out + ": dtype " + dtype_name(got.dtype) + ", expected " + dtype_name(expected.dtype);
  if (got.elements() != expected.size()) return out + ": " + std::to_string(got.elements()) + " elements";
  for (int64_t i = 0; i < expected.size(); ++i) {
    const double e = expected.at(i), a = got.at(i);
    if (std::isnan(e) && std::isnan(a)) continue;
    if (std::isinf(e) && a == e) continue;
    if (!(std::abs(a - e) <= relative * std::abs(e) + kAbsolute)) {
      return out + "[" + std::to_string(i) + "] = " + std::to_string(a) + ", expected " + std::to_string(e);
    }
  }
  return "";
}

// Import, plan, build and run: throws CompileError when tunefarm refuses the test's model.
std::string run_compiled(const std::string& name, const NodeTest& t, double relative) {
  const Graph planned = plan_graph(import_onnx_bytes(t.model, name));
  BuildOptions options;
  options.target = codegen::host_target();
  runtime::model::Executor exec(build_model(planned, options));
  runtime::model::HostTensors feeds;
  for (const auto& [input, tensor] : t.inputs) feeds[input] = to_host_tensor(tensor);
  const auto got = exec.run(feeds);
  for (const auto& [out, bytes] : t.expected) {
    if (!got.count(out)) return out + ": the compiled model has no such output";
    const std::string diff = compare(out, got.at(out), import_onnx_tensor(bytes, name + " output " + out), relative);
    if (!diff.empty()) return diff;
  }
  return "";
}

Outcome conform_as(const std::string& suite, const std::string& name, bool constant_weights) {
  try {
    const double relative = suite == "node" ? kNodeRelative : kModelRelative;
    const std::string diff = run_compiled(name, testing::load_node_test(name, constant_weights, suite), relative);
    if (!diff.empty()) return {Verdict::Fail, diff};
    return {constant_weights ? Verdict::PassConstantWeights : Verdict::Pass, ""};
  } catch (const CompileError& e) {
    return {Verdict::Refused, e.what()};
  } catch (const std::exception& e) {
    return {Verdict::Fail, std::string("exception: ") + e.what()};
  }
}

// Node tests whose expected outputs libonnx-testdata computed with pi as 3.1415, 2e-4 away from
// the window ONNX defines (onnx/onnx#5316; ONNX regenerated them later). Not compared, and
// counted as refused, never as a pass; tests/onnx_window_functions_test.cc checks the definition.
bool stale_expected_data(const std::string& name) {
  static const std::set<std::string> stale = {"test_blackmanwindow", "test_blackmanwindow_symmetric",
                                              "test_hammingwindow",  "test_hammingwindow_symmetric",
                                              "test_hannwindow",     "test_hannwindow_symmetric"};
  return stale.count(name) != 0;
}

// As ONNX feeds it (every float a runtime input); when that is refused, once more with the weights
// constant, as models hold them. The first refusal is the one reported.
Outcome conform(const std::string& name, const std::string& suite = "node") {
  if (suite == "node" && stale_expected_data(name))
    return {Verdict::Refused, name + ": its expected data approximates pi as 3.1415 (onnx/onnx#5316)"};
  const Outcome as_onnx_feeds_it = conform_as(suite, name, false);
  if (as_onnx_feeds_it.verdict != Verdict::Refused) return as_onnx_feeds_it;
  const Outcome with_constant_weights = conform_as(suite, name, true);
  return with_constant_weights.verdict == Verdict::Refused ? as_onnx_feeds_it : with_constant_weights;
}

// A one-node test counts under its op; ONNX's function expansions and other multi-node tests
// under one row of their own.
std::string op_of(const std::vector<std::string>& op_types) {
  if (op_types.size() == 1) return op_types[0];
  return op_types.empty() ? "(model.onnx does not parse)" : "(multi-node tests)";
}

// The refusal names the node, an op of the test, one of its inputs or outputs, or the test itself
// (its opset, its test data).
bool names_what_it_refuses(const std::string& error, const std::string& name, const testing::NodeTestSummary& test) {
  if (error.find(name) != std::string::npos || error.find("node '") != std::string::npos) return true;
  for (const auto& op : test.op_types) {
    if (error.find(op) != std::string::npos) return true;
  }
  for (const auto& value : test.value_names) {
    if (error.find("'" + value + "'") != std::string::npos) return true;
  }
  return false;
}

// A refusal without the prefixes that say where ("test_x (opset 13): node 'n' (Op, opset 13): ").
std::string reason_of(const std::string& error) {
  const auto at = error.rfind("): ");
  return at == std::string::npos ? error : error.substr(at + 3);
}

struct Counts {
  int pass = 0, pass_constant_weights = 0, refused = 0, fail = 0;
  bool only_unsupported_op = true;  // every refusal was "op X is not supported" or of an input's dtype
  std::string first_refusal;
  int total() const { return pass + pass_constant_weights + refused + fail; }
};

std::string row(const std::string& op, const Counts& c, const std::string& refusal) {
  return "| " + op + " | " + std::to_string(c.total()) + " | " + std::to_string(c.pass) + " | " +
         std::to_string(c.pass_constant_weights) + " | " + std::to_string(c.refused) + " | " + std::to_string(c.fail) +
         " | " + refusal + " |\n";
}

std::string markdown_table(const std::map<std::string, Counts>& by_op) {
  Counts sum;
  std::string table =
      "| op | node tests | pass | pass, weights constant | refused | fail | a refusal |\n|---|---:|---:|---:|---:|---:|---|\n";
  std::vector<std::string> unsupported;
  for (const auto& [op, c] : by_op) {
    sum.pass += c.pass, sum.pass_constant_weights += c.pass_constant_weights, sum.refused += c.refused,
        sum.fail += c.fail;
    if (c.pass == 0 && c.pass_constant_weights == 0 && c.fail == 0 && c.only_unsupported_op) {
      unsupported.push_back(op + " (" + std::to_string(c.refused) + ")");
      continue;
    }
    std::string why = c.first_refusal.substr(0, 140);
    for (char& ch : why) ch = ch == '|' || ch == '\n' ? ' ' : ch;
    table += row(op, c, why);
  }
  table += row("**all**", sum, "");
  std::string text =
      table +
      "\nOps whose every node test is refused as an op tunefarm does not import or for inputs of a dtype it does not take (node tests in brackets): ";
  for (size_t i = 0; i < unsupported.size(); ++i) text += (i ? ", " : "") + unsupported[i];
  return text + ".\n";
}

TEST(OnnxConformance, EveryNodeTestPassesOrIsRefusedByNameThroughCompiledKernels) {
  const auto names = testing::list_node_tests();
  if (names.empty()) GTEST_SKIP() << "libonnx-testdata is not installed (scripts/setup.sh)";
  const auto start = std::chrono::steady_clock::now();
  std::map<std::string, Counts> by_op;
  const bool verbose = std::getenv("TF_CONFORMANCE_VERBOSE") != nullptr;
  for (const auto& name : names) {
    const testing::NodeTestSummary test = testing::summarize_node_test(name);
    const auto& op_types = test.op_types;
    const Outcome o = conform(name);
    if (verbose) std::printf("%s: %s %s\n", name.c_str(), verdict_name(o.verdict), o.detail.c_str());
    Counts& c = by_op[op_of(op_types)];
    switch (o.verdict) {
      case Verdict::Pass: ++c.pass; break;
      case Verdict::PassConstantWeights: ++c.pass_constant_weights; break;
      case Verdict::Refused:
        ++c.refused;
        // An op tunefarm does not import at all, or test data of a dtype it does not take, says
        // nothing about the op's support; anything else goes in the op's row.
        if (op_types.size() != 1 || (o.detail.find("op " + op_types[0] + " is not supported") == std::string::npos &&
                                     o.detail.find(": dtype ") == std::string::npos)) {
          c.only_unsupported_op = false;
          if (c.first_refusal.empty()) c.first_refusal = name + ": " + reason_of(o.detail);
        }
        EXPECT_TRUE(names_what_it_refuses(o.detail, name, test))
            << name << " refused without naming what: " << o.detail;
        break;
      case Verdict::Fail:
        ++c.fail;
        ADD_FAILURE() << name << ": " << o.detail;
        break;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string table = markdown_table(by_op);
  const std::string all = table.substr(table.find("| **all**"));
  std::printf("%zu node tests in %.1f s: %s", names.size(), seconds, all.substr(0, all.find('\n') + 1).c_str());
  if (verbose) std::printf("\n%s", table.c_str());
  if (const char* path = std::getenv("TF_CONFORMANCE_TABLE")) std::ofstream(path) << table;

  // The ops every model the tests build relies on pass ONNX's tests through compiled kernels.
  // Ops at opsets 1-21 with every version's rules (graph/ops/): Gemm's alpha/beta/transA, Softmax
  // on any axis, a standalone BatchNormalization, the variadic elementwise ops.
  for (const char* op : {"Add",
                         "Sub",
                         "Mul",
                         "Div",
                         "Relu",
                         "Conv",
                         "MatMul",
                         "MaxPool",
                         "AveragePool",
                         "Softmax",
                         "Transpose",
                         "Concat",
                         "Gemm",
                         "BatchNormalization",
                         "Sum",
                         "Mean",
                         "Max",
                         "Min",
                         "Neg",
                         "Exp",
                         "Unsqueeze",
                         "Squeeze",
                         "Flatten",
                         "Dropout",
                         "QuantizeLinear",
                         "DequantizeLinear",
                         "DynamicQuantizeLinear",
                         "QLinearConv",
                         "QLinearMatMul",
                         "ConvInteger",
                         "MatMulInteger"}) {
    EXPECT_GT(by_op[op].pass, 0) << op << " passes none of its node tests";
  }
  for (const char* op : {"Clip", "Pow"}) {
    EXPECT_GT(by_op[op].pass + by_op[op].pass_constant_weights, 0)
        << op << " passes none of its node tests, even with constant weights";
  }
}

// The models exported from PyTorch (pytorch-converted, pytorch-operator) and the small hand-written
// ones (simple): whole models, each passing or refused naming what, none failing.
TEST(OnnxConformance, ExportedModelSuitesPassOrAreRefusedByName) {
  const bool verbose = std::getenv("TF_CONFORMANCE_VERBOSE") != nullptr;
  int all = 0, passed = 0;
  std::string summary;
  for (const std::string suite : {"pytorch-converted", "pytorch-operator", "simple"}) {
    const auto names = testing::list_node_tests(suite);
    if (names.empty()) GTEST_SKIP() << "libonnx-testdata is not installed (scripts/setup.sh)";
    Counts c;
    for (const auto& name : names) {
      const Outcome o = conform(name, suite);
      if (verbose)
        std::printf("%s/%s: %s %s\n", suite.c_str(), name.c_str(), verdict_name(o.verdict), o.detail.c_str());
      switch (o.verdict) {
        case Verdict::Pass: ++c.pass; break;
        case Verdict::PassConstantWeights: ++c.pass_constant_weights; break;
        case Verdict::Refused:
          ++c.refused;
          EXPECT_TRUE(names_what_it_refuses(o.detail, name, testing::summarize_node_test(name, suite)))
              << suite << "/" << name << " refused without naming what: " << o.detail;
          break;
        case Verdict::Fail:
          ++c.fail;
          ADD_FAILURE() << suite << "/" << name << ": " << o.detail;
          break;
      }
    }
    all += c.total();
    passed += c.pass + c.pass_constant_weights;
    summary += row(suite, c, "");
  }
  std::printf(
      "exported-model suites: %d of %d pass\n| suite | models | pass | pass, weights constant | refused | fail | |\n|---|---:|---:|---:|---:|---:|---|\n%s",
      passed, all, summary.c_str());
  EXPECT_GT(passed, 0);
}

}  // namespace
}  // namespace tf::graph

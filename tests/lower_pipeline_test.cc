// The lowering pipeline as a list of named passes: the names `tunefarm lower --dump-after` takes,
// the observer seeing each pass the stage runs, and every pass leaving IR that ir::verify accepts on
// the kernels real models build (lower() checks that itself only in builds with assertions).
#include <gtest/gtest.h>

#include <set>

#include "compiler/compiler.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verify.h"
#include "graph/kernel_calls.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "graph/tasks.h"
#include "tests/test_files.h"

namespace tf {
namespace {

std::vector<std::string> observed_passes(const compiler::Task& task, lower::LowerStage stage,
                                         std::string* last_text = nullptr) {
  std::vector<std::string> passes;
  lower::LowerOptions opts;
  opts.stage = stage;
  opts.after_pass = [&](const std::string& pass, const ir::LoweredFunc& f) {
    passes.push_back(pass);
    if (last_text) *last_text = ir::to_string(f);
  };
  const ir::LoweredFunc f = task.lower(task.space().default_config(), opts);
  if (last_text) {
    EXPECT_EQ(*last_text, ir::to_string(f)) << "the last pass's kernel is what lower returns";
  }
  return passes;
}

TEST(LowerPipeline, NamesEachPassOnceInTheOrderItFirstRuns) {
  EXPECT_EQ(lower::lower_pass_names(),
            (std::vector<std::string>{"schedule_ops", "simplify", "partition_loops", "unroll_loops", "vectorize_loops",
                                      "fuse_dot_products"}));
}

TEST(LowerPipeline, TheObserverSeesEveryPassTheStageRuns) {
  const compiler::Task task(ops::Workload{"dense", {64, 64, 64}}, codegen::host_target());
  std::string last;
  EXPECT_EQ(observed_passes(task, lower::LowerStage::Scheduled, &last), (std::vector<std::string>{"schedule_ops"}));
  EXPECT_EQ(observed_passes(task, lower::LowerStage::Rolled, &last),
            (std::vector<std::string>{"schedule_ops", "simplify", "partition_loops", "simplify"}));
  EXPECT_EQ(
      observed_passes(task, lower::LowerStage::Full, &last),
      (std::vector<std::string>{"schedule_ops", "simplify", "partition_loops", "simplify", "unroll_loops", "simplify",
                                "partition_loops", "simplify", "vectorize_loops", "simplify", "fuse_dot_products"}));
}

// Every kernel a model's nodes call (and each tunable alternative), at its default config and, with
// `more_configs`, two others: each pass leaves IR the verifier accepts.
void expect_every_pass_verifies(const std::string& model, bool more_configs) {
  SCOPED_TRACE(model);
  const graph::Graph planned = graph::plan_graph(graph::import_onnx_file(testing_support::model_path(model)),
                                                 graph::plan_options_for(codegen::host_target()));
  std::vector<std::unique_ptr<compiler::Task>> tasks;
  std::set<std::string> seen;
  for (const auto& n : planned.nodes) {
    const graph::NodeLowering l = graph::lower_node(planned, n);
    if (l.call && seen.insert(l.call->workload().str()).second) {
      tasks.push_back(std::make_unique<compiler::Task>(l.call->op, l.call->shape, codegen::host_target()));
    }
  }
  for (const auto& t : graph::tunable_tasks(planned)) {
    if (seen.insert(t.workload.str()).second)
      tasks.push_back(std::make_unique<compiler::Task>(t.workload, codegen::host_target()));
  }
  ASSERT_GT(tasks.size(), 3u);
  int checked = 0;
  for (const auto& task : tasks) {
    const int64_t size = task->space().size();
    std::vector<space::Config> configs = {task->space().default_config()};
    if (more_configs) configs.insert(configs.end(), {task->space().at(size / 3), task->space().at(size - 1)});
    for (const space::Config& cfg : configs) {
      SCOPED_TRACE(task->workload().str() + " config " + cfg.str());
      lower::LowerOptions opts;
      opts.after_pass = [&](const std::string& pass, const ir::LoweredFunc& f) {
        try {
          ir::verify(f);
          ++checked;
        } catch (const CompileError& e) {
          ADD_FAILURE() << "after " << pass << ": " << e.what();
        }
      };
      task->lower(cfg, opts);
    }
  }
  EXPECT_GE(checked, static_cast<int>(tasks.size()) * 10);
}

TEST(LowerPipeline, EveryPassLeavesValidIrOnTheKernelsOfModels) {
  expect_every_pass_verifies("small_cnn", true);
  expect_every_pass_verifies("bert_layer", true);
  expect_every_pass_verifies("mobilenetv2", false);  // for its depthwise and pooling kernels
}

// ---------------------------------------------------------------- the verifier on hand-built IR

namespace verify_on_hand_built_ir {
using namespace ir;  // NOLINT: tests build IR by hand

struct VerifyFixture {
  Buffer in = make_buffer("in", DataType::float32(), {8}, MemoryScope::Arg);
  Buffer out = make_buffer("out", DataType::float32(), {8}, MemoryScope::Arg);
  Var i = make_var("i");

  LoweredFunc kernel(Stmt body) const { return LoweredFunc{"k", {in, out}, std::move(body)}; }
  Stmt copy_loop(const Var& v, Stmt inner = Stmt()) const {
    return make_for(v, 0, 8, ForKind::Serial,
                    make_seq({make_store(out, to_expr(v), make_load(in, to_expr(v))), inner}));
  }
};

std::string verify_error(const LoweredFunc& f) {
  try {
    verify(f);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

TEST(IrVerify, AcceptsVariablesAndBuffersInScope) {
  VerifyFixture x;
  Buffer tmp = make_buffer("tmp", DataType::float32(), {8}, MemoryScope::Stack);
  Var j = make_var("j"), t = make_var("t");
  Stmt body = make_seq(
      {x.copy_loop(x.i), x.copy_loop(x.i),  // one variable bound by two loops in turn
       make_allocate(tmp, make_for(j, 0, 8, ForKind::Serial,
                                   make_let(t, to_expr(j) * 2,
                                            make_store(tmp, to_expr(j), make_load(x.in, floormod(to_expr(t), 8))))))});
  EXPECT_EQ(verify_error(x.kernel(body)), "");
}

TEST(IrVerify, RejectsAVariableReadOutsideItsLoop) {
  VerifyFixture x;
  Stmt body = make_seq({x.copy_loop(x.i), make_store(x.out, to_expr(x.i), 0.0f)});
  EXPECT_EQ(verify_error(x.kernel(body)), "kernel k: variable 'i' is read outside the loop or let that binds it");
  Var t = make_var("t");
  Stmt in_its_own_value = make_let(t, to_expr(t) + 1, make_store(x.out, to_expr(t), 0.0f));
  EXPECT_NE(verify_error(x.kernel(in_its_own_value)).find("variable 't' is read outside"), std::string::npos);
}

TEST(IrVerify, RejectsAVariableBoundInsideItsOwnScope) {
  VerifyFixture x;
  EXPECT_EQ(verify_error(x.kernel(x.copy_loop(x.i, x.copy_loop(x.i)))),
            "kernel k: variable 'i' is bound again inside its own scope");
}

TEST(IrVerify, RejectsBuffersThatAreNeitherArgumentsNorAllocated) {
  VerifyFixture x;
  Buffer tmp = make_buffer("tmp", DataType::float32(), {8}, MemoryScope::Heap);
  Stmt store = make_for(x.i, 0, 8, ForKind::Serial, make_store(tmp, to_expr(x.i), make_load(x.in, to_expr(x.i))));
  EXPECT_EQ(verify_error(x.kernel(store)),
            "kernel k: stores to 'tmp', which is neither an argument nor allocated around it");
  Stmt load_after = make_seq({make_allocate(tmp, store), make_store(x.out, 0, make_load(tmp, 0))});
  EXPECT_EQ(verify_error(x.kernel(load_after)),
            "kernel k: loads from 'tmp', which is neither an argument nor allocated around it");
  EXPECT_EQ(verify_error(x.kernel(make_allocate(x.in, store))), "kernel k: allocates 'in' as an Arg buffer");
  LoweredFunc heap_argument = x.kernel(make_allocate(tmp, store));
  heap_argument.args.push_back(tmp);
  EXPECT_EQ(verify_error(heap_argument), "kernel k: argument 'tmp' is not an Arg buffer");
}

TEST(IrVerify, RejectsReductionsLeftUnlowered) {
  VerifyFixture x;
  IterVar k = make_iter_var("k", 0, 8, IterKind::Reduce);
  Stmt sum = make_store(x.out, 0, make_reduce(ReduceKind::Sum, make_load(x.in, to_expr(k->var)), {k}));
  EXPECT_EQ(verify_error(x.kernel(sum)), "kernel k: a reduction is left unlowered");
}

}  // namespace verify_on_hand_built_ir
}  // namespace
}  // namespace tf

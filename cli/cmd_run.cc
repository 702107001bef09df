#include <cstdio>

#include "cli/commands.h"
#include "cli/kernel_runner.h"
#include "cli/workload_args.h"
#include "runtime/thread_pool.h"
#include "support/measure_args.h"
#include "support/stats.h"

namespace tf::cli {

namespace {

struct RunOptions {
  WorkloadArgs workload;
  ConfigArgs config;
  MeasureArgs measure;
  codegen::CodegenOptions codegen;
  bool json = false;
};

int run_command(const RunOptions& o) {
  auto task = make_task(o.workload);
  space::Config cfg = config_from_args(o.config, *task);
  const int64_t threads = o.config.threads, repeat = o.measure.repeat;
  runtime::set_num_threads(o.config.threads);

  compiler::BuildTimes times;
  const codegen::CodegenOptions& codegen_opts = o.codegen;
  auto kernel = task->build_jit(cfg, &times, codegen_opts);
  KernelRunner runner(task->op(), task->workload().shape);
  int32_t status = runner.run(kernel->entry());
  if (status != TF_OK) {
    std::fprintf(stderr, "tunefarm run: kernel %s returned %d: %s\n", task->kernel_name().c_str(), status,
                 tf_kernel_status_str(status));
    return 1;
  }
  CheckResult check = runner.check();
  std::vector<double> secs = runner.time(kernel->entry(), o.measure.min_ms, o.measure.repeat);
  const double median = tf::median(secs);
  double gflops = static_cast<double>(task->op().flops(task->workload().shape)) / median * 1e-9;

  if (o.json) {
    json::Value out = json::Value::object();
    out.set("workload", task->workload().str());
    out.set("op", task->workload().op);
    json::Value shape = json::Value::array();
    for (int64_t d : task->workload().shape) shape.push(d);
    out.set("shape", shape);
    out.set("target", task->target().str());
    out.set("config", cfg.to_json());
    out.set("config_index", cfg.index());
    out.set("threads", threads);
    out.set("gflops", gflops);
    out.set("time_ms", median * 1e3);
    json::Value all = json::Value::array();
    for (double s : secs) all.push(s * 1e3);
    out.set("times_ms", all);
    json::Value compile = json::Value::object();
    compile.set("lower_ms", times.lower_ms);
    compile.set("codegen_ms", times.codegen_ms);
    out.set("compile_ms", times.lower_ms + times.codegen_ms);
    out.set("compile_breakdown", compile);
    out.set("check", check.pass ? "pass" : "fail");
    out.set("max_abs_error", check.max_abs_error);
    out.set("mismatches", check.mismatches);
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("%s  config %s (index %lld)\n", task->workload().str().c_str(), cfg.str().c_str(),
                static_cast<long long>(cfg.index()));
    std::printf("  %.2f GFLOPS  %.3f ms median of %lld  threads %lld\n", gflops, median * 1e3,
                static_cast<long long>(repeat), static_cast<long long>(threads));
    std::printf("  compile %.1f ms (lower %.1f, codegen %.1f)\n", times.lower_ms + times.codegen_ms, times.lower_ms,
                times.codegen_ms);
    std::printf("  check %s (max abs error %.3g, %lld mismatches)\n", check.pass ? "pass" : "FAIL",
                check.max_abs_error, static_cast<long long>(check.mismatches));
  }
  return check.pass ? 0 : 1;
}

}  // namespace

void add_run(CLI::App& tunefarm, Commands& commands) {
  auto o = std::make_shared<RunOptions>();
  o->measure.repeat = 5;
  o->measure.min_ms = 100;
  CLI::App* cmd = tunefarm.add_subcommand("run", "compile a config, run it, check it, report GFLOPS");
  cmd->footer("Compiles a config of a workload with LLVM (in-process JIT), runs it on random inputs, checks the result\n"
              "against a plain reference, and reports GFLOPS (the median of --repeat timings). Exit 1 when the check fails.");
  add_workload_options(*cmd, o->workload);
  add_config_options(*cmd, o->config);
  add_threads_option(*cmd, o->config.threads, "threads of the runtime's pool");
  add_measure_options(*cmd, o->measure, kTiming);
  cmd->add_option("--opt-level", o->codegen.opt_level, "LLVM optimisation level 0-3 (lower compiles faster; for debugging)")
      ->type_name("N")
      ->check(CLI::Range(0, 3));
  cmd->add_flag("--llvm-o3", o->codegen.llvm_o3, "optimise with LLVM's whole O3 pipeline instead of the kernel pipeline");
  cmd->add_flag("--json", o->json, "print JSON");
  commands.on(cmd, [o] { return run_command(*o); });
}

}  // namespace tf::cli

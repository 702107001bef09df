#include <cstdio>
#include <stdexcept>

#include "cli/commands.h"
#include "cli/workload_args.h"
#include "compiler/kernel_runner.h"
#include "runtime/measure.h"
#include "runtime/thread_pool.h"
#include "support/measure_args.h"
#include "support/stats.h"
#include "tuner/tune_job.h"

namespace tf::cli {

namespace {

struct RunOptions {
  WorkloadArgs workload;
  ConfigArgs config;
  MeasureArgs measure;
  codegen::CodegenOptions codegen;
  bool json = false;
};

// Timed as a worker times a candidate (runtime/measure.h), rotating through copies of the cold inputs.
std::vector<double> cold_timings(const compiler::Task& task, TFKernelFn fn, const MeasureArgs& m,
                                 runtime::ColdInputs cold) {
  runtime::KernelBench bench(tuner::make_workload_setup(task, 1));
  runtime::MeasureOptions opts;
  opts.min_repeat_ms = m.min_ms;
  opts.repeat = m.repeat;
  opts.cold_inputs = cold;
  const runtime::MeasureResult r = bench.measure(fn, opts);
  if (r.status != runtime::MeasureStatus::Ok) throw std::runtime_error("cold timing: " + r.error);
  std::fprintf(stderr, "tunefarm run: %s inputs cold, rotating through %d copies\n", runtime::cold_inputs_name(cold),
               bench.rotation());
  return r.costs;
}

int run_command(const RunOptions& o) {
  auto task = make_task(o.workload);
  runtime::ColdInputs cold = runtime::ColdInputs::Off;
  runtime::parse_cold_inputs(o.measure.cold_inputs, &cold);
  space::Config cfg = config_from_args(o.config, *task, cold);
  const int64_t threads = o.config.threads, repeat = o.measure.repeat;
  runtime::set_num_threads(o.config.threads);

  compiler::BuildTimes times;
  const codegen::CodegenOptions& codegen_opts = o.codegen;
  auto kernel = task->build_jit(cfg, &times, codegen_opts);
  compiler::KernelRunner runner(task->op(), task->workload().shape, 1, task->argument_types());
  int32_t status = runner.run(kernel->entry());
  if (status != TF_OK) {
    std::fprintf(stderr, "tunefarm run: kernel %s returned %d: %s\n", task->kernel_name().c_str(), status,
                 tf_kernel_status_str(status));
    return 1;
  }
  compiler::CheckResult check = runner.check();
  const std::vector<double> secs = cold == runtime::ColdInputs::Off
                                       ? runner.time(kernel->entry(), o.measure.min_ms, o.measure.repeat)
                                       : cold_timings(*task, kernel->entry(), o.measure, cold);
  const double median = tf::median(secs);
  double gflops = static_cast<double>(task->op().flops(task->workload().shape)) / median * 1e-9;

  if (o.json) {
    Json out = Json::object();
    out["workload"] = task->workload().str();
    out["op"] = task->workload().op;
    Json shape = Json::array();
    for (int64_t d : task->workload().shape) shape.push_back(d);
    out["shape"] = shape;
    out["target"] = task->target().str();
    out["config"] = cfg.to_json();
    out["config_index"] = cfg.index();
    out["threads"] = threads;
    out["gflops"] = gflops;
    out["time_ms"] = median * 1e3;
    Json all = Json::array();
    for (double s : secs) all.push_back(s * 1e3);
    out["times_ms"] = all;
    Json compile = Json::object();
    compile["lower_ms"] = times.lower_ms;
    compile["codegen_ms"] = times.codegen_ms;
    out["compile_ms"] = times.lower_ms + times.codegen_ms;
    out["compile_breakdown"] = compile;
    out["check"] = check.pass ? "pass" : "fail";
    out["max_abs_error"] = check.max_abs_error;
    out["mismatches"] = check.mismatches;
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("%s  config %s (index %lld)\n", task->workload().str().c_str(), cfg.str().c_str(),
                static_cast<long long>(cfg.index()));
    std::printf("  %.2f GFLOPS  %.3f ms median of %lld  threads %lld\n", gflops, median * 1e3,
                static_cast<long long>(repeat), static_cast<long long>(threads));
    std::printf("  compile %.1f ms (lower %.1f, codegen %.1f)\n", times.lower_ms + times.codegen_ms, times.lower_ms,
                times.codegen_ms);
    std::printf("  check %s (max abs error %.3g, %lld mismatches)\n", check.pass ? "pass" : "FAIL", check.max_abs_error,
                static_cast<long long>(check.mismatches));
  }
  return check.pass ? 0 : 1;
}

}  // namespace

void add_run(CLI::App& tunefarm, Commands& commands) {
  auto o = std::make_shared<RunOptions>();
  o->measure.repeat = 5;
  o->measure.min_ms = 100;
  CLI::App* cmd = tunefarm.add_subcommand("run", "compile a config, run it, check it, report GFLOPS");
  cmd->footer(
      "Compiles a config of a workload with LLVM (in-process JIT), runs it on random inputs, checks the result\n"
      "against a plain reference, and reports GFLOPS (the median of --repeat timings). Exit 1 when the check fails.");
  add_workload_options(*cmd, o->workload);
  add_config_options(*cmd, o->config);
  add_threads_option(*cmd, o->config.threads, "threads of the runtime's pool");
  add_measure_options(*cmd, o->measure, kTiming | kCold);
  cmd->add_option("--opt-level", o->codegen.opt_level,
                  "LLVM optimisation level 0-3 (lower compiles faster; for debugging)")
      ->type_name("N")
      ->check(CLI::Range(0, 3));
  cmd->add_flag("--llvm-o3", o->codegen.llvm_o3,
                "optimise with LLVM's whole O3 pipeline instead of the kernel pipeline");
  cmd->add_flag("--json", o->json, "print JSON");
  commands.on(cmd, [o] { return run_command(*o); });
}

}  // namespace tf::cli

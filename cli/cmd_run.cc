#include <algorithm>
#include <chrono>
#include <cstdio>

#include "cli/commands.h"
#include "cli/kernel_runner.h"
#include "cli/workload_args.h"
#include "runtime/thread_pool.h"

namespace tf::cli {

int cmd_run(const std::vector<std::string>& argv) {
  Args args("tunefarm run", "Compile a config of a workload with LLVM (in-process JIT), run it on random inputs, check the\n"
                   "result against a plain reference, and report GFLOPS. Exit 1 when the check fails.");
  add_workload_options(args);
  add_config_options(args);
  args.option("threads", "N", "threads of the runtime's pool", "1")
      .option("repeat", "N", "timings to take; the median is reported", "5")
      .option("min-ms", "MS", "each timing repeats the kernel until it lasts this long", "100")
      .option("opt-level", "N", "LLVM optimisation level 0-3 (lower compiles faster; for debugging)", "3")
      .flag("llvm-o3", "optimise with LLVM's whole O3 pipeline instead of the kernel pipeline")
      .flag("json", "print JSON");
  if (!args.parse(argv)) return 0;
  auto task = make_task(args);
  space::Config cfg = config_from_args(args, *task);
  int64_t threads = args.get_int("threads"), repeat = args.get_int("repeat"), min_ms = args.get_int("min-ms");
  if (threads < 1 || threads > 1024) throw UsageError("--threads must be between 1 and 1024");
  if (repeat < 1 || repeat > 1000) throw UsageError("--repeat must be between 1 and 1000");
  if (min_ms < 0 || min_ms > 60000) throw UsageError("--min-ms must be between 0 and 60000");
  runtime::set_num_threads(static_cast<int>(threads));

  compiler::BuildTimes times;
  codegen::CodegenOptions codegen_opts;
  codegen_opts.opt_level = static_cast<int>(args.get_int("opt-level"));
  codegen_opts.llvm_o3 = args.flag_set("llvm-o3");
  if (codegen_opts.opt_level < 0 || codegen_opts.opt_level > 3) throw UsageError("--opt-level must be 0, 1, 2 or 3");
  auto kernel = task->build_jit(cfg, &times, codegen_opts);
  KernelRunner runner(task->op(), task->workload().shape);
  int32_t status = runner.run(kernel->entry());
  if (status != TF_OK) {
    std::fprintf(stderr, "tunefarm run: kernel %s returned %d: %s\n", task->kernel_name().c_str(), status,
                 tf_kernel_status_str(status));
    return 1;
  }
  CheckResult check = runner.check();
  std::vector<double> secs = runner.time(kernel->entry(), static_cast<double>(min_ms), static_cast<int>(repeat));
  std::vector<double> sorted = secs;
  std::sort(sorted.begin(), sorted.end());
  double median = sorted[sorted.size() / 2];
  double gflops = static_cast<double>(task->op().flops(task->workload().shape)) / median * 1e-9;

  if (args.flag_set("json")) {
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
    std::printf("  check %s (max abs error %.3g, %lld mismatches)\n", check.pass ? "pass" : "FAIL",
                check.max_abs_error, static_cast<long long>(check.mismatches));
  }
  return check.pass ? 0 : 1;
}

}  // namespace tf::cli

// `tunefarm model run` and `tunefarm model bench`: a compiled model (.tfm) loaded and run with the
// model runtime alone, as a board runs it. Inputs and outputs are NumPy .npy files of the values'
// dtypes (float32, int64, int32, bool).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "cli/commands.h"
#include "runtime/host_lock.h"
#include "runtime/measure.h"
#include "runtime/model/executor.h"
#include "runtime/model/timing.h"
#include "runtime/thread_pool.h"
#include "support/json.h"
#include "support/npy.h"
#include "support/stats.h"

namespace tf::cli {
namespace {

namespace model = runtime::model;

// Bad input (a damaged .tfm, a wrong .npy) is the user's to fix: exit 2 with the reason.
template <typename F>
auto refusing_bad_files(const std::string& what, F&& f) {
  try {
    return f();
  } catch (const model::ModelFileError& e) {
    throw UsageError(what + ": " + e.what());
  } catch (const NpyError& e) {
    throw UsageError(e.what());
  }
}

std::unique_ptr<model::Executor> load(const std::string& path, int threads) {
  runtime::set_num_threads(threads);
  return refusing_bad_files(path, [&] { return std::make_unique<model::Executor>(model::read_model_file(path)); });
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s;
  for (int64_t d : shape) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s.empty() ? "scalar" : s;
}

// ONNX names may hold '/' or ':'; a file name may not.
std::string file_name_for(const std::string& value_name) {
  std::string s = value_name;
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  }
  return s + ".npy";
}

struct RunArgs {
  std::string model_path;
  std::vector<std::string> inputs;  // NAME=file.npy
  std::string out_dir;
  int threads = 1;
  bool as_json = false;
};

model::HostTensors read_inputs(const model::Executor& exec, const std::vector<std::string>& specs) {
  model::HostTensors inputs;
  for (const auto& spec : specs) {
    const auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
      throw UsageError("--input '" + spec + "': expected NAME=file.npy");
    }
    const std::string name = spec.substr(0, eq);
    HostTensor array = refusing_bad_files(spec, [&] { return read_npy(spec.substr(eq + 1)); });
    bool known = false;
    for (const auto& in : exec.inputs()) {
      if (in.name != name) continue;
      known = true;
      if (in.dtype != array.dtype) {
        throw UsageError("--input " + name + ": " + spec.substr(eq + 1) + " holds " + dtype_name(array.dtype) +
                         "; the model takes " + dtype_name(in.dtype));
      }
      if (in.shape != array.shape) {
        throw UsageError("--input " + name + ": " + spec.substr(eq + 1) + " holds " + shape_text(array.shape) +
                         "; the model takes " + shape_text(in.shape));
      }
    }
    if (!known) throw UsageError("--input " + name + ": the model has no input of that name");
    inputs[name] = std::move(array);
  }
  for (const auto& in : exec.inputs()) {
    if (!inputs.count(in.name))
      throw UsageError("input '" + in.name + "' is not given (--input " + in.name + "=file.npy)");
  }
  return inputs;
}

int run_command(const RunArgs& args) {
  auto exec = load(args.model_path, args.threads);
  const auto inputs = read_inputs(*exec, args.inputs);
  const auto outputs = refusing_bad_files(args.model_path, [&] { return exec->run(inputs); });
  std::filesystem::create_directories(args.out_dir);
  Json written = Json::array();
  for (const auto& out : exec->outputs()) {
    const std::string path = (std::filesystem::path(args.out_dir) / file_name_for(out.name)).string();
    refusing_bad_files(path, [&] {
      write_npy(path, outputs.at(out.name));
      return 0;
    });
    written.push_back(Json{{"name", out.name}, {"shape", out.shape}, {"dtype", dtype_name(out.dtype)}, {"file", path}});
    if (!args.as_json)
      std::printf("%s [%s] %s -> %s\n", out.name.c_str(), shape_text(out.shape).c_str(), dtype_name(out.dtype),
                  path.c_str());
  }
  if (args.as_json) std::printf("%s\n", Json{{"model", args.model_path}, {"outputs", written}}.dump(2).c_str());
  return 0;
}

struct BenchArgs {
  std::string model_path;
  int threads = 1;
  int runs = 0;  // 0: as many as fit in min_seconds, at least 10
  double min_seconds = 1.0;
  std::string lock_file = runtime::MeasureOptions{}.timing_lock;
  bool as_json = false;
};

int bench_command(const BenchArgs& args) {
  auto exec = load(args.model_path, args.threads);
  model::fill_random_inputs(*exec);
  // Other timings on this host (boards, tuning jobs) would disturb ours, and ours theirs.
  runtime::HostLock lock(args.lock_file);
  if (!lock.held()) std::fprintf(stderr, "model bench: timing without the host lock: %s\n", lock.error().c_str());
  const model::ModelTiming timing =
      refusing_bad_files(args.model_path, [&] { return model::time_model(*exec, args.runs, args.min_seconds); });
  const size_t steps = exec->model().steps.size();
  const auto& totals = timing.totals;
  const auto& per_step = timing.per_step;
  const double min_ms = timing.min_ms();
  const double median_ms = timing.median_ms();

  // Per node: the median of each of its steps, summed (a node may take a layout transform too).
  std::map<std::string, double> node_ms;
  std::vector<std::string> node_order;
  for (size_t s = 0; s < steps; ++s) {
    const std::string& node = exec->model().steps[s].node;
    if (!node_ms.count(node)) node_order.push_back(node);
    node_ms[node] += median(per_step[s]) * 1e3;
  }
  Json nodes = Json::array();
  for (const auto& node : node_order) nodes.push_back(Json{{"node", node}, {"median_ms", node_ms[node]}});
  Json out{{"model", args.model_path},
           {"threads", args.threads},
           {"runs", totals.size()},
           {"latency_ms", min_ms},
           {"median_ms", median_ms},
           {"peak_activation_bytes", exec->arena_bytes()},
           {"nodes", nodes}};
  if (args.as_json) {
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("%s: %d thread(s), %zu runs: min %.3f ms, median %.3f ms, peak activation memory %.2f MiB\n",
              args.model_path.c_str(), args.threads, totals.size(), min_ms, median_ms, exec->arena_bytes() / 1048576.0);
  std::vector<std::string> by_time = node_order;
  std::stable_sort(by_time.begin(), by_time.end(),
                   [&](const auto& a, const auto& b) { return node_ms[a] > node_ms[b]; });
  std::printf("\n  %-40s %10s %7s\n", "node", "median ms", "share");
  double sum = 0;
  for (const auto& n : by_time) sum += node_ms[n];
  for (const auto& n : by_time) {
    std::printf("  %-40s %10.3f %6.1f%%\n", n.c_str(), node_ms[n], sum > 0 ? 100.0 * node_ms[n] / sum : 0.0);
  }
  return 0;
}

}  // namespace

void add_model_run(CLI::App& model_cmd, Commands& commands) {
  auto run = std::make_shared<RunArgs>();
  CLI::App* cmd = model_cmd.add_subcommand(
      "run", "run a compiled model (.tfm) on .npy inputs; each output is written as OUTDIR/NAME.npy");
  cmd->add_option("model", run->model_path, "the compiled model (.tfm)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--input", run->inputs, "NAME=file.npy, once per model input")->take_all();
  cmd->add_option("-o,--out-dir", run->out_dir, "folder for the outputs")->required();
  cmd->add_option("--threads", run->threads, "threads the kernels' parallel loops use")->check(CLI::Range(1, 1024));
  cmd->add_flag("--json", run->as_json, "print JSON");
  commands.on(cmd, [run] { return run_command(*run); });

  auto bench = std::make_shared<BenchArgs>();
  CLI::App* b = model_cmd.add_subcommand(
      "bench", "time a compiled model: latency (min, median), per-node breakdown, peak activation memory");
  b->add_option("model", bench->model_path, "the compiled model (.tfm)")->required()->check(CLI::ExistingFile);
  b->add_option("--threads", bench->threads, "threads the kernels' parallel loops use")->check(CLI::Range(1, 1024));
  b->add_option("--runs", bench->runs, "runs to time (0: as many as fit in --min-seconds, at least 10)")
      ->check(CLI::Range(0, 1000000));
  b->add_option("--min-seconds", bench->min_seconds, "time spent running when --runs is 0")
      ->check(CLI::Range(0.0, 3600.0));
  b->add_option("--lock-file", bench->lock_file, "the host-wide timing lock boards and tuning jobs share");
  b->add_flag("--json", bench->as_json, "print JSON (latency_ms is the minimum)");
  commands.on(b, [bench] { return bench_command(*bench); });
}

}  // namespace tf::cli

// The models benchmark: ResNet-18, MobileNetV2 and the BERT-base layer built with default configs,
// timed as `tunefarm model bench` times them (runtime/model/timing.h) against ONNX Runtime's CPU
// build (bench/ort/ort_run.js) on the same inputs, at the same thread count, in the same run and
// interleaved: rounds of ours, then ORT's. Prints a markdown table and writes
// bench/results/NAME.json. With default schedules there is no speed target yet: the ratios are
// reported; the target is that every output agrees with ORT's within 1e-3.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "bench/bench_util.h"
#include "bench/ort_peer.h"
#include "compiler/codegen/target.h"
#include "graph/build.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "runtime/host_lock.h"
#include "runtime/measure.h"
#include "runtime/model/executor.h"
#include "runtime/model/timing.h"
#include "runtime/thread_pool.h"
#include "support/args.h"
#include "support/npy.h"
#include "support/stats.h"

namespace {

using tf::Json;
using namespace tf::bench;
namespace model = tf::runtime::model;

constexpr double kAgreement = 1e-3;

struct Options {
  std::string models = "resnet18,mobilenetv2,bert_layer", threads = "1,2";
  std::string models_dir = TF_MODELS_DIR, name = "models", target = "llvm -mcpu=native";
  std::string lock_file = tf::runtime::MeasureOptions{}.timing_lock;
  int runs = 20, rounds = 2;
  bool no_save = false;
};

struct Built {
  std::unique_ptr<model::Executor> exec;
  double build_s = 0;
  std::map<std::string, std::string> input_files;  // the .npy files ORT reads
  std::map<std::string, std::vector<float>> outputs;  // ours, on those inputs
};

Built build(const std::string& onnx, const Options& o, const std::string& dir) {
  const auto start = std::chrono::steady_clock::now();
  tf::graph::BuildOptions options;
  options.target = tf::codegen::parse_target(o.target);
  Built b;
  b.exec = std::make_unique<model::Executor>(tf::graph::build_model(tf::graph::plan_graph(tf::graph::import_onnx_file(onnx)), options));
  b.build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto inputs = model::fill_random_inputs(*b.exec);
  for (const auto& in : b.exec->inputs()) {
    const std::string file = dir + "/input_" + std::to_string(b.input_files.size()) + ".npy";
    tf::write_npy(file, in.shape, inputs.at(in.name));
    b.input_files[in.name] = file;
  }
  b.outputs = b.exec->run(inputs);
  return b;
}

// The worst max|a-b|/max|b| over the outputs; outputs ORT does not give, or of another size, are a
// disagreement (infinity).
double worst_difference(const Built& b, const OrtResult& ort) {
  double worst = 0;
  for (const auto& [name, ours] : b.outputs) {
    auto it = ort.output_files.find(name);
    if (it == ort.output_files.end()) return INFINITY;
    const tf::NpyArray theirs = tf::read_npy(it->second);
    if (theirs.data.size() != ours.size()) return INFINITY;
    worst = std::max(worst, max_relative_difference(ours, theirs.data));
  }
  return worst;
}

// One model at one thread count: rounds of our runs and ORT's, alternating, under the host lock.
Json time_model_against_ort(Built& b, const std::string& onnx, int threads, const Options& o, const std::string& dir) {
  tf::runtime::set_num_threads(threads);
  std::vector<double> ours_ms, ort_ms;
  OrtResult ort;
  const int per_round = std::max(1, o.runs / o.rounds);
  {
    tf::runtime::HostLock lock(o.lock_file);
    if (!lock.held()) std::fprintf(stderr, "models_bench: timing without the host lock: %s\n", lock.error().c_str());
    for (int r = 0; r < o.rounds; ++r) {
      const model::ModelTiming t = model::time_model(*b.exec, per_round, 0);
      for (double s : t.totals) ours_ms.push_back(s * 1e3);
      OrtOptions run{onnx, b.input_files, dir + "/ort", threads, per_round, 1};
      ort = run_ort(run);
      ort_ms.insert(ort_ms.end(), ort.times_ms.begin(), ort.times_ms.end());
    }
  }
  const double diff = worst_difference(b, ort);
  const double ours_min = *std::min_element(ours_ms.begin(), ours_ms.end()), ours_median = tf::median(ours_ms);
  const double ort_min = *std::min_element(ort_ms.begin(), ort_ms.end()), ort_median = tf::median(ort_ms);
  return Json{{"threads", threads},
              {"runs", ours_ms.size()},
              {"tunefarm", {{"min_ms", ours_min}, {"median_ms", ours_median}}},
              {"onnxruntime", {{"version", ort.version}, {"runs", ort_ms.size()}, {"min_ms", ort_min}, {"median_ms", ort_median}}},
              {"ratio_median", ours_median / ort_median},
              {"ratio_min", ours_min / ort_min},
              {"max_relative_difference", diff},
              {"agrees", diff <= kAgreement}};
}

void print_table(const Json& rows) {
  std::printf("\n| model | threads | tunefarm min / median ms | ORT min / median ms | ratio (median) | peak activations MiB | build s | max rel diff |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& r : rows) {
    if (r.contains("error")) {
      std::printf("| %s | | build failed: %s | | | | | |\n", r["model"].get<std::string>().c_str(), r["error"].get<std::string>().c_str());
      continue;
    }
    std::printf("| %s | %d | %.2f / %.2f | %.2f / %.2f | %.2f | %.1f | %.1f | %.2g |\n", r["model"].get<std::string>().c_str(),
                r["threads"].get<int>(), r["tunefarm"]["min_ms"].get<double>(), r["tunefarm"]["median_ms"].get<double>(),
                r["onnxruntime"]["min_ms"].get<double>(), r["onnxruntime"]["median_ms"].get<double>(), r["ratio_median"].get<double>(),
                r["peak_activation_bytes"].get<double>() / 1048576.0, r["build_s"].get<double>(), r["max_relative_difference"].get<double>());
  }
}

int run(int argc, char** argv) {
  Options o;
  auto app = tf::make_app("models_bench", "Time whole models (default configs) against ONNX Runtime on the same inputs.");
  app->add_option("--models", o.models, "model names in --models-dir (NAME.onnx)")->type_name("LIST");
  app->add_option("--threads", o.threads, "thread counts")->type_name("LIST");
  app->add_option("--runs", o.runs, "timed runs per model, thread count and runtime")->check(CLI::Range(1, 100000));
  app->add_option("--rounds", o.rounds, "our runs and ORT's alternate in this many rounds")->check(CLI::Range(1, 1000));
  app->add_option("--models-dir", o.models_dir, "where the .onnx files are (scripts/make-models.py)")->type_name("DIR");
  app->add_option("--target", o.target, "target string")->type_name("TARGET");
  app->add_option("--lock-file", o.lock_file, "the host-wide timing lock boards and tuning jobs share")->type_name("PATH");
  app->add_option("--name", o.name, "results go to bench/results/NAME.json")->type_name("NAME");
  app->add_flag("--no-save", o.no_save, "print the table only");
  if (auto code = tf::parse_args(*app, argc, argv)) return *code;
  if (const std::string problem = ort_setup_problem(); !problem.empty()) throw std::runtime_error(problem);

  const std::string work = std::filesystem::temp_directory_path().string() + "/models_bench_" + std::to_string(::getpid());
  Json rows = Json::array();
  Targets targets;
  for (const auto& name : split(o.models)) {
    const std::string onnx = o.models_dir + "/" + name + ".onnx", dir = work + "/" + name;
    std::filesystem::create_directories(dir);
    std::fprintf(stderr, "models_bench: building %s\n", name.c_str());
    Built b;
    try {
      b = build(onnx, o, dir);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "models_bench: %s: %s\n", name.c_str(), e.what());
      rows.push_back(Json{{"model", name}, {"error", e.what()}});
      targets.add(name + ": outputs agree with ONNX Runtime (max|a-b|/max|b|)", INFINITY, "<= 1e-3", false);
      continue;
    }
    double worst = 0;
    for (const auto& t : split(o.threads)) {
      std::fprintf(stderr, "models_bench: timing %s at %s thread(s)\n", name.c_str(), t.c_str());
      Json row = time_model_against_ort(b, onnx, std::stoi(t), o, dir);
      row["model"] = name;
      row["peak_activation_bytes"] = b.exec->arena_bytes();
      row["build_s"] = b.build_s;
      worst = std::max(worst, row["max_relative_difference"].get<double>());
      targets.report(name + " " + t + "-thread latency / ONNX Runtime's (median)", row["ratio_median"].get<double>());
      rows.push_back(row);
    }
    targets.add(name + ": outputs agree with ONNX Runtime (max|a-b|/max|b|)", worst, "<= 1e-3", worst <= kAgreement);
  }
  std::filesystem::remove_all(work);
  print_table(rows);
  if (!o.no_save) write_results(o.name, tf::codegen::parse_target(o.target).str(), rows, targets);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return tf::bench::bench_main("models_bench", run, argc, argv, 2); }

// The compiler benchmark: dense kernels (default config and hand-picked configs) against OpenBLAS
// and oneDNN measured in the same run, and the compile time per candidate. Prints a markdown table
// and writes bench/results/NAME.json in the shape every tunefarm benchmark follows.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "bench/bench_util.h"
#include "bench/peers.h"
#include "compiler/compiler.h"
#include "compiler/kernel_runner.h"
#include "db/database.h"
#include "runtime/thread_pool.h"
#include "support/args.h"
#include "support/measure_args.h"
#include "support/stats.h"
#include "tuner/legacy_host_target.h"

namespace {

using tf::Json;
using tf::parse_json;
using namespace tf::bench;

struct Candidate {
  std::string name;
  Json config;
};

struct Options {
  std::string workloads = "gemm-512,gemm-1024", threads = "1,2";
  std::string workloads_file = std::string(TF_SOURCE_DIR) + "/../shared/workloads/dense.json";
  std::string configs = std::string(TF_SOURCE_DIR) + "/bench/configs/dense_handpicked.json";
  std::string name = "dense", target = "native", best_from_db, key = "local";
  int64_t compile_samples = 20;
  tf::MeasureArgs measure;
  bool no_save = false;
};

// The options, or the exit code when there is nothing to run (--help, a bad option).
std::optional<int> parse_options(int argc, char** argv, Options& o) {
  o.measure.min_ms = 200;
  o.measure.repeat = 5;
  auto app = tf::make_app("dense_bench", "Benchmark dense kernels against OpenBLAS and oneDNN.");
  app->add_option("--workloads", o.workloads, "workload names from the workloads file, or NAME:MxNxK")
      ->type_name("NAMES");
  app->add_option("--threads", o.threads, "thread counts")->type_name("LIST");
  app->add_option("--workloads-file", o.workloads_file, "standard workloads")->type_name("PATH");
  app->add_option("--configs", o.configs, "hand-picked configs")->type_name("PATH");
  app->add_option("--name", o.name, "results go to bench/results/NAME.json")->type_name("NAME");
  tf::add_measure_options(*app, o.measure, tf::kTiming);
  app->add_option("--compile-samples", o.compile_samples, "random configs whose compile time is measured")
      ->type_name("N")
      ->check(CLI::Range(int64_t{0}, int64_t{10000}));
  app->add_option("--target", o.target, "target string")->type_name("TARGET");
  app->add_option("--best-from-db", o.best_from_db,
                  "instead of the hand-picked configs: each workload's best config in this tuning db")
      ->type_name("PATH");
  app->add_option("--key", o.key, "with --best-from-db: the device key whose best configs to take")->type_name("KEY");
  app->add_flag("--no-save", o.no_save, "print the table only");
  return tf::parse_args(*app, argc, argv);
}

std::vector<Candidate> read_handpicked(const std::string& path) {
  std::vector<Candidate> handpicked;
  Json picked = parse_json(read_file(path));
  for (const auto& c : picked.at("configs")) {
    handpicked.push_back({c.at("name").get<std::string>(), c.at("config")});
  }
  return handpicked;
}

struct DenseWorkload {
  std::string name;
  int64_t M = 0, N = 0, K = 0;
};

// NAME:MxNxK, or a name from the workloads file (read only when a workload is named without its
// extents).
class WorkloadReader {
 public:
  explicit WorkloadReader(std::string workloads_file) : workloads_file_(std::move(workloads_file)) {}

  DenseWorkload read(const std::string& spec) {
    const auto colon = spec.find(':');
    return colon == std::string::npos ? standard(spec) : with_extents(spec, colon);
  }

 private:
  static DenseWorkload with_extents(const std::string& spec, size_t colon) {
    long long m = 0, n = 0, k = 0;
    char tail = 0;
    if (std::sscanf(spec.c_str() + colon + 1, "%lldx%lldx%lld%c", &m, &n, &k, &tail) != 3 || m <= 0 || n <= 0 ||
        k <= 0) {
      throw tf::UsageError("workload '" + spec + "': expected NAME:MxNxK, e.g. gemm-512:512x512x512");
    }
    return {spec.substr(0, colon), m, n, k};
  }

  DenseWorkload standard(const std::string& name) {
    if (workloads_.is_null()) workloads_ = parse_json(read_file(workloads_file_));
    const Json* w = nullptr;
    for (const auto& item : workloads_.at("workloads")) {
      if (item.at("name").get<std::string>() == name) w = &item;
    }
    if (!w) throw tf::UsageError("workload '" + name + "' is not in " + workloads_file_);
    return {name, w->at("M").get<int64_t>(), w->at("N").get<int64_t>(), w->at("K").get<int64_t>()};
  }

  std::string workloads_file_;
  Json workloads_;
};

// The best any board of the key measured, whatever target string its boards had.
Candidate best_from_db(const Options& o, const tf::codegen::Target& target, const DenseWorkload& w, double flops) {
  tf::db::Database db(o.best_from_db);
  tf::tuner::alias_legacy_host_target(db);
  std::optional<tf::db::Measurement> best;
  std::set<std::string> targets_of_key = {target.str()};
  for (const auto& d : db.devices()) {
    if (d.device_key == o.key) targets_of_key.insert(d.target);
  }
  for (const auto& t : targets_of_key) {
    auto m = db.best("dense", {w.M, w.N, w.K}, t, o.key);
    if (m && (!best || m->mean_s() < best->mean_s())) best = m;
  }
  if (!best) throw tf::UsageError("no tuned config of " + w.name + " for key " + o.key + " in " + o.best_from_db);
  char name[96];
  std::snprintf(name, sizeof name, "tuned (%.1f on the board)", flops / best->mean_s() * 1e-9);
  return {name, best->config};
}

// The default config, then the tuned one from --best-from-db or the hand-picked ones.
std::vector<Candidate> candidates_for(const tf::compiler::Task& task, const Options& o,
                                      const tf::codegen::Target& target, const DenseWorkload& w, double flops,
                                      const std::vector<Candidate>& handpicked) {
  std::vector<Candidate> candidates = {{"default", task.space().default_config().to_json()}};
  if (!o.best_from_db.empty()) {
    candidates.push_back(best_from_db(o, target, w, flops));
  } else {
    for (const auto& h : handpicked) candidates.push_back(h);
  }
  return candidates;
}

struct PeerGflops {
  double onednn = 0, openblas = 0;
};

PeerGflops time_peers(const DenseWorkload& w, int threads, double flops, double min_ms, int repeat) {
  PeerGflops peers;
  settle();
  peers.onednn = flops / tf::median(tf::bench::time_onednn_matmul(w.M, w.N, w.K, threads, min_ms, repeat)) * 1e-9;
  settle();
  peers.openblas = flops / tf::median(tf::bench::time_openblas_sgemm(w.M, w.N, w.K, threads, min_ms, repeat)) * 1e-9;
  settle();
  return peers;
}

struct CandidateRun {
  tf::space::Config config;
  bool pass = false;
  double gflops = 0, compile_ms = 0;
};

// Built with the JIT, checked against the reference, timed when it passes; nothing when the
// candidate's config is not one of the workload's space (a hand-picked config of another shape).
std::optional<CandidateRun> run_candidate(const tf::compiler::Task& task, const Candidate& cand,
                                          const std::string& wname, double flops, double min_ms, int repeat) {
  CandidateRun r;
  try {
    r.config = task.space().from_json(cand.config);
  } catch (const tf::CompileError& e) {
    std::fprintf(stderr, "skip %s on %s: %s\n", cand.name.c_str(), wname.c_str(), e.what());
    return std::nullopt;
  }
  tf::compiler::BuildTimes times;
  auto kernel = task.build_jit(r.config, &times);
  tf::compiler::KernelRunner runner(task.op(), task.workload().shape);
  int32_t status = runner.run(kernel->entry());
  r.pass = status == TF_OK && runner.check().pass;
  r.gflops = r.pass ? flops / tf::median(runner.time(kernel->entry(), min_ms, repeat)) * 1e-9 : 0;
  r.compile_ms = times.lower_ms + times.codegen_ms;
  return r;
}

void print_candidate_row(const std::string& wname, int threads, const Candidate& cand, const CandidateRun& r,
                         const PeerGflops& peers) {
  std::printf("| %s | %d | %s | %.1f | %s | %.2fx | %.1f | %.1f | %.1f |\n", wname.c_str(), threads, cand.name.c_str(),
              r.gflops, r.pass ? "pass" : "FAIL", r.gflops / peers.onednn, peers.onednn, peers.openblas, r.compile_ms);
  std::fflush(stdout);
}

Json candidate_row(const std::string& wname, int threads, const Candidate& cand, const CandidateRun& r,
                   const PeerGflops& peers) {
  Json row = Json::object();
  row["workload"] = wname;
  row["threads"] = threads;
  row["config_name"] = cand.name;
  row["config"] = r.config.to_json();
  row["gflops"] = r.gflops;
  row["onednn_gflops"] = peers.onednn;
  row["openblas_gflops"] = peers.openblas;
  row["ratio_onednn"] = r.gflops / peers.onednn;
  row["check"] = r.pass ? "pass" : "fail";
  row["compile_ms"] = r.compile_ms;
  return row;
}

// Compile time per candidate: random configs of gemm-1024's space, JIT and shared library.
struct CompileTimes {
  std::vector<double> jit_ms, so_ms;
};

CompileTimes sample_compile_times(const tf::codegen::Target& target, int64_t samples) {
  CompileTimes c;
  tf::compiler::Task task({"dense", {1024, 1024, 1024}}, target);
  std::mt19937_64 rng(7);
  for (int64_t i = 0; i < samples; ++i) {
    auto cfg = task.space().at(static_cast<int64_t>(rng() % static_cast<uint64_t>(task.space().size())));
    tf::compiler::BuildTimes t1, t2;
    task.build_jit(cfg, &t1);
    task.build_shared_library(cfg, &t2);
    c.jit_ms.push_back(t1.lower_ms + t1.codegen_ms);
    c.so_ms.push_back(t2.lower_ms + t2.codegen_ms);
  }
  return c;
}

Targets dense_targets(double best_ratio_1024_1t, const CompileTimes& c) {
  Targets targets;
  if (best_ratio_1024_1t > 0) {
    targets.add("best hand-picked gemm-1024 1-thread GFLOPS / oneDNN", best_ratio_1024_1t, ">= 0.5",
                best_ratio_1024_1t >= 0.5);
  }
  if (!c.jit_ms.empty()) {
    const double jit_median = tf::median(c.jit_ms), so_median = tf::median(c.so_ms);
    targets.add("median compile ms per candidate (JIT)", jit_median, "< 100", jit_median < 100);
    targets.add("median compile ms per candidate (shared library)", so_median, "< 100", so_median < 100);
  }
  return targets;
}

// Every candidate of one workload at every thread count against the peers: table rows printed,
// results rows appended to `rows`. Returns the best non-default candidate's ratio to oneDNN on
// gemm-1024 at 1 thread (0 for any other workload).
double bench_workload(const DenseWorkload& w, const Options& o, const tf::codegen::Target& target,
                      const std::vector<Candidate>& handpicked, Json& rows) {
  const double min_ms = o.measure.min_ms;
  const int repeat = o.measure.repeat;
  tf::compiler::Task task({"dense", {w.M, w.N, w.K}}, target);
  const double flops = static_cast<double>(task.op().flops(task.workload().shape));
  const std::vector<Candidate> candidates = candidates_for(task, o, target, w, flops, handpicked);
  double best_ratio_1024_1t = 0;
  for (const std::string& ts : split(o.threads)) {
    const int threads = std::stoi(ts);
    tf::runtime::set_num_threads(threads);
    const PeerGflops peers = time_peers(w, threads, flops, min_ms, repeat);
    for (const auto& cand : candidates) {
      const std::optional<CandidateRun> r = run_candidate(task, cand, w.name, flops, min_ms, repeat);
      if (!r) continue;
      if (w.name == "gemm-1024" && threads == 1 && cand.name != "default") {
        best_ratio_1024_1t = std::max(best_ratio_1024_1t, r->gflops / peers.onednn);
      }
      print_candidate_row(w.name, threads, cand, *r, peers);
      rows.push_back(candidate_row(w.name, threads, cand, *r, peers));
    }
  }
  return best_ratio_1024_1t;
}

int run(int argc, char** argv) {
  Options o;
  if (auto code = parse_options(argc, argv, o)) return *code;
  const tf::codegen::Target target = tf::codegen::parse_target(o.target);
  WorkloadReader workloads(o.workloads_file);
  const std::vector<Candidate> handpicked = read_handpicked(o.configs);

  Json rows = Json::array();
  double best_ratio_1024_1t = 0;
  std::printf("machine: %s, target %s, date %s\n\n", cpu_name().c_str(), target.str().c_str(), today().c_str());
  std::printf(
      "| workload | threads | config | GFLOPS | check | vs oneDNN | oneDNN GFLOPS | OpenBLAS GFLOPS | compile ms |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (const std::string& spec : split(o.workloads)) {
    best_ratio_1024_1t =
        std::max(best_ratio_1024_1t, bench_workload(workloads.read(spec), o, target, handpicked, rows));
  }

  const CompileTimes compile = sample_compile_times(target, o.compile_samples);
  if (!compile.jit_ms.empty()) {
    std::printf(
        "\ncompile time per candidate (median of %zu random gemm-1024 configs): JIT %.1f ms, shared library %.1f ms\n",
        compile.jit_ms.size(), tf::median(compile.jit_ms), tf::median(compile.so_ms));
  }
  const Targets targets = dense_targets(best_ratio_1024_1t, compile);
  if (!o.no_save) write_results(o.name, target.str(), rows, targets);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return tf::bench::bench_main("dense_bench", run, argc, argv, 2); }

// The compiler benchmark: dense kernels (default config and hand-picked configs) against OpenBLAS
// and oneDNN measured in the same run, and the compile time per candidate. Prints a markdown table
// and writes bench/results/NAME.json in the shape every tunefarm benchmark follows.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <optional>
#include <random>
#include <set>
#include <sstream>
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

int run(int argc, char** argv) {
  struct Options {
    std::string workloads = "gemm-512,gemm-1024", threads = "1,2";
    std::string workloads_file = std::string(TF_SOURCE_DIR) + "/../shared/workloads/dense.json";
    std::string configs = std::string(TF_SOURCE_DIR) + "/bench/configs/dense_handpicked.json";
    std::string name = "dense", target = "native", best_from_db, key = "local";
    int64_t compile_samples = 20;
    tf::MeasureArgs measure;
    bool no_save = false;
  } o;
  o.measure.min_ms = 200;
  o.measure.repeat = 5;
  auto app = tf::make_app("dense_bench", "Benchmark dense kernels against OpenBLAS and oneDNN.");
  app->add_option("--workloads", o.workloads, "workload names from the workloads file, or NAME:MxNxK")->type_name("NAMES");
  app->add_option("--threads", o.threads, "thread counts")->type_name("LIST");
  app->add_option("--workloads-file", o.workloads_file, "standard workloads")->type_name("PATH");
  app->add_option("--configs", o.configs, "hand-picked configs")->type_name("PATH");
  app->add_option("--name", o.name, "results go to bench/results/NAME.json")->type_name("NAME");
  tf::add_measure_options(*app, o.measure, tf::kTiming);
  app->add_option("--compile-samples", o.compile_samples, "random configs whose compile time is measured")
      ->type_name("N")
      ->check(CLI::Range(int64_t{0}, int64_t{10000}));
  app->add_option("--target", o.target, "target string")->type_name("TARGET");
  app->add_option("--best-from-db", o.best_from_db, "instead of the hand-picked configs: each workload's best config in this tuning db")
      ->type_name("PATH");
  app->add_option("--key", o.key, "with --best-from-db: the device key whose best configs to take")->type_name("KEY");
  app->add_flag("--no-save", o.no_save, "print the table only");
  if (auto code = tf::parse_args(*app, argc, argv)) return *code;
  const double min_ms = o.measure.min_ms;
  const int repeat = o.measure.repeat;
  tf::codegen::Target target = tf::codegen::parse_target(o.target);

  // Read only when a workload is named without its extents.
  Json workloads;
  auto standard_workloads = [&]() -> const Json& {
    if (workloads.is_null()) workloads = parse_json(read_file(o.workloads_file));
    return workloads;
  };
  std::vector<Candidate> handpicked;
  Json picked = parse_json(read_file(o.configs));
  for (const auto& c : picked.at("configs")) {
    handpicked.push_back({c.at("name").get<std::string>(), c.at("config")});
  }

  Json rows = Json::array();
  std::vector<double> jit_ms, so_ms;
  double best_ratio_1024_1t = 0;
  std::printf("machine: %s, target %s, date %s\n\n", cpu_name().c_str(), target.str().c_str(), today().c_str());
  std::printf("| workload | threads | config | GFLOPS | check | vs oneDNN | oneDNN GFLOPS | OpenBLAS GFLOPS | compile ms |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (std::string wname : split(o.workloads)) {
    int64_t M = 0, N = 0, K = 0;
    if (const auto colon = wname.find(':'); colon != std::string::npos) {
      long long m = 0, n = 0, k = 0;
      char tail = 0;
      if (std::sscanf(wname.c_str() + colon + 1, "%lldx%lldx%lld%c", &m, &n, &k, &tail) != 3 || m <= 0 || n <= 0 || k <= 0) {
        throw tf::UsageError("workload '" + wname + "': expected NAME:MxNxK, e.g. gemm-512:512x512x512");
      }
      M = m, N = n, K = k;
      wname = wname.substr(0, colon);
    } else {
      const Json* w = nullptr;
      for (const auto& item : standard_workloads().at("workloads")) {
        if (item.at("name").get<std::string>() == wname) w = &item;
      }
      if (!w) throw tf::UsageError("workload '" + wname + "' is not in " + o.workloads_file);
      M = w->at("M").get<int64_t>(), N = w->at("N").get<int64_t>(), K = w->at("K").get<int64_t>();
    }
    tf::compiler::Task task({"dense", {M, N, K}}, target);
    double flops = static_cast<double>(task.op().flops(task.workload().shape));

    std::vector<Candidate> candidates = {{"default", task.space().default_config().to_json()}};
    if (!o.best_from_db.empty()) {
      // The best any board of the key measured, whatever target string its boards had.
      tf::db::Database db(o.best_from_db);
      tf::tuner::alias_legacy_host_target(db);
      std::optional<tf::db::Measurement> best;
      std::set<std::string> targets_of_key = {target.str()};
      for (const auto& d : db.devices()) {
        if (d.device_key == o.key) targets_of_key.insert(d.target);
      }
      for (const auto& t : targets_of_key) {
        auto m = db.best("dense", {M, N, K}, t, o.key);
        if (m && (!best || m->mean_s() < best->mean_s())) best = m;
      }
      if (!best) throw tf::UsageError("no tuned config of " + wname + " for key " + o.key + " in " + o.best_from_db);
      char name[96];
      std::snprintf(name, sizeof name, "tuned (%.1f on the board)", flops / best->mean_s() * 1e-9);
      candidates.push_back({name, best->config});
    } else {
      for (const auto& h : handpicked) candidates.push_back(h);
    }

    for (const std::string& ts : split(o.threads)) {
      int threads = std::stoi(ts);
      tf::runtime::set_num_threads(threads);
      settle();
      double onednn = flops / tf::median(tf::bench::time_onednn_matmul(M, N, K, threads, min_ms, repeat)) * 1e-9;
      settle();
      double openblas = flops / tf::median(tf::bench::time_openblas_sgemm(M, N, K, threads, min_ms, repeat)) * 1e-9;
      settle();
      for (const auto& cand : candidates) {
        tf::space::Config cfg;
        try {
          cfg = task.space().from_json(cand.config);
        } catch (const tf::CompileError& e) {
          std::fprintf(stderr, "skip %s on %s: %s\n", cand.name.c_str(), wname.c_str(), e.what());
          continue;
        }
        tf::compiler::BuildTimes times;
        auto kernel = task.build_jit(cfg, &times);
        tf::compiler::KernelRunner runner(task.op(), task.workload().shape);
        int32_t status = runner.run(kernel->entry());
        bool pass = status == TF_OK && runner.check().pass;
        double gflops = pass ? flops / tf::median(runner.time(kernel->entry(), min_ms, repeat)) * 1e-9 : 0;
        double ratio = gflops / onednn;
        if (wname == "gemm-1024" && threads == 1 && cand.name != "default") best_ratio_1024_1t = std::max(best_ratio_1024_1t, ratio);
        double compile = times.lower_ms + times.codegen_ms;
        std::printf("| %s | %d | %s | %.1f | %s | %.2fx | %.1f | %.1f | %.1f |\n", wname.c_str(), threads, cand.name.c_str(),
                    gflops, pass ? "pass" : "FAIL", ratio, onednn, openblas, compile);
        std::fflush(stdout);
        Json row = Json::object();
        row["workload"] = wname;
        row["threads"] = threads;
        row["config_name"] = cand.name;
        row["config"] = cfg.to_json();
        row["gflops"] = gflops;
        row["onednn_gflops"] = onednn;
        row["openblas_gflops"] = openblas;
        row["ratio_onednn"] = ratio;
        row["check"] = pass ? "pass" : "fail";
        row["compile_ms"] = compile;
        rows.push_back(row);
      }
    }
  }

  // Compile time per candidate: random configs of gemm-1024's space, JIT and shared library.
  {
    tf::compiler::Task task({"dense", {1024, 1024, 1024}}, target);
    std::mt19937_64 rng(7);
    int64_t samples = o.compile_samples;
    for (int64_t i = 0; i < samples; ++i) {
      auto cfg = task.space().at(static_cast<int64_t>(rng() % static_cast<uint64_t>(task.space().size())));
      tf::compiler::BuildTimes t1, t2;
      task.build_jit(cfg, &t1);
      task.build_shared_library(cfg, &t2);
      jit_ms.push_back(t1.lower_ms + t1.codegen_ms);
      so_ms.push_back(t2.lower_ms + t2.codegen_ms);
    }
  }
  double jit_median = tf::median(jit_ms), so_median = tf::median(so_ms);
  if (!jit_ms.empty()) std::printf("\ncompile time per candidate (median of %zu random gemm-1024 configs): JIT %.1f ms, shared library %.1f ms\n",
              jit_ms.size(), jit_median, so_median);

  Targets targets;
  auto add_target = [&](const std::string& what, double value, const std::string& goal, bool met) {
    targets.add(what, value, goal, met);
  };
  if (best_ratio_1024_1t > 0) {
    add_target("best hand-picked gemm-1024 1-thread GFLOPS / oneDNN", best_ratio_1024_1t, ">= 0.5", best_ratio_1024_1t >= 0.5);
  }
  if (!jit_ms.empty()) {
    add_target("median compile ms per candidate (JIT)", jit_median, "< 100", jit_median < 100);
    add_target("median compile ms per candidate (shared library)", so_median, "< 100", so_median < 100);
  }

  if (!o.no_save) {
    write_results(o.name, target.str(), rows, targets);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return tf::bench::bench_main("dense_bench", run, argc, argv, 2); }

// conv2d_transpose against oneDNN's deconvolution on the upsampling layers of FPN / U-Net style
// decoders, GAN generators and 1-D speech decoders: our default config, and the best of a seeded
// random sample of the config space ("searched"), each timed in this process with the protocol
// oneDNN gets (peers.h), on one thread by default.
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/deconv_peer.h"
#include "compiler/compiler.h"
#include "compiler/kernel_runner.h"
#include "runtime/host_lock.h"
#include "runtime/measure.h"
#include "runtime/thread_pool.h"
#include "support/args.h"
#include "support/stats.h"

namespace {

using tf::Json;
using tf::bench::Targets;

struct Options {
  int threads = 1;
  int64_t samples = 24;
  double min_ms = 100;
  int repeat = 5;
  std::string name = "conv2d_transpose";
  bool no_save = false;
};

const char* kWorkloads[][2] = {
    {"fpn_2x2s2_16", "c=256,h=16,w=16,k=256,r=2,s=2,stride=2"},
    {"fpn_2x2s2_32", "c=256,h=32,w=32,k=256,r=2,s=2,stride=2"},
    {"fpn_2x2s2_64", "c=256,h=64,w=64,k=256,r=2,s=2,stride=2"},
    {"unet_4x4s2p1_16", "c=256,h=16,w=16,k=256,r=4,s=4,stride=2,pad=1"},
    {"unet_4x4s2p1_32", "c=128,h=32,w=32,k=128,r=4,s=4,stride=2,pad=1"},
    {"torch_3x3s2p1op1_32", "c=128,h=32,w=32,k=128,r=3,s=3,stride=2,pad=1,output_padding=1"},
    {"depthwise_4x4s2p1_32", "c=256,h=32,w=32,k=256,r=4,s=4,stride=2,pad=1,group=256"},
    {"speech_1d_4s2p1_256", "c=256,h=1,w=256,k=256,r=1,s=4,stride_w=2,pad_left=1,pad_right=1"},
};

std::unique_ptr<tf::runtime::HostLock> timing_lock() {
  return std::make_unique<tf::runtime::HostLock>(tf::runtime::MeasureOptions{}.timing_lock);
}

// Seconds per call of one config (median), or a negative number when it fails its check.
double seconds_of(const tf::compiler::Task& task, const tf::space::Config& cfg, const Options& o) {
  auto kernel = task.build_jit(cfg);
  tf::compiler::KernelRunner runner(task.op(), task.workload().shape);
  if (runner.run(kernel->entry()) != TF_OK || !runner.check().pass) return -1;
  const auto lock = timing_lock();
  return tf::median(runner.time(kernel->entry(), o.min_ms, o.repeat));
}

int run(int argc, char** argv) {
  Options o;
  auto app = tf::make_app("conv2d_transpose_bench",
                          "Benchmark conv2d_transpose (default and searched configs) against oneDNN.");
  app->add_option("--threads", o.threads, "threads")->check(CLI::Range(1, 256));
  app->add_option("--samples", o.samples, "random configs searched per workload")
      ->check(CLI::Range(int64_t{0}, int64_t{100000}));
  app->add_option("--min-ms", o.min_ms, "each timing lasts at least this long")->check(CLI::Range(0.1, 10000.0));
  app->add_option("--name", o.name, "results go to bench/results/NAME.json");
  app->add_flag("--no-save", o.no_save, "do not write bench/results/NAME.json");
  if (auto code = tf::parse_args(*app, argc, argv)) return *code;

  tf::runtime::set_num_threads(o.threads);
  const auto target = tf::codegen::host_target();
  Json rows = Json::array();
  std::vector<double> default_ratios, searched_ratios;
  std::printf("%-22s %10s %10s %10s %8s %8s  %s\n", "workload", "onednn_ms", "default_ms", "searched_ms", "def/dnn",
              "srch/dnn", "searched config");
  for (const auto& [label, text] : kWorkloads) {
    const auto shape = tf::ops::parse_shape("conv2d_transpose", text);
    const auto sh = tf::ops::Conv2dTransposeShape::from_vector(shape);
    tf::compiler::Task task({"conv2d_transpose", shape}, target);
    tf::bench::settle();
    tf::bench::OnednnConvTiming dnn;
    {
      const auto lock = timing_lock();
      dnn = tf::bench::time_onednn_deconv2d(sh, o.threads, o.min_ms, o.repeat);
    }
    const double dnn_s = tf::median(dnn.seconds);
    const auto default_cfg = task.space().default_config();
    const double default_s = seconds_of(task, default_cfg, o);
    double best_s = default_s;
    tf::space::Config best = default_cfg;
    std::mt19937_64 rng(7);
    for (int64_t i = 0; i < o.samples; ++i) {
      const auto cfg = task.space().at(static_cast<int64_t>(rng() % static_cast<uint64_t>(task.space().size())));
      const double s = seconds_of(task, cfg, o);
      if (s > 0 && (best_s <= 0 || s < best_s)) best_s = s, best = cfg;
    }
    default_ratios.push_back(default_s / dnn_s);
    searched_ratios.push_back(best_s / dnn_s);
    std::printf("%-22s %10.3f %10.3f %10.3f %8.2f %8.2f  %s\n", label, dnn_s * 1e3, default_s * 1e3, best_s * 1e3,
                default_s / dnn_s, best_s / dnn_s, best.str().c_str());
    std::fflush(stdout);
    Json row;
    row["workload"] = label;
    row["shape"] = text;
    row["gflop"] = static_cast<double>(sh.flops()) * 1e-9;
    row["onednn_ms"] = dnn_s * 1e3;
    row["onednn_impl"] = dnn.impl;
    row["onednn_mismatches"] = dnn.mismatches;
    row["default_ms"] = default_s * 1e3;
    row["searched_ms"] = best_s * 1e3;
    row["searched_samples"] = o.samples;
    row["searched_config"] = best.str();
    row["threads"] = o.threads;
    rows.push_back(row);
  }
  Targets targets;
  targets.report("geomean default / oneDNN time", tf::geomean(default_ratios));
  targets.report("geomean searched / oneDNN time", tf::geomean(searched_ratios));
  if (!o.no_save) tf::bench::write_results(o.name, target.str(), rows, targets);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return tf::bench::bench_main("conv2d_transpose_bench", run, argc, argv, 3); }

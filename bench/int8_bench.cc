// The int8 kernel benchmark: tunefarm's integer kernels (qconv2d_nchwc on ResNet-18's convolutions,
// qdense_packed on BERT-base's projections) against oneDNN's int8 primitives (uint8 x int8,
// requantized to uint8, the same shapes) measured in the same run, with the default config and,
// with --tune N, the best of an xgb job of N trials per kernel and thread count. The float kernels
// of the same shapes (conv2d_nchwc, dense_packed) are timed beside them for the int8 speedup. On a
// target whose models take their int8 inputs centred on 128 (x86 without VNNI), the kernels are the
// `_centered` ops a model build runs there, and the uncentred ones' defaults are timed beside them.
// Writes bench/results/NAME.json (default int8) with a targets block; the whole QDQ models against
// ONNX Runtime's int8 run are models_bench's (--models resnet18_qdq,bert_layer_qdq,...).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "bench/bench_util.h"
#include "bench/conv2d_workloads.h"
#include "bench/onednn_int8.h"
#include "compiler/codegen/target.h"
#include "compiler/compiler.h"
#include "compiler/kernel_runner.h"
#include "db/database.h"
#include "runtime/measure_worker.h"
#include "runtime/thread_pool.h"
#include "support/args.h"
#include "support/measure_args.h"
#include "support/stats.h"
#include "tuner/tune_job.h"

namespace {

using tf::Json;
using namespace tf::bench;

struct Options {
  std::string convs =
      "resnet18-c2,resnet18-c3,resnet18-c4,resnet18-c5,resnet18-c6,resnet18-c7,resnet18-c8,"
      "resnet18-c9,resnet18-c10,resnet18-c11,resnet18-c12";
  std::string dense = "128x768x768,128x3072x768,128x768x3072";
  std::string threads = "1,2", name = "int8";
  std::string db = std::string(TF_BINARY_DIR) + "/int8-tuning.db";
  int64_t tune = 0;
  tf::MeasureArgs measure;
  bool no_save = false;
};

// One int8 kernel and its float twin, by shape text.
struct Kernel {
  std::string name, int8_op, int8_shape, float_op, float_shape;
  std::string uncentered_op;  // the int8 op without centring, when int8_op is the centred one
  double flops = 0;
  std::function<OnednnInt8Timing(int threads)> onednn;
};

std::vector<Kernel> kernels(const Options& o, int64_t panel, bool centered) {
  std::vector<Kernel> out;
  auto form = [centered](const std::string& op) { return centered ? op + "_centered" : op; };
  const auto all = load_conv2d_workloads(default_conv2d_workloads_path(TF_SOURCE_DIR));
  for (const Conv2dWorkload& w : select_conv2d_workloads(all, o.convs)) {
    for (const Conv2dVariant& v : w.variants) {
      if (v.variant != "blocked" || v.op != "conv2d_nchwc") continue;
      if (w.shape.c % 4 != 0) throw tf::UsageError(w.name + ": the int8 conv takes input channels in fours");
      const tf::ops::Conv2dShape sh = w.shape;
      out.push_back({w.name, form("qconv2d_nchwc"), v.shape, v.op, v.shape, centered ? "qconv2d_nchwc" : "",
                     static_cast<double>(w.shape.flops()), [sh, &o](int threads) {
                       return time_onednn_int8_conv2d(sh, threads, o.measure.min_ms, o.measure.repeat);
                     }});
    }
  }
  for (const std::string& d : split(o.dense)) {
    long long m = 0, n = 0, k = 0;
    if (std::sscanf(d.c_str(), "%lldx%lldx%lld", &m, &n, &k) != 3 || m <= 0 || n <= 0 || k <= 0 || k % 4 != 0)
      throw tf::UsageError("--dense: '" + d + "' is not MxNxK with K a multiple of 4");
    const std::string shape =
        std::to_string(m) + "," + std::to_string(n) + "," + std::to_string(k) + "," + std::to_string(panel);
    out.push_back({"dense-" + d, form("qdense_packed"), shape, "dense_packed", shape, centered ? "qdense_packed" : "",
                   2.0 * static_cast<double>(m * n * k), [m, n, k, &o](int threads) {
                     return time_onednn_int8_matmul(m, n, k, threads, o.measure.min_ms, o.measure.repeat);
                   }});
  }
  return out;
}

// GOPS of `config` of the task, 0 when its output fails the check.
double measure(const tf::compiler::Task& task, const tf::space::Config& config, const Options& o) {
  auto kernel = task.build_jit(config);
  tf::compiler::KernelRunner runner(task.op(), task.workload().shape, 1, task.argument_types());
  if (runner.run(kernel->entry()) != TF_OK || !runner.check().pass) return 0;
  settle();
  return task.op().flops(task.workload().shape) /
         tf::median(runner.time(kernel->entry(), o.measure.min_ms, o.measure.repeat)) * 1e-9;
}

// The best config an xgb job of o.tune trials finds (recorded in o.db), or the default.
tf::space::Config tuned(const tf::compiler::Task& task, int threads, const Options& o, tf::db::Database& db) {
  tf::tuner::TuneOptions t;
  t.tuner = "xgb";
  t.trials = o.tune;
  t.threads = threads;
  t.device_key = "local-" + std::to_string(threads) + "t";
  t.measure.min_repeat_ms = 10;
  t.measure.repeat = 3;
  std::fprintf(stderr, "int8_bench: tuning %s at %d thread(s), %lld trials\n", task.workload().str().c_str(), threads,
               static_cast<long long>(o.tune));
  const auto r = tf::tuner::tune(task, t, &db);
  return r.best ? task.space().from_json(r.best->config) : task.space().default_config();
}

class Int8Bench {
 public:
  explicit Int8Bench(const Options& o) : o_(o), target_(tf::codegen::host_target()) {}

  void run() {
    std::unique_ptr<tf::db::Database> db;
    if (o_.tune > 0) db = std::make_unique<tf::db::Database>(o_.db);
    std::printf("machine: %s, target %s\n\n", cpu_name().c_str(), target_.str().c_str());
    std::printf(
        "| kernel | threads | config | int8 GOPS | oneDNN int8 GOPS | vs oneDNN | oneDNN impl | float GFLOPS | int8 / float |\n");
    std::printf("|---|---:|---|---:|---:|---:|---|---:|---:|\n");
    const bool centered = tf::codegen::prefers_centered_int8(target_);
    for (const Kernel& k : kernels(o_, 2 * std::max(1, target_.float32_lanes()), centered)) {
      const tf::compiler::Task q({k.int8_op, tf::ops::parse_shape(k.int8_op, k.int8_shape)}, target_);
      const tf::compiler::Task f({k.float_op, tf::ops::parse_shape(k.float_op, k.float_shape)}, target_);
      for (int threads : thread_counts()) {
        tf::runtime::set_num_threads(threads);
        settle();
        const OnednnInt8Timing peer = k.onednn(threads);
        const double peer_gops = k.flops / tf::median(peer.seconds) * 1e-9;
        const double float_gflops = measure(f, f.space().default_config(), o_);
        add_row(k, k.int8_op, threads, "default", measure(q, q.space().default_config(), o_), peer_gops, peer.impl,
                float_gflops);
        if (!k.uncentered_op.empty()) {
          const tf::compiler::Task u({k.uncentered_op, q.workload().shape}, target_);
          add_row(k, k.uncentered_op, threads, "default uncentered", measure(u, u.space().default_config(), o_),
                  peer_gops, peer.impl, float_gflops);
        }
        if (db) {
          add_row(k, k.int8_op, threads, "tuned", measure(q, tuned(q, threads, o_, *db), o_), peer_gops, peer.impl,
                  float_gflops);
        }
      }
    }
    add_targets();
  }

  void save() const {
    if (!o_.no_save) write_results(o_.name, target_.str(), rows_, targets_);
  }

 private:
  std::vector<int> thread_counts() const {
    std::vector<int> out;
    for (const std::string& t : split(o_.threads)) out.push_back(std::stoi(t));
    return out;
  }

  void add_row(const Kernel& k, const std::string& op, int threads, const std::string& configs, double gops,
               double peer_gops, const std::string& impl, double float_gflops) {
    std::printf("| %s | %d | %s | %.1f | %.1f | %.2fx | %s | %.1f | %.2fx |\n", k.name.c_str(), threads,
                configs.c_str(), gops, peer_gops, gops / peer_gops, impl.c_str(), float_gflops, gops / float_gflops);
    std::fflush(stdout);
    rows_.push_back(Json{{"what", "kernel"},
                         {"kernel", k.name},
                         {"op", op},
                         {"shape", k.int8_shape},
                         {"threads", threads},
                         {"configs", configs},
                         {"gops", gops},
                         {"onednn_gops", peer_gops},
                         {"onednn_impl", impl},
                         {"ratio_onednn", gops / peer_gops},
                         {"float_gflops", float_gflops},
                         {"ratio_float", gops / float_gflops}});
  }

  // Issue 33: the int8 convs of ResNet-18 at >= 0.9x oneDNN's int8 (geomean, best configs here).
  void add_targets() {
    std::map<std::pair<int, std::string>, std::vector<double>> ratios;  // (threads, kind) -> per kernel
    for (const Json& r : rows_) {
      const bool conv = r["op"].get<std::string>().rfind("qconv2d", 0) == 0;
      const std::string configs = r["configs"].get<std::string>();
      ratios[{r["threads"].get<int>(),
              std::string(conv ? "ResNet-18 int8 convs" : "BERT-base int8 projections") + ", " + configs + " configs"}]
          .push_back(r["ratio_onednn"].get<double>());
    }
    for (const auto& [key, values] : ratios) {
      double log_sum = 0;
      for (double v : values) log_sum += std::log(std::max(v, 1e-9));
      const double geomean = std::exp(log_sum / static_cast<double>(values.size()));
      const std::string what = key.second + ", " + std::to_string(key.first) + " thread(s): geomean / oneDNN int8";
      if (key.second.rfind("ResNet", 0) == 0 && key.second.find("tuned") != std::string::npos)
        targets_.add(what, geomean, ">= 0.9", geomean >= 0.9);
      else
        targets_.report(what, geomean);
    }
  }

  const Options& o_;
  tf::codegen::Target target_;
  Json rows_ = Json::array();
  Targets targets_;
};

int run(int argc, char** argv) {
  Options o;
  o.measure.min_ms = 100;
  o.measure.repeat = 5;
  auto app = tf::make_app("int8_bench", "Benchmark the int8 kernels against oneDNN's int8 primitives.");
  app->add_option("--convs", o.convs, "conv2d workloads (../shared/workloads/conv2d.json names)")->type_name("NAMES");
  app->add_option("--dense", o.dense, "dense shapes MxNxK (K a multiple of 4)")->type_name("LIST");
  app->add_option("--threads", o.threads, "thread counts")->type_name("LIST");
  app->add_option("--tune", o.tune, "also time the best config of an xgb job of N trials per kernel and thread count")
      ->type_name("N")
      ->check(CLI::Range(int64_t{0}, int64_t{100000}));
  app->add_option("--db", o.db, "where --tune's records go")->type_name("PATH");
  tf::add_measure_options(*app, o.measure, tf::kTiming);
  app->add_option("--name", o.name, "results go to bench/results/NAME.json")->type_name("NAME");
  app->add_flag("--no-save", o.no_save, "print the table only");
  if (auto code = tf::parse_args(*app, argc, argv)) return *code;
  Int8Bench bench(o);
  bench.run();
  bench.save();
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return tf::bench::bench_main("int8_bench", run, argc, argv, 2); }

// costmodel_bench: does the cost model earn its place on the large convolution spaces?
//   1. search efficiency: on ResNet-18 and MobileNet layers (blocked NCHWc templates, 1 thread), the
//      trials to reach 95% of the best any run found, for xgb from nothing (xgb-cold), xgb from the
//      history of the other layers (xgb+history: leave one layer out), random search and the genetic
//      tuner; median over seeds, best-so-far curves plotted;
//   2. prediction quality: on every layer's measurements, a model trained on the rest ranks held-out
//      ones (rank correlation, top-10 recall), for every feature set;
//   3. the search's own time per trial.
// Every run's measurements are kept in one SQLite dataset, so part 2 can be run again on it alone
// (--evaluate-only) while features change.
#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "bench/bench_util.h"
#include "bench/conv2d_workloads.h"
#include "bench/prediction_quality.h"
#include "bench/search_runs.h"
#include "compiler/compiler.h"
#include "compiler/ops/registry.h"
#include "db/database.h"
#include "support/args.h"
#include "support/json.h"
#include "support/stats.h"
#include "support/svg_chart.h"
#include "tuner/legacy_host_target.h"

namespace {

using tf::Json;
using namespace tf::bench;
using tf::median;

struct Options {
  std::string layers = "resnet18-c2,resnet18-c3,resnet18-c7,resnet18-c9,mobilenet-dw1,mobilenet-dw7";
  std::string tuners = "xgb-cold,xgb+history,random,ga";
  int64_t seeds = 5, trials = 300;
  double threshold = 0.95, min_ms = 10;
  int64_t folds = 5;
  std::string dataset = std::string(TF_BINARY_DIR) + "/costmodel-dataset.db";
  std::string workloads_file = default_conv2d_workloads_path(TF_SOURCE_DIR);
  std::string name = "costmodel";
  std::string variant = "plain";
  std::string objectives = "reg:squarederror,rank:pairwise";
  bool tuner_features_only = false;
  bool evaluate_only = false, no_save = false;
};

struct Layer {
  std::string name;
  std::shared_ptr<const tf::compiler::Task> task;
};

// The named workloads in the variant asked for: "blocked" (the NCHWc templates a model build uses)
// or "plain" (the NCHW template).
std::vector<Layer> load_layers(const Options& o, const tf::codegen::Target& target) {
  std::vector<Layer> out;
  for (const auto& w : select_conv2d_workloads(load_conv2d_workloads(o.workloads_file), o.layers)) {
    const Conv2dVariant* chosen = nullptr;
    for (const auto& v : w.variants) {
      if (v.variant == o.variant) chosen = &v;
    }
    if (!chosen) throw tf::UsageError("workload '" + w.name + "' has no " + o.variant + " variant");
    out.push_back(
        {w.name, std::make_shared<tf::compiler::Task>(
                     tf::ops::Workload{chosen->op, tf::ops::parse_shape(chosen->op, chosen->shape)}, target)});
  }
  return out;
}

// What a run's label means to the tuning path.
SearchRun run_of(const std::string& label) {
  SearchRun r;
  r.tuner = label.rfind("xgb", 0) == 0 ? "xgb" : label;
  r.seed_records = false;   // the shipped records are dense's: a conv2d job never sees them anyway
  r.default_first = false;  // the search alone, not the template's default, is compared
  return r;
}

void copy_measurements(const std::string& from, tf::db::Database& to) {
  tf::db::Database src(from, tf::db::Database::Open::Existing);
  for (auto m : src.all_measurements()) {
    m.job_id.reset();
    to.record(m);
  }
}

struct LayerRuns {
  std::map<std::string, std::vector<std::vector<double>>> curves;  // by tuner label, one per seed
  std::vector<double> search_ms;                                   // per xgb run
  double best = 0;                                                 // the best any run confirmed
};

class Bench {
 public:
  Bench(const Options& o, std::vector<Layer> layers) : o_(o), layers_(std::move(layers)) {
    work_ = "/tmp/tf-costmodel-bench-" + std::to_string(::getpid());
  }

  void tune_everything() {
    remove_db(o_.dataset);
    tf::db::Database dataset(o_.dataset);
    const auto labels = split(o_.tuners);
    // Cold and baseline runs first: the seed-1 xgb-cold run of every layer is that layer's history
    // for the others' xgb+history runs.
    for (const auto& layer : layers_) {
      for (const auto& label : labels) {
        if (label != "xgb+history") run_seeds(layer, label, "", dataset);
      }
    }
    if (std::find(labels.begin(), labels.end(), "xgb+history") == labels.end()) return;
    for (const auto& layer : layers_) {
      const std::string history = work_ + "-history.db";
      remove_db(history);
      int64_t others = 0;
      {
        tf::db::Database h(history);
        for (const auto& other : layers_) {
          if (other.name == layer.name || other.task->workload().op != layer.task->workload().op) continue;
          if (!history_of_.count(other.name)) continue;
          copy_measurements(history_of_[other.name], h);
          ++others;
        }
      }
      std::fprintf(stderr, "  %s: history of %lld other layer(s) of %s\n", layer.name.c_str(),
                   static_cast<long long>(others), layer.task->workload().op.c_str());
      run_seeds(layer, "xgb+history", history, dataset);
      remove_db(history);
    }
    for (auto& [name, path] : history_of_) remove_db(path);
  }

  const std::map<std::string, LayerRuns>& runs() const { return runs_; }

 private:
  void run_seeds(const Layer& layer, const std::string& label, const std::string& start_db, tf::db::Database& dataset) {
    LayerRuns& lr = runs_[layer.name];
    for (int64_t seed = 1; seed <= o_.seeds; ++seed) {
      SearchRun run = run_of(label);
      run.trials = o_.trials;
      run.seed = static_cast<uint64_t>(seed);
      run.min_repeat_ms = o_.min_ms;
      run.db_path = work_ + ".db";
      run.start_db = start_db;
      const auto r = run_search(*layer.task, run);
      lr.curves[label].push_back(r.best_curve);
      lr.best = std::max(lr.best, r.best_gflops);
      if (run.tuner == "xgb") lr.search_ms.push_back(r.search_ms_per_trial);
      std::fprintf(stderr, "  %s %s seed %lld: best %.1f GFLOPS, %lld trials in %.0f s, search %.1f ms/trial\n",
                   layer.name.c_str(), label.c_str(), static_cast<long long>(seed), r.best_gflops,
                   static_cast<long long>(r.trials), r.seconds, r.search_ms_per_trial);
      copy_measurements(run.db_path, dataset);
      if (label == "xgb-cold" && seed == 1) {
        history_of_[layer.name] = work_ + "-" + layer.name + ".db";
        remove_db(history_of_[layer.name]);
        std::rename(run.db_path.c_str(), history_of_[layer.name].c_str());
      }
      remove_db(run.db_path);
    }
  }

  const Options& o_;
  std::vector<Layer> layers_;
  std::string work_;
  std::map<std::string, LayerRuns> runs_;
  std::map<std::string, std::string> history_of_;  // layer -> its seed-1 xgb-cold db
};

// Median over seeds of the best-so-far curves, relative to the layer's best.
std::vector<double> median_curve(const std::vector<std::vector<double>>& curves, double best) {
  size_t n = 0;
  for (const auto& c : curves) n = std::max(n, c.size());
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) {
    std::vector<double> at;
    for (const auto& c : curves) at.push_back(c.empty() ? 0 : c[std::min(i, c.size() - 1)] / best);
    out.push_back(median(at));
  }
  return out;
}

void report_search(const Options& o, const std::map<std::string, LayerRuns>& runs, const std::vector<Layer>& layers,
                   Json& rows, Targets& targets) {
  const auto labels = split(o.tuners);
  std::printf(
      "## Search efficiency: trials to reach %.0f%% of the best any run found (median of %lld seeds, %lld trials each)\n\n",
      o.threshold * 100, static_cast<long long>(o.seeds), static_cast<long long>(o.trials));
  std::printf(
      "Runs start from an empty db with no seed records and without the template's default config (the search\n"
      "alone is compared); xgb+history starts from a db holding the seed-1 xgb-cold run of every other layer of\n"
      "the same operator. A run that never reaches the level counts as %lld.\n\n",
      static_cast<long long>(o.trials + 1));
  std::printf("| layer | space | best GFLOPS |");
  for (const auto& l : labels) std::printf(" %s |", l.c_str());
  for (const auto& l : labels) {
    if (l != "random") std::printf(" %s / random |", l.c_str());
  }
  std::printf("\n|---|---|---|");
  for (size_t i = 0; i < 2 * labels.size() - 1; ++i) std::printf("---|");
  std::printf("\n");
  std::map<std::string, std::vector<double>> ratios;                // by tuner, one per layer
  std::map<std::string, std::vector<std::vector<double>>> overall;  // by tuner, median curve per layer
  std::vector<double> search_ms;
  for (const auto& layer : layers) {
    const LayerRuns& lr = runs.at(layer.name);
    std::map<std::string, double> need;
    Json row = Json::object();
    row["what"] = "search_efficiency";
    row["layer"] = layer.name;
    row["op"] = layer.task->workload().op;
    row["space_size"] = layer.task->space().size();
    row["best_gflops"] = lr.best;
    std::vector<tf::ChartSeries> series;
    for (const auto& label : labels) {
      if (!lr.curves.count(label)) continue;
      std::vector<double> per_seed;
      for (const auto& c : lr.curves.at(label))
        per_seed.push_back(static_cast<double>(trials_to_reach(c, o.threshold * lr.best)));
      need[label] = median(per_seed);
      row[label + "_trials"] = per_seed;
      row[label + "_median_trials"] = need[label];
      const auto curve = median_curve(lr.curves.at(label), lr.best);
      row[label + "_median_curve"] = curve;
      series.push_back({label, curve});
      overall[label].push_back(curve);
    }
    std::printf("| %s | %lld | %.1f |", layer.name.c_str(), static_cast<long long>(layer.task->space().size()),
                lr.best);
    for (const auto& l : labels) std::printf(" %.0f |", need[l]);
    for (const auto& l : labels) {
      if (l == "random") continue;
      const double r = need[l] / std::max(1.0, need["random"]);
      ratios[l].push_back(r);
      row["ratio_" + l + "_random"] = r;
      std::printf(" %.2f |", r);
    }
    std::printf("\n");
    search_ms.insert(search_ms.end(), lr.search_ms.begin(), lr.search_ms.end());
    rows.push_back(row);
    if (!o.no_save) {
      std::ofstream(std::string(TF_SOURCE_DIR) + "/bench/results/" + o.name + "-" + layer.name + ".svg")
          << tf::line_chart_svg(layer.name + " (" + layer.task->workload().op + ", " +
                                    std::to_string(layer.task->space().size()) + " configs): best so far, median of " +
                                    std::to_string(o.seeds) + " seeds",
                                "trials", "best GFLOPS so far / best of any run", series);
    }
  }
  std::vector<tf::ChartSeries> overall_series;
  for (const auto& [label, curves] : overall) overall_series.push_back({label, median_curve(curves, 1.0)});
  if (!o.no_save) {
    std::ofstream(std::string(TF_SOURCE_DIR) + "/bench/results/" + o.name + ".svg") << tf::line_chart_svg(
        "best so far relative to each layer's best, median over " + std::to_string(layers.size()) + " layers", "trials",
        "best GFLOPS so far / best of any run", overall_series);
  }
  std::printf("\n");
  const std::map<std::string, double> goals = {{"xgb-cold", 0.5}, {"xgb+history", 0.2}};
  for (const auto& [label, r] : ratios) {
    const double m = median(r);
    Json row = Json::object();
    row["what"] = "search_efficiency_summary";
    row["tuner"] = label;
    row["median_ratio_over_layers"] = m;
    row["worst_ratio"] = *std::max_element(r.begin(), r.end());
    rows.push_back(row);
    const std::string what = label + " trials / random trials to " +
                             std::to_string(static_cast<int>(o.threshold * 100)) +
                             "% of the best (median over layers of the median over seeds)";
    if (goals.count(label)) {
      char goal[32];
      std::snprintf(goal, sizeof goal, "<= %.1f", goals.at(label));
      targets.add(what, m, goal, m <= goals.at(label));
    } else {
      targets.report(what, m);
    }
  }
  if (!search_ms.empty()) {
    const double worst = *std::max_element(search_ms.begin(), search_ms.end());
    std::printf("xgb search (retraining + annealing) per trial: median %.1f ms, worst run %.1f ms\n\n",
                median(search_ms), worst);
    Json row = Json::object();
    row["what"] = "search_ms_per_trial";
    row["median"] = median(search_ms);
    row["worst_run"] = worst;
    rows.push_back(row);
    targets.add("xgb search time per trial, worst run (ms)", worst, "< 20", worst < 20);
  }
}

void report_predictions(const Options& o, const std::vector<Layer>& layers, Json& rows, Targets& targets) {
  tf::db::Database dataset(o.dataset, tf::db::Database::Open::Existing);
  tf::tuner::alias_legacy_host_target(dataset);
  std::vector<LayerSamples> samples;
  for (const auto& layer : layers)
    samples.push_back(layer_samples(dataset, layer.name, layer.task, tf::tuner::local_device_key(1)));
  std::printf("## Prediction quality on held-out measurements\n\n");
  std::printf(
      "Per layer, its distinct measured configs in %lld folds: a model trained on the other folds ranks the\n"
      "held-out fold (mean over folds), as the tuner trains once a job has results of its own; transfer: trained\n"
      "on the other layers of its operator alone, ranking all of the layer's configs (what a job's first batch\n"
      "is chosen by). Top-10 recall: of the 10 fastest held-out configs, the share\n"
      "among the model's 10 best-scored.\n\n",
      static_cast<long long>(o.folds));
  std::printf(
      "| layer | configs | features | objective | rank corr. | top-10 recall | transfer rank corr. | transfer top-10 recall |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  double worst_recall = 1;
  // Every feature set with the tuner's objective, and the tuner's features with every objective.
  const tf::tuner::XgbParams tuner_params;
  std::vector<std::pair<tf::tuner::FeatureSet, tf::tuner::XgbParams>> variants;
  for (const auto set : tf::tuner::all_feature_sets()) {
    if (!o.tuner_features_only || set == tf::tuner::kFeatureSet) variants.emplace_back(set, tuner_params);
  }
  for (const auto& objective : split(o.objectives)) {
    if (objective == tuner_params.objective) continue;
    tf::tuner::XgbParams p = tuner_params;
    p.objective = objective;
    variants.emplace_back(tf::tuner::kFeatureSet, p);
  }
  if (tuner_params.label_power != 1) {
    tf::tuner::XgbParams p = tuner_params;
    p.label_power = 1;
    variants.emplace_back(tf::tuner::kFeatureSet, p);
  }
  std::map<tf::tuner::FeatureSet, LayerFeatures> features;
  for (const auto& [set, params] : variants) {
    if (!features.count(set)) features[set] = layer_features(samples, set);
    for (const auto& q : evaluate_predictions(samples, features[set], set, params, static_cast<int>(o.folds), 7)) {
      std::printf("| %s | %lld | %s | %s | %.3f | %.2f | %.3f | %.2f |\n", q.layer.c_str(),
                  static_cast<long long>(q.samples), tf::tuner::feature_set_name(set).c_str(), q.objective.c_str(),
                  q.spearman, q.top10_recall, q.transfer_spearman, q.transfer_top10_recall);
      std::fflush(stdout);
      Json row = Json::object();
      row["what"] = "prediction_quality";
      row["layer"] = q.layer;
      row["configs"] = q.samples;
      row["feature_version"] = static_cast<int64_t>(set);
      row["features"] = tf::tuner::feature_set_name(set);
      row["objective"] = q.objective;
      row["rank_correlation"] = q.spearman;
      row["top10_recall"] = q.top10_recall;
      row["transfer_rank_correlation"] = q.transfer_spearman;
      row["transfer_top10_recall"] = q.transfer_top10_recall;
      rows.push_back(row);
      if (set == tf::tuner::kFeatureSet && tf::tuner::describe(params) == tf::tuner::describe(tuner_params))
        worst_recall = std::min(worst_recall, q.top10_recall);
    }
  }
  std::printf("\n");
  targets.add("held-out top-10 recall, worst layer (the tuner's features, " +
                  tf::tuner::feature_set_name(tf::tuner::kFeatureSet) + ", and objective, " +
                  tf::tuner::describe(tuner_params) + ")",
              worst_recall, ">= 0.5", worst_recall >= 0.5);
}

int run(int argc, char** argv) {
  Options o;
  auto app = tf::make_app(
      "costmodel_bench",
      "Benchmark the cost model on large conv2d spaces: trials to reach 95% of the best against random and "
      "the genetic tuner, cold and with history; held-out prediction quality per feature set; search time.");
  app->add_option("--layers", o.layers, "standard conv2d workloads (their blocked templates)")->type_name("NAMES");
  app->add_option("--variant", o.variant, "blocked (NCHWc templates) or plain (NCHW conv2d)")
      ->type_name("NAME")
      ->check(CLI::IsMember({"blocked", "plain"}));
  app->add_option("--tuners", o.tuners, "xgb-cold, xgb+history (history of the other layers), random, ga")
      ->type_name("NAMES");
  app->add_option("--seeds", o.seeds, "runs per tuner and layer")
      ->type_name("N")
      ->check(CLI::Range(int64_t{1}, int64_t{100}));
  app->add_option("--trials", o.trials, "trials per run")
      ->type_name("N")
      ->check(CLI::Range(int64_t{10}, int64_t{100000}));
  app->add_option("--threshold", o.threshold, "the level runs must reach, as a share of the best any run found")
      ->type_name("X")
      ->check(CLI::Range(0.5, 1.0));
  app->add_option("--min-ms", o.min_ms, "minimum ms per timed repeat")->type_name("MS")->check(CLI::Range(0.1, 1000.0));
  app->add_option("--folds", o.folds, "folds of each layer's measurements for prediction quality")
      ->type_name("K")
      ->check(CLI::Range(int64_t{2}, int64_t{20}));
  app->add_option("--objectives", o.objectives, "learning objectives compared for prediction quality (XGBoost names)")
      ->type_name("NAMES");
  app->add_option("--dataset", o.dataset, "SQLite db every run's measurements are kept in")->type_name("PATH");
  app->add_flag("--tuner-features-only", o.tuner_features_only,
                "prediction quality for the tuner's feature set alone (the older versions lower every config again)");
  app->add_flag("--evaluate-only", o.evaluate_only, "no tuning: prediction quality on the dataset as it is");
  app->add_option("--workloads-file", o.workloads_file, "standard conv2d workloads")->type_name("PATH");
  app->add_option("--name", o.name, "results go to bench/results/NAME.json (and NAME*.svg)")->type_name("NAME");
  app->add_flag("--no-save", o.no_save, "print the tables only");
  if (auto code = tf::parse_args(*app, argc, argv)) return *code;
  const tf::codegen::Target target = tf::codegen::host_target();
  const std::vector<Layer> layers = load_layers(o, target);
  std::printf("machine: %s, target %s, date %s\n\n", cpu_name().c_str(), target.str().c_str(), today().c_str());
  Json rows = Json::array();
  Targets targets;
  if (!o.evaluate_only) {
    Bench bench(o, layers);
    bench.tune_everything();
    report_search(o, bench.runs(), layers, rows, targets);
  }
  report_predictions(o, layers, rows, targets);
  if (!o.no_save && !o.evaluate_only) write_results(o.name, target.str(), rows, targets);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return tf::bench::bench_main("costmodel_bench", run, argc, argv, 3); }

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "cli/model_regress.h"
#include "cli/open_db.h"
#include "cli/workload_args.h"
#include "compiler/compiler.h"
#include "db/process_identity.h"
#include "graph/bound_inputs.h"
#include "graph/model_latency.h"
#include "graph/onnx_import.h"
#include "graph/tasks.h"
#include "regress/model_regression.h"
#include "runtime/measure.h"
#include "support/stats.h"

namespace tf::cli {
namespace {

// A model's name in records: the file's, as `model tune` files its jobs.
std::string model_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

struct BuiltHere {
  runtime::model::ModelFile file;
  int64_t flops = 0;
  std::string inputs_text;
};

BuiltHere build_here(const ModelRegressArgs& a, db::Database& db) {
  const graph::Graph imported = graph::import_onnx_file(a.model, import_options(a.shapes));
  graph::DbBuildOptions records;
  records.threads = a.threads;
  records.db = &db;
  records.device_key = device_key_of(a.threads);
  graph::DbBuild built = graph::build_with_db(imported, codegen::host_target(), records);
  BuiltHere b;
  b.file = std::move(built.file);
  b.flops = graph::kernel_flops(built.planned);
  b.inputs_text = graph::bound_inputs_text(built.planned);
  return b;
}

regress::ModelTimingSettings timing(const ModelRegressArgs& a, int rounds) {
  regress::ModelTimingSettings s;
  s.rounds = rounds;
  s.threads = a.threads;
  s.lock_file = runtime::MeasureOptions{}.timing_lock;
  return s;
}

}  // namespace

void add_model_regress_options(CLI::App& cmd, ModelRegressArgs& a) {
  cmd.add_option("--model", a.model,
                 "a whole model instead of a suite: the .onnx file, built from --db's best configs, timed on this host")
      ->check(CLI::ExistingFile)
      ->type_name("M.onnx");
  add_input_shape_options(cmd, a.shapes);
  cmd.add_option("--threads", a.threads,
                 "with --model: threads the model runs on (its configs are the db's at this count)")
      ->check(CLI::Range(1, 1024));
}

int save_model_baseline(const ModelRegressArgs& a, const std::string& db_path, const std::string& name, bool replace,
                        int rounds, bool as_json) {
  auto db_handle = open_or_create_db(db_path);
  db::Database& db = *db_handle;
  if (!replace && db.model_baseline(name)) {
    throw regress::RunError("model baseline '" + name + "' exists in " + db_path +
                            "; --replace to overwrite it, or choose another name");
  }
  BuiltHere built = build_here(a, db);
  std::fprintf(stderr, "baseline save: timing %s on this host, %d rounds at %d thread(s)\n", a.model.c_str(), rounds,
               a.threads);
  db::ModelBaseline b;
  b.name = name;
  b.model = model_name(a.model);
  b.input_shapes = built.inputs_text;
  b.target = built.file.target;
  b.device_key = device_key_of(a.threads);
  b.threads = a.threads;
  b.compiler_version = compiler::version();
  b.device = db::ProcessIdentity::self().host;
  b.costs = regress::time_model_rounds(built.file, timing(a, rounds));
  b.tfm = runtime::model::model_file_bytes(built.file);
  db.save_model_baseline(b, replace);
  const double ms = median(b.costs) * 1e3;
  if (as_json) {
    std::printf("%s\n", Json{{"baseline", name},
                             {"model", b.model},
                             {"input_shapes", b.input_shapes},
                             {"median_ms", ms},
                             {"rounds", rounds},
                             {"threads", a.threads},
                             {"tfm_bytes", b.tfm.size()},
                             {"stored", true}}
                            .dump(2)
                            .c_str());
  } else {
    std::printf("model baseline '%s' saved: %s (%s), %.3f ms median over %d rounds, compiler %s, in %s\n", name.c_str(),
                b.model.c_str(), b.input_shapes.c_str(), ms, rounds, b.compiler_version.c_str(),
                db::shown_location(db_path).c_str());
  }
  return 0;
}

regress::RegressReport model_regress(const ModelRegressArgs& a, const std::string& db_path, const std::string& baseline,
                                     std::optional<double> threshold, int rounds) {
  auto db_handle = open_existing_db(db_path, DbUse::Read);
  db::Database& db = *db_handle;
  const auto stored = db.model_baseline(baseline);
  if (!stored)
    throw regress::RunError("no model baseline named '" + baseline + "' in " + db::shown_location(db_path) +
                            " (tunefarm baseline list)");
  if (stored->model != model_name(a.model)) {
    throw regress::RunError("model baseline '" + baseline + "' is of " + stored->model + ", not " +
                            model_name(a.model));
  }
  BuiltHere built = build_here(a, db);
  if (built.inputs_text != stored->input_shapes) {
    throw regress::RunError("model baseline '" + baseline + "' was built for inputs " + stored->input_shapes +
                            ", this run binds " + built.inputs_text + " (give the same --input-shape / --batch)");
  }
  regress::RegressReport report;
  report.baseline = baseline;
  report.suite = "model " + stored->model;
  report.where = "this host";
  report.target = built.file.target;
  report.timing_isolation = "the host-wide timing lock; baseline and current models in turn each round";
  report.rounds = rounds;
  const auto start = std::chrono::steady_clock::now();
  std::fprintf(stderr, "regress: %s against model baseline '%s', %d interleaved rounds at %d thread(s)\n",
               a.model.c_str(), baseline.c_str(), rounds, a.threads);
  report.workloads.push_back(
      regress::compare_models(*stored, built.file, built.flops, threshold.value_or(0.05), timing(a, rounds)));
  report.device = report.workloads.back().device;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

Json model_baselines_json(const std::string& db_path) {
  auto db_handle = open_existing_db(db_path, DbUse::Read);
  Json list = Json::array();
  for (const auto& b : db_handle->model_baselines()) {
    list.push_back(Json{{"name", b.name},
                        {"model", b.model},
                        {"input_shapes", b.input_shapes},
                        {"device_key", b.device_key},
                        {"compiler_version", b.compiler_version},
                        {"median_ms", median(b.costs) * 1e3},
                        {"created_ms", b.created_ms}});
  }
  return list;
}

}  // namespace tf::cli

// `tunefarm model build M.onnx -o M.tfm`: import, plan (graph/pipeline.cc), compile every kernel with
// the database's best config where it has one and the default elsewhere, and write one file a
// board runs with the runtime alone.
#include <chrono>
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/input_shape_args.h"
#include "cli/open_db.h"
#include "cli/workload_args.h"
#include "db/database.h"
#include "graph/bound_inputs.h"
#include "graph/build.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "support/json.h"
#include "tuner/best_configs.h"

namespace tf::cli {
namespace {

struct BuildArgs {
  std::string onnx_path;
  std::string out_path;
  std::string db_path;
  std::string target = "native";
  int threads = 1;
  std::string key;  // the device key the configs were measured under; empty: this host's (local, local-Nt)
  // Which records count first: timed as the model runs its kernels, the weights read from memory.
  std::string timing = runtime::timing_name(runtime::ColdInputs::Weights);
  InputShapeArgs shapes;
  bool as_json = false;
  bool quiet = false;
};

Json kernel_json(const graph::BuiltKernel& k) {
  Json j = {{"workload", k.workload}, {"shape", k.shape_text}, {"config", parse_json(k.config)},
            {"tuned", k.tuned},       {"nodes", k.nodes},      {"compile_ms", k.compile_ms}};
  if (!k.note.empty()) j["note"] = k.note;
  return j;
}

int build_command(const BuildArgs& args) {
  const auto start = std::chrono::steady_clock::now();
  const graph::ImportOptions import = import_options(args.shapes);
  std::unique_ptr<db::Database> database;
  if (!args.db_path.empty()) database = open_existing_db(args.db_path, DbUse::Read);
  graph::BuildOptions options;
  options.target = codegen::parse_target(args.target);
  options.threads = args.threads;
  const std::string target_text = options.target.str();
  const runtime::ColdInputs timing = *timing_of_option(args.timing);
  const tuner::BestConfigs best(database.get(), target_text, args.key.empty() ? device_key_of(args.threads) : args.key,
                                timing);
  graph::PlanOptions plan = graph::plan_options_for(options.target);
  plan.measured_seconds = [&](const ops::Workload& w) { return best.seconds(w); };
  const graph::Graph planned = graph::plan_graph(graph::import_onnx_file(args.onnx_path, import), plan);
  options.config_for = [&](const ops::Workload& w) { return best.config(w); };
  options.on_kernel = [&](size_t i, size_t n, const graph::BuiltKernel& k) {
    if (args.quiet) return;
    std::fprintf(stderr, "model build: [%zu/%zu] %s %s (%.0f ms)%s%s\n", i + 1, n, k.workload.c_str(),
                 k.tuned ? "tuned" : "default", k.compile_ms, k.note.empty() ? "" : ": ", k.note.c_str());
  };
  graph::BuildReport report;
  const runtime::model::ModelFile file = graph::build_model(planned, options, &report);
  try {
    runtime::model::write_model_file(file, args.out_path);
  } catch (const runtime::model::ModelFileError& e) {
    throw UsageError(std::string("-o: ") + e.what());
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  size_t tuned = 0;
  for (const auto& k : report.kernels) tuned += k.tuned ? 1 : 0;
  const std::vector<std::string> timed_otherwise = best.other_timings();
  if (!timed_otherwise.empty() && !args.quiet) {
    std::fprintf(stderr, "model build: %zu workloads have no record timed %s; their best of another timing is used:",
                 timed_otherwise.size(), args.timing.c_str());
    for (const auto& w : timed_otherwise) std::fprintf(stderr, " %s", w.c_str());
    std::fprintf(stderr, "\n");
  }
  if (args.as_json) {
    Json kernels = Json::array();
    for (const auto& k : report.kernels) kernels.push_back(kernel_json(k));
    Json out = {{"model", args.onnx_path},
                {"output", args.out_path},
                {"target", target_text},
                {"threads", args.threads},
                {"batch", import.batch.value_or(1)},
                {"input_shapes", graph::bound_inputs_json(planned)},
                {"steps", report.steps},
                {"aliases", report.aliases},
                {"kernels", kernels},
                {"tuned_kernels", tuned},
                {"timing", args.timing},
                {"timed_otherwise", timed_otherwise},
                {"peak_activation_bytes", report.arena_bytes},
                {"constant_bytes", report.constant_bytes},
                {"seconds", seconds}};
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("%s -> %s: %zu steps, %zu kernels (%zu tuned from the database, the rest default), %zu aliases\n",
              args.onnx_path.c_str(), args.out_path.c_str(), report.steps, report.kernels.size(), tuned,
              report.aliases);
  std::printf("inputs %s\n", graph::bound_inputs_text(planned).c_str());
  std::printf("peak activation memory %.2f MiB, constants %.2f MiB, built in %.1f s\n", report.arena_bytes / 1048576.0,
              report.constant_bytes / 1048576.0, seconds);
  return 0;
}

}  // namespace

void add_model_build(CLI::App& model_cmd, Commands& commands) {
  auto a = std::make_shared<BuildArgs>();
  CLI::App* cmd = model_cmd.add_subcommand(
      "build", "compile an ONNX model into one file (.tfm) a board runs with the runtime alone");
  cmd->footer(
      "Every kernel uses the database's best config for its workload on this target and thread count\n"
      "(--db), or under the boards' --key, the default config elsewhere. Records timed as --timing says\n"
      "count first (cold-weights: as `model tune` times kernels by default); a workload with none takes\n"
      "its best of any timing. Shapes are static: symbolic input extents are bound by --input-shape\n"
      "NAME=1,3,640,640 (once per input) and extent 0 by --batch, as they were for `model tune`.");
  cmd->add_option("model", a->onnx_path, "the .onnx file")->required()->check(CLI::ExistingFile)->type_name("M.onnx");
  cmd->add_option("-o,--output", a->out_path, "the compiled model to write")->required()->type_name("M.tfm");
  cmd->add_option(
         "--db", a->db_path,
         "tuning database whose best configs the kernels use: a SQLite file or postgresql://USER@HOST:PORT/NAME")
      ->type_name("PATH|URL");
  cmd->add_option("--threads", a->threads, "the thread count the configs were tuned for (the database's device key)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--key", a->key,
                  "use the configs measured by the boards of this key (a fleet's db; for boards of another "
                  "kind of machine, give --target their target, as `tunefarm devices` shows it)")
      ->type_name("KEY");
  add_timing_option(
      *cmd, a->timing,
      "prefer configs timed so (a workload with none takes its best of any timing): cold-weights as a model "
      "reads its weights, warm as `tunefarm tune` times by default");
  cmd->add_option(
         "--target", a->target,
         "native (this host, named as a board on it names itself), or \"llvm -mtriple=... -mcpu=... -mattr=...\"")
      ->type_name("TARGET");
  add_input_shape_options(*cmd, a->shapes);
  cmd->add_flag("--json", a->as_json, "print JSON");
  cmd->add_flag("-q,--quiet", a->quiet, "no progress lines on stderr");
  commands.on(cmd, [a] { return build_command(*a); });
}

}  // namespace tf::cli

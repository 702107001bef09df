// `tunefarm model inspect M.onnx`: what an ONNX model declares, the nodes by op before and after the
// graph passes, the tunable tasks, and the nodes tunefarm cannot import.
#include <cstdio>
#include <optional>

#include "cli/commands.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "graph/tasks.h"
#include "support/json.h"

namespace tf::cli {
namespace {

struct InspectOptions {
  std::string file;
  int64_t batch = 1;
  bool json = false;
};

Json tensors_json(const std::vector<graph::OnnxSummary::Tensor>& ts) {
  Json out = Json::array();
  for (const auto& t : ts) out.push_back({{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}});
  return out;
}

Json counts_json(const std::map<std::string, int>& counts) {
  Json out = Json::object();
  for (const auto& [op, n] : counts) out[op] = n;
  return out;
}

Json tasks_json(const std::vector<graph::Task>& tasks) {
  Json out = Json::array();
  for (const auto& t : tasks) {
    out.push_back({{"op", t.workload.op}, {"shape", t.shape_text}, {"workload", t.workload.str()}, {"count", t.count},
                   {"flops", t.flops}, {"share", t.share}, {"nodes", t.nodes}});
  }
  return out;
}

std::string counts_text(const std::map<std::string, int>& counts) {
  std::string s;
  for (const auto& [op, n] : counts) s += (s.empty() ? "" : ", ") + op + " " + std::to_string(n);
  return s;
}

void print_plain(const std::string& file, const graph::OnnxSummary& s, int64_t batch, const graph::Graph* planned,
                 const std::vector<graph::Task>& tasks) {
  std::printf("%s: opset %lld, from %s\n", file.c_str(), static_cast<long long>(s.opset), s.producer.empty() ? "?" : s.producer.c_str());
  std::printf("inputs (a symbolic batch is fixed at %lld):\n", static_cast<long long>(batch));
  for (const auto& t : s.inputs) std::printf("  %-24s %-8s %s\n", t.name.c_str(), t.dtype.c_str(), t.shape.c_str());
  std::printf("outputs:\n");
  for (const auto& t : s.outputs) std::printf("  %-24s %-8s %s\n", t.name.c_str(), t.dtype.c_str(), t.shape.c_str());
  int total = 0;
  for (const auto& [op, n] : s.ops) total += n;
  std::printf("nodes (%d): %s\n", total, counts_text(s.ops).c_str());
  if (planned) {
    std::printf("planned nodes (%zu): %s\n", planned->nodes.size(), counts_text(graph::count_ops(*planned)).c_str());
    double gflop = 0;
    for (const auto& t : tasks) gflop += static_cast<double>(t.flops) / 1e9;
    std::printf("tunable tasks (%zu, %.2f GFLOP per run):\n", tasks.size(), gflop);
    std::printf("  %-28s %-66s %6s %9s %6s\n", "op", "shape", "count", "GFLOP", "share");
    for (const auto& t : tasks) {
      std::printf("  %-28s %-66s %6lld %9.3f %5.1f%%\n", t.workload.op.c_str(), t.shape_text.c_str(), static_cast<long long>(t.count),
                  static_cast<double>(t.flops) / 1e9, 100 * t.share);
    }
  }
  if (!s.unsupported.empty()) {
    std::printf("unsupported nodes (%zu):\n", s.unsupported.size());
    for (const auto& u : s.unsupported) std::printf("  %s\n", u.c_str());
  }
}

int inspect_command(const InspectOptions& o) {
  const graph::OnnxSummary summary = graph::summarize_onnx_file(o.file);
  std::optional<graph::Graph> planned;
  std::vector<graph::Task> tasks;
  if (summary.unsupported.empty()) {
    graph::ImportOptions options;
    options.batch = o.batch;
    planned = graph::plan_graph(graph::import_onnx_file(o.file, options));
    tasks = graph::tunable_tasks(*planned);
  }
  if (o.json) {
    Json out = Json::object();
    out["file"] = o.file;
    out["opset"] = summary.opset;
    out["producer"] = summary.producer;
    out["batch"] = o.batch;
    out["inputs"] = tensors_json(summary.inputs);
    out["outputs"] = tensors_json(summary.outputs);
    out["nodes"] = counts_json(summary.ops);
    out["planned_nodes"] = planned ? counts_json(graph::count_ops(*planned)) : Json(nullptr);
    out["tasks"] = tasks_json(tasks);
    out["unsupported"] = summary.unsupported;
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    print_plain(o.file, summary, o.batch, planned ? &*planned : nullptr, tasks);
  }
  // A model with nodes tunefarm cannot import fails the check: nothing of it can be built.
  return summary.unsupported.empty() ? 0 : 1;
}

}  // namespace

void add_model(CLI::App& tunefarm, Commands& commands) {
  CLI::App* model = tunefarm.add_subcommand("model", "whole models: inspect, tune and build an ONNX model; run and time a compiled one (.tfm)");
  add_model_tune(*model, commands);
  add_model_build(*model, commands);
  add_model_run(*model, commands);
  model->require_subcommand(1);
  auto o = std::make_shared<InspectOptions>();
  CLI::App* cmd = model->add_subcommand("inspect", "an ONNX model's inputs, outputs, nodes by op, tunable tasks and unsupported nodes");
  cmd->footer("Shapes are static: a symbolic batch extent is fixed at --batch, any other symbolic extent is refused.\n"
              "Exit 1 when the model has nodes tunefarm cannot import (they are listed), 2 when the file is not a usable model.");
  cmd->add_option("model", o->file, "the .onnx file")->required()->type_name("M.onnx");
  cmd->add_option("--batch", o->batch, "the batch a symbolic first extent of an input becomes")->check(CLI::PositiveNumber)->default_val(1);
  cmd->add_flag("--json", o->json, "print JSON");
  commands.on(cmd, [o] { return inspect_command(*o); });
}

}  // namespace tf::cli

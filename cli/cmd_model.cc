// `tunefarm model inspect M.onnx`: what an ONNX model declares, the nodes by op before and after the
// graph passes, the tunable tasks, and the nodes tunefarm cannot import.
#include <cstdio>
#include <optional>

#include "cli/commands.h"
#include "cli/input_shape_args.h"
#include "cli/pass_dumps.h"
#include "graph/bound_inputs.h"
#include "graph/graph_text.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "graph/tasks.h"
#include "support/json.h"

namespace tf::cli {
namespace {

struct InspectOptions {
  std::string file;
  InputShapeArgs shapes;
  bool json = false;
  std::string dump_after;
};

Json tensors_json(const std::vector<graph::OnnxSummary::Tensor>& ts) {
  Json out = Json::array();
  for (const auto& t : ts) out.push_back({{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}});
  return out;
}

// Each input's symbolic extents and the shape they were bound to (null when binding failed).
Json inputs_json(const std::vector<graph::OnnxSummary::Tensor>& ts) {
  Json out = tensors_json(ts);
  for (size_t i = 0; i < ts.size(); ++i) {
    Json symbolic = Json::array();
    for (const auto& d : ts[i].symbolic) symbolic.push_back({{"extent", d.index}, {"name", d.name}});
    out[i]["symbolic"] = symbolic;
    out[i]["bound"] = ts[i].bound.empty() ? Json(nullptr) : Json(ts[i].bound);
  }
  return out;
}

// "N (extent 0), H (extent 2)": what --input-shape binds.
std::string symbolic_text(const std::vector<graph::SymbolicExtent>& dims) {
  std::string s;
  for (const auto& d : dims)
    s += (s.empty() ? "" : ", ") + (d.name.empty() ? std::string("?") : d.name) + " (extent " +
         std::to_string(d.index) + ")";
  return s;
}

Json counts_json(const std::map<std::string, int>& counts) {
  Json out = Json::object();
  for (const auto& [op, n] : counts) out[op] = n;
  return out;
}

Json tasks_json(const std::vector<graph::Task>& tasks) {
  Json out = Json::array();
  for (const auto& t : tasks) {
    out.push_back({{"op", t.workload.op},
                   {"shape", t.shape_text},
                   {"workload", t.workload.str()},
                   {"count", t.count},
                   {"flops", t.flops},
                   {"share", t.share},
                   {"nodes", t.nodes},
                   {"group", t.group + 1}});
  }
  return out;
}

std::string counts_text(const std::map<std::string, int>& counts) {
  std::string s;
  for (const auto& [op, n] : counts) s += (s.empty() ? "" : ", ") + op + " " + std::to_string(n);
  return s;
}

void print_inputs(const graph::OnnxSummary& s) {
  std::printf("inputs (symbolic extents bound by --input-shape NAME=LIST, extent 0 by --batch):\n");
  for (const auto& t : s.inputs) {
    std::string line = t.shape;
    if (!t.bound.empty()) line += " -> " + graph::shape_str(t.bound);
    if (!t.symbolic.empty()) line += "  symbolic: " + symbolic_text(t.symbolic);
    std::printf("  %-24s %-8s %s\n", t.name.c_str(), t.dtype.c_str(), line.c_str());
  }
}

void print_plain(const std::string& file, const graph::OnnxSummary& s, const graph::Graph* planned,
                 const std::vector<graph::Task>& tasks) {
  std::printf("%s: opset %lld, from %s\n", file.c_str(), static_cast<long long>(s.opset),
              s.producer.empty() ? "?" : s.producer.c_str());
  print_inputs(s);
  std::printf("outputs:\n");
  for (const auto& t : s.outputs) std::printf("  %-24s %-8s %s\n", t.name.c_str(), t.dtype.c_str(), t.shape.c_str());
  int total = 0;
  for (const auto& [op, n] : s.ops) total += n;
  std::printf("nodes (%d): %s\n", total, counts_text(s.ops).c_str());
  if (planned) {
    std::printf("planned nodes (%zu): %s\n", planned->nodes.size(), counts_text(graph::count_ops(*planned)).c_str());
    const double gflop = static_cast<double>(graph::kernel_flops(*planned)) / 1e9;
    std::printf(
        "tunable tasks (%zu, %.2f GFLOP per run; tasks of one group are alternative kernels of the same nodes):\n",
        tasks.size(), gflop);
    std::printf("  %-35s %-70s %5s %6s %9s %6s\n", "op", "shape", "group", "count", "GFLOP", "share");
    for (const auto& t : tasks) {
      std::printf("  %-35s %-70s %5s %6lld %9.3f %5.1f%%\n", t.workload.op.c_str(), t.shape_text.c_str(),
                  t.group < 0 ? "-" : std::to_string(t.group + 1).c_str(), static_cast<long long>(t.count),
                  static_cast<double>(t.flops) / 1e9, 100 * t.share);
    }
  }
  if (!s.unsupported.empty()) {
    std::printf("unsupported nodes (%zu):\n", s.unsupported.size());
    for (const auto& u : s.unsupported) std::printf("  %s\n", u.c_str());
  }
  if (!s.binding_error.empty()) std::printf("unbound inputs: %s\n", s.binding_error.c_str());
}

int inspect_command(const InspectOptions& o) {
  const graph::ImportOptions options = import_options(o.shapes);
  const graph::OnnxSummary summary = graph::summarize_onnx_file(o.file, options);
  std::optional<graph::Graph> planned;
  std::vector<graph::Task> tasks;
  PassDumps dumps(o.dump_after);
  const bool importable = summary.unsupported.empty() && summary.binding_error.empty();
  if (importable) {
    graph::GraphPassObserver dump;
    if (dumps.requested())
      dump = [&dumps](const std::string& pass, const graph::Graph& g) {
        dumps.after(pass, [&g] { return graph::to_text(g); });
      };
    planned = graph::plan_graph(graph::import_onnx_file(o.file, options),
                                graph::plan_options_for(codegen::host_target()), dump);
    tasks = graph::tunable_tasks(*planned);
  }
  if (o.json) {
    Json out = Json::object();
    out["file"] = o.file;
    out["opset"] = summary.opset;
    out["producer"] = summary.producer;
    out["batch"] = options.batch.value_or(1);
    out["inputs"] = inputs_json(summary.inputs);
    out["input_shapes"] = planned ? graph::bound_inputs_json(*planned) : Json(nullptr);
    out["outputs"] = tensors_json(summary.outputs);
    out["nodes"] = counts_json(summary.ops);
    out["planned_nodes"] = planned ? counts_json(graph::count_ops(*planned)) : Json(nullptr);
    out["tasks"] = tasks_json(tasks);
    out["unsupported"] = summary.unsupported;
    out["binding_error"] = summary.binding_error.empty() ? Json(nullptr) : Json(summary.binding_error);
    if (dumps.requested()) out["dumps"] = dumps.json();
    std::printf("%s\n", out.dump(2).c_str());
  } else if (dumps.requested() && importable) {
    dumps.print();
  } else {
    print_plain(o.file, summary, planned ? &*planned : nullptr, tasks);
  }
  // A model with nodes tunefarm cannot import, or inputs left symbolic, fails the check: nothing of
  // it can be built as it stands.
  return importable ? 0 : 1;
}

}  // namespace

void add_model(CLI::App& tunefarm, Commands& commands) {
  CLI::App* model = tunefarm.add_subcommand(
      "model", "whole models: inspect, tune and build an ONNX model; run and time a compiled one (.tfm)");
  add_model_tune(*model, commands);
  add_model_build(*model, commands);
  add_model_run(*model, commands);
  model->require_subcommand(1);
  auto o = std::make_shared<InspectOptions>();
  CLI::App* cmd = model->add_subcommand(
      "inspect", "an ONNX model's inputs, outputs, nodes by op, tunable tasks and unsupported nodes");
  cmd->footer(
      "Shapes are static: each input's symbolic extents are listed and bound by --input-shape NAME=1,3,640,640\n"
      "(once per input; a symbolic name bound there binds it in every input) and extent 0 by --batch.\n"
      "Exit 1 when the model has nodes tunefarm cannot import or extents left symbolic (they are listed), 2 when the\n"
      "file is not a usable model or a given shape does not fit it.");
  cmd->add_option("model", o->file, "the .onnx file")->required()->type_name("M.onnx");
  add_input_shape_options(*cmd, o->shapes);
  add_dump_after_option(*cmd, o->dump_after, graph::pipeline_pass_names(), "the graph (instead of the summary)");
  cmd->add_flag("--json", o->json, "print JSON (with --dump-after, \"dumps\": [{\"pass\", \"index\", \"text\"}])");
  commands.on(cmd, [o] { return inspect_command(*o); });
}

}  // namespace tf::cli

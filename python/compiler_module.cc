// tunefarm._compiler: what `tunefarm model build` does, from Python. It links the compiler (LLVM),
// so tunefarm imports it only when a build is asked for: a process that only runs models never
// loads it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/codegen/target.h"
#include "compiler/error.h"
#include "db/database.h"
#include "db/error.h"
#include "graph/model_latency.h"
#include "graph/model_tune.h"
#include "graph/onnx_import.h"
#include "runtime/measure.h"
#include "runtime/model/model_file.h"
#include "tuner/best_configs.h"
#include "tuner/legacy_host_target.h"

namespace py = pybind11;

namespace tf::python {
namespace {

py::dict build(const std::string& onnx_path, const std::string& output, const std::optional<std::string>& db_path,
               int threads, const std::map<std::string, std::vector<int64_t>>& input_shapes,
               std::optional<int64_t> batch, const std::string& target_text, const std::optional<std::string>& key,
               const std::string& timing_text) {
  if (threads < 1 || threads > 1024) throw py::value_error("threads: " + std::to_string(threads) + " (1..1024)");
  if (!std::filesystem::is_regular_file(onnx_path)) throw py::value_error(onnx_path + ": no such file");
  if (db_path && db_path->find("://") == std::string::npos && !std::filesystem::is_regular_file(*db_path))
    throw py::value_error("db: " + *db_path + ": no such file (tune the model into it first)");
  if (batch && *batch < 1) throw py::value_error("batch: " + std::to_string(*batch) + " (at least 1)");
  runtime::ColdInputs timing;
  if (!runtime::parse_timing(timing_text, &timing))
    throw py::value_error("timing: '" + timing_text + "' is not one of warm, cold-weights, cold-all");
  const auto start = std::chrono::steady_clock::now();
  std::string error;
  bool bad_input = false;
  graph::DbBuild built;
  std::string target_str;
  {
    py::gil_scoped_release unlocked;
    try {
      graph::ImportOptions import;
      for (const auto& [name, shape] : input_shapes) import.input_shapes[name] = shape;
      import.batch = batch;
      const codegen::Target target = codegen::parse_target(target_text);
      target_str = target.str();
      std::unique_ptr<db::Database> db;
      if (db_path) db = tuner::open_host_database(*db_path, db::Database::Open::ReadOnly);
      const graph::Graph imported = graph::import_onnx_file(onnx_path, import);
      graph::DbBuildOptions records;
      records.threads = threads;
      records.db = db.get();
      records.device_key = key ? *key : tuner::local_device_key(threads);
      records.timing = timing;
      built = graph::build_with_db(imported, target, records);
      runtime::model::write_model_file(built.file, output);
    } catch (const CompileError& e) {  // the model, its shapes or the target: the caller's input
      error = e.what();
      bad_input = true;
    } catch (const runtime::model::ModelFileError& e) {
      error = "output " + output + ": " + e.what();
      bad_input = true;
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  if (bad_input) throw py::value_error(onnx_path + ": " + error);
  if (!error.empty()) throw std::runtime_error(onnx_path + ": " + error);
  py::dict out;
  out["model"] = onnx_path;
  out["output"] = output;
  out["target"] = target_str;
  out["threads"] = threads;
  out["kernels"] = built.file.kernels.size();
  out["tuned_kernels"] = std::count_if(built.report.kernels.begin(), built.report.kernels.end(),
                                       [](const graph::BuiltKernel& k) { return k.tuned; });
  out["steps"] = built.file.steps.size();
  out["peak_activation_bytes"] = built.file.arena_bytes;
  out["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

py::object to_python(const Json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

struct TuneRequest {
  std::string onnx_path;
  std::map<std::string, std::vector<int64_t>> input_shapes;
  std::optional<int64_t> batch;
  std::string target, layouts;
  bool for_boards = false;
};

graph::ModelTuneOptions tune_options(const TuneRequest& r) {
  if (!std::filesystem::is_regular_file(r.onnx_path)) throw py::value_error(r.onnx_path + ": no such file");
  if (r.batch && *r.batch < 1) throw py::value_error("batch: " + std::to_string(*r.batch) + " (at least 1)");
  if (r.layouts != "graph" && r.layouts != "per-conv")
    throw py::value_error("layouts: '" + r.layouts + "' is not graph or per-conv");
  graph::ModelTuneOptions o;
  o.model_path = r.onnx_path;
  for (const auto& [name, shape] : r.input_shapes) o.import.input_shapes[name] = shape;
  o.import.batch = r.batch;
  o.target = r.target;
  o.layouts = r.layouts;
  o.for_boards = r.for_boards;
  return o;
}

// Runs `work` with the GIL released; CompileError and ModelTuneError (the caller's input) raise
// ValueError naming the model, anything else RuntimeError.
template <typename Work>
void run_released(const std::string& onnx_path, Work work) {
  std::string error;
  bool bad_input = false;
  {
    py::gil_scoped_release unlocked;
    try {
      work();
    } catch (const CompileError& e) {
      error = e.what();
      bad_input = true;
    } catch (const std::invalid_argument& e) {
      error = e.what();
      bad_input = true;
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  if (bad_input) throw py::value_error(onnx_path + ": " + error);
  if (!error.empty()) throw std::runtime_error(onnx_path + ": " + error);
}

// The tasks a model job tunes, as a tracker's job file lists them (tunefarm.tune_model on a fleet).
py::dict model_tasks(const std::string& onnx_path, const std::map<std::string, std::vector<int64_t>>& input_shapes,
                     std::optional<int64_t> batch, const std::string& target, const std::string& layouts) {
  const graph::ModelTuneOptions o = tune_options({onnx_path, input_shapes, batch, target, layouts, true});
  graph::ModelTasks m;
  run_released(onnx_path, [&] { m = graph::model_tasks(o); });
  Json workloads = Json::array();
  for (const auto& t : m.tasks) {
    // The wire's groups count from 1 (0: none); the graph's from 0 (-1: none).
    workloads.push_back(
        {{"op", t.workload.op}, {"shape", t.workload.shape}, {"calls", t.count}, {"group", t.group + 1}});
  }
  py::dict out;
  out["workloads"] = to_python(workloads);
  out["input_shapes"] = to_python(m.input_shapes);
  out["inputs_text"] = m.inputs_text;
  return out;
}

// Each progress report to `progress` (when given); Ctrl-C or an exception in it stops the search,
// and is raised once the job has recorded what it measured.
py::object tune_model(const std::string& onnx_path, const std::map<std::string, std::vector<int64_t>>& input_shapes,
                      std::optional<int64_t> batch, const std::string& target, const std::string& layouts,
                      const std::string& db_path, int64_t trials, int threads, const std::string& scheduler,
                      const std::string& tuner_name, const std::string& cold_inputs, double time_limit_s, uint64_t seed,
                      const py::object& progress) {
  if (threads < 1 || threads > 1024) throw py::value_error("threads: " + std::to_string(threads) + " (1..1024)");
  if (trials < 1) throw py::value_error("trials: " + std::to_string(trials) + " (at least 1)");
  if (!(time_limit_s >= 0)) throw py::value_error("time_limit_s: must be 0 (none) or positive");
  if (scheduler != "gradient" && scheduler != "even")
    throw py::value_error("scheduler: '" + scheduler + "' is not gradient or even");
  if (tuner_name != "xgb" && tuner_name != "random" && tuner_name != "grid" && tuner_name != "ga")
    throw py::value_error("tuner: '" + tuner_name + "' is not xgb, random, grid or ga");
  graph::ModelTuneOptions o = tune_options({onnx_path, input_shapes, batch, target, layouts, false});
  o.measure.trials = trials;
  o.measure.tuner = tuner_name;
  o.measure.seed = seed;
  o.measure.cold_inputs = cold_inputs;
  o.threads = threads;
  o.scheduler = scheduler;
  o.time_limit_s = time_limit_s;
  std::atomic<bool> stop{false};
  std::unique_ptr<py::error_already_set> raised;  // from the callback or Ctrl-C; raised at the end
  std::vector<graph::Task> tasks;
  graph::ModelTuneHooks hooks;
  hooks.stop = &stop;
  hooks.progress = [&](const tuner::TasksProgress& p, double other_nodes_ms) {
    py::gil_scoped_acquire locked;
    if (raised) return;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (progress.is_none()) return;
      py::dict d;
      d["trials"] = p.trials;
      d["budget"] = p.budget;
      d["estimated_ms"] = std::isfinite(p.estimated_s) ? p.estimated_s * 1e3 + other_nodes_ms : 0.0;
      d["elapsed_s"] = p.elapsed_s;
      d["resumed"] = p.replayed;
      d["untuned_tasks"] = p.missing;
      if (p.task < tasks.size()) {
        d["task"] = tasks[p.task].workload.str();
        d["task_trials"] = p.tasks[p.task].trials;
        const double best = p.tasks[p.task].best_s();
        d["task_best_ms"] = std::isfinite(best) ? best * 1e3 : 0.0;
      }
      progress(d);
    } catch (py::error_already_set& e) {
      raised = std::make_unique<py::error_already_set>(std::move(e));
      stop = true;
    }
  };
  Json result;
  run_released(onnx_path, [&] {
    const graph::ModelTasks m = graph::model_tasks(o);
    tasks = m.tasks;
    const std::unique_ptr<db::Database> db = tuner::open_host_database(db_path, db::Database::Open::Create);
    result = graph::model_tune_result_json(graph::tune_model_locally(o, m, *db, hooks));
  });
  if (raised) throw std::move(*raised);
  return to_python(result);
}

}  // namespace
}  // namespace tf::python

PYBIND11_MODULE(_compiler, m) {
  m.doc() = "tunefarm's compiler from Python: ONNX models built into .tfm files.";
  m.def("build", &tf::python::build, py::arg("onnx_path"), py::arg("output"), py::arg("db") = py::none(),
        py::arg("threads") = 1, py::arg("input_shapes") = std::map<std::string, std::vector<int64_t>>{},
        py::arg("batch") = py::none(), py::arg("target") = "native", py::arg("key") = py::none(),
        py::arg("timing") = "cold-weights");
  m.def("model_tasks", &tf::python::model_tasks, py::arg("onnx_path"),
        py::arg("input_shapes") = std::map<std::string, std::vector<int64_t>>{}, py::arg("batch") = py::none(),
        py::arg("target") = "native", py::arg("layouts") = "per-conv");
  m.def("tune_model", &tf::python::tune_model, py::arg("onnx_path"), py::arg("input_shapes"), py::arg("batch"),
        py::arg("target"), py::arg("layouts"), py::arg("db"), py::arg("trials"), py::arg("threads"),
        py::arg("scheduler"), py::arg("tuner"), py::arg("cold_inputs"), py::arg("time_limit_s"), py::arg("seed"),
        py::arg("progress"));
}

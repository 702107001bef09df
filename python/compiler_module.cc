// tunefarm._compiler: what `tunefarm model build` does, from Python. It links the compiler (LLVM),
// so tunefarm imports it only when a build is asked for: a process that only runs models never
// loads it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
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
#include "graph/onnx_import.h"
#include "runtime/measure.h"
#include "runtime/model/model_file.h"
#include "tuner/best_configs.h"

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
  runtime::model::ModelFile file;
  graph::Graph planned;
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
      if (db_path) db = std::make_unique<db::Database>(*db_path);
      const graph::Graph imported = graph::import_onnx_file(onnx_path, import);
      file = graph::build_with_db(imported, target, threads, db.get(), key ? *key : tuner::local_device_key(threads),
                                  &planned, timing);
      runtime::model::write_model_file(file, output);
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
  out["kernels"] = file.kernels.size();
  out["steps"] = file.steps.size();
  out["peak_activation_bytes"] = file.arena_bytes;
  out["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace
}  // namespace tf::python

PYBIND11_MODULE(_compiler, m) {
  m.doc() = "tunefarm's compiler from Python: ONNX models built into .tfm files.";
  m.def("build", &tf::python::build, py::arg("onnx_path"), py::arg("output"), py::arg("db") = py::none(),
        py::arg("threads") = 1, py::arg("input_shapes") = std::map<std::string, std::vector<int64_t>>{},
        py::arg("batch") = py::none(), py::arg("target") = "native", py::arg("key") = py::none(),
        py::arg("timing") = "cold-weights");
}

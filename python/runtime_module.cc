// tunefarm._runtime: a compiled model (.tfm) loaded and run on NumPy arrays. It links the runtime
// alone, as a board does: no LLVM, no database, no gRPC in the process.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>

#include "runtime/model/executor.h"
#include "runtime/model/model_file.h"
#include "runtime/model/timing.h"
#include "runtime/thread_pool.h"

namespace py = pybind11;

namespace tf::python {
namespace {

using runtime::model::Executor;
using runtime::model::TensorSpec;

py::dtype numpy_dtype(DType t) { return py::dtype(dtype_name(t)); }

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

py::list describe(const std::vector<TensorSpec>& specs) {
  py::list out;
  for (const TensorSpec& s : specs) {
    py::dict d;
    d["name"] = s.name;
    d["shape"] = py::tuple(py::cast(s.shape));
    d["dtype"] = dtype_name(s.dtype);
    out.append(d);
  }
  return out;
}

class Model {
 public:
  Model(const std::string& path, int threads) : threads_(threads) {
    if (threads < 1 || threads > 1024) throw py::value_error("threads: " + std::to_string(threads) + " (1..1024)");
    try {
      exec_ = std::make_unique<Executor>(runtime::model::read_model_file(path));
    } catch (const runtime::model::ModelFileError& e) {
      throw py::value_error(path + ": " + e.what());
    }
  }

  py::list inputs() const { return describe(exec_->inputs()); }
  py::list outputs() const { return describe(exec_->outputs()); }
  int threads() const { return threads_; }

  py::dict run(const py::dict& feeds) {
    copy_inputs(feeds);
    run_plan();
    py::dict out;
    const auto specs = exec_->outputs();
    for (size_t i = 0; i < specs.size(); ++i) {
      py::array a(numpy_dtype(specs[i].dtype), specs[i].shape);
      std::memcpy(a.mutable_data(), exec_->output_data(i), static_cast<size_t>(a.nbytes()));
      out[py::str(specs[i].name)] = a;
    }
    return out;
  }

  // As `tunefarm model bench` times it: inputs filled as it fills them unless given.
  py::dict bench(int runs, double min_seconds, const py::object& feeds) {
    if (feeds.is_none()) {
      runtime::model::fill_random_inputs(*exec_);
    } else {
      copy_inputs(feeds.cast<py::dict>());
    }
    if (runs < 0 || min_seconds < 0) throw py::value_error("runs and min_seconds must not be negative");
    runtime::model::ModelTiming t;
    std::string error;
    {
      py::gil_scoped_release unlocked;
      runtime::set_num_threads(threads_);
      try {
        t = runtime::model::time_model(*exec_, runs, min_seconds);
      } catch (const runtime::model::ModelFileError& e) {
        error = e.what();
      }
    }
    if (!error.empty()) throw std::runtime_error(error);
    py::dict out;
    out["runs"] = t.totals.size();
    out["min_ms"] = t.min_ms();
    out["median_ms"] = t.median_ms();
    out["threads"] = threads_;
    return out;
  }

 private:
  // Each input checked by name, shape and dtype, then copied into the model's arena: straight from
  // the caller's buffer when it is C-contiguous, through one contiguous copy when it is not.
  void copy_inputs(const py::dict& feeds) {
    const auto specs = exec_->inputs();
    for (const auto& [key, value] : feeds) {
      const std::string name = py::str(key);
      bool known = false;
      for (const TensorSpec& s : specs) known = known || s.name == name;
      if (!known) {
        std::string names;
        for (const TensorSpec& s : specs) names += (names.empty() ? "" : ", ") + s.name;
        throw py::value_error("the model has no input named '" + name + "' (its inputs: " + names + ")");
      }
    }
    for (size_t i = 0; i < specs.size(); ++i) {
      const TensorSpec& s = specs[i];
      if (!feeds.contains(s.name)) throw py::value_error("input '" + s.name + "' is not given");
      py::object given = feeds[py::str(s.name)];
      if (!py::isinstance<py::array>(given))
        throw py::value_error("input '" + s.name + "' is a " + std::string(py::str(given.get_type().attr("__name__"))) +
                              ", not a NumPy array");
      py::array a = given.cast<py::array>();
      if (!a.dtype().is(numpy_dtype(s.dtype)))
        throw py::value_error("input '" + s.name + "' is " + std::string(py::str(a.dtype())) + "; the model takes " +
                              dtype_name(s.dtype));
      const std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
      if (shape != s.shape)
        throw py::value_error("input '" + s.name + "' has shape " + shape_text(shape) + "; the model takes " +
                              shape_text(s.shape));
      if (!(a.flags() & py::array::c_style)) a = py::array::ensure(a, py::array::c_style);
      std::memcpy(exec_->input_data(i), a.data(), static_cast<size_t>(a.nbytes()));
    }
  }

  void run_plan() {
    std::string error;
    {
      py::gil_scoped_release unlocked;
      runtime::set_num_threads(threads_);
      try {
        exec_->run_plan();
      } catch (const runtime::model::ModelFileError& e) {
        error = e.what();
      }
    }
    if (!error.empty()) throw std::runtime_error(error);  // RuntimeError: a kernel reported a failure
  }

  std::unique_ptr<Executor> exec_;
  int threads_;
};

}  // namespace
}  // namespace tf::python

PYBIND11_MODULE(_runtime, m) {
  using tf::python::Model;
  m.doc() = "Compiled tunefarm models (.tfm) run on NumPy arrays, with the runtime alone (no compiler).";
  py::class_<Model>(m, "Model", "A compiled model (tunefarm model build -o M.tfm), loaded to run.")
      .def(py::init<const std::string&, int>(), py::arg("path"), py::arg("threads") = 1,
           "Loads the model's kernels and plan. ValueError naming the file when it is not a model this "
           "runtime reads.")
      .def_property_readonly("inputs", &Model::inputs, "[{'name', 'shape', 'dtype'}] of each input, in order")
      .def_property_readonly("outputs", &Model::outputs, "[{'name', 'shape', 'dtype'}] of each output, in order")
      .def_property_readonly("threads", &Model::threads, "threads the kernels run on")
      .def("run", &Model::run, py::arg("feeds"),
           "Runs the model on {input name: array}; returns {output name: array}. Each input must have the "
           "model's shape and dtype (ValueError naming the input otherwise). The GIL is released while "
           "the kernels run.")
      .def("bench", &Model::bench, py::arg("runs") = 0, py::arg("min_seconds") = 1.0, py::arg("feeds") = py::none(),
           "Times whole runs as `tunefarm model bench` does (runs=0: as many as fit in min_seconds, at "
           "least 10); {'runs', 'min_ms', 'median_ms', 'threads'}.");
}

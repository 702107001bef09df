// Runs a loaded .tfm model: the kernels of its plan in order, on one arena of activations and the
// model's constants. Needs only the runtime (a board runs models as it runs kernels).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/kernel_library.h"
#include "runtime/model/model_file.h"
#include "support/host_tensor.h"

namespace tf::runtime::model {

struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype = DType::Float32;
};

// Tensors by value name: a model's inputs or outputs.
using HostTensors = std::map<std::string, HostTensor>;

// How a value of `dtype` is described to a kernel (TFBuffer's dtype_code and dtype_bits): a bool
// is an 8-bit unsigned integer holding 0 or 1, as kernels type its placeholder.
void kernel_dtype(DType dtype, int32_t* code, int32_t* bits);

class Executor {
 public:
  // Loads every kernel library and lays out the arena and the constants. Throws ModelFileError
  // naming the kernel that does not load.
  explicit Executor(ModelFile model);
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  ~Executor();

  std::vector<TensorSpec> inputs() const;
  std::vector<TensorSpec> outputs() const;
  int64_t arena_bytes() const { return model_.arena_bytes; }
  const ModelFile& model() const { return model_; }

  // Copies each named input in (every input must be given, of its dtype and element count), runs
  // the plan, and returns the outputs by name, each with its dtype and shape. Throws ModelFileError
  // naming the unknown, missing, mistyped or misshapen input, or the step (node and kernel) whose
  // kernel reported an error.
  HostTensors run(const HostTensors& inputs);
  // The same for a model whose inputs and outputs are all float32; ModelFileError naming the first
  // input or output of another dtype.
  std::map<std::string, std::vector<float>> run_floats(const std::map<std::string, std::vector<float>>& inputs);

  // Runs the plan once on whatever the inputs hold; with `step_seconds`, times each step.
  void run_plan(std::vector<double>* step_seconds = nullptr);
  // The input's storage in the arena (inputs()[i].dtype elements), for callers that fill it in
  // place (benchmarks).
  void* input_data(size_t i);
  // The output's storage (outputs()[i].dtype elements), valid until the next run: what a caller
  // that copies results out itself reads (the Python module).
  const void* output_data(size_t i);

 private:
  void* address_of(int value_id);

  ModelFile model_;
  std::vector<std::unique_ptr<KernelLibrary>> libraries_;
  void* arena_ = nullptr;
  void* constants_ = nullptr;
  // Per step, the kernel's argument buffers, made once: the plan's addresses never change.
  std::vector<std::vector<TFBuffer>> step_args_;
};

}  // namespace tf::runtime::model

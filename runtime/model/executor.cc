#include "runtime/model/executor.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "runtime/aligned_buffer.h"

namespace tf::runtime::model {
namespace {

void* aligned_bytes(int64_t bytes) {
  const size_t size = static_cast<size_t>((std::max<int64_t>(bytes, 1) + TF_BUFFER_ALIGNMENT - 1) /
                                          TF_BUFFER_ALIGNMENT * TF_BUFFER_ALIGNMENT);
  // Zeroing touches every page: refused up front rather than swapping the machine to a halt.
  const uint64_t memory =
      static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  if (size > memory) {
    throw ModelFileError("the model needs " + std::to_string(bytes) + " bytes at once, more than this machine's " +
                         std::to_string(memory) + " bytes of memory");
  }
  void* p = allocate_aligned(size);
  if (!p) throw ModelFileError("cannot allocate " + std::to_string(bytes) + " bytes for the model");
  std::memset(p, 0, size);
  return p;
}

}  // namespace

void kernel_dtype(DType dtype, int32_t* code, int32_t* bits) {
  switch (dtype) {
    case DType::Float32: *code = TF_DTYPE_FLOAT, *bits = 32; return;
    case DType::Int64: *code = TF_DTYPE_INT, *bits = 64; return;
    case DType::Int32: *code = TF_DTYPE_INT, *bits = 32; return;
    case DType::Bool: *code = TF_DTYPE_UINT, *bits = 8; return;
    case DType::Float64: *code = TF_DTYPE_FLOAT, *bits = 64; return;
    case DType::Int8: *code = TF_DTYPE_INT, *bits = 8; return;
    case DType::UInt8: *code = TF_DTYPE_UINT, *bits = 8; return;
  }
  throw ModelFileError("unknown dtype");
}

Executor::Executor(ModelFile model) : model_(std::move(model)) {
  model_.check();
  for (size_t i = 0; i < model_.kernels.size(); ++i) {
    const Kernel& k = model_.kernels[i];
    try {
      libraries_.push_back(KernelLibrary::load(k.library, k.entry));
    } catch (const std::exception& e) {
      throw ModelFileError("kernel " + std::to_string(i) + " (" + k.workload + "): " + e.what());
    }
  }
  arena_ = aligned_bytes(model_.arena_bytes);
  constants_ = aligned_bytes(static_cast<int64_t>(model_.constants.size()));
  if (!model_.constants.empty()) std::memcpy(constants_, model_.constants.data(), model_.constants.size());
  // The bytes now live in aligned memory; the file's copy would only double the footprint.
  model_.constants = {};
  model_.constants.shrink_to_fit();
  for (auto& k : model_.kernels) k.library = {};
  for (const Step& s : model_.steps) {
    std::vector<TFBuffer> args;
    for (size_t a = 0; a < s.args.size(); ++a) {
      const int id = s.args[a];
      const std::vector<int64_t>& shape = s.shapes.empty() ? model_.values[id].shape : s.shapes[a];
      TFBuffer b{};
      b.data = address_of(id);
      b.shape = shape.data();
      b.ndim = static_cast<int32_t>(shape.size());
      kernel_dtype(model_.values[id].dtype, &b.dtype_code, &b.dtype_bits);
      args.push_back(b);
    }
    step_args_.push_back(std::move(args));
  }
}

Executor::~Executor() {
  std::free(arena_);
  std::free(constants_);
}

void* Executor::address_of(int value_id) {
  const Value& v = model_.values[value_id];
  char* base = reinterpret_cast<char*>(v.storage == Storage::Arena ? arena_ : constants_);
  return base + v.offset;
}

std::vector<TensorSpec> Executor::inputs() const {
  std::vector<TensorSpec> out;
  for (int id : model_.inputs)
    out.push_back({model_.values[id].name, model_.values[id].shape, model_.values[id].dtype});
  return out;
}

std::vector<TensorSpec> Executor::outputs() const {
  std::vector<TensorSpec> out;
  for (int id : model_.outputs)
    out.push_back({model_.values[id].name, model_.values[id].shape, model_.values[id].dtype});
  return out;
}

void* Executor::input_data(size_t i) { return address_of(model_.inputs.at(i)); }

const void* Executor::output_data(size_t i) { return address_of(model_.outputs.at(i)); }

void Executor::run_plan(std::vector<double>* step_seconds) {
  if (step_seconds) step_seconds->assign(model_.steps.size(), 0.0);
  for (size_t i = 0; i < model_.steps.size(); ++i) {
    const Step& s = model_.steps[i];
    const auto start = std::chrono::steady_clock::now();
    const int32_t status =
        libraries_[s.kernel]->entry()(step_args_[i].data(), static_cast<int32_t>(step_args_[i].size()));
    if (step_seconds)
      (*step_seconds)[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (status != TF_OK) {
      throw ModelFileError("step " + std::to_string(i) + " (node '" + s.node + "', kernel " +
                           model_.kernels[s.kernel].workload + "): " + tf_kernel_status_str(status));
    }
  }
}

HostTensors Executor::run(const HostTensors& inputs) {
  for (const auto& [name, data] : inputs) {
    bool known = false;
    for (int id : model_.inputs) known = known || model_.values[id].name == name;
    if (!known) throw ModelFileError("the model has no input named '" + name + "'");
  }
  for (int id : model_.inputs) {
    const Value& v = model_.values[id];
    auto it = inputs.find(v.name);
    if (it == inputs.end()) throw ModelFileError("input '" + v.name + "' is not given");
    const HostTensor& t = it->second;
    if (t.dtype != v.dtype) {
      throw ModelFileError("input '" + v.name + "' is " + dtype_name(t.dtype) + "; the model takes " +
                           dtype_name(v.dtype));
    }
    if (t.elements() != v.elements()) {
      throw ModelFileError("input '" + v.name + "' has " + std::to_string(t.elements()) +
                           " elements; the model takes " + std::to_string(v.elements()));
    }
    if (static_cast<int64_t>(t.bytes.size()) != v.bytes()) {
      throw ModelFileError("input '" + v.name + "' holds " + std::to_string(t.bytes.size()) + " bytes; its " +
                           std::to_string(v.elements()) + " " + dtype_name(v.dtype) + " elements are " +
                           std::to_string(v.bytes()));
    }
    std::memcpy(address_of(id), t.bytes.data(), static_cast<size_t>(v.bytes()));
  }
  run_plan();
  HostTensors outputs;
  for (int id : model_.outputs) {
    const Value& v = model_.values[id];
    const auto* p = static_cast<const uint8_t*>(address_of(id));
    HostTensor& t = outputs[v.name];
    t.dtype = v.dtype;
    t.shape = v.shape;
    t.bytes.assign(p, p + v.bytes());
  }
  return outputs;
}

std::map<std::string, std::vector<float>> Executor::run_floats(
    const std::map<std::string, std::vector<float>>& inputs) {
  HostTensors typed;
  for (const auto& [name, data] : inputs) {
    std::vector<int64_t> shape = {static_cast<int64_t>(data.size())};
    for (int id : model_.inputs) {
      if (model_.values[id].name != name) continue;
      if (model_.values[id].dtype != DType::Float32) {
        throw ModelFileError("input '" + name + "' is " + dtype_name(model_.values[id].dtype) +
                             "; give it as a typed tensor");
      }
      // The executor checks element counts; the model's shape keeps the tensor's claim true.
      if (model_.values[id].elements() == static_cast<int64_t>(data.size())) shape = model_.values[id].shape;
    }
    typed[name] = HostTensor::floats(shape, data);
  }
  std::map<std::string, std::vector<float>> outputs;
  for (auto& [name, t] : run(typed)) {
    if (t.dtype != DType::Float32)
      throw ModelFileError("output '" + name + "' is " + dtype_name(t.dtype) + ", not float32");
    outputs[name] = t.as_floats();
  }
  return outputs;
}

}  // namespace tf::runtime::model

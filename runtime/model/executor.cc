#include "runtime/model/executor.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace tf::runtime::model {
namespace {

float* aligned_floats(int64_t bytes) {
  const size_t size = static_cast<size_t>((std::max<int64_t>(bytes, 1) + TF_BUFFER_ALIGNMENT - 1) /
                                          TF_BUFFER_ALIGNMENT * TF_BUFFER_ALIGNMENT);
  // Zeroing touches every page: refused up front rather than swapping the machine to a halt.
  const uint64_t memory = static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  if (size > memory) {
    throw ModelFileError("the model needs " + std::to_string(bytes) + " bytes at once, more than this machine's " +
                         std::to_string(memory) + " bytes of memory");
  }
  void* p = std::aligned_alloc(TF_BUFFER_ALIGNMENT, size);
  if (!p) throw ModelFileError("cannot allocate " + std::to_string(bytes) + " bytes for the model");
  std::memset(p, 0, size);
  return static_cast<float*>(p);
}

}  // namespace

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
  arena_ = aligned_floats(model_.arena_bytes);
  constants_ = aligned_floats(static_cast<int64_t>(model_.constants.size()));
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
      b.dtype_code = TF_DTYPE_FLOAT;
      b.dtype_bits = 32;
      args.push_back(b);
    }
    step_args_.push_back(std::move(args));
  }
}

Executor::~Executor() {
  std::free(arena_);
  std::free(constants_);
}

float* Executor::address_of(int value_id) {
  const Value& v = model_.values[value_id];
  char* base = reinterpret_cast<char*>(v.storage == Storage::Arena ? arena_ : constants_);
  return reinterpret_cast<float*>(base + v.offset);
}

std::vector<TensorSpec> Executor::inputs() const {
  std::vector<TensorSpec> out;
  for (int id : model_.inputs) out.push_back({model_.values[id].name, model_.values[id].shape});
  return out;
}

std::vector<TensorSpec> Executor::outputs() const {
  std::vector<TensorSpec> out;
  for (int id : model_.outputs) out.push_back({model_.values[id].name, model_.values[id].shape});
  return out;
}

float* Executor::input_data(size_t i) { return address_of(model_.inputs.at(i)); }

void Executor::run_plan(std::vector<double>* step_seconds) {
  if (step_seconds) step_seconds->assign(model_.steps.size(), 0.0);
  for (size_t i = 0; i < model_.steps.size(); ++i) {
    const Step& s = model_.steps[i];
    const auto start = std::chrono::steady_clock::now();
    const int32_t status = libraries_[s.kernel]->entry()(step_args_[i].data(), static_cast<int32_t>(step_args_[i].size()));
    if (step_seconds) (*step_seconds)[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (status != TF_OK) {
      throw ModelFileError("step " + std::to_string(i) + " (node '" + s.node + "', kernel " +
                           model_.kernels[s.kernel].workload + "): " + tf_kernel_status_str(status));
    }
  }
}

std::map<std::string, std::vector<float>> Executor::run(const std::map<std::string, std::vector<float>>& inputs) {
  for (const auto& [name, data] : inputs) {
    bool known = false;
    for (int id : model_.inputs) known = known || model_.values[id].name == name;
    if (!known) throw ModelFileError("the model has no input named '" + name + "'");
  }
  for (int id : model_.inputs) {
    const Value& v = model_.values[id];
    auto it = inputs.find(v.name);
    if (it == inputs.end()) throw ModelFileError("input '" + v.name + "' is not given");
    if (static_cast<int64_t>(it->second.size()) != v.elements()) {
      throw ModelFileError("input '" + v.name + "' has " + std::to_string(it->second.size()) + " elements; the model takes " +
                           std::to_string(v.elements()));
    }
    std::memcpy(address_of(id), it->second.data(), static_cast<size_t>(v.bytes()));
  }
  run_plan();
  std::map<std::string, std::vector<float>> outputs;
  for (int id : model_.outputs) {
    const Value& v = model_.values[id];
    const float* p = address_of(id);
    outputs[v.name] = std::vector<float>(p, p + v.elements());
  }
  return outputs;
}

}  // namespace tf::runtime::model

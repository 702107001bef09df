#include "graph/build.h"

#include <chrono>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>

#include "compiler/compiler.h"
#include "compiler/error.h"
#include "compiler/ops/tensor_dtype.h"
#include "graph/kernel_calls.h"
#include "graph/memory_plan.h"
#include "runtime/kernel_abi.h"
#include "support/json.h"
#include "support/parallel_each.h"

namespace tf::graph {
namespace {

namespace model = runtime::model;

struct PlannedStep {
  KernelCall call;
  std::string node;
};

// The graph as steps: kernel calls in node order, aliases resolved to the value that owns the bytes.
struct Lowered {
  std::vector<PlannedStep> steps;
  std::map<std::string, std::string> root;  // alias -> the value whose bytes it is
  std::map<std::string, Tensor> extra_constants;
  size_t aliases = 0;

  const std::string& root_of(const std::string& v) const {
    auto it = root.find(v);
    return it == root.end() ? v : it->second;
  }
};

Lowered lower_graph(const Graph& g, const BuildOptions& options) {
  Lowered l;
  for (const Node& n : g.nodes) {
    NodeLowering nl = options.lower ? options.lower(g, n) : lower_node(g, n);
    if (!nl.call) {
      l.root[n.outputs.at(0)] = l.root_of(nl.alias_of);
      ++l.aliases;
      continue;
    }
    for (auto& [name, t] : nl.call->extra_constants) l.extra_constants.emplace(name, std::move(t));
    nl.call->extra_constants.clear();
    l.steps.push_back({std::move(*nl.call), n.name});
  }
  return l;
}

struct CompiledKernels {
  std::vector<model::Kernel> kernels;
  std::vector<int> of_step;  // step -> kernel index
  std::vector<BuiltKernel> built;
};

space::Config choose_config(const compiler::Task& task, const BuildOptions& options, BuiltKernel* info) {
  const auto given = options.config_for ? options.config_for(task.workload()) : std::nullopt;
  if (!given) return task.space().default_config();
  try {
    space::Config c = task.space().from_json(parse_json(*given, kConfigJsonLimits));
    info->tuned = true;
    return c;
  } catch (const std::exception& e) {
    // A config recorded for an older config space must not stop a model from building.
    info->note = std::string("the database's config does not fit this space (") + e.what() + "); the default is used";
    return task.space().default_config();
  }
}

using DTypeOf = std::function<DType(const std::string&)>;

// Every value a step hands its kernel holds the type the kernel's placeholder declares (the
// kernel's entry would refuse it at run time with TF_ERR_DTYPE): refused here, naming the node.
void check_argument_types(const compiler::Task& task, const PlannedStep& step, const DTypeOf& dtype_of) {
  const std::vector<ir::DataType> types = task.argument_types();
  if (types.size() != step.call.args.size()) {
    throw CompileError("node '" + step.node + "': kernel " + task.workload().str() + " takes " +
                       std::to_string(types.size()) + " arguments; the call passes " +
                       std::to_string(step.call.args.size()));
  }
  for (size_t a = 0; a < types.size(); ++a) {
    const std::string& value = step.call.args[a];
    const std::optional<DType> want = ops::model_dtype(types[a]);
    const bool is_output = a + 1 == types.size();
    const std::string which = is_output ? "output" : "input " + std::to_string(a);
    if (!want) {
      throw CompileError("node '" + step.node + "': kernel " + task.workload().str() + "'s " + which + " is " +
                         types[a].str() + ", which no model value holds");
    }
    // A bool and a uint8 share their placeholder (one byte): what the entry checks is the bytes.
    if (ops::kernel_type(dtype_of(value)) != types[a]) {
      throw CompileError("node '" + step.node + "': value '" + value + "' is " + dtype_name(dtype_of(value)) +
                         " but kernel " + task.workload().str() + " takes " + dtype_name(*want) + " as its " + which);
    }
  }
}

CompiledKernels compile_kernels(const Lowered& l, const BuildOptions& options, const DTypeOf& dtype_of) {
  CompiledKernels out;
  std::map<std::string, int> index_of;  // workload key -> kernel
  std::vector<const KernelCall*> firsts;
  for (const auto& s : l.steps) {
    const std::string key = s.call.workload().str();
    auto [it, fresh] = index_of.try_emplace(key, static_cast<int>(firsts.size()));
    if (fresh) {
      firsts.push_back(&s.call);
      out.built.push_back({});
    }
    out.built[it->second].nodes.push_back(s.node);
    out.of_step.push_back(it->second);
  }
  // Configs are chosen first, in order (the caller's lookup may read a database and need not be
  // thread-safe); the compilations, each on its own LLVM context, then run on every core.
  std::deque<compiler::Task> tasks;  // a Task does not move
  std::vector<space::Config> configs;
  for (size_t i = 0; i < firsts.size(); ++i) {
    const KernelCall& call = *firsts[i];
    tasks.emplace_back(call.op, call.shape, options.target);
    for (size_t s = 0; s < l.steps.size(); ++s) {
      if (out.of_step[s] == static_cast<int>(i)) check_argument_types(tasks[i], l.steps[s], dtype_of);
    }
    configs.push_back(choose_config(tasks[i], options, &out.built[i]));
    out.built[i].workload = tasks[i].workload().str();
    out.built[i].shape_text = call.op->shape_text(call.shape);
    out.built[i].config = configs[i].str();
  }
  out.kernels.resize(firsts.size());
  std::mutex progress;
  size_t compiled = 0;
  parallel_each(
      firsts.size(), options.compile_threads > 0 ? options.compile_threads : hardware_workers(64), [&](size_t i) {
        BuiltKernel& info = out.built[i];
        const auto start = std::chrono::steady_clock::now();
        codegen::SharedLibrary lib;
        try {
          lib = tasks[i].build_shared_library(configs[i]);
        } catch (const CompileError& e) {
          throw CompileError("node '" + info.nodes.front() + "': compiling " + info.workload + " with config " +
                             info.config + ": " + e.what());
        }
        info.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        out.kernels[i] = {info.workload, info.config, lib.entry_symbol, std::move(lib.bytes)};
        std::lock_guard<std::mutex> lock(progress);
        if (options.on_kernel) options.on_kernel(compiled, firsts.size(), info);
        ++compiled;
      });
  return out;
}

// A constant's elements as the kernels read them: float32, float64, int64, int32, int8, uint8 or one
// byte per bool.
void append_elements(const Tensor& t, uint8_t* out) {
  switch (t.dtype) {
    case DType::Float32: std::memcpy(out, t.f32.data(), t.f32.size() * 4); return;
    case DType::Int64: std::memcpy(out, t.i64.data(), t.i64.size() * 8); return;
    case DType::Float64: std::memcpy(out, t.f64.data(), t.f64.size() * 8); return;
    case DType::Int32:
      for (size_t i = 0; i < t.i64.size(); ++i) {
        const auto v = static_cast<int32_t>(t.i64[i]);
        std::memcpy(out + 4 * i, &v, 4);
      }
      return;
    case DType::Bool:
      for (size_t i = 0; i < t.i64.size(); ++i) out[i] = t.i64[i] != 0;
      return;
    case DType::Int8:
    case DType::UInt8:  // two's complement: the low byte of the value
      for (size_t i = 0; i < t.i64.size(); ++i) out[i] = static_cast<uint8_t>(t.i64[i]);
      return;
  }
}

int64_t aligned(int64_t n) { return (n + TF_BUFFER_ALIGNMENT - 1) / TF_BUFFER_ALIGNMENT * TF_BUFFER_ALIGNMENT; }

// Lays out values: constants in their section, arena roots where the memory plan puts them,
// aliases at their root's offset. Fills the file's values, constants and arena size.
class ValueTable {
 public:
  ValueTable(const Graph& g, const Lowered& l, model::ModelFile* file) : g_(g), l_(l), file_(file) {}

  void place() {
    std::vector<std::string> roots;
    std::map<std::string, BufferLifetime> life;
    const int end = static_cast<int>(l_.steps.size());
    auto touch = [&](const std::string& v, int step, bool writes) {
      const std::string& r = l_.root_of(v);
      if (is_constant(r)) return;
      auto [it, fresh] = life.try_emplace(r, BufferLifetime{bytes_of(r), writes ? step : -1, step});
      if (fresh) roots.push_back(r);
      it->second.last_step = std::max(it->second.last_step, step);
    };
    for (const auto& in : g_.inputs) touch(in, -1, false);
    for (int s = 0; s < end; ++s) {
      const auto& args = l_.steps[s].call.args;
      for (size_t a = 0; a + 1 < args.size(); ++a) touch(args[a], s, false);
      touch(args.back(), s, true);
    }
    // An output that is a constant is read from the constants section: nothing computes it.
    for (const auto& out : g_.outputs) touch(out, end, false);
    std::vector<BufferLifetime> buffers;
    buffers.reserve(roots.size());
    for (const auto& r : roots) buffers.push_back(life.at(r));
    const MemoryPlan plan = plan_memory(buffers, TF_BUFFER_ALIGNMENT);
    for (size_t i = 0; i < roots.size(); ++i) arena_offset_[roots[i]] = plan.offsets[i];
    file_->arena_bytes = plan.arena_bytes;
  }

  // Room for every constant at once: the section grows into one block instead of copying a large
  // model's weights at each doubling.
  void reserve_constants() const {
    int64_t bytes = 0;
    auto add = [&](const Tensor& t) { bytes += aligned(t.size() * dtype_bytes(t.dtype)); };
    for (const auto& [name, v] : g_.values()) {
      if (v.data) add(*v.data);
    }
    for (const auto& [name, t] : l_.extra_constants) add(t);
    file_->constants.reserve(static_cast<size_t>(bytes));
  }

  DType dtype_of(const std::string& v) const {
    return l_.extra_constants.count(v) ? l_.extra_constants.at(v).dtype : g_.value(v).dtype;
  }

  int id(const std::string& v) {
    if (auto it = ids_.find(v); it != ids_.end()) return it->second;
    const std::string& r = l_.root_of(v);
    model::Value mv;
    mv.name = v;
    mv.shape = shape_of(v);
    mv.dtype = dtype_of(v);
    if (is_constant(r)) {
      mv.storage = model::Storage::Constant;
      mv.offset = constant_offset(r);
    } else {
      mv.storage = model::Storage::Arena;
      mv.offset = arena_offset_.at(r);
    }
    file_->values.push_back(std::move(mv));
    return ids_[v] = static_cast<int>(file_->values.size() - 1);
  }

 private:
  bool is_constant(const std::string& v) const { return l_.extra_constants.count(v) || g_.constant(v); }
  const Tensor& constant(const std::string& v) const {
    auto it = l_.extra_constants.find(v);
    return it != l_.extra_constants.end() ? it->second : *g_.constant(v);
  }
  Shape shape_of(const std::string& v) const {
    return l_.extra_constants.count(v) ? l_.extra_constants.at(v).shape : g_.value(v).shape;
  }
  int64_t bytes_of(const std::string& v) const { return element_count(shape_of(v)) * dtype_bytes(dtype_of(v)); }

  int64_t constant_offset(const std::string& v) {
    if (auto it = constant_offset_.find(v); it != constant_offset_.end()) return it->second;
    const Tensor& t = constant(v);
    const size_t held = t.held();
    if (static_cast<int64_t>(held) != t.size()) {
      throw CompileError("constant '" + v + "' holds " + std::to_string(held) + " values for shape " +
                         shape_str(t.shape));
    }
    auto& bytes = file_->constants;
    const int64_t offset = aligned(static_cast<int64_t>(bytes.size()));
    bytes.resize(static_cast<size_t>(offset) + static_cast<size_t>(t.size() * dtype_bytes(t.dtype)));
    append_elements(t, bytes.data() + offset);
    return constant_offset_[v] = offset;
  }

  const Graph& g_;
  const Lowered& l_;
  model::ModelFile* file_;
  std::map<std::string, int64_t> arena_offset_, constant_offset_;
  std::map<std::string, int> ids_;
};

}  // namespace

model::ModelFile build_model(const Graph& planned, const BuildOptions& options, BuildReport* report) {
  const Lowered lowered = lower_graph(planned, options);
  model::ModelFile file;
  file.target = options.target.str();
  file.threads = options.threads;
  ValueTable values(planned, lowered, &file);
  values.reserve_constants();
  values.place();
  for (const auto& in : planned.inputs) file.inputs.push_back(values.id(in));
  for (const auto& out : planned.outputs) file.outputs.push_back(values.id(out));

  CompiledKernels compiled =
      compile_kernels(lowered, options, [&](const std::string& v) { return values.dtype_of(v); });
  for (size_t s = 0; s < lowered.steps.size(); ++s) {
    const PlannedStep& p = lowered.steps[s];
    model::Step step;
    step.kernel = compiled.of_step[s];
    step.node = p.node;
    bool views_differ = false;
    for (size_t a = 0; a < p.call.args.size(); ++a) {
      const int id = values.id(p.call.args[a]);
      step.args.push_back(id);
      views_differ = views_differ || file.values[id].shape != p.call.arg_shapes[a];
    }
    if (views_differ) step.shapes = p.call.arg_shapes;
    file.steps.push_back(std::move(step));
  }
  file.kernels = std::move(compiled.kernels);
  file.check();
  if (report) {
    report->kernels = std::move(compiled.built);
    report->steps = file.steps.size();
    report->aliases = lowered.aliases;
    report->arena_bytes = file.arena_bytes;
    report->constant_bytes = static_cast<int64_t>(file.constants.size());
  }
  return file;
}

}  // namespace tf::graph

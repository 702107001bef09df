#include "compiler/compiler.h"

#include <algorithm>
#include <cctype>
#include <chrono>

#include <llvm/Config/llvm-config.h>

#include "compiler/lower/lower.h"
#include "support/stable_hash.h"

namespace tf::compiler {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::string version() { return std::string("tunefarm ") + TUNEFARM_VERSION + " / LLVM " + LLVM_VERSION_STRING; }

// The registry's operators live as long as the process: a shared pointer that owns nothing.
static std::shared_ptr<const ops::Operator> registered(const std::string& name) {
  return std::shared_ptr<const ops::Operator>(std::shared_ptr<const ops::Operator>(), &ops::find_operator(name));
}

Task::Task(ops::Workload workload, codegen::Target target)
    : workload_(std::move(workload)), target_(std::move(target)), op_(registered(workload_.op)) {
  ops::check_workload(workload_);
  space_ = op_->config_space(workload_.shape, target_);
}

Task::Task(std::shared_ptr<const ops::Operator> op, std::vector<int64_t> shape, codegen::Target target)
    : target_(std::move(target)), op_(std::move(op)) {
  if (!op_) throw CompileError("task: no operator");
  workload_ = {op_->name(), std::move(shape)};
  ops::check_workload(*op_, workload_.shape);
  space_ = op_->config_space(workload_.shape, target_);
}

space::Config Task::parse_config(const std::string& spec) const {
  std::string s = spec;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(s.begin());
  if (s.empty() || s == "default") return space_.default_config();
  // An index is digits with an optional sign; anything else ("--2", "1-2") is read as JSON below.
  const size_t digits_from = s[0] == '-' ? 1 : 0;
  if (s.size() > digits_from && s.find_first_not_of("0123456789", digits_from) == std::string::npos) {
    if (s.size() > 18)
      throw CompileError("config index '" + s + "' is outside the space [0, " + std::to_string(space_.size()) + ")");
    return space_.at(std::stoll(s));
  }
  Json v;
  try {
    v = parse_json(s, kConfigJsonLimits);
  } catch (const JsonError& e) {
    throw CompileError(std::string("config: ") + e.what());
  }
  if (v.is_number_integer()) return space_.at(v.get<int64_t>());
  return space_.from_json(v);
}

std::string Task::kernel_name() const {
  const std::string& op = workload_.op;
  const bool identifier =
      std::all_of(op.begin(), op.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
  std::string name = "tf_" + op + "_";
  if (!identifier) {
    std::string stem;
    for (char c : op) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') break;
      stem += c;
    }
    // A stable hash, so a kernel has one name on every build and machine that compiles it.
    name = "tf_" + stem + "_" + stable_hash_hex64(op) + "_";
  }
  for (size_t i = 0; i < workload_.shape.size(); ++i) name += (i ? "x" : "") + std::to_string(workload_.shape[i]);
  return name;
}

std::vector<ir::DataType> Task::argument_types() const {
  // Placeholders do not depend on the config: any one schedules the same arguments.
  const ops::Scheduled s = op_->schedule(workload_.shape, space_.default_config(), target_);
  std::vector<ir::DataType> types;
  for (const auto& t : s.inputs) types.push_back(t.dtype());
  for (const auto& t : s.outputs) types.push_back(t.dtype());
  return types;
}

ir::LoweredFunc Task::lower(const space::Config& cfg, lower::LowerStage stage, BuildTimes* times) const {
  lower::LowerOptions opts;
  opts.stage = stage;
  return lower(cfg, opts, times);
}

ir::LoweredFunc Task::lower(const space::Config& cfg, const lower::LowerOptions& opts, BuildTimes* times) const {
  auto t0 = std::chrono::steady_clock::now();
  ops::Scheduled s = op_->schedule(workload_.shape, cfg, target_);
  ir::LoweredFunc f = lower::lower(*s.schedule, kernel_name(), opts);
  if (times) times->lower_ms = ms_since(t0);
  return f;
}

std::unique_ptr<codegen::JitKernel> Task::build_jit(const space::Config& cfg, BuildTimes* times,
                                                    const codegen::CodegenOptions& opts) const {
  ir::LoweredFunc f = lower(cfg, lower::LowerStage::Full, times);
  auto t0 = std::chrono::steady_clock::now();
  auto k = codegen::compile_jit(f, target_, opts);
  if (times) times->codegen_ms = ms_since(t0);
  return k;
}

codegen::SharedLibrary Task::build_shared_library(const space::Config& cfg, BuildTimes* times,
                                                  const codegen::CodegenOptions& opts) const {
  ir::LoweredFunc f = lower(cfg, lower::LowerStage::Full, times);
  auto t0 = std::chrono::steady_clock::now();
  auto lib = codegen::compile_shared_library(f, target_, opts);
  if (times) times->codegen_ms = ms_since(t0);
  return lib;
}

}  // namespace tf::compiler

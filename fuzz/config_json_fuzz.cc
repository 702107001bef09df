// A config as people and records give it (`--config`, a record's "config"): "default", an index or
// a JSON object of knob values, read against the config space of one of a few tasks
// (compiler/compiler.h Task::parse_config). The first byte picks the task. Refusals are CompileError.
#include <memory>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/ops/shape_json.h"
#include "fuzz/fuzz_check.h"

namespace {

// Spaces of different shapes: plain loops, packing knobs, blocked layouts, row operators.
const std::vector<std::unique_ptr<tf::compiler::Task>>& tasks() {
  static const auto* all = [] {
    auto* v = new std::vector<std::unique_ptr<tf::compiler::Task>>;
    const tf::codegen::Target target = tf::codegen::parse_target("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=x86-64-v3");
    const std::vector<std::pair<std::string, std::string>> workloads = {
        {"dense", "64,48,32"},
        {"conv2d_bias_relu", "n=1,c=16,h=14,w=14,k=16,r=3,s=3,stride=1,pad=1"},
        {"batch_matmul", "B=2,M=16,N=16,K=16"},
        {"softmax", "8,128,1"},
    };
    for (const auto& [op, shape] : workloads) {
      const tf::ops::Workload w{op, tf::ops::shape_from_json(op, tf::Json(shape), "fuzz")};
      v->push_back(std::make_unique<tf::compiler::Task>(w, target));
    }
    return v;
  }();
  return *all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tf;
  if (size == 0) return 0;
  const compiler::Task& task = *tasks()[data[0] % tasks().size()];
  const std::string spec = fuzz::as_text(data + 1, size - 1);
  fuzz::expect_refusal_or_success<CompileError>([&] {
    const space::Config config = task.parse_config(spec);
    // What was accepted must name a point of the space and read back as the same point.
    if (task.space().from_json(config.to_json()).index() != config.index()) {
      fuzz::finding("config " + spec + " does not read back as itself");
    }
  });
  return 0;
}

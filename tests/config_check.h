// Checks that points of an op's config space compile and compute the right answer: the default
// config, optionally the first and last searchable ones, and `samples` random searchable ones (or
// every config), each against the op's double-precision reference on the same random inputs.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "compiler/codegen/target.h"
#include "compiler/compiler.h"
#include "compiler/ir/printer.h"
#include "compiler/kernel_runner.h"

namespace tf::testing_support {

// n floats uniform in [-1, 1) from a seed.
inline std::vector<float> random_floats(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// What check_workload refuses the op's shape with ("" when it accepts it).
inline std::string workload_error(const std::string& op, const std::string& text) {
  try {
    ops::check_workload({op, ops::parse_shape(op, text)});
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

// `samples` at kEveryConfig checks every point of the space (small spaces) instead of random ones.
constexpr int kEveryConfig = -1;

inline void expect_configs_correct(const std::string& op, const std::string& shape_text, int samples, uint64_t seed,
                                   bool corners = true) {
  const std::vector<int64_t> shape = ops::parse_shape(op, shape_text);
  compiler::Task task({op, shape}, codegen::host_target());
  compiler::KernelRunner runner(task.op(), shape, seed, task.argument_types());
  std::mt19937_64 rng(seed);
  const auto& space = task.space();
  std::vector<int64_t> indices = {space.default_config().index()};
  if (samples == kEveryConfig) {
    for (int64_t i = 0; i < space.size(); ++i) indices.push_back(i);
  } else {
    // Corners and samples among the configs a tuner proposes: the others exceed a limit of the
    // space (register tiles past the target's registers) and take seconds each to compile.
    if (corners) {
      int64_t first = 0, last = space.size() - 1;
      while (first < last && !space.searchable(first)) ++first;
      while (last > first && !space.searchable(last)) --last;
      indices.insert(indices.end(), {first, last});
    }
    const bool any_searchable = space.searchable_size() > 0;
    for (int i = 0; i < samples; ++i) {
      int64_t idx = 0;
      do {
        idx = static_cast<int64_t>(rng() % static_cast<uint64_t>(space.size()));
      } while (any_searchable && !space.searchable(idx));
      indices.push_back(idx);
    }
  }
  for (int64_t idx : indices) {
    auto cfg = space.at(idx);
    SCOPED_TRACE(op + " " + shape_text + " config " + std::to_string(idx) + " " + cfg.str());
    auto kernel = task.build_jit(cfg);
    ASSERT_EQ(runner.run(kernel->entry()), TF_OK);
    auto check = runner.check();
    EXPECT_TRUE(check.pass) << check.mismatches << " mismatches, max abs error " << check.max_abs_error
                            << ", first at flat index " << check.first_mismatch << "\n"
                            << ir::to_string(task.lower(cfg));
    if (!check.pass) return;  // one listing is enough
  }
}

// An integer kernel's default config and `samples` random searchable ones, checked on the inputs
// a tuning job measures on (the op's input ranges); returns how many distinct output values the
// default produced (a check against saturated outputs would prove little).
inline size_t expect_int8_configs_correct(const std::string& op, const std::string& shape_text, int samples,
                                          uint64_t seed, const codegen::Target& target = codegen::host_target()) {
  const std::vector<int64_t> shape = ops::parse_shape(op, shape_text);
  compiler::Task task({op, shape}, target);
  compiler::KernelRunner runner(task.op(), shape, seed, task.argument_types());
  const auto& space = task.space();
  std::mt19937_64 rng(seed);
  std::vector<int64_t> indices = {space.default_config().index()};
  for (int i = 0; i < samples; ++i) {
    int64_t idx = 0;
    do idx = static_cast<int64_t>(rng() % static_cast<uint64_t>(space.size()));
    while (!space.searchable(idx));
    indices.push_back(idx);
  }
  size_t distinct = 0;
  for (int64_t idx : indices) {
    const auto cfg = space.at(idx);
    SCOPED_TRACE(op + " " + shape_text + " config " + cfg.str());
    auto kernel = task.build_jit(cfg);
    EXPECT_EQ(runner.run(kernel->entry()), TF_OK);
    const auto check = runner.check();
    EXPECT_TRUE(check.pass) << check.mismatches << " mismatches, max abs error " << check.max_abs_error
                            << ", first at flat index " << check.first_mismatch;
    if (!check.pass) break;
    if (idx == indices.front()) {
      std::set<double> values;
      const compiler::HostTensor& out = runner.output();
      for (int64_t e = 0; e < out.size(); ++e) values.insert(out.value(e));
      distinct = values.size();
    }
  }
  return distinct;
}

}  // namespace tf::testing_support

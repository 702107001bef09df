// Reading the machine code a config compiles to: the tests that check what a micro-kernel emits
// (FMAs per load, dot-product instructions), for the host or any target LLVM has.
#pragma once

#include <gtest/gtest.h>

#include <iterator>
#include <regex>
#include <string>

#include "compiler/compiler.h"
#include "compiler/ops/operator.h"

namespace tf::testing_support {

// The assembly of the op's default config on `shape`, compiled as a shared library (so a target
// this host cannot run is read all the same).
inline std::string default_assembly(const std::string& op, const std::string& shape, const codegen::Target& target) {
  compiler::Task task({op, ops::parse_shape(op, shape)}, target);
  codegen::CodegenOptions opts;
  opts.keep_assembly = true;
  return task.build_shared_library(task.space().default_config(), nullptr, opts).assembly;
}

inline int count_matches(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return static_cast<int>(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

}  // namespace tf::testing_support

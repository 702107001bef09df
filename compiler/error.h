// The one exception type the compiler throws for bad input: an unknown op, an illegal schedule, a
// config outside the space, an unknown target. The message names what is wrong (stage, axis, knob).
#pragma once

#include <stdexcept>
#include <string>

namespace tf {

class CompileError : public std::runtime_error {
 public:
  explicit CompileError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace tf

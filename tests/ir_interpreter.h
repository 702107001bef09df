// A reference interpreter for lowered IR, for testing passes: runs a statement over buffers held
// as doubles (float32 values rounded after every operation, integers exact), lane by lane for
// vectors. It checks what code generation relies on and throws std::runtime_error on violations:
// out-of-bounds accesses, reads of never-written scratch memory (NaN), Binary operands of different
// types, vector nodes that are not in the codegen contract.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "compiler/ir/function.h"
#include "compiler/ir/ir.h"

namespace tf::testing_support {

class IrInterpreter {
 public:
  // Binds an argument buffer to caller-owned storage (size must be num_elements()).
  void bind(const ir::Buffer& b, std::vector<double>* data);
  void run(const ir::Stmt& s);
  // Runs f with its args bound in order to `args`.
  void run(const ir::LoweredFunc& f, const std::vector<std::vector<double>*>& args);

  int64_t stores() const { return stores_; }

 private:
  // Fixed storage: an allocation per evaluated node would make the interpreter crawl.
  static constexpr int kMaxLanes = 64;
  struct Value {
    ir::DataType type;
    double v[kMaxLanes];
  };
  Value eval(const ir::Expr& e);
  void exec(const ir::Stmt& s);
  std::vector<double>& storage(const ir::BufferNode* b);

  std::unordered_map<const ir::BufferNode*, std::vector<double>*> buffers_;
  std::unordered_map<const ir::VarNode*, Value> vars_;
  int64_t stores_ = 0;
};

}  // namespace tf::testing_support

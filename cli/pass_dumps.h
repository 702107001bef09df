// `--dump-after PASS|all` for `tunefarm lower` (kernel IR after a lowering pass) and `tunefarm model
// inspect` (the graph after a graph pass): Halide's and TVM's way of watching a pipeline work.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "support/args.h"
#include "support/json.h"

namespace tf::cli {

// --dump-after on `cmd`: one of `passes` or "all"; any other name fails parsing with the list.
CLI::Option* add_dump_after_option(CLI::App& cmd, std::string& out, std::vector<std::string> passes,
                                   const std::string& what);

// The dumps one --dump-after value asks for, collected while the pipeline runs.
class PassDumps {
 public:
  explicit PassDumps(std::string after) : after_(std::move(after)) {}
  bool requested() const { return !after_.empty(); }
  // Called after every pass, in the order they run; `text` is only asked for when the pass is dumped.
  void after(const std::string& pass, const std::function<std::string()>& text);
  // Each dump headed by "// after PASS (pass N)", N counting every pass run from 1.
  void print() const;
  // [{"pass", "index", "text"}].
  Json json() const;

 private:
  struct Dump {
    std::string pass;
    int index;
    std::string text;
  };
  std::string after_;
  int passes_run_ = 0;
  std::vector<Dump> dumps_;
};

}  // namespace tf::cli

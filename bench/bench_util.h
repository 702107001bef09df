// Small helpers every benchmark shares: files, the machine's name, the date, lists, settling.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "support/json.h"

namespace tf::bench {

std::string read_file(const std::string& path);  // throws UsageError when unreadable
std::string cpu_name();
std::string today();                                   // YYYY-MM-DD, UTC
std::vector<std::string> split(const std::string& s);  // comma-separated, empty parts dropped
// OpenMP and OpenBLAS workers spin for a while after a call; let them sleep before timing the next.
void settle();
// Writes bench/results/NAME.json; throws when it cannot.
void write_result(const std::string& name, const std::string& json_text);

// The targets a benchmark checks: each printed as "target: ... MET" when added, and kept for the
// results file.
class Targets {
 public:
  // Where each added target is printed (stdout by default; a benchmark whose stdout is JSON prints
  // them on stderr).
  explicit Targets(std::FILE* out = stdout) : out_(out) {}
  void add(const std::string& what, double value, const std::string& goal, bool met);
  // A number kept beside the targets with no goal yet ("met": null), printed as "reported: ...".
  void report(const std::string& what, double value);
  const Json& list() const { return list_; }

 private:
  std::FILE* out_;
  Json list_ = Json::array();
};

// Writes bench/results/NAME.json in the shape every benchmark shares: {"name", "machine": {"cpu",
// "cores", "target" (when given)}, "date", "rows", "targets"}, and says so on `say`.
Json results_document(const std::string& name, const std::string& target, const Json& rows, const Targets& targets);
void write_results(const std::string& name, const std::string& target, const Json& rows, const Targets& targets,
                   std::FILE* say = stdout);

// A benchmark's main: run(argc, argv)'s exit code, or one line "NAME: what went wrong" on stderr
// and exit code 2 for bad input (UsageError), `failed_exit` for any other error.
int bench_main(const char* name, int (*run)(int, char**), int argc, char** argv, int failed_exit);

}  // namespace tf::bench

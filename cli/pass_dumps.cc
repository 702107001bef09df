#include "cli/pass_dumps.h"

#include <cstdio>

namespace tf::cli {

namespace {
constexpr const char* kEveryPass = "all";
}  // namespace

CLI::Option* add_dump_after_option(CLI::App& cmd, std::string& out, std::vector<std::string> passes,
                                   const std::string& what) {
  passes.push_back(kEveryPass);
  return cmd
      .add_option("--dump-after", out,
                  "print " + what + " after the named pass (each time it runs), or after every pass with 'all'")
      ->type_name("PASS|all")
      ->check(CLI::IsMember(passes));
}

void PassDumps::after(const std::string& pass, const std::function<std::string()>& text) {
  ++passes_run_;
  if (after_ == kEveryPass || after_ == pass) dumps_.push_back({pass, passes_run_, text()});
}

void PassDumps::print() const {
  for (const auto& d : dumps_) std::printf("// after %s (pass %d)\n%s\n", d.pass.c_str(), d.index, d.text.c_str());
}

Json PassDumps::json() const {
  Json out = Json::array();
  for (const auto& d : dumps_) out.push_back({{"pass", d.pass}, {"index", d.index}, {"text", d.text}});
  return out;
}

}  // namespace tf::cli

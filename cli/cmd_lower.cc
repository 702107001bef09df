#include <cstdio>

#include "cli/commands.h"
#include "cli/workload_args.h"
#include "compiler/ir/printer.h"

namespace tf::cli {

int cmd_lower(const std::vector<std::string>& argv) {
  Args args("tunefarm lower", "Show the loop nest a config lowers to, as pseudo-C.");
  add_workload_options(args);
  add_config_options(args);
  args.flag("raw", "show the nest as scheduled, before the simplify/partition/unroll/vectorize passes");
  args.flag("json", "print JSON ({\"config\", \"lowered\"})");
  if (!args.parse(argv)) return 0;
  auto task = make_task(args);
  space::Config cfg = config_from_args(args, *task);
  ir::LoweredFunc f = task->lower(cfg, args.flag_set("raw") ? lower::LowerStage::Scheduled : lower::LowerStage::Full);
  std::string text = ir::to_string(f);
  if (args.flag_set("json")) {
    Json out = Json::object();
    out["workload"] = task->workload().str();
    out["config"] = cfg.to_json();
    out["config_index"] = cfg.index();
    out["lowered"] = text;
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("// %s, config %s\n%s", task->workload().str().c_str(), cfg.str().c_str(), text.c_str());
  }
  return 0;
}

}  // namespace tf::cli

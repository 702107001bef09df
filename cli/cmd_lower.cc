#include <cstdio>

#include "cli/commands.h"
#include "cli/workload_args.h"
#include "compiler/ir/printer.h"

namespace tf::cli {

namespace {

struct LowerOptions {
  WorkloadArgs workload;
  ConfigArgs config;
  bool raw = false, assembly = false, json = false;
};

int lower_command(const LowerOptions& o) {
  auto task = make_task(o.workload);
  space::Config cfg = config_from_args(o.config, *task);
  std::string text;
  if (o.assembly) {
    codegen::CodegenOptions keep;
    keep.keep_assembly = true;
    text = task->build_jit(cfg, nullptr, keep)->assembly();
  } else {
    text = ir::to_string(task->lower(cfg, o.raw ? lower::LowerStage::Scheduled : lower::LowerStage::Full));
  }
  if (o.json) {
    Json out = Json::object();
    out["workload"] = task->workload().str();
    out["config"] = cfg.to_json();
    out["config_index"] = cfg.index();
    out[o.assembly ? "assembly" : "lowered"] = text;
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("// %s, config %s\n%s", task->workload().str().c_str(), cfg.str().c_str(), text.c_str());
  }
  return 0;
}

}  // namespace

void add_lower(CLI::App& tunefarm, Commands& commands) {
  auto o = std::make_shared<LowerOptions>();
  CLI::App* cmd = tunefarm.add_subcommand("lower", "show the loop nest a config lowers to, as pseudo-C");
  add_workload_options(*cmd, o->workload);
  add_config_options(*cmd, o->config);
  add_threads_option(*cmd, o->config.threads, "with --config best: the thread count it was tuned with");
  cmd->add_flag("--raw", o->raw, "show the nest as scheduled, before the simplify/partition/unroll/vectorize passes");
  cmd->add_flag("--asm", o->assembly, "show the machine code the config compiles to instead (the optimised kernel, as the tuner measures it)")
      ->excludes(cmd->get_option("--raw"));
  cmd->add_flag("--json", o->json, "print JSON ({\"config\", \"lowered\"} or {\"config\", \"assembly\"})");
  commands.on(cmd, [o] { return lower_command(*o); });
}

}  // namespace tf::cli

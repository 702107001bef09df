#include <cstdio>

#include "cli/commands.h"
#include "cli/pass_dumps.h"
#include "cli/workload_args.h"
#include "compiler/ir/printer.h"

namespace tf::cli {

namespace {

struct LowerOptions {
  WorkloadArgs workload;
  ConfigArgs config;
  bool raw = false, assembly = false, json = false;
  std::string dump_after;
};

// The kernel lowered fully, or as scheduled with --raw; the passes --dump-after asks for in `dumps`.
std::string lowered_text(const compiler::Task& task, const space::Config& cfg, const LowerOptions& o,
                         PassDumps& dumps) {
  lower::LowerOptions lowering;
  lowering.stage = o.raw ? lower::LowerStage::Scheduled : lower::LowerStage::Full;
  if (dumps.requested()) {
    lowering.after_pass = [&dumps](const std::string& pass, const ir::LoweredFunc& f) {
      dumps.after(pass, [&f] { return ir::to_string(f); });
    };
  }
  return ir::to_string(task.lower(cfg, lowering));
}

int lower_command(const LowerOptions& o) {
  auto task = make_task(o.workload);
  space::Config cfg = config_from_args(o.config, *task);
  std::string text;
  PassDumps dumps(o.dump_after);
  if (o.assembly) {
    codegen::CodegenOptions keep;
    keep.keep_assembly = true;
    text = task->build_jit(cfg, nullptr, keep)->assembly();
  } else {
    text = lowered_text(*task, cfg, o, dumps);
  }
  if (o.json) {
    Json out = Json::object();
    out["workload"] = task->workload().str();
    out["config"] = cfg.to_json();
    out["config_index"] = cfg.index();
    out[o.assembly ? "assembly" : "lowered"] = text;
    if (dumps.requested()) out["dumps"] = dumps.json();
    std::printf("%s\n", out.dump(2).c_str());
  } else if (dumps.requested()) {
    std::printf("// %s, config %s\n", task->workload().str().c_str(), cfg.str().c_str());
    dumps.print();
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
  cmd->add_flag("--asm", o->assembly,
                "show the machine code the config compiles to instead (the optimised kernel, as the tuner measures it)")
      ->excludes(cmd->get_option("--raw"));
  add_dump_after_option(*cmd, o->dump_after, lower::lower_pass_names(), "the kernel")
      ->excludes(cmd->get_option("--raw"))
      ->excludes(cmd->get_option("--asm"));
  cmd->add_flag(
      "--json", o->json,
      "print JSON ({\"config\", \"lowered\"} or {\"config\", \"assembly\"}; with --dump-after, \"dumps\": [{\"pass\", \"index\", \"text\"}])");
  commands.on(cmd, [o] { return lower_command(*o); });
}

}  // namespace tf::cli

#include <cstdio>

#include "cli/commands.h"
#include "cli/workload_args.h"

namespace tf::cli {

namespace {

int ops_command(bool as_json) {
  Json out = Json::array();
  for (const auto& name : ops::operator_names()) {
    const auto& op = ops::find_operator(name);
    Json o = Json::object();
    o["op"] = name;
    std::string shape;
    for (const auto& s : op.shape_names()) shape += (shape.empty() ? "" : ",") + s;
    o["shape"] = shape;
    o["computes"] = op.description();
    out.push_back(o);
    if (!as_json) std::printf("%-16s --shape %-8s %s\n", name.c_str(), shape.c_str(), op.description().c_str());
  }
  if (as_json) std::printf("%s\n", out.dump(2).c_str());
  return 0;
}

int space_command(const WorkloadArgs& args, bool as_json) {
  auto task = make_task(args);
  Json space = task->space().to_json();
  if (as_json) {
    Json out = Json::object();
    out["workload"] = task->workload().str();
    out["target"] = task->target().str();
    out.update(space);
    out["default"] = task->space().default_config().to_json();
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("%s on %s\n\n", task->workload().str().c_str(), task->target().str().c_str());
  for (const auto& knob : task->space().knobs()) {
    std::string choices;
    for (size_t i = 0; i < knob.choices.size(); ++i) {
      std::string c = knob.choices[i].dump();
      if (i == knob.default_choice) c = "[" + c + "]";
      choices += (i ? " " : "") + c;
    }
    std::printf("  %-10s %-36s %s\n", knob.name.c_str(), choices.c_str(), knob.help.c_str());
  }
  const space::ConfigSpace& cs = task->space();
  if (cs.searchable_size() == cs.size()) {
    std::printf("\nsize: %lld configs ([x] marks the default)\n", static_cast<long long>(cs.size()));
  } else {
    std::printf(
        "\nsize: %lld configs, %lld searched ([x] marks the default; the rest are left out by a limit and build only when named)\n",
        static_cast<long long>(cs.size()), static_cast<long long>(cs.searchable_size()));
  }
  return 0;
}

}  // namespace

void add_ops(CLI::App& tunefarm, Commands& commands) {
  auto as_json = std::make_shared<bool>(false);
  CLI::App* cmd = tunefarm.add_subcommand("ops", "list the operators tunefarm can compile, with their shape extents");
  cmd->add_flag("--json", *as_json, "print JSON");
  commands.on(cmd, [as_json] { return ops_command(*as_json); });
}

void add_space(CLI::App& tunefarm, Commands& commands) {
  struct Options {
    WorkloadArgs workload;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd =
      tunefarm.add_subcommand("space", "show an operator's config space on a workload: knobs, choices, size");
  add_workload_options(*cmd, o->workload);
  cmd->add_flag("--json", o->json, "print JSON ({\"knobs\": [...], \"size\": N})");
  commands.on(cmd, [o] { return space_command(o->workload, o->json); });
}

}  // namespace tf::cli

#include <cstdio>

#include "cli/commands.h"
#include "cli/workload_args.h"

namespace tf::cli {

int cmd_ops(const std::vector<std::string>& argv) {
  Args args("tunefarm ops", "List the operators tunefarm can compile, with their shape extents.");
  args.flag("json", "print JSON");
  if (!args.parse(argv)) return 0;
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
    if (!args.flag_set("json")) std::printf("%-16s --shape %-8s %s\n", name.c_str(), shape.c_str(), op.description().c_str());
  }
  if (args.flag_set("json")) std::printf("%s\n", out.dump(2).c_str());
  return 0;
}

int cmd_space(const std::vector<std::string>& argv) {
  Args args("tunefarm space", "Show the config space of an operator on a workload: its knobs, their choices, and its size.");
  add_workload_options(args);
  args.flag("json", "print JSON ({\"knobs\": [...], \"size\": N})");
  if (!args.parse(argv)) return 0;
  auto task = make_task(args);
  Json space = task->space().to_json();
  if (args.flag_set("json")) {
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
  std::printf("\nsize: %lld configs ([x] marks the default)\n", static_cast<long long>(task->space().size()));
  return 0;
}

}  // namespace tf::cli

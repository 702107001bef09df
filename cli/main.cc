// tunefarm: the command line. Subcommands live one per file (cli/cmd_*.cc).
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "support/args.h"
#include "cli/commands.h"
#include "compiler/error.h"
#include "db/sqlite.h"

namespace {

struct Command {
  const char* name;
  int (*run)(const std::vector<std::string>&);
  const char* summary;
};

const Command kCommands[] = {
    {"ops", tf::cli::cmd_ops, "list the operators tunefarm can compile"},
    {"space", tf::cli::cmd_space, "show an operator's config space: knobs, choices, size"},
    {"lower", tf::cli::cmd_lower, "show the lowered loop nest of a config"},
    {"run", tf::cli::cmd_run, "compile a config, run it, check it, report GFLOPS"},
    {"tune", tf::cli::cmd_tune, "search a workload's config space, measuring in a worker process"},
    {"best", tf::cli::cmd_best, "the best measured config of a workload, from the database"},
    {"history", tf::cli::cmd_history, "every measurement of a workload, oldest first"},
    {"export", tf::cli::cmd_export, "write tuning records as JSON lines"},
    {"import", tf::cli::cmd_import, "read tuning records (JSON lines) into a database"},
    {"plot", tf::cli::cmd_plot, "best-so-far GFLOPS per tuning run, as an SVG chart"},
    {"submit", tf::cli::cmd_submit, "submit a tuning job to a tracker (its boards measure it)"},
    {"status", tf::cli::cmd_status, "a job's state and progress, or the list of jobs"},
    {"devices", tf::cli::cmd_devices, "the boards connected to a tracker"},
    {"cancel", tf::cli::cmd_cancel, "cancel a job"},
    {"token", tf::cli::cmd_token, "make a token line for a tracker's --token-file"},
    {"baseline", tf::cli::cmd_baseline, "save, list, show or delete a named baseline for CI regression runs"},
    {"regress", tf::cli::cmd_regress, "compare this compiler's kernels with a baseline's, side by side (exit 1: slower)"},
};

void usage(FILE* out) {
  std::fprintf(out,
               "usage: tunefarm <command> [options]\n\n"
               "tunefarm compiles tensor operators into fast machine code and tunes their schedules.\n\n"
               "commands:\n");
  for (const auto& c : kCommands) std::fprintf(out, "  %-8s %s\n", c.name, c.summary);
  std::fprintf(out, "\n'tunefarm <command> --help' shows a command's options.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    usage(stdout);
    return 0;
  }
  std::vector<std::string> rest(argv + 2, argv + argc);
  for (const auto& c : kCommands) {
    if (name != c.name) continue;
    try {
      return c.run(rest);
    } catch (const tf::UsageError& e) {
      std::fprintf(stderr, "tunefarm %s: %s\n", c.name, e.what());
      return 2;
    } catch (const tf::CompileError& e) {
      std::fprintf(stderr, "tunefarm %s: %s\n", c.name, e.what());
      return 2;
    } catch (const tf::db::DbError& e) {
      std::fprintf(stderr, "tunefarm %s: %s\n", c.name, e.what());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tunefarm %s: internal error: %s\n", c.name, e.what());
      return 3;
    }
  }
  std::string names;
  for (const auto& c : kCommands) names += (names.empty() ? "" : ", ") + std::string(c.name);
  std::fprintf(stderr, "tunefarm: unknown command '%s' (commands: %s; see tunefarm --help)\n", name.c_str(), names.c_str());
  return 2;
}

// tunefarm: the command line. Subcommands live one per file (cli/cmd_*.cc).
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "compiler/error.h"
#include "db/connection.h"

int main(int argc, char** argv) {
  auto app =
      tf::make_app("tunefarm", "tunefarm compiles tensor operators into fast machine code and tunes their schedules.");
  app->footer("'tunefarm <command> --help' shows a command's options.");
  app->require_subcommand(1);
  tf::cli::Commands commands;
  tf::cli::add_ops(*app, commands);
  tf::cli::add_space(*app, commands);
  tf::cli::add_lower(*app, commands);
  tf::cli::add_run(*app, commands);
  tf::cli::add_tune(*app, commands);
  tf::cli::add_records(*app, commands);
  tf::cli::add_fleet(*app, commands);
  tf::cli::add_regress(*app, commands);
  tf::cli::add_model(*app, commands);

  std::vector<const char*> args(argv, argv + argc);
  if (args.size() == 2 && std::strcmp(args[1], "help") == 0) args[1] = "--help";
  if (auto code = tf::parse_args(*app, static_cast<int>(args.size()), args.data())) return *code;
  const std::string name = tf::command_path(*app);
  const auto* run = commands.find(&tf::chosen_command(*app));
  if (!run) {
    std::fprintf(stderr, "%s: give a subcommand (see %s --help)\n", name.c_str(), name.c_str());
    return 2;
  }
  try {
    return (*run)();
  } catch (const tf::UsageError& e) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
    return 2;
  } catch (const tf::CompileError& e) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
    return 2;
  } catch (const tf::db::DbError& e) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", name.c_str(), e.what());
    return 3;
  }
}

// Command-line options for tunefarm's programs (the CLI's subcommands, the tracker, the boards, the
// benchmarks), declared with CLI11: typed, range-checked by validators where they are declared, and
// shown by a generated --help. Bad input is one line naming the option, and exit code 2.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tf {

// Input a command refuses after parsing (a combination of options, a value that needs context).
// The program prints its message as one line and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A program's options: "usage: NAME [options]" help, -h/--help on it and every subcommand, each
// option's default shown.
std::unique_ptr<CLI::App> make_app(const std::string& name, const std::string& description);

// Parses argv (argv[0] is the program). Returns the exit code when the program should stop now: 0
// after printing the help that was asked for, 2 after printing "<command>: <what is wrong>" as one
// line on stderr. nullopt: go on.
std::optional<int> parse_args(CLI::App& app, int argc, const char* const* argv);

// The deepest subcommand chosen ("tunefarm baseline save"), and its name as typed.
const CLI::App& chosen_command(const CLI::App& app);
std::string command_path(const CLI::App& app);

// "--shape 512,512,512": comma-separated integers.
CLI::Option* add_int_list_option(CLI::App& app, const std::string& name, std::vector<int64_t>& out,
                                 const std::string& help);
// UsageError naming `what` unless `text` is comma-separated integers.
std::vector<int64_t> parse_int_list(const std::string& what, const std::string& text);

}  // namespace tf

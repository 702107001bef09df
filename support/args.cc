#include "support/args.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace tf {
namespace {

std::string join_names(const std::vector<const CLI::App*>& apps) {
  std::string out;
  for (const CLI::App* a : apps) out += (out.empty() ? "" : ", ") + a->get_name();
  return out;
}

// "The following arguments were not expected: x --bogus" -> {"x", "--bogus"}.
std::vector<std::string> words_after_colon(const std::string& message) {
  std::vector<std::string> words;
  const auto colon = message.find(": ");
  if (colon == std::string::npos) return words;
  std::istringstream in(message.substr(colon + 2));
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// CLI11's words for what went wrong, made into tunefarm's: what was given and what to do.
std::string failure_line(const CLI::App& root, const CLI::ParseError& e) {
  const CLI::App& cmd = chosen_command(root);
  const auto subcommands = cmd.get_subcommands([](const CLI::App*) { return true; });
  const std::string see = " (see " + command_path(root) + " --help)";
  // Whatever no option took: a misspelt option, a stray word, a command that does not exist.
  const bool extra_error = dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr;
  std::vector<std::string> extras = root.remaining(true);
  if (extras.empty() && extra_error) extras = words_after_colon(e.what());
  // An option first: a misspelt option says more than the word after it.
  std::stable_partition(extras.begin(), extras.end(), [](const std::string& a) { return a.rfind('-', 0) == 0; });
  const bool missing_command = dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && !subcommands.empty();
  if ((extra_error || missing_command) && !extras.empty()) {
    const std::string& first = extras.front();
    if (first.rfind('-', 0) == 0) return "unknown option " + first.substr(0, first.find('=')) + see;
    if (!subcommands.empty()) {
      if (cmd.get_parent() == nullptr)
        return "unknown command '" + first + "' (commands: " + join_names(subcommands) + "; see " + command_path(root) +
               " --help)";
      return "unknown subcommand '" + first + "' (" + join_names(subcommands) + ")";
    }
    return "unexpected argument '" + first + "'" + see;
  }
  if (missing_command)
    return "give a " + std::string(cmd.get_parent() ? "subcommand" : "command") + ": " + join_names(subcommands) + see;
  return e.what() + see;
}

}  // namespace

std::unique_ptr<CLI::App> make_app(const std::string& name, const std::string& description) {
  auto app = std::make_unique<CLI::App>(description, name);
  app->set_help_flag("-h,--help", "show this help");
  app->option_defaults()->always_capture_default();
  auto fmt = std::make_shared<CLI::Formatter>();
  fmt->label("Usage", "usage");
  fmt->label("OPTIONS", "options");
  fmt->label("SUBCOMMAND", "COMMAND");
  fmt->column_width(34);
  app->formatter(fmt);
  return app;
}

const CLI::App& chosen_command(const CLI::App& app) {
  const CLI::App* a = &app;
  while (!a->get_subcommands().empty()) a = a->get_subcommands().front();
  return *a;
}

std::string command_path(const CLI::App& app) {
  std::string path = app.get_name();
  const CLI::App* a = &app;
  while (!a->get_subcommands().empty()) {
    a = a->get_subcommands().front();
    path += " " + a->get_name();
  }
  return path;
}

std::optional<int> parse_args(CLI::App& app, int argc, const char* const* argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s: %s\n", command_path(app).c_str(), failure_line(app, e).c_str());
    return 2;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s\n", command_path(app).c_str(), e.what());
    return 2;
  }
}

std::vector<int64_t> parse_int_list(const std::string& what, const std::string& text) {
  const std::string bad = what + " must be comma-separated integers, got '" + text + "'";
  if (text.empty() || text.back() == ',') throw UsageError(bad);
  std::vector<int64_t> out;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || errno != 0 || !end || *end != '\0') throw UsageError(bad);
    out.push_back(x);
  }
  return out;
}

CLI::Option* add_int_list_option(CLI::App& app, const std::string& name, std::vector<int64_t>& out,
                                 const std::string& help) {
  auto* opt = app.add_option_function<std::string>(
      name,
      [&out, name](const std::string& text) {
        try {
          out = parse_int_list(name, text);
        } catch (const UsageError& e) {
          throw CLI::ValidationError(e.what());
        }
      },
      help);
  return opt->type_name("LIST");
}

}  // namespace tf

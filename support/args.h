// Command-line options for tunefarm's programs (the CLI's subcommands, the tracker, the boards):
// declared once, parsed strictly, shown by --help. An unknown option or a missing value is an
// error that names it.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tf {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  Args(std::string command, std::string summary) : command_(std::move(command)), summary_(std::move(summary)) {}
  // A value option (--name VALUE or --name=VALUE); `fallback` is shown in --help.
  Args& option(const std::string& name, const std::string& value_name, const std::string& help,
               const std::string& fallback = "");
  Args& flag(const std::string& name, const std::string& help);

  // Returns false when --help was asked (help is printed); throws UsageError on bad input.
  bool parse(const std::vector<std::string>& argv);
  std::string help() const;

  bool has(const std::string& name) const { return values_.count(name) > 0; }
  bool flag_set(const std::string& name) const { return values_.count(name) > 0; }
  std::string get(const std::string& name) const;  // the value, or the declared fallback
  int64_t get_int(const std::string& name) const;   // UsageError if not an integer
  std::vector<int64_t> get_int_list(const std::string& name) const;  // "512,512,512"

 private:
  struct Spec {
    std::string name, value_name, help, fallback;
    bool is_flag;
  };
  const Spec* find(const std::string& name) const;
  std::string command_, summary_;
  std::vector<Spec> specs_;
  std::map<std::string, std::string> values_;
};

}  // namespace tf

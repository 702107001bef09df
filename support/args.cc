#include "support/args.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace tf {

Args& Args::option(const std::string& name, const std::string& value_name, const std::string& help,
                   const std::string& fallback) {
  specs_.push_back({name, value_name, help, fallback, false});
  return *this;
}

Args& Args::flag(const std::string& name, const std::string& help) {
  specs_.push_back({name, "", help, "", true});
  return *this;
}

const Args::Spec* Args::find(const std::string& name) const {
  for (const auto& s : specs_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

bool Args::parse(const std::vector<std::string>& argv) {
  for (size_t i = 0; i < argv.size(); ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(help().c_str(), stdout);
      return false;
    }
    if (a.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + a + "' (see " + command_ + " --help)");
    std::string name = a.substr(2), value;
    bool inline_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    const Spec* spec = find(name);
    if (!spec) throw UsageError("unknown option --" + name + " (see " + command_ + " --help)");
    if (spec->is_flag) {
      if (inline_value) throw UsageError("--" + name + " takes no value");
      values_[name] = "1";
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argv.size()) throw UsageError("--" + name + " needs a value (" + spec->value_name + ")");
      value = argv[++i];
    }
    values_[name] = value;
  }
  return true;
}

std::string Args::help() const {
  std::ostringstream os;
  os << "usage: " << command_ << " [options]\n\n" << summary_ << "\n\noptions:\n";
  for (const auto& s : specs_) {
    std::string left = "  --" + s.name + (s.is_flag ? "" : " " + s.value_name);
    os << left;
    os << std::string(left.size() < 28 ? 28 - left.size() : 1, ' ') << s.help;
    if (!s.fallback.empty()) os << " (default: " << s.fallback << ")";
    os << "\n";
  }
  os << "  --help                    show this help\n";
  return os.str();
}

std::string Args::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it != values_.end()) return it->second;
  const Spec* s = find(name);
  return s ? s->fallback : "";
}

int64_t Args::get_int(const std::string& name) const {
  std::string v = get(name);
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || errno != 0 || !end || *end != '\0') {
    throw UsageError("--" + name + " must be an integer, got '" + v + "'");
  }
  return x;
}

std::vector<int64_t> Args::get_int_list(const std::string& name) const {
  std::string v = get(name);
  if (v.empty()) throw UsageError("--" + name + " is required");
  std::vector<int64_t> out;
  std::stringstream ss(v);
  std::string part;
  while (std::getline(ss, part, ',')) {
    char* end = nullptr;
    errno = 0;
    long long x = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || errno != 0 || !end || *end != '\0') {
      throw UsageError("--" + name + " must be comma-separated integers, got '" + v + "'");
    }
    out.push_back(x);
  }
  if (!v.empty() && v.back() == ',') throw UsageError("--" + name + " must be comma-separated integers, got '" + v + "'");
  return out;
}

}  // namespace tf

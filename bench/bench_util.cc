#include "bench/bench_util.h"

#include <cstdio>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "support/args.h"
#include "support/files.h"

namespace tf::bench {

std::string read_file(const std::string& path) {
  std::optional<std::string> text = try_read_file(path);
  if (!text) throw UsageError("cannot read " + path);
  return std::move(*text);
}

std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

std::string today() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ',')) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

void settle() {
  // OpenMP and OpenBLAS workers spin for a while after a call; let them sleep before timing the next.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
}

void write_result(const std::string& name, const std::string& json_text) {
  const std::string dir = std::string(TF_SOURCE_DIR) + "/bench/results";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name + ".json";
  std::ofstream out(path);
  out << json_text << "\n";
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
}

void Targets::add(const std::string& what, double value, const std::string& goal, bool met) {
  Json t = Json::object();
  t["what"] = what;
  t["value"] = value;
  t["target"] = goal;
  t["met"] = met;
  list_.push_back(t);
  std::fprintf(out_, "target: %s = %.3g (%s) %s\n", what.c_str(), value, goal.c_str(), met ? "MET" : "NOT MET");
}

void Targets::report(const std::string& what, double value) {
  list_.push_back(Json{{"what", what}, {"value", value}, {"target", "reported only"}, {"met", nullptr}});
  std::fprintf(out_, "reported: %s = %.3g (no target yet)\n", what.c_str(), value);
}

Json results_document(const std::string& name, const std::string& target, const Json& rows, const Targets& targets) {
  Json result = Json::object();
  result["name"] = name;
  Json machine = Json::object();
  machine["cpu"] = cpu_name();
  machine["cores"] = static_cast<int64_t>(std::thread::hardware_concurrency());
  if (!target.empty()) machine["target"] = target;
  result["machine"] = machine;
  result["date"] = today();
  result["rows"] = rows;
  result["targets"] = targets.list();
  return result;
}

void write_results(const std::string& name, const std::string& target, const Json& rows, const Targets& targets,
                   std::FILE* say) {
  write_result(name, results_document(name, target, rows, targets).dump(2));
  std::fprintf(say, "\nwrote bench/results/%s.json\n", name.c_str());
}

int bench_main(const char* name, int (*run)(int, char**), int argc, char** argv, int failed_exit) {
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return failed_exit;
  }
}

}  // namespace tf::bench

#include "bench/ort_peer.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "support/files.h"
#include "support/json.h"
#include "support/subprocess.h"

namespace tf::bench {
namespace {

const std::string kOrtDir = std::string(TF_SOURCE_DIR) + "/bench/ort";

// The first executable `name` on PATH, or "".
std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

}  // namespace

std::string ort_setup_problem() {
  if (find_on_path("node").empty()) return "node (Node.js) is not on PATH: run scripts/setup.sh";
  if (!std::filesystem::exists(kOrtDir + "/node_modules/onnxruntime-node/package.json")) {
    return "onnxruntime-node is not installed in " + kOrtDir + "/node_modules: run scripts/setup.sh";
  }
  return "";
}

OrtResult run_ort(const OrtOptions& o) {
  if (const std::string problem = ort_setup_problem(); !problem.empty()) throw std::runtime_error(problem);
  std::filesystem::create_directories(o.work_dir);
  const std::string report = o.work_dir + "/ort_report.json";
  std::filesystem::remove(report);
  std::vector<std::string> argv = {find_on_path("node"),
                                   kOrtDir + "/ort_run.js",
                                   "--model",
                                   o.model,
                                   "--output-dir",
                                   o.work_dir,
                                   "--threads",
                                   std::to_string(o.threads),
                                   "--runs",
                                   std::to_string(o.runs),
                                   "--warmup",
                                   std::to_string(o.warmup),
                                   "--report",
                                   report,
                                   "--graph-optimization",
                                   o.graph_optimization};
  for (const auto& [name, file] : o.inputs) {
    argv.push_back("--input");
    argv.push_back(name + "=" + file);
  }
  Subprocess node(argv, o.work_dir + "/ort_run.log");
  const int status = node.wait_exit(std::chrono::seconds(o.timeout_seconds));
  if (status == -1)
    throw std::runtime_error("ort_run.js ran longer than " + std::to_string(o.timeout_seconds) +
                             " s: " + node.output());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("ort_run.js failed (status " + std::to_string(status) + "): " + node.output());
  }
  const Json j = Json::parse(try_read_file(report).value_or(""));
  OrtResult r;
  r.version = j.value("version", "");
  r.latency_ms = j.at("latency_ms").get<double>();
  r.median_ms = j.at("median_ms").get<double>();
  r.times_ms = j.value("times_ms", std::vector<double>{});
  for (const auto& out : j.at("outputs"))
    r.output_files[out.at("name").get<std::string>()] = out.at("file").get<std::string>();
  return r;
}

namespace {

template <typename Get>
double relative_difference(size_t n, const Get& got, const Get& want) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < n; ++i) {
    diff = std::max(diff, std::abs(got(i) - want(i)));
    scale = std::max(scale, std::abs(want(i)));
  }
  if (std::isnan(diff)) return diff;
  return scale > 0 ? diff / scale : diff;
}

}  // namespace

double max_relative_difference(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) throw std::invalid_argument("max_relative_difference: sizes differ");
  using Get = std::function<double(size_t)>;
  return relative_difference(got.size(), Get([&](size_t i) { return double(got[i]); }),
                             Get([&](size_t i) { return double(want[i]); }));
}

double max_relative_difference(const HostTensor& got, const HostTensor& want) {
  if (got.dtype != want.dtype) {
    throw std::invalid_argument(std::string("max_relative_difference: ") + dtype_name(got.dtype) + " against " +
                                dtype_name(want.dtype));
  }
  if (got.elements() != want.elements()) throw std::invalid_argument("max_relative_difference: sizes differ");
  using Get = std::function<double(size_t)>;
  return relative_difference(static_cast<size_t>(got.elements()),
                             Get([&](size_t i) { return got.at(static_cast<int64_t>(i)); }),
                             Get([&](size_t i) { return want.at(static_cast<int64_t>(i)); }));
}

}  // namespace tf::bench

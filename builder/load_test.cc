#include "builder/load_test.h"

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "compiler/compiler.h"
#include "proto/synthetic_peers.h"
#include "proto/tunefarm.grpc.pb.h"

namespace tf::builder {

namespace {

using Clock = std::chrono::steady_clock;

// The entry symbol a request's kernel has, computed once per workload and target (the tracker
// checks it against its own).
class EntrySymbols {
 public:
  std::string of(const v1::BuildRequest& r) {
    const ops::Workload w{r.workload().op(), {r.workload().shape().begin(), r.workload().shape().end()}};
    const std::string key = w.str() + "|" + r.target();
    std::lock_guard<std::mutex> lock(mu_);
    auto it = names_.find(key);
    if (it == names_.end())
      it = names_.emplace(key, compiler::Task(w, codegen::parse_target(r.target())).kernel_name()).first;
    return it->second;
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::string> names_;
};

// An ELF header (64 bytes) for the target's machine: what the tracker looks at before a board.
std::string stand_in_library(const std::string& target) {
  std::string elf(64, '\0');
  elf.replace(0, 4,
              "\x7f"
              "ELF");
  const bool arm = target.find("aarch64") != std::string::npos;
  elf[18] = static_cast<char>(arm ? 183 : 62);
  return elf;
}

// Builds answered, and the span between the first and the last.
class Totals {
 public:
  void build() {
    const auto now = Clock::now();
    std::lock_guard<std::mutex> lock(mu_);
    if (builds_++ == 0) first_ = now;
    last_ = now;
  }
  void print(int builders) {
    std::lock_guard<std::mutex> lock(mu_);
    const double seconds = builds_ > 0 ? std::chrono::duration<double>(last_ - first_).count() : 0;
    std::printf("{\"builders\": %d, \"builds\": %lld, \"seconds\": %.3f}\n", builders, static_cast<long long>(builds_),
                seconds);
  }

 private:
  std::mutex mu_;
  int64_t builds_ = 0;
  Clock::time_point first_{}, last_{};
};

v1::BuilderMessage registration(int index) {
  v1::BuilderInfo info = describe_builder(1);
  info.set_hostname(info.hostname() + "-loadtest");
  info.set_pid(info.pid() * 1000 + index);
  info.set_jobs(4);
  v1::BuilderMessage reg;
  *reg.mutable_register_()->mutable_info() = info;
  return reg;
}

v1::BuilderMessage answer_for(const v1::BuildRequest& build, EntrySymbols& symbols) {
  v1::BuilderMessage out;
  v1::BuildResult* r = out.mutable_result();
  r->set_build_id(build.build_id());
  try {
    r->set_entry_symbol(symbols.of(build));
    r->set_library(stand_in_library(build.target()));
  } catch (const std::exception& e) {
    r->set_error(e.what());
  }
  return out;
}

}  // namespace

int run_load_test(const BuilderOptions& opts) {
  EntrySymbols symbols;
  Totals totals;
  fleet::SyntheticRole<v1::BuilderMessage, v1::BuilderWork> role;
  role.what = "builder";
  role.registration = registration;
  role.registered = [](const v1::BuilderWork& m) -> std::optional<int> {
    if (!m.has_registered()) return std::nullopt;
    return m.registered().heartbeat_interval_ms();
  };
  role.answer = [&](int, const v1::BuilderWork& m) -> std::optional<v1::BuilderMessage> {
    if (!m.has_build()) return std::nullopt;
    totals.build();
    return answer_for(m.build(), symbols);
  };
  role.heartbeat = [] {
    v1::BuilderMessage hb;
    hb.mutable_heartbeat();
    return hb;
  };
  fleet::SyntheticPeers<v1::Builders, v1::BuilderMessage, v1::BuilderWork> builders(
      {opts.tracker, opts.token, opts.load_test_builders, 200}, std::move(role));
  std::printf("load test: %d synthetic builders connecting to %s (nothing is compiled)\n", opts.load_test_builders,
              opts.tracker.c_str());
  std::fflush(stdout);
  builders.run();
  totals.print(opts.load_test_builders);
  return 0;
}

}  // namespace tf::builder

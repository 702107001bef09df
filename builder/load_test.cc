#include "builder/load_test.h"

#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "compiler/compiler.h"
#include "proto/channel.h"
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

struct Totals {
  std::mutex mu;
  int64_t builds = 0;
  Clock::time_point first{}, last{};
};

void one_connection(const BuilderOptions& opts, int index, const std::shared_ptr<grpc::Channel>& channel,
                    EntrySymbols& symbols, Totals& totals, std::vector<grpc::ClientContext*>& contexts,
                    std::mutex& contexts_mu, const std::atomic<bool>& stopping) {
  auto stub = v1::Builders::NewStub(channel);
  grpc::ClientContext ctx;
  fleet::add_token(ctx, opts.token);
  {
    std::lock_guard<std::mutex> lock(contexts_mu);
    contexts[static_cast<size_t>(index)] = &ctx;
    if (stopping) ctx.TryCancel();
  }
  auto stream = stub->Connect(&ctx);
  v1::BuilderMessage reg;
  v1::BuilderInfo info = describe_builder(1);
  info.set_hostname(info.hostname() + "-loadtest");
  info.set_pid(info.pid() * 1000 + index);
  info.set_jobs(4);
  *reg.mutable_register_()->mutable_info() = info;
  v1::BuilderWork msg;
  int64_t builds = 0;
  Clock::time_point first{}, last{};
  if (stream->Write(reg) && stream->Read(&msg) && msg.has_registered()) {
    std::mutex write_mu;
    std::atomic<bool> done{false};
    const int interval_ms = std::max(100, msg.registered().heartbeat_interval_ms());
    std::thread heartbeats([&] {
      while (!done) {
        for (int waited = 0; waited < interval_ms && !done; waited += 50)
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        v1::BuilderMessage hb;
        hb.mutable_heartbeat();
        std::lock_guard<std::mutex> lock(write_mu);
        if (done || !stream->Write(hb)) return;
      }
    });
    while (stream->Read(&msg)) {
      if (!msg.has_build()) continue;
      if (builds++ == 0) first = Clock::now();
      v1::BuilderMessage out;
      v1::BuildResult* r = out.mutable_result();
      r->set_build_id(msg.build().build_id());
      try {
        r->set_entry_symbol(symbols.of(msg.build()));
        r->set_library(stand_in_library(msg.build().target()));
      } catch (const std::exception& e) {
        r->set_error(e.what());
      }
      last = Clock::now();
      std::lock_guard<std::mutex> lock(write_mu);
      if (!stream->Write(out)) break;
    }
    {
      std::lock_guard<std::mutex> lock(write_mu);
      done = true;
    }
    heartbeats.join();
  }
  const grpc::Status s = stream->Finish();
  if (!s.ok() && !stopping) std::fprintf(stderr, "load test builder %d: %s\n", index, s.error_message().c_str());
  {
    std::lock_guard<std::mutex> lock(contexts_mu);
    contexts[static_cast<size_t>(index)] = nullptr;
  }
  std::lock_guard<std::mutex> lock(totals.mu);
  totals.builds += builds;
  if (builds > 0) {
    if (totals.first == Clock::time_point{} || first < totals.first) totals.first = first;
    if (last > totals.last) totals.last = last;
  }
}

}  // namespace

int run_load_test(const BuilderOptions& opts) {
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int i = 0; i < (opts.load_test_builders + 15) / 16; ++i) {
    grpc::ChannelArguments args;
    args.SetInt("grpc.channel_id", i);  // distinct arguments: distinct connections
    args.SetMaxReceiveMessageSize(fleet::kMaxMessageBytes);
    channels.push_back(grpc::CreateCustomChannel(opts.tracker, grpc::InsecureChannelCredentials(), args));
  }
  EntrySymbols symbols;
  Totals totals;
  std::vector<grpc::ClientContext*> contexts(static_cast<size_t>(opts.load_test_builders), nullptr);
  std::mutex contexts_mu;
  std::atomic<bool> stopping{false};
  std::vector<std::thread> builders;
  for (int i = 0; i < opts.load_test_builders; ++i) {
    builders.emplace_back([&, i] {
      while (!stopping) {
        one_connection(opts, i, channels[static_cast<size_t>(i / 16)], symbols, totals, contexts, contexts_mu,
                       stopping);
        for (int waited = 0; waited < 200 && !stopping; waited += 50)
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }
  std::printf("load test: %d synthetic builders connecting to %s (nothing is compiled)\n", opts.load_test_builders,
              opts.tracker.c_str());
  std::fflush(stdout);
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  int sig = 0;
  sigwait(&stop, &sig);
  {
    std::lock_guard<std::mutex> lock(contexts_mu);
    stopping = true;
    for (auto* c : contexts) {
      if (c) c->TryCancel();
    }
  }
  for (auto& t : builders) t.join();
  const double seconds = totals.builds > 0 ? std::chrono::duration<double>(totals.last - totals.first).count() : 0;
  std::printf("{\"builders\": %d, \"builds\": %lld, \"seconds\": %.3f}\n", opts.load_test_builders,
              static_cast<long long>(totals.builds), seconds);
  return 0;
}

}  // namespace tf::builder

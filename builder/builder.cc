#include "builder/builder.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "builder/build_request.h"
#include "builder/load_test.h"
#include "compiler/codegen/target.h"
#include "proto/channel.h"
#include "proto/redial.h"
#include "proto/tunefarm.grpc.pb.h"

namespace tf::builder {

namespace {

constexpr int kProtocolVersion = 1;

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

using fleet::SessionEnd;

// One connection to the tracker: the main thread reads build requests, `jobs` threads build them,
// a heartbeat thread says the builder is alive (and draining, once told to stop).
class Session {
 public:
  Session(const BuilderOptions& opts, const v1::BuilderInfo& info, RequestBuilder& builder,
          const std::atomic<bool>& draining)
      : opts_(opts), info_(info), builder_(builder), draining_(draining) {}

  SessionEnd run(v1::Builders::Stub& stub) {
    SessionEnd end;
    fleet::add_token(ctx_, opts_.token);
    stream_ = stub.Connect(&ctx_);
    v1::BuilderMessage hello;
    *hello.mutable_register_()->mutable_info() = info_;
    v1::BuilderWork first;
    if (!stream_->Write(hello) || !stream_->Read(&first)) return finish(end);
    if (!first.has_registered()) {
      ctx_.TryCancel();
      end.fatal = true;
      end.why = "the tracker answered Register with something else";
      stream_->Finish();
      return end;
    }
    end.registered = true;
    std::printf("builder: registered as %s with tracker %s (%d builds at once)\n",
                first.registered().builder_id().c_str(), opts_.tracker.c_str(), info_.jobs());
    std::fflush(stdout);
    {
      std::lock_guard<std::mutex> lock(write_mu_);
      open_ = true;
    }
    const int interval_ms = std::clamp(first.registered().heartbeat_interval_ms(), 100, 60000);
    std::vector<std::thread> threads;
    for (int i = 0; i < info_.jobs(); ++i) threads.emplace_back([this] { build_loop(); });
    threads.emplace_back([this, interval_ms] { heartbeat_loop(interval_ms); });
    v1::BuilderWork msg;
    while (stream_->Read(&msg)) {
      if (!msg.has_build()) continue;
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(msg.build());
      work_ready_.notify_all();  // the heartbeat thread waits on it too: one wake-up could be its
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      ended_ = true;
      work_ready_.notify_all();
    }
    for (auto& t : threads) t.join();
    {
      std::lock_guard<std::mutex> lock(write_mu_);
      open_ = false;
    }
    return finish(end);
  }

  // Told to stop: say so at once, then finish what is held (the build threads end the stream).
  void drain() {
    heartbeat();
    std::lock_guard<std::mutex> lock(mu_);
    work_ready_.notify_all();
  }

 private:
  SessionEnd finish(SessionEnd end) {
    const grpc::Status s = stream_->Finish();
    const auto code = s.error_code();
    end.fatal = code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::PERMISSION_DENIED ||
                code == grpc::StatusCode::FAILED_PRECONDITION || code == grpc::StatusCode::INVALID_ARGUMENT;
    end.why = s.ok() ? "the tracker closed the stream" : s.error_message();
    return end;
  }

  bool write(const v1::BuilderMessage& m) {
    std::lock_guard<std::mutex> lock(write_mu_);
    return open_ && !writes_done_ && stream_->Write(m);
  }

  void heartbeat() {
    v1::BuilderMessage hb;
    {
      std::lock_guard<std::mutex> lock(mu_);
      hb.mutable_heartbeat()->set_queued(static_cast<int32_t>(queue_.size()) + busy_);
    }
    hb.mutable_heartbeat()->set_draining(draining_);
    write(hb);
  }

  void heartbeat_loop(int interval_ms) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!ended_) {
      work_ready_.wait_for(lock, std::chrono::milliseconds(interval_ms));
      if (ended_) break;
      lock.unlock();
      heartbeat();
      lock.lock();
    }
  }

  // Draining, nothing queued and nothing building: the stream ends; the tracker gives anything it
  // sent meanwhile to another builder (mu_ held).
  void end_stream_when_drained() {
    if (!draining_ || !queue_.empty() || busy_ > 0) return;
    std::lock_guard<std::mutex> w(write_mu_);
    if (open_ && !writes_done_) stream_->WritesDone();
    writes_done_ = true;
  }

  void build_loop() {
    for (;;) {
      v1::BuildRequest request;
      {
        std::unique_lock<std::mutex> lock(mu_);
        end_stream_when_drained();
        work_ready_.wait(lock, [&] { return ended_ || !queue_.empty() || (draining_ && busy_ == 0 && !writes_done_); });
        if (ended_) return;
        if (queue_.empty()) continue;
        request = std::move(queue_.front());
        queue_.pop_front();
        ++busy_;
      }
      v1::BuilderMessage out;
      *out.mutable_result() = builder_.build(request);
      write(out);
      std::lock_guard<std::mutex> lock(mu_);
      --busy_;
      work_ready_.notify_all();
    }
  }

  const BuilderOptions& opts_;
  const v1::BuilderInfo& info_;
  RequestBuilder& builder_;
  const std::atomic<bool>& draining_;
  grpc::ClientContext ctx_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::BuilderMessage, v1::BuilderWork>> stream_;
  std::mutex write_mu_;
  bool open_ = false;                     // write_mu_
  std::atomic<bool> writes_done_{false};  // set under write_mu_, read by the build threads

  std::mutex mu_;
  std::condition_variable work_ready_;
  std::deque<v1::BuildRequest> queue_;
  int busy_ = 0;
  bool ended_ = false;
};

}  // namespace

v1::BuilderInfo describe_builder(int jobs) {
  v1::BuilderInfo info;
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  info.set_hostname(host[0] ? host : "localhost");
  info.set_pid(static_cast<int32_t>(::getpid()));
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  info.set_jobs(std::clamp(jobs > 0 ? jobs : cores, 1, 256));
  info.set_compiler_version(compiler::version());
  info.set_protocol_version(kProtocolVersion);
  // The boards tunefarm supports: what this LLVM can emit for among them.
  for (const char* triple : {"x86_64-pc-linux-gnu", "aarch64-unknown-linux-gnu"}) {
    try {
      codegen::parse_target(std::string("llvm -mtriple=") + triple);
      info.add_triples(triple);
    } catch (const std::exception&) {
    }
  }
  return info;
}

void block_stop_signals() {
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int run_builder(const BuilderOptions& opts) {
  if (opts.load_test_builders > 0) return run_load_test(opts);
  std::atomic<bool> draining{false}, done{false};
  std::mutex session_mu;
  Session* current = nullptr;  // guarded by session_mu
  std::condition_variable wake;
  // Stop signals stay blocked in every thread; this one takes them.
  std::thread signals([&] {
    const sigset_t set = stop_signals();
    int sig = 0;
    while (sigwait(&set, &sig) == 0) {
      if (done) return;
      std::printf("builder: %s: draining (finishing the builds held, taking no more)\n", strsignal(sig));
      std::fflush(stdout);
      draining = true;
      std::lock_guard<std::mutex> lock(session_mu);
      if (current) current->drain();
      wake.notify_all();
    }
  });

  const v1::BuilderInfo info = describe_builder(opts.jobs);
  std::string triples;
  for (const auto& t : info.triples()) triples += (triples.empty() ? "" : ", ") + t;
  std::printf("builder: %d builds at once for %s; %s; tracker %s\n", info.jobs(), triples.c_str(),
              info.compiler_version().c_str(), opts.tracker.c_str());
  std::fflush(stdout);
  RequestBuilder builder(opts.timing_lock);
  auto stub = v1::Builders::NewStub(fleet::open_channel(opts.tracker, opts.tls_ca));
  const int exit_code = fleet::stay_connected(
      "builder",
      [&] {
        Session session(opts, info, builder, draining);
        const fleet::CurrentSession<Session> published(current, session_mu, session);
        return session.run(*stub);
      },
      draining, session_mu, wake, opts.max_backoff_ms, static_cast<uint32_t>(info.pid()));
  done = true;
  ::kill(::getpid(), SIGTERM);  // wakes the signal thread's sigwait, which sees `done`
  signals.join();
  if (exit_code == 0) std::printf("builder: stopped\n");
  return exit_code;
}

}  // namespace tf::builder

#include "rpc_server/load_test.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "proto/channel.h"
#include "proto/measure_wire.h"
#include "proto/tunefarm.grpc.pb.h"
#include "rpc_server/board_info.h"
#include "support/stats.h"

namespace tf::board {

namespace {

using Clock = std::chrono::steady_clock;

struct Stats {
  std::mutex mu;
  std::vector<double> latency_ms;
  int64_t items = 0;
  Clock::time_point first, last;
};

// Keeps a connection's context where the stopping thread can cancel it, for as long as it lives.
// A connection made after the stop began is cancelled at once, so its thread cannot outlive it.
class Registered {
 public:
  Registered(std::vector<grpc::ClientContext*>& all, std::mutex& mu, const std::atomic<bool>& stopping, size_t index,
             grpc::ClientContext* ctx)
      : all_(all), mu_(mu), index_(index) {
    std::lock_guard<std::mutex> lock(mu_);
    all_[index_] = ctx;
    if (stopping) ctx->TryCancel();
  }
  ~Registered() {
    std::lock_guard<std::mutex> lock(mu_);
    all_[index_] = nullptr;
  }

 private:
  std::vector<grpc::ClientContext*>& all_;
  std::mutex& mu_;
  size_t index_;
};

// Heartbeats at the interval the tracker asked for, so an idle connection is not dropped as
// silent; writes share the stream with the results, so they take turns under `write_mu`.
class Heartbeats {
 public:
  Heartbeats(grpc::ClientReaderWriter<v1::BoardMessage, v1::TrackerMessage>& stream, std::mutex& write_mu,
             int interval_ms)
      : thread_([this, &stream, &write_mu, interval_ms] {
          std::unique_lock<std::mutex> lock(mu_);
          while (!cv_.wait_for(lock, std::chrono::milliseconds(std::max(100, interval_ms)), [&] { return done_; })) {
            v1::BoardMessage hb;
            hb.mutable_heartbeat()->set_queued(0);
            std::lock_guard<std::mutex> write(write_mu);
            if (!stream.Write(hb)) return;
          }
        }) {}
  ~Heartbeats() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// One connection, from registration until the stream ends. True when it registered.
bool one_connection(const BoardOptions& opts, int index, const std::shared_ptr<grpc::Channel>& channel, Stats& stats,
                    std::vector<grpc::ClientContext*>& contexts, std::mutex& contexts_mu,
                    const std::atomic<bool>& stopping) {
  auto stub = v1::Boards::NewStub(channel);
  grpc::ClientContext ctx;
  fleet::add_token(ctx, opts.token);
  Registered cancellable(contexts, contexts_mu, stopping, static_cast<size_t>(index), &ctx);
  auto stream = stub->Connect(&ctx);
  v1::BoardMessage reg;
  v1::BoardInfo info = detect_board(opts.key, {}, 1);
  // It loads no library at all, so it may share a key with sandboxed boards.
  info.set_sandboxed(true);
  info.set_hostname(info.hostname() + "-loadtest");
  info.set_pid(info.pid() * 1000 + index);
  info.set_timing_isolation("load test: synthetic timings, no code runs");
  *reg.mutable_register_()->mutable_info() = info;
  v1::TrackerMessage msg;
  if (!stream->Write(reg) || !stream->Read(&msg) || !msg.has_registered()) {
    grpc::Status s = stream->Finish();
    if (!stopping) std::fprintf(stderr, "load test board %d: not registered: %s\n", index, s.error_message().c_str());
    return false;
  }
  std::mutex write_mu;
  auto heartbeats = std::make_unique<Heartbeats>(*stream, write_mu, msg.registered().heartbeat_interval_ms());
  std::vector<double> latency;
  int64_t items = 0;
  Clock::time_point first{}, last{}, result_sent{};
  while (stream->Read(&msg)) {
    if (!msg.has_work()) continue;
    const auto now = Clock::now();
    if (items == 0) first = now;
    if (result_sent != Clock::time_point{})
      latency.push_back(std::chrono::duration<double, std::milli>(now - result_sent).count());
    v1::BoardMessage out;
    auto* r = out.mutable_result();
    r->set_item_id(msg.work().item_id());
    r->set_status(v1::MEASURE_OK);
    // A made-up but stable cost per library, so the tuner sees a landscape, not noise.
    const double cost =
        1e-3 * (1.0 + static_cast<double>(std::hash<std::string>{}(msg.work().library()) % 1000) / 1000.0);
    // As many timings and runs per timing as the item asks for: the tracker refuses any other count.
    const runtime::MeasureOptions asked = fleet::from_wire(msg.work().measure());
    for (int i = 0; i < std::max(1, asked.repeat); ++i) r->add_costs(cost);
    r->set_number(std::max(1, asked.number));
    result_sent = Clock::now();
    last = result_sent;
    ++items;
    std::lock_guard<std::mutex> write(write_mu);
    if (!stream->Write(out)) break;
  }
  heartbeats.reset();  // no write may race the stream's end
  stream->Finish();
  std::lock_guard<std::mutex> lock(stats.mu);
  stats.latency_ms.insert(stats.latency_ms.end(), latency.begin(), latency.end());
  stats.items += items;
  if (items > 0) {
    if (stats.first == Clock::time_point{} || first < stats.first) stats.first = first;
    if (last > stats.last) stats.last = last;
  }
  return true;
}

// A connection dialled again, as a real board does, while the tracker restarts (a soak kills it).
void one_board(const BoardOptions& opts, int index, std::shared_ptr<grpc::Channel> channel, Stats& stats,
               std::vector<grpc::ClientContext*>& contexts, std::mutex& contexts_mu,
               const std::atomic<bool>& stopping) {
  int backoff_ms = 100;
  while (!stopping) {
    if (one_connection(opts, index, channel, stats, contexts, contexts_mu, stopping)) backoff_ms = 100;
    for (int waited = 0; waited < backoff_ms && !stopping; waited += 50)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    backoff_ms = std::min(opts.max_backoff_ms, backoff_ms * 2);
  }
}

}  // namespace

int run_load_test(const BoardOptions& opts) {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  // Connections share a few channels, as boards on one network would share routes; one channel
  // per 16 boards keeps any single HTTP/2 connection from serializing them all.
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int i = 0; i < (opts.load_test_boards + 15) / 16; ++i) {
    grpc::ChannelArguments args;
    args.SetInt("grpc.channel_id", i);  // distinct arguments: distinct connections
    args.SetMaxReceiveMessageSize(fleet::kMaxMessageBytes);
    channels.push_back(grpc::CreateCustomChannel(opts.tracker, grpc::InsecureChannelCredentials(), args));
  }
  Stats stats;
  std::vector<grpc::ClientContext*> contexts(static_cast<size_t>(opts.load_test_boards), nullptr);
  std::mutex contexts_mu;
  std::atomic<bool> stopping{false};
  std::vector<std::thread> boards;
  boards.reserve(opts.load_test_boards);
  for (int i = 0; i < opts.load_test_boards; ++i) {
    boards.emplace_back(one_board, std::cref(opts), i, channels[static_cast<size_t>(i / 16)], std::ref(stats),
                        std::ref(contexts), std::ref(contexts_mu), std::cref(stopping));
  }
  std::printf("load test: %d synthetic boards with key %s connecting to %s (no code runs)\n", opts.load_test_boards,
              opts.key.c_str(), opts.tracker.c_str());
  std::fflush(stdout);
  int sig = 0;
  sigwait(&stop, &sig);
  {
    std::lock_guard<std::mutex> lock(contexts_mu);
    stopping = true;
    for (auto* c : contexts) {
      if (c) c->TryCancel();
    }
  }
  for (auto& t : boards) t.join();
  const double seconds = stats.items > 0 ? std::chrono::duration<double>(stats.last - stats.first).count() : 0;
  std::printf(
      "{\"boards\": %d, \"items\": %lld, \"seconds\": %.3f, \"items_per_s\": %.1f, \"latency_ms_p50\": %.3f, \"latency_ms_p99\": %.3f}\n",
      opts.load_test_boards, static_cast<long long>(stats.items), seconds,
      seconds > 0 ? static_cast<double>(stats.items) / seconds : 0.0, percentile(stats.latency_ms, 0.5),
      percentile(stats.latency_ms, 0.99));
  return 0;
}

}  // namespace tf::board

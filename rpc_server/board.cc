#include "rpc_server/board.h"

#include <grpcpp/grpcpp.h>
#include <pthread.h>
#include <signal.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "proto/channel.h"
#include "proto/measure_wire.h"
#include "proto/redial.h"
#include "proto/tunefarm.grpc.pb.h"
#include "rpc_server/board_info.h"
#include "rpc_server/load_test.h"
#include "runtime/measure_worker.h"
#include "runtime/peak_flops.h"
#include "runtime/thread_pool.h"

namespace tf::board {

namespace {

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

void unblock_stop_signals() {
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

using Clock = std::chrono::steady_clock;
using Stream = grpc::ClientReaderWriter<v1::BoardMessage, v1::TrackerMessage>;

// The tracker holds the same number, in the same least-recently-used order (tracker/dispatcher.cc).
constexpr size_t kReferencesHeld = 16;

bool refused_for_good(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::PERMISSION_DENIED ||
         code == grpc::StatusCode::INVALID_ARGUMENT || code == grpc::StatusCode::FAILED_PRECONDITION;
}

using fleet::SessionEnd;

// One connection to the tracker, from dialling to the stream's end.
class Session {
 public:
  Session(const BoardOptions& opts, const v1::BoardInfo& info, runtime::MeasureWorker& worker,
          const std::atomic<bool>& draining)
      : opts_(opts), info_(info), worker_(worker), draining_(draining) {}

  SessionEnd run(v1::Boards::Stub& stub) {
    SessionEnd end;
    fleet::add_token(ctx_, opts_.token);
    {
      std::lock_guard<std::mutex> lock(write_mu_);
      stream_ = stub.Connect(&ctx_);
    }
    v1::BoardMessage reg;
    *reg.mutable_register_()->mutable_info() = info_;
    v1::TrackerMessage msg;
    if (!stream_->Write(reg) || !stream_->Read(&msg) || !msg.has_registered()) {
      grpc::Status s = stream_->Finish();
      end.fatal = refused_for_good(s.error_code());
      end.why = s.ok() ? "the tracker closed the stream" : s.error_message();
      return end;
    }
    end.registered = true;
    {
      std::lock_guard<std::mutex> lock(write_mu_);
      open_ = true;
    }
    std::printf("board: registered with %s as %s (key %s)\n", opts_.tracker.c_str(),
                msg.registered().board_id().c_str(), info_.device_key().c_str());
    std::fflush(stdout);
    std::thread measurer([this] { measure_loop(); });
    while (stream_->Read(&msg)) {
      if (msg.has_reference()) {
        hold_reference(msg.reference());
      } else if (msg.has_work()) {
        std::lock_guard<std::mutex> lock(mu_);
        queue_.push_back({std::move(*msg.mutable_work()), Clock::now()});
        // The references a board holds follow the order items arrive in, as on the tracker.
        touch_reference(queue_.back().item.reference_id());
        work_ready_.notify_one();
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      ended_ = true;
      work_ready_.notify_one();
    }
    measurer.join();
    {
      std::lock_guard<std::mutex> lock(write_mu_);
      open_ = false;
    }
    grpc::Status s = stream_->Finish();
    end.why = s.ok() ? "the tracker closed the stream" : s.error_message();
    return end;
  }

  void heartbeat() {
    v1::BoardMessage hb;
    {
      std::lock_guard<std::mutex> lock(mu_);
      hb.mutable_heartbeat()->set_queued(static_cast<int32_t>(queue_.size()) + (busy_ ? 1 : 0));
    }
    hb.mutable_heartbeat()->set_draining(draining_);
    write(hb);
  }

  // Draining: say so at once, then finish what is held (measure_loop ends the stream).
  void drain() {
    heartbeat();
    std::lock_guard<std::mutex> lock(mu_);
    work_ready_.notify_one();
  }

  void cancel() { ctx_.TryCancel(); }

 private:
  struct Queued {
    v1::WorkItem item;
    Clock::time_point received;
  };

  bool write(const v1::BoardMessage& m) {
    std::lock_guard<std::mutex> lock(write_mu_);
    return open_ && !writes_done_ && stream_->Write(m);
  }

  void hold_reference(const v1::Reference& ref) {
    std::lock_guard<std::mutex> lock(mu_);
    try {
      references_[ref.reference_id()] = std::make_shared<runtime::WorkloadSetup>(fleet::from_wire(ref));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "board: reference %llu is unusable: %s\n",
                   static_cast<unsigned long long>(ref.reference_id()), e.what());
      references_.erase(ref.reference_id());
    }
  }

  // Least recently used first out, mirroring the tracker's bookkeeping (mu_ held).
  void touch_reference(uint64_t id) {
    order_.erase(std::remove(order_.begin(), order_.end(), id), order_.end());
    order_.push_back(id);
    while (order_.size() > kReferencesHeld) {
      references_.erase(order_.front());
      order_.pop_front();
    }
  }

  void measure_loop() {
    for (;;) {
      Queued q;
      std::shared_ptr<runtime::WorkloadSetup> setup;
      bool args_match = false;
      {
        std::unique_lock<std::mutex> lock(mu_);
        work_ready_.wait(lock, [&] { return ended_ || !queue_.empty() || draining_; });
        if (ended_) return;
        if (queue_.empty()) {
          // Draining and idle: end the stream; the tracker gives anything it sent meanwhile to
          // another board.
          {
            std::lock_guard<std::mutex> w(write_mu_);
            if (!writes_done_) stream_->WritesDone();
            writes_done_ = true;
          }
          work_ready_.wait(lock, [&] { return ended_; });
          return;
        }
        q = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
        auto it = references_.find(q.item.reference_id());
        if (it != references_.end()) {
          setup = it->second;
          const auto& args = setup->args;
          args_match = static_cast<int>(args.size()) == q.item.args_size();
          for (int i = 0; args_match && i < q.item.args_size(); ++i) {
            const runtime::TensorSpec t = fleet::from_wire(q.item.args(i));
            const auto& r = args[static_cast<size_t>(i)];
            args_match = t.shape == r.shape && t.dtype_code == r.dtype_code && t.dtype_bits == r.dtype_bits;
          }
        }
      }
      v1::BoardMessage out;
      v1::WorkResult* r = out.mutable_result();
      r->set_item_id(q.item.item_id());
      if (!setup) {
        r->set_status(v1::MEASURE_RUNTIME_ERROR);
        r->set_error("reference " + std::to_string(q.item.reference_id()) + " is not held by this board");
      } else if (!args_match) {
        r->set_status(v1::MEASURE_RUNTIME_ERROR);
        r->set_error("the work item's arguments differ from its reference's");
      } else {
        if (current_reference_ != q.item.reference_id()) {
          worker_.setup(*setup);
          current_reference_ = q.item.reference_id();
        }
        runtime::MeasureOptions mo = fleet::from_wire(q.item.measure());
        mo.timing_lock = opts_.timing_lock;
        std::vector<uint8_t> library(q.item.library().begin(), q.item.library().end());
        runtime::MeasureResult m = q.item.foreign_library()
                                       ? worker_.measure_foreign(library, q.item.entry_symbol(), mo)
                                       : worker_.measure(library, q.item.entry_symbol(), mo);
        r->set_status(fleet::to_wire(m.status));
        for (double c : m.costs) r->add_costs(c);
        r->set_number(m.number);
        r->set_error(m.error);
      }
      r->set_board_ms(std::chrono::duration<double, std::milli>(Clock::now() - q.received).count());
      write(out);
      std::lock_guard<std::mutex> lock(mu_);
      busy_ = false;
    }
  }

  const BoardOptions& opts_;
  const v1::BoardInfo& info_;
  runtime::MeasureWorker& worker_;
  const std::atomic<bool>& draining_;
  grpc::ClientContext ctx_;
  std::unique_ptr<Stream> stream_;
  std::mutex write_mu_;
  bool writes_done_ = false;  // guarded by write_mu_
  // Registered and not yet finished, guarded by write_mu_: the event loop's heartbeats come at any
  // time, and a write before the stream exists, before it is registered or after Finish() is
  // undefined (a heartbeat while a dial failed was a SIGSEGV in the soak).
  bool open_ = false;

  std::mutex mu_;
  std::condition_variable work_ready_;
  std::deque<Queued> queue_;
  bool ended_ = false, busy_ = false;
  std::map<uint64_t, std::shared_ptr<runtime::WorkloadSetup>> references_;
  std::deque<uint64_t> order_;
  uint64_t current_reference_ = 0;  // the one the worker is set up with (measuring thread only)
};

}  // namespace

std::string timing_isolation(const BoardOptions& opts) {
  std::string s;
  if (!opts.cpus.empty()) {
    s = "kernels pinned to CPU " + runtime::cpu_list_text(opts.cpus);
  } else {
    s = "kernels not pinned";
  }
  s += opts.timing_lock.empty() ? "; no host-wide timing lock"
                                : "; host-wide lock " + opts.timing_lock + " held while timing";
  return s;
}

void block_stop_signals() {
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int run_board(const BoardOptions& opts) {
  if (opts.load_test_boards > 0) return run_load_test(opts);
  // The drain handler goes in before anything slow (peak measurement, the worker's start): a SIGTERM that
  // arrives while the board starts up drains it like any other, instead of killing it. main() keeps the
  // signals blocked until this point.
  std::atomic<bool> draining{false};
  std::mutex session_mu;
  Session* current = nullptr;  // guarded by session_mu
  std::condition_variable wake;

  boost::asio::io_context io;
  boost::asio::signal_set signals(io, SIGTERM, SIGINT);
  signals.async_wait([&](const boost::system::error_code& ec, int sig) {
    if (ec) return;
    std::printf("board: %s: draining (finishing the work held, taking no more)\n", strsignal(sig));
    std::fflush(stdout);
    draining = true;
    std::lock_guard<std::mutex> lock(session_mu);
    if (current) current->drain();
    wake.notify_all();
  });
  unblock_stop_signals();
  std::printf("board: starting (measuring this host's FMA peak)\n");
  std::fflush(stdout);

  v1::BoardInfo info = detect_board(opts.key, opts.cpus, opts.threads);
  info.set_timing_isolation(timing_isolation(opts));
  runtime::MeasureWorker worker(opts.worker_path.empty() ? runtime::MeasureWorker::default_path() : opts.worker_path,
                                opts.cpus, info.threads());
  worker.set_launcher(opts.worker_launcher);
  worker.set_sandbox(opts.sandbox, opts.worker_memory_mb);
  if (opts.sandbox) {
    if (std::string why = worker.sandbox_problem(opts.timing_lock); !why.empty()) {
      std::fprintf(stderr,
                   "tunefarm-rpc-server: the measure worker cannot confine kernels on this host: %s\n"
                   "  Kernels from the network would run unconfined. --no-sandbox runs them so (for a board under an\n"
                   "  emulator without system-call filtering, such as qemu-user); the tracker then lets only admins\n"
                   "  send the board libraries of their own.\n",
                   why.c_str());
      return 2;
    }
  }
  info.set_sandboxed(opts.sandbox);
  // Where its kernels run, under the lock other measurers honour; one thread's peak times the
  // kernel's threads bounds what any kernel here can reach.
  const double peak = runtime::measure_peak_gflops(opts.cpus.empty() ? -1 : opts.cpus.front(), opts.timing_lock);
  info.set_peak_gflops(peak * std::max(1, info.threads()));
  auto channel = fleet::open_channel(opts.tracker, opts.tls_ca);
  auto stub = v1::Boards::NewStub(channel);

  // The event loop: signals and heartbeats.
  boost::asio::steady_timer heartbeat_timer(io);
  std::function<void()> schedule_heartbeat = [&] {
    heartbeat_timer.expires_after(std::chrono::milliseconds(1000));
    heartbeat_timer.async_wait([&](const boost::system::error_code& ec) {
      if (ec) return;
      {
        std::lock_guard<std::mutex> lock(session_mu);
        if (current) current->heartbeat();
      }
      schedule_heartbeat();
    });
  };
  schedule_heartbeat();
  std::thread io_thread([&] { io.run(); });

  std::printf("board: key %s, %d thread(s) per kernel, %s; FP32 FMA peak %.1f GFLOPS; tracker %s\n", opts.key.c_str(),
              info.threads(), info.timing_isolation().c_str(), info.peak_gflops(), opts.tracker.c_str());
  std::fflush(stdout);
  const int exit_code = fleet::stay_connected(
      "board",
      [&] {
        Session session(opts, info, worker, draining);
        const fleet::CurrentSession<Session> published(current, session_mu, session);
        return session.run(*stub);
      },
      draining, session_mu, wake, opts.max_backoff_ms, static_cast<uint32_t>(info.pid()));
  io.stop();
  io_thread.join();
  // Destroying the signal set restores the default action: a second SIGTERM from here on would end
  // a board that has already drained with "Terminated" instead of its exit code.
  block_stop_signals();
  if (exit_code == 0) std::printf("board: stopped\n");
  return exit_code;
}

}  // namespace tf::board

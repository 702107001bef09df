// Many synthetic peers of a tracker (load-test boards or builders) in one process, for measuring
// what one tracker can carry. Each peer is a stream served by gRPC's callback API, so a thousand
// of them cost a few threads, not a thousand: the load test measures the tracker, not its own
// thread switches. A peer whose stream ends dials again after a back-off, as a real board does
// while its tracker restarts. `run` returns on SIGTERM or SIGINT, every stream ended.
#pragma once

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "proto/channel.h"

namespace tf::fleet {

// What a peer says and answers; called from gRPC's threads, one message of a peer at a time.
template <typename Up, typename Down>
struct SyntheticRole {
  std::string what;  // "board", "builder": for messages
  std::function<Up(int index)> registration;
  // The heartbeat interval the tracker's first message asks for; nullopt when it is not Registered.
  std::function<std::optional<int>(const Down&)> registered;
  // The answer to a message after the first, if any.
  std::function<std::optional<Up>(int index, const Down&)> answer;
  std::function<Up()> heartbeat;
};

struct SyntheticPeerOptions {
  std::string tracker, token;
  int count = 1;
  int max_backoff_ms = 5000;
};

template <typename Service, typename Up, typename Down>
class SyntheticPeers {
 public:
  using Role = SyntheticRole<Up, Down>;
  SyntheticPeers(SyntheticPeerOptions opts, Role role) : opts_(std::move(opts)), role_(std::move(role)) {}

  // Blocks SIGTERM and SIGINT (call before any other thread starts), runs the peers until one
  // arrives, then ends every stream.
  void run() {
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);
    // Peers share a few channels, as boards on one network share routes; one per 16 peers keeps
    // a single HTTP/2 connection from serializing them all.
    for (int i = 0; i < (opts_.count + 15) / 16; ++i) {
      grpc::ChannelArguments args;
      args.SetInt("grpc.channel_id", i);  // distinct arguments: distinct connections
      args.SetMaxReceiveMessageSize(kMaxMessageBytes);
      stubs_.push_back(
          Service::NewStub(grpc::CreateCustomChannel(opts_.tracker, grpc::InsecureChannelCredentials(), args)));
    }
    slots_.resize(static_cast<size_t>(opts_.count));
    std::thread tending([this] { tend(); });
    int sig = 0;
    sigwait(&stop, &sig);
    stopping_ = true;
    tending.join();
  }

 private:
  using Clock = std::chrono::steady_clock;

  class Peer final : public grpc::ClientBidiReactor<Up, Down> {
   public:
    Peer(SyntheticPeers& all, int index, typename Service::Stub& stub) : all_(all), index_(index) {
      add_token(ctx_, all.opts_.token);
      stub.async()->Connect(&ctx_, this);
      // The hold keeps OnDone away while this peer may still write (a heartbeat from the
      // tending thread); it goes when the stream is known to be over.
      this->AddHold();
      this->StartRead(&in_);
      send(all.role_.registration(index));
      this->StartCall();
    }
    void send(const Up& m) {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_) return;
      out_.push_back(m);
      if (!writing_) {
        writing_ = true;
        this->StartWrite(&out_.front());
      }
    }
    void cancel() { ctx_.TryCancel(); }
    bool done() const { return done_; }
    bool registered() const { return heartbeat_ms_ > 0; }
    int heartbeat_ms() const { return heartbeat_ms_; }
    const grpc::Status& status() const { return status_; }

   private:
    void OnReadDone(bool ok) override {
      if (!ok) {
        close();
        return;
      }
      if (!registered()) {
        std::optional<int> interval = all_.role_.registered(in_);
        if (!interval) {
          cancel();
          close();
          return;
        }
        heartbeat_ms_ = std::max(100, *interval);
      } else if (std::optional<Up> reply = all_.role_.answer(index_, in_)) {
        send(*reply);
      }
      this->StartRead(&in_);
    }
    void OnWriteDone(bool ok) override {
      std::lock_guard<std::mutex> lock(mu_);
      out_.pop_front();
      writing_ = false;
      if (!ok) {
        close_locked();
      } else if (!closed_ && !out_.empty()) {
        writing_ = true;
        this->StartWrite(&out_.front());
      }
    }
    void OnDone(const grpc::Status& s) override {
      status_ = s;
      done_ = true;  // last: the tending thread may delete this peer from here on
    }
    void close() {
      std::lock_guard<std::mutex> lock(mu_);
      close_locked();
    }
    void close_locked() {
      if (closed_) return;
      closed_ = true;
      this->RemoveHold();
    }

    SyntheticPeers& all_;
    const int index_;
    grpc::ClientContext ctx_;
    Down in_;
    std::mutex mu_;
    std::deque<Up> out_;  // front: the message being written while writing_
    bool writing_ = false, closed_ = false;
    std::atomic<int> heartbeat_ms_{0};
    std::atomic<bool> done_{false};
    grpc::Status status_;
  };

  struct Slot {
    std::unique_ptr<Peer> peer;
    Clock::time_point dial_at{}, heartbeat_at{};
    int backoff_ms = 100;
  };

  // Dials, heartbeats and re-dials every peer; after the stop, cancels them and waits for each
  // stream to end.
  void tend() {
    for (;;) {
      const auto now = Clock::now();
      bool any_live = false;
      for (size_t i = 0; i < slots_.size(); ++i) {
        Slot& s = slots_[i];
        if (s.peer && s.peer->done()) reap(i, s, now);
        if (s.peer) {
          any_live = true;
          if (stopping_) {
            s.peer->cancel();
          } else if (s.peer->registered() && now >= s.heartbeat_at) {
            s.peer->send(role_.heartbeat());
            s.heartbeat_at = now + std::chrono::milliseconds(s.peer->heartbeat_ms());
          }
        } else if (!stopping_ && now >= s.dial_at) {
          s.peer = std::make_unique<Peer>(*this, static_cast<int>(i), *stubs_[i / 16]);
          s.heartbeat_at = now;
          any_live = true;
        }
      }
      if (stopping_ && !any_live) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  void reap(size_t i, Slot& s, Clock::time_point now) {
    if (s.peer->registered()) s.backoff_ms = 100;
    if (!stopping_ && !s.peer->status().ok())
      std::fprintf(stderr, "load test %s %zu: %s\n", role_.what.c_str(), i, s.peer->status().error_message().c_str());
    s.peer.reset();
    s.dial_at = now + std::chrono::milliseconds(s.backoff_ms);
    s.backoff_ms = std::min(opts_.max_backoff_ms, s.backoff_ms * 2);
  }

  const SyntheticPeerOptions opts_;
  const Role role_;
  std::vector<std::unique_ptr<typename Service::Stub>> stubs_;
  std::vector<Slot> slots_;  // by peer index; only the tending thread touches them
  std::atomic<bool> stopping_{false};
};

}  // namespace tf::fleet

// One long-lived bidirectional stream (a board's or a builder's), served with gRPC's callback API.
// A farm holds a stream per board and per builder: a thread blocked per stream, and a thread
// switch per message handed between them, cost more than the work itself at a thousand boards.
// Here reads arrive as reactions on gRPC's own threads, and writes never block the caller: they
// queue behind the one in flight. A peer that stops reading while messages pile up past
// `max_queued` is cut off, so a slow or hostile client cannot make the tracker hold its messages
// without bound.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <grpcpp/grpcpp.h>

namespace tf::tracker {

// gRPC never runs a reaction inside the call that started its operation (OnWriteDone inside
// StartWrite, OnDone inside Finish), so both are called with mu_ held: the reactor cannot be
// destroyed between the check of its state and the call.
//
// The writing half, shared with whoever sends down the stream (the dispatcher, the build pool):
// it outlives the stream, and sends after the stream ended return false.
template <typename Out>
class StreamWriter {
 public:
  StreamWriter(grpc::CallbackServerContext* ctx, size_t max_queued) : ctx_(ctx), max_queued_(max_queued) {}
  virtual ~StreamWriter() = default;

  // Queues `m` for writing; false when the stream is ending or gone (the message is dropped).
  bool send(const Out& m) {
    std::lock_guard<std::mutex> lock(mu_);
    if (ending_ || !ctx_) return false;
    if (queue_.size() >= max_queued_) {
      end_locked(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                              "the peer stopped reading: " + std::to_string(queue_.size()) + " messages unread"),
                 true);
      return false;
    }
    queue_.push_back(m);
    if (!writing_) {
      writing_ = true;
      start_write(&queue_.front());
    }
    return true;
  }
  // Ends the stream with `status` once the write in flight is done; queued messages are dropped.
  // With `cut`, the peer is cut off at once (what is in flight fails).
  void end(const grpc::Status& status, bool cut) {
    std::lock_guard<std::mutex> lock(mu_);
    end_locked(status, cut);
  }

  // For the reactor only.
  void write_done(bool ok) {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.pop_front();
    writing_ = false;
    if (!ok) {
      end_locked(grpc::Status(grpc::StatusCode::UNAVAILABLE, "writing to the peer failed"), false);
    } else if (!ending_ && !queue_.empty()) {
      writing_ = true;
      start_write(&queue_.front());
      return;
    }
    if (pending_finish_) finish_locked();
  }
  void detach() {  // the reactor is gone
    std::lock_guard<std::mutex> lock(mu_);
    ctx_ = nullptr;
  }

 protected:
  virtual void start_write(const Out* m) = 0;
  virtual void finish(const grpc::Status& s) = 0;

 private:
  void end_locked(const grpc::Status& status, bool cut) {
    if (ending_ || !ctx_) return;
    ending_ = true;
    status_ = status;
    if (cut) ctx_->TryCancel();
    // The message in flight stays until its write is done: gRPC holds a pointer to it.
    while (queue_.size() > (writing_ ? 1u : 0u)) queue_.pop_back();
    pending_finish_ = true;
    if (!writing_) finish_locked();
  }
  void finish_locked() {
    pending_finish_ = false;
    finish(status_);
  }

  std::mutex mu_;
  grpc::CallbackServerContext* ctx_;
  size_t max_queued_;
  std::deque<Out> queue_;  // front: the message being written while writing_
  bool writing_ = false;
  bool ending_ = false;
  bool pending_finish_ = false;
  grpc::Status status_;
};

// A stream's reactor: reads one message at a time and hands it to `on_message`; the stream ends
// (and `on_end` runs, once) when the peer closes it, is cancelled, or `on_message` returns an error.
template <typename In, typename Out>
class StreamSession : public grpc::ServerBidiReactor<In, Out> {
 public:
  StreamSession(grpc::CallbackServerContext* ctx, size_t max_queued)
      : ctx_(ctx), writer_(std::make_shared<Writer>(this, ctx, max_queued)) {}

  // Starts reading, or ends the stream at once with `refused` (a failed auth check).
  void start(const grpc::Status& refused = grpc::Status::OK) {
    if (!refused.ok()) {
      writer_->end(refused, false);
      return;
    }
    this->StartRead(&incoming_);
  }
  const std::shared_ptr<StreamWriter<Out>> writer() const { return writer_; }
  grpc::CallbackServerContext* context() const { return ctx_; }

 protected:
  // Each message read, in order. An error ends the stream with it; OK reads the next.
  virtual grpc::Status on_message(const In& m) = 0;
  // Once, when reading ends; `why` says how (the peer closed, was cut off, broke the protocol).
  virtual void on_end(const std::string& why) = 0;

 private:
  class Writer final : public StreamWriter<Out> {
   public:
    Writer(StreamSession* session, grpc::CallbackServerContext* ctx, size_t max_queued)
        : StreamWriter<Out>(ctx, max_queued), session_(session) {}

   protected:
    void start_write(const Out* m) override { session_->StartWrite(m); }
    void finish(const grpc::Status& s) override { session_->Finish(s); }

   private:
    StreamSession* session_;
  };

  void OnReadDone(bool ok) override {
    if (!ok) {
      read_ended(ctx_->IsCancelled() ? "cut off (missed heartbeats, bad answers or tracker stopping)" : "stream closed",
                 grpc::Status::OK);
      return;
    }
    grpc::Status s = on_message(incoming_);
    if (!s.ok()) {
      read_ended(s.error_message(), s);
      return;
    }
    this->StartRead(&incoming_);
  }
  void OnWriteDone(bool ok) override { writer_->write_done(ok); }
  void OnDone() override {
    writer_->detach();
    delete this;
  }
  void read_ended(const std::string& why, const grpc::Status& s) {
    on_end(why);
    writer_->end(s, false);
  }

  grpc::CallbackServerContext* ctx_;
  std::shared_ptr<Writer> writer_;
  In incoming_;
};

}  // namespace tf::tracker

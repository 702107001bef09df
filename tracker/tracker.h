// The tracker: one gRPC server with the client-facing, the board-facing and the builder-facing
// services, over one SQLite file. It owns the dispatcher (boards and their queues), the job manager
// (a thread per job running the tuning loop), the build pool (remote builders in front of its own
// build threads), and a maintenance thread that drops boards and builders whose heartbeats stopped.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "proto/channel.h"
#include "tracker/auth.h"
#include "tracker/board_service.h"
#include "tracker/build_pool.h"
#include "tracker/builder_service.h"
#include "tracker/dispatcher.h"
#include "tracker/http/dashboard.h"
#include "tracker/http/http_server.h"
#include "tracker/job_manager.h"
#include "tracker/listen_address.h"
#include "tracker/tuning_service.h"
#include "tuner/builder.h"

namespace tf::tracker {

struct TrackerOptions {
  std::string listen = "127.0.0.1:9190";
  std::string db_path = "tunefarm.db";
  std::string token_file;                                // empty: no authentication, loopback only
  std::string tls_cert, tls_key;                         // both or neither
  int build_threads = 0;                                 // 0: one per core
  std::string build_lock = "/tmp/tunefarm-timing.lock";  // held shared while building; empty: none
  int64_t build_cache_mb = 256;
  // With builders connected (tunefarm-builder) the tracker's threads build only when none can take a
  // build; true: they build beside the builders too.
  bool build_here_too = false;
  int heartbeat_interval_ms = 1000;
  int heartbeat_timeout_ms = 5000;
  int slots_per_board = 2;
  int item_grace_ms = 10000;                           // beyond an item's own time limit, before its board is dropped
  std::string http_listen;                             // the dashboard and /metrics (HOST:PORT); empty: none
  int max_jobs_per_client = 64;                        // unfinished jobs one token (or the anonymous caller) may have
  int max_message_mb = fleet::kMaxMessageBytes >> 20;  // largest gRPC message taken or sent
};

class Tracker {
 public:
  // Opens the db, resumes unfinished jobs and starts serving. Throws OptionError for a bad
  // --listen, --tls-cert or --tls-key, std::runtime_error with a message for the operator for the
  // rest (a port in use, an unreadable token file).
  explicit Tracker(const TrackerOptions& opts);
  ~Tracker();
  int port() const { return port_; }
  // The dashboard's address, "http://127.0.0.1:9191/" (https with TLS); empty without --http.
  std::string dashboard_url() const;
  int resumed_jobs() const { return resumed_; }
  std::string auth_summary() const;
  void wait();      // until shutdown()
  void shutdown();  // stops jobs (they resume next start), closes every stream

 private:
  TrackerOptions opts_;
  Authenticator auth_;
  Dispatcher dispatcher_;
  std::unique_ptr<tuner::LocalBuilder> builder_;
  std::unique_ptr<BuildPool> build_pool_;  // the builders in front of builder_; what jobs build with
  std::unique_ptr<JobManager> jobs_;
  std::unique_ptr<TuningService> tuning_;
  std::unique_ptr<BoardService> boards_;
  std::unique_ptr<BuilderService> builders_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<http::Dashboard> dashboard_;
  std::unique_ptr<http::Server> http_;
  std::thread maintenance_;
  std::atomic<bool> stopping_{false};
  int port_ = 0;
  int resumed_ = 0;
  std::vector<int> all_cpus_;
  std::string hostname_;
  std::mutex placement_mu_;
  std::string last_placement_;

  tuner::LocalBuilder::Placement build_placement();
};

}  // namespace tf::tracker

#include "tracker/tracker.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "proto/channel.h"
#include "runtime/thread_pool.h"
#include "support/files.h"

namespace tf::tracker {

namespace {

// gRPC reports a certificate or key it cannot use only as a server that did not start, which reads
// as a port in use; say which file is wrong instead.
void check_pem(const std::string& option, const std::string& path, const std::string& text, bool want_key) {
  const bool has_cert = text.find("-----BEGIN CERTIFICATE-----") != std::string::npos;
  const bool has_key = text.find("PRIVATE KEY-----") != std::string::npos;
  if (want_key ? has_key : has_cert) return;
  const std::string what = want_key ? "a PEM private key" : "a PEM certificate";
  if (want_key ? has_cert : has_key) {
    throw OptionError(option + " " + path + " is not valid: it holds " +
                      (want_key ? "a certificate" : "a private key") + ", not " + what +
                      " (are --tls-cert and --tls-key swapped?)");
  }
  throw OptionError(option + " " + path + " is not valid: it holds no " + what);
}

}  // namespace

Tracker::Tracker(const TrackerOptions& opts)
    : opts_(opts),
      dispatcher_(DispatcherOptions{opts.slots_per_board, 3, std::chrono::milliseconds(opts.item_grace_ms)}) {
  parse_listen(opts.listen);
  if (!opts.token_file.empty()) {
    try {
      auth_ = Authenticator(fleet::read_token_file(opts.token_file));
    } catch (const std::runtime_error& e) {
      throw OptionError(std::string("--token-file: ") + e.what());
    }
  } else if (!opts.http_listen.empty() && !is_loopback(opts.http_listen)) {
    throw OptionError("refusing to serve the dashboard on " + opts.http_listen +
                      " without --token-file: anyone who reaches it could read and cancel every job. "
                      "Serve it on 127.0.0.1, or give a token file");
  } else if (!is_loopback(opts.listen)) {
    throw OptionError("refusing to listen on " + opts.listen +
                      " without --token-file: anyone who reaches it could run code on your boards. "
                      "Listen on 127.0.0.1, or give a token file (tunefarm token new --role ...)");
  }
  if (opts.tls_cert.empty() != opts.tls_key.empty()) throw OptionError("--tls-cert and --tls-key go together");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  all_cpus_ = runtime::usable_cpus();
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  hostname_ = host;
  builder_ = std::make_unique<tuner::LocalBuilder>(opts.build_threads > 0 ? opts.build_threads : cores, opts.build_lock,
                                                   opts.build_cache_mb << 20, [this] { return build_placement(); });
  BuildPoolOptions pool;
  pool.cache_bytes = opts.build_cache_mb << 20;
  pool.build_here_too = opts.build_here_too;
  build_pool_ = std::make_unique<BuildPool>(*builder_, pool);
  jobs_ = std::make_unique<JobManager>(opts.db_path, dispatcher_, *build_pool_, opts.max_jobs_per_client);
  tuning_ = std::make_unique<TuningService>(*jobs_, dispatcher_, auth_, opts.db_path);
  boards_ = std::make_unique<BoardService>(dispatcher_, auth_, opts.db_path, opts.heartbeat_interval_ms);
  builders_ = std::make_unique<BuilderService>(*build_pool_, auth_, opts.heartbeat_interval_ms);

  std::shared_ptr<grpc::ServerCredentials> creds;
  std::string key, cert;
  if (opts.tls_cert.empty()) {
    creds = grpc::InsecureServerCredentials();
  } else {
    grpc::SslServerCredentialsOptions ssl;
    key = read_file(opts.tls_key);
    cert = read_file(opts.tls_cert);
    check_pem("--tls-cert", opts.tls_cert, cert, false);
    check_pem("--tls-key", opts.tls_key, key, true);
    ssl.pem_key_cert_pairs.push_back({key, cert});
    creds = grpc::SslServerCredentials(ssl);
  }
  grpc::ServerBuilder builder;
  // gRPC lets a second server share a port by default (SO_REUSEPORT): a second tracker would
  // silently take half the boards and clients. One port, one tracker.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddListeningPort(opts.listen, creds, &port_);
  // Larger requests are refused by gRPC with RESOURCE_EXHAUSTED before they are read into memory.
  builder.SetMaxReceiveMessageSize(opts.max_message_mb << 20);
  builder.SetMaxSendMessageSize(opts.max_message_mb << 20);
  builder.RegisterService(tuning_.get());
  builder.RegisterService(boards_.get());
  builder.RegisterService(builders_.get());
  server_ = builder.BuildAndStart();
  if (!server_ || port_ == 0) {
    throw std::runtime_error("cannot listen on " + opts.listen + " (in use, or not an address here" +
                             (opts.tls_cert.empty() ? ")" : "; or --tls-key is not the key of --tls-cert)"));
  }
  if (!opts.http_listen.empty()) {
    dashboard_ =
        std::make_unique<http::Dashboard>(auth_, dispatcher_, *jobs_, *build_pool_, opts.db_path, !cert.empty());
    http_ = std::make_unique<http::Server>(opts.http_listen, cert, key,
                                           [this](const http::Request& r) { return dashboard_->handle(r); });
  }
  resumed_ = jobs_->resume_unfinished();
  maintenance_ = std::thread([this] {
    while (!stopping_) {
      dispatcher_.disconnect_silent_boards(std::chrono::milliseconds(opts_.heartbeat_timeout_ms));
      build_pool_->disconnect_silent_builders(std::chrono::milliseconds(opts_.heartbeat_timeout_ms));
      build_pool_->reassign_overdue_builds();
      for (const std::string& line : dispatcher_.drop_boards_with_overdue_items())
        std::fprintf(stderr, "tracker: %s\n", line.c_str());
      jobs_->tick();
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  });
}

Tracker::~Tracker() { shutdown(); }

// A build on a CPU where a board on this host times kernels would slow them down. Builds run on
// the CPUs the local boards leave free; when they leave none (or one is not pinned), builds hold
// the timing lock shared instead, so that they wait for a timing to end and a timing for them.
tuner::LocalBuilder::Placement Tracker::build_placement() {
  const Dispatcher::HostCpuUse use = dispatcher_.cpu_use_on(hostname_);
  tuner::LocalBuilder::Placement p;
  std::vector<int> free;
  if (!use.unpinned) {
    for (int c : all_cpus_) {
      if (!use.pinned.count(c)) free.push_back(c);
    }
  }
  if (use.boards > 0 && !free.empty()) {
    p.cpus = free;
    p.hold_timing_lock = false;
  } else {
    p.hold_timing_lock = use.boards > 0;
  }
  std::string now = p.hold_timing_lock ? "builds take turns with local boards' timings (timing lock held shared)"
                    : p.cpus.empty()
                        ? "builds run on any CPU (no board on this host)"
                        : "builds run on CPUs the local boards leave free: " + runtime::cpu_list_text(p.cpus);
  std::lock_guard<std::mutex> lock(placement_mu_);
  if (now != last_placement_) {
    std::fprintf(stderr, "tracker: %s\n", now.c_str());
    last_placement_ = now;
  }
  return p;
}

std::string Tracker::auth_summary() const {
  std::string s = auth_.enabled() ? "bearer tokens from " + opts_.token_file
                                  : "no --token-file: every caller is trusted, so the tracker listens on loopback only";
  s += opts_.tls_cert.empty() ? "; plaintext" : "; TLS";
  return s;
}

std::string Tracker::dashboard_url() const {
  if (!http_) return "";
  std::string host = opts_.http_listen.substr(0, opts_.http_listen.rfind(':'));
  if (host == "0.0.0.0" || host == "[::]") host = hostname_;
  return std::string(http_->tls() ? "https" : "http") + "://" + host + ":" + std::to_string(http_->port()) + "/";
}

void Tracker::wait() {
  if (server_) server_->Wait();
}

void Tracker::shutdown() {
  if (stopping_.exchange(true)) return;
  if (maintenance_.joinable()) maintenance_.join();
  jobs_->shutdown();
  if (http_) http_->shutdown();
  // Streams of boards and watchers end now rather than after their next message.
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

}  // namespace tf::tracker

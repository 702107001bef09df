// Requests the tracker must refuse with a clear error and survive: invalid job specs, unknown and
// oversized fields, missing, unknown and wrong-role tokens, boards that break the protocol, and bytes
// that are not the protocol at all on its gRPC and HTTP ports.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <random>

#include "bench/soak/clients.h"

namespace tf::soak {

namespace {

using Code = grpc::StatusCode;

// The answers that tell the caller what is wrong. UNKNOWN, INTERNAL, UNAVAILABLE or a deadline are
// not: they are what a crash, a hang or an unhandled exception look like from outside.
bool clear_refusal(const grpc::Status& s) {
  switch (s.error_code()) {
    case Code::INVALID_ARGUMENT:
    case Code::NOT_FOUND:
    case Code::PERMISSION_DENIED:
    case Code::UNAUTHENTICATED:
    case Code::FAILED_PRECONDITION:
    case Code::RESOURCE_EXHAUSTED:
    case Code::OUT_OF_RANGE: return !s.error_message().empty();
    default: return false;
  }
}

// Printable garbage: a string field of a request must be UTF-8, or the client's own library refuses
// to send it.
std::string random_text(uint64_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  std::string out(n, ' ');
  for (char& c : out) c = static_cast<char>(' ' + rng() % 95);
  return out;
}

std::string random_bytes(uint64_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(rng() & 0xff);
  return out;
}

// Sends `bytes` to 127.0.0.1:port and reads what comes back until the peer closes or `wait`
// passes. Empty when nothing came (or the connection was refused).
std::string exchange(int port, const std::string& bytes, std::chrono::milliseconds wait) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string reply;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    for (size_t sent = 0; sent < bytes.size();) {
      const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;  // the server may close on the first bad byte
      sent += static_cast<size_t>(n);
    }
    const auto end = std::chrono::steady_clock::now() + wait;
    char buf[4096];
    while (std::chrono::steady_clock::now() < end) {
      pollfd p{fd, POLLIN, 0};
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
      if (::poll(&p, 1, static_cast<int>(std::max<int64_t>(1, left.count()))) <= 0) break;
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      reply.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return reply;
}

// The status code of an HTTP reply ("HTTP/1.1 401 ..." -> 401), 0 when there is none.
int http_status(const std::string& reply) {
  if (reply.rfind("HTTP/1.", 0) != 0 || reply.size() < 12) return 0;
  return std::atoi(reply.c_str() + 9);
}

std::string http_request(const std::string& method, const std::string& target, const std::string& extra_headers) {
  return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + extra_headers + "\r\n";
}

}  // namespace

void SoakClient::refused(const std::string& kind, const grpc::Status& s) {
  ++tally_.malformed[kind];
  ++tally_.malformed_sent;
  if (clear_refusal(s)) {
    ++tally_.malformed_clear;
  } else {
    tally_.unclear.push_back(kind + ": " + (s.ok() ? std::string("accepted") : describe(s)));
  }
}

void SoakClient::tracker_still_answers(const std::string& after) {
  v1::ListDevicesResponse r;
  answered("ListDevices after " + after,
           with_retry([&](grpc::ClientContext* c) { return stub_->ListDevices(c, v1::ListDevicesRequest(), &r); },
                      fleet_.client_token()));
}

void SoakClient::malformed(uint64_t pick) {
  const uint64_t variant = pick % 17;
  if (variant >= 14) return malformed_board(variant);
  v1::SubmitJobRequest req;
  *req.mutable_spec() = valid_job(fleet_.options(), pick >> 8);
  std::string token = fleet_.client_token(), kind;
  switch (variant) {
    case 0:
      kind = "spec missing";
      req.clear_spec();
      break;
    case 1:
      kind = "unknown op";
      req.mutable_spec()->mutable_workloads(0)->set_op("densse");
      break;
    case 2:
      kind = "shape with a zero";
      req.mutable_spec()->mutable_workloads(0)->set_shape(0, 0);
      break;
    case 3:
      kind = "unknown key";
      req.mutable_spec()->set_device_key("no-board-ever-had-this-key");
      break;
    case 4:
      kind = "negative trials";
      req.mutable_spec()->set_trials(-5);
      break;
    case 5:
      kind = "time limit of ten years";
      req.mutable_spec()->mutable_measure()->set_timeout_s(3.2e8);
      break;
    case 6:
      kind = "oversized op name (1 MB)";
      req.mutable_spec()->mutable_workloads(0)->set_op(std::string(1 << 20, 'd'));
      break;
    case 7:
      kind = "job file with an unknown field";
      req.set_spec_json(R"({"workloads": [{"op": "dense", "shape": [16, 16, 16]}], "key": ")" +
                        fleet_.options().real_key + R"(", "trails": 5})");
      break;
    case 8:
      kind = "job file that is not JSON";
      req.set_spec_json(R"({"workloads": [{"op": "dense", "shape": [16, 16)" + random_text(pick, 64));
      break;
    case 9:
      kind = "oversized job file (8 MB)";
      req.set_spec_json(R"({"workloads": [")" + std::string(8 << 20, 'x') + "\"]}");
      break;
    case 10:
      kind = "no token";
      token.clear();
      break;
    case 11:
      kind = "unknown token";
      token = "tf_0123456789abcdef0123456789abcdef";
      break;
    case 12:
      kind = "board token submitting";
      token = fleet_.board_token();
      break;
    default: {
      // Another client's job is not this client's to cancel; a job that does not exist is not found.
      v1::CancelJobRequest cancel;
      cancel.set_job_id(jobs_.empty() ? int64_t{1} << 40 : jobs_.rbegin()->first);
      v1::Job out;
      auto ctx = context(fleet_.other_client_token());
      const grpc::Status s = with_retry([&](grpc::ClientContext* c) { return stub_->CancelJob(c, cancel, &out); },
                                        fleet_.other_client_token());
      refused("cancel of another client's job", s);
      if (!s.ok()) return;
      return track(out);
    }
  }
  v1::Job job;
  const grpc::Status s = with_retry([&](grpc::ClientContext* c) { return stub_->SubmitJob(c, req, &job); }, token);
  refused(kind, s);
  // A request wrongly taken is a job like any other: it must end too.
  if (s.ok()) track(job);
}

void SoakClient::malformed_board(uint64_t variant) {
  auto stub = v1::Boards::NewStub(channel_);
  v1::BoardMessage msg;
  std::string kind;
  if (variant == 14) {
    kind = "board connecting with a client token";
    msg.mutable_register_()->mutable_info()->set_device_key(fleet_.options().real_key);
  } else if (variant == 15) {
    kind = "board whose first message is a heartbeat";
    msg.mutable_heartbeat()->set_queued(3);
  } else {
    kind = "board registering an invalid key";
    auto* info = msg.mutable_register_()->mutable_info();
    info->set_device_key("not a key!");
    info->set_protocol_version(1);
    info->set_threads(1);
  }
  // A connection cut by a tracker killed meanwhile is asked again, as for every other request.
  const grpc::Status s = with_retry(
      [&](grpc::ClientContext* ctx) {
        auto stream = stub->Connect(ctx);
        stream->Write(msg);
        stream->WritesDone();
        v1::TrackerMessage reply;
        while (stream->Read(&reply)) {
        }
        return stream->Finish();
      },
      variant == 14 ? fleet_.client_token() : fleet_.board_token());
  refused(kind, s);
}

void SoakClient::garbage_grpc(uint64_t pick) {
  static const std::string kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  std::string bytes;
  switch (pick % 3) {
    case 0: bytes = random_bytes(pick, 4096); break;
    // A valid preface, then a frame header claiming 16 MB of a frame type that does not exist.
    case 1: bytes = kPreface + std::string("\xff\xff\xff\x7f\x00\x00\x00\x00\x01", 9) + random_bytes(pick, 512); break;
    default: bytes = http_request("GET", "/tunefarm.v1.Tuning/ListJobs", ""); break;
  }
  exchange(fleet_.grpc_port(), bytes, std::chrono::milliseconds(2000));
  ++tally_.faults["garbage on the gRPC port"];
  tracker_still_answers("garbage on the gRPC port");
}

void SoakClient::garbage_http(uint64_t pick) {
  struct Probe {
    std::string kind, bytes;
    int expect;  // 0: any 4xx, or a closed connection
  };
  const std::string bearer = "Authorization: Bearer ";
  const Probe probes[] = {
      {"http: random bytes", random_bytes(pick, 2048), 0},
      {"http: no token", http_request("GET", "/api/jobs", ""), 401},
      {"http: unknown token", http_request("GET", "/api/jobs", bearer + "tf_0123456789abcdef0123456789abcdef\r\n"),
       401},
      {"http: board token", http_request("GET", "/metrics", bearer + fleet_.board_token() + "\r\n"), 403},
      {"http: 5 MB body",
       http_request("POST", "/api/jobs/1/cancel", bearer + fleet_.client_token() + "\r\nContent-Length: 5000000\r\n") +
           std::string(1 << 20, 'x'),
       0},
      {"http: 100 KB header", http_request("GET", "/api/jobs", "X-Filler: " + std::string(100 << 10, 'y') + "\r\n"), 0},
  };
  const Probe& p = probes[pick % (sizeof probes / sizeof probes[0])];
  const std::string reply = exchange(fleet_.http_port(), p.bytes, std::chrono::milliseconds(3000));
  const int status = http_status(reply);
  ++tally_.malformed[p.kind];
  ++tally_.malformed_sent;
  const bool clear = p.expect ? status == p.expect : (reply.empty() || (status >= 400 && status < 500));
  if (clear) {
    ++tally_.malformed_clear;
  } else {
    tally_.unclear.push_back(p.kind + ": answered " + (reply.empty() ? "nothing" : reply.substr(0, reply.find('\r'))));
  }
  // A well-formed request on the same port is answered.
  const std::string ok =
      exchange(fleet_.http_port(), http_request("GET", "/api/jobs", bearer + fleet_.client_token() + "\r\n"),
               std::chrono::milliseconds(5000));
  ++tally_.well_formed;
  if (http_status(ok) == 200) {
    ++tally_.well_formed_answered;
  } else {
    tally_.unanswered.push_back("GET /api/jobs after " + p.kind + ": " +
                                (ok.empty() ? "no answer" : ok.substr(0, ok.find('\r'))));
  }
  ++tally_.faults["garbage on the HTTP port"];
}

}  // namespace tf::soak

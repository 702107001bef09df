// A small HTTP/1.1 server (Boost.Beast, asynchronous) for the tracker's dashboard and /metrics, with
// TLS when the tracker serves TLS. A few threads do all network work; handlers run on a small pool
// of their own, so a slow one (a SQLite read) never holds up accepting or reading. Every phase of a
// connection has a deadline, and connections are capped per client address and in all, idle ones
// making room for new ones (connection_registry.h). The handler never sees a malformed request
// (400), a header over 16 KiB (431) or a body over a megabyte (413).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tf::tracker::http {

struct Request {
  std::string method;                          // GET, POST, ...
  std::string path;                            // "/jobs/3", percent-decoded
  std::map<std::string, std::string> query;    // ?a=b&c=d, percent-decoded
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
  std::string header(const std::string& lower_name) const;
};

struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // e.g. Set-Cookie, Location
};

using Handler = std::function<Response(const Request&)>;

// How long a client may take and how much it may hold. The defaults are the tracker's; tests
// shorten them.
struct Limits {
  // A new connection's TLS handshake and first request header, from the accept; a later request's
  // header, from its first byte.
  std::chrono::milliseconds header_timeout{std::chrono::seconds(10)};
  std::chrono::milliseconds body_timeout{std::chrono::seconds(30)};  // from the end of the header
  // Between an answer and the first byte of the next request on a kept-alive connection.
  std::chrono::milliseconds idle_timeout{std::chrono::seconds(30)};
  std::chrono::milliseconds write_timeout{std::chrono::seconds(30)};  // an answer the client does not read
  int max_connections = 256;
  int max_connections_per_address = 64;
  int handler_threads = 4;
};

class Server {
 public:
  // `listen`: HOST:PORT (port 0: any free one). With a certificate chain and key (PEM text), TLS.
  // Throws std::runtime_error naming the address when it cannot listen.
  Server(const std::string& listen, const std::string& tls_cert_pem, const std::string& tls_key_pem, Handler handler,
         Limits limits = Limits{});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  int port() const { return port_; }
  bool tls() const { return tls_; }
  // Stops accepting, closes every connection and waits for the handlers under way and the threads.
  void shutdown();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
  bool tls_ = false;
};

// "a%20b+c" -> "a b c" (a '+' is a space in a query or form).
std::string url_decode(const std::string& s);
// "a=1&b=x%20y" -> {a: 1, b: "x y"}: a query string or a form body.
std::map<std::string, std::string> parse_form(const std::string& s);

}  // namespace tf::tracker::http

// A small HTTP/1.1 server (Boost.Beast) for the tracker's dashboard and /metrics: one thread
// accepts, each connection is served on a thread of its own, at most a fixed number at once, with
// TLS when the tracker serves TLS. Requests go to one handler; it never sees a malformed request
// (those get 400) or a body larger than a megabyte (413).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace tf::tracker::http {

struct Request {
  std::string method;                         // GET, POST, ...
  std::string path;                           // "/jobs/3", percent-decoded
  std::map<std::string, std::string> query;   // ?a=b&c=d, percent-decoded
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

class Server {
 public:
  // `listen`: HOST:PORT (port 0: any free one). With a certificate chain and key (PEM text), TLS.
  // Throws std::runtime_error naming the address when it cannot listen.
  Server(const std::string& listen, const std::string& tls_cert_pem, const std::string& tls_key_pem, Handler handler);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  int port() const { return port_; }
  bool tls() const { return tls_; }
  void shutdown();  // stops accepting, closes every connection, waits for their threads

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

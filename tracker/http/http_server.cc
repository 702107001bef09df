#include "tracker/http/http_server.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <cctype>
#include <condition_variable>
#include <set>
#include <stdexcept>

namespace tf::tracker::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr int kMaxConnections = 64;
constexpr size_t kMaxBodyBytes = 1 << 20;
constexpr int kIdleSeconds = 30;  // a connection that sends nothing this long is closed

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

void set_idle_timeout(int fd) {
  timeval tv{kIdleSeconds, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

Request to_request(const bhttp::request<bhttp::string_body>& r) {
  Request out;
  out.method = std::string(r.method_string());
  const std::string target(r.target());
  const auto q = target.find('?');
  out.path = url_decode(target.substr(0, q));
  if (q != std::string::npos) out.query = parse_form(target.substr(q + 1));
  for (const auto& field : r) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.headers[name] = std::string(field.value());
  }
  out.body = r.body();
  return out;
}

bhttp::response<bhttp::string_body> to_beast(const Response& r, unsigned version, bool keep_alive) {
  bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(r.status), version};
  res.set(bhttp::field::server, "tunefarm-tracker");
  res.set(bhttp::field::content_type, r.content_type);
  res.set(bhttp::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  for (const auto& [name, value] : r.headers) res.insert(name, value);
  res.keep_alive(keep_alive);
  res.body() = r.body;
  res.prepare_payload();
  return res;
}

Response plain(int status, const std::string& text) {
  Response r;
  r.status = status;
  r.body = text + "\n";
  return r;
}

// Reads requests from `stream` and answers them until the client closes, goes quiet or errs.
template <typename Stream>
void serve(Stream& stream, const Handler& handler) {
  beast::flat_buffer buffer;
  for (;;) {
    bhttp::request_parser<bhttp::string_body> parser;
    parser.body_limit(kMaxBodyBytes);
    parser.header_limit(16 * 1024);
    beast::error_code ec;
    bhttp::read(stream, buffer, parser, ec);
    if (ec == bhttp::error::end_of_stream || ec == asio::error::eof) return;
    if (ec) {
      const bool too_big = ec == bhttp::error::body_limit || ec == bhttp::error::header_limit;
      if (ec != asio::error::would_block && ec != asio::error::timed_out && ec != asio::error::connection_reset) {
        auto res = to_beast(too_big ? plain(413, "request too large") : plain(400, "malformed HTTP request: " + ec.message()), 11, false);
        bhttp::write(stream, res, ec);
      }
      return;
    }
    const auto& req = parser.get();
    Response answer;
    try {
      answer = handler(to_request(req));
    } catch (const std::exception& e) {
      answer = plain(500, std::string("internal error: ") + e.what());
    }
    auto res = to_beast(answer, req.version(), req.keep_alive());
    bhttp::write(stream, res, ec);
    if (ec || !res.keep_alive()) return;
  }
}

}  // namespace

std::string Request::header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? "" : it->second;
}

std::string url_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::map<std::string, std::string> parse_form(const std::string& s) {
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find('&', start);
    if (end == std::string::npos) end = s.size();
    const std::string part = s.substr(start, end - start);
    if (!part.empty()) {
      const auto eq = part.find('=');
      out[url_decode(part.substr(0, eq))] = eq == std::string::npos ? "" : url_decode(part.substr(eq + 1));
    }
    start = end + 1;
  }
  return out;
}

struct Server::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::unique_ptr<asio::ssl::context> ssl;
  Handler handler;
  std::thread accept_thread;
  std::mutex mu;
  std::condition_variable idle;
  std::set<int> open_fds;  // connections being served, to cut them at shutdown
  int active = 0;
  bool stopping = false;

  void accept_loop() {
    for (;;) {
      beast::error_code ec;
      tcp::socket socket(io);
      acceptor.accept(socket, ec);
      if (ec) {
        std::lock_guard<std::mutex> lock(mu);
        if (stopping) return;
        continue;
      }
      const int fd = socket.native_handle();
      {
        std::lock_guard<std::mutex> lock(mu);
        if (stopping) return;
        if (active >= kMaxConnections) continue;  // the socket closes as it goes out of scope
        ++active;
        open_fds.insert(fd);
      }
      set_idle_timeout(fd);
      std::thread([this, s = std::move(socket), fd]() mutable {
        try {
          if (ssl) {
            asio::ssl::stream<tcp::socket> tls(std::move(s), *ssl);
            beast::error_code ec;
            tls.handshake(asio::ssl::stream_base::server, ec);
            if (!ec) serve(tls, handler);
            tls.shutdown(ec);
          } else {
            serve(s, handler);
          }
        } catch (const std::exception&) {
          // A connection's failure is the connection's alone.
        }
        std::lock_guard<std::mutex> lock(mu);
        open_fds.erase(fd);
        --active;
        idle.notify_all();
      }).detach();
    }
  }
};

Server::Server(const std::string& listen, const std::string& tls_cert_pem, const std::string& tls_key_pem, Handler handler)
    : impl_(std::make_unique<Impl>()) {
  impl_->handler = std::move(handler);
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("--http " + listen + ": expected HOST:PORT");
  std::string host = listen.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  int port = 0;
  try {
    port = std::stoi(listen.substr(colon + 1));
  } catch (const std::exception&) {
    throw std::runtime_error("--http " + listen + ": the port is not a number");
  }
  if (host == "localhost") host = "127.0.0.1";
  beast::error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  if (ec) throw std::runtime_error("--http " + listen + ": '" + host + "' is not an IP address");
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  impl_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(endpoint, ec);
  if (!ec) impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error("cannot serve HTTP on " + listen + ": " + ec.message());
  port_ = impl_->acceptor.local_endpoint().port();
  if (!tls_cert_pem.empty()) {
    impl_->ssl = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
    impl_->ssl->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 | asio::ssl::context::no_sslv3 |
                            asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
    impl_->ssl->use_certificate_chain(asio::buffer(tls_cert_pem), ec);
    if (!ec) impl_->ssl->use_private_key(asio::buffer(tls_key_pem), asio::ssl::context::pem, ec);
    if (ec) throw std::runtime_error("HTTP on " + listen + ": the TLS certificate or key cannot be used: " + ec.message());
    tls_ = true;
  }
  impl_->accept_thread = std::thread([this] { impl_->accept_loop(); });
}

Server::~Server() { shutdown(); }

void Server::shutdown() {
  if (!impl_) return;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->stopping) return;
    impl_->stopping = true;
    for (int fd : impl_->open_fds) ::shutdown(fd, SHUT_RDWR);
  }
  // Closing the listening socket from here would race the blocked accept; shutting it down
  // wakes accept with an error, which the loop reads as the end.
  ::shutdown(impl_->acceptor.native_handle(), SHUT_RDWR);
  if (impl_->accept_thread.joinable()) impl_->accept_thread.join();
  std::unique_lock<std::mutex> lock(impl_->mu);
  impl_->idle.wait(lock, [&] { return impl_->active == 0; });
}

}  // namespace tf::tracker::http

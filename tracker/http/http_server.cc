#include "tracker/http/http_server.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>

#include <algorithm>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "tracker/http/connection.h"
#include "tracker/http/connection_registry.h"

namespace tf::tracker::http {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

// Network work is light next to the handlers'; two threads keep a TLS handshake from stalling the rest.
constexpr int kNetworkThreads = 2;
// After a failed accept (out of file descriptors, say), the pause before the next try.
constexpr auto kAcceptRetry = std::chrono::milliseconds(100);

tcp::endpoint listen_endpoint(const std::string& listen) {
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
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  if (ec) throw std::runtime_error("--http " + listen + ": '" + host + "' is not an IP address");
  return tcp::endpoint(address, static_cast<unsigned short>(port));
}

std::unique_ptr<asio::ssl::context> tls_context(const std::string& listen, const std::string& cert_pem,
                                                const std::string& key_pem) {
  auto ssl = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
  ssl->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                   asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
  boost::system::error_code ec;
  ssl->use_certificate_chain(asio::buffer(cert_pem), ec);
  if (!ec) ssl->use_private_key(asio::buffer(key_pem), asio::ssl::context::pem, ec);
  if (ec)
    throw std::runtime_error("HTTP on " + listen + ": the TLS certificate or key cannot be used: " + ec.message());
  return ssl;
}

}  // namespace

// Members in the order they must be built; destroyed in reverse, so connections that the pool or
// the io_context still hold go before the registry and TLS context they use.
struct Server::Impl {
  Impl(const Limits& limits, Handler handler)
      : registry(std::max(1, limits.max_connections), std::max(1, limits.max_connections_per_address)),
        handlers(static_cast<size_t>(std::max(1, limits.handler_threads))) {
    context.limits = limits;
    context.handler = std::move(handler);
    context.registry = &registry;
    context.handlers = &handlers;
  }

  void accept() {
    acceptor.async_accept(asio::make_strand(io), [this](boost::system::error_code ec, tcp::socket socket) {
      if (!acceptor.is_open()) return;
      if (ec) {
        retry.expires_after(kAcceptRetry);
        retry.async_wait([this](boost::system::error_code wait_ec) {
          if (!wait_ec) accept();
        });
        return;
      }
      serve_connection(std::move(socket), context);
      accept();
    });
  }

  ConnectionRegistry registry;
  std::unique_ptr<asio::ssl::context> tls;
  ConnectionContext context;
  asio::io_context io;
  asio::thread_pool handlers;
  asio::strand<asio::io_context::executor_type> accept_strand{asio::make_strand(io)};
  tcp::acceptor acceptor{accept_strand};
  asio::steady_timer retry{accept_strand};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work{asio::make_work_guard(io)};
  std::vector<std::thread> threads;
  std::mutex mu;
  bool stopped = false;
};

Server::Server(const std::string& listen, const std::string& tls_cert_pem, const std::string& tls_key_pem,
               Handler handler, Limits limits)
    : impl_(std::make_unique<Impl>(limits, std::move(handler))) {
  const tcp::endpoint endpoint = listen_endpoint(listen);
  boost::system::error_code ec;
  impl_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(endpoint, ec);
  if (!ec) impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error("cannot serve HTTP on " + listen + ": " + ec.message());
  port_ = impl_->acceptor.local_endpoint().port();
  if (!tls_cert_pem.empty()) {
    impl_->tls = tls_context(listen, tls_cert_pem, tls_key_pem);
    impl_->context.tls = impl_->tls.get();
    tls_ = true;
  }
  impl_->accept();
  for (int i = 0; i < kNetworkThreads; ++i) impl_->threads.emplace_back([this] { impl_->io.run(); });
}

Server::~Server() { shutdown(); }

void Server::shutdown() {
  if (!impl_) return;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->stopped) return;
    impl_->stopped = true;
  }
  asio::post(impl_->accept_strand, [impl = impl_.get()] {
    boost::system::error_code ec;
    impl->acceptor.close(ec);
    impl->retry.cancel();
  });
  for (const auto& close : impl_->registry.stop()) close();
  // Handlers under way finish; their answers meet closed connections.
  impl_->handlers.join();
  impl_->work.reset();
  for (std::thread& t : impl_->threads) t.join();
}

}  // namespace tf::tracker::http

// One connection of the dashboard's server, served asynchronously on its own strand: TLS handshake,
// then requests one after another, each phase under a deadline (Limits); the handler runs on the
// server's handler pool and its answer is written back on the strand.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/thread_pool.hpp>

#include "tracker/http/connection_registry.h"
#include "tracker/http/http_server.h"

namespace tf::tracker::http {

// What every connection of one server shares; outlives them all.
struct ConnectionContext {
  Limits limits;
  Handler handler;
  ConnectionRegistry* registry = nullptr;
  boost::asio::thread_pool* handlers = nullptr;
  boost::asio::ssl::context* tls = nullptr;  // null: plaintext
};

// Serves `socket`, accepted on a strand of its own, until the client leaves, a deadline passes,
// the registry closes it to make room, or the server stops. Returns at once.
void serve_connection(boost::asio::ip::tcp::socket socket, const ConnectionContext& context);

}  // namespace tf::tracker::http

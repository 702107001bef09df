#include "tracker/http/connection.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <memory>
#include <optional>
#include <type_traits>

#include "tracker/http/http_message.h"

namespace tf::tracker::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

using PlainStream = beast::tcp_stream;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

constexpr size_t kFirstReadBytes = 4096;

// Errors that end a connection without an answer: the client left, a deadline passed, the server
// closed it. Everything else the parser reports is a malformed request.
bool is_quiet_end(const beast::error_code& ec) {
  static const auto& parser_errors = bhttp::make_error_code(bhttp::error::bad_method).category();
  return ec == bhttp::error::end_of_stream || ec == bhttp::error::partial_message || ec.category() != parser_errors;
}

template <class Stream>
class Connection : public std::enable_shared_from_this<Connection<Stream>> {
 public:
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

  Connection(const ConnectionContext& context, tcp::socket socket)
      : context_(context), stream_(make_stream(std::move(socket))) {}
  ~Connection() { context_.registry->remove(id_); }

  // Serves from now on as registry entry `id`; the first request's deadline runs from here.
  void start(uint64_t id) {
    id_ = id;
    asio::dispatch(stream_.get_executor(), [self = this->shared_from_this()] { self->begin(); });
  }

  // From any thread: ends the connection; whatever it waits for ends with operation_aborted.
  void close() {
    asio::post(stream_.get_executor(), [self = this->shared_from_this()] { self->lowest().close(); });
  }

 private:
  Stream make_stream(tcp::socket socket) {
    if constexpr (kTls) {
      return Stream(std::move(socket), *context_.tls);
    } else {
      return Stream(std::move(socket));
    }
  }
  beast::tcp_stream& lowest() { return beast::get_lowest_layer(stream_); }
  const Limits& limits() const { return context_.limits; }

  void begin() {
    lowest().expires_after(limits().header_timeout);
    if constexpr (kTls) {
      stream_.async_handshake(asio::ssl::stream_base::server, [self = this->shared_from_this()](beast::error_code ec) {
        if (!ec) self->read_header();
      });
    } else {
      read_header();
    }
  }

  // On a kept-alive connection: the next request's first byte within the idle deadline, then its
  // header within the header deadline.
  void await_next_request() {
    if (!context_.registry->waiting(id_)) return;
    if (buffer_.size() > 0) {  // pipelined: already here
      lowest().expires_after(limits().header_timeout);
      return read_header();
    }
    lowest().expires_after(limits().idle_timeout);
    stream_.async_read_some(buffer_.prepare(kFirstReadBytes),
                            [self = this->shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return;
                              self->buffer_.commit(n);
                              self->lowest().expires_after(self->limits().header_timeout);
                              self->read_header();
                            });
  }

  void read_header() {
    parser_.emplace();
    parser_->header_limit(kMaxHeaderBytes);
    parser_->body_limit(kMaxBodyBytes);
    bhttp::async_read_header(
        stream_, buffer_, *parser_, [self = this->shared_from_this()](beast::error_code ec, size_t) {
          if (ec) return self->refuse(ec);
          self->lowest().expires_after(self->limits().body_timeout);
          bhttp::async_read(self->stream_, self->buffer_, *self->parser_, [self](beast::error_code ec, size_t) {
            if (ec) return self->refuse(ec);
            self->answer();
          });
        });
  }

  void answer() {
    if (!context_.registry->busy(id_)) return;
    auto request = std::make_shared<BeastRequest>(parser_->release());
    asio::post(*context_.handlers, [self = this->shared_from_this(), request] {
      auto response = std::make_shared<BeastResponse>(
          to_beast(call_handler(self->context_.handler, *request), request->version(), request->keep_alive()));
      asio::post(self->stream_.get_executor(), [self, response] { self->write(response); });
    });
  }

  // A request that cannot be read gets the reason, when there is one to give, and the end.
  void refuse(const beast::error_code& ec) {
    if (is_quiet_end(ec)) return;
    if (!context_.registry->busy(id_)) return;
    const Response r = ec == bhttp::error::header_limit ? plain_response(431, "request header larger than 16 KiB")
                       : ec == bhttp::error::body_limit
                           ? plain_response(413, "request body larger than 1 MiB")
                           : plain_response(400, "malformed HTTP request: " + ec.message());
    write(std::make_shared<BeastResponse>(to_beast(r, 11, false)));
  }

  void write(std::shared_ptr<BeastResponse> response) {
    lowest().expires_after(limits().write_timeout);
    bhttp::async_write(stream_, *response, [self = this->shared_from_this(), response](beast::error_code ec, size_t) {
      if (ec) return;
      if (response->keep_alive()) return self->await_next_request();
      self->finish();
    });
  }

  // The end the protocol asks for: TLS's close_notify, or TCP's FIN before the socket closes, so
  // the client reads the last answer before the connection goes.
  void finish() {
    if constexpr (kTls) {
      // A client that never answers close_notify holds the connection until the deadline, but
      // like an idle one it makes room for a newcomer meanwhile.
      if (!context_.registry->waiting(id_)) return;
      lowest().expires_after(limits().write_timeout);
      stream_.async_shutdown([self = this->shared_from_this()](beast::error_code) { self->lowest().close(); });
    } else {
      beast::error_code ec;
      lowest().socket().shutdown(tcp::socket::shutdown_send, ec);
    }
  }

  const ConnectionContext& context_;
  Stream stream_;
  uint64_t id_ = 0;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
};

template <class Stream>
void admit(std::shared_ptr<Connection<Stream>> connection, const std::string& address,
           const ConnectionContext& context) {
  std::vector<ConnectionRegistry::Close> evicted;
  const uint64_t id = context.registry->admit(
      address,
      [weak = std::weak_ptr<Connection<Stream>>(connection)] {
        if (auto c = weak.lock()) c->close();
      },
      &evicted);
  for (const auto& close : evicted) close();
  if (id != 0) connection->start(id);
}

}  // namespace

void serve_connection(tcp::socket socket, const ConnectionContext& context) {
  beast::error_code ec;
  const tcp::endpoint peer = socket.remote_endpoint(ec);
  if (ec) return;
  const std::string address = peer.address().to_string();
  if (context.tls) {
    admit(std::make_shared<Connection<TlsStream>>(context, std::move(socket)), address, context);
  } else {
    admit(std::make_shared<Connection<PlainStream>>(context, std::move(socket)), address, context);
  }
}

}  // namespace tf::tracker::http

// The dashboard's HTTP server against a hostile client: deadlines for every phase of a connection,
// idle connections that make room instead of locking others out, handlers that do not hold up the
// network, and headers that cannot carry a line break onto the wire. Deadlines are short here.
#include <gtest/gtest.h>

#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "support/files.h"
#include "tests/fleet_harness.h"
#include "tests/raw_http_client.h"
#include "tracker/http/http_server.h"

namespace tf::http_test {
namespace {

using namespace std::chrono_literals;
using tracker::http::Limits;
using tracker::http::Request;
using tracker::http::Response;
using tracker::http::Server;

const std::string kGet = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

Limits short_limits() {
  Limits l;
  l.header_timeout = 400ms;
  l.body_timeout = 400ms;
  l.idle_timeout = 400ms;
  l.write_timeout = 400ms;
  return l;
}

Response hello(const Request& req) {
  Response r;
  r.body = "hello " + req.path + "\n";
  return r;
}

TEST(HttpServer, ASilentConnectionIsClosedAtTheHeaderDeadline) {
  Server server("127.0.0.1:0", "", "", hello, short_limits());
  RawConnection silent(server.port());
  const auto start = Clock::now();
  EXPECT_TRUE(silent.closed_by_server(5s));
  EXPECT_LT(Clock::now() - start, 3s);
}

TEST(HttpServer, ASlowlorisHeaderIsClosedAtItsDeadlineThoughBytesKeepComing) {
  Server server("127.0.0.1:0", "", "", hello, short_limits());
  RawConnection slow(server.port());
  const auto start = Clock::now();
  ASSERT_TRUE(slow.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  // A header line every 100 ms: never silent long, never done.
  bool closed = false;
  for (int i = 0; i < 50 && !closed; ++i) {
    closed = !slow.send("X-Slow-" + std::to_string(i) + ": 1\r\n") || slow.closed_by_server(100ms);
  }
  EXPECT_TRUE(closed) << "a header trickling in for 5 s was never cut";
  EXPECT_LT(Clock::now() - start, 3s);
}

TEST(HttpServer, ASlowBodyIsClosedAtItsDeadline) {
  Server server("127.0.0.1:0", "", "", hello, short_limits());
  RawConnection slow(server.port());
  ASSERT_TRUE(slow.send("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n"));
  bool closed = false;
  for (int i = 0; i < 50 && !closed; ++i) closed = !slow.send("x") || slow.closed_by_server(100ms);
  EXPECT_TRUE(closed) << "a body trickling in for 5 s was never cut";
}

TEST(HttpServer, AKeptAliveConnectionServesAgainThenClosesWhenIdle) {
  Server server("127.0.0.1:0", "", "", hello, short_limits());
  RawConnection c(server.port());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.send("GET /again HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    const std::string r = c.read_response(2s);
    EXPECT_EQ(status_of(r), 200) << r;
    EXPECT_NE(r.find("hello /again"), std::string::npos) << r;
    EXPECT_EQ(headers_named(r, "X-Frame-Options"), std::vector<std::string>{"DENY"})
        << "no page elsewhere frames the dashboard";
  }
  const auto start = Clock::now();
  EXPECT_TRUE(c.closed_by_server(5s));
  EXPECT_LT(Clock::now() - start, 3s);
}

TEST(HttpServer, IdleConnectionsFromTheSameAddressMakeRoomForARequest) {
  Limits limits;  // the tracker's deadlines: the idle sockets stay until made to leave
  limits.max_connections = 16;
  limits.max_connections_per_address = 4;
  Server server("127.0.0.1:0", "", "", hello, limits);
  std::vector<RawConnection> idle;
  for (int i = 0; i < 40; ++i) idle.emplace_back(server.port());
  RawConnection c(server.port());
  const auto start = Clock::now();
  ASSERT_TRUE(c.send(kGet));
  EXPECT_EQ(status_of(c.read_response(2s)), 200);
  EXPECT_LT(Clock::now() - start, 1s);
  // The oldest made room; the newest idle ones are still served.
  EXPECT_TRUE(idle.front().closed_by_server(2s));
  EXPECT_FALSE(idle.back().closed_by_server(200ms));
}

TEST(HttpServer, IdleConnectionsFromOtherAddressesMakeRoomForARequest) {
  Limits limits;
  limits.max_connections = 8;
  limits.max_connections_per_address = 4;
  Server server("127.0.0.1:0", "", "", hello, limits);
  std::vector<RawConnection> idle;
  for (const std::string from : {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"}) {
    for (int i = 0; i < 4; ++i) idle.emplace_back(server.port(), from);
  }
  RawConnection c(server.port(), "127.0.0.6");
  ASSERT_TRUE(c.send(kGet));
  EXPECT_EQ(status_of(c.read_response(2s)), 200);
  EXPECT_TRUE(idle.front().closed_by_server(2s)) << "the server holds at most 8 connections; the oldest made room";
  EXPECT_FALSE(idle.back().closed_by_server(200ms));
}

TEST(HttpServer, AConnectionWithARequestUnderWayIsNotClosedToMakeRoom) {
  Limits limits;
  limits.max_connections_per_address = 2;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> slow_started{false};
  Server server(
      "127.0.0.1:0", "", "",
      [&](const Request& req) {
        if (req.path == "/slow") {
          slow_started = true;
          released.wait();
        }
        return hello(req);
      },
      limits);
  RawConnection busy(server.port());
  ASSERT_TRUE(busy.send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  ASSERT_TRUE(wait_until([&] { return slow_started.load(); }, 5s));
  std::vector<RawConnection> idle;
  for (int i = 0; i < 5; ++i) idle.emplace_back(server.port());
  // The handler blocked on /slow holds one of the pool's threads, not the server.
  RawConnection other(server.port());
  ASSERT_TRUE(other.send(kGet));
  EXPECT_EQ(status_of(other.read_response(2s)), 200);
  release.set_value();
  const std::string slow = busy.read_response(2s);
  EXPECT_EQ(status_of(slow), 200) << slow;
  EXPECT_NE(slow.find("hello /slow"), std::string::npos);
}

// A TLS client that trusts any certificate: the server's TLS, not its certificate, is under test.
class TlsClient {
 public:
  explicit TlsClient(int port) {
    ssl_.set_verify_mode(boost::asio::ssl::verify_none);
    boost::beast::get_lowest_layer(stream_).connect(
        {boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)});
    stream_.handshake(boost::asio::ssl::stream_base::client);
  }
  // GET `path` asking the server to close the connection after the answer; the status.
  int get_and_close(const std::string& path) {
    namespace bhttp = boost::beast::http;
    bhttp::request<bhttp::empty_body> req{bhttp::verb::get, path, 11};
    req.set(bhttp::field::host, "127.0.0.1");
    req.keep_alive(false);
    bhttp::write(stream_, req);
    boost::beast::flat_buffer buffer;
    bhttp::response<bhttp::string_body> res;
    bhttp::read(stream_, buffer, res);
    return static_cast<int>(res.result_int());
  }

 private:
  boost::asio::io_context io_;
  boost::asio::ssl::context ssl_{boost::asio::ssl::context::tls_client};
  boost::beast::ssl_stream<boost::beast::tcp_stream> stream_{io_, ssl_};
};

std::string file_text(const std::string& path) { return try_read_file(path).value_or(""); }

TEST(HttpServer, TlsClientsThatNeverFinishClosingMakeRoomForARequest) {
  const std::string dir = "/tmp/tf-http-server-tls-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::string cert, key;
  ASSERT_NO_FATAL_FAILURE(fleet_test::make_throwaway_certificate(dir, &cert, &key));
  Limits limits;
  limits.max_connections_per_address = 2;
  limits.header_timeout = 1s;
  Server server("127.0.0.1:0", file_text(cert), file_text(key), hello, limits);
  ASSERT_TRUE(server.tls());
  // Each is answered, then holds the connection: the server's close_notify is never answered.
  std::vector<std::unique_ptr<TlsClient>> lingering;
  for (int i = 0; i < 2; ++i) {
    lingering.push_back(std::make_unique<TlsClient>(server.port()));
    EXPECT_EQ(lingering.back()->get_and_close("/"), 200);
  }
  int status = 0;
  try {
    status = TlsClient(server.port()).get_and_close("/after");
  } catch (const std::exception& e) {
    ADD_FAILURE() << "a third TLS client was turned away: " << e.what();
  }
  EXPECT_EQ(status, 200);
  RawConnection silent(server.port());
  EXPECT_TRUE(silent.closed_by_server(5s)) << "no TLS handshake, no header: closed at the header deadline";
  std::filesystem::remove_all(dir);
}

TEST(HttpServer, AHeaderWithALineBreakOrAnInvalidNameIsNeverSent) {
  Server server("127.0.0.1:0", "", "", [](const Request& req) {
    Response r;
    if (req.path == "/value") r.headers.push_back({"Location", "/\r\nSet-Cookie: injected=1"});
    if (req.path == "/name") r.headers.push_back({"X-A\r\nSet-Cookie: injected", "1"});
    if (req.path == "/type") r.content_type = "text/html\nSet-Cookie: injected=1";
    if (req.path == "/nul") r.headers.push_back({"X-A", std::string("a\0b", 3)});
    return r;
  });
  for (const std::string path : {"/value", "/name", "/type", "/nul"}) {
    RawConnection c(server.port());
    ASSERT_TRUE(c.send("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"));
    const std::string r = c.read_until_close(2s);
    EXPECT_EQ(status_of(r), 500) << path << ": " << r;
    EXPECT_EQ(r.find("injected=1\r\n"), std::string::npos) << path << ": " << r;
    EXPECT_TRUE(headers_named(r, "Set-Cookie").empty()) << path << ": " << r;
  }
  RawConnection c(server.port());
  ASSERT_TRUE(c.send("GET /value HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"));
  EXPECT_NE(c.read_until_close(2s).find("header Location holds a control character"), std::string::npos)
      << "the 500 names the header";
}

TEST(HttpServer, MalformedAndOversizedRequestsAreRefusedBeforeTheHandler) {
  std::atomic<int> calls{0};
  Server server("127.0.0.1:0", "", "", [&](const Request& req) {
    ++calls;
    return hello(req);
  });
  const auto answer = [&](const std::string& request) {
    RawConnection c(server.port());
    c.send(request);
    return status_of(c.read_until_close(5s));
  };
  EXPECT_EQ(answer("GET / HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n"), 400);
  EXPECT_EQ(answer("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(20 * 1024, 'a') + "\r\n\r\n"), 431);
  EXPECT_EQ(answer("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + std::to_string(2 << 20) + "\r\n\r\n" +
                   std::string(4096, 'a')),
            413);
  EXPECT_EQ(calls.load(), 0);
}

TEST(HttpServer, ShutdownClosesEveryConnectionAndWaitsForHandlersUnderWay) {
  std::atomic<bool> handler_done{false};
  std::atomic<bool> slow_started{false};
  auto server = std::make_unique<Server>("127.0.0.1:0", "", "", [&](const Request& req) {
    slow_started = true;
    std::this_thread::sleep_for(300ms);
    handler_done = true;
    return hello(req);
  });
  RawConnection idle(server->port());
  RawConnection busy(server->port());
  ASSERT_TRUE(busy.send(kGet));
  ASSERT_TRUE(wait_until([&] { return slow_started.load(); }, 5s));
  server->shutdown();
  EXPECT_TRUE(handler_done.load()) << "shutdown returned while a handler was under way";
  EXPECT_TRUE(idle.closed_by_server(1s));
  EXPECT_TRUE(busy.closed_by_server(1s));
  server.reset();
}

}  // namespace
}  // namespace tf::http_test

// Headless Chromium driven over the DevTools protocol, for tests that need a browser to act: open
// pages in tabs of one browser (one cookie jar), run script in them, click. Debian's Chromium,
// installed by scripts/setup.sh; a fresh profile in the test's directory.
#pragma once

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

#include <chrono>
#include <memory>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>

#include "support/json.h"
#include "support/subprocess.h"

namespace tf::browser_test {

class HeadlessChromium {
 public:
  explicit HeadlessChromium(const std::string& dir)
      : process_(std::make_unique<Subprocess>(
            std::vector<std::string>{"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
                                     "--disable-quic", "--no-first-run", "--disable-background-networking",
                                     "--disable-component-update", "--disable-sync", "--remote-debugging-port=0",
                                     "--user-data-dir=" + dir + "/chromium-devtools-profile", "about:blank"},
            dir + "/chromium-devtools.log")) {
    static const std::regex listening(R"(DevTools listening on ws://([0-9.]+):([0-9]+)(/devtools/browser/[-0-9a-f]+))");
    std::smatch m;
    std::string output;
    poll_until(
        [&] {
          output = process_->output();
          return std::regex_search(output, m, listening);
        },
        std::chrono::seconds(60));
    if (m.empty()) throw std::runtime_error("chromium did not open its DevTools port:\n" + output);
    const std::string host = m[1], port = m[2], path = m[3];
    boost::asio::ip::tcp::resolver resolver(io_);
    boost::asio::connect(ws_.next_layer(), resolver.resolve(host, port));
    ws_.handshake(host + ":" + port, path);
    ws_.text(true);
  }
  ~HeadlessChromium() {
    try {
      call("Browser.close", Json::object());
    } catch (const std::exception&) {
      // Killed below if it does not end by itself.
    }
    process_->wait_exit(std::chrono::seconds(20));
  }

  // A new tab opening `url`; its DevTools session.
  std::string open(const std::string& url) {
    const Json target = call("Target.createTarget", {{"url", url}});
    return call("Target.attachToTarget", {{"targetId", target.at("targetId")}, {"flatten", true}}).at("sessionId");
  }

  // The value of `expression` in tab `session`, a promise awaited. Tries again while the page is
  // between documents (its script context gone), for up to `timeout`.
  Json evaluate(const std::string& session, const std::string& expression,
                std::chrono::seconds timeout = std::chrono::seconds(60)) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    std::string last_error;
    while (std::chrono::steady_clock::now() < end) {
      try {
        const Json r = call("Runtime.evaluate",
                            {{"expression", expression}, {"awaitPromise", true}, {"returnByValue", true}}, session);
        if (!r.contains("exceptionDetails"))
          return r.at("result").contains("value") ? r.at("result").at("value") : Json();
        last_error = r.at("exceptionDetails").dump();
      } catch (const std::runtime_error& e) {
        last_error = e.what();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    throw std::runtime_error("evaluating `" + expression + "` failed until the deadline: " + last_error);
  }

  // Waits until boolean `condition` holds in tab `session`; false when `timeout` passes first.
  bool wait_until(const std::string& session, const std::string& condition,
                  std::chrono::seconds timeout = std::chrono::seconds(60)) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < end) {
      try {
        if (evaluate(session, "Boolean(" + condition + ")", std::chrono::seconds(5)) == true) return true;
      } catch (const std::runtime_error&) {
        // Between documents; asked again.
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  std::string log() const { return process_->output(); }

 private:
  // One DevTools command and its result; throws with the protocol's error.
  Json call(const std::string& method, const Json& params, const std::string& session = "") {
    const int id = ++last_id_;
    Json message = {{"id", id}, {"method", method}, {"params", params}};
    if (!session.empty()) message["sessionId"] = session;
    ws_.write(boost::asio::buffer(message.dump()));
    for (;;) {
      boost::beast::flat_buffer buffer;
      ws_.read(buffer);
      const Json reply = Json::parse(boost::beast::buffers_to_string(buffer.data()));
      if (!reply.contains("id") || reply.at("id") != id) continue;  // an event, or another command's
      if (reply.contains("error")) throw std::runtime_error(method + ": " + reply.at("error").dump());
      return reply.at("result");
    }
  }

  std::unique_ptr<Subprocess> process_;
  boost::asio::io_context io_;
  boost::beast::websocket::stream<boost::asio::ip::tcp::socket> ws_{io_};
  int last_id_ = 0;
};

}  // namespace tf::browser_test

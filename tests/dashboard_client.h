// An HTTP client for the dashboard's tests: one request on a fresh connection, as a browser or a
// script would send it (Host 127.0.0.1:PORT unless the headers say otherwise).
#pragma once

#include <gtest/gtest.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <cmath>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace tf::fleet_test {

namespace bhttp = boost::beast::http;

struct Reply {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

inline Reply request(int port, bhttp::verb verb, const std::string& target,
                     const std::vector<std::pair<std::string, std::string>>& headers = {},
                     const std::string& body = "") {
  boost::asio::io_context io;
  boost::asio::ip::tcp::resolver resolver(io);
  boost::beast::tcp_stream stream(io);
  stream.connect(resolver.resolve("127.0.0.1", std::to_string(port)));
  bhttp::request<bhttp::string_body> req{verb, target, 11};
  req.set(bhttp::field::host, "127.0.0.1:" + std::to_string(port));
  for (const auto& [name, value] : headers) req.set(name, value);
  req.body() = body;
  req.prepare_payload();
  bhttp::write(stream, req);
  boost::beast::flat_buffer buffer;
  bhttp::response<bhttp::string_body> res;
  bhttp::read(stream, buffer, res);
  Reply out;
  out.status = static_cast<int>(res.result_int());
  out.body = res.body();
  for (const auto& f : res) out.headers[std::string(f.name_string())] = std::string(f.value());
  return out;
}

inline Reply get(int port, const std::string& target, const std::string& token = "") {
  if (token.empty()) return request(port, bhttp::verb::get, target);
  return request(port, bhttp::verb::get, target, {{"Authorization", "Bearer " + token}});
}

// "tf_... client alice" -> "tf_...": the token of a token-file line.

// "tf_session=...; Path=/; HttpOnly" -> "tf_session=...": what a browser sends back.
inline std::string cookie_of(const Reply& login) {
  const std::string set = login.header("Set-Cookie");
  return set.substr(0, set.find(';'));
}

// Every sample line of a Prometheus text exposition, "name{labels}" -> value; a line that is not a
// comment, a blank or a well-formed sample fails the test.
inline std::map<std::string, double> parse_exposition(const std::string& text) {
  static const std::regex sample(
      R"(^([a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})?) (\S+)$)");
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::smatch m;
    if (!std::regex_match(line, m, sample)) {
      ADD_FAILURE() << "not a Prometheus sample line: " << line;
      continue;
    }
    const std::string v = m[5];
    out[m[1]] = v == "+Inf" ? INFINITY : std::stod(v);
  }
  return out;
}

}  // namespace tf::fleet_test

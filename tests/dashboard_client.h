// An HTTP client for the dashboard's tests: one request on a fresh connection, as a browser or a
// script would send it (Host 127.0.0.1:PORT unless the headers say otherwise).
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <map>
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
inline std::string token_of(const std::string& line) { return line.substr(0, line.find(' ')); }

// "tf_session=...; Path=/; HttpOnly" -> "tf_session=...": what a browser sends back.
inline std::string cookie_of(const Reply& login) {
  const std::string set = login.header("Set-Cookie");
  return set.substr(0, set.find(';'));
}

}  // namespace tf::fleet_test

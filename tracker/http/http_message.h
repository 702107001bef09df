// The dashboard server's conversions between Beast's messages and the handler's Request and
// Response. Internal to tracker/http/: the handler never sees Beast.
#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <cstddef>
#include <string>

#include "tracker/http/http_server.h"

namespace tf::tracker::http {

// What the server reads of a request at most: larger ones are answered 431 or 413, unread.
constexpr size_t kMaxHeaderBytes = 16 * 1024;
constexpr size_t kMaxBodyBytes = 1 << 20;

using BeastRequest = boost::beast::http::request<boost::beast::http::string_body>;
using BeastResponse = boost::beast::http::response<boost::beast::http::string_body>;

Request to_request(const BeastRequest& r);

// The response on the wire. A header whose name is not an HTTP token, or whose value (or the content
// type) holds CR, LF or another control character, would let whoever chose its text write headers or
// a whole response of their own; such a response becomes a 500 naming the header instead.
BeastResponse to_beast(const Response& r, unsigned version, bool keep_alive);

// A short text/plain response.
Response plain_response(int status, const std::string& text);

// The handler's answer; a 500 naming the exception when it throws.
Response call_handler(const Handler& handler, const BeastRequest& request);

}  // namespace tf::tracker::http

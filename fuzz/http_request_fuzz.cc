// An HTTP request as the dashboard's server reads it: Beast's parser with the server's limits
// (tracker/http/http_message.h), then to_request (the path and query percent-decoded) and the body
// read as the login page's form (parse_form, url_decode). Beast refuses with an error code; nothing
// of ours may throw, and decoding never grows a text.
#include <boost/asio/buffer.hpp>
#include <boost/beast/http.hpp>

#include "fuzz/fuzz_check.h"
#include "tracker/http/http_message.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tf;
  namespace bhttp = boost::beast::http;
  bhttp::request_parser<bhttp::string_body> parser;
  parser.header_limit(tracker::http::kMaxHeaderBytes);
  parser.body_limit(tracker::http::kMaxBodyBytes);
  boost::beast::error_code ec;
  size_t used = 0;
  while (!ec && used < size && !parser.is_done()) {
    const size_t n = parser.put(boost::asio::buffer(data + used, size - used), ec);
    if (n == 0 && !ec) break;  // Beast wants more than the input holds
    used += n;
  }
  if (ec || !parser.is_done()) return 0;
  fuzz::expect_refusal_or_success<fuzz::NothingDocumented>([&] {
    const tracker::http::BeastRequest& beast = parser.get();
    const tracker::http::Request r = tracker::http::to_request(beast);
    if (r.path.size() > beast.target().size()) fuzz::finding("the decoded path is longer than the target");
    for (const auto& [key, value] : tracker::http::parse_form(r.body)) {
      if (key.size() + value.size() > r.body.size()) fuzz::finding("a decoded form field is longer than the body");
    }
    if (tracker::http::url_decode(r.body).size() > r.body.size()) fuzz::finding("url_decode grew the text");
  });
  return 0;
}

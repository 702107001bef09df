#include "tracker/http/http_message.h"

#include <cctype>
#include <optional>

#include "runtime/escape_bytes.h"

namespace tf::tracker::http {
namespace bhttp = boost::beast::http;
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && c != '\t') || u == 0x7f;
}

// RFC 9110's token: the characters a field name may have.
bool is_token(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool ok =
        std::isalnum(static_cast<unsigned char>(c)) || std::string("!#$%&'*+-.^_`|~").find(c) != std::string::npos;
    if (!ok) return false;
  }
  return true;
}

bool is_field_value(const std::string& s) {
  for (char c : s) {
    if (is_control(c)) return false;
  }
  return true;
}

// `s` with control characters shown as \xHH, so naming a bad header cannot itself break a line.
std::string printable(const std::string& s) {
  return runtime::escape_bytes(s, [](unsigned char c) { return c >= 0x20 && c != 0x7f; });
}

// Why the response cannot go on the wire as it is; nullopt when it can.
std::optional<std::string> unsendable_header(const Response& r) {
  if (!is_field_value(r.content_type)) return "Content-Type holds a control character";
  for (const auto& [name, value] : r.headers) {
    if (!is_token(name)) return "header name '" + printable(name) + "' is not an HTTP token";
    if (!is_field_value(value)) return "header " + name + " holds a control character (CR, LF or another) in its value";
  }
  return std::nullopt;
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

Request to_request(const BeastRequest& r) {
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

Response plain_response(int status, const std::string& text) {
  Response r;
  r.status = status;
  r.body = text + "\n";
  return r;
}

BeastResponse to_beast(const Response& r, unsigned version, bool keep_alive) {
  if (const auto refusal = unsendable_header(r)) {
    return to_beast(plain_response(500, "internal error: the dashboard refused its own response: " + *refusal), version,
                    keep_alive);
  }
  BeastResponse res{static_cast<bhttp::status>(r.status), version};
  res.set(bhttp::field::server, "tunefarm-tracker");
  res.set(bhttp::field::content_type, r.content_type);
  res.set(bhttp::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  // Framed in a page elsewhere, the dashboard's own buttons could be clicked for that page.
  res.set("Content-Security-Policy", "frame-ancestors 'none'");
  res.set("X-Frame-Options", "DENY");
  for (const auto& [name, value] : r.headers) res.insert(name, value);
  res.keep_alive(keep_alive);
  res.body() = r.body;
  res.prepare_payload();
  return res;
}

Response call_handler(const Handler& handler, const BeastRequest& request) {
  try {
    return handler(to_request(request));
  } catch (const std::exception& e) {
    return plain_response(500, std::string("internal error: ") + e.what());
  } catch (...) {
    return plain_response(500, "internal error: the handler threw something that is not an exception");
  }
}

}  // namespace tf::tracker::http

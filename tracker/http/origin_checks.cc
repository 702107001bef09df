#include "tracker/http/origin_checks.h"

#include <cctype>

#include "tracker/listen_address.h"

namespace tf::tracker::http {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "http://Host:80" -> "http://host": an origin as browsers write it, without the scheme's own port.
std::string canonical_origin(const std::string& origin) {
  std::string o = lower(origin);
  const auto drop_port = [&](const std::string& scheme, const std::string& port) {
    if (o.rfind(scheme, 0) == 0 && o.size() > scheme.size() + port.size() &&
        o.compare(o.size() - port.size(), port.size(), port) == 0) {
      o.resize(o.size() - port.size());
    }
  };
  drop_port("http://", ":80");
  drop_port("https://", ":443");
  return o;
}

}  // namespace

bool is_loopback_host(const std::string& host_header) {
  const std::string host = lower(host_header);
  const bool bracketed = !host.empty() && host[0] == '[';
  const size_t end_of_name = bracketed ? host.find(']') : std::string::npos;
  const bool has_port = bracketed ? end_of_name != std::string::npos && end_of_name + 1 < host.size()
                                  : host.find(':') != std::string::npos;
  return is_loopback(has_port ? host : host + ":80");
}

std::optional<std::string> cross_site_reason(const Request& req, bool tls) {
  const std::string site = lower(req.header("sec-fetch-site"));
  if (site == "cross-site" || site == "same-site") {
    return "the browser says this request comes from a page of another origin (Sec-Fetch-Site: " + site + ")";
  }
  const std::string origin = req.header("origin");
  if (origin.empty()) return std::nullopt;
  const std::string own = (tls ? "https://" : "http://") + req.header("host");
  if (canonical_origin(origin) != canonical_origin(own)) {
    return "this request comes from a page of " + origin + ", not from the dashboard (" + own + ")";
  }
  return std::nullopt;
}

bool is_state_changing(const Request& req) { return req.method != "GET" && req.method != "HEAD"; }

}  // namespace tf::tracker::http

#include "tracker/http/redirect.h"

#include <cctype>
#include <cstdio>

namespace tf::tracker::http {
namespace {

bool is_dashboard_path(const std::string& p) {
  if (p.empty() || p[0] != '/') return false;
  if (p.size() > 1 && (p[1] == '/' || p[1] == '\\')) return false;
  for (char c : p) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || c == '\\') return false;
  }
  return true;
}

// RFC 3986's pchar and '/': what a path may hold without encoding.
bool is_plain_path_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::string("-._~!$&'()*+,;=:@/").find(c) != std::string::npos;
}

}  // namespace

std::string same_origin_location(const std::string& decoded_path) {
  if (!is_dashboard_path(decoded_path)) return "/";
  std::string out;
  for (char c : decoded_path) {
    if (is_plain_path_char(c)) {
      out += c;
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
      out += buf;
    }
  }
  return out;
}

}  // namespace tf::tracker::http

#include "tracker/listen_address.h"

#include <arpa/inet.h>

#include <cstring>

namespace tf::tracker {

ListenAddress parse_listen(const std::string& listen) {
  const auto bad = [&](const std::string& why) {
    return OptionError("--listen " + listen + ": " + why + " (HOST:PORT, [IPv6]:PORT)");
  };
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) throw bad("no port");
  ListenAddress a;
  a.host = listen.substr(0, colon);
  const std::string port = listen.substr(colon + 1);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    throw bad("the port is not a number");
  a.port = std::stoi(port);
  if (a.port > 65535) throw bad("port " + port + " is out of range (0 to 65535)");
  if (a.host.size() >= 2 && a.host.front() == '[' && a.host.back() == ']') {
    a.host = a.host.substr(1, a.host.size() - 2);
    in6_addr v6;
    if (::inet_pton(AF_INET6, a.host.c_str(), &v6) != 1) throw bad("'" + a.host + "' is not an IPv6 address");
  } else if (a.host.find(':') != std::string::npos) {
    throw bad("an IPv6 address goes in brackets");
  }
  if (a.host.empty()) throw bad("no host");
  return a;
}

bool is_loopback(const std::string& listen) {
  ListenAddress a;
  try {
    a = parse_listen(listen);
  } catch (const OptionError&) {
    return false;
  }
  if (a.host == "localhost") return true;
  in_addr v4;
  if (::inet_pton(AF_INET, a.host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6;
  if (::inet_pton(AF_INET6, a.host.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

}  // namespace tf::tracker

// Checks against requests a browser makes on behalf of a page elsewhere: DNS rebinding (a page on
// evil.example whose name now resolves to 127.0.0.1) and cross-site requests that change something.
#pragma once

#include <optional>
#include <string>

#include "tracker/http/http_server.h"

namespace tf::tracker::http {

// Whether a Host header names this machine's loopback interface: localhost, 127.x.y.z or [::1],
// with or without a port. A page that reached the dashboard by DNS rebinding sends its own name.
bool is_loopback_host(const std::string& host_header);

// Why a request that changes something (any method but GET and HEAD) cannot be from the
// dashboard's own pages: Sec-Fetch-Site says another site, or Origin is not the dashboard's own
// (its scheme and Host). nullopt when neither says so; a script sends neither.
std::optional<std::string> cross_site_reason(const Request& req, bool tls);

// Whether a request changes something: everything but GET and HEAD.
bool is_state_changing(const Request& req);

}  // namespace tf::tracker::http

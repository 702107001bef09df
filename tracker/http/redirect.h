// Where a sign-in by ?token= sends the browser on: back to the page it asked for, so a link with a
// token opens that page, but never anywhere else.
#pragma once

#include <string>

namespace tf::tracker::http {

// `decoded_path` (a request's percent-decoded path) percent-encoded again for a Location header,
// when it is a path on this dashboard: one leading '/', not "//" or "/\" (which a browser reads as
// another host), no backslash and no control character. "/" otherwise.
std::string same_origin_location(const std::string& decoded_path);

}  // namespace tf::tracker::http

// The dashboard's pages, style sheet and script (tracker/http/assets/), embedded at build time by
// cmake/embed_files.cmake so the tracker serves them without an install path.
#pragma once

#include <vector>

namespace tf::tracker::http {

struct Asset {
  const char* name;  // "index.html", "dashboard.js"
  const char* text;
};

const std::vector<Asset>& dashboard_assets();

}  // namespace tf::tracker::http

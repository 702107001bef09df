// Where a sign-in may redirect, which Host names a tokenless dashboard answers, and which changes
// it takes as its own pages'.
#include <gtest/gtest.h>

#include "tracker/http/origin_checks.h"
#include "tracker/http/redirect.h"

namespace tf::tracker::http {
namespace {

TEST(HttpRedirect, OnlyAPathOnThisDashboardIsKeptReencoded) {
  EXPECT_EQ(same_origin_location("/"), "/");
  EXPECT_EQ(same_origin_location("/jobs/12"), "/jobs/12");
  EXPECT_EQ(same_origin_location("/jobs/a b?c#d%e"), "/jobs/a%20b%3Fc%23d%25e");
  EXPECT_EQ(same_origin_location("/caf\xc3\xa9"), "/caf%C3%A9");
  for (const std::string& foreign :
       std::vector<std::string>{"//evil.example", "//evil.example/x", "/\\evil.example", "/x\\y",
                                "https://evil.example", "javascript:alert(1)", "evil.example", "",
                                "/\r\nSet-Cookie: x=1", "/a\nb", "/a\tb", std::string("/a\0b", 4), "/a\x7f"}) {
    EXPECT_EQ(same_origin_location(foreign), "/") << foreign;
  }
}

TEST(HttpOriginChecks, LoopbackHostsWithOrWithoutAPort) {
  for (const std::string host :
       {"localhost", "LOCALHOST:8080", "127.0.0.1", "127.0.0.1:9191", "127.1.2.3:80", "[::1]", "[::1]:9191"}) {
    EXPECT_TRUE(is_loopback_host(host)) << host;
  }
  for (const std::string host :
       {"", "evil.example", "evil.example:9191", "localhost.evil.example", "127.0.0.1.evil.example", "10.0.0.1:9191",
        "[::2]:80", "localhost:", "localhost:99999", "127.1", "::1"}) {
    EXPECT_FALSE(is_loopback_host(host)) << host;
  }
}

Request post(std::map<std::string, std::string> headers) {
  Request r;
  r.method = "POST";
  r.path = "/api/jobs/1/cancel";
  r.headers = std::move(headers);
  return r;
}

TEST(HttpOriginChecks, AChangeFromAnotherOriginOrSiteIsRefused) {
  EXPECT_FALSE(cross_site_reason(post({{"host", "127.0.0.1:9191"}}), false)) << "a script sends no Origin";
  EXPECT_FALSE(cross_site_reason(post({{"host", "127.0.0.1:9191"}, {"origin", "http://127.0.0.1:9191"}}), false));
  EXPECT_FALSE(cross_site_reason(post({{"host", "Tracker.Example"}, {"origin", "https://tracker.example:443"}}), true));
  EXPECT_FALSE(cross_site_reason(post({{"host", "127.0.0.1:9191"}, {"sec-fetch-site", "same-origin"}}), false));
  EXPECT_TRUE(cross_site_reason(post({{"host", "127.0.0.1:9191"}, {"origin", "http://evil.example"}}), false));
  EXPECT_TRUE(cross_site_reason(post({{"host", "127.0.0.1:9191"}, {"origin", "http://127.0.0.1:8080"}}), false))
      << "another port";
  EXPECT_TRUE(cross_site_reason(post({{"host", "127.0.0.1:9191"}, {"origin", "https://127.0.0.1:9191"}}), false))
      << "another scheme";
  EXPECT_TRUE(cross_site_reason(post({{"host", "127.0.0.1:9191"}, {"origin", "null"}}), false));
  EXPECT_TRUE(cross_site_reason(post({{"host", "127.0.0.1:9191"}, {"sec-fetch-site", "same-site"}}), false));
  EXPECT_TRUE(cross_site_reason(post({{"host", "127.0.0.1:9191"}, {"sec-fetch-site", "cross-site"}}), false));
  EXPECT_TRUE(is_state_changing(post({})));
  Request get = post({});
  get.method = "GET";
  EXPECT_FALSE(is_state_changing(get));
}

}  // namespace
}  // namespace tf::tracker::http

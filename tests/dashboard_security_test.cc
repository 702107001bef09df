// The dashboard against a hostile client (issue 36): headers and responses injected through the
// sign-in redirect, redirects off-site, idle sockets that lock everyone out, DNS rebinding, changes
// forged by pages elsewhere, and sessions made without end.
#include <gtest/gtest.h>

#include "tests/dashboard_client.h"
#include "tests/dashboard_fleet.h"
#include "tests/raw_http_client.h"

namespace tf::fleet_test {
namespace {

using http_test::headers_named;
using http_test::RawConnection;
using http_test::status_of;
using namespace std::chrono_literals;

class DashboardSecurity : public DashboardFleet {};

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(DashboardSecurity, ALineBreakInTheSignInPathWritesNoHeaderAndNoSecondResponse) {
  Fleet fleet("dashboard-crlf");
  start(fleet);
  RawConnection c(http_port);
  ASSERT_TRUE(c.send("GET /jobs%0D%0ASet-Cookie:%20injected=1%0D%0A%0D%0AHTTP/1.1%20200%20OK%0D%0AX-Injected:%201%0D%0A?token=" +
                     token_of(alice_line) + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(http_port) +
                     "\r\nConnection: close\r\n\r\n"));
  const std::string response = c.read_until_close(10s);
  EXPECT_EQ(status_of(response), 303) << response;
  EXPECT_EQ(headers_named(response, "Location"), std::vector<std::string>{"/"}) << response;
  const auto cookies = headers_named(response, "Set-Cookie");
  ASSERT_EQ(cookies.size(), 1u) << response;
  EXPECT_EQ(cookies[0].rfind("tf_session=", 0), 0u) << response;
  EXPECT_EQ(response.find("injected"), std::string::npos) << response;
  EXPECT_EQ(response.find("Injected"), std::string::npos) << response;
  EXPECT_EQ(occurrences(response, "HTTP/1.1 "), 1u) << response;
}

TEST_F(DashboardSecurity, ASignInRedirectsOnlyWithinTheDashboard) {
  Fleet fleet("dashboard-redirect");
  start(fleet);
  const std::string token = "?token=" + token_of(alice_line);
  for (const std::string foreign : {"/%2F%2Fevil.example", "/%2F%2Fevil.example/jobs/1", "/%5Cevil.example", "/%2F%5Cevil.example",
                                    "/%5C%5Cevil.example", "/%09/evil.example"}) {
    const Reply r = get(http_port, foreign + token);
    EXPECT_EQ(r.status, 303) << foreign;
    EXPECT_EQ(r.header("Location"), "/") << foreign;
  }
  EXPECT_EQ(get(http_port, "/jobs/7" + token).header("Location"), "/jobs/7");
  EXPECT_EQ(get(http_port, "/jobs/a%20b" + token).header("Location"), "/jobs/a%20b");
}

TEST_F(DashboardSecurity, IdleConnectionsByTheHundredDoNotKeepOutAnAuthenticatedRequest) {
  Fleet fleet("dashboard-idle");
  start(fleet);
  for (const int flood : {64, 300}) {
    std::vector<RawConnection> idle;
    for (int i = 0; i < flood; ++i) idle.emplace_back(http_port);
    RawConnection c(http_port);
    const auto start = http_test::Clock::now();
    ASSERT_TRUE(c.send("GET /api/jobs HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(http_port) +
                       "\r\nAuthorization: Bearer " + token_of(alice_line) + "\r\n\r\n"));
    const std::string response = c.read_response(1s);
    EXPECT_EQ(status_of(response), 200) << flood << " idle connections: " << response;
    EXPECT_LT(http_test::Clock::now() - start, 1s) << flood << " idle connections";
  }
}

TEST_F(DashboardSecurity, SigningInOverAndOverKeepsOnlyTheNewestSessions) {
  Fleet fleet("dashboard-session-cap");
  start(fleet);
  std::vector<std::string> cookies;
  for (int i = 0; i < 40; ++i) cookies.push_back(cookie_of(get(http_port, "/?token=" + token_of(bob_line))));
  EXPECT_EQ(request(http_port, bhttp::verb::get, "/api/jobs", {{"Cookie", cookies.front()}}).status, 401) << "the oldest made room";
  EXPECT_EQ(request(http_port, bhttp::verb::get, "/api/jobs", {{"Cookie", cookies.back()}}).status, 200);
}

}  // namespace
}  // namespace tf::fleet_test

// The dashboard against a hostile client (issue 36): headers and responses injected through the
// sign-in redirect, redirects off-site, idle sockets that lock everyone out, DNS rebinding, changes
// forged by pages elsewhere, and sessions made without end.
#include <gtest/gtest.h>

#include "support/json.h"
#include "tests/dashboard_client.h"
#include "tests/dashboard_fleet.h"
#include "tests/raw_http_client.h"

namespace tf::fleet_test {
namespace {

using http_test::headers_named;
using http_test::RawConnection;
using http_test::status_of;
using namespace std::chrono_literals;

class DashboardSecurity : public DashboardFleet {
 protected:
  std::string own_origin() const { return "http://127.0.0.1:" + std::to_string(http_port); }
  std::string csrf_token(const std::vector<std::pair<std::string, std::string>>& credentials) {
    const Reply r = request(http_port, bhttp::verb::get, "/api/session", credentials);
    EXPECT_EQ(r.status, 200) << r.body;
    return Json::parse(r.body).at("csrf_token").get<std::string>();
  }
};

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(DashboardSecurity, ALineBreakInTheSignInPathWritesNoHeaderAndNoSecondResponse) {
  Fleet fleet("dashboard-crlf");
  start(fleet);
  RawConnection c(http_port);
  ASSERT_TRUE(c.send(
      "GET /jobs%0D%0ASet-Cookie:%20injected=1%0D%0A%0D%0AHTTP/1.1%20200%20OK%0D%0AX-Injected:%201%0D%0A?token=" +
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
  for (const std::string foreign : {"/%2F%2Fevil.example", "/%2F%2Fevil.example/jobs/1", "/%5Cevil.example",
                                    "/%2F%5Cevil.example", "/%5C%5Cevil.example", "/%09/evil.example"}) {
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

TEST_F(DashboardSecurity, WithoutTokensOnlyRequestsAddressedToLoopbackAreAnswered) {
  Fleet fleet("dashboard-rebinding");
  start_without_tokens(fleet);
  const std::string port = std::to_string(http_port);
  for (const std::string& host : std::vector<std::string>{"evil.example", "evil.example:" + port,
                                                          "127.0.0.1.evil.example:" + port, "localhost.evil.example"}) {
    for (const std::string path : {"/api/jobs", "/api/session", "/"}) {
      const Reply r = request(http_port, bhttp::verb::get, path, {{"Host", host}});
      EXPECT_EQ(r.status, 403) << host << path << ": " << r.body;
      EXPECT_NE(r.body.find("DNS rebinding"), std::string::npos) << r.body;
    }
  }
  for (const std::string& host :
       std::vector<std::string>{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port, "127.0.0.1"}) {
    EXPECT_EQ(request(http_port, bhttp::verb::get, "/api/jobs", {{"Host", host}}).status, 200) << host;
  }
}

TEST_F(DashboardSecurity, ABrowsersCancelNeedsItsSessionsCsrfTokenAndTheDashboardsOrigin) {
  Fleet fleet("dashboard-csrf");
  start(fleet);
  const int64_t id = waiting_job(fleet);
  const std::string cookie = cookie_of(get(http_port, "/?token=" + token_of(alice_line)));
  const std::string other_cookie = cookie_of(get(http_port, "/?token=" + token_of(alice_line)));
  const std::string token = csrf_token({{"Cookie", cookie}});
  const std::string other_token = csrf_token({{"Cookie", other_cookie}});
  ASSERT_EQ(token.size(), 64u);
  ASSERT_NE(token, other_token) << "a CSRF token per session";
  EXPECT_EQ(csrf_token({{"Authorization", "Bearer " + token_of(alice_line)}}), "") << "a script needs none";

  const std::string cancel = "/api/jobs/" + std::to_string(id) + "/cancel";
  const std::vector<std::vector<std::pair<std::string, std::string>>> forged = {
      {{"Cookie", cookie}},  // a form on a page of another port: the cookie goes along, nothing else
      {{"Cookie", cookie}, {"Origin", "http://evil.example"}, {"Content-Type", "application/x-www-form-urlencoded"}},
      {{"Cookie", cookie}, {"X-CSRF-Token", other_token}, {"Origin", own_origin()}},
      {{"Cookie", cookie}, {"X-CSRF-Token", ""}, {"Origin", own_origin()}},
      {{"Cookie", cookie}, {"X-CSRF-Token", token}, {"Origin", "http://127.0.0.1:1"}},
      {{"Cookie", cookie}, {"X-CSRF-Token", token}, {"Origin", "null"}},
      {{"Cookie", cookie}, {"X-CSRF-Token", token}, {"Sec-Fetch-Site", "same-site"}},
      {{"Cookie", cookie}, {"X-CSRF-Token", token}, {"Sec-Fetch-Site", "cross-site"}},
  };
  for (const auto& headers : forged) {
    const Reply r = request(http_port, bhttp::verb::post, cancel, headers);
    EXPECT_EQ(r.status, 403) << headers.size() << " headers: " << r.body;
  }
  EXPECT_EQ(job_state(id), "queued") << "a refused request cancelled the job";

  const Reply by_page = request(
      http_port, bhttp::verb::post, cancel,
      {{"Cookie", cookie}, {"X-CSRF-Token", token}, {"Origin", own_origin()}, {"Sec-Fetch-Site", "same-origin"}});
  EXPECT_EQ(by_page.status, 200) << by_page.body;
  EXPECT_TRUE(eventually([&] { return job_state(id) == "cancelled"; })) << job_state(id);
}

TEST_F(DashboardSecurity, ASignInFormPostedFromAnotherOriginIsRefused) {
  Fleet fleet("dashboard-login-csrf");
  start(fleet);
  const std::string form = "token=" + token_of(alice_line);
  const Reply forged =
      request(http_port, bhttp::verb::post, "/login",
              {{"Origin", "http://evil.example"}, {"Content-Type", "application/x-www-form-urlencoded"}}, form);
  EXPECT_EQ(forged.status, 403) << forged.body;
  EXPECT_EQ(forged.header("Set-Cookie"), "");
  const Reply own = request(http_port, bhttp::verb::post, "/login",
                            {{"Origin", own_origin()}, {"Content-Type", "application/x-www-form-urlencoded"}}, form);
  EXPECT_EQ(own.status, 303) << own.body;
  EXPECT_NE(own.header("Set-Cookie"), "");
}

TEST_F(DashboardSecurity, WithoutTokensACancelNeedsTheProcessCsrfToken) {
  Fleet fleet("dashboard-anonymous-csrf");
  start_without_tokens(fleet);
  const int64_t id = waiting_job(fleet);
  const std::string cancel = "/api/jobs/" + std::to_string(id) + "/cancel";
  const std::string token = csrf_token({});
  ASSERT_EQ(token.size(), 64u);
  EXPECT_EQ(request(http_port, bhttp::verb::post, cancel).status, 403);
  EXPECT_EQ(
      request(http_port, bhttp::verb::post, cancel, {{"Origin", "http://127.0.0.1:1"}, {"X-CSRF-Token", token}}).status,
      403);
  EXPECT_EQ(job_state(id), "queued");
  EXPECT_EQ(request(http_port, bhttp::verb::post, cancel, {{"X-CSRF-Token", token}}).status, 200);
  EXPECT_TRUE(eventually([&] { return job_state(id) == "cancelled"; })) << job_state(id);
}

TEST_F(DashboardSecurity, SigningInOverAndOverKeepsOnlyTheNewestSessions) {
  Fleet fleet("dashboard-session-cap");
  start(fleet);
  std::vector<std::string> cookies;
  for (int i = 0; i < 40; ++i) cookies.push_back(cookie_of(get(http_port, "/?token=" + token_of(bob_line))));
  EXPECT_EQ(request(http_port, bhttp::verb::get, "/api/jobs", {{"Cookie", cookies.front()}}).status, 401)
      << "the oldest made room";
  EXPECT_EQ(request(http_port, bhttp::verb::get, "/api/jobs", {{"Cookie", cookies.back()}}).status, 200);
}

}  // namespace
}  // namespace tf::fleet_test

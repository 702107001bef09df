// The tracker's HTTP face on a real fleet: Prometheus /metrics behind the tokens, counters that move
// as a job runs, browser sessions made from a token once, and cancel for the job's owner only.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <filesystem>

#include "proto/tokens.h"
#include "support/json.h"
#include "tests/dashboard_client.h"
#include "tests/dashboard_fleet.h"
#include "tests/fleet_harness.h"
#include "tests/headless_chromium.h"
#include "tracker/http/http_server.h"

namespace tf::fleet_test {
namespace {

class Dashboard : public DashboardFleet {};

TEST_F(Dashboard, MetricsNeedATokenParseAndCountAJob) {
  Fleet fleet("dashboard-metrics");
  start(fleet);
  fleet.start_board("test-x86", {"--token-file", fleet.dir() + "/board.token"});

  EXPECT_EQ(get(http_port, "/metrics").status, 401);
  EXPECT_EQ(get(http_port, "/metrics", "tf_not_a_token").status, 401);
  EXPECT_EQ(get(http_port, "/metrics", token_of(board_line)).status, 403) << "a board token is not a reader's";
  const Reply before = get(http_port, "/metrics", token_of(alice_line));
  ASSERT_EQ(before.status, 200) << before.body;
  EXPECT_NE(before.header("Content-Type").find("text/plain; version=0.0.4"), std::string::npos);
  auto m0 = parse_exposition(before.body);
  EXPECT_EQ(m0["tunefarm_boards{key=\"test-x86\",state=\"idle\"}"], 1);
  EXPECT_EQ(m0.count("tunefarm_dispatches_total{key=\"test-x86\"}"), 0u);
  EXPECT_GT(m0["tunefarm_db_bytes"], 0);

  auto stub = fleet.client();
  const int64_t id = submit(*stub, dense_job("test-x86", {64, 64, 64}, 10), token_of(alice_line));
  EXPECT_EQ(follow(*stub, id, token_of(alice_line)).state(), v1::DONE);

  auto m1 = parse_exposition(get(http_port, "/metrics", token_of(alice_line)).body);
  EXPECT_GE(m1["tunefarm_dispatches_total{key=\"test-x86\"}"], 10);
  EXPECT_GE(m1["tunefarm_results_total{key=\"test-x86\",outcome=\"ok\"}"], 10);
  EXPECT_GE(m1["tunefarm_measurement_seconds_count{key=\"test-x86\"}"], 10);
  EXPECT_EQ(m1["tunefarm_measurement_seconds_bucket{key=\"test-x86\",le=\"+Inf\"}"],
            m1["tunefarm_measurement_seconds_count{key=\"test-x86\"}"]);
  EXPECT_EQ(m1["tunefarm_jobs{state=\"done\"}"], 1);
  EXPECT_EQ(m1["tunefarm_queue_depth{key=\"test-x86\"}"], 0);

  // The JSON the pages poll.
  const Reply jobs = get(http_port, "/api/jobs", token_of(alice_line));
  ASSERT_EQ(jobs.status, 200);
  EXPECT_NE(jobs.body.find("\"state\": \"done\""), std::string::npos) << jobs.body;
  const Reply devices = get(http_port, "/api/devices", token_of(alice_line));
  EXPECT_NE(devices.body.find("\"key\": \"test-x86\""), std::string::npos) << devices.body;
}

TEST_F(Dashboard, ATokenInTheUrlBecomesASessionAndOnlyTheOwnerCancels) {
  Fleet fleet("dashboard-session");
  start(fleet);
  // No board: the job waits, so it is still there to cancel. A key no board ever had is refused,
  // so one registers and leaves first.
  Process& board = fleet.start_board("nobody-yet", {"--token-file", fleet.dir() + "/board.token"});
  board.kill(SIGKILL);
  ASSERT_TRUE(eventually([&] { return get(http_port, "/api/devices", token_of(alice_line)).body == "[]\n"; }));
  auto stub = fleet.client();
  v1::Job job;
  job.set_id(submit(*stub, dense_job("nobody-yet", {16, 16, 16}, 4), token_of(alice_line)));

  const Reply refused = request(http_port, bhttp::verb::get, "/?token=tf_wrong", {{"Accept", "text/html"}});
  EXPECT_EQ(refused.status, 401);
  EXPECT_NE(refused.body.find("Refused"), std::string::npos) << refused.body;

  const Reply login = get(http_port, "/?token=" + token_of(bob_line));
  EXPECT_EQ(login.status, 303);
  const std::string cookie = login.header("Set-Cookie");
  ASSERT_NE(cookie.find("tf_session="), std::string::npos);
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos);
  EXPECT_EQ(login.header("Location"), "/") << "the token leaves the address bar";
  const std::string session = cookie.substr(0, cookie.find(';'));
  EXPECT_EQ(request(http_port, bhttp::verb::get, "/api/jobs", {{"Cookie", session}}).status, 200);
  EXPECT_EQ(request(http_port, bhttp::verb::get, "/api/jobs", {{"Cookie", "tf_session=forged"}}).status, 401);

  const std::string cancel = "/api/jobs/" + std::to_string(job.id()) + "/cancel";
  // Bob's page, with his session's CSRF token: refused because the job is alice's.
  const std::string bobs_csrf_token =
      Json::parse(request(http_port, bhttp::verb::get, "/api/session", {{"Cookie", session}}).body)
          .at("csrf_token")
          .get<std::string>();
  const Reply by_bob =
      request(http_port, bhttp::verb::post, cancel, {{"Cookie", session}, {"X-CSRF-Token", bobs_csrf_token}});
  EXPECT_EQ(by_bob.status, 403) << by_bob.body;
  EXPECT_NE(by_bob.body.find("belongs to 'alice'"), std::string::npos) << by_bob.body;
  const Reply by_alice =
      request(http_port, bhttp::verb::post, cancel, {{"Authorization", "Bearer " + token_of(alice_line)}});
  EXPECT_EQ(by_alice.status, 200) << by_alice.body;
  EXPECT_TRUE(eventually([&] {
    return get(http_port, "/api/jobs/" + std::to_string(job.id()), token_of(alice_line))
               .body.find("\"state\": \"cancelled\"") != std::string::npos;
  })) << get(http_port, "/api/jobs/" + std::to_string(job.id()), token_of(alice_line)).body;
  EXPECT_EQ(get(http_port, "/api/jobs/999999", token_of(alice_line)).status, 404);
}

// GET over TLS, trusting only `ca_file`; the status, or -1 when the TLS handshake fails.
int get_tls(int port, const std::string& target, const std::string& ca_file) {
  boost::asio::io_context io;
  boost::asio::ssl::context ssl(boost::asio::ssl::context::tls_client);
  ssl.load_verify_file(ca_file);
  ssl.set_verify_mode(boost::asio::ssl::verify_peer);
  boost::beast::ssl_stream<boost::beast::tcp_stream> stream(io, ssl);
  boost::asio::ip::tcp::resolver resolver(io);
  boost::beast::get_lowest_layer(stream).connect(resolver.resolve("127.0.0.1", std::to_string(port)));
  boost::beast::error_code ec;
  stream.handshake(boost::asio::ssl::stream_base::client, ec);
  if (ec) return -1;
  bhttp::request<bhttp::string_body> req{bhttp::verb::get, target, 11};
  req.set(bhttp::field::host, "localhost");
  bhttp::write(stream, req);
  boost::beast::flat_buffer buffer;
  bhttp::response<bhttp::string_body> res;
  bhttp::read(stream, buffer, res);
  return static_cast<int>(res.result_int());
}

TEST(DashboardTls, ATlsTrackerServesItsDashboardOverTlsOnly) {
  Fleet fleet("dashboard-tls");
  std::string cert, key;
  ASSERT_NO_FATAL_FAILURE(make_throwaway_certificate(fleet.dir(), &cert, &key));
  const int http_port = free_port();
  fleet.start_tracker({"--tls-cert", cert, "--tls-key", key, "--http", "127.0.0.1:" + std::to_string(http_port)});
  EXPECT_NE(fleet.tracker().output().find("dashboard on https://"), std::string::npos) << fleet.tracker().output();
  EXPECT_EQ(get_tls(http_port, "/metrics", cert), 200);
  int plain_status = 0;
  try {
    plain_status = get(http_port, "/metrics").status;
  } catch (const std::exception&) {
    plain_status = -1;  // the TLS server hung up on a plaintext request
  }
  EXPECT_NE(plain_status, 200) << "plaintext HTTP to a TLS dashboard must not be served";
}

// Headless Chromium (Debian's, installed by the README's commands) with a fresh profile and
// nothing that reaches beyond this machine; `args` then the URL.
std::string chromium(const std::string& dir, const std::vector<std::string>& args, const std::string& url) {
  std::vector<std::string> argv = {"/usr/bin/chromium",
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--disable-quic",
                                   "--no-first-run",
                                   "--disable-background-networking",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--user-data-dir=" + dir + "/chromium-profile",
                                   "--virtual-time-budget=8000"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(url);
  Process browser(argv, dir + "/chromium.log");
  EXPECT_EQ(browser.wait_exit(std::chrono::seconds(120)), 0) << browser.output();
  return browser.output();
}

TEST_F(Dashboard, ChromiumShowsTheBoardsAndTheJobAndRefusesAWrongToken) {
  ASSERT_EQ(::access("/usr/bin/chromium", X_OK), 0) << "chromium is missing: scripts/setup.sh installs it";
  Fleet fleet("dashboard-browser");
  start(fleet);
  fleet.start_board("test-x86", {"--token-file", fleet.dir() + "/board.token"});
  auto stub = fleet.client();
  v1::Job job;
  job.set_id(submit(*stub, dense_job("test-x86", {48, 48, 48}, 6), token_of(alice_line)));
  ASSERT_EQ(follow(*stub, job.id(), token_of(alice_line)).state(), v1::DONE);

  const std::string base = "http://127.0.0.1:" + std::to_string(http_port);
  // The page as the browser built it, after the script's first poll.
  const std::string dom = chromium(fleet.dir(), {"--dump-dom"}, base + "/?token=" + token_of(alice_line));
  EXPECT_NE(dom.find("data-job=\"" + std::to_string(job.id()) + "\""), std::string::npos) << dom;
  EXPECT_NE(dom.find("data-key=\"test-x86\""), std::string::npos) << dom;
  EXPECT_NE(dom.find("updated "), std::string::npos) << "the script polled the API: " << dom;

  const std::string job_dom = chromium(fleet.dir(), {"--dump-dom"},
                                       base + "/jobs/" + std::to_string(job.id()) + "?token=" + token_of(alice_line));
  EXPECT_NE(job_dom.find("Job " + std::to_string(job.id()) + " (done)"), std::string::npos) << job_dom;
  EXPECT_NE(job_dom.find("best so far"), std::string::npos) << job_dom;

  const std::string refused = chromium(fleet.dir(), {"--dump-dom"}, base + "/?token=tf_not_a_token");
  EXPECT_NE(refused.find("Refused"), std::string::npos) << refused;
  EXPECT_EQ(refused.find("data-key="), std::string::npos) << refused;

  // A picture for whoever reads the test's output.
  const std::string shot = (std::filesystem::current_path() / "dashboard-fleet.png").string();
  std::remove(shot.c_str());
  chromium(fleet.dir(), {"--window-size=1400,900", "--screenshot=" + shot}, base + "/?token=" + token_of(alice_line));
  EXPECT_TRUE(std::ifstream(shot).good()) << "no screenshot at " << shot;
  const std::string job_shot = (std::filesystem::current_path() / "dashboard-job.png").string();
  std::remove(job_shot.c_str());
  chromium(fleet.dir(), {"--window-size=1400,900", "--screenshot=" + job_shot},
           base + "/jobs/" + std::to_string(job.id()) + "?token=" + token_of(alice_line));
  EXPECT_TRUE(std::ifstream(job_shot).good()) << "no screenshot at " << job_shot;
  RecordProperty("screenshot", shot);
  std::printf("dashboard screenshots: %s %s\n", shot.c_str(), job_shot.c_str());
}

// A page on another port of the dashboard's host: same-site, so a SameSite=Strict cookie goes
// along with its requests. It posts a cancel as a form and by fetch, and tries to read the CSRF
// token; `window.attack` says what happened.
std::string page_of_another_port(int dashboard_port, int64_t job) {
  const std::string dashboard = "http://127.0.0.1:" + std::to_string(dashboard_port);
  const std::string cancel = dashboard + "/api/jobs/" + std::to_string(job) + "/cancel";
  return R"html(<!doctype html><html><body>
<form id="form" method="post" action=")html" +
         cancel + R"html(" target="sink"><input name="x" value="1"></form>
<script>
window.attack = (async () => {
  const out = [];
  const sink = document.createElement("iframe");
  sink.name = "sink";
  document.body.append(sink);
  const loaded = new Promise((done) => { sink.onload = done; });
  document.getElementById("form").submit();
  await Promise.race([loaded, new Promise((done) => setTimeout(done, 3000))]);
  out.push("form posted");
  try {
    await fetch(")html" +
         cancel + R"html(", { method: "POST", mode: "no-cors", credentials: "include" });
    out.push("fetch posted");
  } catch (e) {
    out.push("fetch failed: " + e);
  }
  try {
    const r = await fetch(")html" +
         dashboard + R"html(/api/session", { credentials: "include" });
    out.push("session read: " + (await r.text()));
  } catch (e) {
    out.push("session unreadable");
  }
  return out.join(", ");
})();
</script></body></html>
)html";
}

// The job page's cancel button: once it shows, a click, then what the page says came of it.
const char* const kClickCancel = R"js(new Promise((resolve) => {
  const start = Date.now();
  (function tick() {
    const button = document.getElementById("cancel");
    if (button && !button.hidden) {
      button.click();
      (function wait() {
        const said = document.getElementById("cancel-result").textContent;
        if (said) resolve(said); else setTimeout(wait, 50);
      })();
    } else if (Date.now() - start > 30000) {
      resolve("the cancel button never showed");
    } else {
      setTimeout(tick, 50);
    }
  })();
}))js";

TEST_F(Dashboard, ChromiumCancelsWithItsCsrfTokenWhileAPageOfAnotherPortCannot) {
  ASSERT_EQ(::access("/usr/bin/chromium", X_OK), 0) << "chromium is missing: scripts/setup.sh installs it";
  Fleet fleet("dashboard-browser-cancel");
  start(fleet);
  const int64_t id = waiting_job(fleet);
  tracker::http::Server other_port("127.0.0.1:0", "", "", [&](const tracker::http::Request&) {
    tracker::http::Response r;
    r.content_type = "text/html; charset=utf-8";
    r.body = page_of_another_port(http_port, id);
    return r;
  });
  browser_test::HeadlessChromium browser(fleet.dir());
  const std::string job_path = "/jobs/" + std::to_string(id);
  // Alice signs in: the browser holds her session cookie from here on.
  const std::string dashboard =
      browser.open("http://127.0.0.1:" + std::to_string(http_port) + job_path + "?token=" + token_of(alice_line));
  ASSERT_TRUE(browser.wait_until(
      dashboard, "location.pathname === '" + job_path + "' && !document.getElementById('cancel').hidden"))
      << browser.log();

  const std::string attacker = browser.open("http://127.0.0.1:" + std::to_string(other_port.port()) + "/");
  ASSERT_TRUE(browser.wait_until(attacker, "window.attack !== undefined")) << browser.log();
  const std::string attack = browser.evaluate(attacker, "window.attack").get<std::string>();
  EXPECT_NE(attack.find("form posted, fetch posted"), std::string::npos) << attack;
  EXPECT_NE(attack.find("session unreadable"), std::string::npos) << attack;
  EXPECT_EQ(job_state(id), "queued") << "a page of another port cancelled the job: " << attack;

  EXPECT_EQ(browser.evaluate(dashboard, kClickCancel), "cancelled");
  EXPECT_TRUE(eventually([&] { return job_state(id) == "cancelled"; })) << job_state(id);
}

}  // namespace
}  // namespace tf::fleet_test

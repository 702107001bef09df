// The tracker's HTTP face on a real fleet: Prometheus /metrics behind the tokens, counters that move
// as a job runs, browser sessions made from a token once, and cancel for the job's owner only.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <regex>

#include "proto/tokens.h"
#include "tests/fleet_harness.h"

namespace tf::fleet_test {
namespace {

namespace bhttp = boost::beast::http;

struct Reply {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

Reply request(int port, bhttp::verb verb, const std::string& target, const std::vector<std::pair<std::string, std::string>>& headers = {},
              const std::string& body = "") {
  boost::asio::io_context io;
  boost::asio::ip::tcp::resolver resolver(io);
  boost::beast::tcp_stream stream(io);
  stream.connect(resolver.resolve("127.0.0.1", std::to_string(port)));
  bhttp::request<bhttp::string_body> req{verb, target, 11};
  req.set(bhttp::field::host, "127.0.0.1");
  for (const auto& [name, value] : headers) req.set(name, value);
  req.body() = body;
  req.prepare_payload();
  bhttp::write(stream, req);
  boost::beast::flat_buffer buffer;
  bhttp::response<bhttp::string_body> res;
  bhttp::read(stream, buffer, res);
  Reply out;
  out.status = static_cast<int>(res.result_int());
  out.body = res.body();
  for (const auto& f : res) out.headers[std::string(f.name_string())] = std::string(f.value());
  return out;
}

Reply get(int port, const std::string& target, const std::string& token = "") {
  if (token.empty()) return request(port, bhttp::verb::get, target);
  return request(port, bhttp::verb::get, target, {{"Authorization", "Bearer " + token}});
}

std::string token_of(const std::string& line) { return line.substr(0, line.find(' ')); }

// Every sample line of a Prometheus text exposition, "name{labels}" -> value; a line that is not a
// comment, a blank or a well-formed sample fails the test.
std::map<std::string, double> parse_exposition(const std::string& text) {
  static const std::regex sample(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})?) (\S+)$)");
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::smatch m;
    if (!std::regex_match(line, m, sample)) {
      ADD_FAILURE() << "not a Prometheus sample line: " << line;
      continue;
    }
    const std::string v = m[5];
    out[m[1]] = v == "+Inf" ? INFINITY : std::stod(v);
  }
  return out;
}

class Dashboard : public ::testing::Test {
 protected:
  void start(Fleet& fleet) {
    const std::string tokens = fleet.dir() + "/tokens";
    std::ofstream(tokens) << board_line << "\n" << alice_line << "\n" << bob_line << "\n";
    std::ofstream(fleet.dir() + "/board.token") << board_line << "\n";
    http_port = free_port();
    fleet.start_tracker({"--token-file", tokens, "--http", "127.0.0.1:" + std::to_string(http_port)});
    EXPECT_NE(fleet.tracker().output().find("dashboard on http://127.0.0.1:" + std::to_string(http_port) + "/"), std::string::npos)
        << fleet.tracker().output();
  }
  const std::string board_line = fleet::new_token_line(fleet::Role::Board, "board");
  const std::string alice_line = fleet::new_token_line(fleet::Role::Client, "alice");
  const std::string bob_line = fleet::new_token_line(fleet::Role::Client, "bob");
  int http_port = 0;
};

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
  v1::SubmitJobRequest req;
  *req.mutable_spec() = dense_job("test-x86", {64, 64, 64}, 10);
  v1::Job job;
  auto ctx = context(token_of(alice_line));
  ASSERT_TRUE(stub->SubmitJob(ctx.get(), req, &job).ok());
  EXPECT_EQ(follow(*stub, job.id(), token_of(alice_line)).state(), v1::DONE);

  auto m1 = parse_exposition(get(http_port, "/metrics", token_of(alice_line)).body);
  EXPECT_GE(m1["tunefarm_dispatches_total{key=\"test-x86\"}"], 10);
  EXPECT_GE(m1["tunefarm_results_total{key=\"test-x86\",outcome=\"ok\"}"], 10);
  EXPECT_GE(m1["tunefarm_measurement_seconds_count{key=\"test-x86\"}"], 10);
  EXPECT_EQ(m1["tunefarm_measurement_seconds_bucket{key=\"test-x86\",le=\"+Inf\"}"], m1["tunefarm_measurement_seconds_count{key=\"test-x86\"}"]);
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
  // No board: the job waits, so it is still there to cancel.
  auto stub = fleet.client();
  v1::SubmitJobRequest req;
  *req.mutable_spec() = dense_job("nobody-yet", {16, 16, 16}, 4);
  v1::Job job;
  auto ctx = context(token_of(alice_line));
  // A key no board ever had is refused; make it known by a board that registers and leaves.
  Process& board = fleet.start_board("nobody-yet", {"--token-file", fleet.dir() + "/board.token"});
  board.kill(SIGKILL);
  ASSERT_TRUE(stub->SubmitJob(ctx.get(), req, &job).ok());

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
  const Reply by_bob = request(http_port, bhttp::verb::post, cancel, {{"Cookie", session}});
  EXPECT_EQ(by_bob.status, 403) << by_bob.body;
  const Reply by_alice = request(http_port, bhttp::verb::post, cancel, {{"Authorization", "Bearer " + token_of(alice_line)}});
  EXPECT_EQ(by_alice.status, 200) << by_alice.body;
  EXPECT_NE(by_alice.body.find("cancelled"), std::string::npos) << by_alice.body;
  EXPECT_EQ(get(http_port, "/api/jobs/999999", token_of(alice_line)).status, 404);
}

}  // namespace
}  // namespace tf::fleet_test

// A tracker with its dashboard for the dashboard's tests: with a token file (a board's, alice's and
// bob's client tokens) or without one, and a job that waits so that it can be cancelled.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "proto/tokens.h"
#include "tests/dashboard_client.h"
#include "tests/fleet_harness.h"

namespace tf::fleet_test {

class DashboardFleet : public ::testing::Test {
 protected:
  void start(Fleet& fleet) {
    const std::string tokens = fleet.dir() + "/tokens";
    std::ofstream(tokens) << board_line << "\n" << alice_line << "\n" << bob_line << "\n";
    std::ofstream(fleet.dir() + "/board.token") << board_line << "\n";
    start_tracker(fleet, {"--token-file", tokens});
  }
  // No token file: every caller is the anonymous admin, on loopback only.
  void start_without_tokens(Fleet& fleet) {
    tokens_ = false;
    start_tracker(fleet, {});
  }

  // A job of alice's (or the anonymous admin's) that stays queued: its key's only board registered
  // and left, since a key no board ever had is refused.
  int64_t waiting_job(Fleet& fleet) {
    const std::vector<std::string> board_args =
        tokens_ ? std::vector<std::string>{"--token-file", fleet.dir() + "/board.token"} : std::vector<std::string>{};
    Process& board = fleet.start_board("nobody-yet", board_args);
    board.kill(SIGKILL);
    EXPECT_TRUE(eventually([&] { return get(http_port, "/api/devices", reader()).body == "[]\n"; }));
    auto stub = fleet.client();
    return submit(*stub, dense_job("nobody-yet", {16, 16, 16}, 4), tokens_ ? token_of(alice_line) : "");
  }

  // The job's state as the API says ("queued", "cancelled", ...).
  std::string job_state(int64_t id) {
    const Reply r = get(http_port, "/api/jobs/" + std::to_string(id), reader());
    const auto at = r.body.find("\"state\": \"");
    return at == std::string::npos ? "(no state in " + r.body + ")"
                                   : r.body.substr(at + 10, r.body.find('"', at + 10) - at - 10);
  }

  // A bearer token that may read (alice's), or none without a token file.
  std::string reader() const { return tokens_ ? token_of(alice_line) : ""; }

  const std::string board_line = fleet::new_token_line(fleet::Role::Board, "board");
  const std::string alice_line = fleet::new_token_line(fleet::Role::Client, "alice");
  const std::string bob_line = fleet::new_token_line(fleet::Role::Client, "bob");
  int http_port = 0;

 private:
  void start_tracker(Fleet& fleet, std::vector<std::string> args) {
    http_port = free_port();
    args.insert(args.end(), {"--http", "127.0.0.1:" + std::to_string(http_port)});
    fleet.start_tracker(args);
    EXPECT_NE(fleet.tracker().output().find("dashboard on http://127.0.0.1:" + std::to_string(http_port) + "/"),
              std::string::npos)
        << fleet.tracker().output();
  }
  bool tokens_ = true;
};

}  // namespace tf::fleet_test

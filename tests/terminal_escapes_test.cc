// Strings one user sends the tracker are printed in another user's terminal by `tunefarm status`:
// a job's name with an escape sequence must show escaped, not retitle the window or fake a line.
// --json output stays JSON, which escapes control characters itself.
#include <gtest/gtest.h>

#include "support/json.h"
#include "tests/cli_runner.h"
#include "tests/fleet_harness.h"

namespace tf::fleet_test {
namespace {

const char* kHostileName = "x\x1b]0;pwned\x07\r\n";

void expect_no_control_characters(const std::string& out, const std::string& what) {
  for (char c : std::string("\x1b\x07\r"))
    EXPECT_EQ(out.find(c), std::string::npos) << what << " printed byte " << int(c) << ":\n" << out;
}

TEST(TerminalEscapes, AJobNameWithControlCharactersShowsEscapedInStatus) {
  Fleet fleet("escapes");
  fleet.start_tracker();
  // A key the tracker knows, with no board left to start the job: it stays queued.
  Process& board = fleet.start_board("esc");
  board.kill(SIGKILL);
  v1::JobSpec spec = dense_job("esc", {16, 16, 16}, 4);
  spec.set_model(kHostileName);
  spec.set_scheduler("even");
  auto stub = fleet.client();
  const int64_t id = submit(*stub, spec);
  ASSERT_GT(id, 0);
  const std::string where = " --tracker " + fleet.address();
  const std::string escaped = "model x\\x1b]0;pwned\\x07\\x0d\\x0a:";

  const Result list = run_cli("status" + where);
  EXPECT_EQ(list.exit_code, 0) << list.err;
  expect_no_control_characters(list.out, "status");
  EXPECT_NE(list.out.find(escaped), std::string::npos) << list.out;

  const Result one = run_cli("status " + std::to_string(id) + where);
  expect_no_control_characters(one.out, "status JOB");
  EXPECT_NE(one.out.find(escaped), std::string::npos) << one.out;

  const Result json = run_cli("status " + std::to_string(id) + " --json" + where);
  expect_no_control_characters(json.out, "status --json");
  EXPECT_NE(json.out.find("x\\u001b]0;pwned\\u0007\\r\\n"), std::string::npos) << json.out;
  EXPECT_EQ(parse_json(json.out).at("spec").at("model").get<std::string>(), kHostileName);
}

}  // namespace
}  // namespace tf::fleet_test

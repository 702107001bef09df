// Bad options to the tracker, the board and the fleet client are one clear error and exit 2: a
// port out of range, a host that only starts with "127.", swapped TLS files, a key that is not
// valid UTF-8 (which protobuf would refuse to send, with no reason the user could read).
#include <gtest/gtest.h>

#include <fstream>

#include "proto/tokens.h"
#include "proto/utf8.h"
#include "tests/cli_runner.h"
#include "tests/fleet_harness.h"
#include "tracker/listen_address.h"

namespace tf::fleet_test {
namespace {

TEST(TrackerOptions, ListenAddressesAreParsedNotPrefixMatched) {
  EXPECT_TRUE(tracker::is_loopback("127.0.0.1:9190"));
  EXPECT_TRUE(tracker::is_loopback("127.1.2.3:0"));
  EXPECT_TRUE(tracker::is_loopback("localhost:9190"));
  EXPECT_TRUE(tracker::is_loopback("[::1]:9190"));
  EXPECT_TRUE(tracker::is_loopback("[::ffff:127.0.0.1]:9190"));
  EXPECT_FALSE(tracker::is_loopback("127.evil.example:9190"));
  EXPECT_FALSE(tracker::is_loopback("127.0.0.1.evil.example:9190"));
  EXPECT_FALSE(tracker::is_loopback("0.0.0.0:9190"));
  EXPECT_FALSE(tracker::is_loopback("[::]:9190"));
  EXPECT_FALSE(tracker::is_loopback("127.0.0.1:99999"));
  EXPECT_EQ(tracker::parse_listen("[::1]:80").host, "::1");
  EXPECT_EQ(tracker::parse_listen("127.0.0.1:65535").port, 65535);
  for (const char* bad :
       {"127.0.0.1:99999", "127.0.0.1", "127.0.0.1:", "127.0.0.1:-1", "127.0.0.1:80x", "::1:80", ":80"}) {
    EXPECT_THROW(tracker::parse_listen(bad), tracker::OptionError) << bad;
  }
}

struct Exit {
  int code = -1;
  std::string output;
};

Exit run_tracker(const std::string& name, const std::vector<std::string>& extra) {
  const std::string dir = "/tmp/tf-tracker-options-" + name + "-" + std::to_string(::getpid());
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  std::vector<std::string> argv = {TF_TRACKER, "--db", dir + "/tunefarm.db"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  Process p(argv, dir + "/tracker.log");
  const int status = p.wait_exit(std::chrono::seconds(30));
  Exit e{WIFEXITED(status) ? WEXITSTATUS(status) : -1, p.output()};
  if (e.code == -1) p.kill(SIGKILL);
  return e;
}

TEST(TrackerOptions, APortOutOfRangeOrAFakeLoopbackHostIsRefused) {
  Exit e = run_tracker("port", {"--listen", "127.0.0.1:99999"});
  EXPECT_EQ(e.code, 2) << e.output;
  EXPECT_NE(e.output.find("port 99999 is out of range"), std::string::npos) << e.output;
  e = run_tracker("prefix", {"--listen", "127.evil.example:9190"});
  EXPECT_EQ(e.code, 2) << e.output;
  EXPECT_NE(e.output.find("refusing to listen"), std::string::npos) << e.output;
}

TEST(TrackerOptions, SwappedTlsCertificateAndKeyAreNamed) {
  const std::string dir = "/tmp/tf-tracker-tls-" + std::to_string(::getpid());
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  const std::string cert = dir + "/cert.pem", key = dir + "/key.pem";
  const std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -keyout " + key + " -out " + cert +
                          " -days 1 -subj /CN=localhost 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  Exit e = run_tracker("tls", {"--listen", "127.0.0.1:0", "--tls-cert", key, "--tls-key", cert});
  EXPECT_EQ(e.code, 2) << e.output;
  EXPECT_NE(e.output.find("--tls-cert " + key + " is not valid"), std::string::npos) << e.output;
  EXPECT_NE(e.output.find("swapped"), std::string::npos) << e.output;
  EXPECT_EQ(e.output.find("in use"), std::string::npos) << e.output;
  std::system(("rm -rf " + dir).c_str());
}

TEST(TrackerOptions, AKeyThatIsNotUtf8IsRefusedNamingIt) {
  EXPECT_EQ(fleet::utf8_error("x86-\xc3\xa9"), "");
  EXPECT_NE(fleet::utf8_error("ab\xff"), "");
  EXPECT_NE(fleet::utf8_error("\xed\xb3\xbf"), "") << "a surrogate";
  EXPECT_NE(fleet::utf8_error("\xc0\xaf"), "") << "an overlong form";
  EXPECT_EQ(fleet::printable("ab\xff"), "ab\\xff");

  Fleet fleet("utf8-key");
  fleet.start_tracker();
  // The board: exit 2 with the reason, instead of a protobuf log line and endless redialling.
  Process& board = fleet.start_board("ab\xff", {}, false);
  const int status = board.wait_exit(std::chrono::seconds(30));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << board.output();
  EXPECT_NE(board.output().find("--key 'ab\\xff' is not valid UTF-8"), std::string::npos) << board.output();
  // The client: exit 2 naming the field, instead of "the tracker failed: " and exit 1.
  const Result r = run_cli("submit --tracker " + fleet.address() + " --op dense --shape 64,64,64 --key 'ab\xff'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("device_key: 'ab\\xff' is not valid UTF-8"), std::string::npos) << r.err;
  for (const std::string cmd : {"devices", "best --op dense --shape 64,64,64"}) {
    const Result other = run_cli(cmd + " --tracker " + fleet.address() + " --key 'ab\xff'");
    EXPECT_EQ(other.exit_code, 2) << cmd << ": " << other.err;
    EXPECT_NE(other.err.find("device_key: 'ab\\xff' is not valid UTF-8"), std::string::npos)
        << cmd << ": " << other.err;
  }
  // The tracker: a job file's key that decodes to no valid text is INVALID_ARGUMENT, and the
  // message itself is printable.
  v1::SubmitJobRequest req;
  req.set_spec_json(R"({"workloads": [{"op": "dense", "shape": [64, 64, 64]}], "key": "ab\udcff"})");
  v1::Job job;
  auto ctx = context();
  grpc::Status s = fleet.client()->SubmitJob(ctx.get(), req, &job);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_EQ(fleet::utf8_error(s.error_message()), "") << fleet::printable(s.error_message());
}

std::string token_file_error(const std::string& path) {
  try {
    fleet::read_token_file(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(accepted)";
}

// A token file with no token started a tracker that refused every caller; a token listed twice
// was taken, with whichever role came last. Both stop the tracker at start, naming the file and
// the lines but never the token.
TEST(TrackerOptions, ATokenFileWithNoTokenOrATokenTwiceIsRefused) {
  const std::string dir = "/tmp/tf-token-files-" + std::to_string(::getpid());
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  const std::string empty = dir + "/empty", comments = dir + "/comments", twice = dir + "/twice";
  std::ofstream(empty) << "";
  std::ofstream(comments) << "# the tracker's tokens\n\n   # none yet\n";
  const std::string token = "tf_0123456789abcdef0123456789abcdef";
  std::ofstream(twice) << "# tokens\n"
                       << token << " client alice\ntf_fedcba9876543210fedcba9876543210 board b1\n"
                       << token << " admin mallory\n";
  EXPECT_EQ(token_file_error(empty),
            "token file '" + empty + "' holds no token (lines '<token> <role> [name]': tunefarm token new)");
  EXPECT_EQ(token_file_error(comments).find("token file '" + comments + "' holds no token"), 0u);
  EXPECT_EQ(token_file_error(twice), "token file '" + twice + "' line 4: the same token as line 2 (each token once)");

  for (const std::string& file : {empty, comments, twice}) {
    const Exit e = run_tracker("tokens", {"--listen", "127.0.0.1:0", "--token-file", file});
    EXPECT_EQ(e.code, 2) << e.output;
    EXPECT_NE(e.output.find("--token-file: token file '" + file + "'"), std::string::npos) << e.output;
    EXPECT_EQ(e.output.find(token), std::string::npos) << e.output;
  }
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace
}  // namespace tf::fleet_test

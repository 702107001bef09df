// Who may talk to a tracker: bearer tokens with roles from a token file, and TLS with a throwaway
// certificate made by openssl.
#include <gtest/gtest.h>

#include <fstream>

#include "proto/tokens.h"
#include "tests/fleet_harness.h"

namespace tf::fleet_test {
namespace {

TEST(FleetAuth, WrongMissingAndWrongRoleTokensAreRefused) {
  Fleet fleet("auth");
  const std::string board_line = fleet::new_token_line(fleet::Role::Board, "board-a");
  const std::string client_line = fleet::new_token_line(fleet::Role::Client, "alice");
  const std::string admin_line = fleet::new_token_line(fleet::Role::Admin, "root");
  const std::string tokens = fleet.dir() + "/tokens", board_file = fleet.dir() + "/board.token",
                    client_file = fleet.dir() + "/client.token";
  std::ofstream(tokens) << "# the tracker's tokens\n"
                        << board_line << "\n"
                        << client_line << "\n"
                        << admin_line << "\n";
  std::ofstream(board_file) << board_line << "\n";
  std::ofstream(client_file) << client_line << "\n";
  fleet.start_tracker({"--token-file", tokens});
  EXPECT_NE(fleet.tracker().output().find("bearer tokens"), std::string::npos);
  auto stub = fleet.client();

  auto list_devices = [&](const std::string& token) {
    v1::ListDevicesResponse r;
    auto ctx = context(token);
    return stub->ListDevices(ctx.get(), v1::ListDevicesRequest(), &r);
  };
  EXPECT_EQ(list_devices("").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(list_devices("tf_0123456789abcdef0123456789abcdef").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(list_devices(token_of(client_line)).ok());
  EXPECT_TRUE(list_devices(token_of(admin_line)).ok());

  // A board token cannot submit jobs.
  v1::SubmitJobRequest req;
  *req.mutable_spec() = dense_job("test-x86", {64, 64, 64}, 4);
  v1::Job job;
  auto ctx = context(token_of(board_line));
  grpc::Status s = stub->SubmitJob(ctx.get(), req, &job);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED) << s.error_message();
  EXPECT_NE(s.error_message().find("role board"), std::string::npos) << s.error_message();

  // A client token cannot register as a board: the board says why and exits 1.
  Process& impostor = fleet.start_board("test-x86", {"--token-file", client_file}, false);
  const int status = impostor.wait_exit(std::chrono::seconds(30));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << impostor.output();
  EXPECT_NE(impostor.output().find("refused"), std::string::npos) << impostor.output();
  // Nor can a board without a token.
  Process& anonymous = fleet.start_board("test-x86", {}, false);
  EXPECT_EQ(WEXITSTATUS(anonymous.wait_exit(std::chrono::seconds(30))), 1) << anonymous.output();

  // The real board registers, and a client's job runs on it.
  fleet.start_board("test-x86", {"--token-file", board_file});
  auto ctx2 = context(token_of(client_line));
  s = stub->SubmitJob(ctx2.get(), req, &job);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(job.owner(), "alice");
  EXPECT_EQ(follow(*stub, job.id(), token_of(client_line)).state(), v1::DONE);
}

TEST(FleetAuth, TlsWithAThrowawayCertificate) {
  Fleet fleet("tls");
  std::string cert, key;
  ASSERT_NO_FATAL_FAILURE(make_throwaway_certificate(fleet.dir(), &cert, &key));
  fleet.start_tracker({"--tls-cert", cert, "--tls-key", key});
  EXPECT_NE(fleet.tracker().output().find("TLS"), std::string::npos);
  fleet.start_board("test-x86", {"--tls-ca", cert});

  auto secure = fleet.client("", cert, "localhost");
  v1::ListDevicesResponse r;
  auto ctx = context();
  grpc::Status s = secure->ListDevices(ctx.get(), v1::ListDevicesRequest(), &r);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(r.devices_size(), 1) << "the board registered over TLS";

  auto plain = fleet.client();
  auto ctx2 = context("", 5);
  EXPECT_FALSE(plain->ListDevices(ctx2.get(), v1::ListDevicesRequest(), &r).ok())
      << "plaintext to a TLS port must fail";
}

}  // namespace
}  // namespace tf::fleet_test

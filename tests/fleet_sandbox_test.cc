// Boards and the libraries clients send them (Compare), end to end: a library that takes over its
// worker forges nothing beyond its own timing, and a board run by an ordinary user keeps its token,
// memory and environment, and the tracker's token file, from the kernels it measures.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "compiler/compiler.h"
#include "compiler/ops/operator.h"
#include "db/database.h"
#include "proto/tokens.h"
#include "tests/fleet_harness.h"
#include "tests/test_kernels.h"

namespace tf::fleet_test {
namespace {

constexpr uid_t kUnprivileged = 65534;

v1::CompareRequest compare_request(const std::string& key, const std::vector<uint8_t>& library,
                                   const std::string& entry) {
  v1::CompareRequest req;
  req.set_device_key(key);
  req.mutable_workload()->set_op("dense");
  for (int64_t d : {8, 8, 8}) req.mutable_workload()->add_shape(d);
  auto* k = req.add_kernels();
  k->set_name("caller's");
  k->set_library(std::string(library.begin(), library.end()));
  k->set_entry_symbol(entry);
  req.set_rounds(1);
  req.mutable_measure()->set_repeat(2);
  req.mutable_measure()->set_min_repeat_ms(1);
  req.mutable_measure()->set_timeout_s(10);
  return req;
}

TEST(FleetSandbox, ACompareLibraryThatTakesOverItsWorkerForgesNoJobAfterIt) {
  Fleet fleet("foreign-hijack");
  fleet.start_tracker();
  Process& board = fleet.start_board("k");
  auto stub = fleet.client();
  const std::vector<uint8_t> hijacker =
      test_kernels::build_test_library(test_kernels::kHijackingConstructor, "-DTF_OWN_REPEAT=2");
  v1::CompareResponse resp;
  grpc::Status s = stub->Compare(context().get(), compare_request("k", hijacker, "tf_ok"), &resp);
  ASSERT_TRUE(s.ok()) << s.error_message() << fleet.tracker().output();

  const int64_t id = submit(*stub, dense_job("k", {64, 64, 64}, 8));
  ASSERT_EQ(follow(*stub, id).state(), v1::DONE) << board.output();
  db::Database db(fleet.db());
  const std::vector<db::Measurement> trials = db.job_measurements(id);
  ASSERT_EQ(trials.size(), 8u);
  for (const db::Measurement& m : trials) {
    EXPECT_EQ(m.outcome, db::Outcome::Ok) << m.error;
    for (double c : m.costs) EXPECT_NE(c, 1e-8) << "a timing the Compare library forged was stored";
  }
}

// The board runs as an unprivileged user (as the test's own user when that is not root), with its
// token in a file only that user may read and in its environment. Kernels run as the same user,
// so only the worker's file rules and the board's being undumpable keep them out.
TEST(FleetSandbox, ABoardOfAnOrdinaryUserKeepsItsTokenFromTheKernelsItRuns) {
  Fleet fleet("foreign-token");
  const std::string board_line = fleet::new_token_line(fleet::Role::Board, "board");
  const std::string client_line = fleet::new_token_line(fleet::Role::Client, "ci");
  const std::string tokens = fleet.dir() + "/tokens", board_file = fleet.dir() + "/board.token";
  std::ofstream(tokens) << board_line << "\n" << client_line << "\n";
  ::chmod(tokens.c_str(), 0644);  // readable by every user: the file rules alone must keep it from kernels
  std::ofstream(board_file) << board_line << "\n";
  ::chmod(board_file.c_str(), 0600);
  std::vector<std::string> command = {"/usr/bin/env", "TUNEFARM_TOKEN=" + board_line.substr(0, board_line.find(' '))};
  std::string board_exe = TF_RPC_SERVER, worker_exe = TF_MEASURE_WORKER;
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(board_file.c_str(), kUnprivileged, kUnprivileged), 0);
    for (const char* a : {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}) command.push_back(a);
    // The build tree may sit below a folder only root may enter (a checkout in a mktemp -d folder):
    // the unprivileged board runs copies of the two programs from a folder every user may read.
    const std::string bin = fleet.dir() + "/bin";
    ASSERT_EQ(::mkdir(bin.c_str(), 0755), 0);
    ::chmod(fleet.dir().c_str(), 0755);
    for (std::string* exe : {&board_exe, &worker_exe}) {
      const std::string copy = bin + exe->substr(exe->rfind('/'));
      std::filesystem::copy_file(*exe, copy);
      ASSERT_EQ(::chmod(copy.c_str(), 0755), 0);
      *exe = copy;
    }
  }
  command.push_back(board_exe);
  fleet.start_tracker({"--token-file", tokens});
  Process& board = fleet.start_board_from(command, "k", {"--token-file", board_file, "--worker", worker_exe}, true);

  const std::vector<uint8_t> thief = test_kernels::build_test_library(
      test_kernels::kTokenThief, "-DTF_TOKEN_FILE='\"" + board_file + "\"' -DTF_TRACKER_TOKENS='\"" + tokens + "\"'");
  auto stub = fleet.client();
  v1::CompareResponse resp;
  grpc::Status s = stub->Compare(context(client_line.substr(0, client_line.find(' '))).get(),
                                 compare_request("k", thief, "tf_steal"), &resp);
  ASSERT_TRUE(s.ok()) << s.error_message() << fleet.tracker().output();
  ASSERT_EQ(resp.results_size(), 1);
  // 99: read nothing. 100 + 1 the token file, + 2 the board's environment, + 4 its memory, + 8 the
  // tracker's token file.
  EXPECT_NE(resp.results(0).error().find("kernel returned 99 "), std::string::npos) << resp.results(0).error() << "\n"
                                                                                    << board.output();
}

}  // namespace
}  // namespace tf::fleet_test

// What only the PostgreSQL backend has, on a real server: URLs refused or failing with one clear
// error naming them (never their password), hostile strings stored as given, several connections
// and processes writing one database at once, one writer at a time, and the command line with
// --db postgresql://... end to end.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <thread>

#include "db/database.h"
#include "support/subprocess.h"
#include "tests/cli_runner.h"
#include "tests/db_samples.h"
#include "tests/postgres_server.h"

namespace tf::db {
namespace {

using testing_support::PostgresServer;

class DbPostgres : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    server_ = PostgresServer::get(&why);
    if (!server_ && PostgresServer::bin_dir().empty()) GTEST_SKIP() << why;
    ASSERT_NE(server_, nullptr) << "cannot start a PostgreSQL server: " << why;
  }
  PostgresServer* server_ = nullptr;
};

using CliPostgres = DbPostgres;
using CliPostgresTune = DbPostgres;  // times kernels: the "timing" lock (tests/CMakeLists.txt)

bool pg_one_line(const std::string& s) { return s.find_first_of("\r\n") == std::string::npos; }

TEST_F(DbPostgres, AMalformedUrlIsOneErrorNamingIt) {
  const std::string port = std::to_string(server_->port());
  struct Case {
    std::string url, says;
  };
  for (const Case& c : std::vector<Case>{
           {"postgresql://tunefarm@127.0.0.1:notaport/x", "invalid integer value \"notaport\" for connection option"},
           {"postgresql://tunefarm@127.0.0.1:" + port + "/", "names no database"},
           {"postgresql://tunefarm@127.0.0.1:" + port + "/x?no_such_option=1", "bad PostgreSQL URL"},
           {"postgresql://tunefarm@127.0.0.1:" + port + "/x\r\nSET evil", "control character"},
           {"postgresql://tunefarm@127.0.0.1:" + port + "/x\x1b[31m", "control character"},
           {"postgresql://tunefarm@127.0.0.1:" + port + "/" + std::string(100000, 'a'), "bytes long"},
       }) {
    const std::string e = testing_support::db_error_of([&] { Database db(c.url); });
    EXPECT_NE(e.find(c.says), std::string::npos) << e.substr(0, 300);
    EXPECT_NE(e.find("postgresql://tunefarm@127.0.0.1:"), std::string::npos) << e.substr(0, 300);
    EXPECT_TRUE(pg_one_line(e)) << e.substr(0, 300);
    EXPECT_LT(e.size(), 700u) << "a huge URL is cut short in the message";
  }
}

TEST_F(DbPostgres, AServerThatCannotBeReachedIsNamed) {
  const std::string url = "postgresql://tunefarm@127.0.0.1:" + std::to_string(free_loopback_port()) + "/farm";
  const std::string e = testing_support::db_error_of([&] { Database db(url); });
  EXPECT_NE(e.find("cannot open database '" + url + "'"), std::string::npos) << e;
  EXPECT_NE(e.find("refused"), std::string::npos) << e;
  EXPECT_TRUE(pg_one_line(e)) << e;
}

TEST_F(DbPostgres, AWrongPasswordIsRefusedWithoutPrintingIt) {
  const std::string wrong = server_->url("postgres", "guarded", "not-the-password-42");
  const std::string e = testing_support::db_error_of([&] { Database db(wrong); });
  EXPECT_NE(e.find("password authentication failed"), std::string::npos) << e;
  EXPECT_EQ(e.find("not-the-password-42"), std::string::npos) << e;
  EXPECT_NE(e.find("postgresql://guarded:***@127.0.0.1"), std::string::npos) << e;
  // The right password in the URL, and another failure: still not printed.
  const std::string in_query =
      "postgresql://guarded@127.0.0.1:" + std::to_string(server_->port()) + "/postgres?password=hunter2-secret";
  const std::string right = server_->url("postgres", "guarded", "hunter2-secret");
  for (const std::string& url : {right, in_query}) {
    const std::string r = testing_support::db_error_of([&] { Database db(url, Database::Open::ReadOnly); });
    EXPECT_NE(r.find("empty database"), std::string::npos) << r;
    EXPECT_EQ(r.find("hunter2-secret"), std::string::npos) << r;
  }
}

TEST_F(DbPostgres, HostileStringsAreStoredAsGivenAndNeverRunAsSql) {
  const std::string url = server_->fresh_database("hostile");
  Database db(url);
  Measurement m = testing_support::sample_measurement(1);
  m.device = "x'); DROP TABLE measurements; --";
  m.compiler_version = "$1 ? ?2 '' \" \\ ;";
  m.error = std::string(1 << 20, 'e');
  EXPECT_TRUE(db.record(m));
  Measurement bytes = testing_support::sample_measurement(2);
  bytes.outcome = Outcome::CompileError;
  bytes.costs.clear();
  bytes.error = std::string("ld: \xff\xfe bad") + '\0' + "section";
  EXPECT_TRUE(db.record(bytes));
  ModelBaseline b;
  b.name = "b'); DELETE FROM model_baselines; --";
  b.costs = {1e-3};
  b.tfm = {0x00, 0x27, 0x5c, 0xff, 0x00};  // NUL, quote, backslash: bytes, not text
  db.save_model_baseline(b, false);
  const auto stored = db.model_baseline(b.name);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->tfm, b.tfm);
  const auto all = db.all_measurements();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].device, m.device);
  EXPECT_EQ(all[0].compiler_version, m.compiler_version);
  EXPECT_EQ(all[0].error.size(), size_t{1} << 20);
  // PostgreSQL text is UTF-8 without NUL: what it cannot hold reads back as U+FFFD.
  EXPECT_EQ(all[1].error, "ld: \xef\xbf\xbd\xef\xbf\xbd bad\xef\xbf\xbdsection");
  EXPECT_FALSE(db.record(m)) << "the same record again";
  EXPECT_EQ(db.count_measurements(), 2);
}

// Each connection records the same records at once: each is stored once, and exactly one
// connection is told it added it.
TEST_F(DbPostgres, ConnectionsRecordingTheSameRecordsAtOnceStoreEachOnce) {
  const std::string url = server_->fresh_database("same_records");
  { Database db(url); }
  constexpr int kThreads = 4, kRecords = 60;
  std::atomic<int> added{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      try {
        Database db(url);
        for (int i = 0; i < kRecords; ++i) added += db.record(testing_support::sample_measurement(i)) ? 1 : 0;
      } catch (const std::exception& e) {
        ++failures;
        ADD_FAILURE() << e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(added.load(), kRecords);
  EXPECT_EQ(Database(url).count_measurements(), kRecords);
}

// A write transaction holds the database's write lock from its start, as SQLite's BEGIN IMMEDIATE:
// another connection's write waits for the commit, then sees what it wrote.
TEST_F(DbPostgres, OneWriterAtATime) {
  const std::string url = server_->fresh_database("one_writer");
  Database first(url), second(url);
  std::atomic<bool> written{false};
  std::thread writer;
  {
    Transaction t(first.connection());
    writer = std::thread([&] {
      second.record(testing_support::sample_measurement(1));
      written = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_FALSE(written.load()) << "a second writer wrote inside another's transaction";
    t.commit();
  }
  writer.join();
  EXPECT_TRUE(written.load());
  EXPECT_EQ(first.count_measurements(), 1);
}

// Ends the server process serving `db`'s connection, as a server restart would, and waits until it
// is gone.
void end_session_of(Database& db, PostgresServer& server) {
  Statement pid(db.connection(), "SELECT pg_backend_pid()");
  ASSERT_TRUE(pid.step());
  const std::string backend = std::to_string(pid.column_int(0));
  server.admin("SELECT pg_terminate_backend(" + backend + ")");
  auto admin = open_connection(server.url("postgres"), Connection::Access::ReadOnly);
  ASSERT_TRUE(poll_until(
      [&] {
        Statement alive(*admin, "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = " + backend);
        return alive.step() && alive.column_int(0) == 0;
      },
      std::chrono::seconds(10)));
}

TEST_F(DbPostgres, AConnectionTheServerEndedIsMadeAgainUnlessItHoldsAClaim) {
  const std::string url = server_->fresh_database("reconnect");
  Database db(url);
  EXPECT_TRUE(db.record(testing_support::sample_measurement(1)));
  end_session_of(db, *server_);
  EXPECT_TRUE(db.record(testing_support::sample_measurement(2)));
  EXPECT_EQ(db.count_measurements(), 2);

  // A claim lives in its session: a connection holding one fails rather than run on without it,
  // and the job is free for another process to claim.
  Database claimer(url), other(url);
  ASSERT_TRUE(claimer.claim_job(7));
  EXPECT_FALSE(other.claim_job(7));
  end_session_of(claimer, *server_);
  EXPECT_THROW(claimer.count_measurements(), DbError);
  EXPECT_THROW(claimer.count_measurements(), DbError);
  EXPECT_TRUE(other.claim_job(7));
}

// Processes adopt one failed job at once: exactly one of them gets it. Each stays alive after its
// answer, since the job of a dead process is failed again and adoptable.
TEST_F(DbPostgres, AFailedJobIsAdoptedByOneProcessOnly) {
  const std::string url = server_->fresh_database("adopt");
  int64_t id = 0;
  {
    Database db(url);
    id = db.create_job(Json::object(), "me", "failed");
  }
  constexpr int kProcesses = 4;
  int answers[2];
  ASSERT_EQ(pipe(answers), 0);
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      char answer = 'e';
      try {
        Database db(url);
        answer = db.adopt_job(id) ? 'y' : 'n';
      } catch (...) {
      }
      if (write(answers[1], &answer, 1) != 1) _exit(1);
      for (;;) pause();
    }
    children.push_back(child);
  }
  std::string got;
  char c = 0;
  while (got.size() < children.size() && read(answers[0], &c, 1) == 1) got += c;
  for (pid_t child : children) {
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
  }
  close(answers[0]);
  close(answers[1]);
  EXPECT_EQ(std::count(got.begin(), got.end(), 'y'), 1) << got;
  EXPECT_EQ(std::count(got.begin(), got.end(), 'n'), kProcesses - 1) << got;
}

std::string pg_record_line(int mr, double seconds) {
  return "{\"workload\": {\"op\": \"dense\", \"shape\": [32,48,40], \"dtype\": \"float32\"}, \"target\": "
         "{\"target\": \"llvm -mtriple=x86_64-pc-linux-gnu -mcpu=znver4\", \"device_key\": \"local\"}, "
         "\"config\": {}, \"config_index\": " +
         std::to_string(mr) + ", \"costs\": [" + std::to_string(seconds) +
         "], \"outcome\": \"ok\", \"time\": " + std::to_string(1000 + mr) + "}";
}

// import, best, history and export with --db postgresql://..., and a database copied to a file
// and back through export and import.
TEST_F(CliPostgres, ImportBestHistoryExportThroughAUrl) {
  const std::string url = server_->fresh_database("cli");
  const std::string dir = testing_support::scratch("cli_pg");
  {
    std::ofstream out(dir + "/in.jsonl");
    out << pg_record_line(1, 0.002) << "\n" << pg_record_line(2, 0.001) << "\n" << pg_record_line(3, 0.003) << "\n";
  }
  Result imported = run_cli("import --db '" + url + "' " + dir + "/in.jsonl --json");
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_EQ(parse_json(imported.out).at("added").get<int64_t>(), 3);
  Result again = run_cli("import --db '" + url + "' " + dir + "/in.jsonl --json");
  EXPECT_EQ(parse_json(again.out).at("already_present").get<int64_t>(), 3);

  const std::string where = " --op dense --shape 32,48,40 --target 'llvm -mtriple=x86_64-pc-linux-gnu -mcpu=znver4'";
  Result best = run_cli("best --db '" + url + "'" + where + " --json");
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_EQ(parse_json(best.out).at("config_index").get<int64_t>(), 2) << best.out;
  Result history = run_cli("history --db '" + url + "'" + where + " --json");
  ASSERT_EQ(history.exit_code, 0) << history.err;
  EXPECT_NE(history.out.find("0.003"), std::string::npos) << history.out;

  ASSERT_EQ(run_cli("export --db '" + url + "' -o " + dir + "/out.jsonl").exit_code, 0);
  Result into_file = run_cli("import --db " + dir + "/copy.db " + dir + "/out.jsonl --json");
  ASSERT_EQ(into_file.exit_code, 0) << into_file.err;
  EXPECT_EQ(parse_json(into_file.out).at("added").get<int64_t>(), 3);
  Result file_best = run_cli("best --db " + dir + "/copy.db" + where + " --json");
  EXPECT_EQ(parse_json(file_best.out).at("config").dump(), parse_json(best.out).at("config").dump());
}

// A local tune recording into the shared database, and what it found read back from it.
TEST_F(CliPostgresTune, TuneThenBestThroughAUrl) {
  const std::string url = server_->fresh_database("cli_tune");
  Result tune = run_cli("tune --op dense --shape 32,48,40 --trials 4 --batch 2 --min-ms 1 --tuner random --db '" + url +
                        "' --json");
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
  EXPECT_EQ(parse_json(tune.out).at("trials").get<int64_t>(), 4);
  Result best = run_cli("best --op dense --shape 32,48,40 --db '" + url + "' --json");
  ASSERT_EQ(best.exit_code, 0) << best.err;
  Database db(url, Database::Open::ReadOnly);
  EXPECT_EQ(db.count_measurements(), 4);
  ASSERT_EQ(db.jobs().size(), 1u);
  EXPECT_EQ(db.jobs()[0].state, "done");
  EXPECT_EQ(db.job_measurements(db.jobs()[0].id).size(), 4u);
}

TEST_F(CliPostgres, AnUnreachableDatabaseIsOneErrorLineWithoutThePassword) {
  const std::string url =
      "postgresql://tunefarm:s3cret-pw@127.0.0.1:" + std::to_string(free_loopback_port()) + "/nowhere";
  Result r = run_cli("best --db '" + url + "' --op dense --shape 32,48,40");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("postgresql://tunefarm:***@127.0.0.1"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("s3cret-pw"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace tf::db

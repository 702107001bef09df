// Remote builders on a real fleet: tunefarm-builder processes dial the tracker, build every candidate
// a job needs (the tracker builds none while one is connected), are killed mid-job without a trial
// lost or measured twice, and a builder that answers wrongly is cut off while its builds are done
// elsewhere.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "compiler/compiler.h"
#include "db/database.h"
#include "proto/channel.h"
#include "proto/tokens.h"
#include "tests/dashboard_client.h"
#include "tests/fleet_harness.h"

namespace tf::fleet_test {
namespace {

std::map<std::string, double> metrics(int http_port) { return parse_exposition(get(http_port, "/metrics").body); }

// Every measurement of the job, each config once; returns how many.
size_t each_config_once(const std::string& db_path, int64_t job_id) {
  db::Database db(db_path, db::Database::Open::Existing);
  std::set<int64_t> seen;
  const auto all = db.job_measurements(job_id);
  for (const auto& m : all) EXPECT_TRUE(seen.insert(m.config_index).second) << "config " << m.config_index << " twice";
  return all.size();
}

TEST(FleetBuilders, ABuilderBuildsEveryCandidateAndTheTrackerNoneAndACacheServesTheSecondJob) {
  Fleet fleet("builders-remote");
  const int http_port = free_port();
  fleet.start_tracker({"--http", "127.0.0.1:" + std::to_string(http_port)});
  fleet.start_builder();
  fleet.start_board("test-x86");
  auto stub = fleet.client();
  const int64_t id = submit(*stub, dense_job("test-x86", {64, 64, 64}, 24));
  const v1::Job job = follow(*stub, id);
  ASSERT_EQ(job.state(), v1::DONE) << job.message();
  EXPECT_EQ(job.workloads(0).ok(), 24);
  EXPECT_EQ(each_config_once(fleet.db(), id), 24u);
  auto m = metrics(http_port);
  EXPECT_EQ(m["tunefarm_builds_total{where=\"here\"}"], 0) << "the tracker built nothing itself";
  EXPECT_EQ(m["tunefarm_builds_total{where=\"remote\"}"], 24);
  EXPECT_EQ(m["tunefarm_builders{state=\"idle\"}"], 1);
  const std::string builder_ok = "tunefarm_builder_builds_total{builder=\"";
  double answered = 0;
  for (const auto& [sample, value] : m) {
    if (sample.rfind(builder_ok, 0) == 0 && sample.find("outcome=\"ok\"") != std::string::npos) answered += value;
  }
  EXPECT_EQ(answered, 24);

  // The same job again proposes the same configs (same tuner, same seed): they come from the cache.
  const int64_t again = submit(*stub, dense_job("test-x86", {64, 64, 64}, 24));
  ASSERT_EQ(follow(*stub, again).state(), v1::DONE);
  m = metrics(http_port);
  EXPECT_EQ(m["tunefarm_builds_total{where=\"cached\"}"], 24);
  EXPECT_EQ(m["tunefarm_builds_total{where=\"remote\"}"], 24);
  EXPECT_EQ(m["tunefarm_builds_total{where=\"here\"}"], 0);
}

TEST(FleetBuilders, KilledBuildersLoseNoTrialAndMeasureNoneTwice) {
  Fleet fleet("builders-kill");
  const int http_port = free_port();
  fleet.start_tracker({"--http", "127.0.0.1:" + std::to_string(http_port)});
  fleet.start_builder();
  fleet.start_builder();
  fleet.start_board("test-x86");
  auto stub = fleet.client();
  const int64_t id = submit(*stub, dense_job("test-x86", {96, 96, 96}, 48));
  // Once some trials are in, one builder dies, then the other: the tracker's threads finish the job.
  ASSERT_TRUE(eventually([&] {
    v1::Job j;
    auto ctx = context();
    v1::GetJobRequest req;
    req.set_job_id(id);
    return stub->GetJob(ctx.get(), req, &j).ok() && j.workloads(0).trials_done() >= 8;
  }));
  fleet.builder(0).kill(SIGKILL);
  ASSERT_TRUE(eventually([&] {
    v1::Job j;
    auto ctx = context();
    v1::GetJobRequest req;
    req.set_job_id(id);
    return stub->GetJob(ctx.get(), req, &j).ok() && j.workloads(0).trials_done() >= 24;
  }));
  fleet.builder(1).kill(SIGKILL);
  const v1::Job job = follow(*stub, id);
  ASSERT_EQ(job.state(), v1::DONE) << job.message();
  EXPECT_EQ(job.workloads(0).ok(), 48) << "no build lost to a builder's death became a failed trial";
  EXPECT_EQ(each_config_once(fleet.db(), id), 48u);
  ASSERT_TRUE(eventually([&] { return metrics(http_port)["tunefarm_builders{state=\"idle\"}"] == 0; }));
  auto m = metrics(http_port);
  EXPECT_GT(m["tunefarm_builds_total{where=\"remote\"}"], 0);
  EXPECT_GT(m["tunefarm_builds_total{where=\"here\"}"], 0) << "with no builder left the tracker builds";
  EXPECT_NE(fleet.tracker().output().find("left"), std::string::npos);
}

TEST(FleetBuilders, OnlyBuilderTokensBuildAndABuildersTokenDoesNothingElse) {
  Fleet fleet("builders-auth");
  const std::string board_line = fleet::new_token_line(fleet::Role::Board, "board");
  const std::string builder_line = fleet::new_token_line(fleet::Role::Builder, "builder");
  const std::string client_line = fleet::new_token_line(fleet::Role::Client, "alice");
  const std::string tokens = fleet.dir() + "/tokens";
  std::ofstream(tokens) << board_line << "\n" << builder_line << "\n" << client_line << "\n";
  for (const auto& [file, line] : {std::pair{"board", board_line}, {"builder", builder_line}, {"client", client_line}})
    std::ofstream(fleet.dir() + "/" + file + ".token") << line << "\n";
  fleet.start_tracker({"--token-file", tokens});

  for (const std::string wrong : {"board", "client"}) {
    Process& impostor = fleet.start_builder({"--token-file", fleet.dir() + "/" + wrong + ".token"}, false);
    const int status = impostor.wait_exit(std::chrono::seconds(30));
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << impostor.output();
    EXPECT_NE(impostor.output().find("role " + wrong), std::string::npos) << impostor.output();
  }
  Process& board_as_builder = fleet.start_board("test-x86", {"--token-file", fleet.dir() + "/builder.token"}, false);
  EXPECT_EQ(WEXITSTATUS(board_as_builder.wait_exit(std::chrono::seconds(30))), 1) << board_as_builder.output();
  // A builder's token submits nothing.
  auto stub = fleet.client();
  v1::SubmitJobRequest req;
  *req.mutable_spec() = dense_job("test-x86", {64, 64, 64}, 4);
  v1::Job job;
  auto ctx = context(token_of(builder_line));
  EXPECT_EQ(stub->SubmitJob(ctx.get(), req, &job).error_code(), grpc::StatusCode::PERMISSION_DENIED);

  fleet.start_builder({"--token-file", fleet.dir() + "/builder.token"});
  fleet.start_board("test-x86", {"--token-file", fleet.dir() + "/board.token"});
  const int64_t id = submit(*stub, dense_job("test-x86", {64, 64, 64}, 8), token_of(client_line));
  EXPECT_EQ(follow(*stub, id, token_of(client_line)).state(), v1::DONE);
}

// A builder speaking the protocol by hand.
struct RawBuilder {
  explicit RawBuilder(const std::string& address)
      : stub(v1::Builders::NewStub(fleet::open_channel(address, ""))), stream(stub->Connect(&ctx)) {}
  v1::BuilderInfo info(int jobs = 1) const {
    v1::BuilderInfo i;
    i.set_hostname("raw");
    i.set_pid(1);
    i.set_jobs(jobs);
    i.set_compiler_version(compiler::version());
    i.add_triples("x86_64-pc-linux-gnu");
    i.set_protocol_version(1);
    return i;
  }
  grpc::Status register_as(const v1::BuilderInfo& i) {
    v1::BuilderMessage m;
    *m.mutable_register_()->mutable_info() = i;
    v1::BuilderWork first;
    if (stream->Write(m) && stream->Read(&first) && first.has_registered()) return grpc::Status::OK;
    return stream->Finish();
  }
  grpc::ClientContext ctx;
  std::unique_ptr<v1::Builders::Stub> stub;
  std::unique_ptr<grpc::ClientReaderWriter<v1::BuilderMessage, v1::BuilderWork>> stream;
};

TEST(FleetBuilders, ARegistrationThatLiesIsRefusedNamingTheField) {
  Fleet fleet("builders-register");
  fleet.start_tracker();
  auto refused = [&](const std::function<void(v1::BuilderInfo&)>& edit) {
    RawBuilder b(fleet.address());
    v1::BuilderInfo i = b.info();
    edit(i);
    return b.register_as(i);
  };
  grpc::Status s = refused([](v1::BuilderInfo& i) { i.set_compiler_version("tunefarm 0.0.1 / LLVM 15"); });
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(s.error_message().find("compiler"), std::string::npos) << s.error_message();
  s = refused([](v1::BuilderInfo& i) { i.set_jobs(0); });
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("jobs"), std::string::npos) << s.error_message();
  s = refused([](v1::BuilderInfo& i) { i.set_hostname("evil\r\nX-Injected: 1"); });
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("hostname"), std::string::npos) << s.error_message();
  EXPECT_EQ(s.error_message().find('\n'), std::string::npos) << "control characters are escaped";
  s = refused([](v1::BuilderInfo& i) { i.set_triples(0, "x86_64; rm -rf /"); });
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  s = refused([](v1::BuilderInfo& i) { i.clear_triples(); });
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  s = refused([](v1::BuilderInfo& i) { i.set_protocol_version(7); });
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  // A first message that is not Register.
  RawBuilder b(fleet.address());
  v1::BuilderMessage hb;
  hb.mutable_heartbeat();
  ASSERT_TRUE(b.stream->Write(hb));
  v1::BuilderWork none;
  EXPECT_FALSE(b.stream->Read(&none));
  EXPECT_EQ(b.stream->Finish().error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

// A builder that answers its builds with the wrong things: every answer is dropped, the builder is
// cut off after three, and its builds are done by the tracker: the job measures the right kernels.
TEST(FleetBuilders, ABuilderThatAnswersWronglyIsCutOffAndItsBuildsAreDoneElsewhere) {
  Fleet fleet("builders-hostile");
  fleet.start_tracker();
  RawBuilder hostile(fleet.address());
  ASSERT_TRUE(hostile.register_as(hostile.info(4)).ok());
  fleet.start_board("test-x86");
  auto stub = fleet.client();
  const int64_t id = submit(*stub, dense_job("test-x86", {64, 64, 64}, 16));
  std::vector<v1::BuildRequest> got;
  v1::BuilderWork w;
  while (got.size() < 3 && hostile.stream->Read(&w)) {
    if (w.has_build()) got.push_back(w.build());
  }
  ASSERT_EQ(got.size(), 3u) << "the job's first builds went to the only builder";
  auto answer = [&](const std::function<void(v1::BuildResult&)>& edit) {
    v1::BuilderMessage m;
    edit(*m.mutable_result());
    return hostile.stream->Write(m);
  };
  answer([&](v1::BuildResult& r) {  // not an ELF file
    r.set_build_id(got[0].build_id());
    r.set_library("#!/bin/sh\nrm -rf /\n");
    r.set_entry_symbol("tf_dense_64x64x64");
  });
  answer([&](v1::BuildResult& r) {  // another entry symbol
    std::string elf(64, '\0');
    elf.replace(0, 4,
                "\x7f"
                "ELF");
    elf[18] = 62;
    r.set_build_id(got[1].build_id());
    r.set_library(elf);
    r.set_entry_symbol("system");
  });
  answer([&](v1::BuildResult& r) {  // a build never sent
    r.set_build_id(got[2].build_id() + 1000000);
    r.set_library("x");
  });
  // The third bad answer ends the stream from the tracker's side.
  while (hostile.stream->Read(&w)) {
  }
  hostile.stream->Finish();
  const v1::Job job = follow(*stub, id);
  ASSERT_EQ(job.state(), v1::DONE) << job.message();
  EXPECT_EQ(job.workloads(0).ok(), 16) << "every candidate built by the tracker and measured right";
  const std::string log = fleet.tracker().output();
  EXPECT_NE(log.find("not an ELF file"), std::string::npos) << log;
  EXPECT_NE(log.find("entry symbol 'system'"), std::string::npos) << log;
  EXPECT_NE(log.find("disconnected after 3"), std::string::npos) << log;
}

}  // namespace
}  // namespace tf::fleet_test

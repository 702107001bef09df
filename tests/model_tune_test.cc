// `tunefarm model tune` as a user runs it: a small CNN's kernels tuned as one job on this host and
// on a fleet of real processes, killed midway and resumed, then built with what it found.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "compiler/codegen/target.h"
#include "db/database.h"
#include "graph/build.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "runtime/model/executor.h"
#include "support/json.h"
#include "tests/cli_runner.h"
#include "tests/fleet_harness.h"
#include "tests/graph_evaluator.h"
#include "tests/test_files.h"
#include "tuner/best_configs.h"
#include "tuner/tune_job.h"

namespace tf {
namespace {

using testing_support::scratch;
using testing_support::small_cnn;

using fleet_test::eventually;
namespace v1 = ::tunefarm::v1;

// Every measurement of the job: how many, each config once per workload.
size_t measured_once(const std::string& db_path, int64_t job_id,
                     std::map<std::string, int64_t>* per_workload = nullptr) {
  db::Database db(db_path, db::Database::Open::Existing);
  std::set<std::pair<std::string, int64_t>> seen;
  const auto ms = db.job_measurements(job_id);
  for (const auto& m : ms) {
    EXPECT_TRUE(seen.insert({m.workload_key(), m.config_index}).second)
        << m.workload_key() << " config " << m.config_index << " twice";
    if (per_workload) ++(*per_workload)[m.workload_key()];
  }
  return ms.size();
}

// Measurements in a db another process is writing; 0 until the file holds a schema.
int64_t measurements_in(const std::string& db_path) {
  try {
    db::Database d(db_path, db::Database::Open::ReadOnly);
    return d.count_measurements();
  } catch (const std::exception&) {
    return 0;
  }
}

// Measured quickly: the kernels are small and only outcomes and counts are checked.
const std::string kQuick = " --min-ms 1 --repeat 1";

TEST(ModelTune, LocalJobSpendsItsBudgetOverEveryKernelAndTheBuildUsesWhatItFound) {
  const std::string dir = scratch("local");
  const std::string db = dir + "/t.db";
  Result r = run_cli("model tune " + small_cnn() + " --trials 96 --db " + db + kQuick + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const Json j = parse_json(r.out);
  EXPECT_EQ(j.at("state"), "done");
  EXPECT_EQ(j.at("trials"), 96);
  EXPECT_EQ(j.at("scheduler"), "gradient");
  // 5 kernels; the two 3x3 stride-1 convs on 32x32 and 16x16 outputs also as Winograd F(2x2), F(4x4).
  const Json& tasks = j.at("tasks");
  ASSERT_EQ(tasks.size(), 9u);
  // Per group: the member a build picks (fastest alone) and its time inside the model.
  std::map<int, std::pair<double, double>> fastest;
  double estimate = 0;
  int64_t trials = 0;
  for (const auto& t : tasks) {
    EXPECT_GE(t.at("trials").get<int64_t>(), 8) << t.dump() << ": every kernel gets a warm-up batch";
    EXPECT_GT(t.at("best_ms").get<double>(), 0) << t.dump();
    // Each kernel counts at its time inside the model: its time alone times the ratio of its best
    // config inside the model (built with the bests so far at the job's checkpoints) to the same
    // config timed alone.
    const double scale = t.at("in_model_scale").get<double>();
    EXPECT_GE(scale, 0.5) << t.dump();
    EXPECT_LE(scale, 4.0) << t.dump();
    const double alone = t.at("best_ms").get<double>() * t.at("calls").get<double>();
    const int group = t.at("group").get<int>();
    if (group == 0)
      estimate += alone * scale;
    else if (!fastest.count(group) || alone < fastest[group].first)
      fastest[group] = {alone, alone * scale};
    trials += t.at("trials").get<int64_t>();
  }
  EXPECT_EQ(fastest.size(), 2u);
  for (const auto& [group, leader] : fastest) estimate += leader.second;  // a group runs its fastest member
  EXPECT_EQ(trials, 96);
  EXPECT_EQ(j.at("in_model_timings"), 3);
  // The estimate is the tuned kernels plus what the other nodes took in the last of those builds,
  // and the tuned model was built and timed at the end.
  const double other = j.at("other_nodes_ms").get<double>();
  EXPECT_GT(other, 0) << "the global pool, the softmax and the layout transforms take some time";
  EXPECT_NEAR(j.at("estimated_ms").get<double>(), estimate + other, 1e-6 * estimate);
  EXPECT_GT(j.at("measured_ms").get<double>(), 0);
  // The default build was timed again beside the tuned one: the machine's drift in between.
  EXPECT_GT(j.at("default_before_ms").get<double>(), 0);
  EXPECT_GT(j.at("default_after_ms").get<double>(), 0);
  EXPECT_NEAR(j.at("machine_drift").get<double>(),
              j.at("default_after_ms").get<double>() / j.at("default_before_ms").get<double>(), 1e-9);
  // The estimate after each batch: what the trials bought, ending where the job ended.
  const Json& curve = j.at("curve");
  ASSERT_FALSE(curve.empty());
  EXPECT_EQ(curve.back()[0], 96);
  std::map<std::string, int64_t> per_workload;
  EXPECT_EQ(measured_once(db, j.at("job_id").get<int64_t>(), &per_workload), 96u);
  EXPECT_EQ(per_workload.size(), 9u);
  // Progress said where the job stood.
  EXPECT_NE(r.err.find("estimated"), std::string::npos) << r.err;

  // A model job times its kernels' weights cold, and says so in every record.
  {
    db::Database d(db, db::Database::Open::ReadOnly);
    for (const auto& m : d.job_measurements(j.at("job_id").get<int64_t>())) {
      EXPECT_EQ(m.timing, runtime::ColdInputs::Weights) << m.to_json().dump();
    }
  }

  Result build = run_cli("model build " + small_cnn() + " --db " + db + " -o " + dir + "/m.tfm --json -q");
  ASSERT_EQ(build.exit_code, 0) << build.err;
  EXPECT_EQ(parse_json(build.out).at("tuned_kernels"), 5) << build.out;
  EXPECT_EQ(parse_json(build.out).at("timing"), "cold-weights") << build.out;
  EXPECT_TRUE(parse_json(build.out).at("timed_otherwise").empty()) << build.out;
  // Asked for warm timings, which this db has none of: every workload falls back to its cold best.
  Result warm = run_cli("model build " + small_cnn() + " --db " + db + " --timing warm -o " + dir + "/w.tfm --json");
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  EXPECT_EQ(parse_json(warm.out).at("tuned_kernels"), 5) << warm.out;
  EXPECT_GE(parse_json(warm.out).at("timed_otherwise").size(), 5u) << warm.out;
  EXPECT_NE(warm.err.find("no record timed warm"), std::string::npos) << warm.err;
}

// --layouts graph: every block of each conv is a member of its group, the conversions are measured
// once (count 0), and the build from the db runs the plan those times give, computing what the
// model says.
TEST(ModelTune, GraphLayoutsTuneEveryBlockMeasureTheConversionsAndTheBuildComputesTheModel) {
  const std::string dir = scratch("graph-layouts");
  const std::string db_path = dir + "/t.db";
  Result r =
      run_cli("model tune " + small_cnn() + " --layouts graph --trials 150 --db " + db_path + kQuick + " --json -q");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const Json j = parse_json(r.out);
  EXPECT_EQ(j.at("state"), "done");
  std::set<int64_t> output_blocks;
  int conversions = 0;
  for (const auto& t : j.at("tasks")) {
    const std::string op = t.at("op");
    if (op.rfind("layout_", 0) == 0) {
      ++conversions;
      EXPECT_EQ(t.at("calls"), 0) << t.dump();
      EXPECT_GT(t.at("best_ms").get<double>(), 0) << t.dump() << ": measured once for the plan";
      continue;
    }
    if (op.rfind("conv2d_nchwc", 0) == 0) {
      const std::string shape = t.at("shape");
      output_blocks.insert(std::stoll(shape.substr(shape.rfind("ob=") + 3)));
    }
  }
  EXPECT_GT(conversions, 0);
  EXPECT_EQ(output_blocks, (std::set<int64_t>{8, 16, 32}));
  EXPECT_GT(j.at("measured_ms").get<double>(), 0) << "the planned model was built from the db and timed";

  // The same plan in process, against the test evaluator.
  db::Database db(db_path, db::Database::Open::ReadOnly);
  graph::ImportOptions import;
  import.batch = 1;
  const graph::Graph imported = graph::import_onnx_file(small_cnn(), import);
  const tuner::BestConfigs best(&db, j.at("target").get<std::string>(), tuner::local_device_key(1));
  graph::PlanOptions plan;
  plan.measured_seconds = [&](const ops::Workload& w) { return best.seconds(w); };
  graph::BuildOptions options;
  options.target = codegen::host_target();
  options.config_for = [&](const ops::Workload& w) { return best.config(w); };
  runtime::model::Executor exec(graph::build_model(graph::plan_graph(imported, plan), options));
  const graph::Tensor x = graph::testing::random_tensor({1, 3, 32, 32}, 3);
  const auto want = graph::testing::Evaluator(imported).run({{"input", x}});
  const auto got = exec.run_floats({{"input", x.f32}});
  for (const auto& [name, y] : want) {
    EXPECT_LT(graph::testing::max_relative_difference(graph::Tensor::floats(y.shape, got.at(name)), y), 1e-4) << name;
  }
}

TEST(ModelTune, AKilledLocalJobResumesWhereItStoppedWhenRunAgain) {
  const std::string dir = scratch("resume");
  const std::string db = dir + "/t.db";
  const std::vector<std::string> argv = {TF_CLI, "model",    "tune", small_cnn(), "--trials", "72",          "--db",
                                         db,     "--min-ms", "1",    "--repeat",  "1",        "--scheduler", "even"};
  {
    Subprocess first(argv, dir + "/first.log");
    ASSERT_TRUE(eventually([&] { return measurements_in(db) >= 24; })) << first.output();
    first.kill(SIGKILL);
  }
  const size_t before = measured_once(db, 1);
  ASSERT_GE(before, 24u);
  ASSERT_LT(before, 72u);
  Result again = run_cli("model tune " + small_cnn() + " --trials 72 --db " + db + kQuick + " --scheduler even --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("resumed with " + std::to_string(before) + " of 72 trials"), std::string::npos) << again.err;
  const Json j = parse_json(again.out);
  EXPECT_EQ(j.at("job_id"), 1);
  EXPECT_EQ(j.at("trials"), 72);
  EXPECT_EQ(measured_once(db, 1), 72u);
  // The even split: 72 trials over 5 kernels.
  for (const auto& t : j.at("tasks")) EXPECT_NEAR(t.at("trials").get<double>(), 14.4, 8) << t.dump();
}

// A budget in wall time: the search stops starting batches at the limit, the best configs are still
// confirmed and the model timed, and the job is done (run again, it is a new job, not a resume).
TEST(ModelTune, ATimeLimitEndsTheSearchAndTheJobIsDone) {
  const std::string db = scratch("time-limit") + "/t.db";
  const std::string command =
      "model tune " + small_cnn() + " --trials 100000 --time-limit 4 --db " + db + kQuick + " --json -q";
  Result r = run_cli(command);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json j = parse_json(r.out);
  EXPECT_EQ(j.at("state"), "done");
  EXPECT_TRUE(j.at("time_limit_reached").get<bool>());
  EXPECT_GT(j.at("trials").get<int64_t>(), 0);
  EXPECT_LT(j.at("trials").get<int64_t>(), 100000);
  EXPECT_GT(j.at("measured_ms").get<double>(), 0) << "the tuned model is still timed";
  Result again = run_cli(command);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(parse_json(again.out).at("job_id"), j.at("job_id").get<int64_t>() + 1);

  Result text = run_cli("model tune " + small_cnn() + " --trials 100000 --time-limit 2 --db " + db + kQuick + " -q");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("(time limit reached)"), std::string::npos) << text.out;
  Result negative = run_cli("model tune " + small_cnn() + " --time-limit -1 --db " + db);
  EXPECT_EQ(negative.exit_code, 2);
  EXPECT_NE(negative.err.find("--time-limit"), std::string::npos) << negative.err;
}

TEST(ModelTune, BadRequestsAreOneLineErrors) {
  Result r = run_cli("model tune " + small_cnn() + " --scheduler fair");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--scheduler"), std::string::npos) << r.err;
  r = run_cli("model tune " + small_cnn() + " --tracker 127.0.0.1:1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--tracker needs --key"), std::string::npos) << r.err;
  r = run_cli("model tune /nonexistent.onnx");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nonexistent.onnx"), std::string::npos) << r.err;
}

TEST(ModelTuneFleet, OneJobOnTheBoardsThatSurvivesATrackerKill) {
  fleet_test::Fleet fleet("model-tune");
  fleet.start_tracker();
  fleet.start_board("test-x86");
  const std::vector<std::string> argv = {TF_CLI,     "model",     "tune",          small_cnn(), "--key",
                                         "test-x86", "--tracker", fleet.address(), "--trials",  "96",
                                         "--min-ms", "1",         "--repeat",      "1"};
  Subprocess cli(argv, fleet.dir() + "/cli.log");
  auto stub = fleet.client();
  auto trials_done = [&](v1::Job* out = nullptr) -> int64_t {
    v1::GetJobRequest req;
    req.set_job_id(1);
    v1::Job job;
    auto ctx = fleet_test::context("", 5);
    if (!stub->GetJob(ctx.get(), req, &job).ok()) return 0;
    if (out) *out = job;
    int64_t n = 0;
    for (const auto& w : job.workloads()) n += w.trials_done();
    return n;
  };
  ASSERT_TRUE(eventually([&] { return trials_done() >= 16; })) << cli.output() << fleet.tracker().output();
  // One job of the tracker's, with the model's workloads under one budget.
  v1::Job job;
  trials_done(&job);
  EXPECT_EQ(job.spec().scheduler(), "gradient");
  EXPECT_EQ(job.spec().model(), "small_cnn.onnx");
  EXPECT_EQ(job.spec().input_shapes(), "input=1,3,32,32");  // what tells this job from the model at another shape
  EXPECT_EQ(job.workloads_size(), 9);                       // 5 kernels and 4 Winograd alternatives in 2 groups
  EXPECT_EQ(job.spec().calls_size(), 9);
  EXPECT_EQ(job.spec().groups_size(), 9);

  fleet.kill_tracker();
  fleet.start_tracker();
  stub = fleet.client();
  ASSERT_NE(cli.wait_exit(std::chrono::seconds(300)), -1) << cli.output();
  const std::string out = cli.output();
  EXPECT_NE(out.find("job 1 done, 96 of 96 trials"), std::string::npos) << out << fleet.tracker().output();
  EXPECT_NE(out.find("lost the tracker"), std::string::npos) << out;
  EXPECT_EQ(measured_once(fleet.db(), 1), 96u);
  EXPECT_NE(fleet.tracker().output().find("resumed 1 unfinished job"), std::string::npos) << fleet.tracker().output();

  // What the boards found builds the model: the command says how (their key and target).
  const size_t at = out.find("--target '");
  ASSERT_NE(at, std::string::npos) << out;
  const std::string target = out.substr(at + 10, out.find('\'', at + 10) - at - 10);
  Result build = run_cli("model build " + small_cnn() + " --db " + fleet.db() + " --key test-x86 --target '" + target +
                         "' -o " + fleet.dir() + "/m.tfm --json -q");
  ASSERT_EQ(build.exit_code, 0) << build.err;
  EXPECT_EQ(parse_json(build.out).at("tuned_kernels"), 5) << build.out;

  // `tunefarm status` shows it as one job with its estimate.
  Result status = run_cli("status 1 --tracker " + fleet.address());
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("model small_cnn.onnx: 96/96 trials (gradient), estimated"), std::string::npos)
      << status.out;
  EXPECT_NE(status.out.find("  inputs input=1,3,32,32"), std::string::npos) << status.out;
}

// On a fleet the tracker keeps the limit: the job is done, says so in its own field (kept in the
// tracker's db), and the command reports it.
TEST(ModelTuneFleet, TheTrackerEndsAJobAtItsTimeLimit) {
  fleet_test::Fleet fleet("model-time-limit");
  fleet.start_tracker();
  fleet.start_board("test-x86");
  Result r = run_cli("model tune " + small_cnn() + " --key test-x86 --tracker " + fleet.address() +
                     " --trials 100000 --time-limit 4 --min-ms 1 --repeat 1 --json -q");
  ASSERT_EQ(r.exit_code, 0) << r.err << fleet.tracker().output();
  const Json j = parse_json(r.out);
  EXPECT_EQ(j.at("state"), "done");
  EXPECT_TRUE(j.at("time_limit_reached").get<bool>()) << r.out;
  EXPECT_LT(j.at("trials").get<int64_t>(), 100000);
  Result job =
      run_cli("status " + std::to_string(j.at("job_id").get<int64_t>()) + " --json --tracker " + fleet.address());
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_TRUE(parse_json(job.out).at("time_limit_reached").get<bool>()) << job.out;
}

TEST(ModelTuneFleet, CancellingTheJobEndsTheCommand) {
  fleet_test::Fleet fleet("model-cancel");
  fleet.start_tracker();
  fleet.start_board("test-x86");
  const std::vector<std::string> argv = {TF_CLI,     "model",     "tune",          small_cnn(), "--key",
                                         "test-x86", "--tracker", fleet.address(), "--trials",  "2000",
                                         "--min-ms", "1",         "--repeat",      "1"};
  Subprocess cli(argv, fleet.dir() + "/cli.log");
  ASSERT_TRUE(eventually([&] { return measurements_in(fleet.db()) >= 8; })) << cli.output();
  Result cancel = run_cli("cancel 1 --tracker " + fleet.address());
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  const int status = cli.wait_exit(std::chrono::seconds(60));
  ASSERT_NE(status, -1) << cli.output();
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(cli.output().find("job 1 cancelled"), std::string::npos) << cli.output();
}

}  // namespace
}  // namespace tf

// Model-level CI verdicts as CI runs them: a whole model saved as a baseline, then compared with the
// build of the day on this host. A build whose main conv got a slow config is "slower" (exit 1, a
// JUnit failure); the same build is "unchanged" (exit 0); bad input is refused (exit 2).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "compiler/codegen/target.h"
#include "compiler/compiler.h"
#include "db/database.h"
#include "support/files.h"
#include "support/json.h"
#include "tests/cli_runner.h"
#include "tests/test_files.h"

namespace tf {
namespace {

using testing_support::scratch;
using testing_support::small_cnn;

std::string read_text(const std::string& path) { return try_read_file(path).value_or(""); }

// Files a config as the fastest ever measured for one of the model's convs: the next build uses it.
void record_as_best(const std::string& db_path, const std::string& op, const std::string& shape, const Json& config) {
  db::Database db(db_path, db::Database::Open::Existing);
  db::Measurement m;
  m.op = op;
  m.shape = ops::parse_shape(op, shape);
  m.target = codegen::host_target().str();
  m.device_key = "local";
  m.config = config;
  m.config_index = compiler::Task({m.op, m.shape}, codegen::host_target()).space().from_json(config).index();
  m.costs = {1e-9};
  m.compiler_version = compiler::version();
  ASSERT_TRUE(db.record(m));
}

TEST(ModelRegressCli, TheSameBuildIsUnchangedAndASlowConfigIsSlower) {
  const std::string dir = scratch("verdicts");
  const std::string db = dir + "/t.db", model = " --model " + small_cnn() + " --db " + db;
  Result save = run_cli("baseline save nightly" + model + " --rounds 8 --json");
  ASSERT_EQ(save.exit_code, 0) << save.err << save.out;
  EXPECT_EQ(parse_json(save.out).at("stored"), true);
  Result list = run_cli("baseline list --db " + db);
  EXPECT_NE(list.out.find("nightly"), std::string::npos) << list.out;

  Result same = run_cli("regress --baseline nightly" + model + " --rounds 10 --json " + dir + "/same.json");
  EXPECT_EQ(same.exit_code, 0) << same.err << same.out;
  const Json report = parse_json(read_text(dir + "/same.json"));
  ASSERT_EQ(report.at("workloads").size(), 1u);
  EXPECT_EQ(report.at("workloads")[0].at("status"), "unchanged") << report.dump(2);
  EXPECT_EQ(report.at("workloads")[0].at("config_changed"), false);

  // The model's two largest convs, 86% of its multiplies, with a register tile far past the
  // target's registers (16 x 4 outputs, kernel width and 4 input channels unrolled: spills): about
  // 5x slower than the default on AVX2 (11.6 vs 56.7 GFLOPS measured), the model well past noise.
  const Json slow{{"oc_blocks", 1}, {"ow_tile", 16},    {"oh_tile", 4},    {"unroll_kw", true},
                  {"unroll_ic", 4}, {"order", "kh_ic"}, {"pad", "inline"}, {"parallel", "none"}};
  record_as_best(db, "conv2d_nchwc_bias_add_relu", "n=1,c=32,h=16,w=16,k=32,r=3,s=3,pad=1,ib=16,ob=16", slow);
  record_as_best(db, "conv2d_nchwc_bias_relu", "n=1,c=16,h=32,w=32,k=32,r=3,s=3,stride=2,pad=1,ib=16,ob=16", slow);
  Result slower = run_cli("regress --baseline nightly" + model + " --rounds 10 --junit " + dir + "/slow.xml");
  EXPECT_EQ(slower.exit_code, 1) << slower.err << slower.out;
  EXPECT_NE(slower.out.find("**slower**"), std::string::npos) << slower.out;
  EXPECT_NE(slower.out.find("changed"), std::string::npos) << slower.out;
  EXPECT_NE(read_text(dir + "/slow.xml").find("<failure"), std::string::npos);
}

TEST(ModelRegressCli, BadInputIsRefusedAsAFailedRun) {
  const std::string dir = scratch("refused");
  const std::string db = dir + "/t.db", model = " --model " + small_cnn() + " --db " + db;
  ASSERT_EQ(run_cli("baseline save b" + model + " --rounds 6").exit_code, 0);
  struct Case {
    std::string args, says;
  };
  const std::vector<Case> cases = {
      {"regress --baseline nope" + model, "no model baseline named 'nope'"},
      {"regress --baseline b --db " + db, "--suite FILE (kernels) or --model M.onnx"},
      {"regress --baseline b --key boards" + model, "measures on this host"},
      {"regress --baseline b --batch 2" + model, "was built for inputs"},
      {"baseline save b" + model, "exists"},
  };
  for (const auto& c : cases) {
    Result r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << "\n" << r.err;
  }
  // Deleting removes it; a second delete names it missing.
  EXPECT_EQ(run_cli("baseline delete b --db " + db).exit_code, 0);
  EXPECT_NE(run_cli("baseline delete b --db " + db).exit_code, 0);
}

}  // namespace
}  // namespace tf

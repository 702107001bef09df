// --input-shape as a user types it on `model inspect`, `model build` and `model tune`: symbolic
// extents listed and bound, the bound shapes carried into what identifies a built or tuned model,
// and every malformed value one line naming the flag (exit 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "db/database.h"
#include "support/json.h"
#include "tests/cli_runner.h"
#include "tests/onnx_model_builder.h"
#include "tests/test_files.h"

namespace {

using tf::testing_support::scratch;

using tf::graph::testing::OnnxModelBuilder;

// image [N,3,H,W] -> 3x3 conv (pad 1) with bias -> Relu, written to `dir`.
std::string stem_model(const std::string& dir) {
  OnnxModelBuilder b(13);
  b.input_dims("image", {"N", "3", "H", "W"}).output("y");
  b.floats("w", {8, 3, 3, 3}, std::vector<float>(216, 0.1f)).floats("bias", {8}, std::vector<float>(8, 0.5f));
  OnnxModelBuilder::attr(b.node("Conv", {"image", "w", "bias"}, {"c"}, "conv"), "pads",
                         std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c"}, {"y"}, "relu");
  const std::string path = dir + "/stem.onnx";
  std::ofstream(path, std::ios::binary) << b.bytes();
  return path;
}

bool one_line(const std::string& s) { return std::count(s.begin(), s.end(), '\n') == 1; }

TEST(ModelCliInputShape, InspectListsSymbolicExtentsAndWhatBindsThem) {
  const std::string model = stem_model(scratch("inspect"));
  Result r = run_cli("model inspect " + model);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(
      r.out.find("image                    float32  [N,3,H,W]  symbolic: N (extent 0), H (extent 2), W (extent 3)"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("unbound inputs: " + model +
                       ": input 'image' [N,3,H,W]: extents 2 ('H') and 3 ('W') are symbolic; bind them "
                       "with --input-shape image=1,3,H,W"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("tunable tasks"), std::string::npos) << r.out;

  r = run_cli("model inspect " + model + " --input-shape image=2,3,64,48");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("[N,3,H,W] -> [2,3,64,48]  symbolic: N (extent 0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("n=2,c=3,h=64,w=48,k=8"), std::string::npos) << r.out;

  r = run_cli("model inspect " + model + " --input-shape image=2,3,64,48 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const tf::Json j = tf::parse_json(r.out);
  const tf::Json& in = j.at("inputs").at(0);
  EXPECT_EQ(in.at("shape"), "[N,3,H,W]");
  EXPECT_EQ(in.at("symbolic").dump(), R"([{"extent":0,"name":"N"},{"extent":2,"name":"H"},{"extent":3,"name":"W"}])");
  EXPECT_EQ(in.at("bound").dump(), "[2,3,64,48]");
  EXPECT_EQ(j.at("input_shapes").dump(), R"({"image":[2,3,64,48]})");
  EXPECT_TRUE(j.at("binding_error").is_null());
  EXPECT_NE(j.at("tasks").at(0).at("shape").get<std::string>().find("n=2,c=3,h=64,w=48"), std::string::npos) << r.out;

  Result unbound = run_cli("model inspect " + model + " --json --batch 2");
  EXPECT_EQ(unbound.exit_code, 1);
  const tf::Json u = tf::parse_json(unbound.out);
  EXPECT_TRUE(u.at("inputs").at(0).at("bound").is_null());
  EXPECT_NE(u.at("binding_error").get<std::string>().find("--input-shape image=2,3,H,W"), std::string::npos)
      << unbound.out;
}

TEST(ModelCliInputShape, ExportedModelsListTheirSymbolicExtents) {
  Result r = run_cli("model inspect " + std::string(TF_MODELS_DIR) +
                     "/transformer_opset13.onnx --input-shape input_ids=1,24 --json");
  ASSERT_NE(r.exit_code, 2) << r.err;
  const tf::Json j = tf::parse_json(r.out);
  ASSERT_EQ(j.at("inputs").size(), 2u);
  for (const auto& in : j.at("inputs")) {
    EXPECT_EQ(in.at("shape"), "[batch,sequence]");
    EXPECT_EQ(in.at("bound").dump(), "[1,24]") << in.dump();  // attention_mask shares 'sequence' with input_ids
  }
}

TEST(ModelCliInputShape, BadValuesAreOneLineErrorsNamingTheFlag) {
  const std::string model = stem_model(scratch("bad"));
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"--input-shape image", "--input-shape 'image': expected NAME=LIST, e.g. image=1,3,640,640"},
      {"--input-shape =1,3,8,8", "--input-shape '=1,3,8,8': the input name is empty"},
      {"--input-shape image=", "--input-shape 'image=': the shape is empty"},
      {"--input-shape image=1,3,a,8", "--input-shape image must be comma-separated integers, got '1,3,a,8'"},
      {"--input-shape image=1,3,8,", "--input-shape image must be comma-separated integers"},
      {"--input-shape image=1,3,99999999999999999999,8", "--input-shape image must be comma-separated integers"},
      {"--input-shape image=1,3,0,8", "--input-shape image: extent 2 = 0 must be positive"},
      {"--input-shape image=1,3,-8,8", "--input-shape image: extent 2 = -8 must be positive"},
      {"--input-shape image=1,3,8,8 --input-shape image=1,3,16,16",
       "--input-shape image is given twice (1,3,8,8 and 1,3,16,16): once per input"},
      {"--input-shape image=1,4,8,8",
       "input 'image' [N,3,H,W]: extent 1 is 3 in the model, --input-shape image=1,4,8,8 gives 4"},
      {"--input-shape image=1,3,8", "--input-shape image=1,3,8 has 3 extents, the model declares 4"},
      {"--input-shape picture=1,3,8,8",
       "--input-shape names 'picture', which is not an input of the model (its inputs: 'image')"},
      {"--input-shape image=1,3,4000000000,4000000000", "input 'image': 4.8e+19 elements is too many"},
      {"--batch 2 --input-shape image=1,3,8,8", "--batch 2 and --input-shape image=1,3,8,8 disagree on extent 0 ('N')"},
      {"--batch 0", "--batch"},
  };
  for (const auto& c : cases) {
    Result r = run_cli("model inspect " + model + " " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_TRUE(one_line(r.err)) << c.args << "\n" << r.err;
  }
  // A control character is refused and shown escaped: an argument must not drive the terminal.
  Result ctl = run_cli("model inspect " + model + " --input-shape \"$(printf 'ima\\033]0;x\\007ge=1,3,8,8')\"");
  EXPECT_EQ(ctl.exit_code, 2);
  EXPECT_NE(ctl.err.find("--input-shape 'ima\\x1b]0;x\\x07ge=1,3,8,8': control characters are not allowed"),
            std::string::npos)
      << ctl.err;
  EXPECT_EQ(ctl.err.find('\x1b'), std::string::npos) << ctl.err;
  // The same parser serves build and tune; a misfit never reaches the compiler or the database.
  const std::string dir = scratch("bad-build");
  for (const std::string& cmd :
       {"model build " + model + " -o " + dir + "/m.tfm", "model tune " + model + " --db " + dir + "/t.db"}) {
    Result r = run_cli(cmd + " --input-shape image=1,3,8");
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_NE(r.err.find("--input-shape image=1,3,8 has 3 extents"), std::string::npos) << cmd << r.err;
    r = run_cli(cmd + " --input-shape image=1,3,x,8");
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_TRUE(one_line(r.err)) << r.err;
  }
  EXPECT_FALSE(std::ifstream(dir + "/m.tfm").good());
  EXPECT_FALSE(std::ifstream(dir + "/t.db").good());
}

// An input named with '=' in it: the value is after the last '='.
TEST(ModelCliInputShape, ANameWithAnEqualsSignIsBound) {
  const std::string dir = scratch("equals");
  OnnxModelBuilder m(13);
  m.input_dims("x=y", {"N", "S"}).output("out");
  m.node("Relu", {"x=y"}, {"out"}, "relu");
  const std::string path = dir + "/eq.onnx";
  std::ofstream(path, std::ios::binary) << m.bytes();
  Result r = run_cli("model inspect " + path + " --input-shape x=y=1,5 --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(tf::parse_json(r.out).at("input_shapes").dump(), R"({"x=y":[1,5]})");
}

TEST(ModelCliInputShape, BuildCarriesTheBoundShapes) {
  const std::string dir = scratch("build");
  const std::string model = stem_model(dir);
  Result r = run_cli("model build " + model + " --input-shape image=1,3,20,12 -o " + dir + "/m.tfm --json -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const tf::Json j = tf::parse_json(r.out);
  EXPECT_EQ(j.at("input_shapes").dump(), R"({"image":[1,3,20,12]})");
  EXPECT_NE(j.at("kernels").at(0).at("workload").get<std::string>().find("[1,3,20,12,"), std::string::npos) << r.out;
  r = run_cli("model build " + model + " --input-shape image=1,3,20,12 -o " + dir + "/m.tfm -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("inputs image=1,3,20,12\n"), std::string::npos) << r.out;
  r = run_cli("model build " + model + " -o " + dir + "/m.tfm -q");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bind them with --input-shape image=1,3,H,W"), std::string::npos) << r.err;
}

}  // namespace

namespace tf {
namespace {

// A model tuned at one shape is another job than at another: the shapes are in the job's spec, and
// the command that follows the tuning binds them again for the build.
TEST(ModelTune, InputShapesArePartOfTheJobAndOfTheBuildItSuggests) {
  const std::string dir = scratch("tune");
  const std::string model = stem_model(dir);
  const std::string db_path = dir + "/t.db";
  const std::string common = " --trials 8 --min-ms 1 --repeat 1 --tuner random -q --db " + db_path;
  Result big = run_cli("model tune " + model + " --input-shape image=1,3,24,16" + common);
  ASSERT_EQ(big.exit_code, 0) << big.err << big.out;
  EXPECT_NE(big.out.find("inputs image=1,3,24,16\n"), std::string::npos) << big.out;
  EXPECT_NE(big.out.find("next: tunefarm model build " + model + " --input-shape image=1,3,24,16 --db " + db_path),
            std::string::npos)
      << big.out;
  Result small = run_cli("model tune " + model + " --input-shape image=1,3,8,8 --json" + common);
  ASSERT_EQ(small.exit_code, 0) << small.err << small.out;
  const Json j = parse_json(small.out);
  EXPECT_EQ(j.at("input_shapes").dump(), R"({"image":[1,3,8,8]})");
  EXPECT_EQ(j.at("job_id"), 2);

  db::Database db(db_path, db::Database::Open::Existing);
  const auto jobs = db.jobs();
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].spec.at("input_shapes").dump(), R"({"image":[1,3,24,16]})");
  EXPECT_EQ(jobs[1].spec.at("input_shapes").dump(), R"({"image":[1,3,8,8]})");
  EXPECT_NE(jobs[0].spec.at("tasks"), jobs[1].spec.at("tasks"));

  // The suggested build finds the tuned configs: the same shapes are the same workloads.
  Result build = run_cli("model build " + model + " --input-shape image=1,3,24,16 --db " + db_path + " -o " + dir +
                         "/m.tfm --json -q");
  ASSERT_EQ(build.exit_code, 0) << build.err;
  EXPECT_EQ(parse_json(build.out).at("tuned_kernels"), 1) << build.out;
}

}  // namespace
}  // namespace tf

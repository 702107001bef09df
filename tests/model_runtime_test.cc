// The compiled-model runtime: a .tfm written by hand from real kernels (two fused convolutions, the
// second adding the first's output as its residual) runs in-process and in a process that links
// only the runtime, and matches the operators' references; damaged files and wrong inputs are
// refused naming what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <sys/wait.h>
#include <unistd.h>

#include "cli_runner.h"
#include "compiler/compiler.h"
#include "runtime/model/executor.h"
#include "support/json.h"
#include "support/npy.h"
#include "support/subprocess.h"

namespace tf {
namespace {

namespace fs = std::filesystem;
using runtime::model::Executor;
using runtime::model::ModelFile;
using runtime::model::ModelFileError;
using runtime::model::Storage;

struct TwoConvModel {
  ModelFile file;
  std::vector<float> x, w1, b1, w2, b2;
  std::vector<int64_t> s1, s2;
};

int64_t aligned(int64_t bytes) { return (bytes + 63) / 64 * 64; }

std::vector<float> random_floats(size_t n, std::mt19937* rng) {
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (auto& f : v) f = d(*rng);
  return v;
}

runtime::model::Kernel kernel_for(const std::string& op, const std::vector<int64_t>& shape) {
  compiler::Task task({op, shape}, codegen::host_target());
  auto lib = task.build_shared_library(task.space().default_config());
  return {task.workload().str(), task.space().default_config().str(), lib.entry_symbol, lib.bytes};
}

// y = relu(conv(x, w1) + b1); out = relu(conv(y, w2) + b2 + y)
TwoConvModel two_conv_model() {
  TwoConvModel m;
  m.s1 = ops::parse_shape("conv2d_bias_relu", "c=4,h=9,w=7,k=8,r=3,s=3,pad=1");
  m.s2 = ops::parse_shape("conv2d_bias_add_relu", "c=8,h=9,w=7,k=8,r=3,s=3,pad=1");
  std::mt19937 rng(7);
  m.x = random_floats(4 * 9 * 7, &rng);
  m.w1 = random_floats(8 * 4 * 9, &rng);
  m.b1 = random_floats(8, &rng);
  m.w2 = random_floats(8 * 8 * 9, &rng);
  m.b2 = random_floats(8, &rng);
  ModelFile& f = m.file;
  f.target = codegen::host_target().str();
  auto constant = [&](const std::string& name, std::vector<int64_t> shape, const std::vector<float>& data) {
    const int64_t offset = aligned(static_cast<int64_t>(f.constants.size()));
    f.constants.resize(static_cast<size_t>(offset + static_cast<int64_t>(data.size() * 4)));
    std::memcpy(f.constants.data() + offset, data.data(), data.size() * 4);
    f.values.push_back({name, std::move(shape), Storage::Constant, offset});
    return static_cast<int>(f.values.size() - 1);
  };
  auto activation = [&](const std::string& name, std::vector<int64_t> shape) {
    f.values.push_back({name, std::move(shape), Storage::Arena, f.arena_bytes});
    f.arena_bytes += aligned(f.values.back().bytes());
    return static_cast<int>(f.values.size() - 1);
  };
  const int x = activation("x", {1, 4, 9, 7}), y = activation("y", {1, 8, 9, 7}), out = activation("out", {1, 8, 9, 7});
  const int w1 = constant("w1", {8, 4, 3, 3}, m.w1), b1 = constant("b1", {8}, m.b1);
  const int w2 = constant("w2", {8, 8, 3, 3}, m.w2), b2 = constant("b2", {8}, m.b2);
  f.inputs = {x};
  f.outputs = {out};
  f.kernels = {kernel_for("conv2d_bias_relu", m.s1), kernel_for("conv2d_bias_add_relu", m.s2)};
  f.steps = {{0, {x, w1, b1, y}, "conv1", {}}, {1, {y, w2, b2, y, out}, "conv2", {}}};
  return m;
}

// The output the operators' double-precision references give, with its error bound.
void reference(const TwoConvModel& m, std::vector<float>* out, std::vector<float>* tol) {
  std::vector<float> y, tol1;
  ops::find_operator("conv2d_bias_relu").reference(m.s1, {m.x.data(), m.w1.data(), m.b1.data()}, &y, &tol1);
  ops::find_operator("conv2d_bias_add_relu").reference(m.s2, {y.data(), m.w2.data(), m.b2.data(), y.data()}, out, tol);
  // The first layer's own error reaches the second through y: widen the bound by what it can carry.
  float carried = 0;
  for (float t : tol1) carried = std::max(carried, t);
  for (auto& t : *tol) t += carried * 8 * 9 * 2;
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want, const std::vector<float>& tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], tol[i]) << "at flat index " << i;
}

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("tf-model-test-" + std::to_string(::getpid()) + "-" + name)).string();
}

TEST(ModelRuntime, AHandWrittenPlanRunsAndMatchesTheReferences) {
  TwoConvModel m = two_conv_model();
  const std::string path = temp_path("two.tfm");
  runtime::model::write_model_file(m.file, path);
  Executor model(runtime::model::read_model_file(path));
  ASSERT_EQ(model.inputs().size(), 1u);
  EXPECT_EQ(model.inputs()[0].name, "x");
  EXPECT_EQ(model.outputs()[0].shape, (std::vector<int64_t>{1, 8, 9, 7}));
  std::vector<float> want, tol;
  reference(m, &want, &tol);
  auto out = model.run_floats({{"x", m.x}});
  expect_close(out.at("out"), want, tol);
  // A second run on the same arena gives the same answer: nothing depends on leftovers.
  EXPECT_EQ(model.run_floats({{"x", m.x}}).at("out"), out.at("out"));
  fs::remove(path);
}

TEST(ModelRuntime, AProcessThatLinksOnlyTheRuntimeRunsTheModel) {
  TwoConvModel m = two_conv_model();
  const std::string dir = temp_path("loader");
  fs::create_directories(dir);
  runtime::model::write_model_file(m.file, dir + "/two.tfm");
  write_npy(dir + "/x.npy", {1, 4, 9, 7}, m.x);
  Subprocess loader({TF_MODEL_LOADER, dir + "/two.tfm", dir, "x=" + dir + "/x.npy"}, dir + "/loader.log");
  const int status = loader.wait_exit(std::chrono::seconds(60));
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << loader.output();
  EXPECT_NE(loader.output().find("libLLVM loaded: no"), std::string::npos) << loader.output();
  HostTensor out = read_npy(dir + "/out.npy");
  EXPECT_EQ(out.shape, (std::vector<int64_t>{1, 8, 9, 7}));
  std::vector<float> want, tol;
  reference(m, &want, &tol);
  expect_close(out.as_floats(), want, tol);
  fs::remove_all(dir);
}

TEST(ModelRuntime, WrongInputsAreNamed) {
  TwoConvModel m = two_conv_model();
  Executor model(m.file);
  auto message = [&](const std::map<std::string, std::vector<float>>& in) {
    try {
      model.run_floats(in);
    } catch (const ModelFileError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({}), "input 'x' is not given");
  EXPECT_EQ(message({{"x", {1, 2, 3}}}), "input 'x' has 3 elements; the model takes 252");
  EXPECT_EQ(message({{"x", m.x}, {"z", {1}}}), "the model has no input named 'z'");
}

std::string read_error(const std::string& path) {
  try {
    runtime::model::read_model_file(path);
  } catch (const ModelFileError& e) {
    return e.what();
  }
  return "no error";
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ModelRuntime, DamagedFilesAreRefusedSayingWhatIsWrong) {
  TwoConvModel m = two_conv_model();
  const std::string good = temp_path("good.tfm"), bad = temp_path("bad.tfm");
  runtime::model::write_model_file(m.file, good);
  const std::string bytes = file_bytes(good);

  write_bytes(bad, "hello, not a model at all, long enough for a header");
  EXPECT_NE(read_error(bad).find("is not a tunefarm model (.tfm) file"), std::string::npos);
  write_bytes(bad, bytes.substr(0, bytes.size() / 2));
  EXPECT_NE(read_error(bad).find("is truncated"), std::string::npos) << read_error(bad);
  std::string newer = bytes;
  newer[8] = 2;
  write_bytes(bad, newer);
  EXPECT_NE(read_error(bad).find("model format version 2 (this runtime reads version 1"), std::string::npos);
  std::string huge = bytes;
  huge[23] = 0x7f;  // the manifest size's top byte
  write_bytes(bad, huge);
  EXPECT_NE(read_error(bad).find("damaged header"), std::string::npos);

  // A manifest that parses but points outside the file or at values that do not exist.
  auto with_manifest_edit = [&](const std::string& from, const std::string& to) {
    std::string edited = bytes;
    const auto at = edited.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    edited.replace(at, from.size(), to);  // same length keeps the header's sizes right
    write_bytes(bad, edited);
    return read_error(bad);
  };
  EXPECT_NE(
      with_manifest_edit("\"args\":[0,", "\"args\":[9,").find("step 0 (node 'conv1'): value id 9 is out of range"),
      std::string::npos);
  EXPECT_NE(with_manifest_edit("\"dtype\":\"float32\"", "\"dtype\":\"float16\"")
                .find("dtype 'float16' is not supported (float32, int64, int32, bool, float64, int8, uint8)"),
            std::string::npos);
  EXPECT_NE(with_manifest_edit("\"format\":\"tunefarm-model\"", "\"format\":\"tunefarm-modeX\"").find("format is not"),
            std::string::npos);
  EXPECT_NE(with_manifest_edit("\"threads\":1", "\"threads\":0").find("threads = 0 must be at least 1"),
            std::string::npos);
  fs::remove(good);
  fs::remove(bad);
}

TEST(Npy, RoundTripsAndRefusesWhatItCannotRead) {
  const std::string path = temp_path("a.npy");
  write_npy(path, {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor a = read_npy(path);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.as_floats(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(file_bytes(path).size() % 64, 24u);  // 64-byte header, then 6 floats
  write_npy(path, {4}, {1, 2, 3, 4});
  EXPECT_EQ(read_npy(path).shape, (std::vector<int64_t>{4}));
  EXPECT_THROW(write_npy(path, {2, 2}, {1, 2, 3}), NpyError);

  auto error_of = [&](const std::string& descr, const std::string& order, const std::string& data) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': (2,), }";
    header.append(128 - 10 - header.size() - 1, ' ');
    header += '\n';
    write_bytes(path, std::string("\x93NUMPY\x01\x00", 8) + std::string(1, static_cast<char>(header.size())) + '\0' +
                          header + data);
    try {
      read_npy(path);
    } catch (const NpyError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("<f2", "False", std::string(16, '\0')).find("dtype '<f2' (float16) is not supported"),
            std::string::npos);
  EXPECT_NE(error_of("<f4", "True", std::string(8, '\0')).find("Fortran order"), std::string::npos);
  EXPECT_NE(error_of("<f4", "False", std::string(5, '\0')).find("truncated"), std::string::npos);
  EXPECT_EQ(error_of("<f4", "False", std::string(8, '\0')), "no error");
  write_bytes(path, "plain text");
  EXPECT_NE(std::string([&] {
              try {
                read_npy(path);
              } catch (const NpyError& e) {
                return std::string(e.what());
              }
              return std::string();
            }())
                .find("not a NumPy .npy file"),
            std::string::npos);
  fs::remove(path);
}

TEST(ModelCli, RunWritesEachOutputAsNpyAndRefusesWrongInputsByName) {
  TwoConvModel m = two_conv_model();
  const std::string dir = temp_path("cli-run");
  fs::create_directories(dir);
  runtime::model::write_model_file(m.file, dir + "/two.tfm");
  write_npy(dir + "/x.npy", {1, 4, 9, 7}, m.x);
  Result r = run_cli("model run " + dir + "/two.tfm --input x=" + dir + "/x.npy -o " + dir + "/out --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json j = Json::parse(r.out);
  ASSERT_EQ(j["outputs"].size(), 1u);
  EXPECT_EQ(j["outputs"][0]["name"], "out");
  HostTensor out = read_npy(j["outputs"][0]["file"].get<std::string>());
  std::vector<float> want, tol;
  reference(m, &want, &tol);
  expect_close(out.as_floats(), want, tol);

  write_npy(dir + "/small.npy", {1, 4, 9, 6}, std::vector<float>(4 * 9 * 6, 1.0f));
  r = run_cli("model run " + dir + "/two.tfm --input x=" + dir + "/small.npy -o " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("holds 1x4x9x6; the model takes 1x4x9x7"), std::string::npos) << r.err;
  r = run_cli("model run " + dir + "/two.tfm -o " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("input 'x' is not given"), std::string::npos) << r.err;
  r = run_cli("model run " + dir + "/two.tfm --input y=" + dir + "/x.npy -o " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--input y: the model has no input of that name"), std::string::npos) << r.err;
  write_bytes(dir + "/bad.tfm", "not a model, but long enough to hold a header");
  r = run_cli("model run " + dir + "/bad.tfm --input x=" + dir + "/x.npy -o " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is not a tunefarm model (.tfm) file"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

// The .npy header was read with a regular expression that recursed once per character: a long
// field crashed `model run` (signal 11), and a small file claiming gigabytes allocated them.
TEST(ModelCli, RunRefusesDamagedNpyInputsWithoutASignal) {
  TwoConvModel m = two_conv_model();
  const std::string dir = temp_path("cli-npy");
  fs::create_directories(dir);
  runtime::model::write_model_file(m.file, dir + "/two.tfm");
  auto npy = [](const std::string& dict) {  // version 2.0: a 4-byte header length
    std::string header = dict + std::string(64 - (12 + dict.size() + 1) % 64, ' ') + "\n";
    std::string len;
    for (int i = 0; i < 4; ++i) len += static_cast<char>((header.size() >> (8 * i)) & 0xff);
    return std::string("\x93NUMPY\x02\x00", 8) + len + header;
  };
  write_bytes(dir + "/long.npy",
              npy("{'descr': '<" + std::string(500000, 'f') + "', 'fortran_order': False, 'shape': (1, 4, 9, 7), }"));
  Result r = run_cli("model run " + dir + "/two.tfm --input x=" + dir + "/long.npy -o " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(dir + "/long.npy: dtype (a string of 500001 bytes) is not supported"), std::string::npos)
      << r.err;
  write_bytes(dir + "/long.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 4, 9, 7), 'x': '" +
                                     std::string(500000, 'y') + "', }"));
  r = run_cli("model run " + dir + "/two.tfm --input x=" + dir + "/long.npy -o " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(dir + "/long.npy: damaged .npy header at header byte 64: unknown key 'x'"), std::string::npos)
      << r.err;
  write_bytes(dir + "/claim.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1024, 1024, 1024), }"));
  r = run_cli("model run " + dir + "/two.tfm --input x=" + dir + "/claim.npy -o " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(
                dir + "/claim.npy: truncated: shape (1024, 1024, 1024) needs 4294967296 bytes of data, the file has 0"),
            std::string::npos)
      << r.err;
  fs::remove_all(dir);
}

TEST(ModelCli, BenchReportsLatencyPerNodeAndPeakMemory) {
  TwoConvModel m = two_conv_model();
  const std::string dir = temp_path("cli-bench");
  fs::create_directories(dir);
  runtime::model::write_model_file(m.file, dir + "/two.tfm");
  Result r = run_cli("model bench " + dir + "/two.tfm --runs 5 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json j = Json::parse(r.out);
  EXPECT_EQ(j["runs"], 5);
  EXPECT_GT(j["latency_ms"].get<double>(), 0.0);
  EXPECT_GE(j["median_ms"].get<double>(), j["latency_ms"].get<double>());
  EXPECT_EQ(j["peak_activation_bytes"], m.file.arena_bytes);
  ASSERT_EQ(j["nodes"].size(), 2u);
  EXPECT_EQ(j["nodes"][0]["node"], "conv1");
  EXPECT_EQ(j["nodes"][1]["node"], "conv2");
  r = run_cli("model bench " + dir + "/two.tfm --runs 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 runs: min"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("conv2"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tf

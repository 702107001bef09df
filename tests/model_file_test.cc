// The .tfm loader (runtime/model/model_file.h) on hand-made files whose header and manifest claim
// more than the file holds: each refused naming the field, before anything that size is allocated.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "runtime/model/executor.h"
#include "runtime/model/model_file.h"
#include "tests/cli_runner.h"

namespace tf::runtime::model {
namespace {

void put_le(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// A .tfm as the writer lays it out, with the header's two sizes as given (by default, the truth).
std::string tfm_bytes(const std::string& manifest, const std::string& payload, uint64_t manifest_size = UINT64_MAX,
                      uint64_t payload_size = UINT64_MAX) {
  std::string out("TFMODEL\0", 8);
  put_le(&out, kModelFormatVersion, 4);
  put_le(&out, 0, 4);
  put_le(&out, manifest_size == UINT64_MAX ? manifest.size() : manifest_size, 8);
  put_le(&out, payload_size == UINT64_MAX ? payload.size() : payload_size, 8);
  out += manifest;
  out.append((out.size() + 63) / 64 * 64 - out.size(), '\0');
  return out + payload;
}

// One value "x" of `shape` in an arena of `arena_bytes`, and `kernels` and `steps` as JSON lists.
std::string manifest(const std::string& shape = "[4]", int64_t arena_bytes = 64, const std::string& kernels = "[]",
                     const std::string& steps = "[]", const std::string& dtype = "float32") {
  return R"({"format":"tunefarm-model","target":"t","threads":1,"arena_bytes":)" + std::to_string(arena_bytes) +
         R"(,"values":[{"name":"x","shape":)" + shape + R"(,"dtype":")" + dtype +
         R"(","storage":"arena","offset":0}],"inputs":[0],)" + R"("outputs":[0],"kernels":)" + kernels +
         R"(,"steps":)" + steps + R"(,"constants":{"offset":0,"size":0}})";
}

std::string kernel(int64_t offset, int64_t size) {
  return R"({"workload":"w","config":"{}","entry":"e","offset":)" + std::to_string(offset) + R"(,"size":)" +
         std::to_string(size) + "}";
}

ModelFile read_bytes(const std::string& bytes) {
  std::istringstream in(bytes);
  return read_model_file(in, bytes.size(), "m.tfm");
}

std::string error_of(const std::string& bytes) {
  try {
    read_bytes(bytes);
  } catch (const ModelFileError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(ModelFile, AHandMadeFileReads) {
  const ModelFile m = read_bytes(tfm_bytes(manifest(), ""));
  ASSERT_EQ(m.values.size(), 1u);
  EXPECT_EQ(m.values[0].shape, std::vector<int64_t>{4});
  EXPECT_EQ(m.arena_bytes, 64);
  EXPECT_EQ(read_bytes(tfm_bytes(manifest("[4]", 64, "[" + kernel(0, 10) + "]"), std::string(64, 'k')))
                .kernels[0]
                .library.size(),
            10u);
}

// A 128-byte file claiming gigabytes: once allocated (and zeroed) before the read found the end.
TEST(ModelFile, HeaderSizesAreCheckedAgainstTheFileBeforeAllocating) {
  std::string claim = tfm_bytes(manifest(), "", uint64_t{1} << 35, uint64_t{1} << 35);
  claim.resize(128);
  EXPECT_EQ(error_of(claim), "m.tfm is truncated (the header promises 68719476800 bytes, the file has 128)");
  claim = tfm_bytes(manifest(), "", manifest().size(), uint64_t{1} << 35);
  EXPECT_NE(error_of(claim).find("m.tfm is truncated (the header promises 34359738688 bytes, the file has 320)"),
            std::string::npos)
      << error_of(claim);
  EXPECT_NE(error_of(tfm_bytes(manifest(), "", UINT64_MAX - 1))
                .find("m.tfm: damaged header (manifest size 18446744073709551614"),
            std::string::npos);
  EXPECT_NE(error_of(tfm_bytes(manifest(), "") + "extra")
                .find("m.tfm: damaged header (it accounts for 320 of the file's 325 bytes)"),
            std::string::npos);
}

TEST(ModelFile, ManifestSectionsMustLieInThePayloadAndNotOverlap) {
  const std::string payload(64, 'k');
  auto with_kernels = [&](const std::string& kernels) {
    return error_of(tfm_bytes(manifest("[4]", 64, kernels), payload));
  };
  EXPECT_EQ(with_kernels("[" + kernel(int64_t{9223372036854775744}, 128) + "]"),
            "m.tfm: kernel 0 (w): bytes [9223372036854775744, +128) are outside the payload (64 bytes)");
  // Copied once per section: three times the same 64 bytes claim three times the payload.
  EXPECT_EQ(with_kernels("[" + kernel(0, 64) + "," + kernel(0, 64) + "," + kernel(0, 64) + "]"),
            "m.tfm: kernel 1 (w): the sections so far claim 128 bytes, more than the payload's 64 (they overlap)");
}

TEST(ModelFile, ShapesAndTheArenaAreCheckedForOverflowAndSize) {
  EXPECT_EQ(error_of(tfm_bytes(manifest("[2147483648,2147483648,2147483648]"), "")),
            "m.tfm: value 0 ('x'): shape [2147483648,2147483648,2147483648] needs more than 68719476736 bytes");
  EXPECT_EQ(error_of(tfm_bytes(manifest("[4]", int64_t{1} << 32), "")),
            "m.tfm: arena_bytes = 4294967296 is more than all arena values side by side (64 bytes)");
  // A step's view of its argument: extents that multiply to the value's count but are negative.
  const std::string steps = R"([{"kernel":0,"args":[0],"node":"n","shapes":[[-2,-2]]}])";
  EXPECT_EQ(error_of(tfm_bytes(manifest("[4]", 64, "[" + kernel(0, 64) + "]", steps), std::string(64, 'k'))),
            "m.tfm: step 0 (node 'n'): argument 0's view: extent -2 is out of range");
}

TEST(ModelFile, EachDtypeRoundTripsAndIsSizedByItsWidth) {
  ModelFile m;
  m.target = "t";
  m.arena_bytes = 256;
  const std::vector<DType> dtypes = {DType::Float32, DType::Int64, DType::Int32, DType::Bool};
  for (size_t i = 0; i < dtypes.size(); ++i)
    m.values.push_back({"v" + std::to_string(i), {2, 4}, Storage::Arena, int64_t(64 * i), dtypes[i]});
  m.values.push_back({"c", {3}, Storage::Constant, 0, DType::Int64});
  m.constants.assign(24, 1);
  m.inputs = {0, 1};
  m.outputs = {2, 3};
  const std::string path = testing::TempDir() + "tf-dtypes-" + std::to_string(::getpid()) + ".tfm";
  write_model_file(m, path);
  const ModelFile back = read_model_file(path);
  std::remove(path.c_str());
  ASSERT_EQ(back.values.size(), 5u);
  for (size_t i = 0; i < dtypes.size(); ++i) EXPECT_EQ(back.values[i].dtype, dtypes[i]) << i;
  EXPECT_EQ(back.values[4].dtype, DType::Int64);
  EXPECT_EQ(back.values[0].bytes(), 32);
  EXPECT_EQ(back.values[1].bytes(), 64);
  EXPECT_EQ(back.values[2].bytes(), 32);
  EXPECT_EQ(back.values[3].bytes(), 8);

  // A constant of 3 int64 needs 24 bytes: one fewer in the section is refused.
  m.constants.resize(23);
  EXPECT_THROW(m.check(), ModelFileError);
  // Sizes are checked by width: 64 bools or 8 int64 fit a 64-byte arena, 9 int64 do not.
  EXPECT_EQ(read_bytes(tfm_bytes(manifest("[64]", 64, "[]", "[]", "bool"), "")).values[0].dtype, DType::Bool);
  EXPECT_EQ(read_bytes(tfm_bytes(manifest("[8]", 64, "[]", "[]", "int64"), "")).values[0].bytes(), 64);
  EXPECT_EQ(error_of(tfm_bytes(manifest("[9]", 64, "[]", "[]", "int64"), "")),
            "m.tfm: value 0 ('x'): 72 bytes at offset 0 do not fit its arena section of 64 bytes (or are unaligned)");
  EXPECT_EQ(
      error_of(tfm_bytes(manifest("[4]", 64, "[]", "[]", "float16"), "")),
      "m.tfm: value 0 ('x'): dtype 'float16' is not supported (float32, int64, int32, bool, float64, int8, uint8)");
  EXPECT_EQ(
      error_of(tfm_bytes(manifest("[4]", 64, "[]", "[]", std::string(100, 'q')), "")),
      "m.tfm: value 0 ('x'): dtype (a string of 100 bytes) is not supported (float32, int64, int32, bool, float64, int8, uint8)");
  // A step's view keeps the value's element count whatever the width.
  const std::string steps = R"([{"kernel":0,"args":[0],"node":"n","shapes":[[2,4]]}])";
  EXPECT_EQ(read_bytes(tfm_bytes(manifest("[8]", 64, "[" + kernel(0, 64) + "]", steps, "int64"), std::string(64, 'k')))
                .steps.size(),
            1u);
  const std::string bad_view = R"([{"kernel":0,"args":[0],"node":"n","shapes":[[2,8]]}])";
  EXPECT_EQ(
      error_of(tfm_bytes(manifest("[8]", 64, "[" + kernel(0, 64) + "]", bad_view, "int64"), std::string(64, 'k'))),
      "m.tfm: step 0 (node 'n'): argument 0 is viewed with 16 elements; value 'x' has 8");
}

// A consistent model may still ask for more memory than the machine has; it is refused, not zeroed.
TEST(ModelFile, AnArenaLargerThanTheMachineIsRefusedByTheExecutor) {
  const uint64_t memory =
      static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  if (memory >= (uint64_t{1} << 36)) GTEST_SKIP() << "this machine has 64 GiB or more";
  ModelFile m;
  m.target = "t";
  m.values.push_back({"x", {int64_t{1} << 31, 8}, Storage::Arena, 0});
  m.inputs = {0};
  m.outputs = {0};
  m.arena_bytes = int64_t{1} << 36;
  try {
    Executor e(m);
    ADD_FAILURE() << "a 64 GiB arena was allocated";
  } catch (const ModelFileError& e) {
    EXPECT_NE(std::string(e.what()).find("the model needs 68719476736 bytes at once, more than this machine's"),
              std::string::npos)
        << e.what();
  }
}

TEST(ModelFile, ModelRunRefusesAFileClaimingGigabytes) {
  const std::string path = testing::TempDir() + "tf-claim-" + std::to_string(::getpid()) + ".tfm";
  std::string claim = tfm_bytes(manifest(), "", uint64_t{1} << 35, uint64_t{1} << 35);
  claim.resize(128);
  std::ofstream(path, std::ios::binary) << claim;
  const Result r = run_cli("model run " + path + " -o " + testing::TempDir());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(path + " is truncated (the header promises 68719476800 bytes, the file has 128)"),
            std::string::npos)
      << r.err;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tf::runtime::model

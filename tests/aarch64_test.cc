// Boards of another architecture: AArch64 targets, kernels cross-compiled for them and checked on
// an arm64 board daemon and measure worker (built by scripts/build.sh --arch aarch64) that qemu-user
// runs on this host; a mixed fleet of x86 and emulated AArch64 boards.
#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "compiler/compiler.h"
#include "compiler/error.h"
#include "db/database.h"
#include "runtime/measure_worker.h"
#include "tests/fleet_harness.h"
#include "tests/test_kernels.h"
#include "tuner/tune_job.h"

namespace tf {
namespace {

const char* const kAarch64Target = "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72";

uint16_t elf_machine(const std::vector<uint8_t>& so) {
  Elf64_Ehdr eh;
  if (so.size() < sizeof eh) return 0;
  std::memcpy(&eh, so.data(), sizeof eh);
  return eh.e_machine;
}

// A few configs of the task's space: the default and evenly spread others.
std::vector<space::Config> some_configs(const compiler::Task& task, int count) {
  std::vector<space::Config> out = {task.space().default_config()};
  const int64_t n = task.space().size();
  for (int i = 1; i < count; ++i) out.push_back(task.space().at(((n * i) / count + i % 7) % n));
  return out;
}

TEST(Aarch64Target, NeonHasFourLanesAndThirtyTwoRegisters) {
  const codegen::Target t = codegen::parse_target(kAarch64Target);
  EXPECT_EQ(t.triple, "aarch64-unknown-linux-gnu");
  EXPECT_EQ(t.cpu, "cortex-a72");
  EXPECT_EQ(t.float32_lanes(), 4);
  EXPECT_EQ(t.vector_registers, 32);
  const codegen::Target x86 = codegen::parse_target("llvm -mtriple=x86_64-linux-gnu -mcpu=haswell");
  EXPECT_EQ(x86.float32_lanes(), 8);
  EXPECT_EQ(x86.vector_registers, 16);
  std::string why;
  EXPECT_FALSE(codegen::host_can_run(t, &why));
  EXPECT_NE(why.find("aarch64"), std::string::npos) << why;
  EXPECT_THROW(codegen::parse_target("llvm -mtriple=aarch64-linux-gnu -mcpu=no-such-core"), CompileError);
}

// A board describes itself by its HWCAP names (as /proc/cpuinfo spells them); SVE, which the NEON
// templates never use, stays out of the target so it does not split one kind of board into two keys.
TEST(Aarch64Target, HwcapNamesBecomeLlvmFeatures) {
  const codegen::Target t = codegen::target_from_cpu_flags(
      "aarch64-unknown-linux-gnu", {"fp", "asimd", "atomics", "asimddp", "crc32", "sve", "sve2", "cpuid"});
  EXPECT_EQ(t.triple, "aarch64-unknown-linux-gnu");
  EXPECT_EQ(t.cpu, "generic");
  EXPECT_NE(t.features.find("+dotprod"), std::string::npos) << t.features;
  EXPECT_NE(t.features.find("+lse"), std::string::npos) << t.features;
  EXPECT_EQ(t.features.find("sve"), std::string::npos) << t.features;
  EXPECT_EQ(t.float32_lanes(), 4);
  // The string a board registers with parses back to the same target, as a job file may name it.
  const codegen::Target again = codegen::parse_target(t.str());
  EXPECT_EQ(again.str(), t.str());
}

// Every operator template takes the vector width and register count from the target: configs of
// the dense and conv2d spaces compile for AArch64 into AArch64 shared libraries.
TEST(Aarch64Target, DenseAndConv2dSpacesBuildAarch64Libraries) {
  const codegen::Target t = codegen::parse_target(kAarch64Target);
  for (const ops::Workload& w :
       {ops::Workload{"dense", {48, 40, 36}},
        ops::Workload{"conv2d", ops::parse_shape("conv2d", "n=1,c=8,h=10,w=10,k=16,r=3,s=3,stride=1,pad=1")}}) {
    compiler::Task task(w, t);
    for (const space::Config& cfg : some_configs(task, 4)) {
      SCOPED_TRACE(w.str() + " config " + cfg.to_json().dump());
      const codegen::SharedLibrary lib = task.build_shared_library(cfg);
      EXPECT_EQ(elf_machine(lib.bytes), EM_AARCH64);
    }
  }
}

runtime::MeasureOptions quick() { return test_kernels::quick_measure(2, 60); }

// The arm64 measure worker under qemu-user runs the kernels and checks every output against the
// reference computed on this host.
TEST(Aarch64Board, DenseAndConv2dKernelsPassTheirChecksThere) {
  ASSERT_EQ(fleet_test::aarch64_missing(), "");
  const codegen::Target t = codegen::parse_target(kAarch64Target);
  runtime::MeasureWorker worker(fleet_test::aarch64_worker(), {}, 1);
  worker.set_launcher(fleet_test::aarch64_emulator());
  worker.set_sandbox(false, 0);  // qemu-user cannot filter system calls
  for (const ops::Workload& w :
       {ops::Workload{"dense", {48, 40, 36}},
        ops::Workload{"conv2d", ops::parse_shape("conv2d", "n=1,c=8,h=10,w=10,k=16,r=3,s=3,stride=1,pad=1")}}) {
    compiler::Task task(w, t);
    const runtime::WorkloadSetup setup = tuner::make_workload_setup(task, 7);
    ASSERT_FALSE(setup.expected.empty()) << w.str() << ": the worker must have outputs to check";
    worker.setup(setup);
    for (const space::Config& cfg : some_configs(task, 3)) {
      SCOPED_TRACE(w.str() + " config " + cfg.to_json().dump());
      const codegen::SharedLibrary lib = task.build_shared_library(cfg);
      const runtime::MeasureResult r = worker.measure(lib.bytes, lib.entry_symbol, quick());
      EXPECT_EQ(r.status, runtime::MeasureStatus::Ok) << r.error;
      EXPECT_EQ(r.costs.size(), 2u);
    }
  }
  EXPECT_EQ(worker.restarts(), 1) << "one worker start, never replaced";
}

// The int8 kernels on an AArch64 core with the int8 matrix-multiply extension: each group of four
// uint8 x int8 products is one usdot, and the emulated worker's outputs equal the integer reference.
TEST(Aarch64Board, Int8KernelsAreUsdotAndPassTheirChecksThere) {
  ASSERT_EQ(fleet_test::aarch64_missing(), "");
  const codegen::Target t =
      codegen::parse_target("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+dotprod,+i8mm");
  runtime::MeasureWorker worker(fleet_test::aarch64_worker(), {}, 1);
  worker.set_launcher(fleet_test::aarch64_emulator());
  worker.set_sandbox(false, 0);
  for (const ops::Workload& w :
       {ops::Workload{"qdense_packed", {13, 40, 64, 8}},
        ops::Workload{"qconv2d_nchwc_relu",
                      ops::parse_shape("qconv2d_nchwc_relu", "c=16,h=8,w=8,k=16,r=3,s=3,pad=1,ib=8,ob=8")}}) {
    compiler::Task task(w, t);
    worker.setup(tuner::make_workload_setup(task, 9));
    for (const space::Config& cfg : some_configs(task, 2)) {
      SCOPED_TRACE(w.str() + " config " + cfg.to_json().dump());
      codegen::CodegenOptions opts;
      opts.keep_assembly = true;
      const codegen::SharedLibrary lib = task.build_shared_library(cfg, nullptr, opts);
      EXPECT_NE(lib.assembly.find("usdot"), std::string::npos) << "no usdot in the kernel";
      const runtime::MeasureResult r = worker.measure(lib.bytes, lib.entry_symbol, quick());
      EXPECT_EQ(r.status, runtime::MeasureStatus::Ok) << r.error;
    }
  }
}

// The arm64 board and worker are AArch64 executables that need no LLVM: a board runs kernels, it
// does not compile them.
TEST(Aarch64Board, TheBoardIsAnArm64ProgramWithoutLlvm) {
  ASSERT_EQ(fleet_test::aarch64_missing(), "");
  for (const std::string& path : {fleet_test::aarch64_board(), fleet_test::aarch64_worker()}) {
    const std::string bytes = fleet_test::read_all(path);
    EXPECT_EQ(elf_machine(std::vector<uint8_t>(bytes.begin(), bytes.begin() + std::min<size_t>(bytes.size(), 64))),
              EM_AARCH64)
        << path;
    EXPECT_EQ(bytes.find("libLLVM"), std::string::npos) << path << " names libLLVM";
  }
  // Where the check looks: the board's dynamic dependencies are named in it.
  EXPECT_NE(fleet_test::read_all(fleet_test::aarch64_board()).find("libgrpc++.so"), std::string::npos);
}

// A library built for the other architecture fails its trial with a message naming both, on
// either kind of board, and the worker lives on.
TEST(Aarch64Board, AWrongTripleLibraryIsRefusedByName) {
  ASSERT_EQ(fleet_test::aarch64_missing(), "");
  const ops::Workload w{"dense", {16, 16, 16}};
  compiler::Task arm(w, codegen::parse_target(kAarch64Target));
  compiler::Task x86(w, codegen::host_target());
  const codegen::SharedLibrary arm_lib = arm.build_shared_library(arm.space().default_config());
  const codegen::SharedLibrary x86_lib = x86.build_shared_library(x86.space().default_config());

  runtime::MeasureWorker emulated(fleet_test::aarch64_worker(), {}, 1);
  emulated.set_launcher(fleet_test::aarch64_emulator());
  emulated.set_sandbox(false, 0);
  emulated.setup(tuner::make_workload_setup(arm, 3));
  const runtime::MeasureResult refused = emulated.measure(x86_lib.bytes, x86_lib.entry_symbol, quick());
  EXPECT_EQ(refused.status, runtime::MeasureStatus::LoadError);
  EXPECT_NE(refused.error.find("built for x86_64, but this machine is aarch64"), std::string::npos) << refused.error;
  const runtime::MeasureResult fine = emulated.measure(arm_lib.bytes, arm_lib.entry_symbol, quick());
  EXPECT_EQ(fine.status, runtime::MeasureStatus::Ok) << fine.error;

  runtime::MeasureWorker native(TF_MEASURE_WORKER, {}, 1);
  native.setup(tuner::make_workload_setup(x86, 3));
  const runtime::MeasureResult refused_here = native.measure(arm_lib.bytes, arm_lib.entry_symbol, quick());
  EXPECT_EQ(refused_here.status, runtime::MeasureStatus::LoadError);
  EXPECT_NE(refused_here.error.find("built for aarch64, but this machine is x86_64"), std::string::npos)
      << refused_here.error;
  EXPECT_EQ(emulated.restarts(), 1) << "one worker start, never replaced";
  EXPECT_EQ(native.restarts(), 1);
}

// qemu-user cannot filter system calls: the worker says so, and a board that would run kernels
// unconfined refuses to start unless told --no-sandbox.
TEST(Aarch64Board, AnEmulatedBoardRefusesToRunKernelsUnconfinedUnlessTold) {
  ASSERT_EQ(fleet_test::aarch64_missing(), "");
  runtime::MeasureWorker worker(fleet_test::aarch64_worker(), {}, 1);
  worker.set_launcher(fleet_test::aarch64_emulator());
  const std::string why = worker.sandbox_problem("");
  EXPECT_NE(why.find("seccomp"), std::string::npos) << why;

  std::vector<std::string> argv = fleet_test::aarch64_emulator();
  for (const std::string& a :
       {fleet_test::aarch64_board(), std::string("--key"), std::string("k"), std::string("--worker-launcher"),
        fleet_test::aarch64_emulator().front(), std::string("--tracker"), std::string("127.0.0.1:1")}) {
    argv.push_back(a);
  }
  fleet_test::Process board(argv, "/tmp/tf-aarch64-unconfined-" + std::to_string(::getpid()) + ".log");
  const int status = board.wait_exit(std::chrono::seconds(60));
  ASSERT_TRUE(WIFEXITED(status)) << board.output();
  EXPECT_EQ(WEXITSTATUS(status), 2) << board.output();
  EXPECT_NE(board.output().find("cannot confine kernels on this host"), std::string::npos) << board.output();
  EXPECT_NE(board.output().find("--no-sandbox"), std::string::npos) << board.output();
}

}  // namespace

namespace fleet_test {
namespace {

std::vector<v1::Device> devices(v1::Tuning::Stub& stub) {
  v1::ListDevicesRequest req;
  v1::ListDevicesResponse resp;
  auto ctx = context();
  EXPECT_TRUE(stub.ListDevices(ctx.get(), req, &resp).ok());
  return {resp.devices().begin(), resp.devices().end()};
}

// Every measurement of the job: all checked and fine, each config once, from boards of `key`.
void expect_all_ok(const std::string& db_path, int64_t job_id, int64_t trials, const std::string& key,
                   const std::string& triple, std::set<std::string>* boards) {
  db::Database db(db_path);
  const auto ms = db.job_measurements(job_id);
  EXPECT_EQ(static_cast<int64_t>(ms.size()), trials);
  std::set<int64_t> configs;
  for (const auto& m : ms) {
    EXPECT_EQ(m.outcome, db::Outcome::Ok) << m.error;
    EXPECT_EQ(m.device_key, key);
    EXPECT_NE(m.target.find("-mtriple=" + triple), std::string::npos) << m.target;
    EXPECT_TRUE(configs.insert(m.config_index).second) << "config " << m.config_index << " recorded twice";
    boards->insert(m.device);
  }
}

TEST(Aarch64Fleet, ATuningJobOnAnEmulatedBoardChecksEveryTrial) {
  ASSERT_EQ(aarch64_missing(), "");
  Fleet fleet("aarch64-job");
  fleet.start_tracker();
  fleet.start_aarch64_board("test-arm-emu");
  auto stub = fleet.client();
  const std::vector<v1::Device> ds = devices(*stub);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_TRUE(ds[0].emulated());
  EXPECT_NE(ds[0].target().find("-mtriple=aarch64"), std::string::npos) << ds[0].target();
  EXPECT_NE(ds[0].cpu_name().find("emulated"), std::string::npos) << ds[0].cpu_name();

  v1::JobSpec spec = dense_job("test-arm-emu", {32, 32, 32}, 16, "xgb");
  spec.mutable_measure()->set_timeout_s(60);
  const int64_t id = submit(*stub, spec);
  const v1::Job job = follow(*stub, id);
  EXPECT_EQ(job.state(), v1::DONE) << job.message() << fleet.tracker().output() << fleet.board(0).output();
  std::set<std::string> boards;
  expect_all_ok(fleet.db(), id, 16, "test-arm-emu", "aarch64", &boards);
  EXPECT_EQ(boards.size(), 1u);

  // The tracker's record of the board says it is emulated.
  db::Database db(fleet.db());
  const auto known = db.devices();
  ASSERT_EQ(known.size(), 1u);
  EXPECT_EQ(known[0].info.value("emulated", false), true) << known[0].info.dump();
}

// One tracker, x86 boards of one key and an emulated AArch64 board of another, two jobs at once:
// each job's kernels are built for its key's target and go only to its key's boards.
TEST(Aarch64Fleet, AMixedFleetRunsTwoJobsAtOnce) {
  ASSERT_EQ(aarch64_missing(), "");
  Fleet fleet("mixed");
  fleet.start_tracker();
  fleet.start_board("test-x86");
  fleet.start_aarch64_board("test-arm-emu");
  auto stub = fleet.client();
  v1::JobSpec arm_spec = dense_job("test-arm-emu", {32, 32, 32}, 12);
  arm_spec.mutable_measure()->set_timeout_s(60);
  const int64_t arm_id = submit(*stub, arm_spec);
  const int64_t x86_id = submit(*stub, dense_job("test-x86", {64, 64, 64}, 12));
  const v1::Job x86_job = follow(*stub, x86_id);
  const v1::Job arm_job = follow(*stub, arm_id);
  EXPECT_EQ(x86_job.state(), v1::DONE) << x86_job.message() << fleet.tracker().output();
  EXPECT_EQ(arm_job.state(), v1::DONE) << arm_job.message() << fleet.tracker().output();
  std::set<std::string> x86_boards, arm_boards;
  expect_all_ok(fleet.db(), x86_id, 12, "test-x86", "x86_64", &x86_boards);
  expect_all_ok(fleet.db(), arm_id, 12, "test-arm-emu", "aarch64", &arm_boards);
  for (const auto& b : x86_boards) EXPECT_EQ(arm_boards.count(b), 0u) << b << " measured for both keys";

  // An emulated board may not join the native key, nor a native board the emulated one.
  Process& intruder = fleet.start_aarch64_board("test-x86", {}, /*wait=*/false);
  EXPECT_TRUE(eventually([&] { return intruder.output().find("give it a key of its own") != std::string::npos; },
                         std::chrono::seconds(60)))
      << intruder.output();
}

// A board registration without a board behind it: what the tracker answers to a BoardInfo.
class Registration {
 public:
  Registration(const std::string& address, const std::string& key, bool emulated)
      : stub_(v1::Boards::NewStub(fleet::open_channel(address, ""))) {
    ctx_.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    stream_ = stub_->Connect(&ctx_);
    v1::BoardMessage reg;
    v1::BoardInfo* info = reg.mutable_register_()->mutable_info();
    info->set_device_key(key);
    info->set_hostname(emulated ? "emulated-host" : "native-host");
    info->set_target_triple("x86_64-pc-linux-gnu");
    info->set_threads(1);
    info->set_cores(1);
    info->set_protocol_version(1);
    info->set_pid(emulated ? 2 : 1);
    info->set_emulated(emulated);
    stream_->Write(reg);
    v1::TrackerMessage answer;
    registered_ = stream_->Read(&answer) && answer.has_registered();
    if (!registered_) status_ = stream_->Finish();
  }
  ~Registration() { ctx_.TryCancel(); }
  bool registered() const { return registered_; }
  const grpc::Status& status() const { return status_; }

 private:
  grpc::ClientContext ctx_;
  std::unique_ptr<v1::Boards::Stub> stub_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::BoardMessage, v1::TrackerMessage>> stream_;
  bool registered_ = false;
  grpc::Status status_;
};

// The same target, emulated or not, is not the same kind of board: the tracker keeps them apart.
TEST(Aarch64Fleet, EmulatedAndNativeBoardsNeverShareAKey) {
  Fleet fleet("emulated-key");
  fleet.start_tracker();
  Registration native(fleet.address(), "same-target", false);
  ASSERT_TRUE(native.registered()) << native.status().error_message() << fleet.tracker().output();
  Registration emulated(fleet.address(), "same-target", true);
  EXPECT_FALSE(emulated.registered());
  EXPECT_EQ(emulated.status().error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(emulated.status().error_message().find("has native boards, this board is emulated"), std::string::npos)
      << emulated.status().error_message();
  Registration apart(fleet.address(), "same-target-emulated", true);
  EXPECT_TRUE(apart.registered()) << apart.status().error_message();
}

}  // namespace
}  // namespace fleet_test
}  // namespace tf

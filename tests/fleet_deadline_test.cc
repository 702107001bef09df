// A board that heartbeats but never answers, or never even reads: the tracker drops it once its
// item's deadline (from the job's measure options) has passed, instead of letting it hold the item
// for ever, and other boards' work goes on meanwhile.
#include <gtest/gtest.h>

#include <atomic>

#include "tests/fleet_harness.h"

namespace tf::fleet_test {
namespace {

// Registers, heartbeats every 200 ms, and keeps every work item it is sent without answering.
class SilentBoard {
 public:
  explicit SilentBoard(const std::string& address)
      : stub_(v1::Boards::NewStub(fleet::open_channel(address, ""))), stream_(stub_->Connect(&ctx_)) {
    v1::BoardMessage reg;
    v1::BoardInfo* info = reg.mutable_register_()->mutable_info();
    info->set_device_key("hostile");
    info->set_hostname("silent-host");
    info->set_target_triple("x86_64-pc-linux-gnu");
    info->set_threads(1);
    info->set_cores(1);
    info->set_protocol_version(1);
    info->set_pid(4242);
    stream_->Write(reg);
    reader_ = std::thread([this] {
      v1::TrackerMessage m;
      while (stream_->Read(&m)) {
        if (m.has_registered()) registered_ = true;
        if (m.has_work()) ++items_;
      }
      ended_ = true;
    });
    beater_ = std::thread([this] {
      while (!ended_ && !stop_) {
        v1::BoardMessage hb;
        hb.mutable_heartbeat()->set_queued(items_);
        stream_->Write(hb);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
    });
  }
  ~SilentBoard() {
    stop_ = true;
    ctx_.TryCancel();
    beater_.join();
    reader_.join();
  }
  bool registered() const { return registered_; }
  int items() const { return items_; }
  bool ended() const { return ended_; }

 private:
  grpc::ClientContext ctx_;
  std::unique_ptr<v1::Boards::Stub> stub_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::BoardMessage, v1::TrackerMessage>> stream_;
  std::atomic<bool> registered_{false}, ended_{false}, stop_{false};
  std::atomic<int> items_{0};
  std::thread reader_, beater_;
};

// Registers and heartbeats, but never reads its stream: what the tracker writes to it piles up
// once HTTP/2's flow-control window is full.
class DeafBoard {
 public:
  explicit DeafBoard(const std::string& address)
      : stub_(v1::Boards::NewStub(fleet::open_channel(address, ""))), stream_(stub_->Connect(&ctx_)) {
    v1::BoardMessage reg;
    v1::BoardInfo* info = reg.mutable_register_()->mutable_info();
    info->set_device_key("deaf");
    info->set_hostname("deaf-host");
    info->set_target_triple("x86_64-pc-linux-gnu");
    info->set_threads(1);
    info->set_cores(1);
    info->set_protocol_version(1);
    info->set_pid(4343);
    stream_->Write(reg);
    beater_ = std::thread([this] {
      v1::BoardMessage hb;
      hb.mutable_heartbeat()->set_queued(0);
      while (!stop_ && stream_->Write(hb)) std::this_thread::sleep_for(std::chrono::milliseconds(200));
      ended_ = true;
    });
  }
  ~DeafBoard() {
    stop_ = true;
    ctx_.TryCancel();
    beater_.join();
  }
  bool ended() const { return ended_; }

 private:
  grpc::ClientContext ctx_;
  std::unique_ptr<v1::Boards::Stub> stub_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::BoardMessage, v1::TrackerMessage>> stream_;
  std::atomic<bool> ended_{false}, stop_{false};
  std::thread beater_;
};

TEST(FleetDeadline, ABoardThatNeverReadsIsDroppedAndHoldsUpNoOtherBoard) {
  Fleet fleet("deaf");
  fleet.start_tracker({"--item-grace-ms", "500"});
  DeafBoard deaf(fleet.address());
  fleet.start_board("honest");
  auto stub = fleet.client();
  ASSERT_TRUE(eventually(
      [&] {
        v1::ListDevicesResponse devices;
        return stub->ListDevices(context().get(), v1::ListDevicesRequest(), &devices).ok() &&
               devices.devices_size() == 2;
      },
      std::chrono::seconds(30)))
      << fleet.tracker().output();
  // dense 256x256x256: each item carries 768 KiB of arguments, far past what HTTP/2 buffers for a
  // stream nobody reads.
  v1::JobSpec deaf_spec = dense_job("deaf", {256, 256, 256}, 2);
  deaf_spec.mutable_measure()->set_timeout_s(1);
  const int64_t deaf_job = submit(*stub, deaf_spec);
  const int64_t honest_job = submit(*stub, dense_job("honest", {16, 16, 16}, 8));
  const v1::Job honest = follow(*stub, honest_job);
  EXPECT_EQ(honest.state(), v1::DONE) << fleet.tracker().output();
  ASSERT_EQ(honest.workloads_size(), 1);
  EXPECT_EQ(honest.workloads(0).ok(), 8);
  EXPECT_TRUE(eventually([&] { return deaf.ended(); }, std::chrono::seconds(60))) << fleet.tracker().output();
  EXPECT_TRUE(
      eventually([&] { return fleet.tracker().output().find("dropped: no answer for item") != std::string::npos; },
                 std::chrono::seconds(10)))
      << fleet.tracker().output();
  v1::CancelJobRequest cancel;
  cancel.set_job_id(deaf_job);
  v1::Job cancelled;
  EXPECT_TRUE(stub->CancelJob(context().get(), cancel, &cancelled).ok());
}

TEST(FleetDeadline, ABoardThatHeartbeatsButNeverAnswersIsDropped) {
  Fleet fleet("deadline");
  fleet.start_tracker({"--item-grace-ms", "500"});
  SilentBoard silent(fleet.address());
  ASSERT_TRUE(eventually([&] { return silent.registered(); }, std::chrono::seconds(30))) << fleet.tracker().output();
  v1::SubmitJobRequest req;
  *req.mutable_spec() = dense_job("hostile", {16, 16, 16}, 2);
  req.mutable_spec()->mutable_measure()->set_timeout_s(1);  // deadline: 2 x 1 s + 0.5 s
  v1::Job job;
  auto stub = fleet.client();
  grpc::Status s = stub->SubmitJob(context().get(), req, &job);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_TRUE(eventually([&] { return silent.items() > 0; }, std::chrono::seconds(60))) << fleet.tracker().output();
  // Heartbeats keep coming, yet the board is dropped and its stream closed.
  EXPECT_TRUE(eventually([&] { return silent.ended(); }, std::chrono::seconds(30))) << fleet.tracker().output();
  // The tracker logs the drop after closing the stream.
  EXPECT_TRUE(
      eventually([&] { return fleet.tracker().output().find("dropped: no answer for item") != std::string::npos; },
                 std::chrono::seconds(10)))
      << fleet.tracker().output();
  v1::ListDevicesResponse devices;
  ASSERT_TRUE(stub->ListDevices(context().get(), v1::ListDevicesRequest(), &devices).ok());
  EXPECT_EQ(devices.devices_size(), 0);
}

}  // namespace
}  // namespace tf::fleet_test

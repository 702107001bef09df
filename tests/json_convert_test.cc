// The JSON forms of wire messages (proto/json_convert.h): job files in, --json output out.
#include <gtest/gtest.h>

#include "proto/json_convert.h"

namespace tf::fleet {
namespace {

v1::Job finished_job() {
  v1::Job job;
  job.set_id(7);
  job.set_state(v1::DONE);
  job.set_owner("ci");
  for (int64_t n : {64, 32}) {
    auto* p = job.add_workloads();
    p->mutable_workload()->set_op("dense");
    for (int i = 0; i < 3; ++i) p->mutable_workload()->add_shape(n);
    p->set_workload_key("dense[" + std::to_string(n) + "," + std::to_string(n) + "," + std::to_string(n) + "]:float32");
    p->set_state("done");
    p->set_trials(4);
    p->set_trials_done(4);
    p->set_ok(3);
    p->set_failed(1);
    p->set_best_gflops(2.5);
    p->set_best_config_json(R"({"mr":4,"order":"mn","vectorize":true})");
  }
  job.mutable_spec()->set_device_key("x86");
  job.mutable_spec()->set_trials(4);
  job.mutable_spec()->mutable_measure()->set_min_repeat_ms(20);
  return job;
}

TEST(JsonConvert, AJobShowsEachWorkloadWithItsProgress) {
  const Json j = job_to_json(finished_job());
  EXPECT_EQ(j.at("id"), 7);
  EXPECT_EQ(j.at("state"), "done");
  ASSERT_EQ(j.at("workloads").size(), 2u);
  const Json& w = j.at("workloads")[1];
  std::vector<std::string> keys;
  for (const auto& [k, v] : w.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"op", "shape", "dtype", "workload_key", "state", "trials", "trials_done",
                                            "ok", "failed", "best_gflops", "best_config"}));
  EXPECT_EQ(w.at("shape"), Json({32, 32, 32}));
  EXPECT_EQ(w.at("workload_key"), "dense[32,32,32]:float32");
  EXPECT_EQ(w.at("ok"), 3);
  EXPECT_EQ(w.at("best_config").dump(), R"({"mr":4,"order":"mn","vectorize":true})");
  EXPECT_EQ(j.at("spec").at("key"), "x86");
  EXPECT_EQ(j.at("spec").at("measure").at("min_repeat_ms").dump(), "20.0");
}

TEST(JsonConvert, ABestConfigThatIsNotJsonIsShownAsText) {
  v1::WorkloadProgress p;
  p.set_best_config_json("{not json");
  EXPECT_EQ(workload_progress_to_json(p).at("best_config"), "{not json");
}

TEST(JsonConvert, JobFilesNameTheFieldThatIsWrong) {
  auto error_of = [](const std::string& text) {
    try {
      job_spec_from_text(text);
    } catch (const SpecError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string w = R"("workloads": [{"op": "dense", "shape": [64, 64, 64]}])";
  EXPECT_EQ(error_of("{" + w + R"(, "trials": 16.0})"), "trials: expected an integer, got a fraction");
  EXPECT_EQ(error_of("{" + w + R"(, "trials": "16"})"), "trials: expected an integer, got a string");
  EXPECT_EQ(error_of("{" + w + R"(, "seed": 18446744073709551615})"), "seed: 18446744073709551615 is out of range");
  EXPECT_EQ(error_of("{" + w + R"(, "measure": {"flush_cache": 1}})"),
            "measure.flush_cache: expected true or false, got an integer");
  EXPECT_EQ(error_of(R"({"workloads": [{"op": "dense", "shape": [64, 64.5, 64]}]})"),
            "workloads[0].shape[1]: expected an integer, got a fraction");
  EXPECT_EQ(error_of("{" + w + R"(, "trails": 16})").rfind("job.trails: unknown field", 0), 0u);
  EXPECT_EQ(error_of("{" + w + R"(, "trials": 1, "trials": 2})"),
            "job file is not JSON: invalid JSON: duplicate key \"trials\"");
  EXPECT_EQ(error_of("{" + w + ",}").rfind("job file is not JSON: invalid JSON at line 1, column", 0), 0u);

  const v1::JobSpec spec =
      job_spec_from_text("{" + w + R"(, "key": "x86", "trials": 8, "measure": {"min_repeat_ms": 5}})");
  EXPECT_EQ(spec.workloads(0).shape(1), 64);
  EXPECT_EQ(spec.trials(), 8);
  EXPECT_DOUBLE_EQ(spec.measure().min_repeat_ms(), 5);
}

// A model's job carries its inputs as bound through the tracker's database (spec JSON) and back.
TEST(JsonConvert, AModelJobKeepsItsInputShapes) {
  v1::JobSpec spec = finished_job().spec();
  spec.set_model("fpn.onnx");
  spec.set_input_shapes("image=1,3,640,640");
  const Json j = job_spec_to_json(spec);
  EXPECT_EQ(j.at("input_shapes"), "image=1,3,640,640");
  const v1::JobSpec back = job_spec_from_json(j);
  EXPECT_EQ(back.input_shapes(), "image=1,3,640,640");
  EXPECT_EQ(back.model(), "fpn.onnx");
  EXPECT_FALSE(job_spec_to_json(finished_job().spec()).contains("input_shapes"));
}

// A model job's time limit survives the tracker's database, and a bad one names the field.
TEST(JsonConvert, AModelJobKeepsItsTimeLimit) {
  v1::JobSpec spec = finished_job().spec();
  spec.set_time_limit_s(300);
  const v1::JobSpec back = job_spec_from_json(job_spec_to_json(spec));
  EXPECT_DOUBLE_EQ(back.time_limit_s(), 300);
  EXPECT_FALSE(job_spec_to_json(finished_job().spec()).contains("time_limit_s")) << "no limit, no field";
  try {
    job_spec_from_text(R"({"workloads": [{"op": "dense", "shape": [64, 64, 64]}], "time_limit_s": "5m"})");
    ADD_FAILURE() << "a time limit that is not a number was accepted";
  } catch (const SpecError& e) {
    EXPECT_EQ(std::string(e.what()), "time_limit_s: expected a number, got a string");
  }
}

TEST(JsonConvert, ADeviceKeepsItsIntegerFields) {
  v1::Device d;
  d.set_device_key("x86");
  d.set_memory_bytes(int64_t{1} << 40);
  d.set_threads(2);
  const Json j = device_to_json(d);
  EXPECT_EQ(j.begin().key(), "key");
  EXPECT_EQ(j.at("memory_bytes").dump(), "1099511627776");
  EXPECT_EQ(j.at("threads").dump(), "2");
}

}  // namespace
}  // namespace tf::fleet

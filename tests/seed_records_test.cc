// The tuning records shipped with tunefarm (tuner/seeds): all of them readable, offered only to
// targets of the kind they were measured on, and none of a workload whose search the tuner
// benchmark measures (they would make its search-efficiency numbers meaningless).
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "compiler/codegen/target.h"
#include "support/json.h"
#include "tuner/seed_records.h"

namespace tf::tuner {
namespace {

std::vector<db::Measurement> every_shipped_record() {
  std::vector<db::Measurement> all;
  for (const SeedFile& f : shipped_seed_files()) {
    std::istringstream in(f.text);
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
      ++line_no;
      if (line.empty()) continue;
      try {
        all.push_back(db::Measurement::from_json(parse_json(line)));
      } catch (const std::exception& e) {
        ADD_FAILURE() << f.name << " line " << line_no << ": " << e.what();
      }
    }
  }
  return all;
}

TEST(SeedRecords, EveryShippedLineIsATuningRecord) {
  ASSERT_FALSE(shipped_seed_files().empty());
  const auto all = every_shipped_record();
  EXPECT_GE(all.size(), 100u);
  std::set<std::vector<int64_t>> shapes;
  for (const auto& m : all) {
    shapes.insert(m.shape);
    EXPECT_EQ(m.op, "dense");
    EXPECT_FALSE(m.costs.empty());
  }
  EXPECT_GE(shapes.size(), 2u) << "seeds from one shape teach little about others";
}

TEST(SeedRecords, NoneOfABenchmarkedWorkload) {
  // gemm-512 and bert-ffn1 (search efficiency), gemm-1024 (tuned quality).
  const std::set<std::vector<int64_t>> benchmarked = {{512, 512, 512}, {128, 3072, 768}, {1024, 1024, 1024}};
  for (const auto& m : every_shipped_record()) EXPECT_EQ(benchmarked.count(m.shape), 0u) << m.workload_key();
}

TEST(SeedRecords, OfferedOnlyToTheKindOfTargetTheyWereMeasuredOn) {
  const auto all = every_shipped_record();
  ASSERT_FALSE(all.empty());
  const codegen::Target measured_on = codegen::parse_target(all.front().target);
  const auto same = seed_records("dense", measured_on);
  EXPECT_GT(same.size(), 0u);
  for (const auto& m : same) EXPECT_EQ(m.outcome, db::Outcome::Ok);
  EXPECT_TRUE(seed_records("conv2d", measured_on).empty());
  codegen::Target other = measured_on;
  other.cpu = measured_on.cpu == "x86-64-v2" ? "x86-64-v3" : "x86-64-v2";
  EXPECT_TRUE(seed_records("dense", other).empty()) << "records of " << measured_on.cpu << " offered to " << other.cpu;
}

}  // namespace
}  // namespace tf::tuner

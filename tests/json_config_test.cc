#include <gtest/gtest.h>

#include "compiler/codegen/target.h"
#include "compiler/compiler.h"
#include "support/json.h"

namespace tf {
namespace {

TEST(Json, RoundTripsAndKeepsKeyOrder) {
  json::Value v = json::parse(R"({"b": [1, 2.5, "x\n", true, null], "a": {"z": -3}})");
  EXPECT_EQ(v.members()[0].first, "b");
  EXPECT_EQ(v.at("b").items()[0].as_int(), 1);
  EXPECT_DOUBLE_EQ(v.at("b").items()[1].as_double(), 2.5);
  EXPECT_EQ(v.at("b").items()[2].as_string(), "x\n");
  EXPECT_EQ(v.at("a").at("z").as_int(), -3);
  EXPECT_EQ(json::parse(v.dump()), v);
  EXPECT_EQ(json::parse(v.dump(2)), v);
}

TEST(Json, RejectsMalformedTextWithAPosition) {
  for (const char* bad : {"", "{", "{\"a\":}", "[1,]", "{'a':1}", "01", "{\"a\":1,\"a\":2}", "[1] x", "\"abc", "nul"}) {
    try {
      json::parse(bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const json::ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("invalid JSON at line 1"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(json::parse("\"x\"").as_int(), json::ParseError);
}

compiler::Task dense_task(int64_t M, int64_t N, int64_t K) {
  codegen::Target t;
  t.triple = "x86_64-pc-linux-gnu";
  t.cpu = "x86-64-v3";
  t.vector_bits = 256;
  return compiler::Task({"dense", {M, N, K}}, t);
}

TEST(ConfigSpace, IndexAndJsonRoundTrip) {
  auto task = dense_task(512, 512, 512);
  const auto& space = task.space();
  EXPECT_GT(space.size(), 1000);
  for (int64_t idx : {int64_t{0}, int64_t{1}, space.size() / 3, space.size() - 1}) {
    auto cfg = space.at(idx);
    EXPECT_EQ(cfg.index(), idx);
    EXPECT_EQ(space.from_json(cfg.to_json()).index(), idx);
    EXPECT_EQ(task.parse_config(cfg.str()).index(), idx);
    EXPECT_EQ(task.parse_config(std::to_string(idx)).index(), idx);
  }
  EXPECT_EQ(task.parse_config("default").index(), space.default_config().index());
  EXPECT_EQ(space.at(0).get_int("mr"), 1);
}

TEST(ConfigSpace, BadConfigsNameTheKnob) {
  auto task = dense_task(512, 512, 512);
  auto msg = [&](const std::string& spec) {
    try {
      task.parse_config(spec);
    } catch (const CompileError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(msg(R"({"mr": 5})").find("knob 'mr' cannot be 5"), std::string::npos);
  EXPECT_NE(msg(R"({"tile": 5})").find("unknown knob 'tile'"), std::string::npos);
  EXPECT_NE(msg(R"({"mr": )").find("invalid JSON"), std::string::npos);
  EXPECT_NE(msg("[1,2]").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(msg("-1").find("outside the space"), std::string::npos);
  EXPECT_NE(msg(std::to_string(task.space().size())).find("outside the space"), std::string::npos);
  EXPECT_NE(msg("99999999999999999999999").find("outside the space"), std::string::npos);
}

TEST(ConfigSpace, SmallShapesGetSmallSpaces) {
  auto tiny = dense_task(1, 1, 1);
  EXPECT_EQ(tiny.space().knob("mr").choices.size(), 1u);
  EXPECT_EQ(tiny.space().knob("kc").choices.size(), 1u);
  EXPECT_LT(tiny.space().size(), 100);
}

TEST(Workload, BadWorkloadsAreRefusedWithTheExtentNamed) {
  codegen::Target t;
  t.vector_bits = 256;
  auto msg = [&](const std::string& op, std::vector<int64_t> shape) {
    try {
      compiler::Task task({op, shape}, t);
    } catch (const CompileError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(msg("conv9d", {1, 2, 3}).find("unknown op 'conv9d'"), std::string::npos);
  EXPECT_NE(msg("dense", {4, 0, 4}).find("extent N = 0 must be positive"), std::string::npos);
  EXPECT_NE(msg("dense", {4, -2, 4}).find("extent N = -2"), std::string::npos);
  EXPECT_NE(msg("dense", {4, 4}).find("takes shape M,N,K"), std::string::npos);
  EXPECT_NE(msg("dense", {1 << 20, 1 << 20, 1 << 20}).find("GiB"), std::string::npos);
  EXPECT_NE(msg("dense", {int64_t{1} << 40, 1, 1}).find("absurdly large"), std::string::npos);
}

}  // namespace
}  // namespace tf

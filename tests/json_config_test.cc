#include <gtest/gtest.h>

#include "compiler/codegen/target.h"
#include "compiler/compiler.h"
#include "support/json.h"

namespace tf {
namespace {

TEST(Json, ParsesKeepsKeyOrderAndRoundTrips) {
  Json v = parse_json(R"({"b": [1, 2.5, "x\n", true, null], "a": {"z": -3}})");
  EXPECT_EQ(v.begin().key(), "b");
  EXPECT_TRUE(v.at("b")[0].is_number_integer());
  EXPECT_TRUE(v.at("b")[1].is_number_float());
  EXPECT_EQ(v.at("b")[2].get<std::string>(), "x\n");
  EXPECT_EQ(v.at("a").at("z").get<int64_t>(), -3);
  EXPECT_EQ(v.dump(), R"({"b":[1,2.5,"x\n",true,null],"a":{"z":-3}})");
  EXPECT_EQ(parse_json(v.dump(2)), v);
  // A whole double stays a double when written and read back.
  EXPECT_EQ(Json(16.0).dump(), "16.0");
  EXPECT_TRUE(parse_json(Json(16.0).dump()).is_number_float());
}

TEST(Json, RejectsMalformedTextWithAPosition) {
  for (const char* bad : {"", "{", "{\"a\":}", "[1,]", "{'a':1}", "01", "[1] x", "\"abc", "nul", "[1e999]"}) {
    try {
      parse_json(bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const JsonError& e) {
      EXPECT_EQ(std::string(e.what()).find("invalid JSON"), 0u) << e.what();
      EXPECT_EQ(std::string(e.what()).find("[json.exception"), std::string::npos) << e.what();
    }
  }
  try {
    parse_json("{\n  \"a\": 1,\n  \"b\": x}");
    ADD_FAILURE() << "accepted a bad value";
  } catch (const JsonError& e) {
    EXPECT_NE(std::string(e.what()).find("invalid JSON at line 3, column"), std::string::npos) << e.what();
  }
}

TEST(Json, RefusesARepeatedKeyAtAnyDepth) {
  for (const char* dup : {R"({"a": 1, "a": 2})", R"({"w": [{"op": "dense", "op": "dense"}]})"}) {
    try {
      parse_json(dup);
      ADD_FAILURE() << "accepted: " << dup;
    } catch (const JsonError& e) {
      EXPECT_NE(std::string(e.what()).find("duplicate key"), std::string::npos) << e.what();
    }
  }
  // The same key in sibling objects is no repeat.
  EXPECT_EQ(parse_json(R"([{"a": 1}, {"a": 2}])").size(), 2u);
}

compiler::Task dense_task(int64_t M, int64_t N, int64_t K) {
  codegen::Target t;
  t.triple = "x86_64-pc-linux-gnu";
  t.cpu = "x86-64-v3";
  t.vector_bits = 256;
  return compiler::Task({"dense", {M, N, K}}, t);
}

TEST(ConfigSpace, KnobValuesKeepTheirKinds) {
  auto task = dense_task(512, 512, 512);
  const Json cfg = task.space().default_config().to_json();
  EXPECT_TRUE(cfg.at("mr").is_number_integer()) << cfg.dump();
  EXPECT_TRUE(cfg.at("vectorize").is_boolean()) << cfg.dump();
  EXPECT_TRUE(cfg.at("order").is_string()) << cfg.dump();
  EXPECT_NE(cfg.dump().find("\"vectorize\":true"), std::string::npos) << cfg.dump();
  // A whole number written as a fraction picks the same choice, as it always did; 4.5 is no choice.
  EXPECT_EQ(task.parse_config(R"({"mr": 4.0})").index(), task.parse_config(R"({"mr": 4})").index());
  EXPECT_THROW(task.parse_config(R"({"mr": 4.5})"), CompileError);
  EXPECT_THROW(task.parse_config(R"({"vectorize": 1})"), CompileError);
  // A knob read as another kind names the knob instead of failing inside the JSON library.
  try {
    task.space().default_config().get_int("vectorize");
    ADD_FAILURE() << "a boolean knob read as an integer";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("knob 'vectorize' is a boolean, not an integer"), std::string::npos)
        << e.what();
  }
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

TEST(ConfigSpace, NearestMapsAnotherShapesConfigKnobByKnob) {
  space::ConfigSpace here;
  here.add_knob("tile", {Json(4), Json(8), Json(16), Json(64)}, 1, "");
  here.add_knob("order", {Json("ab"), Json("ba")}, 0, "");
  here.add_knob("unroll", {Json(true), Json(false)}, 1, "");
  // 48 is nearer 64 than 16 on a log scale; a string and a boolean match exactly.
  auto c = here.nearest(parse_json(R"({"tile": 48, "order": "ba", "unroll": true})"));
  EXPECT_EQ(c.get_int("tile"), 64);
  EXPECT_EQ(c.get_string("order"), "ba");
  EXPECT_TRUE(c.get_bool("unroll"));
  EXPECT_EQ(here.nearest(parse_json(R"({"tile": 5})")).get_int("tile"), 4);
  // Knobs the other config lacks, values no choice matches and knobs this space lacks: defaults, no throw.
  c = here.nearest(parse_json(R"({"order": "cd", "unroll": 1, "pad": "copy"})"));
  EXPECT_EQ(c.index(), here.default_config().index());
  EXPECT_EQ(here.nearest(parse_json("[1, 2]")).index(), here.default_config().index());
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

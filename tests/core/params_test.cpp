// Tests of parameter declarations, Config, section resolution, overrides and the model registry.
#include "core/params.h"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

#include "core/error.h"
#include "core/registry.h"
#include "support/input_error.h"

namespace hx {
namespace {

using testing::error_of;

std::vector<ParamSpec> phold_specs() {
  return {
      ParamSpec::integer("lps", 64, "logical processes").range(1, 1e9),
      ParamSpec::real("remote", 0.1, "fraction of remote events").range(0, 1),
      ParamSpec::flag("verbose", false, "chatty"),
      ParamSpec::text("label", "run a", "free text"),
      ParamSpec::time("delay", "10ns", "mean delay"),
      ParamSpec::bandwidth("bw", "400Gbps", "link rate"),
      ParamSpec::bytes("buffer", "64KiB", "buffer size"),
      ParamSpec::choice("dist", "uniform", {"uniform", "exponential"}, "delay distribution"),
  };
}

Config one(const std::string& key, const std::string& value, const std::string& origin = "t.toml") {
  Config c;
  c.set(key, value, origin);
  return c;
}

TEST(ParamSpec, Builders) {
  const ParamSpec s = ParamSpec::integer("lps", 64, "h").range(1, 100);
  EXPECT_EQ(s.type, ParamType::kInt);
  EXPECT_EQ(s.default_value, "64");
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 100);
  EXPECT_EQ(ParamSpec::real("x", 0.1, "").default_value, "0.1");
  EXPECT_EQ(ParamSpec::flag("x", true, "").default_value, "true");
  EXPECT_EQ(ParamSpec::choice("x", "a", {"a", "b"}, "").choices.size(), 2u);
  EXPECT_STREQ(param_type_name(ParamType::kBandwidth), "bandwidth");
  EXPECT_STREQ(param_type_name(ParamType::kChoice), "choice");
  EXPECT_STREQ(param_type_name(ParamType::kInt), "int");
}

TEST(ResolveSection, Defaults) {
  const ParamSet p = resolve_section(Config(), "phold", phold_specs());
  EXPECT_EQ(p.section(), "phold");
  EXPECT_EQ(p.integer("lps"), 64);
  EXPECT_EQ(p.real("remote"), 0.1);
  EXPECT_FALSE(p.flag("verbose"));
  EXPECT_EQ(p.text("label"), "run a");
  EXPECT_EQ(p.time("delay"), SimTime::ns(10));
  EXPECT_EQ(p.bandwidth("bw").bps(), 400e9);
  EXPECT_EQ(p.bytes("buffer").count(), 65536u);
  EXPECT_EQ(p.text("dist"), "uniform");
  const std::vector<std::pair<std::string, std::string>> canonical = {
      {"lps", "64"},     {"remote", "0.1"}, {"verbose", "false"}, {"label", "run a"},
      {"delay", "10ns"}, {"bw", "400Gbps"}, {"buffer", "64KiB"},  {"dist", "uniform"}};
  EXPECT_EQ(p.canonical(), canonical);
}

TEST(ResolveSection, ValuesAndOverrides) {
  Config c;
  c.set("phold.lps", "1000", "a.toml");
  c.set("phold.delay", "1500 ps", "a.toml");
  c.set("phold.verbose", "true", "a.toml");
  c.set("sim.end_time", "1us", "a.toml");  // other sections are not this section's business
  c.set("phold.lps", "2000", "--set");     // replaces
  c.set("phold.dist", "exponential", "--set");
  ASSERT_EQ(c.entries().size(), 5u);
  EXPECT_EQ(c.find("phold.lps")->value.text, "2000");
  EXPECT_EQ(c.find("phold.lps")->value.origin, "--set");
  EXPECT_EQ(c.find("phold.nope"), nullptr);

  const ParamSet p = resolve_section(c, "phold", phold_specs());
  EXPECT_EQ(p.integer("lps"), 2000);
  EXPECT_EQ(p.time("delay").count_ps(), 1500);
  EXPECT_TRUE(p.flag("verbose"));
  EXPECT_EQ(p.text("dist"), "exponential");
  EXPECT_EQ(p.canonical()[0].second, "2000");
  EXPECT_EQ(p.canonical()[4].second, "1.5ns");
}

TEST(ResolveSection, CyclesUseCycleTime) {
  const Config c = one("phold.delay", "8cycles");
  EXPECT_EQ(resolve_section(c, "phold", phold_specs(), SimTime::ps(250)).time("delay").count_ps(),
            2000);
  EXPECT_CONTAINS(error_of([&] { resolve_section(c, "phold", phold_specs()); }),
                  "'cycles' needs sim.cycle_time");
}

// An infinite latency or window would be accepted and then stall the run (a router waiting
// forever looked like a deadlock); only a time declared or_infinite() takes "inf".
TEST(ResolveSection, TimesAreFiniteUnlessDeclaredInfinite) {
  const Config c = one("phold.delay", "inf");
  EXPECT_CONTAINS(error_of([&] { resolve_section(c, "phold", phold_specs()); }),
                  "phold.delay = 'inf'");
  EXPECT_CONTAINS(error_of([&] { resolve_section(c, "phold", phold_specs()); }),
                  "expected a finite time");
  std::vector<ParamSpec> specs = phold_specs();
  specs[4] = ParamSpec::time("delay", "10ns", "mean delay").or_infinite();
  EXPECT_TRUE(resolve_section(c, "phold", specs).time("delay").is_infinite());
}

TEST(ResolveSection, TypeErrorsNameKeyValueAndOrigin) {
  struct Case {
    const char* key;
    const char* value;
    const char* expected;
  };
  const Case cases[] = {
      {"lps", "abc", "expected an integer in [1, 1e+09]"},
      {"lps", "12x", "expected an integer"},
      {"lps", "1.5", "expected an integer"},
      {"lps", "", "expected an integer"},
      {"lps", "99999999999999999999", "expected an integer"},
      {"remote", "half", "expected a number in [0, 1]"},
      {"remote", "inf", "expected a number"},
      {"remote", "nan", "expected a number"},
      {"verbose", "yes", "expected true or false"},
      {"verbose", "True", "expected true or false"},
      {"dist", "gaussian", "expected one of uniform, exponential"},
      {"delay", "10", "has no unit"},
      {"bw", "400 parsecs", "is not a bandwidth"},
      {"buffer", "1.5B", "whole number of bytes"},
  };
  for (const Case& k : cases) {
    const std::string key = std::string("phold.") + k.key;
    const std::string m =
        error_of([&] { resolve_section(one(key, k.value, "quick.toml"), "phold", phold_specs()); });
    EXPECT_CONTAINS(m, k.expected);
    EXPECT_CONTAINS(m, key);
    EXPECT_CONTAINS(m, "'" + std::string(k.value) + "'");
    EXPECT_CONTAINS(m, "quick.toml");
  }
  EXPECT_EQ(error_of([] {
              resolve_section(one("phold.lps", "abc", "quick.toml"), "phold", phold_specs());
            }),
            "phold.lps = 'abc' (from quick.toml): expected an integer in [1, 1e+09]");
}

TEST(ResolveSection, ChoiceSuggestsNearMiss) {
  EXPECT_CONTAINS(
      error_of([] { resolve_section(one("phold.dist", "unifrm"), "phold", phold_specs()); }),
      "did you mean 'uniform'?");
}

TEST(ResolveSection, RangeErrors) {
  EXPECT_CONTAINS(error_of([] { resolve_section(one("phold.lps", "0"), "phold", phold_specs()); }),
                  "in [1, 1e+09]");
  EXPECT_CONTAINS(
      error_of([] { resolve_section(one("phold.remote", "1.5"), "phold", phold_specs()); }),
      "in [0, 1]");
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<ParamSpec> one_sided = {ParamSpec::integer("n", 1, "").range(2, inf)};
  EXPECT_CONTAINS(error_of([&] { resolve_section(Config(), "s", one_sided); }), "integer >= 2");
  // Bounds are inclusive.
  EXPECT_EQ(resolve_section(one("phold.lps", "1000000000"), "phold", phold_specs()).integer("lps"),
            1'000'000'000);
  EXPECT_EQ(resolve_section(one("phold.remote", "1"), "phold", phold_specs()).real("remote"), 1.0);
}

TEST(ResolveSection, NumbersParseFully) {
  EXPECT_EQ(resolve_section(one("phold.lps", " 42 "), "phold", phold_specs()).integer("lps"), 42);
  EXPECT_EQ(resolve_section(one("phold.remote", "1e-3"), "phold", phold_specs()).real("remote"),
            1e-3);
  const std::vector<ParamSpec> specs = {ParamSpec::integer("n", 0, "")};
  EXPECT_EQ(resolve_section(one("s.n", "-9223372036854775808"), "s", specs).integer("n"),
            std::numeric_limits<int64_t>::min());
  const ParamSet p =
      resolve_section(one("phold.remote", "0.30000000000000004"), "phold", phold_specs());
  EXPECT_EQ(p.canonical()[1].second, "0.30000000000000004");
}

TEST(ResolveSection, UnknownKeys) {
  const std::string near = error_of(
      [] { resolve_section(one("phold.lpz", "3", "quick.toml"), "phold", phold_specs()); });
  EXPECT_CONTAINS(near, "unknown key 'phold.lpz' in [phold]");
  EXPECT_CONTAINS(near, "quick.toml");
  EXPECT_CONTAINS(near, "did you mean 'lps'?");

  const std::string far =
      error_of([] { resolve_section(one("phold.zzzzzz", "3"), "phold", phold_specs()); });
  EXPECT_CONTAINS(far, "unknown key 'phold.zzzzzz'");
  EXPECT_CONTAINS(far, "valid keys: lps, remote, verbose, label, delay, bw, buffer, dist");

  EXPECT_CONTAINS(
      error_of([] { resolve_section(one("phold.lps.x", "3"), "phold", phold_specs()); }),
      "unknown key 'phold.lps.x'");
}

// Config values as the TOML reader makes them (tests/io covers the reading itself).
ConfigValue scalar(const std::string& text, const std::string& origin = "f.toml:4") {
  ConfigValue v;
  v.text = text;
  v.origin = origin;
  return v;
}
ConfigValue array(std::vector<ConfigValue> items, const std::string& text = "[...]") {
  ConfigValue v = scalar(text, "f.toml:3");
  v.kind = ConfigValue::Kind::kArray;
  v.items = std::move(items);
  return v;
}
ConfigValue table(std::vector<std::pair<std::string, ConfigValue>> fields) {
  ConfigValue v = scalar("{...}", "f.toml:5");
  v.kind = ConfigValue::Kind::kTable;
  v.fields = std::move(fields);
  return v;
}

std::vector<ParamSpec> array_specs() {
  return {
      ParamSpec::list("links", ParamSpec::integer("", 0, "").range(0, 100), {"1", "2"}, "ids"),
      ParamSpec::list("names", ParamSpec::text("", "", ""), {}, "labels"),
      ParamSpec::tables("faults",
                        {ParamSpec::time("at", "0ns", ""), ParamSpec::integer("link", 0, ""),
                         ParamSpec::choice("kind", "down", {"down", "up"}, "")},
                        "schedule"),
  };
}

TEST(ResolveSection, ListsAndTablesDefaults) {
  EXPECT_EQ(array_specs()[0].default_value, "[1, 2]");
  EXPECT_STREQ(param_type_name(ParamType::kList), "list");
  EXPECT_STREQ(param_type_name(ParamType::kTables), "tables");
  EXPECT_THROW(ParamSpec::tables("t", {}, ""), std::logic_error);
  const ParamSet p = resolve_section(Config(), "net", array_specs());
  EXPECT_EQ(p.list<int64_t>("links"), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(p.list<std::string>("names").empty());
  EXPECT_TRUE(p.tables("faults").empty());
  EXPECT_TRUE(p.is_array("faults"));
  EXPECT_FALSE(p.is_array("nope"));
  const std::vector<std::pair<std::string, std::string>> canonical = {
      {"links", "[1, 2]"}, {"names", "[]"}, {"faults", "[]"}};
  EXPECT_EQ(p.canonical(), canonical);
}

TEST(ResolveSection, ListsAndTablesValues) {
  Config c;
  c.set("net.links", array({scalar("7"), scalar(" 3 ")}));
  c.set("net.names", array({scalar("a b"), scalar("007")}));
  c.set("net.faults", array({table({{"at", scalar("1500ps")}, {"link", scalar("3")}}),
                             table({{"kind", scalar("up")}})}));
  const ParamSet p = resolve_section(c, "net", array_specs());
  EXPECT_EQ(p.list<int64_t>("links"), (std::vector<int64_t>{7, 3}));
  EXPECT_EQ(p.list<std::string>("names"), (std::vector<std::string>{"a b", "007"}));
  const std::vector<ParamSet>& faults = p.tables("faults");
  ASSERT_EQ(faults.size(), 2u);
  EXPECT_EQ(faults[0].section(), "net.faults[0]");
  EXPECT_EQ(faults[0].time("at"), SimTime::ps(1500));
  EXPECT_EQ(faults[0].integer("link"), 3);
  EXPECT_EQ(faults[1].text("kind"), "up");
  EXPECT_EQ(faults[1].time("at"), SimTime());
  EXPECT_EQ(p.canonical()[0].second, "[7, 3]");
  EXPECT_EQ(p.canonical()[1].second, R"(["a b", "007"])");
  EXPECT_EQ(p.canonical()[2].second,
            R"([{at = "1.5ns", link = 3, kind = "down"}, {at = "0ps", link = 0, kind = "up"}])");
  EXPECT_THROW(p.list<double>("links"), std::logic_error);
  EXPECT_THROW(p.list<int64_t>("faults"), std::logic_error);
  EXPECT_THROW(p.tables("links"), std::logic_error);
}

TEST(ResolveSection, ListsAndTablesErrorsNameItemAndLine) {
  auto error = [](const std::string& key, const ConfigValue& v) {
    Config c;
    c.set(key, v);
    return error_of([&] { resolve_section(c, "net", array_specs()); });
  };
  EXPECT_EQ(error("net.links", array({scalar("1"), scalar("x", "f.toml:9")})),
            "net.links[1] = 'x' (from f.toml:9): expected an integer in [0, 100]");
  EXPECT_EQ(error("net.links", scalar("3")),
            "net.links = '3' (from f.toml:4): expected an array of int values");
  EXPECT_EQ(error("net.links", array({array({scalar("1")}, "[1]")})),
            "net.links[0] = '[1]' (from f.toml:3): expected one int value, not an array");
  EXPECT_EQ(error("net.faults", array({scalar("3")})),
            "net.faults[0] = '3' (from f.toml:4): expected a table with keys at, link, kind, "
            "e.g. {at = ...}");
  EXPECT_EQ(error("net.faults", array({table({{"at", scalar("soon", "f.toml:6")}})})),
            "net.faults[0].at (from f.toml:6): 'soon' is not a time; expected a number with a "
            "unit: ps, ns, us, ms, s or cycles");
  EXPECT_CONTAINS(error("net.faults", array({table({{"lnk", scalar("3")}})})),
                  "unknown key 'net.faults[0].lnk' in [net.faults[0]] (from f.toml:4); did you "
                  "mean 'link'?");
  EXPECT_EQ(error("net.names", table({})),
            "net.names = '{...}' (from f.toml:5): expected an array of string values");
  Config c;
  c.set("net.links", array({}));
  EXPECT_EQ(resolve_section(c, "net", array_specs()).canonical()[0].second, "[]");
}

TEST(TomlLiteral, BareOrQuoted) {
  EXPECT_EQ(toml_literal("42"), "42");
  EXPECT_EQ(toml_literal("-1.5e+09"), "-1.5e+09");
  EXPECT_EQ(toml_literal("true"), "true");
  EXPECT_EQ(toml_literal("007"), "\"007\"");
  EXPECT_EQ(toml_literal("1."), "\"1.\"");
  EXPECT_EQ(toml_literal("10ns"), "\"10ns\"");
  EXPECT_EQ(toml_literal("a\"b\\c\nd\te\x01"), R"("a\"b\\c\nd\te\u0001")");
}

TEST(ParamSet, ProgrammingErrorsAreLogicErrors) {
  const ParamSet p = resolve_section(Config(), "phold", phold_specs());
  EXPECT_THROW(p.integer("nope"), std::logic_error);
  EXPECT_THROW(p.integer("remote"), std::logic_error);
  EXPECT_THROW(p.text("lps"), std::logic_error);
  EXPECT_THROW(p.time("bw"), std::logic_error);
  EXPECT_THROW(p.bandwidth("delay"), std::logic_error);
  EXPECT_THROW(p.bytes("dist"), std::logic_error);
  EXPECT_THROW(p.flag("lps"), std::logic_error);
  EXPECT_THROW(p.real("lps"), std::logic_error);
}

TEST(CheckSections, UnknownAndMissingSections) {
  Config c;
  c.set("sim.end_time", "1us", "a.toml");
  c.set("phold.lps", "2", "a.toml");
  EXPECT_NO_THROW(check_sections(c, {"sim", "phold"}));
  c.set("foo.bar", "1", "a.toml");
  EXPECT_EQ(error_of([&] {
              check_sections(c, {"sim", "phold"});
            }),
            "unknown section [foo] (key 'foo.bar', from a.toml); known sections: sim, phold");
  EXPECT_CONTAINS(error_of([] {
                    check_sections(one("phodl.lps", "1"), {"sim", "phold"});
                  }),
                  "did you mean 'phold'?");
  const std::string top = error_of([] { check_sections(one("lps", "1"), {"sim", "phold"}); });
  EXPECT_CONTAINS(top, "key 'lps'");
  EXPECT_CONTAINS(top, "not in a section");
}

TEST(Registry, AddAndFind) {
  Registry r;
  r.add(ModelInfo{"phold", "benchmark", phold_specs(), {}, {}, nullptr});
  r.add(ModelInfo{"mesh", "2D mesh", {}, {}, {}, nullptr});
  EXPECT_EQ(r.find("phold").help, "benchmark");
  EXPECT_EQ(r.models().size(), 2u);
  EXPECT_THROW(r.add(ModelInfo{"phold", "again", {}, {}, {}, nullptr}), std::logic_error);
  EXPECT_EQ(error_of([&] { r.find("pold"); }), "unknown model 'pold'; did you mean 'phold'?");
  EXPECT_EQ(error_of([&] { r.find("torus"); }), "unknown model 'torus'; known models: phold, mesh");
}

}  // namespace
}  // namespace hx

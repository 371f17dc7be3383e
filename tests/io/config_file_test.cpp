// Tests of TOML config reading (toml++ underneath), --set overrides and the resolved config.
#include "io/config_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "support/input_error.h"

namespace hx {
namespace {

using testing::error_of;

std::string value_of(const Config& c, const std::string& key) {
  const Config::Entry* e = c.find(key);
  return e != nullptr ? e->value.text : "<missing>";
}

TEST(ParseConfigText, SectionsCommentsAndQuotes) {
  const Config c = parse_config_text(R"(# a leading comment
[sim]
end_time = "10us"   # trailing comment
seed = 42
label = 'run a, b'

  # indented comment
[phold]
lps=1000
dist = "uniform"
remote = 0.25
verbose = true
delay = "1.5 ns"
phold2.x = 3
)",
                                     "quick.toml");
  EXPECT_EQ(value_of(c, "sim.end_time"), "10us");
  EXPECT_EQ(value_of(c, "sim.seed"), "42");
  EXPECT_EQ(value_of(c, "sim.label"), "run a, b");
  EXPECT_EQ(value_of(c, "phold.lps"), "1000");
  EXPECT_EQ(value_of(c, "phold.dist"), "uniform");
  EXPECT_EQ(value_of(c, "phold.remote"), "0.25");
  EXPECT_EQ(value_of(c, "phold.verbose"), "true");
  EXPECT_EQ(value_of(c, "phold.delay"), "1.5 ns");
  EXPECT_EQ(value_of(c, "phold.phold2.x"), "3");  // dotted keys nest; resolve_section rejects it
  EXPECT_EQ(c.entries().size(), 9u);
  EXPECT_EQ(c.entries().front().key, "sim.end_time");  // file order
  EXPECT_EQ(c.find("sim.seed")->value.origin, "quick.toml:4");
}

TEST(ParseConfigText, TopLevelAndDottedKeys) {
  const Config c = parse_config_text("top = 1\nsim.seed = 2\n[a.b]\nc = 'x'\n", "t.toml");
  EXPECT_EQ(value_of(c, "top"), "1");
  EXPECT_EQ(value_of(c, "sim.seed"), "2");
  EXPECT_EQ(value_of(c, "a.b.c"), "x");
  EXPECT_EQ(c.entries().size(), 3u);
}

// An empty table below a section would otherwise set nothing and leave the parameter at its
// default: it stays an entry, which resolving a section refuses by name.
TEST(ParseConfigText, AnEmptyTableBelowASectionIsAnEntry) {
  const Config c = parse_config_text("[router]\nflit_size = {}\n[empty]\n[a.b]\n", "t.toml");
  ASSERT_NE(c.find("router.flit_size"), nullptr);
  EXPECT_EQ(c.find("router.flit_size")->value.kind, ConfigValue::Kind::kTable);
  EXPECT_EQ(c.find("router.flit_size")->value.origin, "t.toml:2");
  ASSERT_NE(c.find("a.b"), nullptr);
  EXPECT_EQ(c.find("empty"), nullptr);  // an empty section: nothing to set
  EXPECT_EQ(c.entries().size(), 2u);
}

TEST(ParseConfigText, EmptyConfigIsAnError) {
  EXPECT_EQ(error_of([] { parse_config_text("", "e.toml"); }),
            "e.toml: the config is empty: it sets no keys (a config names at least its model, "
            "e.g. [sim] model = \"phold\"; configs/ has examples)");
  EXPECT_CONTAINS(error_of([] { parse_config_text("# only\n\n[sim]\n", "e.toml"); }),
                  "e.toml: the config is empty");
}

TEST(ParseConfigText, MalformedTomlNamesFileLineAndText) {
  struct Case {
    const char* text;
    const char* says;
  };
  const Case cases[] = {
      {"[sim]\nlps = \n", "bad.toml:2:7: key-value pair: expected value"},
      {"[sim]\nlps = # nothing\n", "bad.toml:2:7: key-value pair: expected value, saw '#'"},
      {"[unclosed\nx = 1\n", "bad.toml:1:10: table header: expected ']'"},
      {"[sim]\nflag\n", "bad.toml:2:5: key-value pair: expected '='"},
      {"[sim]\nx = \"open\n", "bad.toml:2:"},
      {"[sim]\nx = 1\nx = 2\n",
       "bad.toml:3:5: key-value pair: cannot redefine existing integer 'x'"},
      {"[sim]\nx = 1\n[phold]\n[sim]\nx = 2\n", "bad.toml:4:1: table header: cannot redefine"},
      {"[bad name]\n", "bad.toml:1:"},
      {"[sim]\n= 3\n", "bad.toml:2:1:"},
      {"[sim]\nx = [1, 2\n", "bad.toml:2:"},
      {"[sim]\nx = [1, 2,, 3]\n", "bad.toml:2:11: array: expected value or closing ']', saw comma"},
      {"[sim]\nx = {a = 1,}\n", "bad.toml:2:12: inline table"},
      {"[sim]\nx = 007\n", "leading zeroes are prohibited"},
  };
  for (const Case& c : cases) {
    EXPECT_CONTAINS(error_of([&] { parse_config_text(c.text, "bad.toml"); }), c.says);
  }
  EXPECT_EQ(error_of([] { parse_config_text("[sim]\nseed = 1\nlps = \n", "bad.toml"); }),
            "bad.toml:3:7: key-value pair: expected value, saw '\\n': 'lps ='");
}

TEST(ParseConfigText, UnquotedTextGetsAHint) {
  EXPECT_CONTAINS(error_of([] { parse_config_text("[sim]\nend_time = 10 ns  # x\n", "b.toml"); }),
                  "b.toml:2:15: key-value pair: expected a comment or whitespace, saw 'n': "
                  "'end_time = 10 ns  # x'; text values are quoted: end_time = \"10 ns\"");
  EXPECT_CONTAINS(error_of([] { parse_config_text("[sim]\nmodel = torus\n", "b.toml"); }),
                  "model = \"torus\"");
  EXPECT_EQ(error_of([] { parse_config_text("[sim]\nx = 007\n", "b.toml"); }).find("quoted"),
            std::string::npos);
}

TEST(ParseConfigText, NulIsNamedWithItsLine) {
  EXPECT_EQ(error_of([] { parse_config_text(std::string("[sim]\nx = \"a\0b\"\n", 14), "n.toml"); }),
            "n.toml:2: a NUL character (byte 0); a config file is UTF-8 text: 'x = \"a'");
  EXPECT_EQ(error_of([] { parse_config_text("[sim]\nx = \"a\\u0000b\"\n", "n.toml"); }),
            "n.toml:2: sim.x holds a NUL character (\\u0000)");
}

TEST(ParseConfigText, ByteOrderMarkIsAccepted) {
  const Config c = parse_config_text("\xEF\xBB\xBF[sim]\nseed = 3\n", "bom.toml");
  EXPECT_EQ(value_of(c, "sim.seed"), "3");
  EXPECT_EQ(c.find("sim.seed")->value.origin, "bom.toml:2");
}

TEST(ParseConfigText, ScalarsKeepTheirKind) {
  const Config c = parse_config_text(
      "[s]\nhex = 0x10\nbig = 1_000\none = 1.0\nexp = 1e3\nfrac = 0.25\nyes = true\n"
      "day = 1979-05-27\nesc = \"a\\tb\"\n",
      "k.toml");
  EXPECT_EQ(value_of(c, "s.hex"), "16");
  EXPECT_EQ(value_of(c, "s.big"), "1000");
  EXPECT_EQ(value_of(c, "s.one"), "1.0");  // stays a float: an int parameter rejects it
  EXPECT_EQ(value_of(c, "s.exp"), "1000.0");
  EXPECT_EQ(value_of(c, "s.frac"), "0.25");
  EXPECT_EQ(value_of(c, "s.yes"), "true");
  EXPECT_EQ(value_of(c, "s.day"), "1979-05-27");
  EXPECT_EQ(value_of(c, "s.esc"), "a\tb");
}

TEST(ParseConfigText, ArraysAndTables) {
  const Config c = parse_config_text(R"([sim]
links = [1, 2, 3]
names = ["a", 'b']
empty = []
nested = [[1, 2], ["x"]]
faults = [
  {at = "1us", link = 3},
  {link = 5, at = "2us"},
]
inline = {a = 1, b.c = "x"}

[[jobs.mix]]
name = "a"
share = 0.5
[[jobs.mix]]
name = "b"
)",
                                     "arr.toml");
  using Kind = ConfigValue::Kind;
  const ConfigValue& links = c.find("sim.links")->value;
  ASSERT_EQ(links.kind, Kind::kArray);
  EXPECT_EQ(links.text, "[1, 2, 3]");
  EXPECT_EQ(links.origin, "arr.toml:2");
  ASSERT_EQ(links.items.size(), 3u);
  EXPECT_EQ(links.items[2].text, "3");
  EXPECT_EQ(links.items[2].kind, Kind::kScalar);
  EXPECT_EQ(c.find("sim.names")->value.items[1].text, "b");
  EXPECT_TRUE(c.find("sim.empty")->value.items.empty());
  EXPECT_EQ(c.find("sim.nested")->value.items[1].items[0].text, "x");

  const ConfigValue& faults = c.find("sim.faults")->value;
  ASSERT_EQ(faults.items.size(), 2u);
  const ConfigValue& second = faults.items[1];
  EXPECT_EQ(second.kind, Kind::kTable);
  EXPECT_EQ(second.origin, "arr.toml:8");
  ASSERT_EQ(second.fields.size(), 2u);
  EXPECT_EQ(second.fields[0].first, "link");  // file order
  EXPECT_EQ(second.fields[1].second.text, "2us");

  // A table outside an array is dotted keys, as a [section] is.
  EXPECT_EQ(value_of(c, "sim.inline.a"), "1");
  EXPECT_EQ(value_of(c, "sim.inline.b.c"), "x");

  const ConfigValue& mix = c.find("jobs.mix")->value;
  ASSERT_EQ(mix.items.size(), 2u);
  EXPECT_EQ(mix.items[0].fields[1].first, "share");
  EXPECT_EQ(mix.items[0].fields[1].second.text, "0.5");
  EXPECT_EQ(mix.items[1].fields[0].second.origin, "arr.toml:16");
}

// How a model reads a schedule such as future fault injection: an array of tables, each resolved
// against its keys, every error naming the file, the line, the item and the key.
TEST(ParseConfigText, ScheduleOfTablesResolvesWithPreciseErrors) {
  const std::vector<ParamSpec> specs = {
      ParamSpec::tables(
          "schedule",
          {ParamSpec::time("at", "0ns", ""), ParamSpec::integer("link", 0, "").range(0, 1e6)},
          "faults"),
      ParamSpec::list("spare", ParamSpec::integer("", 0, ""), {}, "spare links"),
  };
  const std::string text =
      "[faults]\nspare = [4, 5]\nschedule = [\n  {at = \"1us\", link = 3},\n"
      "  {at = \"2us\", link = 9},\n]\n";
  const ParamSet p = resolve_section(parse_config_text(text, "f.toml"), "faults", specs);
  ASSERT_EQ(p.tables("schedule").size(), 2u);
  EXPECT_EQ(p.tables("schedule")[1].time("at"), SimTime::us(2));
  EXPECT_EQ(p.tables("schedule")[1].integer("link"), 9);
  EXPECT_EQ(p.list<int64_t>("spare"), (std::vector<int64_t>{4, 5}));

  auto error = [&](std::string bad) {
    return error_of([&] { resolve_section(parse_config_text(bad, "f.toml"), "faults", specs); });
  };
  std::string bad = text;
  bad.replace(bad.find("link = 9"), 8, "link = -1");
  EXPECT_EQ(error(bad),
            "faults.schedule[1].link = '-1' (from f.toml:5): expected an integer in "
            "[0, 1e+06]");
  bad = text;
  bad.replace(bad.find("[4, 5]"), 6, "[4, \"x\"]");
  EXPECT_EQ(error(bad), "faults.spare[1] = 'x' (from f.toml:2): expected an integer");
  bad = text;
  bad.replace(bad.find("spare = [4, 5]"), 14, "spare = 4");
  EXPECT_EQ(error(bad), "faults.spare = '4' (from f.toml:2): expected an array of int values");
  bad = text;
  bad.replace(bad.find("{at = \"2us\", link = 9}"), 22, "7");
  EXPECT_EQ(error(bad),
            "faults.schedule[1] = '7' (from f.toml:5): expected a table with keys "
            "at, link, e.g. {at = ...}");
}

TEST(ApplyOverride, ParsesAndRejects) {
  Config c;
  apply_override(c, "  sim.end_time =  \"10 us\" ");
  EXPECT_EQ(value_of(c, "sim.end_time"), "10 us");
  EXPECT_EQ(c.find("sim.end_time")->value.origin, "--set");
  apply_override(c, "sim.label='it''s'");
  EXPECT_EQ(value_of(c, "sim.label"), "it''s");
  apply_override(c, "sim.expr=a=b");  // split at the first '='
  EXPECT_EQ(value_of(c, "sim.expr"), "a=b");
  apply_override(c, "sim.empty=");
  EXPECT_EQ(value_of(c, "sim.empty"), "");
  apply_override(c, "sim.end_time=20us");
  EXPECT_EQ(value_of(c, "sim.end_time"), "20us");
  EXPECT_EQ(c.entries().size(), 4u);  // replaced, not appended
  EXPECT_CONTAINS(error_of([&] { apply_override(c, "sim.end_time"); }), "expected key=value");
  EXPECT_CONTAINS(error_of([&] { apply_override(c, " = 3"); }), "expected key=value");
}

TEST(ApplyOverride, ArraysAndInlineTablesAreToml) {
  Config c = parse_config_text("[net]\nlinks = [1, 2]\n", "a.toml");
  apply_override(c, "net.links=[4, 5, 6]");
  const ConfigValue& links = c.find("net.links")->value;
  ASSERT_EQ(links.kind, ConfigValue::Kind::kArray);
  ASSERT_EQ(links.items.size(), 3u);
  EXPECT_EQ(links.items[0].text, "4");
  EXPECT_EQ(links.origin, "--set");
  apply_override(c, "net.faults=[{at='1us', link=3}]");
  EXPECT_EQ(c.find("net.faults")->value.items[0].fields[0].second.text, "1us");
  apply_override(c, "sim={seed = 3, model = 'torus'}");
  EXPECT_EQ(value_of(c, "sim.seed"), "3");
  EXPECT_EQ(value_of(c, "sim.model"), "torus");
  EXPECT_EQ(error_of([&] { apply_override(c, "net.links=[1,"); }),
            "--set 'net.links=[1,': array: encountered end-of-file (a value starting with '[' "
            "is TOML: [1, 2] or {a = 1})");
  EXPECT_CONTAINS(error_of([&] { apply_override(c, "net.links=[1, x]"); }), "--set 'net.links");
}

TEST(LoadConfigFile, MissingFileAndDirectory) {
  EXPECT_EQ(error_of([] { load_config_file("/nonexistent/x.toml"); }),
            "cannot read config file '/nonexistent/x.toml': No such file or directory");
  EXPECT_CONTAINS(error_of([] { load_config_file(std::filesystem::temp_directory_path()); }),
                  "is a directory");
}

TEST(LoadConfigFile, ReadsFileAndNamesItInErrors) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string good = (dir / "hx_config_file_test_good.toml").string();
  const std::string bad = (dir / "hx_config_file_test_bad.toml").string();
  std::ofstream(good) << "[sim]\nseed = 7\n";
  std::ofstream(bad) << "[sim]\nseed\n";
  const Config c = load_config_file(good);
  EXPECT_EQ(value_of(c, "sim.seed"), "7");
  EXPECT_EQ(c.find("sim.seed")->value.origin, good + ":2");
  EXPECT_CONTAINS(error_of([&] { load_config_file(bad); }), bad + ":2:");
  std::filesystem::remove(good);
  std::filesystem::remove(bad);
}

std::vector<ParamSpec> specs() {
  return {
      ParamSpec::integer("lps", 64, "").range(1, 1e9),
      ParamSpec::real("remote", 0.1, ""),
      ParamSpec::real("big", 1e300, ""),
      ParamSpec::flag("verbose", false, ""),
      ParamSpec::text("label", "run a", ""),
      ParamSpec::text("number_like", "007", ""),
      ParamSpec::text("empty", "", ""),
      ParamSpec::time("delay", "1500ps", ""),
      ParamSpec::bandwidth("bw", "1.8TB/s", ""),
      ParamSpec::bytes("buffer", "65536B", ""),
      ParamSpec::choice("dist", "uniform", {"uniform", "exponential"}, ""),
  };
}

TEST(FormatResolvedConfig, LayoutAndRoundTrip) {
  Config in;
  in.set("phold.lps", "1000", "x");
  in.set("phold.remote", "0.30000000000000004", "x");
  in.set("sim.seed", "-5", "x");
  const std::vector<ParamSpec> sim = {ParamSpec::integer("seed", 1, ""),
                                      ParamSpec::time("end_time", "10us", "")};
  const ParamSet a = resolve_section(in, "sim", sim);
  const ParamSet b = resolve_section(in, "phold", specs());
  const std::string text = format_resolved_config({&a, &b});
  EXPECT_EQ(text,
            "[sim]\n"
            "seed = -5\n"
            "end_time = \"10us\"\n"
            "\n"
            "[phold]\n"
            "lps = 1000\n"
            "remote = 0.30000000000000004\n"
            "big = 1e+300\n"
            "verbose = false\n"
            "label = \"run a\"\n"
            "number_like = \"007\"\n"
            "empty = \"\"\n"
            "delay = \"1.5ns\"\n"
            "bw = \"14.4Tbps\"\n"
            "buffer = \"64KiB\"\n"
            "dist = \"uniform\"\n");

  // Reading it back and resolving again gives the same values and the same text.
  const Config back = parse_config_text(text, "resolved");
  const ParamSet a2 = resolve_section(back, "sim", sim);
  const ParamSet b2 = resolve_section(back, "phold", specs());
  EXPECT_EQ(a2.canonical(), a.canonical());
  EXPECT_EQ(b2.canonical(), b.canonical());
  EXPECT_EQ(b2.real("remote"), 0.30000000000000004);
  EXPECT_EQ(b2.bandwidth("bw").bps(), b.bandwidth("bw").bps());
  EXPECT_EQ(b2.text("empty"), "");
  EXPECT_EQ(format_resolved_config({&a2, &b2}), text);
  for (const auto& [name, value] : b.canonical()) {
    EXPECT_EQ(value_of(back, "phold." + name), value) << name;
  }
}

TEST(FormatResolvedConfig, ArraysRoundTrip) {
  const std::vector<ParamSpec> specs = {
      ParamSpec::list("names", ParamSpec::text("", "", ""), {"a \"q\"", "007"}, ""),
      ParamSpec::list("delays", ParamSpec::time("", "0ns", ""), {"1500ps"}, ""),
      ParamSpec::tables("faults",
                        {ParamSpec::time("at", "0ns", ""),
                         ParamSpec::list("links", ParamSpec::integer("", 0, ""), {}, "")},
                        ""),
  };
  const Config in = parse_config_text("[f]\nfaults = [{at = '1us', links = [3, 4]}]\n", "in.toml");
  const ParamSet a = resolve_section(in, "f", specs);
  const std::string text = format_resolved_config({&a});
  EXPECT_EQ(text,
            "[f]\n"
            "names = [\"a \\\"q\\\"\", \"007\"]\n"
            "delays = [\"1.5ns\"]\n"
            "faults = [{at = \"1us\", links = [3, 4]}]\n");
  const ParamSet b = resolve_section(parse_config_text(text, "resolved"), "f", specs);
  EXPECT_EQ(b.canonical(), a.canonical());
  EXPECT_EQ(b.tables("faults")[0].list<int64_t>("links"), (std::vector<int64_t>{3, 4}));
}

}  // namespace
}  // namespace hx

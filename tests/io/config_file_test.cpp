// Tests of TOML config reading (CLI11 underneath, with line checks) and of the resolved config.
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
  return e != nullptr ? e->value : "<missing>";
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
  EXPECT_EQ(c.find("sim.seed")->origin, "quick.toml");
}

TEST(ParseConfigText, TopLevelAndDottedKeys) {
  const Config c = parse_config_text("top = 1\nsim.seed = 2\n[a.b]\nc = 'x'\n", "t.toml");
  EXPECT_EQ(value_of(c, "top"), "1");
  EXPECT_EQ(value_of(c, "sim.seed"), "2");
  EXPECT_EQ(value_of(c, "a.b.c"), "x");
  EXPECT_EQ(c.entries().size(), 3u);
}

TEST(ParseConfigText, EmptyTextIsEmptyConfig) {
  EXPECT_TRUE(parse_config_text("", "e.toml").entries().empty());
  EXPECT_TRUE(parse_config_text("# only\n\n[sim]\n", "e.toml").entries().empty());
}

TEST(ParseConfigText, MalformedLinesAreErrors) {
  struct Case {
    const char* text;
    const char* says;
  };
  const Case cases[] = {
      {"[sim]\nlps = \n", "has no value"},
      {"[sim]\nlps = # nothing\n", "has no value"},
      {"[unclosed\nx = 1\n", "section header"},
      {"[sim]\nflag\n", "expected 'key = value'"},
      {"[sim]\nab\n", "expected 'key = value'"},  // CLI11 alone skips lines under 3 characters
      {"[sim]\nx = 10 ns\n", "must be quoted"},
      {"[sim]\nx = [1, 2]\n", "arrays are not supported"},
      {"[sim]\nx = [1]\n", "arrays are not supported"},
      {"[sim]\nx = {a = 1}\n", "inline tables"},
      {"[sim]\nx = \"open\n", "not closed"},
      {"[sim]\nx = \"a#b\"\n", "'#' inside a value"},
      {"[sim]\nx = \"a\\\"b\"\n", "escape sequences"},
      {"[sim]\nx = \"a\" b\n", "after the quoted value"},
      {"[sim]\nx = 1\nx = 2\n", "already set on line 2"},
      {"[sim]\nx = 1\n[phold]\n[sim]\nx = 2\n", "already set on line 2"},
      {"[[runs]]\nx = 1\n", "arrays of tables"},
      {"[bad name]\n", "section name"},
      {"[]\n", "section name"},
      {"[sim]\n= 3\n", "no key"},
      {"[sim]\na b = 3\n", "a key may use"},
      {"[sim]\nx = '''long'''\n", "multi-line"},
  };
  for (const Case& c : cases) {
    const std::string m = error_of([&] { parse_config_text(c.text, "bad.toml"); });
    EXPECT_CONTAINS(m, c.says);
    EXPECT_CONTAINS(m, "bad.toml:");
  }
  EXPECT_EQ(error_of([] { parse_config_text("[sim]\nseed = 1\nlps = \n", "bad.toml"); }),
            "bad.toml:3: the key has no value: 'lps ='");
}

TEST(ParseConfigText, CommentAfterSectionHeader) {
  const Config c = parse_config_text("[sim]  # the engine\nseed = 1\n", "t.toml");
  EXPECT_EQ(value_of(c, "sim.seed"), "1");
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
  EXPECT_EQ(c.find("sim.seed")->origin, good);
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

}  // namespace
}  // namespace hx

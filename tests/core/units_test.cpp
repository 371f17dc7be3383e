// Tests of time, bandwidth and byte parsing/formatting and of serialisation time.
#include "core/units.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "support/input_error.h"

namespace hx {
namespace {

using testing::error_of;

int64_t ps(std::string_view text, SimTime cycle = SimTime()) {
  return parse_time("k", text, cycle).count_ps();
}

TEST(ParseTime, EveryUnit) {
  EXPECT_EQ(ps("7ps"), 7);
  EXPECT_EQ(ps("10ns"), 10'000);
  EXPECT_EQ(ps("3us"), 3'000'000);
  EXPECT_EQ(ps("2ms"), 2'000'000'000);
  EXPECT_EQ(ps("1s"), 1'000'000'000'000);
  EXPECT_EQ(ps("0ps"), 0);
  EXPECT_EQ(ps("0s"), 0);
}

TEST(ParseTime, DecimalsExponentsAndSpaces) {
  EXPECT_EQ(ps("1.5ns"), 1500);
  EXPECT_EQ(ps("0.1us"), 100'000);  // exact: no 99999.999 rounding
  EXPECT_EQ(ps("0.3us"), 300'000);
  EXPECT_EQ(ps("1e3ns"), 1'000'000);
  EXPECT_EQ(ps("2.5E-3us"), 2500);
  EXPECT_EQ(ps("1e+2ps"), 100);
  EXPECT_EQ(ps("10 ns"), 10'000);
  EXPECT_EQ(ps("  10ns  "), 10'000);
  EXPECT_EQ(ps(".5ns"), 500);
  EXPECT_EQ(ps("5.ns"), 5000);
  EXPECT_EQ(ps("000012ps"), 12);
  EXPECT_EQ(ps("1.000000000000000000000000000000000000000000ns"), 1000);
  EXPECT_EQ(ps("-0ns"), 0);
}

TEST(ParseTime, Cycles) {
  EXPECT_EQ(ps("8cycles", SimTime::ps(500)), 4000);
  EXPECT_EQ(ps("1 cycle", SimTime::ps(500)), 500);
  EXPECT_EQ(ps("1.5cycles", SimTime::ps(500)), 750);
  EXPECT_NE(error_of([] { ps("0.001cycles", SimTime::ps(500)); }).find("whole number"),
            std::string::npos);
  const std::string msg = error_of([] { parse_time("net.hop", "8cycles"); });
  EXPECT_NE(msg.find("net.hop"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'8cycles'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'cycles' needs sim.cycle_time"), std::string::npos) << msg;
}

TEST(ParseTime, Errors) {
  const std::string msg = error_of([] { parse_time("sim.end_time", "10 parsecs"); });
  EXPECT_EQ(msg,
            "sim.end_time: '10 parsecs' is not a time; expected a number with a unit: ps, ns, "
            "us, ms, s or cycles");
  struct Case {
    const char* text;
    const char* says;
  };
  const Case cases[] = {
      {"100", "has no unit"},       {"0.5ps", "whole number of picoseconds"},
      {"-5ns", "negative"},         {"1e30s", "too large"},
      {"", "not a time"},           {"ns", "not a time"},
      {"10NS", "not a time"},       {"1.2.3ns", "not a time"},
      {"1e", "not a time"},         {"10 n s", "not a time"},
      {"+5ns", "not a time"},       {"9223372036854775807ps", "too large"},
      {"1e-400ns", "whole number"}, {"1e99999999999ps", "too large"},
  };
  for (const Case& c : cases) {
    const std::string m = error_of([&] { parse_time("sim.x", c.text); });
    EXPECT_NE(m.find(c.says), std::string::npos) << c.text << " -> " << m;
    EXPECT_NE(m.find("sim.x"), std::string::npos) << m;
    EXPECT_NE(m.find("'" + std::string(c.text) + "'"), std::string::npos) << m;
  }
}

TEST(ParseTime, LargestTime) {
  EXPECT_EQ(ps("9223372036854775806ps"), 9223372036854775806);
  EXPECT_EQ(ps("9223372.036854775806s"), 9223372036854775806);
}

TEST(FormatTime, CanonicalForms) {
  EXPECT_EQ(format_time(SimTime::ps(0)), "0ps");
  EXPECT_EQ(format_time(SimTime::ps(999)), "999ps");
  EXPECT_EQ(format_time(SimTime::ps(1500)), "1.5ns");
  EXPECT_EQ(format_time(SimTime::ns(10)), "10ns");
  EXPECT_EQ(format_time(SimTime::ps(1'000'001)), "1.000001us");
  EXPECT_EQ(format_time(SimTime::us(2500)), "2.5ms");
  EXPECT_EQ(format_time(SimTime::ps(1'000'000'000'000)), "1s");
  EXPECT_EQ(format_time(SimTime::infinity()), "inf");
  EXPECT_EQ(format_time(SimTime::ps(-1500)), "-1.5ns");
}

TEST(FormatTime, RoundTrips) {
  const int64_t values[] = {0,
                            1,
                            7,
                            999,
                            1000,
                            1001,
                            1500,
                            123456789,
                            1'000'000'000,
                            999'999'999'999,
                            1'000'000'000'001,
                            9223372036854775806};
  for (const int64_t v : values) {
    const std::string text = format_time(SimTime::ps(v));
    EXPECT_EQ(ps(text), v) << text;
  }
  for (int64_t v = 1; v < 1'000'000'000'000'000'000; v = v * 7 + 3) {
    EXPECT_EQ(ps(format_time(SimTime::ps(v))), v);
  }
}

TEST(ParseBandwidth, EveryUnit) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("k", "9bps").bps(), 9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("k", "2Kbps").bps(), 2e3);
  EXPECT_DOUBLE_EQ(parse_bandwidth("k", "3Mbps").bps(), 3e6);
  EXPECT_DOUBLE_EQ(parse_bandwidth("k", "400Gbps").bps(), 400e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("k", "1.6Tbps").bps(), 1.6e12);
  EXPECT_DOUBLE_EQ(parse_bandwidth("k", "1B/s").bps(), 8);
  EXPECT_DOUBLE_EQ(parse_bandwidth("k", "1KB/s").bps(), 8e3);
  EXPECT_DOUBLE_EQ(parse_bandwidth("k", "1MB/s").bps(), 8e6);
  EXPECT_DOUBLE_EQ(parse_bandwidth("k", "50GB/s").bps(), 400e9);
  EXPECT_EQ(parse_bandwidth("k", "1.8TB/s").bps(), 1.44e13);  // exact, not 1.8 * 8e12 in double
  EXPECT_EQ(parse_bandwidth("k", "0.1Gbps").bps(), 1e8);
  EXPECT_EQ(parse_bandwidth("k", "0bps").bps(), 0);
}

TEST(ParseBandwidth, Errors) {
  const char* bad[] = {"400", "400gbps", "400GBps", "400 Gb/s", "-1Gbps", "fast", "1e999Tbps"};
  for (const char* text : bad) {
    const std::string m = error_of([&] { parse_bandwidth("link.bw", text); });
    EXPECT_NE(m.find("link.bw"), std::string::npos) << text << " -> " << m;
    EXPECT_NE(m.find("'" + std::string(text) + "'"), std::string::npos) << m;
  }
  EXPECT_NE(error_of([] { parse_bandwidth("k", "400 parsecs"); }).find("Gbps"), std::string::npos);
}

TEST(FormatBandwidth, RoundTrips) {
  EXPECT_EQ(format_bandwidth(parse_bandwidth("k", "400Gbps")), "400Gbps");
  EXPECT_EQ(format_bandwidth(parse_bandwidth("k", "1.8TB/s")), "14.4Tbps");
  EXPECT_EQ(format_bandwidth(parse_bandwidth("k", "12bps")), "12bps");
  EXPECT_EQ(format_bandwidth(parse_bandwidth("k", "2.5Kbps")), "2.5Kbps");
  EXPECT_EQ(format_bandwidth(Bandwidth()), "0bps");
  const double values[] = {1,       0.5,    1e-3, 1.0 / 3.0, 12345.678,          4e11,
                           1.44e13, 3.0e15, 1e25, 0.1 + 0.2, 123456789.123456789};
  for (const double v : values) {
    const std::string text = format_bandwidth(Bandwidth::bits_per_second(v));
    EXPECT_EQ(parse_bandwidth("k", text).bps(), v) << text;
  }
}

TEST(ParseBytes, EveryUnit) {
  EXPECT_EQ(parse_bytes("k", "64B").count(), 64u);
  EXPECT_EQ(parse_bytes("k", "2KB").count(), 2000u);
  EXPECT_EQ(parse_bytes("k", "1.5MB").count(), 1'500'000u);
  EXPECT_EQ(parse_bytes("k", "3GB").count(), 3'000'000'000u);
  EXPECT_EQ(parse_bytes("k", "1TB").count(), 1'000'000'000'000u);
  EXPECT_EQ(parse_bytes("k", "4KiB").count(), 4096u);
  EXPECT_EQ(parse_bytes("k", "1.5KiB").count(), 1536u);
  EXPECT_EQ(parse_bytes("k", "2MiB").count(), 2u << 20);
  EXPECT_EQ(parse_bytes("k", "1GiB").count(), 1u << 30);
  EXPECT_EQ(parse_bytes("k", "18446744073709551615B").count(), 18446744073709551615u);
}

TEST(ParseBytes, Errors) {
  const struct {
    const char* text;
    const char* says;
  } cases[] = {{"64", "has no unit"},
               {"1.5B", "whole number of bytes"},
               {"-1KB", "negative"},
               {"1kb", "not a byte count"},
               {"2 bytes", "not a byte count"},
               {"18446744073709551616B", "too large"},
               {"1.0001KiB", "whole number"}};
  for (const auto& c : cases) {
    const std::string m = error_of([&] { parse_bytes("buf.size", c.text); });
    EXPECT_NE(m.find(c.says), std::string::npos) << c.text << " -> " << m;
    EXPECT_NE(m.find("buf.size: '" + std::string(c.text) + "'"), std::string::npos) << m;
  }
}

TEST(FormatBytes, CanonicalFormsRoundTrip) {
  EXPECT_EQ(format_bytes(Bytes(0)), "0B");
  EXPECT_EQ(format_bytes(Bytes(64)), "64B");
  EXPECT_EQ(format_bytes(Bytes(1000)), "1KB");
  EXPECT_EQ(format_bytes(Bytes(1024)), "1KiB");
  EXPECT_EQ(format_bytes(Bytes(1500)), "1.5KB");
  EXPECT_EQ(format_bytes(Bytes(1536)), "1536B");
  EXPECT_EQ(format_bytes(Bytes(999)), "999B");
  EXPECT_EQ(format_bytes(Bytes(65536)), "64KiB");
  EXPECT_EQ(format_bytes(Bytes(3u << 30)), "3GiB");
  EXPECT_EQ(format_bytes(Bytes(2'000'000'000'000)), "2TB");
  const uint64_t values[] = {1,    999,       1001,       1023,
                             1025, 123456789, 1ull << 40, 18446744073709551615u};
  for (const uint64_t v : values) {
    EXPECT_EQ(parse_bytes("k", format_bytes(Bytes(v))).count(), v) << format_bytes(Bytes(v));
  }
}

TEST(TransferTime, ExactCases) {
  EXPECT_EQ(parse_bandwidth("k", "512Gbps").transfer_time(Bytes(64)).count_ps(), 1000);
  EXPECT_EQ(parse_bandwidth("k", "400Gbps").transfer_time(Bytes(50)).count_ps(), 1000);
  EXPECT_EQ(parse_bandwidth("k", "1.8TB/s").transfer_time(Bytes(1800)).count_ps(), 1000);
  EXPECT_EQ(parse_bandwidth("k", "8bps").transfer_time(Bytes(1)).count_ps(), 1'000'000'000'000);
  EXPECT_EQ(parse_bandwidth("k", "1Tbps").transfer_time(Bytes(0)).count_ps(), 0);
}

TEST(TransferTime, RoundsUp) {
  // 1 byte at 3 Tbps is 2.666.. ps.
  EXPECT_EQ(parse_bandwidth("k", "3Tbps").transfer_time(Bytes(1)).count_ps(), 3);
  // 64 bytes at 400 Gbps is 1280 ps exactly, 65 bytes 1300 ps, 63 bytes 1260 ps.
  const Bandwidth bw = parse_bandwidth("k", "400Gbps");
  EXPECT_EQ(bw.transfer_time(Bytes(64)).count_ps(), 1280);
  EXPECT_EQ(bw.transfer_time(Bytes(65)).count_ps(), 1300);
  // A fractional rate: 2.5 bps moves 1 byte in 3.2 s exactly.
  EXPECT_EQ(parse_bandwidth("k", "2.5bps").transfer_time(Bytes(1)).count_ps(), 3'200'000'000'000);
  // 0.3 bps is not exactly representable; 3 bytes take 80 s, give or take the double's error.
  EXPECT_EQ(parse_bandwidth("k", "0.3bps").transfer_time(Bytes(3)).count_ps(), 80'000'000'000'000);
  EXPECT_EQ(parse_bandwidth("k", "3.3bps").transfer_time(Bytes(1)).count_ps(), 2'424'242'424'243);
}

TEST(TransferTime, ZeroRateIsInfinite) {
  EXPECT_TRUE(Bandwidth().transfer_time(Bytes(1)).is_infinite());
  EXPECT_TRUE(parse_bandwidth("k", "1bps").transfer_time(Bytes(1ull << 62)).is_infinite());
}

TEST(WallDuration, AcceptsUnitsAndSlurmForms) {
  EXPECT_DOUBLE_EQ(parse_wall_duration("45", "k"), 45);
  EXPECT_DOUBLE_EQ(parse_wall_duration("90s", "k"), 90);
  EXPECT_DOUBLE_EQ(parse_wall_duration("10m", "k"), 600);
  EXPECT_DOUBLE_EQ(parse_wall_duration("1.5h", "k"), 5400);
  EXPECT_DOUBLE_EQ(parse_wall_duration("1d", "k"), 86400);
  EXPECT_DOUBLE_EQ(parse_wall_duration("05:30", "k"), 330);
  EXPECT_DOUBLE_EQ(parse_wall_duration("1:30:00", "k"), 5400);
  EXPECT_DOUBLE_EQ(parse_wall_duration("2-00:00:10", "k"), 2 * 86400 + 10);
}

TEST(WallDuration, RejectsOtherTextNamingTheKey) {
  for (const char* bad : {"", "0", "-5", "10x", "1:2:3:4", "1::2", "a-1:00:00", "inf"}) {
    EXPECT_CONTAINS(error_of([&] { parse_wall_duration(bad, "--exit-after"); }), "--exit-after");
  }
}

}  // namespace
}  // namespace hx

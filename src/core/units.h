// Typed simulated quantities (DESIGN §3.6): time is an integer count of picoseconds; bandwidth
// and byte counts have their own types so they cannot be mixed up with time or with each other.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace hx {

/// Simulated time in integer picoseconds. 2^63 ps is about 106 days of simulated time.
class SimTime {
 public:
  constexpr SimTime() = default;
  static constexpr SimTime ps(int64_t v) { return SimTime(v); }
  static constexpr SimTime ns(int64_t v) { return SimTime(v * 1000); }
  static constexpr SimTime us(int64_t v) { return SimTime(v * 1000'000); }
  static constexpr SimTime infinity() { return SimTime(std::numeric_limits<int64_t>::max()); }
  static constexpr SimTime zero() { return SimTime(0); }

  constexpr int64_t count_ps() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  constexpr bool is_infinite() const { return ps_ == std::numeric_limits<int64_t>::max(); }

  constexpr SimTime operator+(SimTime o) const { return SimTime(ps_ + o.ps_); }
  constexpr SimTime operator-(SimTime o) const { return SimTime(ps_ - o.ps_); }
  constexpr SimTime& operator+=(SimTime o) {
    ps_ += o.ps_;
    return *this;
  }
  constexpr SimTime operator*(int64_t k) const { return SimTime(ps_ * k); }
  constexpr auto operator<=>(const SimTime&) const = default;

  template <class Archive>
  void serialize(Archive& ar, unsigned /*version*/) {
    ar& ps_;
  }

 private:
  constexpr explicit SimTime(int64_t ps) : ps_(ps) {}
  int64_t ps_ = 0;
};

/// A count of bytes.
class Bytes {
 public:
  constexpr Bytes() = default;
  constexpr explicit Bytes(uint64_t n) : n_(n) {}
  constexpr uint64_t count() const { return n_; }
  constexpr auto operator<=>(const Bytes&) const = default;

 private:
  uint64_t n_ = 0;
};

/// A data rate, stored in bits per second.
class Bandwidth {
 public:
  constexpr Bandwidth() = default;
  static constexpr Bandwidth bits_per_second(double v) { return Bandwidth(v); }
  constexpr double bps() const { return bps_; }
  constexpr double bytes_per_second() const { return bps_ / 8.0; }
  /// Time to serialise `b` at this rate, rounded up to a whole picosecond.
  SimTime transfer_time(Bytes b) const;
  constexpr auto operator<=>(const Bandwidth&) const = default;

 private:
  constexpr explicit Bandwidth(double bps) : bps_(bps) {}
  double bps_ = 0.0;
};

/// Parsers for config values. `key` is only used to build the error message; every failure is
/// an InputError naming the key, the value and the accepted forms.
/// Times: "<number><unit>" with unit ps, ns, us, ms, s, or cycles/cycle (needs cycle_time > 0);
/// "inf" is SimTime::infinity().
SimTime parse_time(std::string_view key, std::string_view text, SimTime cycle_time = SimTime());
/// Bandwidths: bps, Kbps, Mbps, Gbps, Tbps (bits/s) or B/s, KB/s, MB/s, GB/s, TB/s (bytes/s),
/// decimal SI prefixes.
Bandwidth parse_bandwidth(std::string_view key, std::string_view text);
/// Byte counts: B, KB, MB, GB (decimal) or KiB, MiB, GiB (binary); a whole number of bytes.
Bytes parse_bytes(std::string_view key, std::string_view text);

/// Wall-clock durations (command-line limits, not simulated time), in seconds: "90s", "10m",
/// "2h", "1.5h", "1d", "45" (seconds), or Slurm's "[days-]hours:minutes:seconds" and
/// "minutes:seconds". InputError naming the key otherwise.
double parse_wall_duration(const std::string& text, const std::string& key);

/// Canonical text for a time, e.g. "1500ps" -> "1.5ns"; parse_time(format_time(t)) == t.
std::string format_time(SimTime t);
std::string format_bandwidth(Bandwidth b);
std::string format_bytes(Bytes b);

}  // namespace hx

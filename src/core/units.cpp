// Parsing and formatting of times, bandwidths and byte counts in config syntax ("10ns",
// "400Gbps", "64KiB"). Numbers are read as exact decimals so "0.1us" is exactly 100000 ps.
#include "core/units.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <vector>

#include "core/error.h"

namespace hx {
namespace {

__extension__ using u128 = unsigned __int128;  // __extension__: -Wpedantic accepts it

// A non-negative decimal number, value = mantissa * 10^exp10, held exactly.
struct Decimal {
  u128 mantissa = 0;
  int64_t exp10 = 0;
};

// A number followed by its unit text, split out of a config value.
struct Quantity {
  std::optional<Decimal> number;  // empty if the text does not start with a plain number
  bool negative = false;
  std::string_view unit;
};

constexpr u128 kU128Max = ~u128(0);
// Significant digits kept exactly; 36 digits stay well below 2^128 even after a *10.
constexpr int kMaxDigits = 36;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Splits "<digits>[.<digits>][e[+-]<digits>] <unit>" into an exact decimal and the unit.
Quantity split_quantity(std::string_view text) {
  Quantity q;
  std::string_view s = trim(text);
  if (!s.empty() && s.front() == '-') {
    q.negative = true;
    s.remove_prefix(1);
  }
  size_t i = 0;
  Decimal d;
  int digits = 0;       // significant digits kept in the mantissa
  int64_t dropped = 0;  // zero digits beyond kMaxDigits, folded into the exponent
  bool any_digit = false;
  bool lost = false;  // a nonzero digit beyond kMaxDigits: not representable exactly
  auto take_digit = [&](char c, bool fraction) {
    any_digit = true;
    const int v = c - '0';
    if (d.mantissa == 0 && v == 0) {
      if (fraction) --d.exp10;
      return;
    }
    if (digits < kMaxDigits) {
      d.mantissa = d.mantissa * 10 + static_cast<unsigned>(v);
      ++digits;
      if (fraction) --d.exp10;
    } else {
      if (v != 0) lost = true;
      if (!fraction) ++dropped;
    }
  };
  while (i < s.size() && is_digit(s[i])) take_digit(s[i++], false);
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) take_digit(s[i++], true);
  }
  if (!any_digit || lost) {
    q.unit = s.substr(i);
    return q;
  }
  // An exponent needs at least one digit after 'e' and optional sign; otherwise 'e' is unit text.
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    bool exp_negative = false;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) exp_negative = s[j++] == '-';
    if (j < s.size() && is_digit(s[j])) {
      int64_t e = 0;
      while (j < s.size() && is_digit(s[j])) {
        if (e < 100000) e = e * 10 + (s[j] - '0');  // saturate; huge exponents fail later
        ++j;
      }
      d.exp10 += exp_negative ? -e : e;
      i = j;
    }
  }
  d.exp10 += dropped;
  q.number = d;
  q.unit = trim(s.substr(i));
  return q;
}

enum class Exact { kOk, kNotWhole, kTooLarge };

// Computes d * multiplier exactly as an integer no larger than `limit`.
Exact to_integer(Decimal d, u128 multiplier, u128 limit, u128& out) {
  if (d.mantissa == 0 || multiplier == 0) {
    out = 0;
    return Exact::kOk;
  }
  while (d.mantissa % 10 == 0) {
    d.mantissa /= 10;
    ++d.exp10;
  }
  if (d.mantissa > kU128Max / multiplier) return Exact::kTooLarge;
  u128 v = d.mantissa * multiplier;
  if (d.exp10 < 0) {
    // v < 10^39, so dividing by 10^39 or more can never leave a whole number.
    if (d.exp10 < -38) return Exact::kNotWhole;
    u128 p = 1;
    for (int64_t k = 0; k < -d.exp10; ++k) p *= 10;
    if (v % p != 0) return Exact::kNotWhole;
    v /= p;
  } else {
    for (int64_t k = 0; k < d.exp10; ++k) {
      if (v > limit / 10) return Exact::kTooLarge;
      v *= 10;
    }
  }
  if (v > limit) return Exact::kTooLarge;
  out = v;
  return Exact::kOk;
}

std::string prefix(std::string_view key) {
  return key.empty() ? std::string() : std::string(key) + ": ";
}

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

struct Unit {
  std::string_view name;
  u128 multiplier;  // integer scale of the unit
  int exp10;        // extra decimal scale (bandwidth units)
};

constexpr std::array<Unit, 5> kTimeUnits{{{"ps", 1, 0},
                                          {"ns", 1000, 0},
                                          {"us", 1000'000, 0},
                                          {"ms", 1000'000'000, 0},
                                          {"s", 1000'000'000'000, 0}}};

// Bits per second; "B/s" forms carry the factor 8.
constexpr std::array<Unit, 10> kBandwidthUnits{{{"bps", 1, 0},
                                                {"Kbps", 1, 3},
                                                {"Mbps", 1, 6},
                                                {"Gbps", 1, 9},
                                                {"Tbps", 1, 12},
                                                {"B/s", 8, 0},
                                                {"KB/s", 8, 3},
                                                {"MB/s", 8, 6},
                                                {"GB/s", 8, 9},
                                                {"TB/s", 8, 12}}};

constexpr std::array<Unit, 8> kByteUnits{{{"B", 1, 0},
                                          {"KB", 1000, 0},
                                          {"MB", 1000'000, 0},
                                          {"GB", 1000'000'000, 0},
                                          {"TB", 1000'000'000'000, 0},
                                          {"KiB", u128(1) << 10, 0},
                                          {"MiB", u128(1) << 20, 0},
                                          {"GiB", u128(1) << 30, 0}}};

template <size_t N>
const Unit* find_unit(const std::array<Unit, N>& units, std::string_view name) {
  for (const Unit& u : units) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

std::string u128_text(u128 v) {
  if (v == 0) return "0";
  std::string s;
  while (v != 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return s;
}

// Plain decimal text of `digits` * 10^exp10 ("15", -1 -> "1.5"); exponent form when very large
// or very small, so no value turns into hundreds of zeros.
std::string decimal_text(std::string digits, int64_t exp10) {
  while (digits.size() > 1 && digits.back() == '0') {
    digits.pop_back();
    ++exp10;
  }
  if (digits == "0") return "0";
  if (exp10 >= 0) {
    if (exp10 > 21) return digits + "e" + std::to_string(exp10);
    return digits + std::string(static_cast<size_t>(exp10), '0');
  }
  const int64_t point = static_cast<int64_t>(digits.size()) + exp10;  // digits before the point
  if (point > 0) {
    return digits.substr(0, static_cast<size_t>(point)) + "." +
           digits.substr(static_cast<size_t>(point));
  }
  if (point < -20) return digits + "e" + std::to_string(exp10);
  return "0." + std::string(static_cast<size_t>(-point), '0') + digits;
}

constexpr const char* kTimeExpected = "expected a number with a unit: ps, ns, us, ms, s or cycles";
constexpr const char* kBandwidthExpected =
    "expected a number with a unit: bps, Kbps, Mbps, Gbps, Tbps (bits/s) or B/s, KB/s, MB/s, "
    "GB/s, TB/s (bytes/s)";
constexpr const char* kBytesExpected =
    "expected a number with a unit: B, KB, MB, GB, TB, KiB, MiB or GiB";

}  // namespace

SimTime parse_time(std::string_view key, std::string_view text, SimTime cycle_time) {
  const std::string head = prefix(key) + quoted(text);
  if (text == "inf") return SimTime::infinity();  // as format_time writes it: "never"
  const Quantity q = split_quantity(text);
  if (!q.number) throw InputError(head + " is not a time; " + kTimeExpected);
  if (q.unit.empty()) throw InputError(head + " has no unit; " + kTimeExpected);
  u128 multiplier = 0;
  if (q.unit == "cycle" || q.unit == "cycles") {
    if (cycle_time.count_ps() <= 0) throw InputError(head + ": 'cycles' needs sim.cycle_time");
    multiplier = static_cast<u128>(cycle_time.count_ps());
  } else if (const Unit* u = find_unit(kTimeUnits, q.unit)) {
    multiplier = u->multiplier;
  } else {
    throw InputError(head + " is not a time; " + kTimeExpected);
  }
  if (q.negative && q.number->mantissa != 0) {
    throw InputError(head + " is negative; expected a time >= 0");
  }
  u128 ps = 0;
  const u128 limit = static_cast<u128>(std::numeric_limits<int64_t>::max() - 1);
  switch (to_integer(*q.number, multiplier, limit, ps)) {
    case Exact::kOk:
      break;
    case Exact::kNotWhole:
      throw InputError(head + " is not a whole number of picoseconds");
    case Exact::kTooLarge:
      throw InputError(head + " is too large; the longest time is " +
                       format_time(SimTime::ps(std::numeric_limits<int64_t>::max() - 1)) +
                       " (about 106 days)");
  }
  return SimTime::ps(static_cast<int64_t>(ps));
}

Bandwidth parse_bandwidth(std::string_view key, std::string_view text) {
  const std::string head = prefix(key) + quoted(text);
  const Quantity q = split_quantity(text);
  if (!q.number) throw InputError(head + " is not a bandwidth; " + kBandwidthExpected);
  if (q.unit.empty()) throw InputError(head + " has no unit; " + kBandwidthExpected);
  const Unit* u = find_unit(kBandwidthUnits, q.unit);
  if (u == nullptr) throw InputError(head + " is not a bandwidth; " + kBandwidthExpected);
  if (q.negative && q.number->mantissa != 0) {
    throw InputError(head + " is negative; expected a bandwidth >= 0");
  }
  // Scale exactly in decimal, then convert once: strtod rounds correctly, so "1.8TB/s" gives the
  // double nearest to 1.44e13 and format_bandwidth's shortest form reads back to the same double.
  const std::string literal = u128_text(q.number->mantissa * u->multiplier) + "e" +
                              std::to_string(q.number->exp10 + u->exp10);
  const double bps = std::strtod(literal.c_str(), nullptr);
  if (!std::isfinite(bps)) throw InputError(head + " is too large");
  return Bandwidth::bits_per_second(bps);
}

Bytes parse_bytes(std::string_view key, std::string_view text) {
  const std::string head = prefix(key) + quoted(text);
  const Quantity q = split_quantity(text);
  if (!q.number) throw InputError(head + " is not a byte count; " + kBytesExpected);
  if (q.unit.empty()) throw InputError(head + " has no unit; " + kBytesExpected);
  const Unit* u = find_unit(kByteUnits, q.unit);
  if (u == nullptr) throw InputError(head + " is not a byte count; " + kBytesExpected);
  if (q.negative && q.number->mantissa != 0) {
    throw InputError(head + " is negative; expected a byte count >= 0");
  }
  u128 n = 0;
  switch (to_integer(*q.number, u->multiplier, std::numeric_limits<uint64_t>::max(), n)) {
    case Exact::kOk:
      break;
    case Exact::kNotWhole:
      throw InputError(head + " is not a whole number of bytes");
    case Exact::kTooLarge:
      throw InputError(head + " is too large; the largest byte count is 2^64 - 1");
  }
  return Bytes(static_cast<uint64_t>(n));
}

std::string format_time(SimTime t) {
  if (t.is_infinite()) return "inf";
  const int64_t ps = t.count_ps();
  const bool negative = ps < 0;
  const uint64_t mag = negative ? 0 - static_cast<uint64_t>(ps) : static_cast<uint64_t>(ps);
  // The largest unit not above the value, written as an exact decimal: 1500ps -> "1.5ns".
  size_t unit = 0;
  for (size_t k = kTimeUnits.size(); k-- > 0;) {
    if (mag >= static_cast<uint64_t>(kTimeUnits[k].multiplier)) {
      unit = k;
      break;
    }
  }
  const int unit_digits = static_cast<int>(3 * unit);  // ps, ns, us, ms, s are powers of 1000
  return (negative ? "-" : "") + decimal_text(std::to_string(mag), -unit_digits) +
         std::string(kTimeUnits[unit].name);
}

std::string format_bandwidth(Bandwidth b) {
  const double bps = b.bps();
  if (!std::isfinite(bps) || bps < 0) return std::to_string(bps) + "bps";
  if (bps == 0) return "0bps";
  // Shortest digits that read back to the same double, then shift the decimal point for the
  // unit; parse_bandwidth rounds that exact decimal to the same double.
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, bps, std::chars_format::scientific);
  const std::string sci(buf, res.ptr);  // "d.ddde+XX"
  const size_t e = sci.find('e');
  std::string digits = sci.substr(0, e);
  int64_t exp10 = std::stoll(sci.substr(e + 1));
  const size_t dot = digits.find('.');
  if (dot != std::string::npos) {
    exp10 -= static_cast<int64_t>(digits.size() - dot - 1);
    digits.erase(dot, 1);
  }
  constexpr std::array<std::pair<const char*, int>, 5> kUnits{
      {{"Tbps", 12}, {"Gbps", 9}, {"Mbps", 6}, {"Kbps", 3}, {"bps", 0}}};
  for (const auto& [name, digits_of_unit] : kUnits) {
    if (bps >= std::pow(10.0, digits_of_unit) || digits_of_unit == 0) {
      return decimal_text(digits, exp10 - digits_of_unit) + name;
    }
  }
  return decimal_text(digits, exp10) + "bps";
}

std::string format_bytes(Bytes b) {
  const uint64_t n = b.count();
  if (n == 0) return "0B";
  // The shortest exact form: a whole number of any unit ("64KiB", "2TB", "1536B") or a decimal in
  // the largest decimal unit ("1.5KB"). On a tie the earlier candidate wins: decimal, binary, B.
  constexpr std::array<std::pair<const char*, int>, 4> kDecimal{
      {{"TB", 12}, {"GB", 9}, {"MB", 6}, {"KB", 3}}};
  std::string best;
  auto consider = [&best](std::string text) {
    if (best.empty() || text.size() < best.size()) best = std::move(text);
  };
  for (const auto& [name, digits_of_unit] : kDecimal) {
    if (n >= static_cast<uint64_t>(std::pow(10.0, digits_of_unit))) {
      consider(decimal_text(std::to_string(n), -digits_of_unit) + name);
      break;
    }
  }
  constexpr std::array<std::pair<const char*, int>, 3> kBinary{
      {{"GiB", 30}, {"MiB", 20}, {"KiB", 10}}};
  for (const auto& [name, shift] : kBinary) {
    const uint64_t unit = uint64_t{1} << shift;
    if (n % unit == 0) consider(std::to_string(n >> shift) + name);
  }
  consider(std::to_string(n) + "B");
  return best;
}

SimTime Bandwidth::transfer_time(Bytes b) const {
  const uint64_t bytes = b.count();
  if (bytes == 0) return SimTime::zero();
  if (!(bps_ > 0)) return SimTime::infinity();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  // Integral rates (nearly all configured ones) are done exactly: ceil(bytes * 8e12 / bps).
  if (bps_ == std::floor(bps_) && bps_ < 0x1.0p63) {
    const u128 bits_ps = static_cast<u128>(bytes) * 8 * 1000'000'000'000ULL;  // < 2^107
    const auto rate = static_cast<u128>(static_cast<uint64_t>(bps_));
    const u128 t = (bits_ps + rate - 1) / rate;
    return t >= static_cast<u128>(kMax) ? SimTime::infinity()
                                        : SimTime::ps(static_cast<int64_t>(t));
  }
  // Fractional rates: long double, rounding up unless within a hair of a whole picosecond (the
  // rate itself came from a decimal config value, so a near-integer result means an exact one).
  const long double t = static_cast<long double>(bytes) * 8.0e12L / static_cast<long double>(bps_);
  if (t >= static_cast<long double>(kMax)) return SimTime::infinity();
  const long double nearest = std::nearbyint(t);
  const long double result = std::fabs(t - nearest) <= nearest * 1e-15L ? nearest : std::ceil(t);
  return SimTime::ps(static_cast<int64_t>(result));
}

double parse_wall_duration(const std::string& text, const std::string& key) {
  const std::string expected = "; expected e.g. 90s, 10m, 2h, 45 (seconds), 1:30:00 or 2-00:00:00";
  auto fail = [&]() -> double { throw InputError(key + " = '" + text + "'" + expected); };
  if (text.empty()) return fail();
  if (text.find(':') != std::string::npos || text.find('-') != std::string::npos) {
    // Slurm's forms: [days-]h:m:s or m:s.
    double days = 0;
    std::string rest = text;
    if (const auto dash = text.find('-'); dash != std::string::npos) {
      char* end = nullptr;
      days = std::strtod(text.c_str(), &end);
      if (end != text.c_str() + dash) return fail();
      rest = text.substr(dash + 1);
    }
    std::vector<double> parts;
    std::size_t at = 0;
    while (at <= rest.size()) {
      const std::size_t colon = std::min(rest.find(':', at), rest.size());
      const std::string part = rest.substr(at, colon - at);
      char* end = nullptr;
      const double v = std::strtod(part.c_str(), &end);
      if (part.empty() || *end != '\0' || v < 0) return fail();
      parts.push_back(v);
      at = colon + 1;
    }
    if (parts.size() < 2 || parts.size() > 3) return fail();
    if (parts.size() == 2) parts.insert(parts.begin(), 0.0);
    return days * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2];
  }
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !(v > 0) || !std::isfinite(v)) return fail();
  const std::string unit = end;
  if (unit.empty() || unit == "s") return v;
  if (unit == "m" || unit == "min") return v * 60;
  if (unit == "h") return v * 3600;
  if (unit == "d") return v * 86400;
  return fail();
}

}  // namespace hx

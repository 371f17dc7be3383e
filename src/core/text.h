// Small text helpers for parsing configs and for error messages about mistyped names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hx {

std::string join(const std::vector<std::string>& items);  // "a, b, c"
std::string trim(const std::string& s);                   // without surrounding white space
/// The comma-separated fields of one CSV line, each trimmed ("a, b,c" -> {"a", "b", "c"}).
std::vector<std::string> csv_fields(const std::string& line);
std::string with_commas(uint64_t n);             // "1,113,960"
std::string fnv1a_hex(const std::string& text);  // 16 hex digits of FNV-1a 64: config hashes
std::string utc_timestamp();  // the wall-clock time now, ISO 8601 UTC: "2026-11-21T19:40:00Z"

/// "; did you mean 'x'?" for the closest name within edit distance 2, else "; <what>: a, b, c".
std::string suggestion(const std::string& wrong, const std::vector<std::string>& names,
                       const std::string& what);

}  // namespace hx

// TOML config files: read through CLI11's config parser into a flat Config, and the resolved
// config written back as TOML.
//
// CLI11 2.1.2's reader is lenient in ways that would hide mistakes: a line without '=' becomes a
// flag set to "true" ("[unclosed" included), lines shorter than 3 characters are skipped, "x = "
// gives an empty value, '#' inside a quoted string starts a comment, "x = 10 ns" becomes a
// two-element array. So each line is checked first (with its line number in the error), and only
// the subset accepted here reaches CLI11: [section] headers, key = value with bare keys (dotted
// allowed), one bare value or one quoted string per key, comments. Arrays, inline tables,
// multi-line and escaped strings are rejected: no parameter needs them.
#include "io/config_file.h"

#include <CLI/Config.hpp>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.h"
#include "core/text.h"

namespace hx {
namespace {

// Bare TOML keys and section names: letters, digits, '_' and '-', joined by single dots.
bool is_dotted_name(const std::string& s) {
  if (s.empty() || s.front() == '.' || s.back() == '.' || s.find("..") != std::string::npos) {
    return false;
  }
  for (const char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

std::string without_comment(const std::string& s) { return trim(s.substr(0, s.find('#'))); }

// Checks the value part of "key = value"; returns an explanation of the problem, or "" if fine.
std::string check_value(const std::string& raw) {
  const std::string v = trim(raw);
  if (v.empty() || v.front() == '#') return "the key has no value";
  if (v.starts_with("\"\"\"") || v.starts_with("'''")) {
    return "multi-line strings are not supported";
  }
  const char q = v.front();
  if (q == '"' || q == '\'') {
    const auto close = v.find(q, 1);
    if (close == std::string::npos) return "the quoted value is not closed";
    const std::string inside = v.substr(1, close - 1);
    if (q == '"' && inside.find('\\') != std::string::npos) {
      return "escape sequences are not supported; use a single-quoted string for backslashes";
    }
    if (inside.find('#') != std::string::npos) return "'#' inside a value is not supported";
    const std::string rest = trim(v.substr(close + 1));
    if (!rest.empty() && rest.front() != '#') return "unexpected text after the quoted value";
    return "";
  }
  if (q == '[') return "arrays are not supported; every parameter takes one value";
  if (q == '{') return "inline tables are not supported; use a [section]";
  const std::string bare = without_comment(v);
  if (bare.find_first_of(" \t") != std::string::npos) {
    return "a value with spaces must be quoted, e.g. x = \"10 ns\"";
  }
  return "";
}

// Validates `text` line by line and returns it with comment-only lines blanked and comments after
// section headers removed, which CLI11 would otherwise misread.
std::string checked_text(const std::string& text, const std::string& origin) {
  std::istringstream in(text);
  std::ostringstream out;
  std::string line;
  std::string section;
  std::map<std::string, int> first_line;  // full key -> line it was set on
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string t = trim(line);
    auto fail = [&](const std::string& why) {
      throw InputError(origin + ":" + std::to_string(number) + ": " + why + ": '" + t + "'");
    };
    if (t.empty() || t.front() == '#') {
      out << '\n';
      continue;
    }
    if (t.front() == '[') {
      const std::string header = without_comment(t);
      if (header.starts_with("[[")) fail("arrays of tables are not supported");
      if (header.back() != ']') fail("a section header must be '[name]'");
      section = trim(header.substr(1, header.size() - 2));
      if (!is_dotted_name(section)) {
        fail("a section name may use letters, digits, '_' and '-'");
      }
      out << '[' << section << "]\n";
      continue;
    }
    const auto eq = t.find('=');
    if (eq == std::string::npos) fail("expected 'key = value' or '[section]'");
    const std::string key = trim(t.substr(0, eq));
    if (!is_dotted_name(key)) {
      fail(key.empty() ? "the line has no key"
                       : "a key may use letters, digits, '_' and '-', joined by '.'");
    }
    const std::string problem = check_value(t.substr(eq + 1));
    if (!problem.empty()) fail(problem);
    const std::string full = section.empty() ? key : section + "." + key;
    const auto [it, inserted] = first_line.emplace(full, number);
    if (!inserted) fail("key '" + full + "' is already set on line " + std::to_string(it->second));
    out << t << '\n';
  }
  return out.str();
}

// True if `s` reads back as the same TOML integer, float or boolean when written bare.
bool is_bare_scalar(const std::string& s) {
  if (s == "true" || s == "false") return true;
  if (s.empty() || s.find_first_not_of("0123456789+-.e") != std::string::npos) return false;
  // TOML wants a digit first (after a sign) and no leading zeros: "007" stays a quoted string.
  const size_t first = s.front() == '-' ? 1 : 0;
  if (first >= s.size() || !std::isdigit(static_cast<unsigned char>(s[first]))) return false;
  const bool leading_zero = s[first] == '0' && first + 1 < s.size() &&
                            std::isdigit(static_cast<unsigned char>(s[first + 1]));
  if (leading_zero) return false;
  double v = 0;
  const auto res = std::from_chars(s.data(), s.data() + s.size(), v);
  return res.ec == std::errc() && res.ptr == s.data() + s.size() && std::isfinite(v) &&
         std::isdigit(static_cast<unsigned char>(s.back()));
}

// A TOML basic string.
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

Config load_config_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError("cannot read config file '" + path + "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError("cannot read config file '" + path + "': " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    throw InputError("cannot read config file '" + path + "': " + std::strerror(errno));
  }
  return parse_config_text(text.str(), path);
}

Config parse_config_text(const std::string& text, const std::string& origin) {
  std::istringstream in(checked_text(text, origin));
  std::vector<CLI::ConfigItem> items;
  try {
    items = CLI::ConfigTOML().from_config(in);
  } catch (const std::exception& e) {
    throw InputError(origin + ": " + e.what());
  }
  Config config;
  for (const auto& item : items) {
    // "++" and "--" mark entering and leaving a section; they carry no value.
    if (item.name == "++" || item.name == "--") continue;
    if (item.inputs.size() != 1) {
      throw InputError(origin + ": key '" + item.fullname() + "' has " +
                       std::to_string(item.inputs.size()) + " values; expected one");
    }
    config.set(item.fullname(), item.inputs.front(), origin);
  }
  return config;
}

std::string format_resolved_config(const std::vector<const ParamSet*>& sections) {
  std::string out;
  for (const ParamSet* set : sections) {
    if (!out.empty()) out += '\n';
    out += "[" + set->section() + "]\n";
    // ParamSet keeps only canonical text, so quoting goes by the text: numbers and booleans are
    // bare, everything else (times, bandwidths, strings, choices) is a quoted string. The config
    // is read back as text either way, so a string that looks like a number loses nothing.
    for (const auto& [name, value] : set->canonical()) {
      out += name + " = " + (is_bare_scalar(value) ? value : quote(value)) + "\n";
    }
  }
  return out;
}

}  // namespace hx

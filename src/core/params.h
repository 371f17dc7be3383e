// Self-describing parameters (DESIGN §3.7): a model declares each parameter's name, type, default,
// unit, range and help; a config section is resolved against those declarations into typed values.
// Unknown keys, wrong types, out-of-range values and bad units are InputErrors naming the key.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "core/units.h"

namespace hx {

enum class ParamType { kInt, kFloat, kBool, kString, kTime, kBandwidth, kBytes, kChoice };

/// "int", "float", "bool", "string", "time", "bandwidth", "bytes", "choice".
const char* param_type_name(ParamType t);

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::kInt;
  std::string default_value;  // in config syntax, e.g. "1024", "10ns", "uniform"
  std::string help;
  double min = -std::numeric_limits<double>::infinity();  // for int and float
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  // for kChoice

  // Builders, so declarations read as one line each.
  static ParamSpec integer(std::string name, int64_t def, std::string help);
  static ParamSpec real(std::string name, double def, std::string help);
  static ParamSpec flag(std::string name, bool def, std::string help);
  static ParamSpec text(std::string name, std::string def, std::string help);
  static ParamSpec time(std::string name, std::string def, std::string help);
  static ParamSpec bandwidth(std::string name, std::string def, std::string help);
  static ParamSpec bytes(std::string name, std::string def, std::string help);
  static ParamSpec choice(std::string name, std::string def, std::vector<std::string> choices,
                          std::string help);
  ParamSpec&& range(double lo, double hi) &&;
};

using ParamValue = std::variant<int64_t, double, bool, std::string, SimTime, Bandwidth, Bytes>;

/// The resolved, typed values of one config section. Accessors take a declared name; asking for
/// an undeclared name or the wrong type is a programming error (std::logic_error).
class ParamSet {
 public:
  ParamSet() = default;
  explicit ParamSet(std::string section) : section_(std::move(section)) {}

  const std::string& section() const { return section_; }
  int64_t integer(const std::string& name) const;
  double real(const std::string& name) const;
  bool flag(const std::string& name) const;
  const std::string& text(const std::string& name) const;  // kString and kChoice
  SimTime time(const std::string& name) const;
  Bandwidth bandwidth(const std::string& name) const;
  Bytes bytes(const std::string& name) const;

  /// Canonical config text of each value, in declaration order (for the resolved config).
  const std::vector<std::pair<std::string, std::string>>& canonical() const { return canonical_; }

  void set(const std::string& name, ParamValue v, std::string canonical_text);

 private:
  const ParamValue& get(const std::string& name) const;
  std::string section_;
  std::map<std::string, ParamValue> values_;
  std::vector<std::pair<std::string, std::string>> canonical_;
};

/// A config as read: dotted keys ("phold.lps") to raw text values, in file order, with later
/// entries (command-line overrides) replacing earlier ones.
class Config {
 public:
  struct Entry {
    std::string key;
    std::string value;
    std::string origin;  // "file.toml" or "--set"
  };
  void set(std::string key, std::string value, std::string origin);
  const Entry* find(const std::string& key) const;
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

/// Resolves section `section` of `config` against `specs`: every declared parameter gets the
/// config's value or its default; values are parsed and range-checked. Keys of the section that
/// are not declared are rejected. `cycle_time` converts "N cycles" (zero: cycles not allowed).
ParamSet resolve_section(const Config& config, const std::string& section,
                         const std::vector<ParamSpec>& specs, SimTime cycle_time = SimTime());

/// Rejects any key of `config` whose section is not in `sections`.
void check_sections(const Config& config, const std::vector<std::string>& sections);

/// Parses one "key=value" command-line override ("phold.lps=1000").
void apply_override(Config& config, const std::string& assignment);

}  // namespace hx

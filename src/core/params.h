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

enum class ParamType {
  kInt,
  kFloat,
  kBool,
  kString,
  kTime,
  kBandwidth,
  kBytes,
  kChoice,
  kList,   // an array of values of one scalar type
  kTables  // an array of tables, each resolved like a section
};

/// "int", "float", "bool", "string", "time", "bandwidth", "bytes", "choice", "list", "tables".
const char* param_type_name(ParamType t);

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::kInt;
  std::string default_value;  // in config syntax, e.g. "1024", "10ns", "uniform"
  std::string help;
  double min = -std::numeric_limits<double>::infinity();  // for int and float
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  // for kChoice
  bool infinite = false;             // kTime: "inf" is a value (else a finite time is required)
  // kList: one spec, for every item (its name is unused); kTables: the keys of every table.
  std::vector<ParamSpec> elements;
  std::vector<std::string> default_items;  // kList: the default, item by item

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
  /// An array whose items are each resolved against `item` (range and choices included).
  static ParamSpec list(std::string name, ParamSpec item, std::vector<std::string> def,
                        std::string help);
  /// An array of tables, e.g. [{at = "1us", link = 3}, ...]; each is resolved against `keys`.
  /// The default is the empty array.
  static ParamSpec tables(std::string name, std::vector<ParamSpec> keys, std::string help);
  ParamSpec&& range(double lo, double hi) &&;
  /// For a time: accept "inf" (sim.end_time: no end). Other times must be finite, since an
  /// infinite latency or window would not fail until the run stalls.
  ParamSpec&& or_infinite() &&;
};

using ParamValue = std::variant<int64_t, double, bool, std::string, SimTime, Bandwidth, Bytes>;

/// The resolved, typed values of one config section. Accessors take a declared name; asking for
/// an undeclared name or the wrong type is a programming error (std::logic_error).
class ParamSet {
 public:
  ParamSet() = default;
  explicit ParamSet(std::string section) : section_(std::move(section)) {}

  const std::string& section() const { return section_; }
  /// Where the section was given ("file.toml:12"), for a table of a kTables parameter whose
  /// items the model checks further; empty otherwise.
  const std::string& origin() const { return origin_; }
  void set_origin(std::string origin) { origin_ = std::move(origin); }
  int64_t integer(const std::string& name) const;
  double real(const std::string& name) const;
  bool flag(const std::string& name) const;
  const std::string& text(const std::string& name) const;  // kString and kChoice
  SimTime time(const std::string& name) const;
  Bandwidth bandwidth(const std::string& name) const;
  Bytes bytes(const std::string& name) const;
  /// The items of a kList parameter; T is its item type (int64_t for int, std::string for string
  /// and choice, ...).
  template <class T>
  std::vector<T> list(const std::string& name) const;
  /// The tables of a kTables parameter; the section of table i is "<section>.<name>[i]".
  const std::vector<ParamSet>& tables(const std::string& name) const;

  /// Canonical config text of each value, in declaration order (for the resolved config). A
  /// kList or kTables value's text is its TOML array.
  const std::vector<std::pair<std::string, std::string>>& canonical() const { return canonical_; }
  bool is_array(const std::string& name) const;

  void set(const std::string& name, ParamValue v, std::string canonical_text);
  void set_list(const std::string& name, std::vector<ParamValue> items, std::string toml_text);
  void set_tables(const std::string& name, std::vector<ParamSet> tables, std::string toml_text);

 private:
  const ParamValue& get(const std::string& name) const;
  void set_canonical(const std::string& name, std::string text);
  std::string section_;
  std::string origin_;
  std::map<std::string, ParamValue> values_;
  std::map<std::string, std::vector<ParamValue>> lists_;
  std::map<std::string, std::vector<ParamSet>> tables_;
  std::vector<std::pair<std::string, std::string>> canonical_;
};

/// A value as read from a config: a scalar's text (a string without its quotes, a number in
/// decimal), an array, or a table (only as an array item: elsewhere its keys are dotted keys).
struct ConfigValue {
  enum class Kind { kScalar, kArray, kTable };
  Kind kind = Kind::kScalar;
  std::string text;                // kScalar: the value; kArray and kTable: TOML text, for messages
  std::vector<ConfigValue> items;  // kArray
  std::vector<std::pair<std::string, ConfigValue>> fields;  // kTable, in file order
  std::string origin;  // "file.toml:3" or "--set"; empty for a default
};

/// A config as read: dotted keys ("phold.lps") to values, in file order, with later entries
/// (command-line overrides) replacing earlier ones.
class Config {
 public:
  struct Entry {
    std::string key;
    ConfigValue value;
  };
  /// Sets a scalar.
  void set(std::string key, std::string text, std::string origin);
  void set(std::string key, ConfigValue value);
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

/// `canonical` as a TOML value: bare if it reads back as the same integer, float or boolean,
/// else a quoted string.
std::string toml_literal(const std::string& canonical);
/// `s` as a TOML basic string: quoted, with escapes.
std::string toml_string(const std::string& s);

}  // namespace hx

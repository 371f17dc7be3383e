// Parameter declarations, the flat Config, and resolution of a config section into typed values.
#include "core/params.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "core/error.h"
#include "core/text.h"

namespace hx {
namespace {

// Shortest text that reads back to the same double ("0.1", "1e+09").
std::string format_double(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string origin_note(const ConfigValue& v) {
  return v.origin.empty() ? " (default)" : " (from " + v.origin + ")";
}

// "an integer in [1, 1e+09]", "a number >= 0", "an integer".
std::string expected_range(const char* what, const ParamSpec& spec) {
  const bool has_min = std::isfinite(spec.min);
  const bool has_max = std::isfinite(spec.max);
  std::string s = what;
  if (has_min && has_max) {
    s += " in [" + format_double(spec.min) + ", " + format_double(spec.max) + "]";
  } else if (has_min) {
    s += " >= " + format_double(spec.min);
  } else if (has_max) {
    s += " <= " + format_double(spec.max);
  }
  return s;
}

bool in_range(double v, const ParamSpec& spec) { return v >= spec.min && v <= spec.max; }

struct Parsed {
  ParamValue value;
  std::string canonical;
};

// Parses one scalar value of `spec`; `key` is the dotted key, for messages.
Parsed parse_scalar(const ParamSpec& spec, const ConfigValue& v, const std::string& key,
                    SimTime cycle_time) {
  const std::string& raw = v.text;
  const std::string where = origin_note(v);
  const std::string head = key + " = '" + raw + "'" + where + ": expected ";
  if (v.kind != ConfigValue::Kind::kScalar) {
    throw InputError(head + "one " + param_type_name(spec.type) + " value, not " +
                     (v.kind == ConfigValue::Kind::kArray ? "an array" : "a table"));
  }
  const std::string value = spec.type == ParamType::kString ? raw : trim(raw);
  // The unit parsers build their own message from the key; give them the origin with it.
  const std::string unit_key = key + where;
  switch (spec.type) {
    case ParamType::kInt: {
      int64_t n = 0;
      const char* end = value.data() + value.size();
      const auto res = std::from_chars(value.data(), end, n);
      if (value.empty() || res.ec != std::errc() || res.ptr != end ||
          !in_range(static_cast<double>(n), spec)) {
        throw InputError(head + expected_range("an integer", spec));
      }
      return {n, std::to_string(n)};
    }
    case ParamType::kFloat: {
      double x = 0;
      const char* end = value.data() + value.size();
      const auto res = std::from_chars(value.data(), end, x);
      if (value.empty() || res.ec != std::errc() || res.ptr != end || !std::isfinite(x) ||
          !in_range(x, spec)) {
        throw InputError(head + expected_range("a number", spec));
      }
      return {x, format_double(x)};
    }
    case ParamType::kBool:
      if (value != "true" && value != "false") throw InputError(head + "true or false");
      return {value == "true", value};
    case ParamType::kString:
      return {value, value};
    case ParamType::kChoice:
      if (std::find(spec.choices.begin(), spec.choices.end(), value) == spec.choices.end()) {
        std::string msg = head + "one of " + join(spec.choices);
        const std::string hint = suggestion(value, spec.choices, "");
        if (hint.starts_with("; did")) msg += hint;
        throw InputError(msg);
      }
      return {value, value};
    case ParamType::kTime: {
      const SimTime t = parse_time(unit_key, value, cycle_time);
      if (t.is_infinite() && !spec.infinite) throw InputError(head + "a finite time");
      return {t, format_time(t)};
    }
    case ParamType::kBandwidth: {
      const Bandwidth b = parse_bandwidth(unit_key, value);
      return {b, format_bandwidth(b)};
    }
    case ParamType::kBytes: {
      const Bytes b = parse_bytes(unit_key, value);
      return {b, format_bytes(b)};
    }
    case ParamType::kList:
    case ParamType::kTables:
      break;
  }
  throw std::logic_error("parse_scalar: not a scalar type");
}

// {at = "1us", link = 3}: a resolved table as a TOML inline table.
std::string inline_table(const ParamSet& set) {
  std::string out;
  for (const auto& [name, text] : set.canonical()) {
    out +=
        (out.empty() ? "" : ", ") + name + " = " + (set.is_array(name) ? text : toml_literal(text));
  }
  return "{" + out + "}";
}

// Resolves `v` as the value of `spec` into `set`; `key` is the dotted key, for messages.
void resolve_value(ParamSet& set, const ParamSpec& spec, const ConfigValue& v,
                   const std::string& key, SimTime cycle_time) {
  if (spec.type != ParamType::kList && spec.type != ParamType::kTables) {
    Parsed p = parse_scalar(spec, v, key, cycle_time);
    set.set(spec.name, std::move(p.value), std::move(p.canonical));
    return;
  }
  std::vector<std::string> keys;
  for (const ParamSpec& k : spec.elements) keys.push_back(k.name);
  const std::string what =
      spec.type == ParamType::kList
          ? std::string("an array of ") + param_type_name(spec.elements.front().type) + " values"
          : "an array of tables with keys " + join(keys);
  if (v.kind != ConfigValue::Kind::kArray) {
    throw InputError(key + " = '" + v.text + "'" + origin_note(v) + ": expected " + what);
  }
  std::string text;
  std::vector<ParamValue> items;
  std::vector<ParamSet> tables;
  for (size_t i = 0; i < v.items.size(); ++i) {
    const ConfigValue& item = v.items[i];
    const std::string name = key + "[" + std::to_string(i) + "]";
    text += i == 0 ? "" : ", ";
    if (spec.type == ParamType::kList) {
      Parsed p = parse_scalar(spec.elements.front(), item, name, cycle_time);
      text += toml_literal(p.canonical);
      items.push_back(std::move(p.value));
      continue;
    }
    if (item.kind != ConfigValue::Kind::kTable) {
      throw InputError(name + " = '" + item.text + "'" + origin_note(item) +
                       ": expected a table with keys " + join(keys) + ", e.g. {" + keys.front() +
                       " = ...}");
    }
    Config fields;
    for (const auto& [field, value] : item.fields) fields.set(name + "." + field, value);
    tables.push_back(resolve_section(fields, name, spec.elements, cycle_time));
    tables.back().set_origin(item.origin);
    text += inline_table(tables.back());
  }
  if (spec.type == ParamType::kList) {
    set.set_list(spec.name, std::move(items), "[" + text + "]");
  } else {
    set.set_tables(spec.name, std::move(tables), "[" + text + "]");
  }
}

// A spec's default as a config value.
ConfigValue default_of(const ParamSpec& spec) {
  ConfigValue v;
  v.text = spec.default_value;
  if (spec.type == ParamType::kList || spec.type == ParamType::kTables) {
    v.kind = ConfigValue::Kind::kArray;
    for (const std::string& item : spec.default_items) {
      v.items.emplace_back();
      v.items.back().text = item;
    }
  }
  return v;
}

}  // namespace

const char* param_type_name(ParamType t) {
  switch (t) {
    case ParamType::kInt:
      return "int";
    case ParamType::kFloat:
      return "float";
    case ParamType::kBool:
      return "bool";
    case ParamType::kString:
      return "string";
    case ParamType::kTime:
      return "time";
    case ParamType::kBandwidth:
      return "bandwidth";
    case ParamType::kBytes:
      return "bytes";
    case ParamType::kChoice:
      return "choice";
    case ParamType::kList:
      return "list";
    case ParamType::kTables:
      return "tables";
  }
  return "unknown";
}

namespace {
ParamSpec make_spec(std::string name, ParamType type, std::string def, std::string help) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = type;
  s.default_value = std::move(def);
  s.help = std::move(help);
  return s;
}
}  // namespace

ParamSpec ParamSpec::integer(std::string name, int64_t def, std::string help) {
  return make_spec(std::move(name), ParamType::kInt, std::to_string(def), std::move(help));
}
ParamSpec ParamSpec::real(std::string name, double def, std::string help) {
  return make_spec(std::move(name), ParamType::kFloat, format_double(def), std::move(help));
}
ParamSpec ParamSpec::flag(std::string name, bool def, std::string help) {
  return make_spec(std::move(name), ParamType::kBool, def ? "true" : "false", std::move(help));
}
ParamSpec ParamSpec::text(std::string name, std::string def, std::string help) {
  return make_spec(std::move(name), ParamType::kString, std::move(def), std::move(help));
}
ParamSpec ParamSpec::time(std::string name, std::string def, std::string help) {
  return make_spec(std::move(name), ParamType::kTime, std::move(def), std::move(help));
}
ParamSpec ParamSpec::bandwidth(std::string name, std::string def, std::string help) {
  return make_spec(std::move(name), ParamType::kBandwidth, std::move(def), std::move(help));
}
ParamSpec ParamSpec::bytes(std::string name, std::string def, std::string help) {
  return make_spec(std::move(name), ParamType::kBytes, std::move(def), std::move(help));
}
ParamSpec ParamSpec::choice(std::string name, std::string def, std::vector<std::string> choices,
                            std::string help) {
  ParamSpec s = make_spec(std::move(name), ParamType::kChoice, std::move(def), std::move(help));
  s.choices = std::move(choices);
  return s;
}
ParamSpec ParamSpec::list(std::string name, ParamSpec item, std::vector<std::string> def,
                          std::string help) {
  std::string text;
  for (const std::string& d : def) text += (text.empty() ? "" : ", ") + toml_literal(d);
  ParamSpec s = make_spec(std::move(name), ParamType::kList, "[" + text + "]", std::move(help));
  s.elements.push_back(std::move(item));
  s.default_items = std::move(def);
  return s;
}
ParamSpec ParamSpec::tables(std::string name, std::vector<ParamSpec> keys, std::string help) {
  if (keys.empty()) throw std::logic_error("ParamSpec::tables '" + name + "' declares no keys");
  ParamSpec s = make_spec(std::move(name), ParamType::kTables, "[]", std::move(help));
  s.elements = std::move(keys);
  return s;
}
ParamSpec&& ParamSpec::range(double lo, double hi) && {
  min = lo;
  max = hi;
  return std::move(*this);
}

ParamSpec&& ParamSpec::or_infinite() && {
  infinite = true;
  return std::move(*this);
}

const ParamValue& ParamSet::get(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) {
    throw std::logic_error("parameter '" + name + "' is not declared in [" + section_ + "]");
  }
  return it->second;
}

namespace {
template <class T>
const T& typed(const ParamValue& v, const std::string& section, const std::string& name,
               const char* type) {
  if (const T* p = std::get_if<T>(&v)) return *p;
  throw std::logic_error("parameter '" + section + "." + name + "' is not of type " + type);
}
}  // namespace

int64_t ParamSet::integer(const std::string& name) const {
  return typed<int64_t>(get(name), section_, name, "int");
}
double ParamSet::real(const std::string& name) const {
  return typed<double>(get(name), section_, name, "float");
}
bool ParamSet::flag(const std::string& name) const {
  return typed<bool>(get(name), section_, name, "bool");
}
const std::string& ParamSet::text(const std::string& name) const {
  return typed<std::string>(get(name), section_, name, "string or choice");
}
SimTime ParamSet::time(const std::string& name) const {
  return typed<SimTime>(get(name), section_, name, "time");
}
Bandwidth ParamSet::bandwidth(const std::string& name) const {
  return typed<Bandwidth>(get(name), section_, name, "bandwidth");
}
Bytes ParamSet::bytes(const std::string& name) const {
  return typed<Bytes>(get(name), section_, name, "bytes");
}

template <class T>
std::vector<T> ParamSet::list(const std::string& name) const {
  const auto it = lists_.find(name);
  if (it == lists_.end()) {
    throw std::logic_error("parameter '" + section_ + "." + name + "' is not a declared list");
  }
  std::vector<T> out;
  for (const ParamValue& v : it->second)
    out.push_back(typed<T>(v, section_, name, "the asked item type"));
  return out;
}
template std::vector<int64_t> ParamSet::list(const std::string&) const;
template std::vector<double> ParamSet::list(const std::string&) const;
template std::vector<bool> ParamSet::list(const std::string&) const;
template std::vector<std::string> ParamSet::list(const std::string&) const;
template std::vector<SimTime> ParamSet::list(const std::string&) const;
template std::vector<Bandwidth> ParamSet::list(const std::string&) const;
template std::vector<Bytes> ParamSet::list(const std::string&) const;

const std::vector<ParamSet>& ParamSet::tables(const std::string& name) const {
  const auto it = tables_.find(name);
  if (it == tables_.end()) {
    throw std::logic_error("parameter '" + section_ + "." + name + "' is not declared tables");
  }
  return it->second;
}

bool ParamSet::is_array(const std::string& name) const {
  return lists_.contains(name) || tables_.contains(name);
}

void ParamSet::set(const std::string& name, ParamValue v, std::string canonical_text) {
  values_[name] = std::move(v);
  set_canonical(name, std::move(canonical_text));
}

void ParamSet::set_list(const std::string& name, std::vector<ParamValue> items,
                        std::string toml_text) {
  lists_[name] = std::move(items);
  set_canonical(name, std::move(toml_text));
}

void ParamSet::set_tables(const std::string& name, std::vector<ParamSet> tables,
                          std::string toml_text) {
  tables_[name] = std::move(tables);
  set_canonical(name, std::move(toml_text));
}

void ParamSet::set_canonical(const std::string& name, std::string text) {
  for (auto& [n, t] : canonical_) {
    if (n == name) {
      t = std::move(text);
      return;
    }
  }
  canonical_.emplace_back(name, std::move(text));
}

void Config::set(std::string key, std::string text, std::string origin) {
  ConfigValue v;
  v.text = std::move(text);
  v.origin = std::move(origin);
  set(std::move(key), std::move(v));
}

void Config::set(std::string key, ConfigValue value) {
  for (Entry& e : entries_) {
    if (e.key == key) {
      e.value = std::move(value);
      return;
    }
  }
  entries_.push_back(Entry{std::move(key), std::move(value)});
}

const Config::Entry* Config::find(const std::string& key) const {
  for (const Entry& e : entries_) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

ParamSet resolve_section(const Config& config, const std::string& section,
                         const std::vector<ParamSpec>& specs, SimTime cycle_time) {
  std::vector<std::string> names;
  names.reserve(specs.size());
  for (const auto& s : specs) names.push_back(s.name);

  const std::string prefix = section + ".";
  for (const auto& e : config.entries()) {
    if (!e.key.starts_with(prefix)) continue;
    const std::string name = e.key.substr(prefix.size());
    // A deeper key ("phold.a.b") is never declared: declared names have no dots.
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    throw InputError("unknown key '" + e.key + "' in [" + section + "] (from " + e.value.origin +
                     ")" + suggestion(name, names, "valid keys"));
  }

  ParamSet set(section);
  for (const auto& spec : specs) {
    const std::string key = prefix + spec.name;
    const Config::Entry* entry = config.find(key);
    resolve_value(set, spec, entry != nullptr ? entry->value : default_of(spec), key, cycle_time);
  }
  return set;
}

void check_sections(const Config& config, const std::vector<std::string>& sections) {
  for (const auto& e : config.entries()) {
    const auto dot = e.key.find('.');
    if (dot == std::string::npos || dot == 0) {
      throw InputError("key '" + e.key + "' (from " + e.value.origin + ") is not in a section; " +
                       "put it under a [section] header or write it as section." + e.key +
                       "; known sections: " + join(sections));
    }
    const std::string section = e.key.substr(0, dot);
    if (std::find(sections.begin(), sections.end(), section) == sections.end()) {
      std::string msg = "unknown section [" + section + "] (key '" + e.key + "', from " +
                        e.value.origin + "); known sections: " + join(sections);
      const std::string hint = suggestion(section, sections, "");
      if (hint.starts_with("; did")) msg += hint;
      throw InputError(msg);
    }
  }
}

std::string toml_literal(const std::string& canonical) {
  const std::string& s = canonical;
  bool bare = s == "true" || s == "false";
  // A number: TOML wants a digit first (after a sign) and no leading zeros ("007" stays a string),
  // and a digit last ("1." is not a float).
  const size_t first = s.starts_with('-') ? 1 : 0;
  if (!bare && first < s.size() && s.find_first_not_of("0123456789+-.e") == std::string::npos &&
      std::isdigit(static_cast<unsigned char>(s[first])) &&
      std::isdigit(static_cast<unsigned char>(s.back())) &&
      !(s[first] == '0' && first + 1 < s.size() &&
        std::isdigit(static_cast<unsigned char>(s[first + 1])))) {
    double v = 0;
    const auto res = std::from_chars(s.data(), s.data() + s.size(), v);
    bare = res.ec == std::errc() && res.ptr == s.data() + s.size() && std::isfinite(v);
  }
  return bare ? s : toml_string(s);
}

std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(u));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace hx

// Parameter declarations, the flat Config, and resolution of a config section into typed values.
#include "core/params.h"

#include <algorithm>
#include <charconv>
#include <cmath>
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

std::string origin_note(const Config::Entry* entry) {
  return entry != nullptr ? " (from " + entry->origin + ")" : " (default)";
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

// Parses one value of `spec`; `key` is the dotted key, `where` the origin note for messages.
void resolve_one(ParamSet& set, const ParamSpec& spec, const std::string& raw,
                 const std::string& key, const std::string& where, SimTime cycle_time) {
  const std::string value = spec.type == ParamType::kString ? raw : trim(raw);
  const std::string head = key + " = '" + raw + "'" + where + ": expected ";
  // The unit parsers build their own message from the key; give them the origin with it.
  const std::string unit_key = key + where;
  switch (spec.type) {
    case ParamType::kInt: {
      int64_t v = 0;
      const char* end = value.data() + value.size();
      const auto res = std::from_chars(value.data(), end, v);
      if (value.empty() || res.ec != std::errc() || res.ptr != end ||
          !in_range(static_cast<double>(v), spec)) {
        throw InputError(head + expected_range("an integer", spec));
      }
      set.set(spec.name, v, std::to_string(v));
      return;
    }
    case ParamType::kFloat: {
      double v = 0;
      const char* end = value.data() + value.size();
      const auto res = std::from_chars(value.data(), end, v);
      if (value.empty() || res.ec != std::errc() || res.ptr != end || !std::isfinite(v) ||
          !in_range(v, spec)) {
        throw InputError(head + expected_range("a number", spec));
      }
      set.set(spec.name, v, format_double(v));
      return;
    }
    case ParamType::kBool:
      if (value != "true" && value != "false") throw InputError(head + "true or false");
      set.set(spec.name, value == "true", value);
      return;
    case ParamType::kString:
      set.set(spec.name, value, value);
      return;
    case ParamType::kChoice:
      if (std::find(spec.choices.begin(), spec.choices.end(), value) == spec.choices.end()) {
        std::string msg = head + "one of " + join(spec.choices);
        const std::string hint = suggestion(value, spec.choices, "");
        if (hint.starts_with("; did")) msg += hint;
        throw InputError(msg);
      }
      set.set(spec.name, value, value);
      return;
    case ParamType::kTime: {
      const SimTime t = parse_time(unit_key, value, cycle_time);
      set.set(spec.name, t, format_time(t));
      return;
    }
    case ParamType::kBandwidth: {
      const Bandwidth b = parse_bandwidth(unit_key, value);
      set.set(spec.name, b, format_bandwidth(b));
      return;
    }
    case ParamType::kBytes: {
      const Bytes b = parse_bytes(unit_key, value);
      set.set(spec.name, b, format_bytes(b));
      return;
    }
  }
  throw std::logic_error("resolve_one: unhandled parameter type");
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
ParamSpec&& ParamSpec::range(double lo, double hi) && {
  min = lo;
  max = hi;
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

void ParamSet::set(const std::string& name, ParamValue v, std::string canonical_text) {
  values_[name] = std::move(v);
  for (auto& [n, text] : canonical_) {
    if (n == name) {
      text = std::move(canonical_text);
      return;
    }
  }
  canonical_.emplace_back(name, std::move(canonical_text));
}

void Config::set(std::string key, std::string value, std::string origin) {
  for (Entry& e : entries_) {
    if (e.key == key) {
      e.value = std::move(value);
      e.origin = std::move(origin);
      return;
    }
  }
  entries_.push_back(Entry{std::move(key), std::move(value), std::move(origin)});
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
    throw InputError("unknown key '" + e.key + "' in [" + section + "] (from " + e.origin + ")" +
                     suggestion(name, names, "valid keys"));
  }

  ParamSet set(section);
  for (const auto& spec : specs) {
    const std::string key = prefix + spec.name;
    const Config::Entry* entry = config.find(key);
    const std::string& raw = entry != nullptr ? entry->value : spec.default_value;
    resolve_one(set, spec, raw, key, origin_note(entry), cycle_time);
  }
  return set;
}

void check_sections(const Config& config, const std::vector<std::string>& sections) {
  for (const auto& e : config.entries()) {
    const auto dot = e.key.find('.');
    if (dot == std::string::npos || dot == 0) {
      throw InputError("key '" + e.key + "' (from " + e.origin + ") is not in a section; " +
                       "put it under a [section] header or write it as section." + e.key +
                       "; known sections: " + join(sections));
    }
    const std::string section = e.key.substr(0, dot);
    if (std::find(sections.begin(), sections.end(), section) == sections.end()) {
      std::string msg = "unknown section [" + section + "] (key '" + e.key + "', from " + e.origin +
                        "); known sections: " + join(sections);
      const std::string hint = suggestion(section, sections, "");
      if (hint.starts_with("; did")) msg += hint;
      throw InputError(msg);
    }
  }
}

void apply_override(Config& config, const std::string& assignment) {
  const auto eq = assignment.find('=');
  const std::string usage = "--set '" + assignment + "': expected key=value, e.g. phold.lps=1000";
  if (eq == std::string::npos) throw InputError(usage);
  const std::string key = trim(assignment.substr(0, eq));
  if (key.empty()) throw InputError(usage);
  std::string value = trim(assignment.substr(eq + 1));
  // Shells often leave quotes in, e.g. --set 'sim.end_time="10us"'; drop one matching pair.
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front()) {
    value = value.substr(1, value.size() - 2);
  }
  config.set(key, std::move(value), "--set");
}

}  // namespace hx

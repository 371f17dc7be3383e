// TOML config files, read with toml++ (TOML 1.0) into a flat Config, and the resolved config
// written back as TOML. The one file that includes toml++: its headers are slow to compile.
//
// Tables become dotted keys ("[sim] seed = 1" and "sim = {seed = 1}" are both sim.seed); arrays
// stay values, their items scalars, arrays or tables. Scalars keep their text, so a parameter
// parses "10us" or "1000" the same whether it came from a file, a quoted string or --set.
#include "io/config_file.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/text.h"

namespace hx {
namespace {

// Line `number` (1-based) of `text`, trimmed, for messages.
std::string line_of(const std::string& text, size_t number) {
  std::istringstream in(text);
  std::string line;
  for (size_t i = 0; i < number && std::getline(in, line); ++i) {
  }
  return trim(line);
}

// "end_time = 10 ns" and "model = torus" are not TOML: text needs quotes, the commonest slip in a
// hand-written config. For a line that failed with an unquoted value holding a space or a letter
// (other than e, which numbers use), the hint shows the fix.
std::string quoting_hint(const std::string& line) {
  const auto eq = line.find('=');
  if (eq == std::string::npos) return "";
  const std::string key = trim(line.substr(0, eq));
  const std::string value = trim(line.substr(eq + 1).substr(0, line.substr(eq + 1).find('#')));
  if (key.empty() || value.empty() ||
      std::string("\"'[{").find(value.front()) != std::string::npos ||
      value.find_first_of("abcdfghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ") ==
          std::string::npos) {
    return "";
  }
  return "; text values are quoted: " + key + " = \"" + value + "\"";
}

// Converts parsed TOML into Config entries; `origin` names the file (with line numbers added) or
// is "--set" (without).
class Reader {
 public:
  Reader(std::string origin, bool lines) : origin_(std::move(origin)), lines_(lines) {}

  // Adds `node` under `key` to `out`: a table's keys one by one, anything else as one entry.
  // An empty table below a section sets nothing, so it stays one entry: refused by name as an
  // unknown key or as a table where a parameter wants a value, never silently left out.
  void add(const toml::node& node, const std::string& key, std::vector<Config::Entry>& out) const {
    const toml::table* t = node.as_table();
    if (t != nullptr && (!t->empty() || key.find('.') == std::string::npos)) {
      for (const auto& [k, n] : in_file_order(*t)) add(*n, key.empty() ? k : key + "." + k, out);
      return;
    }
    out.push_back(Config::Entry{key, convert(node, key)});
  }

 private:
  // A table's keys and values in the order they appear (toml::table is ordered by key).
  static std::vector<std::pair<std::string, const toml::node*>> in_file_order(
      const toml::table& t) {
    std::vector<std::pair<std::string, const toml::node*>> nodes;
    for (auto&& [k, v] : t) nodes.emplace_back(std::string(k.str()), &v);
    std::stable_sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) {
      const auto& pa = a.second->source().begin;
      const auto& pb = b.second->source().begin;
      return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
    });
    return nodes;
  }

  std::string where(const toml::node& n) const {
    return lines_ ? origin_ + ":" + std::to_string(n.source().begin.line) : origin_;
  }

  // TOML text of a value, for messages.
  static std::string toml_text(const toml::node& n) {
    std::string out;
    if (const toml::array* a = n.as_array()) {
      for (const toml::node& item : *a) out += (out.empty() ? "" : ", ") + toml_text(item);
      return "[" + out + "]";
    }
    if (const toml::table* t = n.as_table()) {
      for (auto&& [k, v] : *t) {
        out += (out.empty() ? "" : ", ") + std::string(k.str()) + " = " + toml_text(v);
      }
      return "{" + out + "}";
    }
    if (const auto* s = n.as_string()) return toml_string(s->get());
    std::ostringstream os;
    n.visit([&](const auto& v) { os << v; });
    return os.str();
  }

  // A scalar's text: a string without quotes, an integer in decimal, a float with a '.' or an
  // exponent (so 1.0 stays a float to an integer parameter), dates as written.
  std::string scalar_text(const toml::node& n, const std::string& key) const {
    if (const auto* s = n.as_string()) {
      if (s->get().find('\0') != std::string::npos) {
        throw InputError(where(n) + ": " + key + " holds a NUL character (\\u0000)");
      }
      return s->get();
    }
    if (const auto* i = n.as_integer()) return std::to_string(i->get());
    if (const auto* f = n.as_floating_point()) {
      char buf[64];
      const auto res = std::to_chars(buf, buf + sizeof buf, f->get());
      std::string text(buf, res.ptr);
      if (text.find_first_of(".ein") == std::string::npos) text += ".0";
      return text;
    }
    return toml_text(n);
  }

  ConfigValue convert(const toml::node& n, const std::string& key) const {
    ConfigValue v;
    v.origin = where(n);
    if (const toml::array* a = n.as_array()) {
      v.kind = ConfigValue::Kind::kArray;
      v.text = toml_text(n);
      for (size_t i = 0; i < a->size(); ++i) {
        v.items.push_back(convert(*a->get(i), key + "[" + std::to_string(i) + "]"));
      }
    } else if (const toml::table* t = n.as_table()) {
      v.kind = ConfigValue::Kind::kTable;
      v.text = toml_text(n);
      for (const auto& [name, field] : in_file_order(*t)) {
        v.fields.emplace_back(name, convert(*field, key + "." + name));
      }
    } else {
      v.text = scalar_text(n, key);
    }
    return v;
  }

  std::string origin_;
  bool lines_;
};

// toml++'s "Error while parsing key-value pair: expected value" without its preamble.
std::string description(const toml::parse_error& e) {
  std::string d(e.description());
  const std::string preamble = "Error while parsing ";
  return d.starts_with(preamble) ? d.substr(preamble.size()) : d;
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
  // toml++ calls a NUL an "unescaped control character"; name it plainly (a binary file?).
  if (const auto nul = text.find('\0'); nul != std::string::npos) {
    const auto line =
        std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n') + 1;
    throw InputError(origin + ":" + std::to_string(line) +
                     ": a NUL character (byte 0); a config file is UTF-8 text: '" +
                     line_of(text.substr(0, nul), static_cast<size_t>(line)) + "'");
  }
  toml::table doc;
  try {
    doc = toml::parse(std::string_view(text), std::string_view(origin));
  } catch (const toml::parse_error& e) {
    const auto& pos = e.source().begin;
    const std::string line = line_of(text, pos.line);
    throw InputError(origin + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) +
                     ": " + description(e) + (line.empty() ? "" : ": '" + line + "'") +
                     quoting_hint(line));
  }
  std::vector<Config::Entry> entries;
  Reader(origin, true).add(doc, "", entries);
  if (entries.empty()) {
    throw InputError(origin + ": the config is empty: it sets no keys (a config names at least " +
                     "its model, e.g. [sim] model = \"phold\"; configs/ has examples)");
  }
  Config config;
  for (Config::Entry& e : entries) config.set(std::move(e.key), std::move(e.value));
  return config;
}

void apply_override(Config& config, const std::string& assignment) {
  const auto eq = assignment.find('=');
  const std::string usage = "--set '" + assignment + "': expected key=value, e.g. phold.lps=1000";
  if (eq == std::string::npos) throw InputError(usage);
  const std::string key = trim(assignment.substr(0, eq));
  if (key.empty()) throw InputError(usage);
  std::string value = trim(assignment.substr(eq + 1));
  if (value.starts_with('[') || value.starts_with('{')) {
    // An array or an inline table is TOML value text, read as a file's would be.
    toml::table doc;
    try {
      doc = toml::parse("v = " + value);
    } catch (const toml::parse_error& e) {
      throw InputError("--set '" + assignment + "': " + description(e) + " (a value starting " +
                       "with '" + value.front() + "' is TOML: [1, 2] or {a = 1})");
    }
    std::vector<Config::Entry> entries;
    Reader("--set", false).add(*doc.get("v"), key, entries);
    for (Config::Entry& e : entries) config.set(std::move(e.key), std::move(e.value));
    return;
  }
  // Shells often leave quotes in, e.g. --set 'sim.end_time="10us"'; drop one matching pair.
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front()) {
    value = value.substr(1, value.size() - 2);
  }
  config.set(key, std::move(value), "--set");
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
      out += name + " = " + (set->is_array(name) ? value : toml_literal(value)) + "\n";
    }
  }
  return out;
}

}  // namespace hx

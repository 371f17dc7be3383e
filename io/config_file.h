// Config files: TOML 1.0 read into a flat Config of dotted keys, `--set key=value` overrides, and
// the resolved config written back as TOML (stored in every output file as /config).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/params.h"

namespace hx {

/// Reads a TOML file. InputError if it is missing, unreadable, malformed or empty.
Config load_config_file(const std::string& path);
/// Parses TOML text; `origin` names it in error messages and, with the line, in each value's origin
/// ("file.toml:3").
Config parse_config_text(const std::string& text, const std::string& origin);

/// Applies one "key=value" command-line override ("phold.lps=1000"). A value starting with '[' or
/// '{' is TOML (an array, or an inline table whose keys go under `key`); any other value is taken
/// as text, without one pair of surrounding quotes if it has them.
void apply_override(Config& config, const std::string& assignment);

/// TOML text of resolved sections, one [section] per ParamSet, every declared key with its value.
std::string format_resolved_config(const std::vector<const ParamSet*>& sections);

}  // namespace hx

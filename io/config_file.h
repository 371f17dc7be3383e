// Config files: TOML read through CLI11's config parser into a flat Config, and the resolved
// config written back as TOML (stored in every output file as /config).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/params.h"

namespace hx {

/// Reads a TOML file. InputError if it is missing, unreadable or malformed.
Config load_config_file(const std::string& path);
/// Parses TOML text; `origin` names it in error messages.
Config parse_config_text(const std::string& text, const std::string& origin);

/// TOML text of resolved sections, one [section] per ParamSet, every declared key with its value.
std::string format_resolved_config(const std::vector<const ParamSet*>& sections);

}  // namespace hx

// Comma-separated list values of the InfiniteHBD study models' sections ("0.85, 0.9"), shared
// by hbd_cluster and hbd_orchestration.
#pragma once

#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/text.h"

namespace hx::net::infinitehbd {

/// The non-empty items of "a, b,, c", trimmed.
inline std::vector<std::string> list_items(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (!trim(item).empty()) out.push_back(trim(item));
  }
  return out;
}

/// `text` as a share in [0, 1]; InputError naming "section.key" otherwise.
inline double share_in(const std::string& section, const std::string& key,
                       const std::string& text) {
  std::size_t used = 0;
  double v = -1;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
  }
  if (used != text.size() || !(v >= 0 && v <= 1)) {
    throw InputError(section + "." + key + ": '" + text + "' is not a share in [0, 1]");
  }
  return v;
}

}  // namespace hx::net::infinitehbd

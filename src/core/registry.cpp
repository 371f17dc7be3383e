// The explicit model registry: add models by name, look them up with a helpful error.
#include "core/registry.h"

#include <algorithm>
#include <stdexcept>

#include "core/error.h"

namespace hx {
namespace {

// Levenshtein distance; model lists are short, so the quadratic cost does not matter.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

void Registry::add(ModelInfo info) {
  for (const auto& m : models_) {
    if (m.name == info.name) throw std::logic_error("model '" + info.name + "' registered twice");
  }
  models_.push_back(std::move(info));
}

const ModelInfo& Registry::find(const std::string& name) const {
  std::string known;
  const ModelInfo* closest = nullptr;
  size_t closest_distance = 3;  // suggest only names within edit distance 2
  for (const auto& m : models_) {
    if (m.name == name) return m;
    known += (known.empty() ? "" : ", ") + m.name;
    const size_t d = edit_distance(name, m.name);
    if (d < closest_distance) {
      closest_distance = d;
      closest = &m;
    }
  }
  std::string msg =
      "unknown model '" + name + "'; known models: " + (known.empty() ? "(none)" : known);
  if (closest != nullptr) msg += "; did you mean '" + closest->name + "'?";
  throw InputError(msg);
}

}  // namespace hx

// The explicit model registry: add models by name, look them up with a helpful error.
#include "core/registry.h"

#include <algorithm>
#include <stdexcept>

#include "core/error.h"
#include "core/text.h"

namespace hx {

const ParamSet& ModelParams::section(const std::string& name) const {
  for (const ParamSet& s : sections) {
    if (s.section() == name) return s;
  }
  throw std::logic_error("model parameters have no section '" + name + "'");
}

void Registry::add(ModelInfo info) {
  for (const auto& m : models_) {
    if (m.name == info.name) throw std::logic_error("model '" + info.name + "' registered twice");
  }
  models_.push_back(std::move(info));
}

const ModelInfo& Registry::find(const std::string& name) const {
  std::vector<std::string> names;
  for (const auto& m : models_) {
    if (m.name == name) return m;
    names.push_back(m.name);
  }
  throw InputError("unknown model '" + name + "'" + suggestion(name, names, "known models"));
}

}  // namespace hx

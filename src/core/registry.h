// The explicit model registry (DESIGN §3.7): each module adds its models in a
// register_models(Registry&) function; no static-initialisation tricks. `hxsim list` prints it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/params.h"
#include "core/stats.h"

namespace hx {

/// A config section a model reads besides its own (e.g. the network models' [router]).
struct SectionSpec {
  std::string name;
  std::vector<ParamSpec> params;
};

/// The resolved sections a model is built from.
struct ModelParams {
  const ParamSet* sim = nullptr;   // [sim]: seed, cycle_time, ...
  std::vector<ParamSet> sections;  // the model's own section first, then its extra sections
  /// The section named `name`; std::logic_error if the model did not declare it.
  const ParamSet& section(const std::string& name) const;
};

struct ModelInfo {
  std::string name;  // also the name of its own config section
  std::string help;
  std::vector<ParamSpec> params;  // its own section
  std::vector<SectionSpec> extra_sections;
  std::vector<TableSpec> tables;  // what it writes, for `hxsim list`
  /// Builds the model from its resolved sections; InputError on inconsistent values.
  std::function<std::unique_ptr<Model>(const ModelParams&)> make;
};

class Registry {
 public:
  void add(ModelInfo info);
  /// InputError listing the known names when `name` is not registered.
  const ModelInfo& find(const std::string& name) const;
  const std::vector<ModelInfo>& models() const { return models_; }

 private:
  std::vector<ModelInfo> models_;
};

}  // namespace hx

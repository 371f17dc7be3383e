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

struct ModelInfo {
  std::string name;  // also the name of its config section
  std::string help;
  std::vector<ParamSpec> params;
  std::vector<TableSpec> tables;  // what it writes, for `hxsim list`
  /// Builds the model from its resolved section; InputError on inconsistent values.
  std::function<std::unique_ptr<Model>(const ParamSet&)> make;
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

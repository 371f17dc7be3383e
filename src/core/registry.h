// The explicit model registry (DESIGN §3.7): each module adds its models in a
// register_models(Registry&) function; no static-initialisation tricks. `hxsim list` prints it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/closed_forms.h"
#include "core/model.h"
#include "core/params.h"
#include "core/stats.h"
#include "core/team.h"

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
  /// The ranks building this model together, to split its start-up analysis (core/team.h);
  /// nullptr: a team of one.
  const Team* team = nullptr;
  /// The section named `name`; std::logic_error if the model did not declare it.
  const ParamSet& section(const std::string& name) const;
};

/// What `hxsim sweep` raises and reads of a model: a load parameter and the /summary values of
/// the runs. A model whose `load` is empty cannot be swept.
struct SweepMetrics {
  std::string load;                // "section.key" of the offered load, e.g. "traffic.load"
  std::string offered, accepted;   // measured loads, in the unit of `load`
  std::string latency_mean;        // [ps]; the saturation test compares it with the first point's
  std::string latency_p50, latency_p99, network_latency_mean, hops_mean;  // reported per point
  std::string unstable;       // summary value, non-zero when the run was unstable (saturated)
  std::string stop_unstable;  // a flag parameter the sweep sets: an unstable run ends sooner
  // The choice under which `load` is the offered load, as "section.key=value" (empty: always):
  // under any other value the runs would not depend on it, so the sweep refuses the config.
  std::string load_applies = {};
};

struct ModelInfo {
  std::string name;  // also the name of its own config section
  std::string help;
  std::vector<ParamSpec> params;  // its own section
  std::vector<SectionSpec> extra_sections;
  std::vector<TableSpec> tables;  // what it writes, for `hxsim list`
  /// Builds the model from its resolved sections; InputError on inconsistent values.
  std::function<std::unique_ptr<Model>(const ModelParams&)> make;
  // Optional: "= {}" lets registrations leave them out without -Wmissing-field-initializers.
  std::vector<ClosedFormsSpec> closed_forms = {};  // for `hxsim topo`
  SweepMetrics sweep = {};
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

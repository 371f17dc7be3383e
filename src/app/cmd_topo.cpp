// `hxsim topo`: the closed forms a configured network's family registers (sizes, throughput
// bounds, diameter, hop energy), as a table or as JSON. Nothing is built or run beyond resolving
// the config, so the full-size systems of the papers cost nothing.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/commands.h"
#include "core/error.h"
#include "core/text.h"
#include "engine/run.h"
#include "io/config_file.h"

namespace hx {
namespace {

void print_table(const ClosedForms& r) {
  std::printf("# hxsim topo: %s\n# %s\n", r.title.c_str(), r.note.c_str());
  std::size_t label_width = 0;
  std::vector<std::size_t> widths;
  for (const std::string& h : r.headers) widths.push_back(h.size());
  for (const FormRow& row : r.rows) {
    label_width = std::max(label_width, row.label.size());
    for (std::size_t c = 0; c < row.cells.size(); ++c) {
      widths[c] = std::max(widths[c], row.cells[c].text.size());
    }
  }
  // Padded to the column widths, except the last column (no trailing blanks).
  const auto line = [&](const std::string& label, const std::vector<std::string>& cells) {
    std::printf("%-*s", static_cast<int>(label_width), label.c_str());
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const int width = c + 1 < cells.size() ? static_cast<int>(widths[c]) : 0;
      std::printf("  %-*s", width, cells[c].c_str());
    }
    std::printf("\n");
  };
  line("", r.headers);
  for (const FormRow& row : r.rows) {
    std::vector<std::string> cells;
    for (const FormCell& c : row.cells) cells.push_back(c.text);
    line(row.label, cells);
  }
}

// {"title": ..., "<column>": {"<key>": value, ...}, ...}; unknown values are left out.
void print_json(const ClosedForms& r) {
  std::printf("{\n  \"title\": \"%s\",\n  \"note\": \"%s\"", r.title.c_str(), r.note.c_str());
  for (std::size_t c = 0; c < r.columns.size(); ++c) {
    std::printf(",\n  \"%s\": {", r.columns[c].c_str());
    bool first = true;
    for (const FormRow& row : r.rows) {
      if (c >= row.cells.size() || row.cells[c].json == "null") continue;
      std::printf("%s\n    \"%s\": %s", first ? "" : ",", row.key.c_str(),
                  row.cells[c].json.c_str());
      first = false;
    }
    std::printf("\n  }");
  }
  std::printf("\n}\n");
}

// The models with a report for `flag` ("": the default one).
std::vector<std::string> models_with(const Registry& registry, const std::string& flag) {
  std::vector<std::string> names;
  for (const ModelInfo& m : registry.models()) {
    for (const ClosedFormsSpec& s : m.closed_forms) {
      if (s.flag == flag) names.push_back(m.name);
    }
  }
  return names;
}

}  // namespace

int command_topo(MPI_Comm comm, const Registry& registry, const std::string& path,
                 const std::vector<std::string>& overrides, bool json, const std::string& flag) {
  Config config = load_config_file(path);
  for (const std::string& s : overrides) apply_override(config, s);
  const ResolvedConfig resolved = resolve_config(registry, config);
  const ClosedFormsSpec* spec = nullptr;
  for (const ClosedFormsSpec& s : resolved.info->closed_forms) {
    if (s.flag == flag) spec = &s;
  }
  if (spec == nullptr) {
    const std::string& model = resolved.info->name;
    if (flag.empty()) {
      throw InputError("model '" + model +
                       "' has no closed forms in hxsim topo yet; models with "
                       "them: " +
                       join(models_with(registry, flag)));
    }
    throw InputError("--" + flag + ": model '" + model +
                     "' has no such report; models with it: " + join(models_with(registry, flag)));
  }
  const ClosedForms report = spec->make(resolved.sections.front());
  if (comm_rank(comm) == 0) {
    if (json) {
      print_json(report);
    } else {
      print_table(report);
    }
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace hx

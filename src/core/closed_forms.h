// Closed forms of a model for `hxsim topo`: rows of named values in one or more columns, each
// value as a table shows it and as JSON. A topology family builds them from its config section
// (registered with the model, core/registry.h); the app only prints them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/params.h"

namespace hx {

/// One value as the table shows it and as a JSON literal; "null" values are left out of JSON.
struct FormCell {
  std::string text = "-";
  std::string json = "null";
};

FormCell count_cell(uint64_t v);  // "1,312" | 1312
FormCell real_cell(double v);     // 4 significant digits | 17

struct FormRow {
  std::string key;    // JSON name
  std::string label;  // table text
  std::vector<FormCell> cells;
};

struct ClosedForms {
  std::string title;                 // the model and its sizes
  std::string note;                  // what the columns are
  std::vector<std::string> columns;  // JSON names of the columns
  std::vector<std::string> headers;  // their table headers
  std::vector<FormRow> rows;
};

/// One report a model offers: `hxsim topo` prints the one with the empty flag unless its
/// command line names another (--availability).
struct ClosedFormsSpec {
  std::string flag;  // "" or the hxsim topo flag without dashes
  std::string help;  // what the report holds, for hxsim topo's help and errors
  /// From the model's own resolved section; InputError on values the formulas cannot take.
  std::function<ClosedForms(const ParamSet& section)> make;
};

}  // namespace hx

// Cells of closed-form reports.
#include "core/closed_forms.h"

#include <cstdio>

#include "core/text.h"

namespace hx {

FormCell count_cell(uint64_t v) { return {with_commas(v), std::to_string(v)}; }

FormCell real_cell(double v) {
  char text[32], json[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  std::snprintf(json, sizeof json, "%.17g", v);
  return {text, json};
}

}  // namespace hx

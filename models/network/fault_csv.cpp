// The CSV form of a fault schedule file (faults.h): header "at,action,element[,to]".

#include "core/error.h"
#include "core/text.h"
#include "models/network/faults.h"

namespace hx::net {

std::vector<FaultRow> parse_faults_csv(std::istream& in, const std::string& name) {
  std::vector<FaultRow> out;
  bool header = false, with_to = false;
  uint64_t n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    const std::string text = trim(line);
    if (text.empty() || text[0] == '#') continue;
    const std::string where = name + ":" + std::to_string(n);
    const std::vector<std::string> fields = csv_fields(text);
    if (!header) {
      with_to = fields == std::vector<std::string>{"at", "action", "element", "to"};
      if (fields != std::vector<std::string>{"at", "action", "element"} && !with_to) {
        throw InputError(where + ": expected the header line 'at,action,element' (or "
                         "'at,action,element,to'), found '" + text + "'");
      }
      header = true;
      continue;
    }
    const std::size_t expected = with_to ? 4 : 3;
    if (fields.size() != expected && !(with_to && fields.size() == 3)) {
      throw InputError(where + ": expected " + std::to_string(expected) + " fields (" +
                       (with_to ? "at,action,element,to" : "at,action,element") + "), found " +
                       std::to_string(fields.size()));
    }
    const std::string to = fields.size() == 4 ? fields[3] : "";
    if (fields[1] != "fail" && fields[1] != "repair" && fields[1] != "reconfigure") {
      throw InputError(where + ": action '" + fields[1] +
                       "': expected fail, repair or reconfigure");
    }
    if ((fields[1] == "reconfigure") == to.empty()) {
      throw InputError(where + ": " + (to.empty() ? "reconfigure needs the configuration in "
                                                    "the 'to' field"
                                                  : "'to' is for reconfigure actions only"));
    }
    FaultRow r;
    try {
      r.at = parse_time("at", fields[0]);
      if (r.at.is_infinite()) throw InputError("at = 'inf': expected a finite time");
    } catch (const InputError& e) {
      throw InputError(where + ": " + e.what());
    }
    r.fail = fields[1] != "repair";
    r.element = fields[2];
    r.to = to;
    r.origin = where;
    out.push_back(std::move(r));
  }
  if (in.bad()) throw InputError(name + ": read error after line " + std::to_string(n));
  if (!header) throw InputError(name + ": no header line 'at,action,element'");
  return out;
}

}  // namespace hx::net

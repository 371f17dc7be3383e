// Members per HB domain of a job's process groups.
#include "models/workloads/domains.h"

#include <unordered_set>
#include <vector>

#include "core/error.h"

namespace hx::wl {

uint32_t members_per_domain(const RankGroup& g, const Mapping& mapping, const DomainOf& domain,
                            const std::string& key, const std::string& what) {
  const uint32_t p = g.members();
  uint32_t local = 0;
  for (uint32_t x = 0; x < mapping.ranks(); ++x) {
    // Each group once, from its first member.
    if (strided_rank(x, g.size, g.stride) != 0) continue;
    if (g.outer_size > 1 && strided_rank(x, g.outer_size, g.outer_stride) != 0) continue;
    const std::vector<uint32_t> members = group_ranks(g, x);
    std::unordered_set<uint32_t> seen;
    for (uint32_t k = 0; k < p;) {
      const uint32_t d = domain(mapping.endpoint(members[k]));
      uint32_t end = k + 1;
      while (end < p && domain(mapping.endpoint(members[end])) == d) ++end;
      const uint32_t run = end - k;
      if (local == 0) local = run;
      const auto fail = [&](const std::string& why) {
        throw InputError(key + " = \"hierarchical\": the " + what + " group of rank " +
                         std::to_string(x) + " (" + std::to_string(p) + " members) " + why +
                         "; the two-stage all-reduce needs the same number of a group's members "
                         "in each HB domain (the topology's endpoint group), consecutive in the "
                         "group");
      };
      if (!seen.insert(d).second) {
        fail("comes back to HB domain " + std::to_string(d) + " at member " + std::to_string(k));
      }
      if (run != local) {
        fail("has " + std::to_string(run) + " members in HB domain " + std::to_string(d) +
             " from member " + std::to_string(k) + ", but " + std::to_string(local) +
             " in the first domain: it does not divide evenly");
      }
      k = end;
    }
  }
  return local;
}

}  // namespace hx::wl

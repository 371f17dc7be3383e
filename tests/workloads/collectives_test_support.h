// Shared by the collective generator tests: an abstract interpreter that runs every member's
// program together, and a spec maker whose endpoints differ from the group ranks.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "models/workloads/collectives.h"

namespace hx::wl::testing {

using Key = std::tuple<uint32_t, uint32_t, uint32_t>;  // (src, dst, tag)

struct Outcome {
  std::map<uint32_t, Program> programs;  // by endpoint
  std::map<uint32_t, uint32_t> done_op;  // endpoint -> the op append_collective returned
  std::map<uint32_t, uint64_t> sent;     // endpoint -> bytes sent
  uint32_t rounds = 0;                   // longest chain of dependent messages
};

// Endpoints are spread out (3 + 5 * rank) so that group ranks and endpoints differ.
inline CollectiveSpec make(Collective op, Algorithm a, uint32_t p, uint64_t bytes) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = a;
  s.bytes = bytes;
  for (uint32_t r = 0; r < p; ++r) s.members.push_back(3 + 5 * r);
  s.group = 7;
  s.tag_base = 100;
  return s;
}

// Builds every member's program behind one earlier op, then executes them all together: an op
// runs once its dependencies are done; a send is done when issued; a recv once the matching send
// has been issued. Checks completion, one recv per send with equal bytes, unique tags in range.
inline Outcome execute(const CollectiveSpec& spec) {
  check_collective(spec, "test");
  Outcome run;
  for (uint32_t r = 0; r < spec.members.size(); ++r) {
    Program& prog = run.programs[spec.members[r]];
    const uint32_t before = prog.compute(1, 0);
    const uint32_t done = append_collective(spec, r, prog, std::vector<uint32_t>{before});
    EXPECT_EQ(done, prog.size() - 1);
    EXPECT_EQ(prog.ops[done].kind, OpKind::kWait);
    run.done_op[spec.members[r]] = done;
    // Every collective op waits (transitively) for `before`, and the wait for every op.
    std::vector<bool> needed(prog.size(), false);
    needed[done] = true;
    for (uint32_t i = done + 1; i-- > 1;) {
      EXPECT_FALSE(prog.deps_of(i).empty() && i != done) << "op " << i << " ignores `after`";
      if (!needed[i]) continue;
      for (uint32_t d : prog.deps_of(i)) needed[d] = true;
    }
    for (uint32_t i = 1; i < prog.size(); ++i) EXPECT_TRUE(needed[i]) << "op " << i;
  }
  std::map<Key, uint64_t> sends, recvs;
  const uint32_t tag_end = spec.tag_base + collective_tags(spec);
  for (auto& [e, prog] : run.programs) {
    for (const Op& op : prog.ops) {
      if (op.kind != OpKind::kSend && op.kind != OpKind::kRecv) continue;
      EXPECT_EQ(op.group, spec.group);
      EXPECT_GE(op.tag, spec.tag_base);
      EXPECT_LT(op.tag, tag_end);
      const bool is_send = op.kind == OpKind::kSend;
      const Key key = is_send ? Key{e, op.peer, op.tag} : Key{op.peer, e, op.tag};
      auto& table = is_send ? sends : recvs;
      EXPECT_TRUE(table.emplace(key, op.bytes).second)
          << "tag " << op.tag << " used twice from " << std::get<0>(key) << " to "
          << std::get<1>(key);
      if (is_send) run.sent[e] += op.bytes;
    }
  }
  EXPECT_EQ(sends, recvs);  // same keys, same byte counts

  // Execution. hops[op] = messages on the longest dependent chain ending at op.
  std::map<uint32_t, std::vector<int>> hops;  // -1: not done
  for (auto& [e, prog] : run.programs) hops[e].assign(prog.size(), -1);
  std::map<Key, int> issued;
  for (bool progress = true; progress;) {
    progress = false;
    for (auto& [e, prog] : run.programs) {
      for (uint32_t i = 0; i < prog.size(); ++i) {
        if (hops[e][i] >= 0) continue;
        int h = 0;
        bool ready = true;
        for (uint32_t d : prog.deps_of(i)) {
          ready = ready && hops[e][d] >= 0;
          h = std::max(h, hops[e][d]);
        }
        if (!ready) continue;
        const Op& op = prog.ops[i];
        if (op.kind == OpKind::kSend) {
          issued[{e, op.peer, op.tag}] = ++h;
        } else if (op.kind == OpKind::kRecv) {
          const auto it = issued.find({op.peer, e, op.tag});
          if (it == issued.end()) continue;
          h = std::max(h, it->second);
        }
        hops[e][i] = h;
        run.rounds = std::max<uint32_t>(run.rounds, h);
        progress = true;
      }
    }
  }
  for (auto& [e, prog] : run.programs) {
    for (uint32_t i = 0; i < prog.size(); ++i) {
      EXPECT_GE(hops[e][i], 0) << "endpoint " << e << " op " << i << " never completes";
    }
  }
  return run;
}

inline std::string describe(const CollectiveSpec& s) {
  return std::string(collective_name(s.op)) + " " + algorithm_name(s.algorithm) +
         " p=" + std::to_string(s.members.size()) + " " + std::to_string(s.rows) + "x" +
         std::to_string(s.cols) + " local=" + std::to_string(s.local) + " " +
         algorithm_name(s.local_algorithm) + " global=" + algorithm_name(s.global_algorithm) +
         " V=" + std::to_string(s.bytes);
}

}  // namespace hx::wl::testing

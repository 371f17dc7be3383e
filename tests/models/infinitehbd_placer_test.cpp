// The incremental Placer against place() from scratch: every architecture, TP sizes that divide
// domains and that do not, clusters with partial domains at the end, K from 1 to 4 on lines and
// rings, under random fault and repair sequences that make runs of neighbouring faults (the
// cuts of InfiniteHBD's components) as well as scattered ones.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "models/topologies/infinitehbd/cluster.h"
#include "models/topologies/infinitehbd/placer.h"
#include "support/input_error.h"

namespace hx::net::infinitehbd {
namespace {

using hx::testing::error_of;

std::vector<HbdArch> all_architectures() {
  std::vector<HbdArch> archs = compared_architectures();
  for (const uint32_t k : {1u, 4u}) {
    archs.push_back(infinitehbd(k));
    archs.push_back(infinitehbd(k, true));
  }
  archs.push_back(nvlink_domain("hbd32", 32, 0));
  return archs;
}

// Toggles random nodes, half the time next to the last one so that runs of faults form, and
// compares every field after each change.
void replay(const HbdArch& arch, const Cluster& c, uint32_t tp, uint64_t seed, int changes) {
  Placer placer(arch, c, tp);
  std::vector<uint8_t> bad(c.nodes, 0);
  Rng rng(seed, 0, 0);
  uint32_t v = 0;
  for (int i = 0; i < changes; ++i) {
    v = rng.bernoulli(0.5) ? (v + 1) % c.nodes : static_cast<uint32_t>(rng.below(c.nodes));
    // Mostly faults until a fifth of the nodes is down, then as many repairs.
    const bool fail = i < changes / 2 ? rng.bernoulli(0.8) : rng.bernoulli(0.3);
    bad[v] = fail;
    placer.set_faulty(v, fail);
    std::vector<uint32_t> faulty;
    for (uint32_t n = 0; n < c.nodes; ++n) {
      if (bad[n]) faulty.push_back(n);
    }
    const Usage want = place(arch, c, faulty, tp), got = placer.usage();
    ASSERT_EQ(got.placed, want.placed)
        << arch.name << " n=" << c.nodes << " t=" << tp << " change " << i << " node " << v;
    ASSERT_EQ(got.faulty, want.faulty) << arch.name;
    ASSERT_EQ(got.wasted, want.wasted) << arch.name;
    ASSERT_EQ(got.gpus, want.gpus) << arch.name;
  }
}

TEST(InfinitehbdPlacer, MatchesPlaceFromScratch) {
  int runs = 0;
  for (const Cluster c : {Cluster{720, 4}, Cluster{37, 4}, Cluster{150, 4}, Cluster{53, 8},
                          Cluster{100, 1}, Cluster{1, 4}, Cluster{5, 4}}) {
    for (const uint32_t tp : {1u, 4u, 8u, 12u, 16u, 32u, 64u, 128u}) {
      for (const HbdArch& a : all_architectures()) {
        try {
          place(a, c, {}, tp);
        } catch (const InputError&) {
          continue;  // e.g. TP-64 on NVL-36; the constructor's error is checked below
        }
        replay(a, c, tp, 1000 * runs + c.nodes, 400);
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 300);  // most combinations run
}

// Every node down and back up, in order and in reverse: the longest runs and their ends.
TEST(InfinitehbdPlacer, AllDownAndBackUp) {
  const Cluster c{40, 4};
  for (const HbdArch& a : all_architectures()) {
    if (a.kind != HbdKind::kInfiniteHbd) continue;
    for (const uint32_t tp : {4u, 8u, 12u}) {
      Placer placer(a, c, tp);
      std::vector<uint32_t> faulty;
      for (uint32_t v = 0; v < c.nodes; ++v) {
        placer.set_faulty(v, true);
        faulty.push_back(v);
        ASSERT_EQ(placer.usage().placed, place(a, c, faulty, tp).placed) << a.name << " " << v;
      }
      for (uint32_t v = c.nodes; v-- > 0;) {
        placer.set_faulty(v, false);
        faulty.pop_back();
        ASSERT_EQ(placer.usage().placed, place(a, c, faulty, tp).placed) << a.name << " " << v;
      }
      EXPECT_EQ(placer.usage().placed, c.gpus() / tp * tp);
    }
  }
}

TEST(InfinitehbdPlacer, BadInputAsPlace) {
  EXPECT_EQ(error_of([] {
              Placer(nvl36(), Cluster{720, 4}, 64);
            }),
            error_of([] {
              place(nvl36(), Cluster{720, 4}, {}, 64);
            }));
  EXPECT_EQ(error_of([] {
              Placer(infinitehbd(2), Cluster{720, 4}, 6);
            }),
            error_of([] {
              place(infinitehbd(2), Cluster{720, 4}, {}, 6);
            }));
  Placer placer(big_switch(), Cluster{10, 4}, 8);
  EXPECT_EQ(error_of([&] { placer.set_faulty(10, true); }),
            "infinitehbd cluster (big_switch): faulty node 10 is out of range: there are 10 "
            "nodes, ids from 0");
}

}  // namespace
}  // namespace hx::net::infinitehbd

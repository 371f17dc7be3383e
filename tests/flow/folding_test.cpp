// The folding analysis's bound on the pairs it routes (models/flow/folding.h): a direct
// all-to-all of equal blocks on a 4 x 4 torus folds by a row (4 endpoints per orbit), and the
// same analysis refused one pair short of what it needs says so instead of folding.
#include "models/flow/folding.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/team.h"
#include "engine/run.h"
#include "models/network/network_model.h"
#include "models/workloads/collective_workload.h"
#include "network/small_networks.h"

namespace hx::flow {
namespace {

using test::registry;

std::unique_ptr<wl::CollectiveWorkload> all_to_all(uint32_t endpoints) {
  wl::CollectiveSpec spec;
  spec.op = wl::Collective::kAllToAll;
  spec.algorithm = wl::Algorithm::kDirect;
  spec.bytes = uint64_t{endpoints} * 1024;
  for (uint32_t e = 0; e < endpoints; ++e) spec.members.push_back(e);
  return std::make_unique<wl::CollectiveWorkload>(
      std::vector<wl::CollectiveSpec>{spec}, endpoints, 1, 64, 1e-6, 1e9, 0,
      wl::RankLayout{wl::Mapping::linear(endpoints, endpoints), {endpoints, 1}});
}

TEST(Folding, AnAllToAllFoldsWithinTheBoundOnPairsAndNotBeyond) {
  const ResolvedConfig resolved =
      resolve_config(registry(), test::small_network_config({"torus", {{"k", "4"}, {"n", "2"}}}));
  const net::NetworkModel& network = *net::as_network(*resolved.model);
  const net::Topology& t = network.topology();
  const auto workload = all_to_all(t.num_endpoints());
  ASSERT_NE(workload->symmetry(), nullptr);
  // The representative's 15 peers, each with its 16 images under the position shifts.
  const uint64_t pairs = 15 * 16;
  const SoloTeam team;
  std::string why;
  const auto folded = Folding::build(t, network.routing(), *workload, SimTime::ns(1), hop_limit(t),
                                     team, why, pairs);
  ASSERT_NE(folded, nullptr) << why;
  EXPECT_EQ(folded->members(), 4u);  // a shift by one row of the torus
  const auto refused = Folding::build(t, network.routing(), *workload, SimTime::ns(1), hop_limit(t),
                                      team, why, pairs - 1);
  EXPECT_EQ(refused, nullptr);
  EXPECT_EQ(why, "checking the symmetry would route 240 pairs of endpoints, more than 239");
}

}  // namespace
}  // namespace hx::flow

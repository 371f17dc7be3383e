// The network components' seams: the link protocol both sides of a link consult, the element
// slot a topology chooses through, loud failures (unknown events, too many candidates) and
// checkpoint records that do not fit the component reading them; a source's message times at
// loads too small for SimTime's range.
#include <gtest/gtest.h>

#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <sstream>
#include <stdexcept>

#include "core/error.h"
#include "core/registry.h"
#include "core/state_archive.h"
#include "core/stats.h"
#include "engine/run.h"
#include "models/network/element.h"
#include "models/network/network_context.h"
#include "models/network/network_model.h"
#include "models/network/network_stats.h"
#include "models/network/routing.h"
#include "models/traffic/bernoulli_slots.h"
#include "network/small_networks.h"

namespace hx::net {
namespace {

// A gap of more slots than an int64 holds was cast to int64 (undefined; INT64_MIN here), so a
// load of 1e-300 started a message at nearly every instant: 47 M packet-hops in 5.6 us.
TEST(BernoulliSlots, GapsBeyondTheTimeRangeMeanNoFurtherMessage) {
  Rng rng(1, 0, 2);
  BernoulliSlots none(1e-300, 4, SimTime::ns(1));
  ASSERT_TRUE(none.sends());
  none.restart();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(none.next(rng).is_infinite());
  // Rare but representable: times increase, within the range.
  BernoulliSlots rare(1e-12, 4, SimTime::ns(1));
  rare.restart();
  SimTime last = SimTime::zero();
  for (int i = 0; i < 100; ++i) {
    const SimTime t = rare.next(rng);
    ASSERT_FALSE(t.is_infinite());
    EXPECT_GT(t, last);
    last = t;
  }
  EXPECT_GT(last, SimTime::ns(1000000));
}

// The warning names the signs the run showed: queues at their limit that did not grow were
// reported as "grew by 0 packets".
TEST(InstabilityWarning, NamesOnlyTheSignsSeen) {
  const auto warning = [](double growth, uint64_t refused) {
    const std::vector<SummaryValue> summary = {{"unstable", uint64_t{1}, "1", ""},
                                               {"queue_growth_packets", growth, "1", ""},
                                               {"packets_not_offered", refused, "1", ""}};
    return instability_warning(summary, 1000, RunEnd{});
  };
  const std::string full = warning(0.0, 5);
  EXPECT_EQ(full.find("grew"), std::string::npos) << full;
  EXPECT_NE(full.find("5 packets not offered at a full source queue (traffic.source_queue_limit "
                      "= 1000)"),
            std::string::npos)
      << full;
  const std::string growing = warning(240.0, 0);
  EXPECT_NE(growing.find("the source queues grew by 240 packets through the window"),
            std::string::npos)
      << growing;
  EXPECT_EQ(growing.find("not offered"), std::string::npos) << growing;
}

TEST(LinkProtocol, OnlyARouterCountsAnEndpointsCredits) {
  LinkProtocol router, endpoint;
  for (const SwitchingElement& e : standard_elements()) {
    (e.name == "router" ? router : endpoint) = e.protocol;
  }
  EXPECT_TRUE(credits_counted_by_sender(router, endpoint));
  EXPECT_FALSE(credits_counted_by_sender(endpoint, router));
  EXPECT_FALSE(credits_counted_by_sender(router, router));
  EXPECT_FALSE(credits_counted_by_sender(endpoint, endpoint));
  // An element that sinks at link rate but that nobody counts for (say an optical element
  // with no buffers) must send its credits: nothing else would.
  const LinkProtocol optical{.sinks_at_link_rate = true};
  EXPECT_FALSE(credits_counted_by_sender(endpoint, optical));
}

TEST(SwitchingElements, AnUnknownNameIsAnInputErrorNamingTheKnownOnes) {
  NetworkContext net;
  net.elements = standard_elements();
  EXPECT_EQ(net.element("router").name, "router");
  try {
    net.element("nvswitch");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'nvswitch' (known: router, endpoint)"),
              std::string::npos)
        << e.what();
  }
}

TEST(Candidates, MoreThanTheCapacityIsAnError) {
  Candidates c;
  for (std::size_t i = 0; i < Candidates::kCapacity; ++i) c.add(static_cast<PortId>(i), 0);
  EXPECT_EQ(c.size(), Candidates::kCapacity);
  EXPECT_THROW(c.add(99, 0), std::length_error);
}

// Built from the shipped small configurations: a mesh router has 5 ports, a crossbar's 8.
struct Built {
  ResolvedConfig resolved;
  StatsRegistry stats;
  std::unique_ptr<Component> router;

  explicit Built(const std::string& family) {
    const test::SmallNetwork& small = *test::find_small_network(family);
    resolved = resolve_config(test::registry(), test::small_network_config(small));
    for (const TableSpec& t : resolved.model->tables()) stats.declare(t);
    const auto& net = *as_network(*resolved.model);
    router = resolved.model->create(net.topology().router_component(0), BuildContext{1, &stats});
  }
};

std::string save(Component& c) {
  std::ostringstream bytes;
  boost::archive::binary_oarchive out(bytes, boost::archive::no_header);
  StateArchive ar(out);
  c.serialize(ar);
  return bytes.str();
}

void load(Component& c, const std::string& record) {
  std::istringstream bytes(record);
  boost::archive::binary_iarchive in(bytes, boost::archive::no_header);
  StateArchive ar(in);
  c.serialize(ar);
}

TEST(RouterRecord, RoundTripsAndRefusesAnotherShape) {
  Built mesh("mesh");
  Built mesh_again("mesh");
  Built crossbar("crossbar");
  const std::string record = save(*mesh.router);
  load(*mesh_again.router, record);
  EXPECT_EQ(save(*mesh_again.router), record);
  EXPECT_THROW(load(*crossbar.router, record), InputError);
}

TEST(RouterEvents, AnUnknownKindIsABugNotSilence) {
  Built mesh("mesh");
  EXPECT_FALSE(mesh.router->knows_event(kGenerate));
  EXPECT_TRUE(mesh.router->knows_event(kPacketArrival));
  Event e;
  e.kind = 77;
  EXPECT_THROW(mesh.router->handle(e), std::logic_error);
}

}  // namespace
}  // namespace hx::net

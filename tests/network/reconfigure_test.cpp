// Reconfiguration in the fault schedule (models/network/faults.h) on RailX's reconfigurable
// X-OCSes (railx.x_alternatives): which circuits carry traffic before, during and after a
// switch, failing a whole OCS, the routing's choice of the live configuration, and the errors.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "io/config_file.h"
#include "models/network/faults.h"
#include "models/topologies/railx/railx.h"
#include "support/input_error.h"

namespace hx::net {
namespace {

// 5 x 3 nodes of 2 x 2 chips; the X-OCSes of each row switch between torus:5 and hyperx:5 in
// 100 ns; the Y-OCSes have one configuration.
Network railx(const std::string& alternatives = "hyperx:5") {
  const TopologyFamily family = railx_family();
  Config config;
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"m", "2"},
                                                        {"n", "2"},
                                                        {"x", "torus:5"},
                                                        {"x_alternatives", alternatives},
                                                        {"y", "hyperx:3"},
                                                        {"ocs_switching", "100ns"}}) {
    config.set("railx." + key, value, "test");
  }
  return family.make(resolve_section(config, "railx", family.params, SimTime::ns(1)));
}

Faults schedule(const Topology& t, const std::string& toml) {
  const Config c = parse_config_text(toml, "f.toml");
  return Faults::build(resolve_section(c, "faults", fault_params()), t, 1, SimTime::infinity());
}

std::string error_of(const Topology& t, const std::string& toml) {
  return testing::error_of([&] { schedule(t, toml); });
}

// The directed links of each (row, configuration) of the X-OCSes.
std::map<std::pair<uint32_t, uint32_t>, std::vector<uint64_t>> circuits(const Topology& t) {
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint64_t>> out;
  std::vector<PortSpec> ports;
  for (ComponentId c = 0; c < t.num_components(); ++c) {
    ports.clear();
    t.ports(c, ports);
    for (PortId p = 0; p < ports.size(); ++p) {
      Circuit circuit;
      if (t.circuit(c, p, circuit)) {
        out[{circuit.instance, circuit.configuration}].push_back(t.first_link(c) + p);
      }
    }
  }
  return out;
}

constexpr const char* kSwitchRow1 =
    "faults.actions = [{at = \"10ns\", action = \"reconfigure\", element = \"x-ocs 1\", "
    "to = \"hyperx:5\"}]";

TEST(Reconfigure, TheLiveCircuitsGoDarkAndTheNewOnesLightAfterTheSwitchingTime) {
  const Network net = railx();
  const Topology& t = *net.topology;
  const Faults f = schedule(t, kSwitchRow1);
  const auto sets = circuits(t);
  ASSERT_EQ(sets.size(), 6u);  // 3 rows x 2 configurations
  const SimTime at = SimTime::ns(10), settled = SimTime::ns(110), end = SimTime::ns(200);
  ASSERT_EQ(f.actions().size(), 1u);
  EXPECT_EQ(f.actions()[0].element, "x-ocs 1 to hyperx:5");
  EXPECT_EQ(f.actions()[0].settled, settled);
  EXPECT_EQ(f.actions()[0].links, sets.at({1, 0}).size() + sets.at({1, 1}).size());
  EXPECT_EQ(f.change_times(), (std::vector<SimTime>{at, settled}));
  const auto none = static_cast<uint32_t>(f.actions().size());
  for (const uint64_t l : sets.at({1, 0})) {  // the rings of row 1: dark from the switch on
    EXPECT_TRUE(f.link_up(l, at - SimTime::ps(1)));
    EXPECT_FALSE(f.link_up(l, at));
    EXPECT_FALSE(f.link_up(l, end));
    EXPECT_EQ(f.down_time(l, SimTime::zero(), end), end - at);
    EXPECT_EQ(f.cause(l, at), 0u);
  }
  for (const uint64_t l : sets.at({1, 1})) {  // row 1's all-to-all circuits: lit when settled
    EXPECT_FALSE(f.link_up(l, SimTime::zero()));
    EXPECT_FALSE(f.link_up(l, settled - SimTime::ps(1)));
    EXPECT_TRUE(f.link_up(l, settled));
    EXPECT_TRUE(f.link_up_throughout(l, settled, end));
    EXPECT_FALSE(f.link_up_throughout(l, at, end));
    EXPECT_EQ(f.next_change(l, at), settled);
    EXPECT_EQ(f.cause(l, SimTime::ns(50)), 0u) << "lost waiting for the switch";
    EXPECT_EQ(f.cause(l, SimTime::ns(5)), none) << "dark before any switch";
  }
  for (const uint64_t l : sets.at({0, 0})) EXPECT_TRUE(f.link_up_throughout(l, SimTime::zero(), end));
  for (const uint64_t l : sets.at({0, 1})) {
    EXPECT_FALSE(f.link_up(l, end));
    EXPECT_TRUE(f.link_ever_down(l));
    EXPECT_EQ(f.cause(l, end), none);
  }
  EXPECT_FALSE(f.link_ever_down(t.first_link(t.router_component(0)) + 1));  // a mesh link
  EXPECT_EQ(f.configuration(0, 1, at - SimTime::ps(1)), 0u);
  EXPECT_EQ(f.configuration(0, 1, at), 1u);  // switching to it
  EXPECT_EQ(f.configuration(0, 1, end), 1u);
  EXPECT_EQ(f.configuration(0, 0, end), 0u);
}

TEST(Reconfigure, AFailedOcsDarkensEveryConfigurationUntilRepaired) {
  const Network net = railx();
  const Topology& t = *net.topology;
  const Faults f = schedule(t, R"(
faults.actions = [
  {at = "10ns", action = "fail", element = "x-ocs"},
  {at = "20ns", action = "reconfigure", element = "x-ocs", to = "hyperx:5"},
  {at = "300ns", action = "repair", element = "x-ocs"},
])");
  const auto sets = circuits(t);
  for (uint32_t row = 0; row < 3; ++row) {
    for (const uint64_t l : sets.at({row, 1})) {
      EXPECT_FALSE(f.link_up(l, SimTime::ns(200))) << "switched, but the OCS is failed";
      EXPECT_TRUE(f.link_up(l, SimTime::ns(300)));
    }
    for (const uint64_t l : sets.at({row, 0})) EXPECT_FALSE(f.link_up(l, SimTime::ns(300)));
  }
  EXPECT_EQ(f.actions()[0].links, f.actions()[2].links);
}

TEST(Reconfigure, TheRoutingStartsPacketsInTheLiveConfiguration) {
  const Network net = railx();
  const Topology& t = *net.topology;
  const Faults f = schedule(t, kSwitchRow1);
  Packet packet;
  packet.src = 20;  // node 5: row 1, column 0
  packet.dst = 28;  // node 7: row 1, column 2
  std::vector<Packet> states;
  net.routing->start_states(20, nullptr, packet, states);
  EXPECT_EQ(states.size(), 2u) << "verify sees both configurations";
  for (const auto& [time, configuration] :
       std::vector<std::pair<SimTime, uint8_t>>{{SimTime::ns(5), 0}, {SimTime::ns(50), 1}}) {
    const LinksAt view(&f, time);
    states.clear();
    net.routing->start_states(20, &view, packet, states);
    ASSERT_EQ(states.size(), 1u);
    EXPECT_EQ(states[0].route_aux, configuration);
    // From the rail chip of its first hop the packet leaves by circuits of that configuration.
    Candidates out;
    uint32_t router = 20;
    PortId in = 0;
    Packet p = states[0];
    for (int hop = 0; hop < 4; ++hop) {
      out.clear();
      net.routing->route(router, in, p, out);
      const PortSpec s = t.port(t.router_component(router), out[0].port);
      Circuit c;
      if (t.circuit(t.router_component(router), out[0].port, c)) {
        EXPECT_EQ(c.configuration, configuration);
        EXPECT_EQ(c.instance, 1u);
        if (configuration == 1) {
          EXPECT_EQ(t.node(s.peer).index / 4, 7u) << "all-to-all: direct";
        }
        break;
      }
      router = t.node(s.peer).index;
      in = s.peer_port;
    }
  }
}

TEST(Reconfigure, BadInputNamesTheLineAndTheElement) {
  const Network net = railx();
  const Topology& t = *net.topology;
  const auto reconfigure = [](const std::string& at, const std::string& element,
                              const std::string& to) {
    return "{at = \"" + at + "\", action = \"reconfigure\", element = \"" + element +
           "\", to = \"" + to + "\"}";
  };
  const auto actions = [](const std::string& list) { return "faults.actions = [" + list + "]"; };
  EXPECT_CONTAINS(error_of(t, actions(reconfigure("1ns", "x-ocs", "ring:5"))),
                  "has no configuration 'ring:5'; its configurations are torus:5, hyperx:5");
  EXPECT_CONTAINS(error_of(t, actions(reconfigure("1ns", "x-ocs", "torus:5"))),
                  "is in configuration torus:5 already");
  EXPECT_CONTAINS(error_of(t, actions(reconfigure("1ns", "x-ocs 1", "hyperx:5") + ", " +
                                      reconfigure("50ns", "x-ocs 1", "torus:5"))),
                  "is still switching to hyperx:5 until 101ns");
  EXPECT_CONTAINS(error_of(t, actions(reconfigure("1ns", "x-ocs 3", "hyperx:5"))),
                  "names instance 3; 'x-ocs' has 3 (0 to 2)");
  EXPECT_CONTAINS(error_of(t, actions(reconfigure("1ns", "router 3", "hyperx:5"))),
                  "f.toml:1: faults: 'router 3' is not reconfigurable; this topology's "
                  "reconfigurable elements are 'x-ocs' or 'x-ocs I' (I < 3; configurations "
                  "torus:5, hyperx:5)");
  EXPECT_CONTAINS(error_of(t, actions("{action = \"reconfigure\", element = \"x-ocs\"}")),
                  "reconfigure needs `to`");
  EXPECT_CONTAINS(error_of(t, actions("{element = \"x-ocs\", to = \"hyperx:5\"}")),
                  "`to` is for reconfigure actions only");
  const Network plain = railx("");
  EXPECT_CONTAINS(error_of(*plain.topology, actions(reconfigure("1ns", "x-ocs", "hyperx:5"))),
                  "this topology has no reconfigurable elements");
}

TEST(Reconfigure, ACsvFileCarriesTheConfigurationInAToColumn) {
  std::istringstream good("at,action,element,to\n10ns,reconfigure,x-ocs 1,hyperx:5\n"
                          "20ns,fail,router 1\n");
  const std::vector<FaultRow> rows = parse_faults_csv(good, "s.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].to, "hyperx:5");
  EXPECT_TRUE(rows[0].fail);
  EXPECT_EQ(rows[1].to, "");
  std::istringstream missing("at,action,element,to\n10ns,reconfigure,x-ocs\n");
  EXPECT_CONTAINS(testing::error_of([&] { parse_faults_csv(missing, "s.csv"); }),
                  "s.csv:2: reconfigure needs the configuration in the 'to' field");
  std::istringstream no_column("at,action,element\n10ns,reconfigure,x-ocs\n");
  EXPECT_CONTAINS(testing::error_of([&] { parse_faults_csv(no_column, "s.csv"); }),
                  "s.csv:2: reconfigure needs the configuration in the 'to' field");
}

}  // namespace
}  // namespace hx::net

// The fault schedule (models/network/faults.h): what each element covers, the state of a link
// over time, random picks and processes, and the errors that name the line and the element.
#include "models/network/faults.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "core/error.h"
#include "core/params.h"
#include "engine/run.h"
#include "io/config_file.h"
#include "models/network/network_model.h"
#include "models/verification/channel_graph.h"
#include "network/small_networks.h"

namespace hx::net {
namespace {

// The small Dragonfly of the network tests: p = 2, a = 4, h = 2, g = 9 (72 endpoints).
struct Dragonfly {
  ResolvedConfig resolved;
  const Topology* t;
  Dragonfly()
      : resolved(resolve_config(test::registry(),
                                test::small_network_config(*test::find_small_network("dragonfly")))),
        t(&as_network(*resolved.model)->topology()) {}
};

Faults schedule(const Topology& t, const std::string& toml, uint64_t seed = 1,
                SimTime horizon = SimTime::infinity()) {
  const Config c = parse_config_text(toml, "f.toml");
  return Faults::build(resolve_section(c, "faults", fault_params()), t, seed, horizon);
}

std::string error_of(const Topology& t, const std::string& toml) {
  try {
    schedule(t, toml);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

uint64_t link(const Topology& t, uint32_t router, PortId port) {
  return t.first_link(t.router_component(router)) + port;
}
// The link entering router `router` at `port`.
uint64_t reverse(const Topology& t, uint32_t router, PortId port) {
  const PortSpec s = t.port(t.router_component(router), port);
  return t.first_link(s.peer) + s.peer_port;
}

TEST(Faults, ARouterTakesAllItsLinksDownUntilRepaired) {
  Dragonfly d;
  const Faults f = schedule(*d.t, R"(
[[faults.actions]]
at = "10ns"
element = "router 3"
[[faults.actions]]
at = "20ns"
action = "repair"
element = "router 3"
)");
  ASSERT_EQ(f.actions().size(), 2u);
  const ComponentId r3 = d.t->router_component(3);
  std::vector<PortSpec> ports;
  d.t->ports(r3, ports);
  EXPECT_EQ(f.actions()[0].links, 2 * ports.size());
  EXPECT_EQ(f.actions()[0].origin, "f.toml:2");
  for (PortId p = 0; p < ports.size(); ++p) {
    for (const uint64_t l : {link(*d.t, 3, p), reverse(*d.t, 3, p)}) {
      EXPECT_TRUE(f.link_up(l, SimTime::ps(9999)));
      EXPECT_FALSE(f.link_up(l, SimTime::ns(10)));
      EXPECT_FALSE(f.link_up(l, SimTime::ps(19999)));
      EXPECT_TRUE(f.link_up(l, SimTime::ns(20)));
      EXPECT_EQ(f.down_time(l, SimTime::zero(), SimTime::ns(100)), SimTime::ns(10));
      EXPECT_EQ(f.next_change(l, SimTime::ns(10)), SimTime::ns(20));
      EXPECT_EQ(f.cause(l, SimTime::ns(15)), 0u);
    }
  }
  EXPECT_FALSE(f.component_up(r3, SimTime::ns(15)));
  EXPECT_TRUE(f.component_up(r3, SimTime::ns(20)));
  EXPECT_FALSE(f.link_up_throughout(link(*d.t, 3, 0), SimTime::ns(5), SimTime::ns(10)));
  EXPECT_TRUE(f.link_up_throughout(link(*d.t, 3, 0), SimTime::ns(5), SimTime::ps(9999)));
  EXPECT_TRUE(f.link_up(link(*d.t, 4, 0), SimTime::ns(15)));  // another router's terminal
  EXPECT_FALSE(f.link_ever_down(link(*d.t, 4, 0)));
}

TEST(Faults, ALinkFailsBothWaysOrOneAndOverlapsWithItsRouter) {
  Dragonfly d;
  const PortId global = 2 + 3;  // p = 2 terminals, a - 1 = 3 local ports, then globals
  const Faults f = schedule(*d.t, R"(
faults.actions = [
  {at = "10ns", element = "router 1 port 5"},
  {at = "12ns", element = "router 1 port 2 out"},
  {at = "15ns", element = "router 1"},
  {at = "20ns", action = "repair", element = "router 1 port 5"},
  {at = "30ns", action = "repair", element = "router 1"},
]
)");
  const uint64_t out = link(*d.t, 1, global), in = reverse(*d.t, 1, global);
  EXPECT_FALSE(f.link_up(out, SimTime::ns(10)));
  EXPECT_FALSE(f.link_up(in, SimTime::ns(10)));
  EXPECT_FALSE(f.link_up(link(*d.t, 1, 2), SimTime::ns(12)));
  EXPECT_TRUE(f.link_up(reverse(*d.t, 1, 2), SimTime::ns(12)));  // only "out" failed
  // Repairing the link leaves it down while its router is failed.
  EXPECT_FALSE(f.link_up(out, SimTime::ns(25)));
  EXPECT_TRUE(f.link_up(out, SimTime::ns(30)));
  EXPECT_FALSE(f.link_up(link(*d.t, 1, 2), SimTime::ns(30)));  // its own fault stays
  EXPECT_EQ(f.cause(out, SimTime::ns(25)), 2u);                // the router's
}

TEST(Faults, AGroupCoversItsComponentsAndTheLinksAroundThem) {
  Dragonfly d;
  const Faults f = schedule(*d.t, "faults.actions = [{at = \"1ns\", element = \"group 2\"}]");
  const ComponentRange g2 = d.t->group_range(0, 2);
  for (ComponentId c = g2.begin; c < g2.end; ++c) {
    EXPECT_FALSE(f.component_up(c, SimTime::ns(1)));
  }
  EXPECT_TRUE(f.component_up(g2.end, SimTime::ns(1)));
  // Group 2's routers are 8..11: their local, global and terminal links, both ways.
  std::vector<PortSpec> ports;
  for (uint32_t r = 8; r < 12; ++r) {
    ports.clear();
    d.t->ports(d.t->router_component(r), ports);
    ASSERT_EQ(ports.size(), 7u);
    for (PortId p = 0; p < ports.size(); ++p) {
      EXPECT_FALSE(f.link_up(link(*d.t, r, p), SimTime::ns(1)));
      EXPECT_FALSE(f.link_up(reverse(*d.t, r, p), SimTime::ns(1)));
    }
  }
  EXPECT_TRUE(f.link_up(link(*d.t, 0, 0), SimTime::ns(1)));
}

TEST(Faults, RandomPicksAreDistinctLinksOfTheClassFixedByTheSeed) {
  Dragonfly d;
  const std::string toml = "faults.actions = [{at = \"1us\", element = \"5 random global links\"}]";
  const Faults a = schedule(*d.t, toml, 1), b = schedule(*d.t, toml, 1), c = schedule(*d.t, toml, 2);
  ASSERT_EQ(a.actions().size(), 5u);
  std::set<std::string> names;
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(a.actions()[i].element, b.actions()[i].element);
    EXPECT_EQ(a.actions()[i].links, 2u);
    names.insert(a.actions()[i].element);
  }
  EXPECT_EQ(names.size(), 5u);
  bool differs = false;
  for (std::size_t i = 0; i < 5; ++i) differs |= a.actions()[i].element != c.actions()[i].element;
  EXPECT_TRUE(differs);
  // Each is a global port: past the 2 terminals and 3 local ports.
  for (const FaultAction& x : a.actions()) {
    const auto port = std::stoul(x.element.substr(x.element.rfind(' ') + 1));
    EXPECT_GE(port, 5u) << x.element;
  }
}

TEST(Faults, RandomPicksOfComponentsAndGroups) {
  Dragonfly d;
  const Faults f = schedule(*d.t, R"(faults.actions = [
  {at = "1us", element = "3 random routers"},
  {at = "2us", element = "2 random groups"},
  {at = "3us", element = "1 random endpoint"}])");
  ASSERT_EQ(f.actions().size(), 6u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(f.actions()[i].element.rfind("router ", 0), 0u);
  for (std::size_t i = 3; i < 5; ++i) EXPECT_EQ(f.actions()[i].element.rfind("group ", 0), 0u);
  EXPECT_EQ(f.actions()[5].element.rfind("endpoint ", 0), 0u);
  EXPECT_NE(f.actions()[3].element, f.actions()[4].element);
  // A group pick fails whole groups: 4 routers of 7 ports and 8 endpoints each.
  EXPECT_GT(f.actions()[3].links, 40u);
  // The pick keys are the same action.
  const Faults g = schedule(*d.t, "faults.pick = 2\nfaults.pick_from = \"routers\"\n"
                                  "faults.pick_at = \"5ns\"");
  ASSERT_EQ(g.actions().size(), 2u);
  EXPECT_EQ(g.actions()[0].at, SimTime::ns(5));
  EXPECT_EQ(g.actions()[0].origin, "faults.pick");
  EXPECT_EQ(g.actions()[0].element.rfind("router ", 0), 0u);
}

// A study that fails more links at each step: a later pick draws only from what is not failed
// then. Picks were drawn alone, so a later one could draw a link an earlier one had failed and
// the schedule was refused ("fails router R port P, which is already failed then") for some
// seeds. A pick that meets no failed element draws what it drew alone.
TEST(Faults, APickPassesOverWhatIsFailedThen) {
  Dragonfly d;
  const std::string all = error_of(*d.t, R"(faults.actions = [
  {at = "1us", element = "100000 random global links"}])");
  const std::size_t of = all.find(" of ");
  ASSERT_NE(of, std::string::npos) << all;
  const uint64_t global = std::stoull(all.substr(of + 4));
  ASSERT_GE(global, 4u);
  const std::string steps = "faults.actions = [{at = \"1us\", element = \"" +
                            std::to_string(global - 2) + " random global links\"}, " +
                            "{at = \"2us\", element = \"2 random global links\"}";
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const Faults f = schedule(*d.t, steps + "]", seed);
    ASSERT_EQ(f.actions().size(), global);
    std::set<std::string> names;
    for (const FaultAction& a : f.actions()) names.insert(a.element);
    EXPECT_EQ(names.size(), global);  // every global link, each once
    // The first step is what it is alone.
    const Faults alone = schedule(*d.t,
                                  "faults.actions = [{at = \"1us\", element = \"" +
                                      std::to_string(global - 2) + " random global links\"}]",
                                  seed);
    for (std::size_t i = 0; i + 2 < global; ++i) {
      EXPECT_EQ(f.actions()[i].element, alone.actions()[i].element);
    }
  }
  // With none left to draw, the pick says so.
  const std::string none =
      error_of(*d.t, steps + ", {at = \"3us\", element = \"1 random global links\"}]");
  EXPECT_NE(none.find("of which " + std::to_string(global) + " are failed then"), std::string::npos)
      << none;
}

// A pick passes over what an action after it fails by name: a pick is never repaired, so that
// action would fail a failed element, an error the seed alone decided. Picking every router but
// one, with that one failed by name later, draws the others on every seed.
TEST(Faults, APickPassesOverWhatALaterActionFails) {
  Dragonfly d;
  const uint64_t routers = d.t->num_routers();
  ASSERT_GE(routers, 4u);
  const auto actions = [](uint64_t picked) {
    return "faults.actions = [{at = \"1us\", element = \"" + std::to_string(picked) +
           " random routers\"}, {at = \"2us\", element = \"router 3\"}]";
  };
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const Faults f = schedule(*d.t, actions(routers - 1), seed);
    ASSERT_EQ(f.actions().size(), routers);
    std::set<std::string> names;
    for (const FaultAction& a : f.actions()) names.insert(a.element);
    EXPECT_EQ(names.size(), routers);  // every router, each once
    EXPECT_EQ(f.actions().back().element, "router 3");
    EXPECT_EQ(f.actions().back().at, SimTime::us(2));
  }
  const std::string none = error_of(*d.t, actions(routers));
  EXPECT_NE(none.find("of which 1 are failed then or failed by a later action"), std::string::npos)
      << none;
}

// Every partitioning level of every family can be named and picked, including levels whose
// names have several words (HammingMesh's "board row").
TEST(Faults, EveryFamilysLevelsCanBeNamedAndPicked) {
  for (const test::SmallNetwork& n : test::small_networks()) {
    SCOPED_TRACE(n.family);
    const ResolvedConfig r = resolve_config(test::registry(), test::small_network_config(n));
    const Topology& t = as_network(*r.model)->topology();
    const std::vector<GroupLevel> levels = t.group_levels();
    for (std::size_t level = 0; level < levels.size(); ++level) {
      const std::string& name = levels[level].name;
      SCOPED_TRACE(name);
      if (name == "router") continue;  // 'router N' names the component, not its group
      const uint64_t last = levels[level].count - 1;
      const std::string one = name + " " + std::to_string(last);
      const Faults f =
          schedule(t, "faults.actions = [{at = \"1ns\", element = \"" + one +
                          "\"}, {at = \"2ns\", action = \"repair\", element = \"" + one +
                          "\"}, {at = \"3ns\", element = \"1 random " + name + "s\"}]");
      ASSERT_EQ(f.actions().size(), 3u);
      EXPECT_EQ(f.actions()[0].element, one);
      EXPECT_EQ(f.actions()[2].element.rfind(name + " ", 0), 0u) << f.actions()[2].element;
      const ComponentRange range = t.group_range(level, last);
      for (ComponentId c = range.begin; c < range.end; ++c) {
        EXPECT_FALSE(f.component_up(c, SimTime::ns(1)));
        EXPECT_TRUE(f.component_up(c, SimTime::ns(2)));
      }
    }
  }
}

// Random picks name each link by its port; for every family that name must cover the link
// picked (link ids ascend with component ids, which the naming relies on).
TEST(Faults, EveryFamilysLinksAreNamedByTheirPort) {
  for (const test::SmallNetwork& n : test::small_networks()) {
    SCOPED_TRACE(n.family);
    const ResolvedConfig r = resolve_config(test::registry(), test::small_network_config(n));
    const Topology& t = as_network(*r.model)->topology();
    std::vector<std::string> classes;
    for (const LinkClass& c : t.link_classes()) classes.push_back(c.name);
    std::size_t named = 0;  // a class may have no link in the small configuration
    for (const std::string& cls : classes) {
      const Faults f = schedule(t, "faults.random = [{element = \"link\", link_class = \"" +
                                       cls + "\", mtbf = \"1ns\"}]",
                                1, SimTime::ns(1000));
      for (const FaultAction& a : f.actions()) EXPECT_EQ(a.links, 2u) << a.element;
      named += f.actions().size();
    }
    EXPECT_GT(named, 0u);
  }
}

TEST(Faults, RandomProcessesAreFixedByTheSeedAndNeedAnEnd) {
  Dragonfly d;
  const std::string toml =
      "faults.random = [{element = \"router\", mtbf = \"10us\", mttr = \"1us\"}]";
  const Faults a = schedule(*d.t, toml, 7, SimTime::us(20));
  const Faults b = schedule(*d.t, toml, 7, SimTime::us(20));
  ASSERT_GT(a.actions().size(), 10u);  // 36 routers, two failures each expected before 20us
  ASSERT_EQ(a.actions().size(), b.actions().size());
  for (std::size_t i = 0; i < a.actions().size(); ++i) {
    EXPECT_EQ(a.actions()[i].at, b.actions()[i].at);
    EXPECT_EQ(a.actions()[i].element, b.actions()[i].element);
    EXPECT_LT(a.actions()[i].at, SimTime::us(40));
  }
  EXPECT_NE(error_of(*d.t, toml).find("faults.horizon or sim.end_time"), std::string::npos);
}

// A random process may fail whole groups of a partitioning level, as picks and actions do.
TEST(Faults, RandomProcessesFailWholeLevels) {
  Dragonfly d;
  const Faults f =
      schedule(*d.t, "faults.random = [{element = \"group\", mtbf = \"10us\", mttr = \"1us\"}]", 3,
               SimTime::us(30));
  ASSERT_GT(f.actions().size(), 2u);
  for (const FaultAction& a : f.actions()) {
    EXPECT_EQ(a.element.rfind("group ", 0), 0u) << a.element;
    if (a.fail) {
      EXPECT_GT(a.links, 40u) << a.element;  // 4 routers and 8 endpoints' links
    }
  }
  const auto error = [&](const std::string& process) {
    return error_of(*d.t, "faults.horizon = \"1us\"\nfaults.random = [{" + process + "}]");
  };
  EXPECT_NE(error("element = \"groups\"").find("this topology's are router, endpoint, link, group"),
            std::string::npos)
      << error("element = \"groups\"");
  EXPECT_NE(error("element = \"link\"").find("needs link_class"), std::string::npos);
  EXPECT_NE(error("element = \"group\", link_class = \"global\"").find("is for element = 'link'"),
            std::string::npos);
}

TEST(Faults, BadInputNamesTheLineAndTheElement) {
  Dragonfly d;
  const auto expect = [&](const std::string& toml, const std::string& text) {
    const std::string e = error_of(*d.t, toml);
    EXPECT_NE(e.find(text), std::string::npos) << e;
  };
  expect("faults.actions = [{at = \"1ns\", element = \"router 36\"}]",
         "f.toml:1: faults: 'router 36' names router 36; this topology has 36 routers");
  expect("faults.actions = [{at = \"1ns\", element = \"router 2 port 9\"}]",
         "names port 9 of router 2, which has 7 ports");
  expect("faults.actions = [{at = \"1ns\", element = \"router 2 link 1\"}]",
         "expected 'router N port P' or 'router N port P out'");
  expect("faults.actions = [{at = \"1ns\", action = \"repair\", element = \"endpoint 3\"}]",
         "repairs endpoint 3, which is not failed then");
  expect("faults.actions = [{at = \"1ns\", element = \"group 1\"}, {at = \"2ns\", element = "
         "\"group 1\"}]",
         "fails group 1, which is already failed then");
  expect("faults.actions = [{at = \"1ns\", element = \"99 random global links\"}]",
         "asks for 99 of 36");
  expect("faults.actions = [{at = \"1ns\", element = \"2 random wafers\"}]",
         "picks from nothing this topology has; expected 'N random <class> links' or 'N random' "
         "one of: routers, endpoints, groups");
  // The Dragonfly calls a level "router" too: each unit is listed once.
  EXPECT_EQ(error_of(*d.t, "faults.actions = [{at = \"1ns\", element = \"2 random wafers\"}]")
                .find("groups, routers"),
            std::string::npos);
  expect("faults.actions = [{at = \"1ns\", element = \"2 random optical links\"}]",
         "names link class 'optical'; this topology's are terminal, local, global");
  expect("faults.actions = [{at = \"1ns\", element = \"switch 1\"}]", "is no element");
  expect("faults.actions = [{at = \"1ns\", action = \"switch\", element = \"router 1\"}]",
         "faults.actions[0].action");
  expect("faults.actions = [{at = \"1ns\", action = \"reconfigure\", element = \"router 1\", "
         "to = \"x\"}]",
         "'router 1' is not reconfigurable; this topology has no reconfigurable elements");
}

TEST(Faults, ACsvFileAddsActionsAndItsErrorsNameItsLines) {
  Dragonfly d;
  const std::string path = ::testing::TempDir() + "faults_test.csv";
  std::ofstream(path) << "# a comment\nat,action,element\n5ns,fail,endpoint 4\n9ns,repair,endpoint 4\n";
  const Faults f = schedule(*d.t, "faults.file = \"" + path + "\"");
  ASSERT_EQ(f.actions().size(), 2u);
  EXPECT_EQ(f.actions()[0].origin, path + ":3");
  EXPECT_FALSE(f.component_up(d.t->endpoint_component(4), SimTime::ns(5)));
  std::ofstream(path) << "at,action,element\n5ns,explode,endpoint 4\n";
  EXPECT_NE(error_of(*d.t, "faults.file = \"" + path + "\"").find(path + ":2: action 'explode'"),
            std::string::npos);
  std::ofstream(path) << "time,what\n";
  EXPECT_NE(error_of(*d.t, "faults.file = \"" + path + "\"").find("expected the header line"),
            std::string::npos);
}

}  // namespace
}  // namespace hx::net

namespace hx::net {
namespace {

// hxsim verify under faults: the graph over live links only, dead ends are lost packets (not a
// broken routing), and the fallbacks' dependencies are in it.
TEST(FaultsVerify, TheChannelGraphKeepsToLiveLinks) {
  Dragonfly d;
  const Routing& r = as_network(*d.resolved.model)->routing();
  const uint8_t vcs = as_network(*d.resolved.model)->vcs();
  const Faults f = schedule(*d.t, "faults.actions = [{at = \"0ns\", element = \"router 0\"}]");
  const LinksAt view(&f, SimTime::zero());
  DependencyCollector all(*d.t, r, vcs), live(*d.t, r, vcs);
  all.explore(0, d.t->num_endpoints());
  live.set_view(&view);
  EXPECT_NO_THROW(live.explore(0, d.t->num_endpoints()));  // endpoints 0, 1 are cut off
  const ChannelDependencies a = all.dependencies(), b = live.dependencies();
  EXPECT_LT(b.edges.size(), a.edges.size());
  std::vector<PortSpec> ports;
  d.t->ports(d.t->router_component(0), ports);
  for (const ChannelDependency& e : b.edges) {
    for (const ChannelId c : {e.from, e.to}) {
      EXPECT_TRUE(f.link_up(c / vcs, SimTime::zero())) << describe_channel(*d.t, vcs, c);
    }
  }
  EXPECT_TRUE(analyse_channel_graph(b).acyclic);
}

}  // namespace
}  // namespace hx::net

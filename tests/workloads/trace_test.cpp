// Flow traces: CSV parsing with line-numbered errors, validation of ids, endpoints, local
// dependencies and cycles, and the exact programs TraceWorkload generates.
#include "models/workloads/trace.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <tuple>

#include "support/input_error.h"

namespace hx::wl {
namespace {

using hx::testing::error_of;

std::vector<TraceFlow> parse(const std::string& text) {
  std::istringstream in(text);
  return parse_trace_csv(in, "t.csv");
}

std::string parse_error(const std::string& text) {
  return error_of([&] { parse(text); });
}

TEST(TraceCsv, ParsesFlows) {
  const auto flows = parse(
      "# a comment before the header\n"
      "id, src, dst, bytes, start, deps\n"
      "\n"
      "7,0,1,100,0,\n"
      "  # an indented comment\n"
      "8,1,0,64KiB,2us,7\r\n"
      "9,1,1,1MB,1.5ns,7;8 3\n");
  ASSERT_EQ(flows.size(), 3u);
  EXPECT_EQ(flows[0].id, 7u);
  EXPECT_EQ(flows[0].src, 0u);
  EXPECT_EQ(flows[0].dst, 1u);
  EXPECT_EQ(flows[0].bytes, 100u);
  EXPECT_EQ(flows[0].start_ps, 0);
  EXPECT_TRUE(flows[0].deps.empty());
  EXPECT_EQ(flows[0].row, 4u);
  EXPECT_EQ(flows[1].bytes, 65536u);
  EXPECT_EQ(flows[1].start_ps, 2'000'000);
  EXPECT_EQ(flows[1].deps, std::vector<uint64_t>{7});
  EXPECT_EQ(flows[1].row, 6u);
  EXPECT_EQ(flows[2].bytes, 1'000'000u);
  EXPECT_EQ(flows[2].start_ps, 1500);
  EXPECT_EQ(flows[2].deps, (std::vector<uint64_t>{7, 8, 3}));
}

TEST(TraceCsv, HeaderOnlyIsEmpty) { EXPECT_TRUE(parse("id,src,dst,bytes,start,deps\n").empty()); }

TEST(TraceCsv, RejectsMalformedLines) {
  const std::string head = "id,src,dst,bytes,start,deps\n1,0,1,10,0,\n";
  EXPECT_CONTAINS(parse_error(""), "t.csv: no header line 'id,src,dst,bytes,start,deps'");
  EXPECT_CONTAINS(parse_error("1,0,1,10,0,\n"), "t.csv:1: expected the header line");
  EXPECT_CONTAINS(parse_error(head + "2,0,1,10,0\n"), "t.csv:3: expected 6 fields");
  EXPECT_CONTAINS(parse_error(head + "2,0,1,10,0\n"), "found 5");
  EXPECT_CONTAINS(parse_error(head + "\n2,0,1,10,0,,\n"), "t.csv:4: expected 6 fields");
  EXPECT_CONTAINS(parse_error(head + "2x,0,1,10,0,\n"), "t.csv:3: id '2x' is not an integer");
  EXPECT_CONTAINS(parse_error(head + "2,-1,1,10,0,\n"), "t.csv:3: src '-1' is not an integer");
  EXPECT_CONTAINS(parse_error(head + "2,0,,10,0,\n"), "t.csv:3: dst '' is not an integer");
  EXPECT_CONTAINS(parse_error(head + "2,0,4294967296,10,0,\n"),
                  "t.csv:3: dst 4294967296 is not an endpoint index");
  EXPECT_CONTAINS(parse_error(head + "2,0,1,-10,0,\n"), "t.csv:3: bytes '-10' is negative");
  EXPECT_CONTAINS(parse_error(head + "2,0,1,10parsecs,0,\n"),
                  "t.csv:3: bytes: '10parsecs' is not a byte count");
  EXPECT_CONTAINS(parse_error(head + "2,0,1,10,10xs,\n"), "t.csv:3: start: '10xs' is not a time");
  EXPECT_CONTAINS(parse_error(head + "2,0,1,10,10,\n"),
                  "t.csv:3: start: '10' has no unit; expected a number with a unit: ps, ns, us, "
                  "ms or s");
  EXPECT_CONTAINS(parse_error(head + "2,0,1,10,-5ns,\n"), "t.csv:3: start: '-5ns' is negative");
  EXPECT_CONTAINS(parse_error(head + "2,0,1,10,inf,\n"),
                  "t.csv:3: start 'inf' is not a finite time");
  EXPECT_CONTAINS(parse_error(head + "2,0,1,10,3cycles,\n"), "take ps, ns, us, ms or s");
  EXPECT_CONTAINS(parse_error(head + "2,0,1,10,0,1;x\n"),
                  "t.csv:3: dependency 'x' is not an integer");
}

// A flow whose row is its id + 1 (as if the CSV had it on that line after the header).
TraceFlow flow(uint64_t id, uint32_t src, uint32_t dst, std::vector<uint64_t> deps = {},
               int64_t start_ps = 0, uint64_t bytes = 100) {
  return TraceFlow{id, src, dst, bytes, start_ps, std::move(deps), id + 1};
}

std::string validate_error(std::vector<TraceFlow> flows, uint32_t endpoints = 4) {
  return error_of([&] { validate_trace(flows, endpoints, 8, "t.csv"); });
}

TEST(TraceValidation, AcceptsAndNormalisesDeps) {
  std::vector<TraceFlow> flows = {flow(1, 0, 1), flow(2, 1, 0), flow(3, 0, 2, {2, 1, 2, 1})};
  validate_trace(flows, 4, 8, "t.csv");
  EXPECT_EQ(flows[2].deps, (std::vector<uint64_t>{1, 2}));
}

TEST(TraceValidation, RejectsBadFlows) {
  EXPECT_CONTAINS(validate_error({flow(1, 0, 1), flow(2, 4, 1)}),
                  "t.csv:3: flow 2: src 4 is not an endpoint; the network has 4 endpoints "
                  "(0 to 3)");
  EXPECT_CONTAINS(validate_error({flow(1, 0, 9)}), "t.csv:2: flow 1: dst 9 is not an endpoint");
  EXPECT_CONTAINS(validate_error({flow(1, 0, 1, {}, 0, 0)}), "t.csv:2: flow 1: bytes is 0");
  // 2^64 - 7 bytes: rounded up to 8-byte flits it would wrap to a message of 0 flits.
  EXPECT_CONTAINS(validate_error({flow(1, 0, 1, {}, 0, ~uint64_t{0} - 6)}),
                  "t.csv:2: flow 1: bytes 18446744073709551609 is more than a message carries: "
                  "at most 4294967295 flits of 8 bytes");
  EXPECT_CONTAINS(validate_error({flow(1, 0, 1, {}, 0, 8 * uint64_t{0xFFFFFFFF} + 1)}),
                  "more than a message carries");
  EXPECT_EQ(validate_error({flow(1, 0, 1, {}, 0, 8 * uint64_t{0xFFFFFFFF})}), "");
  EXPECT_CONTAINS(validate_error({flow(1, 0, 1, {}, -5000)}),
                  "t.csv:2: flow 1: start -5ns is negative");
  std::vector<TraceFlow> dup = {flow(1, 0, 1), flow(2, 0, 1), flow(1, 0, 1)};
  dup[2].row = 9;
  EXPECT_CONTAINS(validate_error(dup), "t.csv:9: flow 1: duplicate id; flow 1 at row 2 has it");
  EXPECT_CONTAINS(validate_error({flow(1, 0, 1, {5})}),
                  "t.csv:2: flow 1: depends on flow 5, which is not in the trace");
  EXPECT_CONTAINS(validate_error({flow(1, 0, 1, {1})}), "t.csv:2: flow 1: depends on itself");
}

TEST(TraceValidation, RejectsDependenciesAwayFromTheSource) {
  // Flow 2 starts at 2; flow 1 goes 0 -> 1 and never touches endpoint 2.
  const std::string message = validate_error({flow(1, 0, 1), flow(2, 2, 3, {1})});
  EXPECT_CONTAINS(message,
                  "t.csv:3: flow 2: depends on flow 1 (row 2, 0 -> 1), which neither starts nor "
                  "ends at its source endpoint 2");
  EXPECT_CONTAINS(message, "done when their last flit has left");
  // Waiting for a flow the source received or sent is fine.
  EXPECT_EQ(validate_error({flow(1, 0, 1), flow(2, 1, 3, {1}), flow(3, 1, 2, {2})}), "");
}

TEST(TraceValidation, ReportsTheCycle) {
  EXPECT_CONTAINS(
      validate_error({flow(0, 3, 2), flow(4, 0, 1, {9}), flow(9, 0, 2, {7}), flow(7, 0, 3, {4})}),
      "t.csv:5: flow 4: dependency cycle: 4 -> 9 -> 7 -> 4 (each flow waits for "
      "the next)");
  // Across endpoints: flow 1 (0 -> 1) waits for flow 2 (1 -> 0), received at 0, and flow 2
  // waits for flow 1, received at 1. Neither can start.
  EXPECT_CONTAINS(validate_error({flow(1, 0, 1, {2}), flow(2, 1, 0, {1})}),
                  "flow 1: dependency cycle: 1 -> 2 -> 1");
}

// A long chain bouncing between two endpoints, closed into a cycle or not: no recursion, and
// the cycle message stays short.
TEST(TraceValidation, HandlesAMillionFlows) {
  constexpr uint64_t n = 1'000'000;
  std::vector<TraceFlow> flows;
  flows.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    flows.push_back(flow(i, i % 2, (i + 1) % 2,
                         i == 0 ? std::vector<uint64_t>{} : std::vector<uint64_t>{i - 1}));
  }
  std::vector<TraceFlow> chain = flows;
  validate_trace(chain, 2, 8, "t.csv");
  const TraceWorkload workload(chain, 2);
  Program p;
  workload.generate(1, 0, p);
  EXPECT_EQ(p.size(), n);
  flows[0].deps = {n - 1};
  const std::string message = validate_error(flows, 2);
  EXPECT_CONTAINS(message, "dependency cycle: ");
  EXPECT_CONTAINS(message, "(1000000 flows)");
  EXPECT_LT(message.size(), 400u);
}

struct Want {
  OpKind kind;
  uint32_t peer;
  uint64_t bytes;
  uint32_t tag;
  int64_t ps;
  std::vector<uint32_t> deps;
};

void expect_program(const TraceWorkload& w, uint32_t e, const std::vector<Want>& want) {
  SCOPED_TRACE("endpoint " + std::to_string(e));
  ASSERT_EQ(w.phases(e), 1u);
  Program p;
  w.generate(e, 0, p);
  ASSERT_EQ(p.size(), want.size());
  for (uint32_t i = 0; i < p.size(); ++i) {
    SCOPED_TRACE("op " + std::to_string(i));
    const Op& op = p.ops[i];
    EXPECT_EQ(op.kind, want[i].kind);
    EXPECT_EQ(op.group, 0u);
    EXPECT_EQ(op.compute_ps, want[i].ps);
    const std::vector<uint32_t> deps(p.deps_of(i).begin(), p.deps_of(i).end());
    EXPECT_EQ(deps, want[i].deps);
    for (uint32_t d : deps) EXPECT_LT(d, i);
    if (op.kind == OpKind::kSend || op.kind == OpKind::kRecv) {
      EXPECT_EQ(op.peer, want[i].peer);
      EXPECT_EQ(op.bytes, want[i].bytes);
      EXPECT_EQ(op.tag, want[i].tag);
    }
  }
}

TEST(TraceWorkload, GeneratesLocalPrograms) {
  // Index: id src -> dst, bytes, start, deps.
  std::vector<TraceFlow> flows = {
      flow(10, 0, 1, {}, 0, 100),        // 0
      flow(20, 1, 2, {10}, 0, 200),      // 1: waits for the recv of 10 at 1
      flow(30, 2, 2, {20}, 5000, 50),    // 2: self-message, after 5 ns and the recv of 20
      flow(40, 2, 0, {30, 20}, 0, 300),  // 3: the send of 30 and the recv of 20
      flow(5, 0, 1, {10}, 1000, 60),     // 4: after 1 ns and the send of 10
      flow(1, 1, 0, {7}, 0, 70),         // 5: waits for a flow listed after it
      flow(7, 1, 0, {}, 0, 80),          // 6
  };
  validate_trace(flows, 4, 8, "t.csv");
  const TraceWorkload w(flows, 4);
  ASSERT_EQ(w.groups().size(), 1u);
  EXPECT_EQ(w.groups()[0].name, "trace");
  EXPECT_EQ(w.phases(3), 0u);
  EXPECT_EQ(w.phases(4), 0u);
  const auto kSend = OpKind::kSend;
  const auto kRecv = OpKind::kRecv;
  const auto kDelay = OpKind::kDelay;
  expect_program(w, 0,
                 {{kSend, 1, 100, 0, 0, {}},
                  {kRecv, 1, 80, 6, 0, {}},
                  {kDelay, 0, 0, 0, 1000, {}},
                  {kSend, 1, 60, 4, 0, {2, 0}},
                  {kRecv, 1, 70, 5, 0, {}},
                  {kRecv, 2, 300, 3, 0, {}}});
  expect_program(w, 1,
                 {{kRecv, 0, 100, 0, 0, {}},
                  {kSend, 0, 80, 6, 0, {}},
                  {kSend, 2, 200, 1, 0, {0}},
                  {kRecv, 0, 60, 4, 0, {}},
                  {kSend, 0, 70, 5, 0, {1}}});
  expect_program(w, 2,
                 {{kRecv, 1, 200, 1, 0, {}},
                  {kDelay, 0, 0, 0, 5000, {}},
                  {kSend, 2, 50, 2, 0, {1, 0}},
                  {kRecv, 2, 50, 2, 0, {}},
                  {kSend, 0, 300, 3, 0, {0, 2}}});
}

// Every send has exactly one matching recv (source, destination, tag, bytes) and vice versa.
TEST(TraceWorkload, SendsAndRecvsMatch) {
  std::vector<TraceFlow> flows = {flow(1, 0, 1), flow(2, 1, 2, {1}), flow(3, 2, 3, {2}),
                                  flow(4, 3, 0, {3}), flow(5, 0, 0, {4}, 7000)};
  validate_trace(flows, 4, 8, "t.csv");
  const TraceWorkload w(flows, 4);
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, int64_t> balance;  // bytes sent - received
  for (uint32_t e = 0; e < 4; ++e) {
    Program p;
    w.generate(e, 0, p);
    for (const Op& op : p.ops) {
      if (op.kind == OpKind::kSend) balance[{e, op.peer, op.tag}] += op.bytes;
      if (op.kind == OpKind::kRecv) balance[{op.peer, e, op.tag}] -= op.bytes;
    }
  }
  EXPECT_EQ(balance.size(), flows.size());
  for (const auto& [key, bytes] : balance) EXPECT_EQ(bytes, 0);
}

}  // namespace
}  // namespace hx::wl

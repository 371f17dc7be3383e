// llm.dp_overlap at flow level (docs/workloads/llm.md): on a rail-only network whose TP groups
// are its HB domains, the DP rings run on the rails alone, so the all-reduces of each layer
// hide behind the backward pass of the layers before it: the iteration must be shorter than
// with the all-reduces after the pass. Measured: 749.3 us against 838.7 us (DP exposed 45.7 us
// against 135.0 us: layer 0's all-reduces and DP VOC start once the pass is over).
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "core/params.h"
#include "network/small_networks.h"
#include "support/run_summary.h"

namespace hx {
namespace {

Config rail_only_llm(bool overlap) {
  Config c;
  const std::pair<const char*, const char*> settings[] = {
      {"sim.model", "rail_only"},
      {"sim.fidelity", "flow"},
      {"rail_only.gpus", "64"},
      {"rail_only.hb_size", "16"},
      {"rail_only.radix", "8"},
      {"rail_only.nic_speed", "0.78125"},
      {"rail_only.rail_speed", "0.78125"},
      {"rail_only.hb_speed", "14.0625"},
      {"rail_only.endpoint_speed", "14.84375"},
      {"traffic.flows", "none"},
      {"workload.kind", "llm"},
      {"llm.preset", "gpt3-175b"},
      {"llm.layers", "4"},
      {"llm.hidden", "256"},
      {"llm.ffn", "1024"},
      {"llm.heads", "16"},
      {"llm.kv_heads", "16"},
      {"llm.vocab", "1024"},
      {"llm.seq", "128"},
      {"llm.tp", "16"},
      {"llm.dp", "4"},
      {"llm.micro_batches", "2"},
      {"llm.chip_flops", "5e11"},
  };
  for (const auto& [key, value] : settings) c.set(key, value, "test");
  c.set("llm.dp_overlap", overlap ? "true" : "false", "test");
  return c;
}

TEST(LlmOverlap, DpAllReducesHideBehindTheBackwardPass) {
  const auto apart = testing::run_summary(test::registry(), rail_only_llm(false));
  const auto beside = testing::run_summary(test::registry(), rail_only_llm(true));
  ASSERT_EQ(testing::summary_value(apart, "workload_complete"), 1);
  ASSERT_EQ(testing::summary_value(beside, "workload_complete"), 1);
  EXPECT_LT(testing::summary_value(beside, "workload_end_ps"),
            testing::summary_value(apart, "workload_end_ps"));
}

}  // namespace
}  // namespace hx

// Configs built into the executable: the quickstart that `hxsim run` uses without a config, and
// the named benchmarks of `hxsim bench`. configs/ holds the same texts as files.
#pragma once

#include <string>

namespace hx {

/// PHOLD, 16,384 LPs in 64 groups, 2 us of simulated time: about 3 million events.
inline constexpr const char* kQuickstartConfig = R"(# hxsim quickstart: PHOLD on 16,384 LPs
[sim]
model = "phold"
end_time = "2us"
seed = 1

[phold]
lps = 16384
group_size = 256
neighbors = 2
remote_probability = 0.05
mean_delay = "10ns"
link_latency = "100ns"
)";

/// The engine benchmark of issue #2: 100,000 LPs, 1% remote events, lookahead = 100 x the mean
/// event spacing of an LP.
inline constexpr const char* kBenchPholdConfig = R"(# hxsim bench phold
[sim]
model = "phold"
end_time = "500ns"
seed = 1

[phold]
lps = 100000
group_size = 1000
neighbors = 4
remote_probability = 0.01
mean_delay = "1ns"
link_latency = "100ns"
)";

}  // namespace hx

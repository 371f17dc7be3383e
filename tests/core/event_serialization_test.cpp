// Events survive a Boost binary archive round trip byte for byte (the cross-rank and checkpoint
// format), including their payloads.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/vector.hpp>

#include "core/event.h"

namespace hx {
namespace {

struct SamplePayload {
  uint64_t a;
  int32_t b;
  uint16_t c;
  double d;
};

// Events cross ranks and enter checkpoints as bytes, so a payload smaller than the event's
// space must leave the rest defined (zero), whatever the event held before.
TEST(EventSerialization, SetPayloadZeroesTheRestOfThePayload) {
  Event e;
  e.payload.fill(std::byte{0xAB});
  e.set_payload(uint32_t{5});
  EXPECT_EQ(e.payload_as<uint32_t>(), 5u);
  for (std::size_t i = sizeof(uint32_t); i < Event::kPayloadBytes; ++i) {
    EXPECT_EQ(e.payload[i], std::byte{0}) << "byte " << i;
  }
}

TEST(EventSerialization, BatchRoundTripsExactly) {
  std::vector<Event> events;
  for (uint32_t i = 0; i < 257; ++i) {
    Event e;
    e.key = EventKey{SimTime::ps(1000 + i), i % 7, i % 11, i * 3ULL};
    e.port = static_cast<PortId>(i % 5);
    e.kind = static_cast<uint16_t>(i % 3);
    e.set_payload(SamplePayload{i * 1234567ULL, -static_cast<int32_t>(i), 7, i * 0.5});
    events.push_back(e);
  }
  std::stringstream buffer;
  {
    boost::archive::binary_oarchive out(buffer);
    out << events;
  }
  std::vector<Event> back;
  boost::archive::binary_iarchive in(buffer);
  in >> back;
  ASSERT_EQ(back.size(), events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(back[i].key, events[i].key);
    EXPECT_EQ(back[i].port, events[i].port);
    EXPECT_EQ(back[i].kind, events[i].kind);
    const auto p = back[i].payload_as<SamplePayload>();
    const auto q = events[i].payload_as<SamplePayload>();
    EXPECT_EQ(p.a, q.a);
    EXPECT_EQ(p.b, q.b);
    EXPECT_EQ(p.c, q.c);
    EXPECT_EQ(p.d, q.d);
  }
}

TEST(EventSerialization, EmptyBatchRoundTrips) {
  std::vector<Event> events, back(3);
  std::stringstream buffer;
  {
    boost::archive::binary_oarchive out(buffer);
    out << events;
  }
  boost::archive::binary_iarchive in(buffer);
  in >> back;
  EXPECT_TRUE(back.empty());
}

}  // namespace
}  // namespace hx

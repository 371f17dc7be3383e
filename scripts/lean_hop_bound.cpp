// What a stripped-down packet-level hop costs on this machine: a bound for the per-core speed
// of a lean router and engine design, not a model (docs/performance/engine.md, "What bounds a
// core"). Build and run:
//   g++ -O3 -std=c++20 scripts/lean_hop_bound.cpp -o /tmp/lean_hop_bound
//   /tmp/lean_hop_bound [LOAD=0.025] [CYCLES=15000] [FLAGS=0]
// (with -DLEAN_SHAPE=8,8,16 for another torus, e.g. one whose state stays in the caches)
// FLAGS, added together:
//   1 sorts each cycle's events by (router, kind, port, VC) with a counting pass over the
//     routers, as an order independent of the rank count would need;
//   2 keeps per-link packet, flit and busy counters;
//   4 carries packets by value, in hxsim's sizes, instead of by handle: 64 bytes inline in a
//     96-byte event, copied into an input queue whose front slot (80 bytes: the packet and two
//     times) lives in the queue object, the rest in a ring allocated at the first second packet
//     (models/network/packet.h, src/core/event.h, models/components/ring_queue.h);
//   8 queues events as hxsim's engine does: each is written into a reused 96-byte slot of a
//     pool, the calendar holds 32-byte entries naming the slots, and an event is copied out of
//     its slot to be handled (src/core/event_queue.h);
//   16 allocates as hxsim's input-queued router does (models/components/router.cpp): minimal
//     adaptive routing (each productive dimension a candidate, the one with the most credits
//     taken), separable allocation iterated within the cycle (each free input proposes the head
//     of one VC, round robin; each output VC picks an input at or after its own pointer, each
//     output grants a pick at or after the port's pointer), stall times, a per-router count of
//     the packets held and moved, and one pending wake-up per router at the time its first
//     obstacle clears instead of a look every cycle.
// The combinations of flags 1, 2, 4 and 8 carry the same packets over the same links, with and
// without 16.
//
// The system is benchmark 1's size: a 17 x 17 x 18 torus (5,202 routers, 6 ports and one
// endpoint each, about 15 links per packet, as benchmark 1's 14.2), dimension-order routing,
// 4 VCs of 32 flits per port, 4-flit packets, 1-cycle links and pipeline, uniform traffic of
// Bernoulli packets at LOAD flits/cycle per endpoint. What it leaves out, against hxsim's
// routers: deadlock avoidance (no dateline VCs: keep the load low), faults, the measurement
// window, endpoints as components (injection is an arrival at the router, ejection needs no
// credits), and every model beyond this one; without flag 16 also allocation by credits over
// several candidates, the second arbitration stage and the stall statistics.
//
// The design it measures without flags: events are 12 bytes (router, kind, port, VC, packet
// handle) in a calendar of one bucket per cycle; packets stay in a pool and queues hold their
// handles; a router's state is one small struct; each cycle applies its events in any order,
// then runs one allocation per router that received any (events of one router in one cycle
// commute, and routers do not read each other's state, so the order does not change the result).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <type_traits>
#include <vector>

namespace {

// The torus: benchmark 1's size unless built with -DLEAN_SHAPE=X,Y,Z.
#ifndef LEAN_SHAPE
#define LEAN_SHAPE 17, 17, 18
#endif
constexpr int kShape[3] = {LEAN_SHAPE};
constexpr int kX = kShape[0], kY = kShape[1], kZ = kShape[2], kRouters = kX * kY * kZ;
constexpr int kPorts = 7;  // 0: the endpoint; 1..6: +x -x +y -y +z -z
constexpr int kVcs = 4, kBuffer = 32, kFlits = 4, kWheel = 64, kLink = 1, kPipeline = 1;
constexpr int kQueued = kBuffer / kFlits;  // packets an input VC holds at most
constexpr std::size_t kHxEventBytes = 96;  // sizeof(hx::Event)
constexpr uint32_t kNever = UINT32_MAX;

struct Packet {
  uint32_t dst;
  uint32_t created;
};
enum Kind : uint8_t { kArrival, kCredit, kWake };
struct Event {
  uint32_t router;
  Kind kind;
  uint8_t port, vc, unused;
  uint32_t value;  // an arrival's packet handle, a credit's flits
};
struct Empty {};
struct Blocked {  // FLAGS 16: when the head's outputs are all busy, the first frees
  uint32_t until = 0;
};
template <bool kHx>
struct Queue {  // one input VC: a ring of packet handles
  uint32_t handle[kQueued];
  uint8_t head = 0, size = 0;
  [[no_unique_address]] std::conditional_t<kHx, Blocked, Empty> blocked;
};

// FLAGS 4: the packet by value, in hxsim's sizes.
struct FatPacket {
  uint32_t dst;
  uint32_t created;
  uint8_t rest[56];  // hxsim's packet is 64 bytes
};
struct FatEvent {  // a 32-byte header (hxsim's key, port, kind and index), the packet
  uint32_t router;
  Kind kind;
  uint8_t port, vc, unused;
  uint32_t value;  // a credit's flits
  uint8_t header[20];
  FatPacket packet;
};
static_assert(sizeof(FatEvent) == kHxEventBytes);
class alignas(64) FatQueue {  // as RingQueue<Router::Waiting>
 public:
  struct Slot {
    uint64_t blocked, tail;
    FatPacket packet;
  };
  uint32_t size() const { return size_; }
  Slot& front() { return front_; }
  void push_back(const Slot& s) {
    if (size_ > 0) {
      if (!behind_) behind_ = std::make_unique<Slot[]>(kQueued);
      behind_[(head_ + size_ - 1) % kQueued] = s;
    } else {
      front_ = s;
    }
    ++size_;
  }
  void pop_front() {
    if (--size_ == 0) return;
    front_ = behind_[head_];
    head_ = (head_ + 1) % kQueued;
  }

 private:
  uint32_t head_ = 0, size_ = 0;  // head_: the ring slot of the second packet
  std::unique_ptr<Slot[]> behind_;
  Slot front_{};
};

struct HxState {                             // FLAGS 16: what hxsim's router keeps beside the above
  uint8_t next_input[kPorts] = {};           // per output: the port's round-robin pointer
  uint8_t vc_next_input[kPorts][kVcs] = {};  // per output VC: its own pointer
  uint32_t wake_at = 0;                      // the pending wake-up, 0: none
  uint32_t stall_since[kPorts];              // kNever: not stalled
  uint64_t stall[kPorts] = {};               // cycles outputs waited for credits
  uint32_t held = 0, last_move = 0;          // for the watchdog
  uint64_t sent = 0;
  HxState() { std::fill(std::begin(stall_since), std::end(stall_since), kNever); }
};
template <bool kHx>
struct Router {
  uint32_t busy = 0;  // bit per input port holding packets
  uint8_t busy_vcs[kPorts] = {};
  uint8_t next_vc[kPorts] = {};
  uint8_t credits[kPorts][kVcs];
  bool listed = false;  // in this cycle's allocation list
  uint32_t output_free[kPorts] = {};
  uint32_t input_free[kPorts] = {};
  [[no_unique_address]] std::conditional_t<kHx, HxState, Empty> hx;
};
struct LinkCounters {
  uint64_t packets = 0, flits = 0, busy = 0;
};
// FLAGS 8: what the calendar holds for an event in a pool slot, as EventQueue's entries.
struct Entry {
  uint64_t time;
  uint64_t key;  // the sort key
  uint64_t seq;
  uint32_t slot;
  uint32_t router;
};

// A slot of `pool`: the last freed, or a new one.
template <class T>
uint32_t take(std::vector<T>& pool, std::vector<uint32_t>& free) {
  if (free.empty()) {
    pool.emplace_back();
    return static_cast<uint32_t>(pool.size() - 1);
  }
  const uint32_t slot = free.back();
  free.pop_back();
  return slot;
}

uint64_t sort_key(uint32_t router, Kind kind, uint8_t port, uint8_t vc) {
  return uint64_t{router} << 24 | uint64_t{kind} << 16 | uint64_t{port} << 8 | vc;
}

template <bool kFat, bool kHx>
struct Sim {
  using Ev = std::conditional_t<kFat, FatEvent, Event>;
  using Q = std::conditional_t<kFat, FatQueue, Queue<kHx>>;
  using R = Router<kHx>;
  struct PoolSlot {  // an event in hxsim's event size
    Ev event;
    std::array<uint8_t, kHxEventBytes - sizeof(Ev)> rest;
  };
  std::vector<R> routers = std::vector<R>(kRouters);
  std::vector<Q> queues = std::vector<Q>(size_t{kRouters} * kPorts * kVcs);
  std::vector<LinkCounters> links = std::vector<LinkCounters>(size_t{kRouters} * kPorts);
  std::vector<Packet> packets;  // by handle
  std::vector<uint32_t> free_handles;
  std::vector<Ev> wheel[kWheel];
  std::vector<Entry> entries[kWheel];  // FLAGS 8: the calendar of pool slots
  std::vector<PoolSlot> event_pool;
  std::vector<uint32_t> free_slots;
  std::vector<uint32_t> to_allocate;
  std::vector<uint32_t> counts;
  struct Request {  // FLAGS 16
    uint8_t input, vc, output;
  };
  std::vector<Request> requests;
  int8_t grant[kPorts], vc_grant[kPorts][kVcs];  // the request granted, -1: none
  uint64_t links_crossed = 0, delivered = 0, arrivals = 0;
  bool sort_cycles = false, count_links = false, pooled = false;

  Q& queue(uint32_t r, int port, int vc) { return queues[(size_t{r} * kPorts + port) * kVcs + vc]; }
  // An event to fill in, due at `at`, for `router` (with FLAGS 8 in a pool slot).
  Ev& post(uint32_t at, uint32_t router, Kind kind, int port, int vc) {
    Ev* e;
    if (pooled) {
      const uint32_t slot = take(event_pool, free_slots);
      event_pool[slot] = PoolSlot{};  // hxsim's events are zeroed beyond their payload
      entries[at % kWheel].push_back(
          {at, sort_key(router, kind, static_cast<uint8_t>(port), static_cast<uint8_t>(vc)), 0,
           slot, router});
      e = &event_pool[slot].event;
    } else {
      e = &wheel[at % kWheel].emplace_back();
    }
    e->router = router;
    e->kind = kind;
    e->port = static_cast<uint8_t>(port);
    e->vc = static_cast<uint8_t>(vc);
    return *e;
  }
  void list(uint32_t r) {
    if (!routers[r].listed) {
      routers[r].listed = true;
      to_allocate.push_back(r);
    }
  }

  static void place(uint32_t r, int& x, int& y, int& z) {
    x = static_cast<int>(r % kX);
    y = static_cast<int>(r / kX % kY);
    z = static_cast<int>(r / (kX * kY));
  }
  static uint32_t neighbour(uint32_t r, int port) {
    int x, y, z;
    place(r, x, y, z);
    switch (port) {
      case 1:
        x = (x + 1) % kX;
        break;
      case 2:
        x = (x + kX - 1) % kX;
        break;
      case 3:
        y = (y + 1) % kY;
        break;
      case 4:
        y = (y + kY - 1) % kY;
        break;
      case 5:
        z = (z + 1) % kZ;
        break;
      default:
        z = (z + kZ - 1) % kZ;
        break;
    }
    return static_cast<uint32_t>(x + kX * (y + kY * z));
  }
  static int back(int port) { return port % 2 == 1 ? port + 1 : port - 1; }
  // FLAGS 16: the productive ports of each dimension (the shorter way round), or the endpoint.
  static int candidates(uint32_t r, uint32_t dst, int* ports) {
    int x, y, z, a, b, c;
    place(r, x, y, z);
    place(dst, a, b, c);
    int n = 0;
    if (x != a) ports[n++] = (a - x + kX) % kX <= kX / 2 ? 1 : 2;
    if (y != b) ports[n++] = (b - y + kY) % kY <= kY / 2 ? 3 : 4;
    if (z != c) ports[n++] = (c - z + kZ) % kZ <= kZ / 2 ? 5 : 6;
    if (n == 0) ports[n++] = 0;
    return n;
  }
  // Dimension order, the shorter way round; 0 at the destination's router.
  static int route(uint32_t r, uint32_t dst) {
    int x, y, z, a, b, c;
    place(r, x, y, z);
    place(dst, a, b, c);
    if (x != a) return (a - x + kX) % kX <= kX / 2 ? 1 : 2;
    if (y != b) return (b - y + kY) % kY <= kY / 2 ? 3 : 4;
    if (z != c) return (c - z + kZ) % kZ <= kZ / 2 ? 5 : 6;
    return 0;
  }

  uint32_t head_dst(uint32_t r, int in, int vc) {
    Q& q = queue(r, in, vc);
    if constexpr (kFat) {
      return q.front().packet.dst;
    } else {
      return packets[q.handle[q.head]].dst;
    }
  }

  // Sends the head of (in, vc) through `out`: the tail leaves kFlits cycles on, its space goes
  // back upstream then.
  void forward(R& s, uint32_t r, int in, int vc, int out, uint32_t now) {
    Q& q = queue(r, in, vc);
    uint32_t handle = 0;
    [[maybe_unused]] FatPacket packet;
    if constexpr (!kFat) handle = q.handle[q.head];
    uint32_t left;
    if constexpr (kFat) {
      packet = q.front().packet;  // copied out: the pop overwrites it, as in Router::forward
      q.pop_front();
      left = q.size();
    } else {
      q.head = static_cast<uint8_t>((q.head + 1) % kQueued);
      left = --q.size;
    }
    if (left == 0) {
      s.busy_vcs[in] &= static_cast<uint8_t>(~(1u << vc));
      if (s.busy_vcs[in] == 0) s.busy &= ~(1u << in);
    }
    s.output_free[out] = now + kFlits;
    s.input_free[in] = now + kFlits;
    s.next_vc[in] = static_cast<uint8_t>((vc + 1) % kVcs);
    ++links_crossed;
    if (count_links) {
      LinkCounters& l = links[size_t{r} * kPorts + out];
      ++l.packets;
      l.flits += kFlits;
      l.busy += kFlits;
    }
    if (in != 0) {  // the space frees as the tail leaves; endpoints need no credits
      post(now + kFlits + kLink, neighbour(r, in), kCredit, back(in), vc).value = kFlits;
    }
    if (out == 0) {
      ++delivered;
      // Which packet arrived when, in any order of a cycle's deliveries.
      const Packet& p = kFat ? Packet{packet.dst, packet.created} : packets[handle];
      arrivals += mix(uint64_t{p.created} << 40 ^ uint64_t{p.dst} << 20 ^ now);
      if constexpr (!kFat) free_handles.push_back(handle);
    } else {
      s.credits[out][vc] -= kFlits;
      Ev& e = post(now + kLink + kPipeline, neighbour(r, out), kArrival, back(out), vc);
      if constexpr (kFat) {
        e.packet = packet;
      } else {
        e.value = handle;
      }
    }
    if constexpr (kHx) {
      HxState& h = s.hx;
      h.next_input[out] = static_cast<uint8_t>((in + 1) % kPorts);
      h.vc_next_input[out][vc] = h.next_input[out];
      if (h.stall_since[out] != kNever) {
        h.stall[out] += now - h.stall_since[out];
        h.stall_since[out] = kNever;
      }
      --h.held;
      ++h.sent;
      h.last_move = now;
    }
  }

  // Each input with a free crossbar sends the head of its first VC (round robin) whose output
  // is free and has the credits; a router with a head left waiting looks again next cycle.
  void allocate(uint32_t r, uint32_t now) {
    R& s = routers[r];
    s.listed = false;
    bool waiting = false;
    for (uint32_t busy = s.busy; busy != 0; busy &= busy - 1) {
      const int in = __builtin_ctz(busy);
      if (s.input_free[in] > now) {
        waiting = true;
        continue;
      }
      for (int k = 0; k < kVcs; ++k) {
        const int vc = (s.next_vc[in] + k) % kVcs;
        if (!(s.busy_vcs[in] >> vc & 1)) continue;
        const int out = route(r, head_dst(r, in, vc));
        if (s.output_free[out] > now || (out != 0 && s.credits[out][vc] < kFlits)) {
          waiting = true;
          continue;
        }
        forward(s, r, in, vc, out, now);
        if (s.busy_vcs[in] != 0) waiting = true;
        break;
      }
    }
    if (waiting) post(now + 1, r, kWake, 0, 0);
  }

  // FLAGS 16: hxsim's allocation round (Router::allocate). Rounds repeat while some proposal
  // lost, as the losers may propose again to what is still free.
  void allocate_hx(uint32_t r, uint32_t now) {
    R& s = routers[r];
    s.listed = false;
    uint32_t wake;
    for (;;) {
      requests.clear();
      wake = kNever;
      for (uint32_t busy = s.busy; busy != 0; busy &= busy - 1) {
        const int in = __builtin_ctz(busy);
        if (s.input_free[in] > now) {
          wake = std::min(wake, s.input_free[in]);
          continue;
        }
        for (int k = 0; k < kVcs; ++k) {
          const int vc = (s.next_vc[in] + k) % kVcs;
          if (!(s.busy_vcs[in] >> vc & 1)) continue;
          Q& q = queue(r, in, vc);
          const uint32_t blocked = blocked_until(q);
          if (blocked > now) {
            wake = std::min(wake, blocked);
            continue;
          }
          int out = 0;
          uint32_t until;
          const bool found = select(s, r, head_dst(r, in, vc), vc, now, wake, out, until);
          set_blocked_until(q, until);
          if (found) {
            requests.push_back(
                {static_cast<uint8_t>(in), static_cast<uint8_t>(vc), static_cast<uint8_t>(out)});
            break;
          }
        }
      }
      if (requests.empty()) break;
      if (grant_requests(s, r, now, wake) == requests.size()) break;
    }
    if (wake != kNever && (s.hx.wake_at <= now || wake < s.hx.wake_at)) {
      s.hx.wake_at = wake;
      post(wake, r, kWake, 0, 0);
    }
  }

  uint32_t blocked_until(Q& q) {
    if constexpr (kFat) {
      return static_cast<uint32_t>(q.front().blocked);
    } else {
      return q.blocked.until;
    }
  }
  void set_blocked_until(Q& q, uint32_t until) {
    if constexpr (kFat) {
      q.front().blocked = until;
    } else {
      q.blocked.until = until;
    }
  }

  // Router::select: among the candidates whose output is free and whose VC has room for the
  // packet, the one with the most credits. `until`: when the first output frees if all are busy.
  bool select(R& s, uint32_t r, uint32_t dst, int vc, uint32_t now, uint32_t& wake, int& best,
              uint32_t& until) {
    int ports[3];
    const int n = candidates(r, dst, ports);
    uint32_t best_credits = 0, first_free = kNever;
    bool found = false, all_busy = true;
    until = 0;
    for (int i = 0; i < n; ++i) {
      const int p = ports[i];
      const uint32_t free = s.output_free[p];
      if (free > now) {
        wake = std::min(wake, free);
        first_free = std::min(first_free, free);
        continue;
      }
      all_busy = false;
      const uint32_t space = p == 0 ? kBuffer : s.credits[p][vc];  // endpoints sink at once
      if (space < kFlits) {
        if (s.hx.stall_since[p] == kNever) s.hx.stall_since[p] = now;
        continue;
      }
      if (!found || space > best_credits) {
        best = p;
        best_credits = space;
        found = true;
      }
    }
    if (all_busy && first_free != kNever) until = first_free;
    return found;
  }

  // Router::grant_requests and arbitrate: a lone request goes; of several, each output VC picks
  // the input first at or after its pointer, each output the pick first at or after its own.
  std::size_t grant_requests(R& s, uint32_t r, uint32_t now, uint32_t& wake) {
    const std::size_t n = requests.size();
    if (n > 1) {
      const auto turn = [](int input, int pointer) { return (input + kPorts - pointer) % kPorts; };
      for (std::size_t i = 0; i < n; ++i) {
        const Request& q = requests[i];
        int8_t& pick = vc_grant[q.output][q.vc];
        const int pointer = s.hx.vc_next_input[q.output][q.vc];
        if (pick < 0 || turn(q.input, pointer) < turn(requests[pick].input, pointer)) {
          pick = static_cast<int8_t>(i);
        }
      }
      for (std::size_t i = 0; i < n; ++i) {
        const Request& q = requests[i];
        if (vc_grant[q.output][q.vc] != static_cast<int8_t>(i)) continue;
        int8_t& granted = grant[q.output];
        const int pointer = s.hx.next_input[q.output];
        if (granted < 0 || turn(q.input, pointer) < turn(requests[granted].input, pointer)) {
          granted = static_cast<int8_t>(i);
        }
      }
    }
    std::size_t granted = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Request& q = requests[i];
      if (n > 1 && grant[q.output] != static_cast<int8_t>(i)) continue;
      forward(s, r, q.input, q.vc, q.output, now);
      ++granted;
      if (s.busy_vcs[q.input] != 0) wake = std::min(wake, s.input_free[q.input]);
    }
    if (n > 1) {
      for (const Request& q : requests) {
        grant[q.output] = -1;
        vc_grant[q.output][q.vc] = -1;
      }
    }
    return granted;
  }

  // Groups a cycle's events by router with a counting pass (about one counter per event),
  // then orders each group by (kind, port, VC).
  template <class T, class Key>
  void sort(std::vector<T>& events, Key key, std::vector<T>& sorted) {
    uint32_t shift = 0;
    while ((uint32_t{kRouters} >> shift) > events.size()) ++shift;
    const uint32_t groups = ((kRouters - 1) >> shift) + 1;
    counts.assign(2 * size_t{groups}, 0);  // [0, groups): next free slot; then group starts
    uint32_t* next = counts.data();
    uint32_t* start = next + groups;
    for (const T& e : events) ++next[e.router >> shift];
    for (uint32_t g = 0, position = 0; g < groups; ++g) {
      const uint32_t n = next[g];
      start[g] = next[g] = position;
      position += n;
    }
    sorted.resize(events.size());
    for (const T& e : events) {
      const uint32_t g = e.router >> shift;
      const uint32_t begin = start[g];
      uint32_t j = next[g]++;
      for (; j > begin && key(sorted[j - 1]) > key(e); --j) sorted[j] = sorted[j - 1];
      sorted[j] = e;
    }
    events.swap(sorted);
  }

  void apply(const Ev& e, uint32_t now) {
    R& s = routers[e.router];
    if (e.kind == kCredit) {
      s.credits[e.port][e.vc] = static_cast<uint8_t>(s.credits[e.port][e.vc] + e.value);
      if (s.busy == 0) return;
    } else if (e.kind == kArrival) {
      Q& q = queue(e.router, e.port, e.vc);
      if constexpr (kFat) {
        q.push_back({0, now + kFlits, e.packet});
      } else {
        q.handle[(q.head + q.size) % kQueued] = e.value;
        ++q.size;
      }
      s.busy_vcs[e.port] |= static_cast<uint8_t>(1u << e.vc);
      s.busy |= 1u << e.port;
      if constexpr (kHx) ++s.hx.held;
    } else if constexpr (kHx) {
      if (s.hx.wake_at == now) s.hx.wake_at = 0;
    }
    list(e.router);
  }

  void run(double load, uint32_t cycles, uint64_t seed) {
    for (R& s : routers) {
      for (auto& port : s.credits) std::fill(std::begin(port), std::end(port), kBuffer);
    }
    std::fill(&grant[0], &grant[0] + kPorts, int8_t{-1});
    std::fill(&vc_grant[0][0], &vc_grant[0][0] + kPorts * kVcs, int8_t{-1});
    std::vector<Ev> sorted_events;
    std::vector<Entry> sorted_entries;
    const auto threshold = static_cast<uint64_t>(load / kFlits * 18446744073709551615.0);
    for (uint32_t now = 0; now < cycles; ++now) {
      for (uint32_t e = 0; e < kRouters; ++e) {  // endpoint e sits on router e
        if (next(seed) >= threshold) continue;
        uint32_t dst;
        do dst = static_cast<uint32_t>(next(seed) % kRouters);
        while (dst == e);
        ++links_crossed;  // the injection link
        Ev& arrival = post(now + kLink, e, kArrival, 0, static_cast<int>(next(seed) % kVcs));
        if constexpr (kFat) {
          arrival.packet.dst = dst;
          arrival.packet.created = now;
        } else {
          const uint32_t handle = take(packets, free_handles);
          packets[handle] = {dst, now};
          arrival.value = handle;
        }
      }
      if (pooled) {
        std::vector<Entry>& due = entries[now % kWheel];
        if (sort_cycles)
          sort(
              due, [](const Entry& en) { return en.key; }, sorted_entries);
        for (const Entry& en : due) {
          const Ev e = event_pool[en.slot].event;  // copied out, as EventQueue::pop does
          free_slots.push_back(en.slot);
          apply(e, now);
        }
        due.clear();
      } else {
        std::vector<Ev>& due = wheel[now % kWheel];
        if (sort_cycles) {
          sort(
              due, [](const Ev& e) { return sort_key(e.router, e.kind, e.port, e.vc); },
              sorted_events);
        }
        for (const Ev& e : due) apply(e, now);
        due.clear();
      }
      for (const uint32_t r : to_allocate) {
        if constexpr (kHx) {
          allocate_hx(r, now);
        } else {
          allocate(r, now);
        }
      }
      to_allocate.clear();
    }
  }
  static uint64_t mix(uint64_t x) {  // splitmix64's finaliser
    x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ x >> 27) * 0x94d049bb133111ebull;
    return x ^ x >> 31;
  }
  static uint64_t next(uint64_t& s) {  // xorshift64
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
};

template <bool kFat, bool kHx>
void measure(double load, uint32_t cycles, int flags) {
  auto sim = std::make_unique<Sim<kFat, kHx>>();
  sim->sort_cycles = flags & 1;
  sim->count_links = flags & 2;
  sim->pooled = flags & 8;
  const auto start = std::chrono::steady_clock::now();
  sim->run(load, cycles, 88172645463325252ull);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "%u cycles, %llu links crossed, %llu packets delivered, arrivals %016llx, %.3f s, %.2f M "
      "packet-hops/s\n",
      cycles, static_cast<unsigned long long>(sim->links_crossed),
      static_cast<unsigned long long>(sim->delivered),
      static_cast<unsigned long long>(sim->arrivals), s, sim->links_crossed / s / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  const double load = argc > 1 ? std::atof(argv[1]) : 0.025;
  const auto cycles = static_cast<uint32_t>(argc > 2 ? std::atol(argv[2]) : 15000);
  const int flags = argc > 3 ? std::atoi(argv[3]) : 0;
  switch (flags & 20) {
    case 0:
      measure<false, false>(load, cycles, flags);
      break;
    case 4:
      measure<true, false>(load, cycles, flags);
      break;
    case 16:
      measure<false, true>(load, cycles, flags);
      break;
    default:
      measure<true, true>(load, cycles, flags);
  }
}

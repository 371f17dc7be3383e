#include "models/topologies/railx/hamiltonian.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>

#include "core/error.h"
#include "core/rng.h"

namespace hx::net::railx {
namespace {

using Cycles = std::vector<std::vector<uint32_t>>;

// Odd k = 2m+1 (Walecki; RailX App. A.1, Fig. 18): path i = (i, i-1, i+1, i-2, i+2, ..., i+m-1,
// i-m) mod 2m, i = 0..m-1, closed through vertex 2m, gives m edge-disjoint undirected Hamiltonian
// cycles; each one used in both directions gives the 2m directed cycles.
Cycles walecki(uint32_t k) {
  const uint32_t m = (k - 1) / 2, n = 2 * m;
  Cycles cycles;
  for (uint32_t i = 0; i < m; ++i) {
    std::vector<uint32_t> cycle = {n, i};
    for (uint32_t j = 1; j <= m; ++j) {
      cycle.push_back((i + n - j) % n);
      if (j < m) cycle.push_back((i + j) % n);
    }
    cycles.push_back(cycle);
    std::reverse(cycle.begin() + 1, cycle.end());
    cycles.push_back(cycle);
  }
  return cycles;
}

// Even k: the k-1 factors (fixed-point-free permutations) of a 1-factorisation of K*_k, seen as
// the Latin square L[u][v] = factor holding arc u -> v (diagonal empty). A row cycle switch on rows
// u, x exchanges the successors of u and x in a closed chain of factors (factor g's successor of x
// holds, in row u, the next factor of the chain). Every factor stays a permutation, and each one on
// the chain is composed with the transposition (u x): it merges two of its cycles if u and x lie in
// different ones, else splits one.
class Factors {
 public:
  explicit Factors(uint32_t k)
      : k_(k),
        n_(k - 1),
        succ_(size_t{n_} * k),
        factor_(size_t{k} * k, n_),
        label_(size_t{n_} * k) {
    for (uint32_t g = 0; g < n_; ++g) {
      for (uint32_t u = 0; u < k; ++u) set(g, u, (u + g + 1) % k);
    }
  }

  uint32_t succ(uint32_t g, uint32_t u) const { return succ_[size_t{g} * k_ + u]; }
  bool together(uint32_t g, uint32_t u, uint32_t x) const {
    return label_[size_t{g} * k_ + u] == label_[size_t{g} * k_ + x];
  }

  // The chain through factor g of the switch on rows u, x, if it closes within `cap` factors
  // without meeting the diagonal.
  bool chain(uint32_t g, uint32_t u, uint32_t x, size_t cap, std::vector<uint32_t>& out) const {
    out.clear();
    uint32_t h = g;
    do {
      if (out.size() == cap) return false;
      out.push_back(h);
      h = factor_[size_t{u} * k_ + succ(h, x)];
      if (h == n_) return false;
    } while (h != g);
    return true;
  }

  void exchange(const std::vector<uint32_t>& chain, uint32_t u, uint32_t x) {
    for (uint32_t g : chain) {
      const uint32_t a = succ(g, u), b = succ(g, x);
      set(g, u, b);
      set(g, x, a);
    }
  }

  // Labels factor g's vertices by cycle; returns its number of cycles.
  uint32_t relabel(uint32_t g) {
    uint32_t* label = &label_[size_t{g} * k_];
    std::fill(label, label + k_, k_);
    uint32_t cycles = 0;
    for (uint32_t v = 0; v < k_; ++v) {
      if (label[v] != k_) continue;
      for (uint32_t w = v; label[w] == k_; w = succ(g, w)) label[w] = cycles;
      ++cycles;
    }
    return cycles;
  }

  Cycles cycles() const {
    Cycles out(n_);
    for (uint32_t g = 0; g < n_; ++g) {
      uint32_t v = 0;
      do {
        out[g].push_back(v);
        v = succ(g, v);
      } while (v != 0);
    }
    return out;
  }

 private:
  void set(uint32_t g, uint32_t u, uint32_t v) {
    succ_[size_t{g} * k_ + u] = v;
    factor_[size_t{u} * k_ + v] = g;
  }

  uint32_t k_, n_;
  std::vector<uint32_t> succ_, factor_, label_;
};

// Even k: start from u -> u+g+1 mod k, scramble it with random row cycle switches, then anneal the
// surplus cycles (sum over factors of cycles - 1) to zero with switches of short chains that start
// at a factor with surplus and merge two of its cycles. A heuristic search, not Tillson's
// construction: deterministic (fixed seeds), restarted with the next seed if it stalls, and always
// verified by the caller. Checked for every even k in [8, 256].
Cycles repaired_factorisation(uint32_t k) {
  constexpr size_t kChain = 8;
  constexpr double kTemperature = 0.3;
  constexpr uint64_t kAttempts = 8;
  std::vector<uint32_t> chain, surplus_factors;
  for (uint64_t attempt = 0; attempt < kAttempts; ++attempt) {
    Rng rng(attempt, k, static_cast<uint64_t>(RngPurpose::kModel));
    Factors factors(k);
    const uint64_t square = uint64_t{k} * k;
    for (uint64_t i = 0; i < 4 * square; ++i) {
      const auto g = static_cast<uint32_t>(rng.below(k - 1));
      const auto u = static_cast<uint32_t>(rng.below(k)), x = static_cast<uint32_t>(rng.below(k));
      if (u != x && factors.chain(g, u, x, k, chain)) factors.exchange(chain, u, x);
    }
    std::vector<uint32_t> cycles(k - 1);
    uint64_t surplus = 0;
    for (uint32_t g = 0; g < k - 1; ++g) surplus += (cycles[g] = factors.relabel(g)) - 1;
    // Applies the switch if it lowers the surplus, or with probability exp(-delta / T) if not.
    auto try_switch = [&](uint32_t g, uint32_t u, uint32_t x, double temperature) {
      if (factors.together(g, u, x) || !factors.chain(g, u, x, kChain, chain)) return;
      int delta = 0;
      for (uint32_t h : chain) delta += factors.together(h, u, x) ? 1 : -1;
      if (delta >= 0 && (temperature == 0 || rng.uniform() >= std::exp(-delta / temperature))) {
        return;
      }
      factors.exchange(chain, u, x);
      for (uint32_t h : chain) {
        const uint32_t now = factors.relabel(h);
        surplus = surplus + now - cycles[h];
        cycles[h] = now;
      }
      surplus_factors.clear();
    };
    for (uint64_t step = 1; surplus > 0 && step < 400 * square; ++step) {
      if (step % square == 0) {
        // Every k^2 steps, take every improving switch (the random walk rarely finds the last).
        for (uint32_t g = 0; g < k - 1; ++g) {
          for (uint32_t u = 0; u < k && cycles[g] > 1; ++u) {
            for (uint32_t x = u + 1; x < k && cycles[g] > 1; ++x) try_switch(g, u, x, 0);
          }
        }
      }
      if (surplus_factors.empty()) {
        for (uint32_t g = 0; g < k - 1; ++g) {
          if (cycles[g] > 1) surplus_factors.push_back(g);
        }
        if (surplus_factors.empty()) break;
      }
      const uint32_t g = surplus_factors[rng.below(surplus_factors.size())];
      const auto u = static_cast<uint32_t>(rng.below(k)), x = static_cast<uint32_t>(rng.below(k));
      try_switch(g, u, x, kTemperature);
    }
    if (surplus == 0) return factors.cycles();
  }
  throw std::logic_error("railx: no Hamiltonian decomposition of K*_" + std::to_string(k) +
                         " found");
}

}  // namespace

std::vector<std::vector<uint32_t>> hamiltonian_decomposition(uint32_t k) {
  if (k < 2 || k == 4 || k == 6) {
    throw InputError("railx: an all-to-all row of " + std::to_string(k) +
                     " nodes cannot be built from rail rings: " +
                     (k < 2 ? std::string("a row needs at least 2 nodes")
                            : "K*_4 and K*_6 have no Hamiltonian decomposition (Tillson 1980)") +
                     "; choose another row size, or split the rails into more dimensions");
  }
  Cycles cycles = k % 2 == 1 ? walecki(k) : repaired_factorisation(k);
  std::string why;
  if (!is_hamiltonian_decomposition(k, cycles, &why)) {
    throw std::logic_error("railx: bad Hamiltonian decomposition of K*_" + std::to_string(k) +
                           ": " + why);
  }
  return cycles;
}

bool is_hamiltonian_decomposition(uint32_t k, const std::vector<std::vector<uint32_t>>& cycles,
                                  std::string* why) {
  auto fail = [&](const std::string& reason) {
    if (why != nullptr) *why = reason;
    return false;
  };
  if (k < 2) return fail("K*_" + std::to_string(k) + " has no arcs");
  if (cycles.size() != k - 1) {
    return fail(std::to_string(cycles.size()) + " cycles, expected " + std::to_string(k - 1));
  }
  std::vector<bool> arc(size_t{k} * k, false), seen(k);
  for (size_t r = 0; r < cycles.size(); ++r) {
    const std::vector<uint32_t>& cycle = cycles[r];
    const std::string name = "cycle " + std::to_string(r);
    if (cycle.size() != k) return fail(name + " has " + std::to_string(cycle.size()) + " vertices");
    std::fill(seen.begin(), seen.end(), false);
    for (uint32_t v : cycle) {
      if (v >= k || seen[v])
        return fail(name + " is not a permutation of 0.." + std::to_string(k - 1));
      seen[v] = true;
    }
    for (size_t i = 0; i < k; ++i) {
      const uint32_t u = cycle[i], v = cycle[(i + 1) % k];
      if (arc[size_t{u} * k + v]) {
        return fail(name + " repeats arc " + std::to_string(u) + " -> " + std::to_string(v));
      }
      arc[size_t{u} * k + v] = true;
    }
  }
  return true;  // k-1 cycles of k distinct arcs, none repeated and none a loop: all k(k-1) arcs
}

}  // namespace hx::net::railx

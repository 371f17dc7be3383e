// Hamiltonian decompositions of the complete directed graph K*_k (RailX §3.1, Lemma 3.1, App. A.1).
// An all-to-all row of k nodes is wired from k-1 rail rings: the k(k-1) arcs (u, v), u != v, are
// split into k-1 directed Hamiltonian cycles, one per rail, so every pair of nodes {A, B} is
// linked directly on two different rails (A -> B on one, B -> A on another). The decomposition
// exists for every k >= 2 except k = 4 and k = 6 (Tillson 1980).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hx::net::railx {

/// k-1 directed Hamiltonian cycles of K*_k that together hold every arc once. Cycle r lists its k
/// vertices in order and closes from the last back to the first; its arc u -> v means node u's
/// + port is wired to node v's - port on rail r. Deterministic, and verified before it returns.
/// Throws InputError for k < 2, k = 4 and k = 6.
std::vector<std::vector<uint32_t>> hamiltonian_decomposition(uint32_t k);

/// Whether `cycles` are k-1 permutations of 0..k-1 whose arcs cover every ordered pair (u, v),
/// u != v, exactly once. If not and `why` is given, *why says what is wrong.
bool is_hamiltonian_decomposition(uint32_t k, const std::vector<std::vector<uint32_t>>& cycles,
                                  std::string* why = nullptr);

}  // namespace hx::net::railx

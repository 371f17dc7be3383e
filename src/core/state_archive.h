// The archive a component's serialize() reads or writes its checkpoint state through (DESIGN
// §3.9): one function names each field once, in order, for both directions, as
// Boost.Serialization's own `ar & x` idiom does. It wraps a Boost binary archive, so anything
// Boost can serialize (numbers, SimTime, Rng, std containers with their headers) goes in
// directly; plain-data arrays go in as bytes through `bytes()`.
#pragma once

#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <cstddef>

namespace hx {

class StateArchive {
 public:
  explicit StateArchive(boost::archive::binary_oarchive& out) : out_(&out) {}
  explicit StateArchive(boost::archive::binary_iarchive& in) : in_(&in) {}

  /// True when restoring: the fields are being overwritten.
  bool loading() const { return in_ != nullptr; }

  /// Writes `x`, or reads it back into `x`.
  template <class T>
  StateArchive& operator&(T& x) {
    if (in_) {
      *in_ >> x;
    } else {
      *out_ << x;
    }
    return *this;
  }
  /// `n` raw bytes at `p`, for arrays of plain data whose size both sides already know.
  void bytes(void* p, std::size_t n) {
    if (n == 0) return;
    if (in_) {
      in_->load_binary(p, n);
    } else {
      out_->save_binary(p, n);
    }
  }

 private:
  boost::archive::binary_oarchive* out_ = nullptr;
  boost::archive::binary_iarchive* in_ = nullptr;
};

}  // namespace hx

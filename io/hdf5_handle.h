// One HDF5 identifier owned for a scope: the file readers (traces, fault schedules) open files,
// groups, datasets, types and spaces, and each must be closed with its own H5?close.
#pragma once

#include <hdf5.h>

namespace hx {

/// Owns one hid_t (possibly invalid, < 0) and closes it with the matching H5?close.
class Hdf5Handle {
 public:
  Hdf5Handle(hid_t id, herr_t (*closer)(hid_t)) : id_(id), closer_(closer) {}
  Hdf5Handle(const Hdf5Handle&) = delete;
  Hdf5Handle& operator=(const Hdf5Handle&) = delete;
  ~Hdf5Handle() {
    if (id_ >= 0) closer_(id_);
  }
  hid_t get() const { return id_; }

 private:
  hid_t id_;
  herr_t (*closer_)(hid_t);
};

}  // namespace hx

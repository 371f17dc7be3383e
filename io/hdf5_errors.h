// HDF5 errors as hxsim reports them: our own messages replace HDF5's stack dumps (which every
// rank would print), with the innermost frame's text as the detail.
#pragma once

#include <hdf5.h>

#include <string>

namespace hx {

/// Silences HDF5's automatic error-stack printing for a scope.
class QuietHdf5Errors {
 public:
  QuietHdf5Errors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietHdf5Errors(const QuietHdf5Errors&) = delete;
  QuietHdf5Errors& operator=(const QuietHdf5Errors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

/// HDF5's innermost error frame usually says what really went wrong (errno text for file errors):
/// " (HDF5: ...)", or "" when there is none.
inline std::string hdf5_detail() {
  std::string detail;
  auto first_frame = [](unsigned, const H5E_error2_t* frame, void* out) -> herr_t {
    auto* text = static_cast<std::string*>(out);
    if (text->empty() && frame->desc != nullptr) *text = frame->desc;
    return 0;
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_frame, &detail);
  return detail.empty() ? std::string() : " (HDF5: " + detail + ")";
}

}  // namespace hx

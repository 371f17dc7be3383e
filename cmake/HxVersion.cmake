# Version and git hash, stamped into every output file (root attributes) and `hxsim --version`.
# CMake re-runs this when HEAD moves, so the hash follows commits without a manual reconfigure.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                OUTPUT_VARIABLE HX_GIT_HASH OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET RESULT_VARIABLE _hx_git_rc)
if(NOT _hx_git_rc EQUAL 0)
  set(HX_GIT_HASH "unknown")
endif()
foreach(_hx_ref .git/HEAD .git/refs/heads/main .git/packed-refs)
  if(EXISTS ${CMAKE_SOURCE_DIR}/${_hx_ref})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${_hx_ref})
  endif()
endforeach()
configure_file(${CMAKE_SOURCE_DIR}/src/core/version.h.in
               ${CMAKE_BINARY_DIR}/generated/core/version.h @ONLY)

# Third-party dependencies. Every one is REQUIRED: a missing one stops configuration with
# CMake's own message naming the package (scripts/setup.sh installs them on Debian).
find_package(MPI REQUIRED COMPONENTS C CXX)

# Debian installs serial and parallel HDF5 side by side; hxsim writes one file from all ranks,
# so only the parallel build will do.
set(HDF5_PREFER_PARALLEL TRUE)
find_package(HDF5 REQUIRED COMPONENTS C HL)
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR
    "hxsim needs a parallel (MPI) build of HDF5, but CMake found a serial one at "
    "'${HDF5_INCLUDE_DIRS}'. On Debian: apt-get install libhdf5-openmpi-dev "
    "(or point HDF5_ROOT / HDF5_C_COMPILER_EXECUTABLE at h5pcc).")
endif()

find_package(Boost 1.71 REQUIRED COMPONENTS serialization)
find_package(CLI11 REQUIRED CONFIG)
find_package(tomlplusplus 3 REQUIRED CONFIG)  # config files (TOML 1.0)
find_package(Threads REQUIRED)
if(HX_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

add_library(hx_hdf5 INTERFACE)
target_include_directories(hx_hdf5 SYSTEM INTERFACE ${HDF5_INCLUDE_DIRS})
target_link_libraries(hx_hdf5 INTERFACE ${HDF5_C_LIBRARIES} ${HDF5_HL_LIBRARIES} MPI::MPI_C)
target_compile_definitions(hx_hdf5 INTERFACE ${HDF5_DEFINITIONS})

# The allocator (HX_ALLOCATOR): hx_allocator carries it to every binary that links the engine.
add_library(hx_allocator INTERFACE)
set(HX_JEMALLOC OFF)
if(NOT HX_ALLOCATOR MATCHES "^(jemalloc|system)$")
  message(FATAL_ERROR "HX_ALLOCATOR is '${HX_ALLOCATOR}': it must be jemalloc or system")
endif()
if(HX_ALLOCATOR STREQUAL "jemalloc" AND NOT HX_SANITIZE)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(JEMALLOC IMPORTED_TARGET jemalloc)
  if(NOT JEMALLOC_FOUND)
    message(FATAL_ERROR
      "HX_ALLOCATOR=jemalloc, but pkg-config finds no jemalloc. On Debian: apt-get install "
      "libjemalloc-dev (scripts/setup.sh does), or configure with -DHX_ALLOCATOR=system.")
  endif()
  target_link_libraries(hx_allocator INTERFACE PkgConfig::JEMALLOC)
  set(HX_JEMALLOC ON)  # src/engine/heap.cpp, the one file that talks to it
endif()

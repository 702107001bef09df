# Cross-compiling a board for 64-bit ARM Linux with Debian's cross toolchain
# (crossbuild-essential-arm64) against Debian's arm64 libraries (multiarch: gRPC, protobuf and Boost
# install beside the host's, under /usr/lib/aarch64-linux-gnu). scripts/build.sh --arch aarch64 uses it.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Packages, libraries and their CMake files are looked up in the arm64 multiarch folders.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# pkg-config (gRPC's CMake files ask it for re2 and OpenSSL; the runtime for libseccomp) must answer
# with the arm64 libraries.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
# protoc and grpc_cpp_plugin are the build host's programs.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# A qemu-user run of anything CMake tries to execute while configuring.
find_program(TUNEFARM_QEMU_AARCH64 qemu-aarch64-static)
if(TUNEFARM_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${TUNEFARM_QEMU_AARCH64})
endif()

# The fuzz build (-DTUNEFARM_FUZZ=ON, scripts/build.sh --fuzz): every library a fuzz target links is
# compiled with libFuzzer's coverage and with ASan and UBSan, so that a bug deep in a parser's
# helpers is caught where it happens. Included before any library is defined.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "TUNEFARM_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang")
endif()
# UBSan stops at the first report: a fuzzer that goes on past one never says which input did it.
# The vptr check needs type information LLVM's libraries are built without.
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined)
# Executables built as dependencies (the measure worker) link the sanitizer runtimes, not libFuzzer's main.
add_link_options(-fsanitize=address,undefined -fno-sanitize=vptr)

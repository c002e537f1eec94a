// The compiled engine: the one translation unit of the snaptok::snaptok
// library. Its consumers include <snaptok/tokenizer.hpp> with
// SNAPTOK_COMPILED_LIBRARY defined (the CMake target does it) and get only
// the declarations; the definitions, and the whole engine behind them, are
// compiled here once.
#define SNAPTOK_IMPLEMENTATION
#include <snaptok/tokenizer.hpp>

#if !defined(SNAPTOK_COMPILED_LIBRARY)
#error "src/snaptok.cpp is the compiled library: build it with SNAPTOK_COMPILED_LIBRARY defined"
#endif

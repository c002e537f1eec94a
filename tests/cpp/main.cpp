// The doctest runner for snaptok_tests; test cases live in test_*.cpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

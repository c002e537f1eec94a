// The libFuzzer entry for every snaptok fuzz target (targets/*.hpp), in one
// binary so that the engine compiles once. SNAPTOK_FUZZ_TARGET names the
// target to run; fuzz/run.sh builds the binary, writes each target's seed
// corpus and runs them in turn:
//
//   SNAPTOK_FUZZ_TARGET=scanners build/fuzz/snaptok_fuzz build/fuzz/corpus/scanners
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "targets/added_tokens.hpp"
#include "targets/automaton.hpp"
#include "targets/bpe_merges.hpp"
#include "targets/decode.hpp"
#include "targets/encode_paths.hpp"
#include "targets/json_loader.hpp"
#include "targets/scanners.hpp"
#include "targets/st_loader.hpp"

namespace {

using TargetFn = void (*)(std::span<const std::uint8_t>);

struct Target {
  std::string_view name;
  TargetFn run;
};

constexpr Target kTargets[] = {
    {"added_tokens", snaptok_fuzz::added_tokens}, {"automaton", snaptok_fuzz::automaton},
    {"bpe_merges", snaptok_fuzz::bpe_merges},
    {"decode", snaptok_fuzz::decode},
    {"encode_paths", snaptok_fuzz::encode_paths}, {"json_loader", snaptok_fuzz::json_loader},
    {"scanners", snaptok_fuzz::scanners},         {"st_loader", snaptok_fuzz::st_loader},
};

TargetFn chosen = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* name = std::getenv("SNAPTOK_FUZZ_TARGET");
  for (const Target& t : kTargets) {
    if (name && t.name == name) chosen = t.run;
  }
  if (!chosen) {
    std::fprintf(stderr, "SNAPTOK_FUZZ_TARGET must name a target:");
    for (const Target& t : kTargets) std::fprintf(stderr, " %.*s", static_cast<int>(t.name.size()), t.name.data());
    std::fprintf(stderr, "\n");
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  chosen(std::span(data, size));
  return 0;
}

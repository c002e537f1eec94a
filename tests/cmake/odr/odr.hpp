// Functions each defined in a different translation unit of the odr test.
#pragma once

#include <snaptok/simd/dispatch.hpp>
#include <snaptok/tokenizer.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

std::vector<uint32_t> encode_in_a(snaptok::Tokenizer& tok,
                                  const std::string& text);
std::vector<uint32_t> encode_in_b(snaptok::Tokenizer& tok,
                                  const std::string& text);
std::string decode_in_b(snaptok::Tokenizer& tok,
                        const std::vector<uint32_t>& ids);

// The SIMD dispatch (one table per entry point per program) seen from each
// translation unit.
snaptok::simd::ByteClassMasks classify_in_a(const std::string& block);
snaptok::simd::ByteClassMasks classify_in_b(const std::string& block);
std::string_view simd_target_in_a();
std::string_view simd_target_in_b();

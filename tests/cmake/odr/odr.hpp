// Functions each defined in a different translation unit of the odr test.
#pragma once

#include <snaptok/tokenizer.hpp>

#include <cstdint>
#include <string>
#include <vector>

std::vector<uint32_t> encode_in_a(snaptok::Tokenizer& tok,
                                  const std::string& text);
std::vector<uint32_t> encode_in_b(snaptok::Tokenizer& tok,
                                  const std::string& text);
std::string decode_in_b(snaptok::Tokenizer& tok,
                        const std::vector<uint32_t>& ids);

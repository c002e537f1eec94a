// The BPE model: see models/bpe/model.hpp (and the parts beside it).
#pragma once

#include "snaptok/models/bpe/model.hpp"  // IWYU pragma: export

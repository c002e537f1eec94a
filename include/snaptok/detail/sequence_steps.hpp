// flatten_steps: the components a Sequence (of normalizers or of
// pre-tokenizers) applies, in order, with nested Sequences opened. Applying
// a nested Sequence is applying its steps in its place, so the fused paths
// match their shapes on this one list.
#pragma once

#include <vector>

namespace snaptok::detail {

/// The steps `component` applies (itself when it is no `SequenceT`; none
/// for nullptr), e.g. flatten_steps<SequenceNormalizer>(normalizer).
template <class SequenceT, class Component>
std::vector<const Component*> flatten_steps(const Component* component) {
  std::vector<const Component*> steps;
  const auto add = [&steps](const auto& self, const Component* c) -> void {
    if (!c) return;
    const auto* seq = dynamic_cast<const SequenceT*>(c);
    if (!seq) {
      steps.push_back(c);
      return;
    }
    for (const auto& step : seq->steps()) self(self, step.get());
  };
  add(add, component);
  return steps;
}

}  // namespace snaptok::detail

"""snaptok: tokenization bit-identical to Hugging Face `tokenizers`, fast.

>>> import snaptok
>>> tok = snaptok.Tokenizer.from_file(path)  # path: GPT-2's tokenizer.json
>>> tok.encode("Hello world").ids
[15496, 995]
"""

from ._core import (AddedToken, Component, DecodeStream, Decoder, DocumentEncoder, Encoding, Model, Normalizer,
                    PostProcessor, PreTokenizer, SnaptokError, Tokenizer, simd_target)
from ._core import __version__  # CMakeLists.txt's project VERSION, compiled in

__all__ = ["AddedToken", "Component", "DecodeStream", "Decoder", "DocumentEncoder", "Encoding", "Model", "Normalizer",
           "PostProcessor", "PreTokenizer", "SnaptokError", "Tokenizer", "__version__", "simd_target"]

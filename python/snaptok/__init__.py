"""snaptok: tokenization bit-identical to Hugging Face `tokenizers`, fast.

>>> import snaptok
>>> tok = snaptok.Tokenizer.from_file("tokenizer.json")
>>> tok.encode("Hello world").ids
[15496, 995]
"""

from ._core import DocumentEncoder, Encoding, SnaptokError, Tokenizer, simd_target

__all__ = ["DocumentEncoder", "Encoding", "SnaptokError", "Tokenizer", "__version__", "simd_target"]
__version__ = "0.1.0"

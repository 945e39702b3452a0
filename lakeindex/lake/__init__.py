"""Reading lake files: formats, decoding and bad-input handling."""

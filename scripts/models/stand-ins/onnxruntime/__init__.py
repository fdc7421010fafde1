"""Stand-in for onnxruntime (not in Debian): only what sherpa-onnx's Whisper export imports; see README.md."""

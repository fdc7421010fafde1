"""Stand-in for iso639-lang (not in Debian), for sherpa-onnx's scripts/piper/add_meta_data.py: the English
names of the ISO 639-1 codes the test voices use. See README.md."""

_NAMES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian", "zh": "Chinese"}


class Lang:
    def __init__(self, code):
        self.pt1 = code
        self.name = _NAMES[code]

    def __repr__(self):
        return f"Lang(name={self.name!r}, pt1={self.pt1!r})"

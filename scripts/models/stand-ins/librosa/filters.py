"""
Stand-in for librosa.filters: rhasspy/piper's vits/mel_processing.py imports `mel` for the training losses;
building and exporting the generator never calls it. See README.md.
"""


def mel(*args, **kwargs):
    raise NotImplementedError("librosa stand-in: mel filters are only used in training")

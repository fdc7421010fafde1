"""Stand-in for librosa (not in Debian): rhasspy/piper's mel_processing.py imports librosa.filters.mel for
training losses; exporting never calls it. See ../README.md."""

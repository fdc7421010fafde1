"""Stand-in for librosa (not in Debian): see filters.py and README.md."""

#!/usr/bin/env bash
# Writes a text-normalisation rule FST in the format sherpa-onnx's Kokoro releases ship (`*.fst`, read by
# kaldifst's TextNormalizer: an OpenFst transducer over UTF-8 bytes, the input string composed with it and the
# shortest path's output bytes kept). The published rules are compiled from pynini grammars, which Debian lacks;
# this one is compiled by OpenFst's own tools (Debian's libfst-tools): every byte maps to itself, except that
# "界" becomes "世界世界世界世界", so a test can tell by the audio's length that the rule was applied.
#
#   scripts/models/kokoro/rule-fst.sh OUT.fst      (test/fixtures/models/kokoro/rules/expand-zh.fst)
set -euo pipefail
command -v fstcompile >/dev/null || { echo "needs fstcompile: apt-get install libfst-tools" >&2; exit 2; }
/usr/bin/python3 - <<'PY' | fstcompile | fstarcsort --sort_type=ilabel > "$1"
source, target = "界".encode(), "世界世界世界世界".encode()
# Copying a byte costs 1, rewriting nothing: the shortest path rewrites every "界" (as a pynini rewrite would).
arcs = [f"0 0 {b} {b} 1" for b in range(1, 256)]
# "界" is three bytes: read them on a path of their own that writes the expansion, then back to state 0.
path = list(source) + [0] * (len(target) - len(source))
for i, (inp, out) in enumerate(zip(path, target)):
    arcs.append(f"{0 if i == 0 else 100 + i} {0 if i == len(target) - 1 else 101 + i} {inp} {out}")
print("\n".join(arcs + ["0"]))
PY

"""Write the pickles of this folder with bpe-stream 0.1.0 (commit 90acfe1, the last with
the flat module layout), for tests/test_legacy_pickles.py:

    git worktree add /tmp/v010 90acfe1
    PYTHONPATH=/tmp/v010/src python tests/data/pickles-0.1.0/make_pickles.py tests/data/pickles-0.1.0
"""
import os
import pickle
import sys

from bpe_stream import (
    AppendableEncoder,
    BytePairEncoding,
    Chunker,
    Encoding,
    IntervalCounter,
    PrependableEncoder,
    get_encoding,
)

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
text = "Streaming counts stay exact.\n    def f(x):  return x ** 2  # 12345 caf\u00e9 \u4e2d\u6587 don't!!\n" * 3
objs = {}  # name -> object; the test rebuilds each with the current version
cl = get_encoding("cl100k_base"); o2 = get_encoding("o200k_base")
objs["encoding_cl100k"] = cl
tiny = BytePairEncoding.from_tokens([b"a", b"b", b"c", b"ab", b"cb", b"ac", b"bb", b"cbb", b"acbb"])
objs["bpe_tiny"] = tiny
trained = Encoding("tiny", pat_str=None, bpe=tiny, special_tokens={"<|end|>": 9})
objs["encoding_tiny"] = trained
for name, enc in (("cl100k", cl), ("o200k", o2)):
    ae = AppendableEncoder(enc)
    for k in range(0, len(text), 7): ae.append(text[k:k+7])
    objs[f"appendable_{name}"] = ae
    pe = PrependableEncoder(enc)
    for k in range(len(text), 0, -5): pe.prepend(text[max(0,k-5):k])
    objs[f"prependable_{name}"] = pe
    objs[f"interval_{name}"] = IntervalCounter(enc, text)
    ch = Chunker(enc, 16, overlap=4)
    objs[f"chunk_{name}"] = list(ch.chunks(text))[1]
ab = AppendableEncoder(tiny); ab.append(b"abacbbacbb"); objs["appendable_raw"] = ab
pb = PrependableEncoder(tiny); pb.prepend(b"abacbbacbb"); objs["prependable_raw"] = pb
objs["interval_raw"] = IntervalCounter(tiny, b"abacbbacbbcab")
objs["chunker_tiny"] = Chunker(tiny, 3)
for k, v in objs.items():
    with open(os.path.join(out, k + ".pickle"), "wb") as f:
        pickle.dump(v, f, protocol=4)
    print(k, os.path.getsize(os.path.join(out, k + ".pickle")))

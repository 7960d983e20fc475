#!/usr/bin/python3
"""salt_vectors.py — writes salt_vectors.inc: row keys of salted tables computed
independently of the C code (util_hash64 re-implemented here), the vectors of
docs/key-encoding.md. Run: /usr/bin/python3 sql/test/salt_vectors.py > sql/test/salt_vectors.inc"""
M64 = (1 << 64) - 1
def mix(h):
    h ^= h >> 33; h = (h * 0xff51afd7ed558ccd) & M64
    h ^= h >> 33; h = (h * 0xc4ceb9fe1a85ec53) & M64
    h ^= h >> 33; return h
def hash64(data, seed):
    m = 0x9e3779b97f4a7c15
    n = len(data)
    h = (seed ^ (n * m)) & M64
    p = 0
    while n - p >= 8:
        v = int.from_bytes(data[p:p+8], 'little')
        h ^= mix((v + m) & M64)
        h = ((((h << 27) | (h >> 37)) & M64) * m + 0x52dce729) & M64
        p += 8
    rest = data[p:]
    t = int.from_bytes(rest, 'little') if rest else 0
    h ^= mix((t + len(rest) + m) & M64)
    return mix(h)
SEED = 0x53414c54
def int_key(a):  # int4 ASC: 02 + 8-byte big-endian with sign bit flipped
    return bytes([2]) + ((a + (1 << 63)) & M64).to_bytes(8, 'big')
print("/* {int4 key, salt_buckets, row key in hex}: written by salt_vectors.py */")
for a, n in [(0, 8), (1, 8), (2, 8), (3, 8), (-1, 8), (1, 16), (1000000, 256), (42, 3)]:
    k = int_key(a)
    b = hash64(k, SEED) % n
    print("\t{%d, %d, \"%02x%s\"}," % (a, n, b, k.hex()))

#!/usr/bin/env python3
"""Deterministic synthetic inputs for the e2e harness (standard library only).

  gen_reads.py sr     REF.fa[.gz] OUT_PREFIX   -> OUT_PREFIX_1.fq, OUT_PREFIX_2.fq
  gen_reads.py splice REF.fa[.gz] OUT_PREFIX   -> OUT_PREFIX.genome.fa, OUT_PREFIX.reads.fa
  gen_reads.py hifi   REF.fa[.gz] OUT_PREFIX   -> OUT_PREFIX.fq

The sequence comes from real genomes; only the sampling and the errors are
synthetic. Every random choice goes through random.Random(seed).random(), whose
output is stable across Python 3 versions, so the files are byte-identical on
every machine.
"""
import gzip
import random
import sys

COMP = str.maketrans("ACGTN", "TGCAN")


def revcomp(s):
    return s.translate(COMP)[::-1]


def read_first_seq(path):
    opener = gzip.open if path.endswith(".gz") else open
    parts = []
    with opener(path, "rt") as f:
        for line in f:
            if line.startswith(">"):
                if parts:
                    break
                continue
            parts.append(line.strip())
    return "".join(parts).upper()


class Rng:
    """Only random() is used: randrange/choice changed between Python versions."""

    def __init__(self, seed):
        self.r = random.Random(seed)

    def unif(self):
        return self.r.random()

    def int(self, lo, hi):  # inclusive
        return lo + int(self.r.random() * (hi - lo + 1))

    def base(self, not_this=None):
        while True:
            b = "ACGT"[self.int(0, 3)]
            if b != not_this:
                return b


def mutate(rng, seq, sub, ins, dele):
    out = []
    for b in seq:
        x = rng.unif()
        if x < sub:
            out.append(rng.base(b))
        elif x < sub + ins:
            out.append(b + rng.base())
        elif x < sub + ins + dele:
            pass
        else:
            out.append(b)
    return "".join(out)


def write_fasta(f, name, seq, width=80):
    f.write(">%s\n" % name)
    for i in range(0, len(seq), width):
        f.write(seq[i:i + width] + "\n")


def gen_sr(ref, prefix, pairs=2000, rlen=150, seed=11):
    """Illumina-like pairs: FR orientation, ~1% substitutions, rare 1-3 bp indels."""
    rng = Rng(seed)
    g = read_first_seq(ref)
    quals = "?@ABCDEFGHI"
    with open(prefix + "_1.fq", "w") as f1, open(prefix + "_2.fq", "w") as f2:
        for i in range(pairs):
            flen = rng.int(250, 500)
            start = rng.int(0, len(g) - flen - 10)
            frag = g[start:start + flen + 10]  # slack so deletions keep reads full length
            if rng.unif() < 0.5:
                frag = revcomp(frag)
            reads = [frag[:rlen + 5], revcomp(frag[:flen])[:rlen + 5]]
            for k, f in enumerate((f1, f2)):
                r = mutate(rng, reads[k], 0.01, 0.0, 0.0)
                if rng.unif() < 0.05:  # a few reads carry an indel
                    p, n = rng.int(20, rlen - 20), rng.int(1, 3)
                    if rng.unif() < 0.5:
                        r = r[:p] + r[p + n:]
                    else:
                        r = r[:p] + "".join(rng.base() for _ in range(n)) + r[p:]
                r = r[:rlen]
                q = "".join(quals[rng.int(0, len(quals) - 1)] for _ in r)
                f.write("@sr%d/%d\n%s\n+\n%s\n" % (i, k + 1, r, q))


def gen_splice(ref, prefix, genes=150, seed=13):
    """A genome cut from the reference with planted GT..AG introns, and
    cDNA-like reads (exons joined, ~2% errors, either orientation)."""
    rng = Rng(seed)
    src = read_first_seq(ref)
    glen = 1200000
    off = 500000  # skip the origin region; any real stretch would do
    genome = list(src[off:off + glen])
    reads = []
    pos = 2000
    for gi in range(genes):
        n_exons = rng.int(3, 5)
        exons = []
        p = pos
        for e in range(n_exons):
            elen = rng.int(80, 400)
            exons.append((p, p + elen))
            p += elen
            if e < n_exons - 1:
                p += rng.int(100, 2000)
        if p + 2000 > glen:
            break
        minus = rng.unif() < 0.5
        # on the forward strand a minus-strand GT..AG intron reads CT..AC
        left, right = ("CT", "AC") if minus else ("GT", "AG")
        for (_, a), (b, _) in zip(exons, exons[1:]):
            genome[a:a + 2], genome[b - 2:b] = list(left), list(right)
        pos = p + rng.int(1000, 3000)
        reads.append((gi, exons, minus))
    g = "".join(genome)
    with open(prefix + ".genome.fa", "w") as f:
        write_fasta(f, "ecoli_spliced", g)
    with open(prefix + ".reads.fa", "w") as f:
        for gi, exons, minus in reads:
            tx = "".join(g[a:b] for a, b in exons)
            if minus:
                tx = revcomp(tx)
            for k in range(2):
                r = tx[rng.int(0, 30):len(tx) - rng.int(0, 30)]
                r = mutate(rng, r, 0.01, 0.005, 0.005)
                if rng.unif() < 0.5:
                    r = revcomp(r)
                write_fasta(f, "tx%d_%d" % (gi, k), r)


def gen_hifi(ref, prefix, reads=200, seed=17):
    """PacBio HiFi-like reads (no public HiFi set is in the shared data): 8-20 kb, either strand,
    ~0.3% errors, mostly 1 bp indels as in HiFi homopolymers."""
    rng = Rng(seed)
    g = read_first_seq(ref)
    with open(prefix + ".fq", "w") as f:
        for i in range(reads):
            rlen = rng.int(8000, 20000)
            start = rng.int(0, len(g) - rlen)
            r = g[start:start + rlen]
            if rng.unif() < 0.5:
                r = revcomp(r)
            r = mutate(rng, r, 0.0005, 0.00125, 0.00125)
            f.write("@hifi%d\n%s\n+\n%s\n" % (i, r, "~" * len(r)))


if __name__ == "__main__":
    gens = {"sr": gen_sr, "splice": gen_splice, "hifi": gen_hifi}
    if len(sys.argv) != 4 or sys.argv[1] not in gens:
        sys.exit(__doc__)
    gens[sys.argv[1]](sys.argv[2], sys.argv[3])

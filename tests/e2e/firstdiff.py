#!/usr/bin/env python3
"""firstdiff.py PATCHED REFERENCE: describe the first line where two files differ.

Prints e.g.  line 12: patched 'r1\\t0\\t...' vs reference 'r1\\t16\\t...'
Lines are cut to 200 characters and shown with repr() so tabs and binary bytes
stay on one terminal line; a file that ends early shows <EOF>.
"""
import sys

WIDTH = 200


def show(line):
    if line is None:
        return "<EOF>"
    text = line.rstrip(b"\n").decode("utf-8", "backslashreplace")
    cut = "..." if len(text) > WIDTH else ""
    eol = "" if line.endswith(b"\n") else " <no newline at EOF>"
    return repr(text[:WIDTH]) + cut + eol


def main(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        n = 0
        while True:
            n += 1
            la, lb = fa.readline() or None, fb.readline() or None
            if la != lb:
                print("line %d: patched %s vs reference %s" % (n, show(la), show(lb)))
                return
            if la is None:
                print("files are identical")
                return


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])

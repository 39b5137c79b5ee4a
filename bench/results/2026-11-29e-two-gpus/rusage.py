#!/usr/bin/env python3
# rusage.py OUT CMD...: runs CMD (stdout/stderr inherited) and writes its resource use to OUT as one line
import os, resource, subprocess, sys, time
t = time.time()
rc = subprocess.call(sys.argv[2:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
    f.write(f"wall {time.time() - t:.2f} user {r.ru_utime:.2f} sys {r.ru_stime:.2f} maxrss_mb {r.ru_maxrss / 1024:.0f} "
            f"minflt {r.ru_minflt} majflt {r.ru_majflt} nvcsw {r.ru_nvcsw} nivcsw {r.ru_nivcsw} rc {rc}\n")

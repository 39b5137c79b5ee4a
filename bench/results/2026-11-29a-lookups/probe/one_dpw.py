"""kernels/ksw.cu with the one-warp DP reduced to ksw_extd2_dpw2 in CIGAR mode 1 under the approximate max (the
UL reads' gap fills), so that its anti-diagonal loop can be read in the SASS: writes common.cuh, ksw_lanes.cuh
and the reduced ksw.cu as one source, as src/gpu/mod.rs gives NVRTC the kernels."""
import sys
k = open('kernels/ksw.cu').read()
dispatch = '''	if (flag & F_APPROX_MAX) {
		if (flag & F_SCORE_ONLY) dpw_job<0, SPL, true, NS>(P, mat, im, p, R);
		else if (!(flag & F_RIGHT)) dpw_job<1, SPL, true, NS>(P, mat, im, p + O[O_P], R);
		else dpw_job<2, SPL, true, NS>(P, mat, im, p + O[O_P], R);
	} else {
		if (flag & F_SCORE_ONLY) dpw_job<0, SPL, false, NS>(P, mat, im, p, R);
		else if (!(flag & F_RIGHT)) dpw_job<1, SPL, false, NS>(P, mat, im, p + O[O_P], R);
		else dpw_job<2, SPL, false, NS>(P, mat, im, p + O[O_P], R);
	}'''
assert dispatch in k, 'kernels/ksw.cu changed: update this probe'
k = k.replace(dispatch, '	(void)flag;\n	dpw_job<1, SPL, true, NS>(P, mat, im, p + O[O_P], R);')
for name in ['ksw_extd2_dpw1, false, 1', 'ksw_extd2_dpw4, false, 4', 'ksw_exts2_dpw1, true, 1', 'ksw_exts2_dpw2, true, 2', 'ksw_exts2_dpw4, true, 4']:
    k = k.replace('DPW_KERNEL(%s)\n' % name, '')
open(sys.argv[1], 'w').write(open('kernels/common.cuh').read() + open('kernels/ksw_lanes.cuh').read() + k)

// Batched 2-bit packing of nucleotide sequences: 16 bases per word, A/C/G/T (either case) as 0..3,
// every other byte packed as 0 and flagged in a mask word (32 bases per mask word).
// One block per sequence; a thread per output word. Must equal warpalign::gpu::pack2bit_cpu.

__device__ __forceinline__ unsigned int nt2(unsigned char c, unsigned int *is_other)
{
	switch (c | 0x20) {
	case 'a': return 0;
	case 'c': return 1;
	case 'g': return 2;
	case 't': return 3;
	default: *is_other = 1; return 0;
	}
}

extern "C" __global__ void pack2bit(const unsigned char *bases, const unsigned long long *base_off,
                                    const unsigned long long *word_off, const unsigned long long *mask_off,
                                    unsigned int *words, unsigned int *masks, int n_seq)
{
	int s = blockIdx.x;
	if (s >= n_seq) return;
	const unsigned char *seq = bases + base_off[s];
	unsigned long long len = base_off[s + 1] - base_off[s];
	unsigned long long n_words = (len + 15) / 16, n_masks = (len + 31) / 32;
	for (unsigned long long w = threadIdx.x; w < n_words; w += blockDim.x) {
		unsigned int word = 0;
		for (int k = 0; k < 16; ++k) {
			unsigned long long i = w * 16 + k;
			unsigned int other = 0;
			if (i < len) word |= nt2(seq[i], &other) << (2 * k);
		}
		words[word_off[s] + w] = word;
	}
	for (unsigned long long m = threadIdx.x; m < n_masks; m += blockDim.x) {
		unsigned int mask = 0;
		for (int k = 0; k < 32; ++k) {
			unsigned long long i = m * 32 + k;
			unsigned int other = 0;
			if (i < len) { nt2(seq[i], &other); mask |= other << k; }
		}
		masks[mask_off[s] + m] = mask;
	}
}

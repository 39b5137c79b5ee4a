//! dna_utilities.c: the score set the hit processor extends with (`masked_score_set` of parse_options'
//! default `new_dna_score_set(HOXD70, HOXD70_X, HOXD70_fill, ...)`), and `entropy`.

/// `HOXD70` (A, C, G, T).
pub const HOXD70: [[i32; 4]; 4] =
    [[91, -114, -31, -123], [-114, 100, -125, -31], [-31, -125, 100, -114], [-123, -31, -114, 91]];
/// `HOXD70_X`: vs X (and, once masked, vs lowercase and N).
pub const HOXD70_X: i32 = -1000;
/// `HOXD70_fill`: any other pair of characters.
pub const HOXD70_FILL: i32 = -100;
/// `veryBadScore` with `score_type=I`: `-((negInfinity - worstPossibleScore) / 2)`, negInfinity being
/// `(int) (0.9 * INT_MIN)`; row and column 0 (the NUL byte).
pub const VERY_BAD_SCORE: i32 = -107_374_182;

/// A 256x256 substitution matrix, `[target byte][query byte]`.
#[derive(Clone)]
pub struct ScoreMatrix(pub Box<[[i32; 256]; 256]>);

impl ScoreMatrix {
    /// `masked_score_set(new_dna_score_set(HOXD70, HOXD70_X, HOXD70_fill, ..))`.
    pub fn masked_hoxd70() -> ScoreMatrix {
        let mut sub = Box::new([[HOXD70_FILL; 256]; 256]);
        for c in 0..256 {
            sub[0][c] = VERY_BAD_SCORE;
            sub[c][0] = VERY_BAD_SCORE;
        }
        for c in 0..256 {
            for x in [b'X', b'x'] {
                sub[x as usize][c] = HOXD70_X;
                sub[c][x as usize] = HOXD70_X;
            }
        }
        let nuc = *b"ACGT";
        for r in 0..4 {
            for c in 0..4 {
                for rc in [nuc[r], nuc[r].to_ascii_lowercase()] {
                    for cc in [nuc[c], nuc[c].to_ascii_lowercase()] {
                        sub[rc as usize][cc as usize] = HOXD70[r][c];
                    }
                }
            }
        }
        // masking: rows, then columns, of lowercase, N, n and X get sub['A']['X'] (from byte 1 on)
        let bad = sub[b'A' as usize][b'X' as usize];
        for ch in *b"acgtNnX" {
            for c in 1..256 {
                sub[ch as usize][c] = bad;
            }
        }
        for ch in *b"acgtNnX" {
            for r in 1..256 {
                sub[r][ch as usize] = bad;
            }
        }
        ScoreMatrix(sub)
    }

    #[inline]
    pub fn get(&self, a: u8, b: u8) -> i32 {
        self.0[a as usize][b as usize]
    }
}

/// `entropy(s, t, len)`: the entropy of the matched A, C, G, T (uppercase, equal bytes) over `len`,
/// in units of log 4; 1 when fewer than 20 match.
pub fn entropy(s: &[u8], t: &[u8]) -> f64 {
    let len = s.len();
    let mut count = [0i32; 4];
    for (&a, &b) in s.iter().zip(t) {
        if a == b {
            match a {
                b'A' => count[0] += 1,
                b'C' => count[1] += 1,
                b'G' => count[2] += 1,
                b'T' => count[3] += 1,
                _ => {}
            }
        }
    }
    let [ca, cc, cg, ct] = count;
    if ca + cc + cg + ct < 20 {
        return 1.0;
    }
    let p = |c: i32| c as f64 / len as f64;
    let q = |c: i32| if c != 0 { p(c).ln() } else { 0.0 };
    -(p(ca) * q(ca) + p(cc) * q(cc) + p(cg) * q(cg) + p(ct) * q(ct)) / 4f64.ln()
}

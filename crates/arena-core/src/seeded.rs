//! One small seeded generator (SplitMix64) for what must come out the same for the same seed:
//! the leaderboard's bootstrap intervals and the fuzzer's inputs.

/// SplitMix64: small, fast, and good enough for resampling and fuzzing (not for secrets).
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published SplitMix64 sequence for seed 0, so neither user's results drift.
    #[test]
    fn the_sequence_is_splitmix64() {
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        let mut rng = SplitMix64::new(7);
        assert!((0..1000).all(|_| rng.below(3) < 3));
        assert_eq!(SplitMix64::new(1).below(0), 0);
    }
}

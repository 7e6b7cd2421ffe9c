//! Helpers shared by the integration tests.

/// A tiny deterministic xorshift generator, so the property tests need no extra crate
/// and a failing seed reproduces.
pub struct Rng(pub u64);

impl Rng {
    /// A number in `0..n`.
    pub fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    /// One of `xs`.
    #[allow(dead_code)] // Not every test file picks from lists.
    pub fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.next(xs.len() as u64) as usize]
    }
}

//! Seeded random numbers: one PCG32 generator for test cases, benchmark operands and sampled
//! reference entries. A test binary's seed is `TCGEMM_SEED` (decimal or `0x…`) or the clock, and
//! every failure message carries it, so `TCGEMM_SEED=<seed> cargo test <name>` replays the case.

use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::elem::TestElem;

/// The base seed of this process: `TCGEMM_SEED` or the clock (read once).
///
/// ```
/// assert_eq!(tcgemm_testkit::seed(), tcgemm_testkit::seed());
/// ```
pub fn seed() -> u64 {
    static SEED: OnceLock<u64> = OnceLock::new();
    *SEED.get_or_init(|| {
        if let Ok(s) = std::env::var("TCGEMM_SEED") {
            let s = s.trim();
            let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => s.parse(),
            };
            parsed.unwrap_or_else(|e| panic!("TCGEMM_SEED={s:?} is not a u64: {e}"))
        } else {
            let d = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default();
            d.as_secs().wrapping_mul(1_000_000_007) ^ u64::from(d.subsec_nanos())
        }
    })
}

/// PCG32 (XSH-RR, 64-bit state), O'Neill 2014.
///
/// ```
/// use tcgemm_testkit::Rng;
/// let (mut a, mut b) = (Rng::new(42, 7), Rng::new(42, 7));
/// assert_eq!(a.next_u32(), b.next_u32());
/// assert!(a.below(10) < 10);
/// ```
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
    inc: u64,
}

const PCG_MUL: u64 = 6_364_136_223_846_793_005;

impl Rng {
    /// A generator for `(seed, stream)`; different streams are independent sequences.
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut r = Rng {
            state: 0,
            inc: (stream << 1) | 1,
        };
        r.next_u32();
        r.state = r.state.wrapping_add(seed);
        r.next_u32();
        r
    }

    /// The generator of one test: the process's [`seed`] and a stream derived from the test's
    /// name, so a test's cases do not depend on which other tests ran.
    pub fn for_test(name: &str) -> Rng {
        // FNV-1a of the name.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        Rng::new(seed(), h)
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.state = old.wrapping_mul(PCG_MUL).wrapping_add(self.inc);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        xorshifted.rotate_right((old >> 59) as u32)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        (u64::from(self.next_u32()) << 32) | u64::from(self.next_u32())
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-shift (bias below 2^-32 for the sizes used here).
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "Rng::below(0)");
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        assert!(lo <= hi);
        lo + self.below(hi - lo + 1)
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[-1, 1]`, never zero: magnitude in `(0, 1]`, random sign.
    pub fn pm1(&mut self) -> f64 {
        let mag = ((self.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64);
        if self.next_u32() & 1 == 0 {
            mag
        } else {
            -mag
        }
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// A random value of `T` in `[-1, 1]` that is neither zero nor subnormal after rounding to `T`
/// (magnitude at least 2⁻¹²).
///
/// ```
/// use tcgemm_testkit::{random_elem, Rng};
/// let x: half::bf16 = random_elem(&mut Rng::new(1, 1));
/// assert!(x.to_f32().is_normal() && x.to_f32().abs() <= 1.0);
/// ```
pub fn random_elem<T: TestElem>(rng: &mut Rng) -> T {
    loop {
        let v = T::from_f64(rng.pm1());
        if v.to_f64().abs() >= 1.0 / 4096.0 {
            return v;
        }
    }
}

/// `len` values of [`random_elem`], filled in parallel (stream `i` of `seed` for chunk `i`), so the
/// result depends on `seed` and `len` only.
///
/// ```
/// let v = tcgemm_testkit::random_vec::<f32>(1000, 7);
/// assert_eq!(v, tcgemm_testkit::random_vec::<f32>(1000, 7));
/// assert!(v.iter().all(|x| *x != 0.0));
/// ```
pub fn random_vec<T: TestElem>(len: usize, seed: u64) -> Vec<T> {
    let mut v = vec![T::default(); len];
    let chunk = 1 << 16;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_thread = len.div_ceil(threads).div_ceil(chunk).max(1) * chunk;
    std::thread::scope(|s| {
        for (t, part) in v.chunks_mut(per_thread).enumerate() {
            s.spawn(move || {
                for (c, piece) in part.chunks_mut(chunk).enumerate() {
                    let mut r = Rng::new(seed, (t * per_thread / chunk + c) as u64);
                    piece.iter_mut().for_each(|x| *x = random_elem(&mut r));
                }
            });
        }
    });
    v
}
